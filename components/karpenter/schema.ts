/**
 * `karpenter` in stack config: the controller, its NodePools and its EC2NodeClasses. Every rule
 * Karpenter's CRDs enforce only at admission (CEL, which the offline schemas lack) or only at
 * runtime is checked here, so a bad stack file fails before `pulumi up` instead of half-way. Also
 * the names and constants Karpenter's components own (its static AWS names, the node class
 * reference, where the controller runs), free of SDK imports so the stack config validates against
 * them before any resource exists. Pure.
 */
import {
    architectureFromName,
    extendedResourceNameProblem,
    isAwsReservedTagKey,
    isInstanceFamily,
    isInstanceType,
    KARPENTER_DURATION,
    karpenterDuration,
    KARPENTER_RESTRICTED_TAG_KEYS,
    KARPENTER_RESTRICTED_TAG_PREFIX,
    karpenterRestrictedTag,
    kubernetesArch,
    parseQuantity,
    POD_GRACE_SECONDS,
    type Taint,
} from "eks-platform-kernel";
import { z } from "zod";
import {
    CRITICAL_ADDONS_ONLY,
    groupsSelected,
    type NodeGroupsConfig,
    type Placement,
    SYSTEM_NODE_LABELS,
    type Toleration,
} from "../nodegroups/schema";
import { awsTags, containerResources, type CrossSectionIssue, hopLimit, isLabelKey, isLabelValue, labels, quantity } from "../schema";

/** The only `nodeClassRef` group and kind of Karpenter v1 on AWS. */
export const NODE_CLASS_GROUP = "karpenter.k8s.aws";
export const NODE_CLASS_KIND = "EC2NodeClass";

/** The static names of a cluster's Karpenter resources. */
export interface KarpenterNames {
    nodeRole: string;
    /** The controller's Pod Identity role; under the stack's IAM prefix like every role (kernel/deployScope.ts). */
    controllerRole: string;
    interruptionQueue: string;
}

/** Static AWS names derived from the cluster name (policies and Helm values read them at preview). */
export function karpenterNames(clusterName: string): KarpenterNames {
    return {
        nodeRole: `${clusterName}-karpenter-node`,
        controllerRole: `${clusterName}-karpenter-controller`,
        interruptionQueue: `${clusterName}-karpenter`,
    };
}

/** Taints the controller's pods tolerate: system nodes may keep workloads off with CriticalAddonsOnly. */
export const CONTROLLER_TOLERATIONS: readonly Toleration[] = [CRITICAL_ADDONS_ONLY];

/**
 * Where the controller's pods may run: the configured `nodeSelector` and its tolerations. The
 * Helm values, the stack config's check and the release's wait on node groups all read this. Pure.
 */
export function controllerPlacement(controller: { nodeSelector: Readonly<Record<string, string>> }): Placement {
    return { nodeSelector: controller.nodeSelector, tolerations: CONTROLLER_TOLERATIONS };
}

/** A NodePool taint: the kernel's `Taint`, whose `value` the NodePool CRD leaves optional (omitted when unset). */
export type NodePoolTaint = Omit<Taint, "value"> & { value?: string };

/** A NodePool's `spec.limits` (a ResourceList): cpu and memory, which the platform requires, then any extended resources (`nvidia.com/gpu`). */
export type NodePoolLimits = { cpu: string; memory: string } & Record<string, string>;

const duration = z.string().regex(KARPENTER_DURATION.plain, { message: "must be a duration such as 30s, 15m, 1h or 1h30m" });
const durationOrNever = z.string().regex(KARPENTER_DURATION.orNever, { message: "must be a duration such as 30s, 15m or 720h, or Never" });

