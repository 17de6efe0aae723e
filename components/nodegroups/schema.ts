/**
 * `nodeGroups` in stack config: a map of groups keyed by name, each of a registered kind (its
 * config half in `<kind>.schema.ts`, registered in `NODE_GROUP_KIND_SCHEMAS`). Each kind owns its
 * schema and its own checks; the checks every group gets live in `common.schema.ts`. What spans
 * the groups, or needs the cluster, is checked here.
 *
 * Also what a group's config means to the scheduler (its nodes' labels and taints, and which
 * groups a pod placement, nodeSelector + tolerations, can land on): the node groups render labels
 * and taints with it, the stack config checks placements against it, and the program makes a
 * release wait for exactly the groups its pods need. And the names of the Node Termination
 * Handler's EventBridge rules (nth.ts creates them), whose length the cluster name bounds. Pure.
 */
import { kubernetesMinor, parseReleaseVersion, type Taint, tolerates, type Toleration, untoleratedTaint } from "eks-platform-kernel";
import { z } from "zod";
import { dnsLabel } from "../schema";
import { commonClusterProblems, commonGroupProblems, GPU_AMI_TYPES, GroupProblem, type NodeGroupKindSchema } from "./common.schema";
import { managedKindSchema } from "./managed.schema";
import { selfManagedKindSchema } from "./selfManaged.schema";

// Kubernetes' matching rules live with the policy library's other scheduling rules.
export { tolerates, type Toleration };

/**
 * The kinds' config halves, in the order the docs list them. `NODE_GROUP_KINDS` (kinds.ts) adds
 * each one's component and the facts the tools need, in this order.
 */
export const NODE_GROUP_KIND_SCHEMAS = [managedKindSchema, selfManagedKindSchema] as const;

type Registered = (typeof NODE_GROUP_KIND_SCHEMAS)[number];

/** The schemas of `kinds`, as a tuple `z.discriminatedUnion` accepts. */
function kindSchemas<K extends readonly NodeGroupKindSchema[]>(kinds: K): { -readonly [I in keyof K]: K[I]["schema"] } {
    return kinds.map((k) => k.schema) as { -readonly [I in keyof K]: K[I]["schema"] };
}

/** A validated node group, of any registered kind. */
export type NodeGroupConfig = z.output<Registered["schema"]>;

/** The registered kind of a validated group, as the stack config knows it. */
export function kindSchemaOf(config: Pick<NodeGroupConfig, "kind">): NodeGroupKindSchema<z.ZodObject, NodeGroupConfig> {
    const kind = NODE_GROUP_KIND_SCHEMAS.find((k) => k.kind === config.kind);
    if (!kind) {
        throw new Error(`no node-group kind ${config.kind} is registered (components/nodegroups/schema.ts)`);
    }
    return kind;
}

// The shared checks first, then the kind's own: the error lists them in this order.
const nodeGroupSchema = z.discriminatedUnion("kind", kindSchemas(NODE_GROUP_KIND_SCHEMAS)).superRefine((g, ctx) => {
    const kind = kindSchemaOf(g);
    for (const [path, message] of [...commonGroupProblems(g, kind.ami(g)), ...kind.problems(g)]) {
        ctx.addIssue({ code: "custom", path, message });
    }
});

/** `nodeGroups` in stack config: a map keyed by node group name. */
export const nodeGroupsSchema = z.record(dnsLabel, nodeGroupSchema);

export type NodeGroupsConfig = z.output<typeof nodeGroupsSchema>;

/**
 * Checks node groups against the cluster they join: things the node group section alone cannot
 * know. Returns `[path, message]` pairs relative to `nodeGroups`. Pure.
 */
