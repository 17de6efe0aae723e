/**
 * `autoMode` in stack config, EKS Auto Mode's section (the mode itself: autoMode.ts), and the
 * mode's config half as the registry of compute modes takes it (mode.schema.ts, schema.ts). Its
 * NodePools take the shape of `karpenter.nodePools` (Auto Mode runs Karpenter's `karpenter.sh/v1`
 * NodePool) on Auto Mode's `eks.amazonaws.com/v1` NodeClass. What AWS refuses is refused by key:
 * the sources are in autoMode.ts's header. Pure.
 */
import {
    AUTO_MODE_COMPONENTS,
    AUTO_MODE_MAX_NODE_LIFETIME_SECONDS,
    AUTO_MODE_NODE_CLASS_GROUP,
    AUTO_MODE_NODE_CLASS_KIND,
    BUILT_IN_POOL_NAMES,
    isAwsReservedTagKey,
    isBuiltInPoolName,
    karpenterDuration,
} from "eks-platform-kernel";
import { z } from "zod";
import { volumeStorageClassSchema } from "../addons/schema";
import { nodePoolSchemaFor } from "../karpenter/schema";
import { CRITICAL_ADDONS_ONLY, keepsOffEveryPod } from "../nodegroups/schema";
import { awsTags, type CrossSectionIssue } from "../schema";
import type { ComputeModeSchema } from "./mode.schema";

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

/** EKS Auto Mode's config half, as the stack config knows the mode; `autoModeCompute` (autoMode.ts) adds its choice. */
export const autoModeComputeSchema = {
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
} satisfies ComputeModeSchema<"autoMode", ReturnType<typeof autoModeSchema.default>>;
