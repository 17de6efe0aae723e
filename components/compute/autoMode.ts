/**
 * EKS Auto Mode, a compute mode (components/compute/index.ts): `autoMode` in stack config turns on
 * the cluster's compute, storage and load balancing together. EKS then runs Karpenter, the EBS CSI
 * driver, the load balancer controller, the VPC CNI, kube-proxy, CoreDNS and the Pod Identity agent
 * itself; this program installs none of them (the cluster's own add-ons and CoreDNS stay only while
 * a node group runs beside Auto Mode). Everything the program knows of Auto Mode is here; what the
 * policy pack and the rehearsal know of the service (its built-in pools, its forced expiry, its
 * components' names) is data in the kernel (kernel/autoMode.ts, kernel/autoModeComponents.ts).
 *
 * Config. Its NodePools take the shape of `karpenter.nodePools` (Auto Mode runs Karpenter's
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
import {
    AUTO_MODE_COMPONENTS,
    AUTO_MODE_MAX_NODE_LIFETIME_SECONDS,
    AUTO_MODE_NODE_CLASS_GROUP,
    AUTO_MODE_NODE_CLASS_KIND,
    BUILT_IN_POOL_NAMES,
    isAwsReservedTagKey,
    isBuiltInPoolName,
    karpenterDuration,
    LOAD_BALANCER_CONTROLLER_API,
    managedPolicyArn,
    PLATFORM_CLUSTER_TAG,
} from "eks-platform-kernel";
import { z } from "zod";
import { DEFAULT_CLASS_ANNOTATION, DEFAULT_STORAGE_CLASS, volumeKeyStatements } from "../addons/ebsCsi";
import { volumeStorageClassSchema } from "../config/addons";
import { awsTags } from "../config/common";
import { type CrossSectionIssue, nodePoolSchemaFor } from "../config/karpenter";
import { accountContext, createEc2NodeRole, type NodeRole, type PolicyStatement, roleArn, stackKeyPolicy } from "../iam";
import { renderNodePool } from "../karpenter/nodePools";
import type { NodePoolObject } from "../karpenter/types";
import { CRITICAL_ADDONS_ONLY, keepsOffEveryPod } from "../nodegroups/scheduling";
import type { ComputeChoice, ComputeChoiceStack, ComputeMode, PlatformPart } from "./index";

// ---------------------------------------------------------------------------------------------
// Config: `autoMode` in stack config.

/** The NodeClass EKS creates for its built-in pools, only while one is enabled. */
export const DEFAULT_AUTO_NODE_CLASS = "default";

/** The first Kubernetes minor EKS Auto Mode runs ("requires Kubernetes version 1.29 or greater", migrate-auto.adoc). */
export const AUTO_MODE_MIN_MINOR = 29;

/**
 * Tags a custom NodeClass may not carry: Auto Mode sets them on what it launches
 * (create-node-class.adoc, "tags").
 */
const RESERVED_NODE_CLASS_TAGS = [
    "karpenter.sh/nodepool",
    "karpenter.sh/nodeclaim",
    "karpenter.sh/managed-by",
    "karpenter.sh/provisioner-name",
    "eks.amazonaws.com/nodeclass",
];

const dnsLabel = z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, { message: "must be a DNS-1123 label" });

/** An Auto Mode NodeClass (create-node-class.adoc, "Node Class Specification"), the fields this platform sets. */
const autoNodeClassSchema = z.strictObject({
    /** The node's root volume. Defaults to `{ size: "80Gi", iops: 3000, throughput: 125 }` (Auto Mode's defaults). */
    ephemeralStorage: z
        .strictObject({
            /** Defaults to `80Gi`. */
            size: z
                .string()
                .regex(/^\d+Gi$/, { message: "must be a size in Gi, e.g. 80Gi" })
                .refine((s) => Number(s.slice(0, -2)) >= 1 && Number(s.slice(0, -2)) <= 59000, {
                    message: "must be between 1Gi and 59000Gi (Auto Mode's range)",
                })
                .default("80Gi"),
            /** gp3 IOPS, 3000 to 16000. Defaults to `3000`. */
            iops: z.number().int().min(3000).max(16000).default(3000),
            /** gp3 throughput in MiB/s, 125 to 1000. Defaults to `125`. */
            throughput: z.number().int().min(125).max(1000).default(125),
        })
        .default({ size: "80Gi", iops: 3000, throughput: 125 }),
    /**
     * The default of pod traffic no NetworkPolicy selects: `DefaultAllow` (Kubernetes' default) or
     * `DefaultDeny`. Defaults to `DefaultAllow`: every namespace of this platform has its own
     * default-deny NetworkPolicy (components/namespaces.ts).
     */
    networkPolicy: z.enum(["DefaultAllow", "DefaultDeny"]).default("DefaultAllow"),
    /** Extra tags on instances and volumes. Defaults to `{}`. */
    tags: awsTags
        .superRefine((tags, ctx) => {
            for (const key of Object.keys(tags)) {
                if (RESERVED_NODE_CLASS_TAGS.includes(key) || key.startsWith("kubernetes.io/cluster/") || isAwsReservedTagKey(key)) {
                    ctx.addIssue({
                        code: "custom",
                        path: [key],
                        message: `is a tag EKS Auto Mode sets itself (${RESERVED_NODE_CLASS_TAGS.join(", ")}, kubernetes.io/cluster/*, aws:*): the NodeClass is rejected`,
                    });
                }
            }
        })
        .default({}),
});