export function nodeGroupClusterProblems(groups: NodeGroupsConfig, cluster: { name: string; version: string }): GroupProblem[] {
    const problems: GroupProblem[] = [];
    const clusterMinor = kubernetesMinor(cluster.version);
    // One minor at a time: nodes are never newer than the control plane, so a control plane at
    // most one minor above the newest pinned node group is at most one minor above where it was.
    const pinned = Object.entries(groups)
        .filter(([, g]) => g.enabled && g.releaseVersion !== undefined)
        .map(([name, g]) => [name, kubernetesMinor(parseReleaseVersion(g.releaseVersion as string)?.minor ?? "")] as const)
        .filter(([, minor]) => !Number.isNaN(minor));
    const newest = Math.max(...pinned.map(([, minor]) => minor));
    if (pinned.length > 0 && clusterMinor > newest + 1) {
        problems.push([
            [pinned.find(([, minor]) => minor === newest)![0], "releaseVersion"],
            `the newest node group runs 1.${newest} but cluster.version is ${cluster.version}: EKS upgrades the control plane one minor at a time; go to 1.${newest + 1}, move the node groups to it, then continue (docs/changes.md#kubernetes-upgrades)`,
        ]);
    }
    const firstDrainedByNth = Object.entries(groups).find(([, g]) => g.enabled && kindSchemaOf(g).needsTerminationHandler)?.[0];
    const nthRule = longestNthRuleName(cluster.name);
    if (firstDrainedByNth !== undefined && nthRule.length > 64) {
        problems.push([
            [firstDrainedByNth],
            `needs the Node Termination Handler, whose EventBridge rule ${nthRule} exceeds EventBridge's 64 characters; shorten the cluster name to at most ${64 - (nthRule.length - cluster.name.length)} characters`,
        ]);
    }
    for (const [name, g] of Object.entries(groups)) {
        problems.push(...commonClusterProblems(name, g, kindSchemaOf(g).ami(g), cluster));
    }
    return problems;
}

// ---------------------------------------------------------------------------------------------
// The Node Termination Handler's rules (nth.ts).

/**
 * The EventBridge patterns that feed the NTH queue, keyed by a short rule key (at most 9
 * characters: see `nthRuleName`). Pure.
 */
export function nthEventPatterns(): Record<string, Record<string, unknown>> {
    return {
        asg: { source: ["aws.autoscaling"], "detail-type": ["EC2 Instance-terminate Lifecycle Action"] },
        spot: { source: ["aws.ec2"], "detail-type": ["EC2 Spot Instance Interruption Warning"] },
        rebalance: { source: ["aws.ec2"], "detail-type": ["EC2 Instance Rebalance Recommendation"] },
        state: { source: ["aws.ec2"], "detail-type": ["EC2 Instance State-change Notification"] },
        health: {
            source: ["aws.health"],
            "detail-type": ["AWS Health Event"],
            detail: { service: ["EC2"], eventTypeCategory: ["scheduledChange"] },
        },
    };
}

/** Static name of an NTH rule, so the queue policy can name its senders at preview. Pure. */
export function nthRuleName(clusterName: string, key: string): string {
    return `${clusterName}-nth-${key}`;
}

/** The longest rule name NTH derives for a cluster (EventBridge allows 64 characters). Pure. */
export function longestNthRuleName(clusterName: string): string {
    return Object.keys(nthEventPatterns())
        .map((key) => nthRuleName(clusterName, key))
        .reduce((a, b) => (b.length > a.length ? b : a));
}

// ---------------------------------------------------------------------------------------------
// What the nodes look like to the scheduler.

/** A pod's placement: the node labels it requires and the taints it tolerates. */
export interface Placement {
    nodeSelector: Readonly<Record<string, string>>;
    tolerations: readonly Toleration[];
}

/** The label every GPU node carries. */
export const GPU_LABELS: Readonly<Record<string, string>> = { accelerator: "nvidia" };

/** The taint every GPU node carries: only pods that tolerate it (GPU workloads) land there. */
export const GPU_TAINT: Taint = { key: "nvidia.com/gpu", value: "true", effect: "NoSchedule" };

/**
 * The labels of the nodes that run platform components (CoreDNS, the Node Termination Handler,
 * the Karpenter controller unless its `nodeSelector` says otherwise).
 */