/** Label keys Karpenter sets on every node itself: a NodePool may neither set nor require them. */
const RESERVED_LABELS = new Set(["kubernetes.io/hostname", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim"]);

/** Values Karpenter accepts for the well-known keys whose values are a closed set. */
const WELL_KNOWN_VALUES: Record<string, readonly string[]> = {
    "karpenter.sh/capacity-type": ["spot", "on-demand", "reserved"],
    "kubernetes.io/arch": ["amd64", "arm64"],
    "kubernetes.io/os": ["linux"],
};

const OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"] as const;

const INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type";
const INSTANCE_FAMILY_LABEL = "karpenter.k8s.aws/instance-family";
const ARCH_LABEL = "kubernetes.io/arch";

/** The Kubernetes arch label value of an instance type or family (`amd64`, `arm64`). */
function archOf(typeOrFamily: string): string {
    return kubernetesArch(architectureFromName(typeOrFamily.includes(".") ? typeOrFamily : `${typeOrFamily}.large`));
}

const requirementSchema = z
    .strictObject({
        /** A node label key, e.g. `karpenter.sh/capacity-type` or `karpenter.k8s.aws/instance-family`. */
        key: z.string().refine(isLabelKey, { message: "is not a valid Kubernetes label key" }),
        operator: z.enum(OPERATORS, { error: () => `unknown operator: use one of ${OPERATORS.join(", ")}` }),
        /** Values for In/NotIn (any), Gt/Lt (one integer); none for Exists/DoesNotExist. Defaults to `[]`. */
        values: z.array(z.string()).default([]),
        /** Least number of distinct values a launch must keep open (Spot diversity). Defaults to none. */
        minValues: z.number().int().min(1).max(50).optional(),
    })
    .superRefine((r, ctx) => {
        if (RESERVED_LABELS.has(r.key)) {
            ctx.addIssue({ code: "custom", path: ["key"], message: `${r.key} is set by Karpenter on every node and cannot be required` });
        }
        if ((r.operator === "In" || r.operator === "NotIn") && r.values.length === 0) {
            ctx.addIssue({ code: "custom", path: ["values"], message: `must list at least one value for operator ${r.operator}` });
        }
        if ((r.operator === "Exists" || r.operator === "DoesNotExist") && r.values.length > 0) {
            ctx.addIssue({ code: "custom", path: ["values"], message: `must be empty for operator ${r.operator}` });
        }
        if ((r.operator === "Gt" || r.operator === "Lt") && (r.values.length !== 1 || !/^-?\d+$/.test(r.values[0]))) {
            ctx.addIssue({ code: "custom", path: ["values"], message: `must hold exactly one integer for operator ${r.operator}` });
        }
        const allowed = WELL_KNOWN_VALUES[r.key];
        if (allowed && (r.operator === "In" || r.operator === "NotIn")) {
            r.values.forEach((v, i) => {
                if (!allowed.includes(v)) {
                    ctx.addIssue({
                        code: "custom",
                        path: ["values", i],
                        message: `"${v}" is not a value of ${r.key} (one of ${allowed.join(", ")})`,
                    });
                }
            });
        }
        if ((r.operator === "In" || r.operator === "NotIn") && (r.key === INSTANCE_TYPE_LABEL || r.key === INSTANCE_FAMILY_LABEL)) {
            r.values.forEach((v, i) => {
                const known = r.key === INSTANCE_TYPE_LABEL ? isInstanceType(v) : isInstanceFamily(v);
                if (!known) {
                    ctx.addIssue({
                        code: "custom",
                        path: ["values", i],
                        message: `"${v}" is not an EC2 instance ${r.key === INSTANCE_TYPE_LABEL ? "type" : "family"}: the requirement can never match, so the pool launches nothing it names`,
                    });
                }
            });
        }
        if (r.minValues !== undefined && r.operator === "In" && r.values.length < r.minValues) {
            ctx.addIssue({
                code: "custom",
                path: ["minValues"],
                message: `${r.minValues} exceeds the ${r.values.length} values listed: no launch could satisfy it`,
            });
        }
    });

const taintSchema = z.strictObject({
    key: z.string().refine(isLabelKey, { message: "is not a valid taint key" }),
    /** Taint value. Defaults to none. */
    value: z.string().refine(isLabelValue, { message: "is not a valid taint value" }).optional(),
    effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]),
}) satisfies z.ZodType<NodePoolTaint>;

const CRON_MACRO = /^@(annually|yearly|monthly|weekly|daily|midnight|hourly)$/;