const autoNodePoolSchema = nodePoolSchemaFor(AUTO_MODE_NODE_CLASS_GROUP, AUTO_MODE_NODE_CLASS_KIND).superRefine((p, ctx) => {
    p.requirements.forEach((r, i) => {
        if (r.key.startsWith("karpenter.k8s.aws/")) {
            ctx.addIssue({
                code: "custom",
                path: ["requirements", i, "key"],
                message: `${r.key} is a label of self-managed Karpenter: EKS Auto Mode labels its nodes eks.amazonaws.com/instance-* (e.g. ${r.key.replace("karpenter.k8s.aws/", "eks.amazonaws.com/")})`,
            });
        }
        if (r.key === "kubernetes.io/os" || r.key === "node.kubernetes.io/windows-build") {
            ctx.addIssue({
                code: "custom",
                path: ["requirements", i, "key"],
                message: `${r.key} is not supported by EKS Auto Mode, which runs Linux nodes only`,
            });
        }
    });
    const expire = p.expireAfter === "Never" ? undefined : karpenterDuration(p.expireAfter);
    const grace = karpenterDuration(p.terminationGracePeriod) ?? 0;
    if (p.expireAfter === "Never" || (expire !== undefined && expire + grace > AUTO_MODE_MAX_NODE_LIFETIME_SECONDS)) {
        ctx.addIssue({
            code: "custom",
            path: ["expireAfter"],
            message: `${p.expireAfter} plus terminationGracePeriod ${p.terminationGracePeriod} exceeds the 21 days (504h) EKS Auto Mode lets a node live: its nodes would be replaced on AWS's schedule, not the pool's; use at most ${504 - Math.ceil(grace / 3600)}h`,
        });
    }
});

const enabledSchema = z
    .strictObject({
        enabled: z.literal(true),
        /**
         * The pools EKS runs itself (`general-purpose`: On-Demand C/M/R amd64; `system`: tainted
         * CriticalAddonsOnly, amd64 and arm64), each once. `[]` runs only the pools below; EKS then
         * creates no `default` NodeClass and no access entry for the node role, which the program
         * creates instead. Defaults to `["system"]`: platform add-ons on `system`, workloads on the
         * pools below.
         */
        builtInPools: z
            .array(z.enum(BUILT_IN_POOL_NAMES, { error: () => `must be one of ${BUILT_IN_POOL_NAMES.join(", ")} (exactly)` }))
            .default(["system"])
            .superRefine((pools, ctx) => {
                pools.forEach((pool, i) => {
                    if (pools.indexOf(pool) !== i) {
                        ctx.addIssue({ code: "custom", path: [i], message: "is listed twice" });
                    }
                });
            }),
        /** Auto Mode NodeClasses keyed by name (never `default`, which is EKS's). Defaults to `{}`. */
        nodeClasses: z.record(dnsLabel, autoNodeClassSchema).default({}),
        /** NodePools keyed by name, each on a NodeClass above (or EKS's `default` while a built-in pool runs). Defaults to `{}`. */
        nodePools: z.record(dnsLabel, autoNodePoolSchema).default({}),
        /**
         * The default StorageClass `gp3` on Auto Mode's driver, its key as the EBS CSI driver's is
         * chosen; with a customer-managed key the cluster role gets what Auto Mode's driver needs on
         * it (create-storage-class.adoc, "Use self-managed KMS key"). Defaults to `{ kmsKey:
         * platform, reclaimPolicy: Delete }`.
         */
        storageClass: volumeStorageClassSchema,
    })
    .superRefine((a, ctx) => {
        if (a.builtInPools.length === 0 && Object.keys(a.nodePools).length === 0) {
            ctx.addIssue({
                code: "custom",
                path: ["nodePools"],
                message: "is empty and builtInPools is []: Auto Mode would launch no node; enable a built-in pool or define a pool",
            });
        }
        if (DEFAULT_AUTO_NODE_CLASS in a.nodeClasses) {
            ctx.addIssue({
                code: "custom",
                path: ["nodeClasses", DEFAULT_AUTO_NODE_CLASS],
                message: "is the NodeClass EKS creates for its built-in pools: name yours otherwise",
            });
        }
        const classes = [...Object.keys(a.nodeClasses), ...(a.builtInPools.length > 0 ? [DEFAULT_AUTO_NODE_CLASS] : [])];
        for (const [pool, spec] of Object.entries(a.nodePools)) {
            if (isBuiltInPoolName(pool)) {
                ctx.addIssue({
                    code: "custom",
                    path: ["nodePools", pool],
                    message: `is the name of a built-in pool, which EKS owns: list it in builtInPools or name yours otherwise`,
                });
            }
            if (!classes.includes(spec.nodeClassRef.name)) {
                ctx.addIssue({
                    code: "custom",
                    path: ["nodePools", pool, "nodeClassRef", "name"],
                    message: `"${spec.nodeClassRef.name}" is not defined under autoMode.nodeClasses (defined: ${classes.join(", ") || "none"}${spec.nodeClassRef.name === DEFAULT_AUTO_NODE_CLASS ? "; EKS creates default only while builtInPools lists a pool" : ""})`,
                });
            }
        }
    });

