/**
 * What a node-group kind is: its config half (`NodeGroupKindSchema`, common.schema.ts), which the
 * stack config reads, and what the program and the tools add to it here: its builder, its nodes
 * as the tools and the docs describe them, and the resource types only it registers. Each kind's
 * module (`managed.ts`, `selfManaged.ts`) declares one; `kinds.ts` registers them.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ReplacementRule } from "eks-platform-kernel";
import type { z } from "zod";
import type { Cluster } from "../cluster";
import type { CommonNodeGroupConfig, NodeGroupKindSchema } from "./common.schema";

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

/**
 * One node-group kind: its config half (`NodeGroupKindSchema`, from its `<kind>.schema.ts`), its
 * builder and the facts the tools need.
 */
export interface NodeGroupKind<
    S extends z.ZodObject = z.ZodObject,
    C extends CommonNodeGroupConfig = z.output<S> & CommonNodeGroupConfig,
> extends NodeGroupKindSchema<S, C> {
    /** Builds the group's component under `args.parent`. */
    build(args: NodeGroupBuild<C>): BuiltNodeGroup;
    nodes: KindNodes;
    /** The resource types only this kind registers (its node resource among them). */
    resourceTypes: Readonly<Record<string, KindResourceType>>;
}