const budgetSchema = z
    .strictObject({
        /** Most nodes of the pool disrupted at once: a count (`"0"`, `"2"`) or a percentage (`"10%"`). */
        nodes: z
            .string()
            .regex(/^((100|[0-9]{1,2})%|[0-9]+)$/, { message: 'must be a node count ("0", "2") or a percentage up to 100% ("10%")' }),
        /** When the budget starts, in UTC cron syntax (`"0 8 * * 1-5"`). Defaults to none: always active. */
        schedule: z.string().optional(),
        /** How long a scheduled budget stays active (`"10h"`); required with `schedule`. */
        duration: z.string().regex(KARPENTER_DURATION.budget, { message: "must be hours and/or minutes such as 10h or 1h30m" }).optional(),
        /** Disruption reasons the budget limits. Defaults to all of them. */
        reasons: z.array(z.enum(["Underutilized", "Empty", "Drifted"])).optional(),
    })
    .superRefine((b, ctx) => {
        if ((b.schedule === undefined) !== (b.duration === undefined)) {
            ctx.addIssue({
                code: "custom",
                path: [b.schedule === undefined ? "schedule" : "duration"],
                message: "schedule and duration must be set together",
            });
        }
        if (b.schedule !== undefined) {
            const fields = b.schedule.trim().split(/\s+/);
            if (/TZ=/.test(b.schedule)) {
                ctx.addIssue({
                    code: "custom",
                    path: ["schedule"],
                    message: "time zones are not supported: Karpenter evaluates schedules in UTC",
                });
            } else if (!CRON_MACRO.test(b.schedule) && fields.length !== 5) {
                ctx.addIssue({
                    code: "custom",
                    path: ["schedule"],
                    message: 'must be a 5-field cron expression such as "0 8 * * 1-5" or a macro such as @daily',
                });
            }
        }
    });

/**
 * A required NodePool limit. Checked on its own (not in the pool's refinement, which zod skips
 * once any other field of the pool is invalid) so a missing limit is always reported.
 */
function poolLimit(what: string) {
    return z.unknown().transform((value, ctx): string => {
        if (value === undefined) {
            ctx.addIssue({
                code: "custom",
                message: `is required: without it a runaway deployment makes Karpenter launch ${what} without bound`,
            });
            return z.NEVER;
        }
        const parsed = quantity.safeParse(value);
        if (!parsed.success) {
            ctx.addIssue({ code: "custom", message: parsed.error.issues[0]?.message ?? "must be a Kubernetes quantity" });
            return z.NEVER;
        }
        return parsed.data;
    });
}

const cpuLimit = poolLimit("CPUs");
const memoryLimit = poolLimit("memory");

/**
 * `limits` of a NodePool: `cpu` and `memory` (required), and any extended resource a device plugin
 * advertises (`nvidia.com/gpu`, `aws.amazon.com/neuron`, `vpc.amazonaws.com/efa`, …), which
 * Karpenter's `spec.limits` takes as a ResourceList and caps like CPU. Each key is judged on its
 * own, so every bad one is reported at once.
 */
const poolLimits = z.record(z.string(), z.unknown()).transform((raw, ctx): NodePoolLimits => {
    const limits: Record<string, string> = {};
    const take = (key: string, schema: z.ZodType<string>) => {
        const parsed = schema.safeParse(raw[key]);
        if (parsed.success) {
            limits[key] = parsed.data;
        }
        for (const issue of parsed.error?.issues ?? []) {
            ctx.addIssue({ code: "custom", path: [key, ...issue.path], message: issue.message });
        }
    };
    take("cpu", cpuLimit);
    take("memory", memoryLimit);
    for (const [key, value] of Object.entries(raw)) {
        if (key === "cpu" || key === "memory") {
            continue;
        }
        const nameProblem = extendedResourceNameProblem(key);
        if (nameProblem !== undefined) {
            ctx.addIssue({
                code: "custom",
                path: [key],
                message: `is not a resource a pool limit takes: ${nameProblem}; limit cpu, memory or an extended resource such as nvidia.com/gpu`,
            });
            continue;
        }
        const parsed = quantity.safeParse(value);
        if (!parsed.success) {
            ctx.addIssue({ code: "custom", path: [key], message: parsed.error.issues[0]?.message ?? "must be a Kubernetes quantity" });
        } else if (!Number.isInteger(parseQuantity(parsed.data))) {
            ctx.addIssue({
                code: "custom",
                path: [key],
                message: `${parsed.data} is not a whole number: Kubernetes counts extended resources in whole units, e.g. 8`,
            });
        } else {
            limits[key] = parsed.data;
        }
    }
    return limits as NodePoolLimits;
});

