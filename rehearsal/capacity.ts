/**
 * The platform's node capacity as plain data, read by the rehearsal's own reader (`readCluster`),
 * so what a platform profile publishes about nodes is exactly what the rehearsal would simulate:
 * each managed group, self-managed group and NodePool with its instance types and their
 * allocatable resources, labels, taints, zones, size or limits, capacity type, rollout settings
 * and drain window.
 */
import type { Taint } from "eks-platform-kernel";
import { Verdicts } from "eks-platform-evaluation";
import type { Capacity, DrainResource, GroupModel, ManagedGroupModel, NodeTemplate, SelfManagedGroupModel } from "./model";
import { readCluster } from "./read";

/** One instance type as nodes of a group get it. */
export interface InstanceTypeCapacity {
    name: string;
    /** What pods can request on such a node (CPU in millicores, memory in MiB, pod slots, extended resources); absent when the instance data does not size it. */
    allocatable?: Capacity;
}

/** A node group or NodePool as a platform profile publishes it. */
export interface GroupCapacity {
    name: string;
    kind: "managed" | "selfManaged" | "nodePool";
    capacityType: "spot" | "on-demand" | "spot or on-demand";
    instanceTypes: InstanceTypeCapacity[];
    labels: Record<string, string>;
    taints: Taint[];
    /** Zones its nodes run in: a count for node groups (their subnets), names for a NodePool that restricts them. */
    zones: number | string[] | "every zone of the cluster";
    /** Node groups: the desired size the rehearsal meets them at. */
    desired?: number;
    /** NodePools: `spec.limits` (CPU millicores, memory MiB, extended resources). */
    limits?: Record<string, number>;
    /** How the platform rolls it (surge and maxUnavailable, instance refresh, drift budgets). */
    rollout: Record<string, unknown>;
    /** The time a node has to drain, when one applies (lifecycle-hook heartbeat, terminationGracePeriod). */
    drainWindowSeconds?: number;
    /** What the rehearsal could not read of it. */
    undecided: string[];
}

function typesOf(template: NodeTemplate | undefined): InstanceTypeCapacity[] {
    return template ? [{ name: template.instanceType, ...(template.allocatable ? { allocatable: template.allocatable } : {}) }] : [];
}

/** What a managed and a self-managed group publish alike: one node template, a size, its subnets' zones. */
function nodeGroup(g: ManagedGroupModel | SelfManagedGroupModel) {
    return {
        name: g.name,
        undecided: g.undecided,
        kind: g.kind,
        capacityType: g.spot ? ("spot" as const) : ("on-demand" as const),
        instanceTypes: typesOf(g.template),
        labels: g.template?.labels ?? {},
        taints: g.template?.taints ?? [],
        zones: g.zones,
        desired: g.desired,
    };
}

function describe(g: GroupModel): GroupCapacity {
    switch (g.kind) {
        case "managed":
            return {
                ...nodeGroup(g),
                rollout: { maxUnavailable: g.maxUnavailable, maxUnavailableSource: g.maxUnavailableSource, minimal: g.minimal },
            };
        case "selfManaged":
            return {
                ...nodeGroup(g),
                rollout: {
                    minHealthyPercentage: g.minHealthyPercentage,
                    maxHealthyPercentage: g.maxHealthyPercentage,
                    warmupSeconds: g.warmupSeconds,
                    ...(g.hook ? { lifecycleHook: g.hook.name } : {}),
                },
                ...(g.hook ? { drainWindowSeconds: g.hook.heartbeatSeconds } : {}),
            };
        case "nodePool": {
            const limits: Record<string, number> = { ...(g.limits.extended ?? {}) };
            if (g.limits.cpuMillis !== undefined) {
                limits.cpuMillis = g.limits.cpuMillis;
            }
            if (g.limits.memoryMiB !== undefined) {
                limits.memoryMiB = g.limits.memoryMiB;
            }
            return {
                name: g.name,
                undecided: g.undecided,
                kind: "nodePool",
                capacityType: g.capacityTypes.length > 1 ? "spot or on-demand" : g.capacityTypes[0] === "spot" ? "spot" : "on-demand",
                instanceTypes: g.candidates.map((c) => ({ name: c.instanceType, allocatable: c.allocatable })),
                labels: g.labels,
                taints: g.taints,
                zones: g.zones ? [...g.zones] : "every zone of the cluster",
                limits,
                rollout: {
                    weight: g.weight,
                    budgets: g.budgets.map((b) => ({
                        // As the NodePool spells it (karpenter.sh/v1 Budget.Nodes: "10%" or "3"), not quoted for a message.
                        nodes: b.nodes.kind === "percent" ? `${b.nodes.value}%` : String(b.nodes.value),
                        ...(b.reasons ? { reasons: b.reasons } : {}),
                        ...(b.schedule ? { schedule: b.schedule, duration: b.duration } : {}),
                    })),
                    doNotDisruptNodes: g.doNotDisruptNodes,
                },
                ...(g.terminationGraceSeconds !== undefined ? { drainWindowSeconds: g.terminationGraceSeconds } : {}),
            };
        }
    }
}

/** The zones of the cluster and every group and pool, as the rehearsal reads them. */
export function describeCapacity(resources: readonly DrainResource[]): { zones: string[]; groups: GroupCapacity[] } {
    const model = readCluster(resources, new Verdicts());
    return { zones: model.zones, groups: model.groups.map(describe) };
}
