/**
 * The registry of node-group kinds: each kind is one module (`managed.ts`, `selfManaged.ts`) that
 * declares everything the platform needs to know about it, and `NODE_GROUP_KINDS` is the one list
 * that registers them. The config schema, the `NodeGroups` component, the offline plan, diff and
 * replacement rules read this list instead of branching on `kind`;
 * test/components/nodegroups/kinds.test.ts fails when a registered kind lacks a part. A GPU group
 * is not a kind: it is a managed group with an NVIDIA AMI type (`isGpuGroup`).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ReplacementRule } from "eks-platform-kernel";
import type { z } from "zod";
import type { Cluster } from "../cluster";
import type { AmiFacts, CommonNodeGroupConfig, GroupProblem } from "./common";
import { managedKind } from "./managed";
import { selfManagedKind } from "./selfManaged";

/** What the node groups need from the control plane. */
export type NodeGroupsCluster = Pick<
    Cluster,
    "name" | "version" | "serviceCidr" | "endpoint" | "certificateAuthority" | "nodeSecurityGroupId" | "eks" | "addons"
>;

/** What `NodeGroups` hands a kind's builder for one enabled group. */
export interface NodeGroupBuild<C> {
    /** The group's component name, `<NodeGroups name>-<group key>`: its children's names and URNs derive from it. */
    name: string;
    /** The group's key in config. */
    group: string;
    /** The group's validated config. */
    config: C;
    cluster: NodeGroupsCluster;
    /** Private subnets; every node runs there. */
    subnetIds: pulumi.Input<string>[];
    /** The nodes' one security group (see `NodeGroups`). */
    securityGroupIds: pulumi.Input<string>[];
    /**
     * What drains the nodes when they terminate (the Node Termination Handler's `drainPath`), for
     * kinds that need it; the group depends on it so it outlives the group.
     */
    drainPath?: pulumi.Resource[];
    /** The `NodeGroups` component, parent of the group's component. */
    parent: pulumi.Resource;
}

/** What a kind's builder made of one group. */
export interface BuiltNodeGroup {
    /** The group's component. */
    component: pulumi.ComponentResource;
    /** What makes its nodes exist: CoreDNS, Karpenter's controller and releases that need its nodes wait on these. */
    nodes: pulumi.Resource[];
    /** Its static node role name (policies and Karpenter link through names). */
    roleName: string;
    /** Its EKS node group name, when it is an EKS managed node group. */
    nodeGroupName?: pulumi.Output<string>;
    /** Its Auto Scaling group name, when its nodes are an ASG. */
    autoScalingGroupName?: pulumi.Output<string>;
}

/** What the offline tools know of a resource type only this kind registers. */
export interface KindResourceType {
    /** What forces a replacement and what rolls nodes (tools/render/replacements.ts). */
    replacement: ReplacementRule;
    /** The settings an operator checks in the plan text (tools/render/planText.ts). Defaults to none. */
    planFields?: readonly string[];
}

/** The resource that holds a kind's nodes, as the tools and the docs describe it. */
export interface KindNodes {
    /** Its resource type: the drain rehearsal must read it as capacity (`CAPACITY_TYPES`). */
    type: string;
    /**
     * What deleting or replacing it drains at once, read from its inputs (`plan --diff`):
     * `all of its nodes (1–4, 2 at creation)`. `show` prints a value as the diff does.
     */
    drained(props: Record<string, unknown>, show: (value: unknown) => string): string;
    /** The doc section with the safe sequence for removing or renaming such a group. */
    safeSequence: string;
    /** What it is built from (docs/nodegroups.md's table of kinds). */
    builtFrom: string;
    /** Who replaces its nodes on a change, and how many at a time. */
    rollout: string;
    /** What drains each node, and inside what window. */
    drain: string;
}

