/**
 * The `selfManaged` node-group kind's config: its schema, its own checks and what the shared
 * checks need of its AMI. Its component (launch template, Auto Scaling group, the Node
 * Termination Handler's hook) and the facts the tools need are in `selfManaged.ts`.
 */
import { z } from "zod";
import { amiSsmParameter, commonFields, GroupProblem, type NodeGroupKindSchema, releaseVersion } from "./common.schema";

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

export type SelfManagedNodeGroupConfig = z.output<typeof selfManagedNodeGroupSchema>;

/** Exactly one AMI source, and enough instance types for Spot. Pure. */
function selfManagedProblems(g: SelfManagedNodeGroupConfig): GroupProblem[] {
    const problems: GroupProblem[] = [];
    if ((g.amiId === undefined) === (g.releaseVersion === undefined)) {
        problems.push([["amiId"], "set exactly one of amiId (a custom AMI) and releaseVersion (the pinned EKS-optimized AMI)"]);
    }
    if (g.capacityType === "SPOT" && g.instanceTypes.length < 2) {
        problems.push([["instanceTypes"], "a Spot group needs at least 2 instance types to survive a capacity shortage"]);
    }
    return problems;
}

export const selfManagedKindSchema: NodeGroupKindSchema<typeof selfManagedNodeGroupSchema> = {
    kind: "selfManaged",
    schema: selfManagedNodeGroupSchema,
    example: {
        kind: "selfManaged",
        instanceTypes: ["m6i.large"],
        minSize: 1,
        desiredSize: 1,
        maxSize: 2,
        releaseVersion: "1.34.7-20260512",
    },
    // The pinned EKS AMI follows `architecture`; a custom amiId's is unknown here.
    ami: (g) => ({
        ...(g.releaseVersion !== undefined ? { architecture: g.architecture } : {}),
        setBy: `architecture ${g.architecture}`,
        ...(g.amiFamily === "AL2" ? { al2Key: "amiFamily" } : {}),
    }),
    problems: selfManagedProblems,
    releaseParameter: (g) => amiSsmParameter(g.amiFamily, g.architecture, g.releaseVersion),
    // EKS does not drain an ASG's nodes: NTH does, inside the lifecycle hook's heartbeat.
    needsTerminationHandler: true,
};
