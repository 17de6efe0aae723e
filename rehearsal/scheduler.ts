/**
 * kube-scheduler's choice of a node for a pod among the nodes there are, the way it plausibly
 * would (documented in docs/drain.md, "Placement"): a node qualifies when it is not cordoned, its
 * taints are tolerated, the pod's node selector and required node affinity match, a zonal volume
 * is in its zone, requests fit what is left of its allocatable CPU, memory and pod slots, and the
 * pod's hard topology rules (spread, anti-affinity) hold. Among those it takes the node with the
 * fewest pods of the same workload, then the fewest in its zone, then the least allocated, then
 * the oldest: deterministic, so a report never changes between runs. A pod that fits no node is
 * Karpenter's (provisioning.ts).
 */
import { formatTaint, nodeRequirementMatches, placementMismatch, untoleratedTaint } from "eks-platform-kernel";

import { addReason, Cluster, fits, Reasons, SimNode, SimPod, taintsOf, WorkloadState } from "./cluster";
import { HOSTNAME, ZONE } from "./model";
import type { PodShape, Requests } from "./model";

/**
 * The node the scheduler would bind `pod` to among existing nodes, or the reasons none
 * qualifies. Nodes not yet Ready still count: the pod waits for them. `karpenter`: as
 * Karpenter's scheduler, preferences counted as requirements and a new node as a hostname domain.
 */
export function choose(
    cluster: Cluster,
    pod: SimPod,
    options: { exclude?: ReadonlySet<SimNode>; karpenter?: boolean } = {},
): { node?: SimNode; reasons: Reasons } {
    const { exclude, karpenter } = options;
    const w = pod.workload;
    const shape = w.model.pod;
    const reasons: Reasons = new Map();
    // Domains of hard topology rules: every node matching the pod's node placement, cordoned or not
    // (the scheduler's default nodeTaintsPolicy Ignore counts tainted and cordoned nodes).
    // Karpenter, launching nodes, first treats preferences as requirements, and a new node is
    // always a hostname domain with none of the pods (Karpenter docs, Concepts → Scheduling).
    const hard = karpenter ? shape.topology : shape.topology.filter((t) => t.hard);
    let minHost = Infinity;
    const zoneMin = new Map<string, number>();
    const eligible: SimNode[] = [];
    for (const node of cluster.nodes) {
        if (exclude?.has(node)) {
            continue;
        }
        const mismatch = classMismatch(cluster, w, node);
        if (mismatch.startsWith("node affinity")) {
            addReason(reasons, mismatch);
            continue;
        }
        if (hard.length > 0) {
            minHost = Math.min(minHost, w.perNode.get(node) ?? 0);
            zoneMin.set(node.zone, w.perZone.get(node.zone) ?? 0);
        }
        if (mismatch) {
            addReason(reasons, mismatch);
            continue;
        }
        eligible.push(node);
    }
    if (karpenter) {
        minHost = 0;
        for (const zone of podZones(cluster, shape)) {
            zoneMin.set(zone, w.perZone.get(zone) ?? 0);
        }
    }
    const minZone = zoneMin.size > 0 ? Math.min(...zoneMin.values()) : 0;
    let best: SimNode | undefined;
    let bestScore: number[] = [];
    for (const node of eligible) {
        const reason = nodeProblem(cluster, pod, node, hard, minHost, minZone);
        if (reason) {
            addReason(reasons, reason);
            continue;
        }
        const score = [w.perNode.get(node) ?? 0, w.perZone.get(node.zone) ?? 0, allocatedShare(node, shape.requests), node.order];
        if (!best || lexLess(score, bestScore)) {
            best = node;
            bestScore = score;
        }
    }
    return best ? { node: best, reasons } : { reasons };
}

