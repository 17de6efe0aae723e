/**
 * Karpenter's answer to pods that fit no node (docs/drain.md, "Placement"): a NodeClaim from the
 * heaviest NodePool that suits the pod, in a zone its rules allow, within the pool's limits;
 * pods packed onto a claim while an instance type it allows holds them all; the claim launched
 * as the smallest such type.
 */
import { CAPACITY_TYPE_LABEL, formatTaint, placementMismatch, untoleratedTaint } from "eks-platform-kernel";

import { addReason, Cluster, Reasons, SimNode, SimPod, WorkloadState } from "./cluster";
import { ZONE } from "./model";
import type { NodePoolModel, PodShape, Requests } from "./model";
import { podZones } from "./scheduler";
import { NODE_READY_SECONDS } from "./timing";

/**
 * Karpenter's answer to a pod that fits no node: a NodeClaim from the heaviest NodePool whose
 * taints the pod tolerates, whose labels and instance types suit it, in a zone its rules
 * allow, within the pool's limits. Returns the new (still packable) NodeClaim or the reasons.
 */
export function provision(cluster: Cluster, pod: SimPod, now: number): { node?: SimNode; reasons: Reasons } {
    const reasons: Reasons = new Map();
    const w = pod.workload;
    const shape = w.model.pod;
    // Heavier first; of equal weight, the name later in the alphabet first (karpenter v1.14.1
    // pkg/utils/nodepool/nodepool.go OrderByWeight).
    const pools = [...cluster.pools].sort((a, b) => b.weight - a.weight || (a.name > b.name ? -1 : 1));
    for (const pool of pools) {
        const taint = untoleratedTaint(shape.tolerations, pool.taints);
        if (taint) {
            addReason(reasons, `NodePool ${pool.name}: untolerated taint ${formatTaint(taint)}`);
            continue;
        }
        const remaining = remainingLimits(cluster, pool);
        let lastReason = "no instance type its requirements allow";
        for (const capacityType of pool.capacityTypes) {
            const inPool = zoneOrder(cluster, pod).filter((z) => pool.zones === undefined || pool.zones.includes(z));
            // A new node is a fresh hostname domain, but its zone already holds pods: zone rules
            // still apply (Karpenter's scheduler: topology.go, preferences counted as requirements).
            const zones = inPool.filter((z) => zoneRuleProblem(cluster, w, z) === undefined);
            if (inPool.length > 0 && zones.length === 0) {
                lastReason = `${zoneRuleProblem(cluster, w, inPool[0]) ?? ""} in every zone it may launch in`;
            } else if (zones.length === 0) {
                lastReason =
                    pool.zones?.length === 0
                        ? "its zone requirement allows none of the cluster's zones"
                        : `its zone requirement allows only ${(pool.zones ?? []).join(", ")}, not the pod's volume zone ${pod.zone ?? ""}`;
            }
            for (const zone of zones) {
                const labels = { ...pool.labels, [CAPACITY_TYPE_LABEL]: capacityType, [ZONE]: zone };
                // Karpenter's scheduler drops an instance type whose capacity exceeds what the
                // pool's limits leave (karpenter v1.14.1 provisioning/scheduling/scheduler.go
                // `filterByRemainingResources`), extended resources included.
                const options = pool.candidates.filter(
                    (c) =>
                        placementMismatch(shape.placement, { ...labels, ...c.labels }) === undefined &&
                        (remaining.cpuMillis === undefined || c.capacity.cpuMillis <= remaining.cpuMillis) &&
                        (remaining.memoryMiB === undefined || c.capacity.memoryMiB <= remaining.memoryMiB) &&
                        Object.entries(remaining.extended).every(([name, left]) => (c.capacity.extended?.[name] ?? 0) <= left),
                );
                const suited = pool.candidates.some((c) => placementMismatch(shape.placement, { ...labels, ...c.labels }) === undefined);
                if (!suited) {
                    lastReason = "its labels and instance types do not match the pod's node selector/affinity";
                    continue;
                }
                if (options.length === 0) {
                    lastReason = `at its limits (${formatLimits(pool)})`;
                    continue;
                }
                const node = cluster.addNode(
                    pool,
                    zone,
                    { instanceType: "(NodeClaim)", allocatable: undefined, capacity: undefined, labels },
                    "new",
                    now + NODE_READY_SECONDS,
                    options,
                );
                const holds = options.filter((o) => cluster.optionHolds(node, o, shape));
                if (holds.length === 0) {
                    cluster.discardClaim(node);
                    lastReason = `no instance type it allows fits the pod's requests (${formatRequests(shape.requests)})`;
                    continue;
                }
                node.options = holds;
                return { node, reasons };
            }
        }
        if (pool.zones !== undefined && lastReason.startsWith("its labels") && suitsElsewhere(cluster, pool, shape)) {
            lastReason = `its zone requirement allows only ${pool.zones.join(", ") || "no zone of the cluster"}, and the pod's node selector/affinity wants another zone`;
        }
        addReason(reasons, `NodePool ${pool.name}: ${lastReason}`);
    }
    return { reasons };
}

