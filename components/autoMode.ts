/**
 * EKS Auto Mode (`autoMode` in stack config, components/config/autoMode.ts): what the cluster
 * needs for it, and the NodeClasses and NodePools of its custom pools.
 *
 * - The cluster role gets Auto Mode's four managed policies beside AmazonEKSClusterPolicy, and its
 *   trust `sts:TagSession` (trustPolicy does for eks.amazonaws.com): "The Cluster IAM role of an
 *   EKS Cluster cannot be changed after the cluster is created" (auto-enable-existing.adoc), so a
 *   stack that switches keeps its role and adds these.
 * - The node role `<cluster>-auto-node` (trust ec2.amazonaws.com, AmazonEKSWorkerNodeMinimalPolicy,
 *   AmazonEC2ContainerRegistryPullOnly: auto-create-node-role.adoc) is the built-in pools'
 *   `computeConfig.nodeRoleArn` and every custom NodeClass's `role`.
 * - `computeConfig`: the built-in pools with the node role, or, with none, neither (AWS refuses
 *   one without the other: "When Compute Config nodeRoleArn is null or empty, nodePool list cannot
 *   be populated"). Without a built-in pool EKS creates no access entry for the node role, so the
 *   program creates it (type EC2, AmazonEKSAutoNodePolicy; create-node-class.adoc).
 */
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { managedPolicyArn } from "eks-platform-kernel";
import type { AutoNodeClassConfig, AutoNodePoolConfig, EnabledAutoModeConfig } from "./config";
import { accountContext, roleArn, stackPermissionsBoundary, trustPolicy } from "./iam";
import { renderNodePool } from "./karpenter/nodePools";
import type { NodePoolObject } from "./karpenter/types";

/** The managed policies Auto Mode's cluster role needs beside AmazonEKSClusterPolicy (auto-cluster-iam-role.adoc). */
export const AUTO_MODE_CLUSTER_POLICIES = [
    "AmazonEKSComputePolicy",
    "AmazonEKSBlockStoragePolicy",
    "AmazonEKSLoadBalancingPolicy",
    "AmazonEKSNetworkingPolicy",
] as const;

/** The managed policies of Auto Mode's node role (auto-create-node-role.adoc). */
export const AUTO_MODE_NODE_POLICIES = ["AmazonEKSWorkerNodeMinimalPolicy", "AmazonEC2ContainerRegistryPullOnly"] as const;

/** The access policy of a node role EKS Auto Mode launches with (create-node-class.adoc). */
export const AUTO_NODE_ACCESS_POLICY = "AmazonEKSAutoNodePolicy";

/**
 * What the cluster and the add-ons need to know of a stack's Auto Mode: the built-in pools EKS runs,
 * and whether node groups run beside it (they alone still need the VPC CNI, kube-proxy, CoreDNS
 * and Pod Identity add-ons, and then the VPC CNI add-on owns the network policy controller's
 * ConfigMap). `undefined` for a standard stack. Pure.
 */
export interface AutoModeChoice {
    builtInPools: readonly string[];
    nodeGroups: boolean;
}

export function autoModeChoice(config: {
    autoMode: { enabled: false } | Pick<EnabledAutoModeConfig, "enabled" | "builtInPools">;
    nodeGroups: Readonly<Record<string, { enabled: boolean }>>;
}): AutoModeChoice | undefined {
    return config.autoMode.enabled
        ? { builtInPools: config.autoMode.builtInPools, nodeGroups: Object.values(config.nodeGroups).some((g) => g.enabled) }
        : undefined;
}

/** The static name of the stack's Auto Mode node role. Pure. */
export function autoNodeRoleName(clusterName: string): string {
    return `${clusterName}-auto-node`;
}

/** The `computeConfig` of the cluster: enabled, the built-in pools and, with any, the node role. Pure. */
export function autoModeComputeConfig(
    builtInPools: readonly string[],
    nodeRoleArn: pulumi.Input<string>,
): { enabled: true; nodePools: string[]; nodeRoleArn?: pulumi.Input<string> } {
    return builtInPools.length > 0 ? { enabled: true, nodePools: [...builtInPools], nodeRoleArn } : { enabled: true, nodePools: [] };
}

/** The NodeClass object (`eks.amazonaws.com/v1`) of one entry of `autoMode.nodeClasses`. Pure. */
export function renderAutoNodeClass(
    name: string,
    nodeClass: AutoNodeClassConfig,
    ctx: { clusterName: string; nodeRoleName: string },
): Record<string, unknown> {
    // The private subnets and the one node security group, by the tag the network and cluster
    // components put on exactly those (the same discovery Karpenter's EC2NodeClasses use).
    const discovery = [{ tags: { "karpenter.sh/discovery": ctx.clusterName } }];
    return {
        apiVersion: "eks.amazonaws.com/v1",
        kind: "NodeClass",
        metadata: { name, labels: { "app.kubernetes.io/managed-by": "pulumi" } },
        spec: {
            role: ctx.nodeRoleName,
            subnetSelectorTerms: discovery,
            securityGroupSelectorTerms: discovery,
            ephemeralStorage: { ...nodeClass.ephemeralStorage },
            networkPolicy: nodeClass.networkPolicy,
            ...(Object.keys(nodeClass.tags).length > 0 ? { tags: { ...nodeClass.tags } } : {}),
        },
    };
}

