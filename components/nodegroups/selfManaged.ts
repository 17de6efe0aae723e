/**
 * The `selfManaged` node-group kind: a launch template with our own AMI and bootstrap, an Auto
 * Scaling group rolled by instance refresh, and the Node Termination Handler draining each node.
 * Its component and the facts the tools need, on top of its config half (`selfManaged.schema.ts`),
 * registered in `kinds.ts`.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { nodeTemplateTags, terraformForceNew, type Taint } from "eks-platform-kernel";
import { amiSsmParameter, nodeRoleName } from "./common.schema";
import { createNodeRole } from "./iam";
import type { NodeGroupKind } from "./kind";
import { launchTemplateArgs, nodeTags } from "./launchTemplate";
import { LIFECYCLE_HEARTBEAT_SECONDS, NTH_MANAGED_TAG } from "./nth";
import { type SelfManagedNodeGroupConfig, selfManagedKindSchema, type selfManagedNodeGroupSchema } from "./selfManaged.schema";
import { renderUserData } from "./userData";

export interface SelfManagedNodeGroupArgs {
    /** Static cluster name. */
    clusterName: string;
    /** The group's key in config. */
    group: string;
    /** The group's validated config. */
    config: SelfManagedNodeGroupConfig;
    /** API server endpoint, CA and Service CIDR for the bootstrap. */
    endpoint: pulumi.Input<string>;
    certificateAuthority: pulumi.Input<string>;
    serviceCidr: string;
    /** Private subnets the nodes run in. */
    subnetIds: pulumi.Input<string>[];
    /** Security groups of the nodes (our node group and the EKS cluster group). */
    securityGroupIds: pulumi.Input<string>[];
    /** The control plane: access entries need it. */
    cluster: pulumi.Resource;
    /** What nodes need before they can join (the CNI add-on). Defaults to `[]`. */
    joinDependencies?: pulumi.Resource[];
    /** What drains the nodes when they terminate (NTH's `drainPath`); it must outlive the group. Defaults to `[]`. */
    drainDependencies?: pulumi.Resource[];
}

/**
 * ASG tags: the node tags plus the NTH managed tag, propagated to instances at launch; and the
 * nodes' labels and taints as node-template tags on the group only, so tools that cannot read user
 * data (a scale-from-zero autoscaler, the drain rehearsal) know where pods may land. Pure.
 */
export function asgTags(
    clusterName: string,
    group: string,
    tags: Record<string, string>,
    node: { labels: Record<string, string>; taints: Taint[] } = { labels: {}, taints: [] },
): aws.types.input.autoscaling.GroupTag[] {
    return [
        ...Object.entries({ ...nodeTags({ clusterName, group, tags }), [NTH_MANAGED_TAG]: "true" }).map(([key, value]) => ({
            key,
            value,
            propagateAtLaunch: true,
        })),
        ...Object.entries(nodeTemplateTags(node.labels, node.taints)).map(([key, value]) => ({ key, value, propagateAtLaunch: false })),
    ];
}

/**
 * A self-managed node group: node role with an `EC2_LINUX` access entry, launch template with
 * the AMI (custom or pinned EKS-optimized) and rendered user data, and an Auto Scaling group with
 * a rolling instance refresh and a terminate lifecycle hook that holds each instance while the
 * Node Termination Handler drains it.
 */
export class SelfManagedNodeGroup extends pulumi.ComponentResource {
    public readonly autoScalingGroup: aws.autoscaling.Group;
    public readonly role: aws.iam.Role;
    public readonly launchTemplate: aws.ec2.LaunchTemplate;
    public readonly lifecycleHook: aws.autoscaling.LifecycleHook;

