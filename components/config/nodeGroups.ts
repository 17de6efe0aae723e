import { amiTypeArchitecture, instanceTypeInfo, kubernetesMinor, parseReleaseVersion, type Taint } from "eks-platform-kernel";
import { z } from "zod";
import { FIRST_MINOR_WITHOUT_AL2, GPU_AMI_TYPES, MANAGED_AMI_TYPES } from "../nodegroups/ami";
import { nodeRoleName } from "../nodegroups/iam";
import { longestNthRuleName } from "../nodegroups/nth";
import { dnsLabel, hopLimit, isLabelKey, isLabelValue, kubeletRefusesLabel, labels, awsTags } from "./common";

/**
 * An EKS AMI release version as `aws eks describe-nodegroup` and the AMI changelog print it,
 * e.g. `1.34.7-20260512`. Pinned: "latest" would replace every node at a preview with no code change.
 */
const releaseVersion = z.string().refine((v) => parseReleaseVersion(v) !== undefined, {
    message: "must be a pinned EKS AMI release version such as 1.34.7-20260512 (<kubernetes patch>-<AMI build date>)",
});

/** An EC2 instance type such as `t3.large`, `g4dn.xlarge` or `m7i-flex.large`. */
const instanceType = z.string().regex(/^[a-z][a-z0-9-]*[0-9][a-z0-9-]*\.[0-9]*[a-z][a-z0-9]*$/, {
    message: "must be an EC2 instance type such as t3.large or g4dn.xlarge",
});

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;

/**
 * A Kubernetes node taint, e.g. `{ key: CriticalAddonsOnly, value: "true", effect: NoSchedule }`.
 * Its output is the kernel's `Taint` (the `satisfies` below fails to compile if they drift apart).
 */
export const taintSchema = z
    .strictObject({
        key: z.string(),
        /** Defaults to `""`. */
        value: z.string().default(""),
        effect: z.enum(TAINT_EFFECTS),
    })
    .superRefine((t, ctx) => {
        if (!isLabelKey(t.key)) {
            ctx.addIssue({ code: "custom", path: ["key"], message: "is not a valid taint key (same rules as a label key)" });
        }
        if (!isLabelValue(t.value)) {
            ctx.addIssue({ code: "custom", path: ["value"], message: "is not a valid taint value (same rules as a label value)" });
        }
    }) satisfies z.ZodType<Taint>;

/** Fields every node group has, whatever builds it. */
const commonFields = {
    /** Create the group. `false` keeps its config but removes the group (and its nodes). Defaults to `true`. */
    enabled: z.boolean().default(true),
    /** EC2 instance types; the first is preferred. */
    instanceTypes: z.array(instanceType).min(1, { message: "needs at least one instance type" }),
    /** Fewest nodes. */
    minSize: z.number().int().min(0),
    /** Nodes at creation; ignored afterwards so an autoscaler does not fight `pulumi up`. */
    desiredSize: z.number().int().min(0),
    /** Most nodes. */
    maxSize: z.number().int().min(1),
    /** `ON_DEMAND` or `SPOT`. Defaults to `ON_DEMAND`. */
    capacityType: z.enum(["ON_DEMAND", "SPOT"]).default("ON_DEMAND"),
    /** Kubernetes labels on every node. Defaults to `{}`. */
    labels: labels.default({}),
    /** Kubernetes taints on every node. Defaults to `[]`. */
    taints: z.array(taintSchema).default([]),
    /** Root volume size (encrypted gp3). Defaults to `50`. */
    diskSizeGiB: z.number().int().min(20).max(16384).default(50),
    /** IMDSv2 hop limit (see `hopLimit`). Defaults to `1`. */
    metadataHopLimit: hopLimit,
    /** Attach AmazonSSMManagedInstanceCore so nodes are reachable with Session Manager. Defaults to `true`. */
    ssm: z.boolean().default(true),
    /** Extra AWS tags on the group, its instances and volumes. Defaults to `{}`. */
    tags: awsTags.default({}),
};

/** An EKS managed node group (`aws.eks.NodeGroup`): EKS picks the AMI and drains nodes on updates. */
export const managedNodeGroupSchema = z.strictObject({
    kind: z.literal("managed"),
    ...commonFields,
    /** EKS AMI type; an NVIDIA type makes this a GPU group. Defaults to `AL2023_x86_64_STANDARD`. */
    amiType: z.enum(MANAGED_AMI_TYPES).default("AL2023_x86_64_STANDARD"),
    /** Pinned AMI release version, e.g. `1.34.7-20260512`; its minor is the kubelet version. */
    releaseVersion,
    /** Most nodes replaced at once during an update, as a percentage of the group. Defaults to `33`. */
    maxUnavailablePercentage: z.number().int().min(1).max(100).default(33),
});

