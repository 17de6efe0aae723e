/**
 * The `managed` node-group kind's config: its schema, its own checks and what the shared checks
 * need of its AMI. Its component and the facts the tools need are in `managed.ts`; an NVIDIA
 * `amiType` makes it a GPU group (`isGpuGroup`, schema.ts), still this kind.
 */
import { amiTypeArchitecture } from "eks-platform-kernel";
import { z } from "zod";
import {
    amiTypeReleaseParameter,
    commonFields,
    GPU_AMI_TYPES,
    GroupProblem,
    MANAGED_AMI_TYPES,
    type NodeGroupKindSchema,
    releaseVersion,
} from "./common.schema";

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
    /**
     * EKS node auto repair (`nodeRepairConfig`): EKS replaces a node it finds unhealthy (its node
     * conditions, and the EKS node monitoring agent's reports where that add-on runs) instead of
     * leaving it in the group. Defaults to `true`; the drain rehearsal does not model repairs
     * (docs/nodegroups.md#how-an-upgrade-rolls).
     */
    autoRepair: z.boolean().default(true),
});

export type ManagedNodeGroupConfig = z.output<typeof managedNodeGroupSchema>;

/** `instanceTypes` that carry no NVIDIA GPU, in a group whose AMI type is a GPU one. Pure. */
function gpuProblems(g: ManagedNodeGroupConfig): GroupProblem[] {
    if (!GPU_AMI_TYPES.includes(g.amiType)) {
        return [];
    }
    return g.instanceTypes.flatMap((t, i): GroupProblem[] =>
        /^(g|p)\d/.test(t) ? [] : [[["instanceTypes", i], `${t} has no NVIDIA GPU but amiType is ${g.amiType}`]],
    );
}

export const managedKindSchema: NodeGroupKindSchema<typeof managedNodeGroupSchema> = {
    kind: "managed",
    schema: managedNodeGroupSchema,
    example: { kind: "managed", instanceTypes: ["m6i.large"], minSize: 1, desiredSize: 1, maxSize: 2, releaseVersion: "1.34.7-20260512" },
    ami: (g) => ({
        architecture: amiTypeArchitecture(g.amiType),
        setBy: `amiType ${g.amiType}`,
        ...(g.amiType.startsWith("AL2_") ? { al2Key: "amiType" } : {}),
    }),
    problems: gpuProblems,
    releaseParameter: (g) => amiTypeReleaseParameter(g.amiType, g.releaseVersion),
    // EKS cordons and drains a managed group's nodes itself.
    needsTerminationHandler: false,
};