function nodeProblem(
    cluster: Cluster,
    pod: SimPod,
    node: SimNode,
    hard: readonly PodShape["topology"][number][],
    minHost: number,
    minZone: number,
): string | undefined {
    const w = pod.workload;
    if (node.cordoned) {
        return "cordoned";
    }
    if (pod.zone !== undefined && node.zone !== pod.zone) {
        return `volume in another zone (${pod.zone})`;
    }
    const resource = node.options
        ? cluster.claimHolds(node, w.model.pod)
            ? undefined
            : "insufficient capacity in any instance type of the NodeClaim"
        : fits(node.used, w.model.pod.requests, node.allocatable);
    if (resource) {
        return resource;
    }
    for (const rule of hard) {
        const host = rule.topologyKey === HOSTNAME;
        const count = host ? (w.perNode.get(node) ?? 0) : (w.perZone.get(node.zone) ?? 0);
        if (rule.kind === "antiAffinity" ? count > 0 : count + 1 - (host ? minHost : minZone) > rule.maxSkew) {
            return rule.kind === "antiAffinity"
                ? `pod anti-affinity (${rule.topologyKey})`
                : `topology spread (${rule.topologyKey}, maxSkew ${rule.maxSkew})`;
        }
    }
    return undefined;
}

/** Why the nodes of a class (group, zone, instance type) never suit a workload's pods, or "". */
function classMismatch(cluster: Cluster, w: WorkloadState, node: SimNode): string {
    const pod = w.model.pod;
    const usesHostname = pod.placement.terms?.some((t) => t.some((r) => r.key === HOSTNAME)) || HOSTNAME in pod.placement.nodeSelector;
    const key = usesHostname ? undefined : classKey(node);
    const cached = key === undefined ? undefined : w.classFit.get(key);
    if (cached !== undefined) {
        return cached;
    }
    const taint = untoleratedTaint(pod.tolerations, taintsOf(node.group));
    let reason = taint ? `untolerated taint ${formatTaint(taint)}` : "";
    if (!reason) {
        if (node.options) {
            reason = node.options.some((o) => placementMismatch(pod.placement, cluster.optionView(node, o).labels) === undefined)
                ? ""
                : "node affinity/selector mismatch";
        } else {
            reason = placementMismatch(pod.placement, node.labels) ? "node affinity/selector mismatch" : "";
        }
    }
    if (key !== undefined) {
        w.classFit.set(key, reason);
    }
    return reason;
}

/**
 * The zone domains Karpenter takes a zone spread's minimum over: the zones some NodePool can
 * launch in or some node the pod may run on is in (karpenter topology.go: domains from the
 * NodePools' requirements and the cluster's nodes), of those the pod's own node selector and
 * required node affinity allow (topologygroup.go `domainMinCount`: only the pod's domains).
 */
export function podZones(cluster: Cluster, shape: PodShape): string[] {
    const { nodeSelector, terms } = shape.placement;
    return cluster.zones.filter(
        (z) =>
            (nodeSelector[ZONE] === undefined || nodeSelector[ZONE] === z) &&
            (terms === undefined || terms.some((term) => term.every((r) => r.key !== ZONE || nodeRequirementMatches(r, { [ZONE]: z })))) &&
            (cluster.pools.some((p) => p.zones === undefined || p.zones.includes(z)) ||
                cluster.nodes.some((n) => n.zone === z && placementMismatch(shape.placement, n.labels) === undefined)),
    );
}

/** Nodes of one class share every label but their name: group, zone, instance type (or an unlaunched claim). */
function classKey(node: SimNode): string {
    node.classKey ??= `${node.group.kind}\u0000${node.group.name}\u0000${node.zone}\u0000${node.options ? "(claim)" : node.instanceType}`;
    return node.classKey;
}

function allocatedShare(node: SimNode, requests: Requests): number {
    const alloc = node.options ? node.options[node.options.length - 1].allocatable : node.allocatable;
    if (!alloc) {
        return 0;
    }
    return (
        ((node.used.cpuMillis + requests.cpuMillis) / Math.max(alloc.cpuMillis, 1) +
            (node.used.memoryMiB + requests.memoryMiB) / Math.max(alloc.memoryMiB, 1)) /
        2
    );
}

function lexLess(a: number[], b: number[]): boolean {
    for (let i = 0; i < a.length; i++) {
        if (a[i] !== b[i]) {
            return a[i] < b[i];
        }
    }
    return false;
}