/** The zone rule (spread, anti-affinity) a new node in `zone` would break for the workload's next pod. */
function zoneRuleProblem(cluster: Cluster, w: WorkloadState, zone: string): string | undefined {
    const rules = w.model.pod.topology.filter((t) => t.topologyKey === ZONE);
    if (rules.length === 0) {
        return undefined;
    }
    const count = w.perZone.get(zone) ?? 0;
    const minZone = Math.min(...podZones(cluster, w.model.pod).map((z) => w.perZone.get(z) ?? 0));
    for (const rule of rules) {
        if (rule.kind === "antiAffinity" ? count > 0 : count + 1 - minZone > rule.maxSkew) {
            return rule.kind === "antiAffinity" ? `pod anti-affinity (${ZONE})` : `topology spread (${ZONE}, maxSkew ${rule.maxSkew})`;
        }
    }
    return undefined;
}

/** Whether some instance type of the pool would suit the pod in a zone outside the pool's zones. */
function suitsElsewhere(cluster: Cluster, pool: NodePoolModel, shape: PodShape): boolean {
    return cluster.zones
        .filter((z) => !(pool.zones ?? []).includes(z))
        .some((zone) =>
            pool.candidates.some((c) => placementMismatch(shape.placement, { ...pool.labels, ...c.labels, [ZONE]: zone }) === undefined),
        );
}

/** Zones to try for a new node: the pod's volume zone, else the zone with the fewest of its pods. */
function zoneOrder(cluster: Cluster, pod: SimPod): string[] {
    if (pod.zone) {
        return [pod.zone];
    }
    const w = pod.workload;
    return [...cluster.zones].sort((a, b) => (w.perZone.get(a) ?? 0) - (w.perZone.get(b) ?? 0) || (a < b ? -1 : 1));
}

/** What a pool may still launch: its limits minus every node it has (largest option for NodeClaims). */
function remainingLimits(
    cluster: Cluster,
    pool: NodePoolModel,
): { cpuMillis?: number; memoryMiB?: number; extended: Record<string, number> } {
    let cpu = 0;
    let memory = 0;
    const extended: Record<string, number> = { ...pool.limits.extended };
    for (const n of cluster.nodes) {
        if (n.group === pool) {
            const size = n.options ? n.options[n.options.length - 1].capacity : n.capacity;
            cpu += size?.cpuMillis ?? 0;
            memory += size?.memoryMiB ?? 0;
            for (const name of Object.keys(extended)) {
                extended[name] -= size?.extended?.[name] ?? 0;
            }
        }
    }
    return {
        ...(pool.limits.cpuMillis !== undefined ? { cpuMillis: pool.limits.cpuMillis - cpu } : {}),
        ...(pool.limits.memoryMiB !== undefined ? { memoryMiB: pool.limits.memoryMiB - memory } : {}),
        extended,
    };
}

/** Launches packed NodeClaims as the cheapest (smallest) instance type that holds their pods. */
export function finalizeClaims(cluster: Cluster): void {
    for (const node of cluster.nodes) {
        if (!node.options) {
            continue;
        }
        const chosen = node.options[0];
        delete node.options;
        delete node.optionViews;
        delete node.classKey;
        node.instanceType = chosen.instanceType;
        node.allocatable = chosen.allocatable;
        node.capacity = chosen.capacity;
        node.labels = { ...node.labels, ...chosen.labels };
        cluster.addDaemonSets(node);
    }
}

export function formatRequests(r: Requests): string {
    const extended = Object.entries(r.extended ?? {}).map(([name, value]) => `, ${name} ${value}`);
    return `cpu ${Math.round(r.cpuMillis)}m, memory ${Math.round(r.memoryMiB)}Mi${extended.join("")}`;
}

function formatLimits(pool: NodePoolModel): string {
    const parts = [];
    if (pool.limits.cpuMillis !== undefined) {
        parts.push(`cpu ${pool.limits.cpuMillis / 1000}`);
    }
    if (pool.limits.memoryMiB !== undefined) {
        parts.push(`memory ${Math.round(pool.limits.memoryMiB / 1024)}Gi`);
    }
    for (const [name, value] of Object.entries(pool.limits.extended ?? {})) {
        parts.push(`${name} ${value}`);
    }
    return parts.join(", ");
}
