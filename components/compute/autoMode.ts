/**
 * EKS Auto Mode, a compute mode (components/compute/index.ts): `autoMode` in stack config turns on
 * the cluster's compute, storage and load balancing together. EKS then runs Karpenter, the EBS CSI
 * driver, the load balancer controller, the VPC CNI, kube-proxy, CoreDNS and the Pod Identity agent
 * itself; this program installs none of them (the cluster's own add-ons and CoreDNS stay only while
 * a node group runs beside Auto Mode). Everything the program knows of Auto Mode is here and in its
 * config half (autoMode.schema.ts); what the policy pack and the rehearsal know of the service (its
 * built-in pools, its forced expiry, its components' names) is data in the kernel
 * (kernel/autoMode.ts, kernel/autoModeComponents.ts).
 *
 * Config (autoMode.schema.ts). Its NodePools take the shape of `karpenter.nodePools` (Auto Mode runs Karpenter's
 * `karpenter.sh/v1` NodePool) on Auto Mode's `eks.amazonaws.com/v1` NodeClass. What AWS refuses is
 * refused by key (EKS User Guide, automode/*.adoc, read at awsdocs/amazon-eks-user-guide;
 * terraform-provider-aws internal/service/eks/cluster.go; docs/automode.md): built-in pools other
 * than `general-purpose` and `system`; a custom NodeClass named `default` (EKS's own) or tagged
 * with a tag Auto Mode sets; NodePool requirements on Karpenter's AWS labels (`karpenter.k8s.aws/*`:
 * Auto Mode's are `eks.amazonaws.com/instance-*`) or on Windows; a node lifetime past Auto Mode's
 * enforced 21 days; Kubernetes before 1.29; self-installed Karpenter, EBS CSI driver or load
 * balancer controller beside it.
 *
 * The cluster.
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
 *
 * Storage and load balancing. EKS runs the EBS CSI driver and the load balancer controller itself
 * but creates no StorageClass and no IngressClass ("EKS Auto Mode does not create a StorageClass for
 * you", create-storage-class.adoc; the IngressClass and its IngressClassParams,
 * auto-configure-alb.adoc). Same names as a standard stack's (`gp3`, `alb`), so a workload's
 * manifests do not change when a stack moves to Auto Mode; Services of type LoadBalancer get Auto
 * Mode's `eks.amazonaws.com/nlb` as the cluster default.
 *
 * Resource names and parents are those of the modules this one replaced (components/autoMode.ts,
 * components/addons/autoMode.ts): a stack already on Auto Mode plans no replacement.
 */
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { AUTO_MODE_COMPONENTS, LOAD_BALANCER_CONTROLLER_API, managedPolicyArn, PLATFORM_CLUSTER_TAG } from "eks-platform-kernel";
import { DEFAULT_CLASS_ANNOTATION, DEFAULT_STORAGE_CLASS, volumeKeyStatements } from "../addons/ebsCsi";
import { accountContext, createEc2NodeRole, type NodeRole, type PolicyStatement, roleArn, stackKeyPolicy } from "../iam";
import { renderNodePool } from "../karpenter/nodePools";
import type { NodePoolObject } from "../karpenter/types";
import { CRITICAL_ADDONS_ONLY } from "../nodegroups/schema";
import {
    autoModeComputeSchema,
    type autoModeSchema,
    type AutoNodeClassConfig,
    type AutoNodePoolConfig,
    type EnabledAutoModeConfig,
} from "./autoMode.schema";
import type { ComputeChoice, ComputeChoiceStack, ComputeMode, PlatformPart } from "./mode";

// ---------------------------------------------------------------------------------------------
// The cluster's parts and the custom pools.

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

/** The static name of the stack's Auto Mode node role. Pure. */
export function autoNodeRoleName(clusterName: string): string {
    return `${clusterName}-auto-node`;
}