/** The NodePool object of one entry of `autoMode.nodePools`: Karpenter's, on an Auto Mode NodeClass. Pure. */
export function renderAutoNodePool(name: string, pool: AutoNodePoolConfig): NodePoolObject {
    return renderNodePool(name, pool);
}

export interface AutoModeNodePoolsArgs {
    clusterName: string;
    config: EnabledAutoModeConfig;
    /** The control plane: the node role's access entry needs it. */
    cluster: pulumi.Resource;
    provider: k8s.Provider;
}

/**
 * The custom NodeClasses and NodePools of EKS Auto Mode, and the node role's access entry where
 * EKS creates none (no built-in pool). Each pool waits for its class; on destroy the pools go
 * first, while Auto Mode can still drain their nodes.
 */
export class AutoModeNodePools extends pulumi.ComponentResource {
    public readonly nodeClasses: Record<string, k8s.apiextensions.CustomResource> = {};
    public readonly nodePools: Record<string, k8s.apiextensions.CustomResource> = {};

    constructor(name: string, args: AutoModeNodePoolsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:autoMode:AutoModeNodePools", name, {}, opts);
        const nodeRoleName = autoNodeRoleName(args.clusterName);
        const ready: pulumi.Resource[] = [];
        if (args.config.builtInPools.length === 0) {
            const principalArn = accountContext({ parent: this }).apply((c) => roleArn(c, nodeRoleName));
            const entry = new aws.eks.AccessEntry(
                `${name}-node-entry`,
                { clusterName: args.clusterName, principalArn, type: "EC2", tags: { "platform/access-scope": "auto-mode-nodes" } },
                { parent: this, dependsOn: [args.cluster], deleteBeforeReplace: true },
            );
            ready.push(
                entry,
                new aws.eks.AccessPolicyAssociation(
                    `${name}-node-entry-policy`,
                    {
                        clusterName: args.clusterName,
                        principalArn: entry.principalArn,
                        policyArn: principalArn.apply(
                            (arn) => `arn:${arn.split(":")[1]}:eks::aws:cluster-access-policy/${AUTO_NODE_ACCESS_POLICY}`,
                        ),
                        accessScope: { type: "cluster" },
                    },
                    { parent: this, deleteBeforeReplace: true },
                ),
            );
        }
        const k8sOpts = { parent: this, provider: args.provider };
        for (const [className, config] of Object.entries(args.config.nodeClasses)) {
            this.nodeClasses[className] = new k8s.apiextensions.CustomResource(
                `${name}-class-${className}`,
                renderAutoNodeClass(className, config, {
                    clusterName: args.clusterName,
                    nodeRoleName,
                }) as k8s.apiextensions.CustomResourceArgs,
                { ...k8sOpts, dependsOn: ready },
            );
        }
        for (const [poolName, config] of Object.entries(args.config.nodePools)) {
            const nodeClass = this.nodeClasses[config.nodeClassRef.name];
            this.nodePools[poolName] = new k8s.apiextensions.CustomResource(
                `${name}-pool-${poolName}`,
                renderAutoNodePool(poolName, config),
                { ...k8sOpts, dependsOn: nodeClass ? [nodeClass] : ready },
            );
        }
        this.registerOutputs({ nodeClasses: Object.keys(this.nodeClasses), nodePools: Object.keys(this.nodePools) });
    }
}

/** The Auto Mode node role, created with the cluster (its ARN is the cluster's `computeConfig.nodeRoleArn`). */
export function createAutoNodeRole(
    name: string,
    clusterName: string,
    parent: pulumi.Resource,
): { role: aws.iam.Role; arn: pulumi.Output<string>; attachments: aws.iam.RolePolicyAttachment[] } {
    const role = new aws.iam.Role(
        `${name}-auto-node`,
        {
            name: autoNodeRoleName(clusterName),
            description: `EKS Auto Mode nodes of ${clusterName}`,
            assumeRolePolicy: JSON.stringify(trustPolicy("ec2.amazonaws.com")),
            permissionsBoundary: stackPermissionsBoundary(clusterName, { parent }),
        },
        { parent },
    );
    // In the account's partition: aws-us-gov and aws-cn have managed policy ARNs of their own.
    const partition = accountContext({ parent }).apply((c) => c.partition);
    const attachments = AUTO_MODE_NODE_POLICIES.map(
        (policy) =>
            new aws.iam.RolePolicyAttachment(
                `${name}-auto-node-${policy}`,
                { role: role.name, policyArn: partition.apply((p) => managedPolicyArn(policy, p)) },
                { parent },
            ),
    );
    // From the static name, known at preview (role.name is not until the role exists); users depend on `role`.
    const arn = accountContext({ parent }).apply((c) => roleArn(c, autoNodeRoleName(clusterName)));
    return { role, arn, attachments };
}