/**
 * The schema of a NodePool whose `nodeClassRef` names `group`/`kind`: Karpenter's own
 * (`karpenter.k8s.aws`/`EC2NodeClass`, `karpenter.nodePools`) and EKS Auto Mode's
 * (`eks.amazonaws.com`/`NodeClass`, `autoMode.nodePools`, components/compute/autoMode.ts) take the
 * same shape: Auto Mode runs Karpenter's `karpenter.sh/v1` NodePool.
 */
export function nodePoolSchemaFor<G extends string, K extends string>(group: G, kind: K) {
    return z
        .strictObject({
            /**
             * The node class the pool launches with. `group` and `kind` may be omitted and are always
             * rendered: Karpenter v1 rejects a reference by name alone.
             */
            nodeClassRef: z.strictObject({
                /** Defaults to the one valid group. */
                group: z.literal(group, { error: () => `must be ${group}` }).default(group),
                /** Defaults to the one valid kind. */
                kind: z.literal(kind, { error: () => `must be ${kind}` }).default(kind),
                /** A key of the section's `nodeClasses`. */
                name: z.string().min(1),
            }),
            /** Priority among pools a pod fits (higher first). Defaults to none (weight 0). */
            weight: z.number().int().min(1).max(100).optional(),
            /** Labels every node of the pool carries. Defaults to `{}`. */
            labels: labels.default({}),
            /** Taints every node of the pool carries. Defaults to `[]`. */
            taints: z.array(taintSchema).default([]),
            /** Node requirements: capacity type, architecture, instance category/family/size or types. */
            requirements: z
                .array(requirementSchema)
                .min(1, { message: "needs at least one requirement (capacity type, architecture, instance family…)" }),
            /**
             * The most the pool may launch in total: `cpu` and `memory` (both required), and any
             * extended resource by its name (`nvidia.com/gpu: "8"`), in whole units.
             */
            limits: poolLimits,
            disruption: z.strictObject({
                /** Which nodes consolidation may remove. Defaults to `WhenEmptyOrUnderutilized`. */
                consolidationPolicy: z.enum(["WhenEmpty", "WhenEmptyOrUnderutilized"]).default("WhenEmptyOrUnderutilized"),
                /** How long a node must stay empty/underutilized before it is consolidated, or `Never`. */
                consolidateAfter: durationOrNever,
                /** Disruption budgets. Defaults to `[{ nodes: "10%" }]`. */
                budgets: z
                    .array(budgetSchema)
                    .min(1)
                    .default([{ nodes: "10%" }]),
            }),
            /** Node lifetime before replacement, or `Never`. Defaults to `720h`. */
            expireAfter: durationOrNever.default("720h"),
            /**
             * How long a draining node may wait for its pods (PDBs included) before it is terminated
             * anyway. Required: without it a blocking PDB holds a node forever.
             */
            terminationGracePeriod: duration,
        })
        .superRefine((p, ctx) => {
            const grace = karpenterDuration(p.terminationGracePeriod);
            if (grace !== undefined && grace < POD_GRACE_SECONDS.max) {
                ctx.addIssue({
                    code: "custom",
                    path: ["terminationGracePeriod"],
                    message: `${p.terminationGracePeriod} is shorter than the ${POD_GRACE_SECONDS.max}s pod grace period the platform allows: such pods would be killed mid-shutdown; use at least 2m`,
                });
            }
            if (!p.disruption.budgets.some((b) => b.schedule === undefined)) {
                ctx.addIssue({
                    code: "custom",
                    path: ["disruption", "budgets"],
                    message:
                        'has only scheduled budgets: outside their windows disruption is unlimited; add an always-active one such as { nodes: "10%" }',
                });
            }
            // Types or families pinned with In must run on an architecture the pool allows, or the
            // pool can never launch them.
            const archIn = p.requirements.find((r) => r.key === ARCH_LABEL && r.operator === "In")?.values;
            if (archIn !== undefined) {
                p.requirements.forEach((r, i) => {
                    if (r.operator !== "In" || (r.key !== INSTANCE_TYPE_LABEL && r.key !== INSTANCE_FAMILY_LABEL)) {
                        return;
                    }
                    r.values.forEach((v, j) => {
                        const known = r.key === INSTANCE_TYPE_LABEL ? isInstanceType(v) : isInstanceFamily(v);
                        const arch = archOf(v);
                        if (known && !archIn.includes(arch)) {
                            ctx.addIssue({
                                code: "custom",
                                path: ["requirements", i, "values", j],
                                message: `${v} is ${arch} but the pool requires ${ARCH_LABEL} in [${archIn.join(", ")}]: it can never launch; drop it or allow ${arch}`,
                            });
                        }
                    });
                });
            }
            for (const key of Object.keys(p.labels)) {
                if (RESERVED_LABELS.has(key) || key.startsWith("karpenter.sh/") || key.startsWith("karpenter.k8s.aws/")) {
                    ctx.addIssue({ code: "custom", path: ["labels", key], message: "is a label domain Karpenter reserves" });
                }
            }
        });
}