/**
 * The `computeConfig` of the cluster: enabled, the built-in pools and, with any, the node role. Pure.
 * pulumi-eks 4.3 spreads it over its own defaults, `{ enabled: true, nodeRoleArn, nodePools:
 * ["general-purpose", "system"] }`, and hands the result to `aws.eks.Cluster`
 * (nodejs/eks/cluster/cluster.ts @ v4.3.0): `nodePools` is always sent, since left out both
 * built-in pools would run; `enabled` reaches the AWS resource as written, though pulumi-eks's
 * `ClusterComputeConfigArgs` does not declare it.
 */
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
export function createAutoNodeRole(name: string, clusterName: string, parent: pulumi.Resource): NodeRole {
    // In the account's partition: aws-us-gov and aws-cn have managed policy ARNs of their own.
    const partition = accountContext({ parent }).apply((c) => c.partition);
    return createEc2NodeRole(
        `${name}-auto-node`,
        {
            roleName: autoNodeRoleName(clusterName),
            clusterName,
            description: `EKS Auto Mode nodes of ${clusterName}`,
            policies: Object.fromEntries(
                AUTO_MODE_NODE_POLICIES.map((policy) => [policy, partition.apply((p) => managedPolicyArn(policy, p))]),
            ),
        },
        parent,
    );
}

// ---------------------------------------------------------------------------------------------
// Storage and load balancing: the classes Auto Mode's components answer to.

/** The names EKS Auto Mode's components answer to: the kernel's, which the tools read too. */
export { AUTO_MODE_COMPONENTS };

/** The alias of the platform's own key for Auto Mode's volumes (not the EBS CSI driver's: a stack switching holds both a while). Pure. */
export function autoVolumeKeyAlias(clusterName: string): string {
    return `alias/eks/${clusterName}-auto-ebs`;
}

/**
 * The default StorageClass on Auto Mode: gp3, encrypted (with `kmsKeyId` when given, else the
 * account's EBS key), on Auto Mode's nodes only, bound where the pod lands, expandable. Pure.
 */
export function autoModeStorageClass(
    opts: {
        reclaimPolicy?: "Delete" | "Retain";
        kmsKeyId?: pulumi.Input<string>;
    } = {},
): k8s.storage.v1.StorageClassArgs {
    return {
        metadata: { name: DEFAULT_STORAGE_CLASS, annotations: { [DEFAULT_CLASS_ANNOTATION]: "true" } },
        provisioner: AUTO_MODE_COMPONENTS.provisioner,
        parameters: { type: "gp3", encrypted: "true", ...(opts.kmsKeyId !== undefined ? { kmsKeyId: opts.kmsKeyId } : {}) },
        // Only where Auto Mode's driver runs: its nodes alone carry this label (create-storage-class,
        // "Key components", docs.aws.amazon.com; create-node-pool.adoc "Supported labels"). With
        // WaitForFirstConsumer the scheduler then keeps a pod with such a volume off the node groups
        // beside Auto Mode, where no driver could attach it.
        allowedTopologies: [
            {
                matchLabelExpressions: [
                    { key: AUTO_MODE_COMPONENTS.computeTypeLabel.key, values: [AUTO_MODE_COMPONENTS.computeTypeLabel.value] },
                ],
            },
        ],
        reclaimPolicy: opts.reclaimPolicy ?? "Delete",
        volumeBindingMode: "WaitForFirstConsumer",
        allowVolumeExpansion: true,
    };
}

/** The `alb` IngressClassParams and IngressClass on Auto Mode. Pure. */
export function autoModeIngressClass(): { params: Record<string, unknown>; ingressClass: k8s.networking.v1.IngressClassArgs } {
    const name = LOAD_BALANCER_CONTROLLER_API.ingressClass;
    return {
        // Internal unless an Ingress asks otherwise is the controller's default; no setting here
        // overrides a team's annotations.
        params: { apiVersion: AUTO_MODE_COMPONENTS.paramsApiVersion, kind: "IngressClassParams", metadata: { name }, spec: {} },
        ingressClass: {
            metadata: { name },
            spec: {
                controller: AUTO_MODE_COMPONENTS.ingressController,
                parameters: { apiGroup: "eks.amazonaws.com", kind: "IngressClassParams", name },
            },
        },
    };
}

/**
 * The ConfigMap that turns on Auto Mode's network policy controller: until it exists,
 * NetworkPolicy objects "are accepted but not enforced" (EKS User Guide, auto-net-pol.adoc, step 1),
 * and every namespace's default-deny here would be a silent no-op. Where node groups run beside
 * Auto Mode, the VPC CNI add-on owns this ConfigMap (its `enableNetworkPolicy`), so it is not
 * created then. Pure.
 */
export function networkPolicyControllerConfigMap(): k8s.core.v1.ConfigMapArgs {
    return {
        metadata: { name: "amazon-vpc-cni", namespace: "kube-system" },
        data: { "enable-network-policy-controller": "true" },
    };
}

