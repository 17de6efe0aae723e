/**
 * What a node group's nodes look like to the scheduler (their labels and taints), and which
 * groups a pod placement (nodeSelector + tolerations) can land on. Pure: the node groups render
 * labels and taints with it, the stack config checks placements against it, and the program
 * makes a release wait for exactly the groups its pods need.
 */
import { tolerates, type Taint, type Toleration, untoleratedTaint } from "eks-platform-kernel";
import { GPU_AMI_TYPES } from "./ami";

// Kubernetes' matching rules live with the policy library's other scheduling rules.
export { tolerates, type Toleration };

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