const nodePoolSchema = nodePoolSchemaFor(NODE_CLASS_GROUP, NODE_CLASS_KIND);

/** A KMS key ARN or bare key id (single- or multi-Region). */
const KMS_KEY =
    /^(arn:aws(-[a-z]+)*:kms:[a-z]{2}(-[a-z]+)+-\d:\d{12}:key\/)?(mrk-[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

const AMI_ALIAS = /^al2023@(latest|v\d{8})$/;

const nodeClassSchema = z.strictObject({
    /**
     * AMI alias, pinned: `al2023@vYYYYMMDD`. `al2023@latest` replaces every node on each AMI
     * release and is rejected unless `allowLatestAmi` is true.
     */
    amiAlias: z.string().regex(AMI_ALIAS, { message: "must be an AL2023 alias pinned to a release, e.g. al2023@v20260512" }),
    /** Root volume (gp3, always encrypted). Defaults to `{ size: "50Gi", iops: 3000, throughput: 125 }`. */
    rootVolume: z
        .strictObject({
            /** Defaults to `50Gi`. */
            size: z
                .string()
                .regex(/^\d+Gi$/, { message: "must be a size in Gi, e.g. 50Gi" })
                .refine((s) => Number(s.slice(0, -2)) >= 20 && Number(s.slice(0, -2)) <= 16384, {
                    message: "must be between 20Gi (the AL2023 image) and 16384Gi (gp3)",
                })
                .default("50Gi"),
            /** gp3 IOPS. Defaults to `3000`. */
            iops: z.number().int().min(3000).max(80000).default(3000),
            /** gp3 throughput in MiB/s. Defaults to `125`. */
            throughput: z.number().int().min(125).max(2000).default(125),
            /**
             * Customer-managed KMS key of the volume: a key ARN, or a key id in the stack's
             * account and region. The controller gets EBS-scoped use of it and the Spot
             * service-linked role a grant (see docs/karpenter.md). Defaults to the account's EBS key.
             */
            kmsKeyId: z
                .string()
                .regex(KMS_KEY, {
                    message:
                        "must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>) or key id; an alias cannot scope the IAM permissions the key needs",
                })
                .optional(),
        })
        .default({ size: "50Gi", iops: 3000, throughput: 125 }),
    /** IMDSv2 hop limit (see `hopLimit`). Defaults to `1`. */
    httpPutResponseHopLimit: hopLimit,
    /** EC2 detailed monitoring. Defaults to `false`. */
    detailedMonitoring: z.boolean().default(false),
    /** Extra tags on instances, volumes and launch templates. Defaults to `{}`. */
    tags: awsTags
        .superRefine((tags, ctx) => {
            for (const key of Object.keys(tags)) {
                if (karpenterRestrictedTag(key) !== undefined || isAwsReservedTagKey(key)) {
                    ctx.addIssue({
                        code: "custom",
                        path: [key],
                        message: `is a restricted tag (${KARPENTER_RESTRICTED_TAG_KEYS.join(", ")}, ${KARPENTER_RESTRICTED_TAG_PREFIX}*, aws:*): Karpenter or EC2 sets these itself, and the EC2NodeClass is rejected`,
                    });
                }
            }
        })
        .default({}),
});

const controllerSchema = z
    .strictObject({
        /** Controller replicas (leader election; one stands by). Defaults to `2`. */
        replicas: z.number().int().min(1).max(5).default(2),
        /** Requests and limits of the controller container. Defaults to 1 CPU / 1Gi requested, 1Gi memory limit. */
        resources: containerResources({ requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } }),
        /**
         * Where the controller runs: the managed node group labelled for platform components,
         * never a node Karpenter manages itself. Defaults to `{ "platform/role": "system" }`.
         */
        nodeSelector: labels.default({ ...SYSTEM_NODE_LABELS }),
        /** Controller log level. Defaults to `info`. */
        logLevel: z.enum(["debug", "info", "error"]).default("info"),
    })
    .superRefine((c, ctx) => {
        if (Object.keys(c.nodeSelector).length === 0) {
            ctx.addIssue({
                code: "custom",
                path: ["nodeSelector"],
                message: "is empty: the controller could land on a node it manages and remove itself",
            });
        }
    });

const DEFAULT_CONTROLLER = {
    replicas: 2,
    resources: { requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } },
    nodeSelector: { ...SYSTEM_NODE_LABELS },
    logLevel: "info" as const,
};