export interface AutoModeAddonsArgs {
    provider: k8s.Provider;
    /** Create the network policy controller's ConfigMap (no VPC CNI add-on owns it). Defaults to `true`. */
    networkPolicyController?: boolean;
    /** The cluster's static name: the platform volume key's description, tag and alias. */
    clusterName: string;
    /** `autoMode.storageClass`. Defaults to the account's EBS key and `Delete`. */
    storageClass?: EnabledAutoModeConfig["storageClass"];
    /** The deploy role (`access.deployer`): the only role the platform volume key's policy lets administer it. */
    keyAdministrator: string;
    /** Protect the platform volume key from deletion (every volume needs it to be read). Defaults to `false`. */
    protect?: boolean;
}

/** The StorageClass and IngressClass of a stack on EKS Auto Mode. */
export class AutoModeAddons extends pulumi.ComponentResource {
    public readonly storageClass: k8s.storage.v1.StorageClass;
    public readonly ingressClass: k8s.networking.v1.IngressClass;
    public readonly networkPolicyController?: k8s.core.v1.ConfigMap;
    /** The platform's volume key, when `storageClass.kmsKey` is `platform`. */
    public readonly key?: aws.kms.Key;

    constructor(name: string, args: AutoModeAddonsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:addons:AutoModeAddons", name, {}, opts);
        const k8sOpts = { parent: this, provider: args.provider };
        const kmsKey = args.storageClass?.kmsKey ?? "aws-managed";
        let kmsKeyId: pulumi.Input<string> | undefined;
        if (kmsKey === "platform") {
            this.key = new aws.kms.Key(
                `${name}-key`,
                {
                    description: `Encryption of EBS volumes of EKS Auto Mode cluster ${args.clusterName}`,
                    enableKeyRotation: true,
                    deletionWindowInDays: 30,
                    // The deploy role administers only keys with this tag (kernel/deployScope.ts).
                    tags: { [PLATFORM_CLUSTER_TAG]: args.clusterName },
                    policy: accountContext({ parent: this }).apply((c) => JSON.stringify(stackKeyPolicy(c, args.keyAdministrator))),
                },
                { parent: this, protect: args.protect ?? false },
            );
            new aws.kms.Alias(`${name}-key`, { name: autoVolumeKeyAlias(args.clusterName), targetKeyId: this.key.keyId }, { parent: this });
            kmsKeyId = this.key.arn;
        } else if (kmsKey !== "aws-managed") {
            kmsKeyId = kmsKey;
        }
        // Parameters of a StorageClass are immutable: a changed key replaces the class (same name,
        // so the old one goes first). Volumes already provisioned keep their key.
        this.storageClass = new k8s.storage.v1.StorageClass(
            `${name}-${DEFAULT_STORAGE_CLASS}`,
            autoModeStorageClass({ reclaimPolicy: args.storageClass?.reclaimPolicy, kmsKeyId }),
            { ...k8sOpts, deleteBeforeReplace: true },
        );
        const { params, ingressClass } = autoModeIngressClass();
        const ingressParams = new k8s.apiextensions.CustomResource(
            `${name}-ingress-params`,
            params as k8s.apiextensions.CustomResourceArgs,
            k8sOpts,
        );
        this.ingressClass = new k8s.networking.v1.IngressClass(`${name}-ingress-class`, ingressClass, {
            ...k8sOpts,
            dependsOn: [ingressParams],
        });
        if (args.networkPolicyController ?? true) {
            this.networkPolicyController = new k8s.core.v1.ConfigMap(`${name}-network-policy`, networkPolicyControllerConfigMap(), k8sOpts);
        }
        this.registerOutputs({});
    }
}

// ---------------------------------------------------------------------------------------------
// The mode, as the registry (components/compute/index.ts) takes it.

/**
 * What Auto Mode runs itself besides the add-ons it replaces (`replacesAddons`): networking, Pod
 * Identity and CoreDNS, which serve Auto Mode's nodes only (eks-add-ons.adoc, "Considerations for
 * Amazon EKS Auto Mode"), so node groups beside it still need the cluster's own.
 */
function autoModeRuns(nodeGroups: boolean): ReadonlySet<PlatformPart> {
    return new Set<PlatformPart>(nodeGroups ? [] : ["clusterAddons", "coreDns"]);
}

/**
 * Where the platform's controllers run on Auto Mode without a system node group: the built-in
 * `system` pool (its nodes carry the pool's label and the CriticalAddonsOnly taint,
 * set-builtin-node-pools.adoc); otherwise the system node group decides. Pure.
 */