/** A self-managed node group: launch template + Auto Scaling group + Node Termination Handler. */
export const selfManagedNodeGroupSchema = z.strictObject({
    kind: z.literal("selfManaged"),
    ...commonFields,
    /** Bootstrap format of the AMI: `AL2023` (nodeadm) or `AL2` (bootstrap.sh). Defaults to `AL2023`. */
    amiFamily: z.enum(["AL2023", "AL2"]).default("AL2023"),
    /** CPU architecture of the EKS-optimized AMI looked up by `releaseVersion`. Defaults to `x86_64`. */
    architecture: z.enum(["x86_64", "arm64"]).default("x86_64"),
    /** A custom AMI id (e.g. a hardened golden image). Exactly one of `amiId` and `releaseVersion`. */
    amiId: z
        .string()
        .regex(/^ami-([0-9a-f]{8}|[0-9a-f]{17})$/, { message: "must be an AMI id such as ami-0123456789abcdef0" })
        .optional(),
    /** EKS-optimized AMI release, read from its pinned SSM parameter. Exactly one of `amiId` and `releaseVersion`. */
    releaseVersion: releaseVersion.optional(),
    /** kubelet `maxPods` (nodeadm) or `--max-pods` (AL2); unset lets the AMI compute it from ENI limits. */
    maxPods: z.number().int().min(1).max(737).optional(),
    /** Extra kubelet flags such as `--image-gc-high-threshold=85`. Defaults to `[]`. */
    kubeletFlags: z
        .array(
            z.string().regex(/^--[a-z0-9][a-z0-9-]*(=[^\s'"]+)?$/, {
                message: "must be one kubelet flag such as --image-gc-high-threshold=85 (no spaces or quotes)",
            }),
        )
        .default([]),
    /** Instances that must stay in service during an instance refresh, in percent. Defaults to `90`. */
    minHealthyPercentage: z.number().int().min(0).max(100).default(90),
});

const nodeGroupSchema = z.discriminatedUnion("kind", [managedNodeGroupSchema, selfManagedNodeGroupSchema]).superRefine((g, ctx) => {
    if (g.minSize > g.desiredSize) {
        ctx.addIssue({ code: "custom", path: ["minSize"], message: `${g.minSize} exceeds desiredSize ${g.desiredSize}` });
    }
    if (g.desiredSize > g.maxSize) {
        ctx.addIssue({ code: "custom", path: ["desiredSize"], message: `${g.desiredSize} exceeds maxSize ${g.maxSize}` });
    }
    const seen = new Set<string>();
    g.taints.forEach((t, i) => {
        const id = `${t.key}:${t.effect}`;
        if (seen.has(id)) {
            ctx.addIssue({ code: "custom", path: ["taints", i], message: `repeats the taint ${id}` });
        }
        seen.add(id);
    });
    // The AMI's architecture: managed groups spell it in the AMI type; a self-managed group's
    // pinned EKS AMI follows `architecture` (a custom amiId's is unknown here).
    const amiArchitecture =
        g.kind === "managed" ? amiTypeArchitecture(g.amiType) : g.releaseVersion !== undefined ? g.architecture : undefined;
    g.instanceTypes.forEach((t, i) => {
        const info = instanceTypeInfo(t);
        if (info === undefined) {
            ctx.addIssue({
                code: "custom",
                path: ["instanceTypes", i],
                message: `${t} is not an EC2 instance type: the launch would fail at pulumi up (check the size, e.g. m5.large, m5.xlarge)`,
            });
        } else if (amiArchitecture !== undefined && info.architecture !== amiArchitecture) {
            const ami = g.kind === "managed" ? `amiType ${g.amiType}` : `architecture ${amiArchitecture}`;
            ctx.addIssue({
                code: "custom",
                path: ["instanceTypes", i],
                message: `${t} is ${info.architecture} but ${ami} is ${amiArchitecture}: EKS refuses the group (or its nodes never boot); pick ${amiArchitecture} types or the ${info.architecture} AMI`,
            });
        }
    });
    for (const key of Object.keys(g.labels)) {
        if (kubeletRefusesLabel(key)) {
            ctx.addIssue({
                code: "custom",
                path: ["labels", key],
                message:
                    "is in a kubernetes.io/k8s.io domain kubelet may not set on its own node: kubelet refuses to start and the nodes never join; use your own domain (e.g. platform/…) or node.kubernetes.io/…",
            });
        }
    }
    const release = g.releaseVersion === undefined ? undefined : parseReleaseVersion(g.releaseVersion);
    const al2 = g.kind === "managed" ? g.amiType.startsWith("AL2_") : g.amiFamily === "AL2";
    if (al2 && release && kubernetesMinor(release.minor) >= FIRST_MINOR_WITHOUT_AL2) {
        ctx.addIssue({
            code: "custom",
            path: [g.kind === "managed" ? "amiType" : "amiFamily"],
            message: `EKS publishes no Amazon Linux 2 AMIs for Kubernetes ${release.minor} (none from 1.${FIRST_MINOR_WITHOUT_AL2}); use AL2023`,
        });
    }
    if (g.kind === "managed" && GPU_AMI_TYPES.includes(g.amiType)) {
        g.instanceTypes.forEach((t, i) => {
            if (!/^(g|p)\d/.test(t)) {
                ctx.addIssue({
                    code: "custom",
                    path: ["instanceTypes", i],
                    message: `${t} has no NVIDIA GPU but amiType is ${g.amiType}`,
                });
            }
        });
    }
    if (g.kind === "selfManaged" && (g.amiId === undefined) === (g.releaseVersion === undefined)) {
        ctx.addIssue({
            code: "custom",
            path: ["amiId"],
            message: "set exactly one of amiId (a custom AMI) and releaseVersion (the pinned EKS-optimized AMI)",
        });
    }
    if (g.kind === "selfManaged" && g.capacityType === "SPOT" && g.instanceTypes.length < 2) {
        ctx.addIssue({
            code: "custom",
            path: ["instanceTypes"],
            message: "a Spot group needs at least 2 instance types to survive a capacity shortage",
        });
    }
});

export type NodeGroupConfig = z.output<typeof nodeGroupSchema>;
export type ManagedNodeGroupConfig = z.output<typeof managedNodeGroupSchema>;
export type SelfManagedNodeGroupConfig = z.output<typeof selfManagedNodeGroupSchema>;

/** `nodeGroups` in stack config: a map keyed by node group name. */
export const nodeGroupsSchema = z.record(dnsLabel, nodeGroupSchema);

export type NodeGroupsConfig = z.output<typeof nodeGroupsSchema>;

/**
 * Checks node groups against the cluster they join: things the node group section alone cannot
 * know. Returns `[path, message]` pairs relative to `nodeGroups`. Pure.
 */
export function nodeGroupClusterProblems(groups: NodeGroupsConfig, cluster: { name: string; version: string }): [string[], string][] {
    const problems: [string[], string][] = [];
    const clusterMinor = kubernetesMinor(cluster.version);
    // One minor at a time: nodes are never newer than the control plane, so a control plane at
    // most one minor above the newest pinned node group is at most one minor above where it was.
    const pinned = Object.entries(groups)
        .filter(([, g]) => g.enabled && g.releaseVersion !== undefined)
        .map(([name, g]) => [name, kubernetesMinor(parseReleaseVersion(g.releaseVersion as string)?.minor ?? "")] as const)
        .filter(([, minor]) => !Number.isNaN(minor));
    const newest = Math.max(...pinned.map(([, minor]) => minor));
    if (pinned.length > 0 && clusterMinor > newest + 1) {
        problems.push([
            [pinned.find(([, minor]) => minor === newest)![0], "releaseVersion"],
            `the newest node group runs 1.${newest} but cluster.version is ${cluster.version}: EKS upgrades the control plane one minor at a time; go to 1.${newest + 1}, move the node groups to it, then continue (docs/changes.md#kubernetes-upgrades)`,
        ]);
    }
    const firstSelfManaged = Object.entries(groups).find(([, g]) => g.enabled && g.kind === "selfManaged")?.[0];
    const nthRule = longestNthRuleName(cluster.name);
    if (firstSelfManaged !== undefined && nthRule.length > 64) {
        problems.push([
            [firstSelfManaged],
            `needs the Node Termination Handler, whose EventBridge rule ${nthRule} exceeds EventBridge's 64 characters; shorten the cluster name to at most ${64 - (nthRule.length - cluster.name.length)} characters`,
        ]);
    }
    for (const [name, g] of Object.entries(groups)) {
        const roleName = nodeRoleName(cluster.name, name);
        if (roleName.length > 64) {
            problems.push([[name], `node role name ${roleName} exceeds IAM's 64 characters; shorten the group or cluster name`]);
        }
        if (g.releaseVersion !== undefined) {
            const release = parseReleaseVersion(g.releaseVersion);
            const nodeMinor = release ? kubernetesMinor(release.minor) : NaN;
            // kubelet may be up to three minors older than the API server, never newer.
            if (nodeMinor > clusterMinor || nodeMinor < clusterMinor - 3) {
                problems.push([
                    [name, "releaseVersion"],
                    `kubelet ${release?.minor ?? "?"} cannot join a ${cluster.version} control plane (allowed: 1.${clusterMinor - 3} to ${cluster.version})`,
                ]);
            }
        }
        const al2 = g.kind === "managed" ? g.amiType.startsWith("AL2_") : g.amiFamily === "AL2";
        if (al2 && clusterMinor >= FIRST_MINOR_WITHOUT_AL2) {
            problems.push([
                [name, g.kind === "managed" ? "amiType" : "amiFamily"],
                `Amazon Linux 2 nodes are not supported on Kubernetes ${cluster.version}; use AL2023`,
            ]);
        }
    }
    return problems;
}