const enabledSchema = z
    .strictObject({
        enabled: z.literal(true),
        /** Karpenter chart version (both `karpenter` and `karpenter-crd`), pinned, v1: e.g. `1.14.1`. */
        chartVersion: z.string().regex(/^[1-9]\d*\.\d+\.\d+$/, { message: "must be a pinned Karpenter v1 chart version such as 1.14.1" }),
        /** Allow `al2023@latest` in EC2NodeClasses (nodes then churn on every AMI release). Defaults to `false`. */
        allowLatestAmi: z.boolean().default(false),
        /**
         * Create the account's EC2 Spot service-linked role (AWSServiceRoleForEC2Spot), without
         * which no Spot instance launches. It is account-wide and exists once: set this in at most
         * one stack per account, and only if the role does not exist yet (an existing role makes
         * the create fail); otherwise create it once by hand (docs/karpenter.md). Defaults to `false`.
         */
        createSpotServiceLinkedRole: z.boolean().default(false),
        /** The controller Deployment. Defaults to 2 replicas on `platform/role: system` nodes. */
        controller: controllerSchema.default(DEFAULT_CONTROLLER),
        /** EC2NodeClasses keyed by name. */
        nodeClasses: z.record(
            z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, { message: "must be a DNS-1123 label" }),
            nodeClassSchema,
        ),
        /** NodePools keyed by name. */
        nodePools: z.record(
            z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, { message: "must be a DNS-1123 label" }),
            nodePoolSchema,
        ),
    })
    .superRefine((k, ctx) => {
        if (Object.keys(k.nodePools).length === 0) {
            ctx.addIssue({
                code: "custom",
                path: ["nodePools"],
                message: "is empty: Karpenter would launch no node; define a pool or set enabled: false",
            });
        }
        const classes = Object.keys(k.nodeClasses);
        for (const [pool, spec] of Object.entries(k.nodePools)) {
            if (!classes.includes(spec.nodeClassRef.name)) {
                ctx.addIssue({
                    code: "custom",
                    path: ["nodePools", pool, "nodeClassRef", "name"],
                    message: `"${spec.nodeClassRef.name}" is not defined under karpenter.nodeClasses (defined: ${classes.join(", ") || "none"})`,
                });
            }
        }
        for (const [name, nodeClass] of Object.entries(k.nodeClasses)) {
            if (nodeClass.amiAlias.endsWith("@latest") && !k.allowLatestAmi) {
                ctx.addIssue({
                    code: "custom",
                    path: ["nodeClasses", name, "amiAlias"],
                    message:
                        "is @latest: every AMI release would replace every node; pin al2023@vYYYYMMDD or set karpenter.allowLatestAmi: true",
                });
            }
        }
    });

