/**
 * Node groups of the cluster, from the `nodeGroups` config map: each group built by its kind
 * (`kinds.ts`: managed groups, which EKS drains on updates; self-managed groups, instance refresh +
 * Node Termination Handler), NTH when a kind needs it, and the NVIDIA device plugin wherever NVIDIA
 * GPUs can appear: a GPU group, or a Karpenter NodePool that may launch an NVIDIA instance type.
 * The plugin stays a child of this component for pools too: that is where existing stacks have it,
 * and moving it would replace its release.
 */
import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GpuDevicePlugin, GpuPoolCandidate, gpuNodes, hasGpuNodes } from "./gpu";
import type { BuiltNodeGroup, NodeGroupsCluster } from "./kind";
import { kindOf } from "./kinds";
import { NodeTerminationHandler } from "./nth";
import { CRITICAL_ADDONS_ONLY, groupsFitting, type NodeGroupsConfig, Placement, SYSTEM_NODE_LABELS, systemPlacement } from "./schema";

export type { NodeGroupsCluster } from "./kind";

export interface NodeGroupsArgs {
    cluster: NodeGroupsCluster;
    /** Kubernetes provider of the cluster (NTH and the GPU device plugin). */
    provider: k8s.Provider;
    /** Node groups keyed by name, as validated by the config module. */
    groups: NodeGroupsConfig;
    /** AWS region (NTH calls SQS there). */
    region: string;
    /** The VPC's range (NTH falls back to the VPC's DNS resolver). */
    vpcCidr: string;
    /** Private subnets; every node runs there. */
    privateSubnetIds: pulumi.Input<string>[];
    /**
     * Karpenter's NodePools (validated config) when Karpenter is enabled: those that may launch an
     * NVIDIA instance type get the device plugin too, tolerating their taints. Defaults to `{}`.
     */
    nodePools?: Readonly<Record<string, GpuPoolCandidate>>;
}

/** Where the platform's own add-ons of the node groups run (the Node Termination Handler). */
const SYSTEM_PLACEMENT: Placement = { nodeSelector: SYSTEM_NODE_LABELS, tolerations: [CRITICAL_ADDONS_ONLY] };

export class NodeGroups extends pulumi.ComponentResource {
    /** Every node group and Auto Scaling group: depend on these for "nodes exist" (CoreDNS). */
    public readonly nodes: pulumi.Resource[] = [];
    /** What each enabled group's kind built, by config key: its component and what makes its nodes exist. */
    private readonly built: Record<string, BuiltNodeGroup> = {};
    private readonly groups: NodeGroupsConfig;
    /** Static node role names by group key. */
    public readonly nodeRoleNames: Record<string, string> = {};
    /** EKS node group names (generated from the key as a prefix) by group key. */
    public readonly nodeGroupNames: Record<string, pulumi.Output<string>> = {};
    /** Auto Scaling group names by self-managed group key. */
    public readonly autoScalingGroupNames: Record<string, pulumi.Output<string>> = {};
    /** URL of the Node Termination Handler queue, when a group's kind needs it. */
    public readonly terminationHandlerQueueUrl?: pulumi.Output<string>;
    public readonly terminationHandler?: NodeTerminationHandler;
    public readonly devicePlugin?: GpuDevicePlugin;

