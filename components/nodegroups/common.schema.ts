/**
 * What every node-group kind shares at the config level: the config fields and the checks on them,
 * written once, the EKS AMI facts they check against, the static node role name, and the shape of
 * a kind's config half (`NodeGroupKindSchema`). A kind's schema module (e.g. `managed.schema.ts`)
 * spreads `commonFields` next to its own `kind` literal; `schema.ts` (the `nodeGroups` section)
 * runs these checks, then the kind's own. Built from the leaf schema blocks of
 * components/schema.ts, never from a config section, so the section can import the kinds without
 * a cycle. Pure.
 */
import { instanceTypeInfo, kubernetesMinor, parseReleaseVersion, type Taint } from "eks-platform-kernel";
import { z } from "zod";
import { awsTags, hopLimit, isLabelKey, isLabelValue, kubeletRefusesLabel, labels } from "../schema";

/** Kubernetes minor versions from which EKS publishes no Amazon Linux 2 AMIs. */
export const FIRST_MINOR_WITHOUT_AL2 = 33;

/** AMI types of an EKS managed node group this platform supports. */
export const MANAGED_AMI_TYPES = [
    "AL2023_x86_64_STANDARD",
    "AL2023_ARM_64_STANDARD",
    "AL2023_x86_64_NVIDIA",
    "AL2_x86_64",
    "AL2_x86_64_GPU",
    "AL2_ARM_64",
] as const;

/** AMI types carrying the NVIDIA driver: their groups get the GPU label, taint and device plugin. */
export const GPU_AMI_TYPES: readonly string[] = ["AL2023_x86_64_NVIDIA", "AL2_x86_64_GPU"];

/** The static node role name `<cluster>-<group>-node` (policies and Karpenter link through names). Pure. */
export function nodeRoleName(clusterName: string, group: string): string {
    return `${clusterName}-${group}-node`;
}

/**
 * An EKS AMI release version as `aws eks describe-nodegroup` and the AMI changelog print it,
 * e.g. `1.34.7-20260512`. Pinned: "latest" would replace every node at a preview with no code change.
 */