/** `karpenter` in stack config; `{ enabled: false }` (the default) installs nothing. */
export const karpenterSchema = z.discriminatedUnion("enabled", [z.strictObject({ enabled: z.literal(false) }), enabledSchema]);

export type KarpenterConfig = z.output<typeof karpenterSchema>;
export type EnabledKarpenterConfig = Extract<KarpenterConfig, { enabled: true }>;
export type NodePoolConfig = EnabledKarpenterConfig["nodePools"][string];
export type NodeClassConfig = EnabledKarpenterConfig["nodeClasses"][string];
export type KarpenterControllerConfig = EnabledKarpenterConfig["controller"];

/**
 * Checks of the karpenter section against the rest of the stack. Pure.
 *
 * The controller needs an enabled node group whose nodes carry its nodeSelector and whose taints
 * it tolerates (the groups its Helm release waits for, see `controllerPlacement`), keeping at
 * least one node per replica (the chart spreads replicas one per node): otherwise a replica stays
 * Pending and `pulumi up` waits on the Helm release until it times out.
 */
export function karpenterCrossSectionProblems(stack: {
    clusterName: string;
    karpenter: KarpenterConfig;
    nodeGroups: NodeGroupsConfig;
}): CrossSectionIssue[] {
    const k = stack.karpenter;
    if (!k.enabled) {
        return [];
    }
    const issues: CrossSectionIssue[] = [];
    const names = karpenterNames(stack.clusterName);
    if (names.nodeRole.length > 64) {
        issues.push({
            path: ["clusterName"],
            message: `is too long for Karpenter: the node role ${names.nodeRole} exceeds IAM's 64 characters; shorten the name to at most ${64 - "-karpenter-node".length} characters`,
        });
    }
    const placement = controllerPlacement(k.controller);
    const wanted = Object.entries(placement.nodeSelector)
        .map(([key, value]) => `${key}=${value}`)
        .join(", ");
    const labelled = groupsSelected(placement, stack.nodeGroups);
    const homes = labelled.filter((s) => s.untolerated.length === 0);
    const tolerated = placement.tolerations.map((t) => t.key ?? "(any)").join(", ");
    if (labelled.length === 0) {
        const enabled = Object.keys(stack.nodeGroups).filter((n) => stack.nodeGroups[n].enabled);
        issues.push({
            path: ["karpenter", "controller", "nodeSelector"],
            message: `${wanted} matches no enabled node group (have: ${enabled.join(", ") || "none"}): the controller could never schedule; label the system group with it`,
        });
    } else if (homes.length === 0) {
        const blocked = labelled.map(
            (s) => `${s.name}: ${s.untolerated.map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`).join(", ")}`,
        );
        issues.push({
            path: ["karpenter", "controller", "nodeSelector"],
            message: `${wanted} matches only groups whose taints the controller does not tolerate (${blocked.join("; ")}; it tolerates ${tolerated}): the controller could never schedule`,
        });
    } else {
        const minNodes = homes.reduce((sum, s) => sum + s.group.minSize, 0);
        if (minNodes < k.controller.replicas) {
            issues.push({
                path: ["karpenter", "controller", "replicas"],
                message: `${k.controller.replicas} replicas run one per node, but the groups they may use (${homes.map((s) => s.name).join(", ")}) keep only ${minNodes} node${minNodes === 1 ? "" : "s"} at minimum: a replica would stay Pending; raise those groups' minSize or lower replicas`,
            });
        }
    }
    return issues;
}