    constructor(name: string, args: NodeGroupsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:nodegroups:NodeGroups", name, {}, opts);
        const { cluster } = args;
        this.groups = args.groups;

        // Only the node group, never also the cluster security group EKS creates: both carry
        // `kubernetes.io/cluster/<name>`, and with two such groups on an ENI the AWS Load Balancer
        // Controller and the in-tree service controller refuse to open targets ("expect exactly one
        // securityGroup tagged"). The node group holds every rule nodes need, as on Karpenter nodes.
        const securityGroupIds = [cluster.nodeSecurityGroupId];
        const enabled = Object.entries(args.groups).filter(([, config]) => config.enabled);
        // One loop in dependency order: the groups EKS drains itself, then the Node Termination
        // Handler, then the groups it drains (config order within each).
        const needsNth = ([, config]: (typeof enabled)[number]) => kindOf(config).needsTerminationHandler;
        const buildOrder = [...enabled.filter((e) => !needsNth(e)), ...enabled.filter(needsNth)];
        for (const [group, config] of buildOrder) {
            const kind = kindOf(config);
            if (kind.needsTerminationHandler && this.terminationHandler === undefined) {
                // NTH before the groups that depend on it (the self-managed ones): Pulumi deletes
                // dependents first, so a group being removed is scaled to zero (each node drained
                // through the lifecycle hook and NTH) before NTH or its event feed goes. Its pods
                // wait for the groups built before it only: those EKS drains itself (the managed ones).
                this.terminationHandler = new NodeTerminationHandler(
                    `${name}-nth`,
                    {
                        clusterName: cluster.name,
                        vpcCidr: args.vpcCidr,
                        region: args.region,
                        provider: args.provider,
                        cluster: cluster.eks,
                        placement: {
                            nodeSelector:
                                groupsFitting(SYSTEM_PLACEMENT, args.groups).length > 0 ? { ...SYSTEM_PLACEMENT.nodeSelector } : {},
                            tolerations: SYSTEM_PLACEMENT.tolerations.map((t) => ({ ...t })),
                        },
                        releaseDependencies: Object.values(this.built).flatMap((b) => b.nodes),
                    },
                    { parent: this },
                );
                this.terminationHandlerQueueUrl = this.terminationHandler.queue.url;
            }
            this.built[group] = kind.build({
                name: `${name}-${group}`,
                group,
                config,
                cluster,
                subnetIds: args.privateSubnetIds,
                securityGroupIds,
                drainPath: kind.needsTerminationHandler ? this.terminationHandler?.drainPath : undefined,
                parent: this,
            });
        }

        // Outputs in config order, whatever order the groups were built in.
        for (const [group] of enabled) {
            const built = this.built[group];
            this.nodeRoleNames[group] = built.roleName;
            if (built.nodeGroupName !== undefined) {
                this.nodeGroupNames[group] = built.nodeGroupName;
            }
            if (built.autoScalingGroupName !== undefined) {
                this.autoScalingGroupNames[group] = built.autoScalingGroupName;
            }
            this.nodes.push(...built.nodes);
        }

        const gpu = gpuNodes(args.groups, args.nodePools);
        if (hasGpuNodes(gpu)) {
            this.devicePlugin = new GpuDevicePlugin(
                `${name}-nvidia`,
                { provider: args.provider, nodes: gpu },
                { parent: this, dependsOn: cluster.addons },
            );
        }

        this.registerOutputs({
            nodeRoleNames: this.nodeRoleNames,
            nodeGroupNames: this.nodeGroupNames,
            autoScalingGroupNames: this.autoScalingGroupNames,
        });
    }

    /** The component of an enabled group, checked to be a `type` (its kind's class). */
    componentOf<T extends pulumi.ComponentResource>(group: string, type: abstract new (...args: never[]) => T): T {
        const component = this.built[group]?.component;
        if (!(component instanceof type)) {
            throw new Error(`node group ${group} has no ${type.name} (enabled groups: ${Object.keys(this.built).join(", ")})`);
        }
        return component;
    }

    /**
     * What must exist before pods with `placement` can be scheduled: the node groups (or Auto
     * Scaling groups) whose nodes carry its labels and whose taints it tolerates. A Helm release
     * whose pods would otherwise stay Pending depends on these.
     */
    nodesFor(placement: Placement): pulumi.Resource[] {
        return groupsFitting(placement, this.groups).flatMap((group) => this.built[group]?.nodes ?? []);
    }

    /** Whether a group's nodes carry the system label and admit platform controllers. */
    get hasSystemNodes(): boolean {
        return this.nodesFor(systemPlacement(true)).length > 0;
    }
}