export const releaseVersion = z.string().refine((v) => parseReleaseVersion(v) !== undefined, {
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
export const commonFields = {
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

/**
 * A validated group as the shared checks read it: the common fields, the kind, and the pinned EKS
 * AMI release when the kind has one (its minor is the kubelet's).
 */
export type CommonNodeGroupConfig = z.output<z.ZodObject<typeof commonFields>> & { kind: string; releaseVersion?: string };

/** A problem of one group: the path below its key in `nodeGroups`, and the message. */
export type GroupProblem = [path: (string | number)[], message: string];

/** What a kind says of a group's AMI, for the shared checks. */
export interface AmiFacts {
    /** The AMI's CPU architecture; undefined when config cannot tell (a custom AMI). */
    architecture?: "x86_64" | "arm64";
    /** How a message names the setting that decides it: `amiType AL2023_ARM_64_STANDARD`, `architecture arm64`. */
    setBy: string;
    /** The key that makes the group's AMI Amazon Linux 2, when it is (`amiType`, `amiFamily`). */
    al2Key?: string;
}

/** The checks every group gets, whatever its kind, in the order their messages are listed. Pure. */
export function commonGroupProblems(g: CommonNodeGroupConfig, ami: AmiFacts): GroupProblem[] {
    const problems: GroupProblem[] = [];
    if (g.minSize > g.desiredSize) {
        problems.push([["minSize"], `${g.minSize} exceeds desiredSize ${g.desiredSize}`]);
    }
    if (g.desiredSize > g.maxSize) {
        problems.push([["desiredSize"], `${g.desiredSize} exceeds maxSize ${g.maxSize}`]);
    }
    const seen = new Set<string>();
    g.taints.forEach((t, i) => {
        const id = `${t.key}:${t.effect}`;
        if (seen.has(id)) {
            problems.push([["taints", i], `repeats the taint ${id}`]);
        }
        seen.add(id);
    });
    g.instanceTypes.forEach((t, i) => {
        const info = instanceTypeInfo(t);
        if (info === undefined) {
            problems.push([
                ["instanceTypes", i],
                `${t} is not an EC2 instance type: the launch would fail at pulumi up (check the size, e.g. m5.large, m5.xlarge)`,
            ]);
        } else if (ami.architecture !== undefined && info.architecture !== ami.architecture) {
            problems.push([
                ["instanceTypes", i],
                `${t} is ${info.architecture} but ${ami.setBy} is ${ami.architecture}: EKS refuses the group (or its nodes never boot); pick ${ami.architecture} types or the ${info.architecture} AMI`,
            ]);
        }
    });
    for (const key of Object.keys(g.labels)) {
        if (kubeletRefusesLabel(key)) {
            problems.push([
                ["labels", key],
                "is in a kubernetes.io/k8s.io domain kubelet may not set on its own node: kubelet refuses to start and the nodes never join; use your own domain (e.g. platform/…) or node.kubernetes.io/…",
            ]);
        }
    }
    const release = g.releaseVersion === undefined ? undefined : parseReleaseVersion(g.releaseVersion);
    if (ami.al2Key !== undefined && release && kubernetesMinor(release.minor) >= FIRST_MINOR_WITHOUT_AL2) {
        problems.push([
            [ami.al2Key],
            `EKS publishes no Amazon Linux 2 AMIs for Kubernetes ${release.minor} (none from 1.${FIRST_MINOR_WITHOUT_AL2}); use AL2023`,
        ]);
    }
    return problems;
}

/**
 * The checks of one group against the cluster it joins, whatever its kind: its static role name,
 * the kubelet's version skew, Amazon Linux 2 on a cluster that has none. Paths start at the
 * group's key. Pure.
 */
export function commonClusterProblems(
    name: string,
    g: CommonNodeGroupConfig,
    ami: AmiFacts,
    cluster: { name: string; version: string },
): GroupProblem[] {
    const problems: GroupProblem[] = [];
    const clusterMinor = kubernetesMinor(cluster.version);
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
    if (ami.al2Key !== undefined && clusterMinor >= FIRST_MINOR_WITHOUT_AL2) {
        problems.push([[name, ami.al2Key], `Amazon Linux 2 nodes are not supported on Kubernetes ${cluster.version}; use AL2023`]);
    }
    return problems;
}

/**
 * A node-group kind as the stack config knows it: its config, its checks and what decides how its
 * nodes drain. Its module beside (`managed.ts`) adds the builder and the facts the tools need
 * (`NodeGroupKind`, kind.ts); `NODE_GROUP_KIND_SCHEMAS` (schema.ts) registers it.
 */
export interface NodeGroupKindSchema<
    S extends z.ZodObject = z.ZodObject,
    C extends CommonNodeGroupConfig = z.output<S> & CommonNodeGroupConfig,
> {
    /** The `kind` value in config. */
    kind: string;
    /** Its config: a `z.strictObject` of `kind: z.literal(<kind>)`, `...commonFields` and its own fields. */
    schema: S;
    /** The smallest valid config of the kind (the registry test renders it). */
    example: z.input<S>;
    /** Its AMI as the shared checks see it. */
    ami(config: C): AmiFacts;
    /** Its own checks, run after the shared ones (`commonGroupProblems`). */
    problems(config: C): GroupProblem[];
    /**
     * The public SSM parameter of the EKS-optimized AMI release a group pins (`amiSsmParameter`,
     * `amiTypeReleaseParameter`), which `npm run preflight` asks SSM for; `undefined` where no
     * parameter layout is known for its AMI (the check then says it cannot decide). Asked only of
     * groups that pin a release.
     */
    releaseParameter(config: C & { releaseVersion: string }): string | undefined;
    /** Its nodes are drained by the Node Termination Handler (created before the groups that need it). */
    needsTerminationHandler: boolean;
}

/**
 * The public SSM parameter holding the EKS-optimized AMI of one pinned release (never
 * `recommended`, which moves with every AMI release and would replace all nodes at a preview). Pure.
 */
export function amiSsmParameter(family: "AL2023" | "AL2", architecture: "x86_64" | "arm64", releaseVersion: string): string {
    const release = parseReleaseVersion(releaseVersion);
    if (!release) {
        throw new Error(`${releaseVersion} is not an EKS AMI release version`);
    }
    const { minor, date } = release;
    if (family === "AL2023") {
        return `/aws/service/eks/optimized-ami/${minor}/amazon-linux-2023/${architecture}/standard/amazon-eks-node-al2023-${architecture}-standard-${minor}-v${date}/image_id`;
    }
    return architecture === "x86_64"
        ? `/aws/service/eks/optimized-ami/${minor}/amazon-linux-2/amazon-eks-node-${minor}-v${date}/image_id`
        : `/aws/service/eks/optimized-ami/${minor}/amazon-linux-2-arm64/amazon-eks-arm64-node-${minor}-v${date}/image_id`;
}

/**
 * The SSM parameter of an EKS-optimized AMI release for a managed group's `amiType` (the EKS AMI
 * repository's parameter layout), `undefined` for types the layout does not cover here. Pure.
 */
export function amiTypeReleaseParameter(amiType: string, releaseVersion: string): string | undefined {
    const release = parseReleaseVersion(releaseVersion);
    if (!release) {
        return undefined;
    }
    const al2023 = /^AL2023_(x86_64|ARM_64)_(STANDARD|NVIDIA|NEURON)$/.exec(amiType);
    if (al2023) {
        const arch = al2023[1] === "ARM_64" ? "arm64" : "x86_64";
        const variant = al2023[2].toLowerCase();
        return `/aws/service/eks/optimized-ami/${release.minor}/amazon-linux-2023/${arch}/${variant}/amazon-eks-node-al2023-${arch}-${variant}-${release.minor}-v${release.date}/image_id`;
    }
    if (amiType === "AL2_x86_64" || amiType === "AL2_ARM_64") {
        return amiSsmParameter("AL2", amiType === "AL2_ARM_64" ? "arm64" : "x86_64", releaseVersion);
    }
    return undefined;
}
