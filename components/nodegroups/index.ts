/**
 * Node groups of the cluster, from the `nodeGroups` config map: managed groups (EKS drains them
 * on updates), self-managed groups (instance refresh + Node Termination Handler), and the NVIDIA
 * device plugin when a GPU group exists.
 */
import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { Cluster } from "../cluster";
import type { NodeGroupsConfig } from "../config/nodeGroups";
import { GpuDevicePlugin } from "./gpu";
import { nodeRoleName } from "./iam";
import { ManagedNodeGroup } from "./managed";
import { NodeTerminationHandler } from "./nth";
import { CRITICAL_ADDONS_ONLY, groupsFitting, isGpuGroup, Placement, SYSTEM_NODE_LABELS, systemPlacement } from "./scheduling";
import { SelfManagedNodeGroup } from "./selfManaged";

/** What the node groups need from the control plane. */
export type NodeGroupsCluster = Pick<
    Cluster,
    "name" | "version" | "serviceCidr" | "endpoint" | "certificateAuthority" | "nodeSecurityGroupId" | "eks" | "addons"
>;

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
}

/** Where the platform's own add-ons of the node groups run (the Node Termination Handler). */
const SYSTEM_PLACEMENT: Placement = { nodeSelector: SYSTEM_NODE_LABELS, tolerations: [CRITICAL_ADDONS_ONLY] };

export class NodeGroups extends pulumi.ComponentResource {
    /** Managed groups by config key (enabled ones only). */
    public readonly managed: Record<string, ManagedNodeGroup> = {};
    /** Self-managed groups by config key (enabled ones only). */
    public readonly selfManaged: Record<string, SelfManagedNodeGroup> = {};
    /** Every node group and Auto Scaling group: depend on these for "nodes exist" (CoreDNS). */
    public readonly nodes: pulumi.Resource[] = [];
    /** What makes each enabled group's nodes exist, by config key: its node group, or its ASG and hook. */
    private readonly nodesByGroup: Record<string, pulumi.Resource[]> = {};
    private readonly groups: NodeGroupsConfig;
    /** Static node role names by group key. */
    public readonly nodeRoleNames: Record<string, string> = {};
    /** EKS node group names (generated from the key as a prefix) by group key. */
    public readonly nodeGroupNames: Record<string, pulumi.Output<string>> = {};
    /** Auto Scaling group names by self-managed group key. */
    public readonly autoScalingGroupNames: Record<string, pulumi.Output<string>> = {};
    /** URL of the Node Termination Handler queue, when a self-managed group exists. */
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
        const joinDependencies: pulumi.Resource[] = [cluster.eks, ...cluster.addons];
        const enabled = Object.entries(args.groups).filter(([, config]) => config.enabled);
        for (const [group, config] of enabled) {
            this.nodeRoleNames[group] = nodeRoleName(cluster.name, group);
            if (config.kind !== "managed") {
                continue;
            }
            const managed = new ManagedNodeGroup(
                `${name}-${group}`,
                { clusterName: cluster.name, group, config, subnetIds: args.privateSubnetIds, securityGroupIds, joinDependencies },
                { parent: this },
            );
            this.managed[group] = managed;
            this.nodeGroupNames[group] = managed.nodeGroup.nodeGroupName;
            this.nodesByGroup[group] = [managed.nodeGroup];
        }

        // NTH before the self-managed groups, which depend on it: Pulumi deletes dependents first,
        // so a group being removed is scaled to zero (each node drained through the lifecycle
        // hook and NTH) before NTH or its event feed goes. Its pods wait for the managed groups only.
        if (enabled.some(([, config]) => config.kind === "selfManaged")) {
            this.terminationHandler = new NodeTerminationHandler(
                `${name}-nth`,
                {
                    clusterName: cluster.name,
                    vpcCidr: args.vpcCidr,
                    region: args.region,
                    provider: args.provider,
                    cluster: cluster.eks,
                    placement: {
                        nodeSelector: groupsFitting(SYSTEM_PLACEMENT, args.groups).length > 0 ? { ...SYSTEM_PLACEMENT.nodeSelector } : {},
                        tolerations: SYSTEM_PLACEMENT.tolerations.map((t) => ({ ...t })),
                    },
                    releaseDependencies: Object.values(this.nodesByGroup).flat(),
                },
                { parent: this },
            );
            this.terminationHandlerQueueUrl = this.terminationHandler.queue.url;
        }

        for (const [group, config] of enabled) {
            if (config.kind === "managed") {
                continue;
            }
            const selfManaged = new SelfManagedNodeGroup(
                `${name}-${group}`,
                {
                    clusterName: cluster.name,
                    group,
                    config,
                    endpoint: cluster.endpoint,
                    certificateAuthority: cluster.certificateAuthority,
                    serviceCidr: cluster.serviceCidr,
                    subnetIds: args.privateSubnetIds,
                    securityGroupIds,
                    cluster: cluster.eks,
                    joinDependencies: cluster.addons,
                    drainDependencies: this.terminationHandler?.drainPath,
                },
                { parent: this },
            );
            this.selfManaged[group] = selfManaged;
            this.autoScalingGroupNames[group] = selfManaged.autoScalingGroup.name;
            this.nodesByGroup[group] = [selfManaged.autoScalingGroup, selfManaged.lifecycleHook];
        }

        this.nodes.push(...enabled.flatMap(([group]) => this.nodesByGroup[group]));

        if (Object.values(args.groups).some((g) => g.enabled && isGpuGroup(g))) {
            this.devicePlugin = new GpuDevicePlugin(
                `${name}-nvidia`,
                { provider: args.provider },
                { parent: this, dependsOn: cluster.addons },
            );
        }

        this.registerOutputs({
            nodeRoleNames: this.nodeRoleNames,
            nodeGroupNames: this.nodeGroupNames,
            autoScalingGroupNames: this.autoScalingGroupNames,
        });
    }

    /**
     * What must exist before pods with `placement` can be scheduled: the node groups (or Auto
     * Scaling groups) whose nodes carry its labels and whose taints it tolerates. A Helm release
     * whose pods would otherwise stay Pending depends on these.
     */
    nodesFor(placement: Placement): pulumi.Resource[] {
        return groupsFitting(placement, this.groups).flatMap((group) => this.nodesByGroup[group] ?? []);
    }

    /** Whether a group's nodes carry the system label and admit platform controllers. */
    get hasSystemNodes(): boolean {
        return this.nodesFor(systemPlacement(true)).length > 0;
    }
}
