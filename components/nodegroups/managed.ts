/**
 * The `managed` node-group kind: an EKS managed node group built from `@pulumi/aws` (EKS picks the
 * AMI for `amiType` + `releaseVersion` and drains nodes on updates). Its component and the facts
 * the tools need, on top of its config half (`managed.schema.ts`), registered in `kinds.ts`. An
 * NVIDIA `amiType` makes it a GPU group (`isGpuGroup`), still this kind.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { parseReleaseVersion, terraformForceNew, type Taint } from "eks-platform-kernel";
import { nodeRoleName } from "./common.schema";
import { createNodeRole } from "./iam";
import type { NodeGroupKind } from "./kind";
import { launchTemplateArgs } from "./launchTemplate";
import { type ManagedNodeGroupConfig, managedKindSchema, type managedNodeGroupSchema } from "./managed.schema";
import { nodeLabels, nodeTaints } from "./schema";

export interface ManagedNodeGroupArgs {
    /** Static cluster name. */
    clusterName: string;
    /** The group's key in config. */
    group: string;
    /** The group's validated config. */
    config: ManagedNodeGroupConfig;
    /** Private subnets the nodes run in. */
    subnetIds: pulumi.Input<string>[];
    /** Security groups of the nodes (our node group and the EKS cluster group). */
    securityGroupIds: pulumi.Input<string>[];
    /** What nodes need before they can join: the control plane and the CNI add-on. Defaults to `[]`. */
    joinDependencies?: pulumi.Resource[];
}

const EKS_EFFECT: Record<Taint["effect"], string> = {
    NoSchedule: "NO_SCHEDULE",
    PreferNoSchedule: "PREFER_NO_SCHEDULE",
    NoExecute: "NO_EXECUTE",
};

/** A Kubernetes taint in the EKS API's spelling (`NO_SCHEDULE`, …). Pure. */
export function eksTaint(taint: Taint): aws.types.input.eks.NodeGroupTaint {
    return { key: taint.key, value: taint.value === "" ? undefined : taint.value, effect: EKS_EFFECT[taint.effect] };
}

/**
 * An EKS managed node group built from `@pulumi/aws`: node role, launch template (IMDSv2, encrypted
 * gp3, tags; no AMI and no user data, so EKS picks the AMI for `amiType` + `releaseVersion` and
 * merges its own bootstrap), and the node group with a rolling `updateConfig`. EKS cordons and
 * drains old nodes on every update, respecting PodDisruptionBudgets.
 */
export class ManagedNodeGroup extends pulumi.ComponentResource {
    public readonly nodeGroup: aws.eks.NodeGroup;
    public readonly role: aws.iam.Role;
    public readonly launchTemplate: aws.ec2.LaunchTemplate;

    constructor(name: string, args: ManagedNodeGroupArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:nodegroups:ManagedNodeGroup", name, {}, opts);
        const { config, clusterName, group } = args;
        const release = parseReleaseVersion(config.releaseVersion);
        if (!release) {
            throw new Error(`node group ${group}: releaseVersion ${config.releaseVersion} is not a release version`);
        }

        const { role, arn: roleArn, attachments } = createNodeRole(name, { clusterName, group, ssm: config.ssm, tags: config.tags }, this);
        this.role = role;

        this.launchTemplate = new aws.ec2.LaunchTemplate(
            `${name}-lt`,
            launchTemplateArgs({
                clusterName,
                group,
                metadataHopLimit: config.metadataHopLimit,
                diskSizeGiB: config.diskSizeGiB,
                securityGroupIds: args.securityGroupIds,
                tags: config.tags,
            }),
            { parent: this },
        );

        this.nodeGroup = new aws.eks.NodeGroup(
            `${name}-group`,
            {
                clusterName,
                // A prefix, not a fixed name: a change that replaces the group (instance types, AMI
                // type) creates the new group before EKS drains and deletes the old one.
                nodeGroupNamePrefix: `${group}-`,
                nodeRoleArn: roleArn,
                subnetIds: args.subnetIds,
                amiType: config.amiType,
                releaseVersion: config.releaseVersion,
                version: release.minor,
                capacityType: config.capacityType,
                instanceTypes: config.instanceTypes,
                scalingConfig: { minSize: config.minSize, desiredSize: config.desiredSize, maxSize: config.maxSize },
                updateConfig: { maxUnavailablePercentage: config.maxUnavailablePercentage },
                nodeRepairConfig: { enabled: config.autoRepair },
                labels: nodeLabels(config),
                taints: nodeTaints(config).map(eksTaint),
                launchTemplate: { id: this.launchTemplate.id, version: this.launchTemplate.latestVersion.apply((v) => String(v)) },
                tags: { ...config.tags, "platform/node-group": group },
            },
            {
                parent: this,
                dependsOn: [role, ...attachments, ...(args.joinDependencies ?? [])],
                // An autoscaler (or an operator) owns the current size after creation.
                ignoreChanges: ["scalingConfig.desiredSize"],
            },
        );

        this.registerOutputs({ nodeGroupName: this.nodeGroup.nodeGroupName, roleName: role.name });
    }
}

const NODE_GROUP = "aws:eks/nodeGroup:NodeGroup";

export const managedKind: NodeGroupKind<typeof managedNodeGroupSchema> = {
    ...managedKindSchema,
    build: ({ name, group, config, cluster, subnetIds, securityGroupIds, parent }) => {
        const managed = new ManagedNodeGroup(
            name,
            { clusterName: cluster.name, group, config, subnetIds, securityGroupIds, joinDependencies: [cluster.eks, ...cluster.addons] },
            { parent },
        );
        return {
            component: managed,
            nodes: [managed.nodeGroup],
            roleName: nodeRoleName(cluster.name, group),
            nodeGroupName: managed.nodeGroup.nodeGroupName,
        };
    },
    nodes: {
        type: NODE_GROUP,
        drained: (p) => {
            const s = (p.scalingConfig ?? {}) as { minSize?: number; desiredSize?: number; maxSize?: number };
            return `all of its nodes (${s.minSize ?? "?"}–${s.maxSize ?? "?"}, ${s.desiredSize ?? "?"} at creation)`;
        },
        safeSequence: "docs/nodegroups.md#removing-or-renaming-a-group",
        builtFrom: "`aws.eks.NodeGroup` + launch template + node role",
        rollout: "EKS, `updateConfig.maxUnavailablePercentage` at a time (default 33%)",
        drain: "EKS cordons and evicts, honouring PodDisruptionBudgets",
    },
    resourceTypes: {
        [NODE_GROUP]: {
            replacement: {
                replaceOn: [
                    "amiType",
                    "capacityType",
                    "clusterName",
                    "diskSize",
                    "instanceTypes",
                    "launchTemplate.id",
                    "launchTemplate.name",
                    "nodeGroupName",
                    "nodeGroupNamePrefix",
                    "nodeRoleArn",
                    "remoteAccess",
                    "subnetIds",
                ],
                // UpdateNodegroupVersion: EKS replaces every node, draining each (respecting PDBs).
                rollsNodesOn: ["launchTemplate.version", "releaseVersion", "version"],
                source:
                    terraformForceNew(
                        "aws_eks_node_group",
                        "ami_type, capacity_type, cluster_name, disk_size, instance_types, launch_template.id/name, node_group_name(_prefix), node_role_arn, remote_access, subnet_ids",
                    ) + "; launch_template.version, release_version and version go through UpdateNodegroupVersion (a rolling node update)",
            },
            planFields: ["amiType", "releaseVersion", "capacityType", "instanceTypes", "scalingConfig", "updateConfig", "labels", "taints"],
        },
    },
};