export function autoModePlacement(builtInPools: readonly string[], hasSystemNodes: boolean) {
    return !hasSystemNodes && builtInPools.includes("system")
        ? { nodeSelector: { "karpenter.sh/nodepool": "system" }, tolerations: [CRITICAL_ADDONS_ONLY] }
        : undefined;
}

/** The choice the components use for a stack on Auto Mode. */
/**
 * What the cluster role needs on the volume key (the EBS CSI driver's statements: grants for AWS
 * resources, the data-key operations), or none for the account's EBS key. The platform's key is
 * matched by its alias, known at preview. Pure but for the account lookup.
 */
function autoVolumeKeyStatements(
    kmsKey: EnabledAutoModeConfig["storageClass"]["kmsKey"],
    clusterName: string,
    region: string,
    parent: pulumi.Resource,
): pulumi.Output<ReturnType<typeof volumeKeyStatements>> | undefined {
    if (kmsKey === "aws-managed") {
        return undefined;
    }
    return kmsKey === "platform"
        ? accountContext({ parent }).apply((c) =>
              volumeKeyStatements({ kind: "alias", alias: autoVolumeKeyAlias(clusterName), ...c, region }),
          )
        : pulumi.output(volumeKeyStatements({ kind: "arn", arn: kmsKey }));
}

/**
 * The cluster role's statements that let Auto Mode launch what a NodeClass with `tags` describes.
 * Auto Mode's managed policies allow only its own tag keys on what it creates
 * (AmazonEKSComputePolicy limits `aws:TagKeys`), so a NodeClass's user tags make every launch fail
 * unless the cluster role holds AWS's documented statements (EKS User Guide, "Learn about
 * identity and access in EKS Auto Mode", "Custom AWS tags for EKS Auto resources": Compute,
 * Storage, Networking). Each is scoped to what carries the cluster's own `eks:eks-cluster-name`
 * tag, written as the cluster's name rather than the documented `${aws:PrincipalTag/…}` (the same
 * value, a session tag EKS sets). Load balancers and Shield are left out: this platform sets no
 * tags on Auto Mode's load balancers. Pure.
 */
export function autoModeTagStatements(
    clusterName: string,
    ctx: { partition: string; accountId: string; region: string },
): PolicyStatement[] {
    const own = { "aws:RequestTag/eks:eks-cluster-name": clusterName };
    // A snapshot's ARN names no account (Service Authorization Reference, Amazon EC2 resource types).
    const ec2 = (type: string, account = ctx.accountId) => `arn:${ctx.partition}:ec2:${ctx.region}:${account}:${type}/*`;
    return [
        {
            Sid: "Compute",
            Effect: "Allow",
            Action: ["ec2:CreateFleet", "ec2:CreateLaunchTemplate", "ec2:RunInstances"],
            Resource: "*",
            Condition: {
                StringEquals: own,
                StringLike: { "aws:RequestTag/eks:kubernetes-node-class-name": "*", "aws:RequestTag/eks:kubernetes-node-pool-name": "*" },
            },
        },
        {
            Sid: "Storage",
            Effect: "Allow",
            Action: ["ec2:CreateSnapshot", "ec2:CreateVolume"],
            Resource: [ec2("volume"), ec2("snapshot", "")],
            Condition: { StringEquals: own },
        },
        {
            Sid: "Networking",
            Effect: "Allow",
            Action: ["ec2:CreateNetworkInterface"],
            Resource: "*",
            Condition: { StringEquals: own, StringLike: { "aws:RequestTag/eks:kubernetes-cni-node-name": "*" } },
        },
    ];
}

/** The cluster role's statement that lets Auto Mode's load balancers admit their traffic to the nodes' security group `arn`. Pure. */
export function autoModeNodeIngressStatement(arn: string): PolicyStatement {
    return {
        Sid: "LoadBalancersToNodes",
        Effect: "Allow",
        Action: ["ec2:AuthorizeSecurityGroupIngress", "ec2:RevokeSecurityGroupIngress"],
        Resource: arn,
    };
}