export const SYSTEM_NODE_LABELS: Readonly<Record<string, string>> = { "platform/role": "system" };

/** The taint system nodes may carry to keep workloads off; platform components tolerate it. */
export const CRITICAL_ADDONS_ONLY: Toleration = { key: "CriticalAddonsOnly", operator: "Exists" };

/**
 * Where platform controllers run: the nodes labelled for platform components, whose taint (prod:
 * `CriticalAddonsOnly`) they tolerate. Without a system group they run anywhere. Pure.
 */
export function systemPlacement(hasSystemNodes: boolean): Placement {
    return {
        nodeSelector: hasSystemNodes ? { ...SYSTEM_NODE_LABELS } : {},
        tolerations: [CRITICAL_ADDONS_ONLY],
    };
}

/** The part of a node group's config that decides its nodes' labels and taints. */
export interface SchedulingConfig {
    kind: string;
    enabled: boolean;
    labels: Readonly<Record<string, string>>;
    taints: readonly Taint[];
    amiType?: string;
}

/** True for a group whose AMI carries the NVIDIA driver (an EKS GPU AMI type). Pure. */
export function isGpuGroup(config: Pick<SchedulingConfig, "kind" | "amiType">): boolean {
    return config.amiType !== undefined && GPU_AMI_TYPES.includes(config.amiType);
}

/** The group's node labels: config labels, plus `accelerator: nvidia` on GPU groups. Pure. */
export function nodeLabels(config: Pick<SchedulingConfig, "kind" | "amiType" | "labels">): Record<string, string> {
    return isGpuGroup(config) ? { ...config.labels, ...GPU_LABELS } : { ...config.labels };
}

/**
 * Whether `taints` keep off a pod that tolerates nothing (a `NoSchedule` or `NoExecute` taint;
 * `PreferNoSchedule` only discourages): node groups' taints and NodePools' (whose value may be
 * absent) alike. Pure.
 */
export function keepsOffEveryPod(taints: readonly { key: string; value?: string; effect: Taint["effect"] }[]): boolean {
    return (
        untoleratedTaint(
            [],
            taints.map((t) => ({ ...t, value: t.value ?? "" })),
        ) !== undefined
    );
}

/** The group's taints: config taints, plus `nvidia.com/gpu=true:NoSchedule` on GPU groups. Pure. */
export function nodeTaints(config: Pick<SchedulingConfig, "kind" | "amiType" | "taints">): Taint[] {
    const taints = [...config.taints];
    if (isGpuGroup(config) && !taints.some((t) => t.key === GPU_TAINT.key && t.effect === GPU_TAINT.effect)) {
        taints.push(GPU_TAINT);
    }
    return taints;
}

/** One enabled group whose nodes carry every label a placement selects. */
export interface SelectedGroup<G> {
    name: string;
    group: G;
    /** Taints that keep the placement's pods off (PreferNoSchedule only discourages). */
    untolerated: Taint[];
}

/** Enabled groups whose nodes carry the placement's every `nodeSelector` label, in config order. Pure. */
export function groupsSelected<G extends SchedulingConfig>(placement: Placement, groups: Readonly<Record<string, G>>): SelectedGroup<G>[] {
    return Object.entries(groups)
        .filter(([, g]) => g.enabled)
        .filter(([, g]) => {
            const labels = nodeLabels(g);
            return Object.entries(placement.nodeSelector).every(([key, value]) => labels[key] === value);
        })
        .map(([name, group]) => ({
            name,
            group,
            untolerated: nodeTaints(group).filter((t) => t.effect !== "PreferNoSchedule" && !tolerates(placement.tolerations, t)),
        }));
}

/** Names of the enabled groups a pod with this placement can be scheduled on. Pure. */
export function groupsFitting(placement: Placement, groups: Readonly<Record<string, SchedulingConfig>>): string[] {
    return groupsSelected(placement, groups)
        .filter((s) => s.untolerated.length === 0)
        .map((s) => s.name);
}