/** One node-group kind: its config, its checks, its builder and the facts the tools need. */
export interface NodeGroupKind<S extends z.ZodObject = z.ZodObject, C extends CommonNodeGroupConfig = z.output<S> & CommonNodeGroupConfig> {
    /** The `kind` value in config. */
    kind: string;
    /** Its config: a `z.strictObject` of `kind: z.literal(<kind>)`, `...commonFields` and its own fields. */
    schema: S;
    /** The smallest valid config of the kind (the registry test renders it). */
    example: z.input<S>;
    /** Its AMI as the shared checks see it. */
    ami(config: C): AmiFacts;
    /** Its own checks, run after the shared ones (`commonGroupProblems`). */
    problems(config: C): GroupProblem[];
    /**
     * The public SSM parameter of the EKS-optimized AMI release a group pins (`ami.ts`), which
     * `npm run preflight` asks SSM for; `undefined` where no parameter layout is known for its AMI
     * (the check then says it cannot decide). Asked only of groups that pin a release.
     */
    releaseParameter(config: C & { releaseVersion: string }): string | undefined;
    /** Its nodes are drained by the Node Termination Handler (created before the groups that need it). */
    needsTerminationHandler: boolean;
    /** Builds the group's component under `args.parent`. */
    build(args: NodeGroupBuild<C>): BuiltNodeGroup;
    nodes: KindNodes;
    /** The resource types only this kind registers (its node resource among them). */
    resourceTypes: Readonly<Record<string, KindResourceType>>;
}

/** The kinds, in the order the docs list them. Adding a kind is one module and one entry here. */
export const NODE_GROUP_KINDS = [managedKind, selfManagedKind] as const;

type Registered = (typeof NODE_GROUP_KINDS)[number];

/** The schemas of `kinds`, as a tuple `z.discriminatedUnion` accepts. */
export function kindSchemas<K extends readonly NodeGroupKind[]>(kinds: K): { -readonly [I in keyof K]: K[I]["schema"] } {
    return kinds.map((k) => k.schema) as { -readonly [I in keyof K]: K[I]["schema"] };
}

/** A validated node group, of any registered kind. */
export type NodeGroupConfig = z.output<Registered["schema"]>;

/** The registered kind of a validated group. */
export function kindOf(config: Pick<NodeGroupConfig, "kind">): NodeGroupKind<z.ZodObject, NodeGroupConfig> {
    const kind = NODE_GROUP_KINDS.find((k) => k.kind === config.kind);
    if (!kind) {
        throw new Error(`no node-group kind ${config.kind} is registered (components/nodegroups/kinds.ts)`);
    }
    return kind;
}

/**
 * The resource types the kinds own, merged. A type two kinds declare differently has no single
 * answer, so the merge refuses it. Pure.
 */
export function kindResourceTypes(kinds: readonly NodeGroupKind[] = NODE_GROUP_KINDS): Record<string, KindResourceType> {
    const merged: Record<string, KindResourceType> = {};
    const owner: Record<string, string> = {};
    for (const kind of kinds) {
        for (const [type, facts] of Object.entries(kind.resourceTypes)) {
            if (merged[type] !== undefined && JSON.stringify(merged[type]) !== JSON.stringify(facts)) {
                throw new Error(`node-group kinds ${owner[type]} and ${kind.kind} declare ${type} differently`);
            }
            merged[type] = facts;
            owner[type] = kind.kind;
        }
    }
    return merged;
}

/**
 * `table` (a tool's facts per resource type) with `pick` of each type the kinds own added. A type in
 * both would have two homes and two answers, so this refuses it, naming `where` the table lives.
 */
export function withKindFacts<T>(
    table: Readonly<Record<string, T>>,
    pick: (facts: KindResourceType) => T | undefined,
    where: string,
): Record<string, T> {
    const owned = Object.entries(kindResourceTypes()).flatMap(([type, facts]) => {
        const picked = pick(facts);
        return picked === undefined ? [] : [[type, picked] as const];
    });
    const twice = owned.filter(([type]) => table[type] !== undefined).map(([type]) => type);
    if (twice.length > 0) {
        throw new Error(`${twice.join(", ")}: in ${where} and in a node-group kind (components/nodegroups/kinds.ts); keep one`);
    }
    return { ...table, ...Object.fromEntries(owned) };
}