    constructor(name: string, args: SelfManagedNodeGroupArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:nodegroups:SelfManagedNodeGroup", name, {}, opts);
        const { config, clusterName, group } = args;

        const { role, arn: roleArn, attachments } = createNodeRole(name, { clusterName, group, ssm: config.ssm, tags: config.tags }, this);
        this.role = role;
        const profile = new aws.iam.InstanceProfile(
            `${name}-profile`,
            // Named like the role: under the stack's IAM prefix, which scopes the deploy role (kernel/deployScope.ts).
            { name: nodeRoleName(clusterName, group), role: role.name },
            { parent: this },
        );
        // Without an access entry the kubelet's credentials map to no Kubernetes identity: nodes never join.
        const accessEntry = new aws.eks.AccessEntry(
            `${name}-access`,
            { clusterName, principalArn: roleArn, type: "EC2_LINUX" },
            { parent: this, dependsOn: [args.cluster, role] },
        );

        const imageId =
            config.amiId ??
            aws.ssm.getParameterOutput(
                { name: amiSsmParameter(config.amiFamily, config.architecture, config.releaseVersion as string) },
                { parent: this },
            ).value;

        const userData = pulumi.all([args.endpoint, args.certificateAuthority]).apply(([endpoint, certificateAuthority]) =>
            Buffer.from(
                renderUserData(config.amiFamily, {
                    clusterName,
                    endpoint,
                    certificateAuthority,
                    serviceCidr: args.serviceCidr,
                    labels: config.labels,
                    taints: config.taints,
                    maxPods: config.maxPods,
                    kubeletFlags: config.kubeletFlags,
                }),
            ).toString("base64"),
        );

        this.launchTemplate = new aws.ec2.LaunchTemplate(
            `${name}-lt`,
            {
                ...launchTemplateArgs({
                    clusterName,
                    group,
                    metadataHopLimit: config.metadataHopLimit,
                    diskSizeGiB: config.diskSizeGiB,
                    securityGroupIds: args.securityGroupIds,
                    tags: config.tags,
                }),
                imageId,
                userData,
                iamInstanceProfile: { arn: profile.arn },
            },
            { parent: this },
        );

        const spot = config.capacityType === "SPOT";
        this.autoScalingGroup = new aws.autoscaling.Group(
            `${name}-asg`,
            {
                namePrefix: `${clusterName}-${group}-`,
                vpcZoneIdentifiers: args.subnetIds,
                minSize: config.minSize,
                maxSize: config.maxSize,
                desiredCapacity: config.desiredSize,
                healthCheckType: "EC2",
                healthCheckGracePeriod: 300,
                capacityRebalance: spot,
                mixedInstancesPolicy: {
                    launchTemplate: {
                        launchTemplateSpecification: {
                            launchTemplateId: this.launchTemplate.id,
                            // The explicit version makes each template change an ASG change, which
                            // starts the instance refresh below.
                            version: this.launchTemplate.latestVersion.apply((v) => String(v)),
                        },
                        overrides: config.instanceTypes.map((instanceType) => ({ instanceType })),
                    },
                    instancesDistribution: {
                        onDemandBaseCapacity: 0,
                        onDemandPercentageAboveBaseCapacity: spot ? 0 : 100,
                        onDemandAllocationStrategy: "prioritized",
                        spotAllocationStrategy: "price-capacity-optimized",
                    },
                },
                instanceRefresh: {
                    strategy: "Rolling",
                    preferences: {
                        minHealthyPercentage: config.minHealthyPercentage,
                        instanceWarmup: "300",
                        skipMatching: true,
                    },
                },
                tags: asgTags(clusterName, group, config.tags, { labels: config.labels, taints: config.taints }),
            },
            {
                parent: this,
                // The drain path (NTH and its event feed) as dependencies: deleted only after this group.
                dependsOn: [accessEntry, ...attachments, ...(args.joinDependencies ?? []), ...(args.drainDependencies ?? [])],
                ignoreChanges: ["desiredCapacity"],
            },
        );

        // Holds each terminating instance (scale-in, instance refresh, rebalance) until NTH has
        // drained it or the heartbeat runs out; CONTINUE so a stuck drain never blocks scale-in for good.
        // Retained on delete: the hook must outlive the group, whose deletion scales it to zero
        // through this hook (Pulumi deletes the hook first, as it depends on the group); AWS
        // deletes the hook with the group.
        this.lifecycleHook = new aws.autoscaling.LifecycleHook(
            `${name}-terminate`,
            {
                name: "nth-drain",
                autoscalingGroupName: this.autoScalingGroup.name,
                lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
                defaultResult: "CONTINUE",
                heartbeatTimeout: LIFECYCLE_HEARTBEAT_SECONDS,
            },
            { parent: this, retainOnDelete: true },
        );

        this.registerOutputs({ autoScalingGroupName: this.autoScalingGroup.name, roleName: role.name });
    }
}

const AUTO_SCALING_GROUP = "aws:autoscaling/group:Group";

export const selfManagedKind: NodeGroupKind<typeof selfManagedNodeGroupSchema> = {
    ...selfManagedKindSchema,
    build: ({ name, group, config, cluster, subnetIds, securityGroupIds, drainPath, parent }) => {
        const selfManaged = new SelfManagedNodeGroup(
            name,
            {
                clusterName: cluster.name,
                group,
                config,
                endpoint: cluster.endpoint,
                certificateAuthority: cluster.certificateAuthority,
                serviceCidr: cluster.serviceCidr,
                subnetIds,
                securityGroupIds,
                cluster: cluster.eks,
                joinDependencies: cluster.addons,
                drainDependencies: drainPath,
            },
            { parent },
        );
        return {
            component: selfManaged,
            nodes: [selfManaged.autoScalingGroup, selfManaged.lifecycleHook],
            roleName: nodeRoleName(cluster.name, group),
            autoScalingGroupName: selfManaged.autoScalingGroup.name,
        };
    },
    nodes: {
        type: AUTO_SCALING_GROUP,
        drained: (p, show) => `all of its nodes (${show(p.minSize)}–${show(p.maxSize)})`,
        safeSequence: "docs/nodegroups.md#removing-or-renaming-a-group",
        builtFrom: "launch template + `aws.autoscaling.Group` + node role + access entry",
        rollout: "the ASG's instance refresh, keeping `minHealthyPercentage` (default 90%) in service",
        drain: "AWS Node Termination Handler (NTH), inside a 300 s lifecycle hook",
    },
    resourceTypes: {
        [AUTO_SCALING_GROUP]: {
            replacement: {
                replaceOn: ["name", "namePrefix"],
                // The instance refresh starts on launch template or mixed instances policy changes.
                rollsNodesOn: ["launchTemplate", "mixedInstancesPolicy"],
                source:
                    terraformForceNew("aws_autoscaling_group", "name, name_prefix") +
                    "; instance_refresh triggers on launch_template and mixed_instances_policy changes (a rolling instance refresh)",
            },
            planFields: ["minSize", "desiredCapacity", "maxSize", "instanceRefresh"],
        },
        "aws:autoscaling/lifecycleHook:LifecycleHook": {
            replacement: {
                // autoscaling_group_name is required but not ForceNew: a new group name is a PutLifecycleHook.
                replaceOn: ["name"],
                source: terraformForceNew("aws_autoscaling_lifecycle_hook", "name"),
            },
            planFields: ["lifecycleTransition", "defaultResult", "heartbeatTimeout"],
        },
        "aws:iam/instanceProfile:InstanceProfile": {
            replacement: {
                replaceOn: ["name", "namePrefix", "path"],
                source: terraformForceNew("aws_iam_instance_profile", "name, name_prefix, path"),
            },
        },
    },
};