function autoModeChoice(config: EnabledAutoModeConfig, stack: ComputeChoiceStack): ComputeChoice {
    const { region } = stack;
    const nodeGroups = Object.values(stack.nodeGroups).some((g) => g.enabled);
    return {
        mode: "autoMode",
        nodeGroups,
        runs: autoModeRuns(nodeGroups),
        placement: (hasSystemNodes) => autoModePlacement(config.builtInPools, hasSystemNodes),
        withCluster: ({ name, clusterName, role, nodeSecurityGroupArn, parent }) => {
            // Auto Mode's policies on the cluster's own role (it cannot be swapped on a live cluster).
            const policies = AUTO_MODE_CLUSTER_POLICIES.map(
                (policy) =>
                    new aws.iam.RolePolicyAttachment(
                        `${name}-control-plane-${policy}`,
                        // In the account's partition (aws-us-gov and aws-cn have their own ARNs).
                        {
                            role: role.name,
                            policyArn: accountContext({ parent }).apply((c) => managedPolicyArn(policy, c.partition)),
                        },
                        { parent },
                    ),
            );
            const node = createAutoNodeRole(name, clusterName, parent);
            // Auto Mode's driver uses a customer-managed volume key as the cluster role
            // (create-storage-class.adoc, "Use self-managed KMS key": the policy goes on the EKS Cluster Role).
            const statements = autoVolumeKeyStatements(config.storageClass.kmsKey, clusterName, region, parent);
            if (statements) {
                new aws.iam.RolePolicy(
                    `${name}-control-plane-auto-volume-key`,
                    { role: role.name, policy: statements.apply((Statement) => JSON.stringify({ Version: "2012-10-17", Statement })) },
                    { parent },
                );
            }
            // A NodeClass with user tags needs the documented tagging statements, or no node launches.
            const tagging = Object.values(config.nodeClasses).some((c) => Object.keys(c.tags).length > 0)
                ? new aws.iam.RolePolicy(
                      `${name}-control-plane-auto-tags`,
                      {
                          role: role.name,
                          policy: accountContext({ parent }).apply((c) =>
                              JSON.stringify({ Version: "2012-10-17", Statement: autoModeTagStatements(clusterName, { ...c, region }) }),
                          ),
                      },
                      { parent },
                  )
                : undefined;
            // Auto Mode's load balancers open the nodes' group to their own traffic. EKS's managed policy
            // lets it change only `eks-cluster-sg-*` groups; the platform's NodeClasses select the node
            // group of components/cluster.ts, so the cluster role needs this (EKS User Guide,
            // auto-networking.adoc, "Considerations for load balancing": custom node security groups).
            const nodeIngress = nodeSecurityGroupArn
                ? new aws.iam.RolePolicy(
                      `${name}-control-plane-auto-node-ingress`,
                      {
                          role: role.name,
                          policy: pulumi
                              .output(nodeSecurityGroupArn)
                              .apply((arn) => JSON.stringify({ Version: "2012-10-17", Statement: [autoModeNodeIngressStatement(arn)] })),
                      },
                      { parent },
                  )
                : undefined;
            return {
                dependsOn: [...policies, node.role, ...node.attachments, ...[tagging, nodeIngress].filter((p) => p !== undefined)],
                // pulumi-eks sets computeConfig, storageConfig.blockStorage and
                // kubernetesNetworkConfig.elasticLoadBalancing together (AWS refuses them apart) and
                // bootstrapSelfManagedAddons false; no node role of its own: the program's.
                options: {
                    autoMode: { enabled: true, createNodeRole: false, computeConfig: autoModeComputeConfig(config.builtInPools, node.arn) },
                },
                nodeRoleName: node.role.name,
            };
        },
        // With node groups beside, the VPC CNI add-on (enableNetworkPolicy) owns the controller's ConfigMap.
        withAddons: ({ name, clusterName, provider, keyAdministrator, protect, parent }) =>
            new AutoModeAddons(
                `${name}-auto-mode`,
                {
                    provider,
                    networkPolicyController: !nodeGroups,
                    clusterName,
                    storageClass: config.storageClass,
                    keyAdministrator,
                    protect,
                },
                { parent },
            ),
        // Its custom NodeClasses and NodePools (its built-in pools are EKS's own).
        pools: ({ clusterName, cluster, provider }) => new AutoModeNodePools("auto-mode", { clusterName, config, cluster, provider }),
    };
}

/** EKS Auto Mode as a compute mode: its config half and the choice the components use. */
export const autoModeCompute = {
    ...autoModeComputeSchema,
    choice: (section, stack) => autoModeChoice(section as EnabledAutoModeConfig, stack),
} satisfies ComputeMode<"autoMode", ReturnType<typeof autoModeSchema.default>>;