/** `autoMode` in stack config; `{ enabled: false }` (the default) is a standard cluster. */
export const autoModeSchema = z.discriminatedUnion("enabled", [z.strictObject({ enabled: z.literal(false) }), enabledSchema]);

export type AutoModeConfig = z.output<typeof autoModeSchema>;
export type EnabledAutoModeConfig = Extract<AutoModeConfig, { enabled: true }>;
export type AutoNodePoolConfig = EnabledAutoModeConfig["nodePools"][string];
export type AutoNodeClassConfig = EnabledAutoModeConfig["nodeClasses"][string];

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

/** EKS Auto Mode as a compute mode. */
export const autoModeCompute = {
    key: "autoMode",
    label: "EKS Auto Mode",
    /** Off by default: a standard cluster. */
    schema: autoModeSchema.default({ enabled: false }),
    example: { enabled: true, builtInPools: ["system", "general-purpose"] },
    active: (section) => section.enabled,
    replacesAddons: {
        ebsCsiDriver: `its own EBS CSI driver (${AUTO_MODE_COMPONENTS.provisioner})`,
        loadBalancerController: `its own load balancing (${AUTO_MODE_COMPONENTS.ingressController}, ${AUTO_MODE_COMPONENTS.loadBalancerClass})`,
    },
    problems: (_section, stack) => {
        const issues: CrossSectionIssue[] = [];
        const minor = Number(stack.cluster.version.split(".")[1]);
        if (Number.isFinite(minor) && minor < AUTO_MODE_MIN_MINOR) {
            issues.push({
                path: ["cluster", "version"],
                message: `${stack.cluster.version} is before 1.${AUTO_MODE_MIN_MINOR}, the first version EKS Auto Mode runs`,
            });
        }
        if (stack.karpenter.enabled) {
            issues.push({
                path: ["karpenter", "enabled"],
                message:
                    "is true beside autoMode: EKS Auto Mode runs Karpenter itself; set karpenter.enabled: false and move the pools to autoMode.nodePools, each on a class of autoMode.nodeClasses (Auto Mode's NodeClass, not an EC2NodeClass) with its karpenter.k8s.aws/* requirements as eks.amazonaws.com/*; with volumes or load balancers to keep, move blue/green instead (docs/automode.md#moving-a-stack-to-auto-mode)",
            });
        }
        return issues;
    },
    workloadPools: (section) => {
        const a = section as EnabledAutoModeConfig;
        return {
            // EKS's general-purpose pool carries no taint; system carries CriticalAddonsOnly (auto-mode-node-pools.adoc).
            runsWorkloads:
                a.builtInPools.includes("general-purpose") || Object.values(a.nodePools).some((p) => !keepsOffEveryPod(p.taints)),
            fix: `add general-purpose to autoMode.builtInPools, or a pool without a NoSchedule or NoExecute taint under autoMode.nodePools (the built-in system pool is tainted ${CRITICAL_ADDONS_ONLY.key}); Pulumi.dev-auto.yaml has one`,
        };
    },
    choice: (section, stack) => autoModeChoice(section as EnabledAutoModeConfig, stack),
} satisfies ComputeMode<"autoMode", ReturnType<typeof autoModeSchema.default>>;
