/**
 * Where pods go: the scheduler's node (scheduler.ts), else a node Karpenter launches
 * (provisioning.ts).
 *
 * The initial placement: every group's nodes at their desired size, DaemonSets on each, then each
 * workload's replicas in turn (workloads by name) on the node the scheduler would pick. Pods that
 * fit no node go, largest first as Karpenter sorts them, to NodeClaims Karpenter packs and then
 * launches as the smallest instance type that holds them; what fits nowhere is reported.
 *
 * During a rollout (`Rescheduling`): each pod a controller recreates for an evicted one is placed
 * the same way when it is created; one with nowhere to run waits and tries again as nodes come.
 */
import { Cluster, formatReasons, Reasons, SimPod, WorkloadState } from "./cluster";
import type { ClusterModel, NodePoolModel } from "./model";
import { finalizeClaims, provision } from "./provisioning";
import type { UnplacedPod } from "./report";
import { choose } from "./scheduler";

export interface Placement {
    cluster: Cluster;
    unschedulable: { pod: string; workload: string; workloadUrn?: string; reasons: string }[];
}

export function place(model: ClusterModel): Placement {
    const pools = model.groups.filter((g): g is NodePoolModel => g.kind === "nodePool");
    const cluster = new Cluster(model.zones, model.daemonSets, pools, model.workloads);
    for (const g of model.groups) {
        if (g.kind === "nodePool" || !g.template) {
            continue;
        }
        for (let i = 0; i < g.desired; i++) {
            // An Auto Scaling group balances its instances across its zones.
            cluster.addNode(g, model.zones[i % Math.min(g.zones, model.zones.length)], g.template, "old", 0);
        }
    }
    const pending: SimPod[] = [];
    const states = [...cluster.workloads.values()].sort((a, b) => (a.model.id < b.model.id ? -1 : a.model.id > b.model.id ? 1 : 0));
    for (const w of states) {
        for (let i = 0; i < w.model.replicas; i++) {
            const pod = cluster.newPod(w);
            const { node } = choose(cluster, pod);
            if (node) {
                cluster.bind(pod, node);
            } else {
                pending.push(pod);
            }
        }
    }
    pending.sort(
        (a, b) =>
            b.workload.model.pod.requests.cpuMillis - a.workload.model.pod.requests.cpuMillis ||
            b.workload.model.pod.requests.memoryMiB - a.workload.model.pod.requests.memoryMiB ||
            (a.workload.model.id < b.workload.model.id ? -1 : a.workload.model.id > b.workload.model.id ? 1 : 0),
    );
    // Karpenter counts a NodeClaim still being packed at its largest instance type against the
    // pool's limits, and schedules again once claims are launched at their real size: so passes
    // repeat while one places something.
    let failed: { pod: SimPod; reasons: Reasons }[] = [];
    for (let queue = pending; queue.length > 0; queue = failed.map((f) => f.pod)) {
        failed = [];
        for (const pod of queue) {
            // As Karpenter: preferences count as requirements while new nodes can satisfy them, then relax.
            const strict = choose(cluster, pod, { karpenter: true });
            const provisioned = strict.node ? undefined : provision(cluster, pod, 0);
            const chosen = strict.node || provisioned?.node ? strict : choose(cluster, pod);
            const node = strict.node ?? provisioned?.node ?? chosen.node;
            if (node) {
                cluster.bind(pod, node);
                continue;
            }
            const reasons = chosen.reasons;
            for (const [r, n] of provisioned?.reasons ?? []) {
                reasons.set(r, (reasons.get(r) ?? 0) + n);
            }
            failed.push({ pod, reasons });
        }
        finalizeClaims(cluster);
        if (failed.length === queue.length) {
            break;
        }
    }
    const unschedulable: Placement["unschedulable"] = failed.map(({ pod, reasons }) => {
        cluster.forget(pod);
        return {
            pod: pod.name,
            workload: pod.workload.model.id,
            ...(pod.workload.model.urn ? { workloadUrn: pod.workload.model.urn } : {}),
            reasons: formatReasons(reasons, cluster.nodes.length),
        };
    });
    for (const node of cluster.nodes) {
        node.readyAt = 0;
    }
    for (const w of cluster.workloads.values()) {
        for (const pod of w.pods) {
            if (pod.node) {
                pod.ready = true;
                w.ready++;
            }
        }
    }
    return { cluster, unschedulable };
}

/**
 * The pods of one rollout placed again as their controllers recreate them: on the node the
 * scheduler picks, else on one Karpenter launches; a pod with nowhere to run is reported once and
 * waits, trying again whenever a wave ends.
 */
export class Rescheduling {
    private readonly pending = new Map<SimPod, { since: number; entry: UnplacedPod }>();

    /** `unplaced`: the report's list of pods with nowhere to run; `bound`: a pod got a node, Ready at `readyAt`. */
    constructor(
        private readonly cluster: Cluster,
        private readonly unplaced: UnplacedPod[],
        private readonly bound: (pod: SimPod, readyAt: number) => void,
    ) {}

    /** Schedules a new pod at `now` (in rollout wave `wave`): an existing node, else a node Karpenter launches; else it waits. */
    place(pod: SimPod, now: number, createdAt: number, wave: number): boolean {
        const chosen = choose(this.cluster, pod);
        const reasons = chosen.reasons;
        let node = chosen.node;
        if (!node) {
            const provisioned = provision(this.cluster, pod, now);
            node = provisioned.node;
            for (const [r, n] of provisioned.reasons) {
                reasons.set(r, (reasons.get(r) ?? 0) + n);
            }
        }
        if (!node) {
            if (!this.pending.has(pod)) {
                const entry = {
                    pod: pod.name,
                    workload: pod.workload.model.id,
                    ...(pod.workload.model.urn ? { workloadUrn: pod.workload.model.urn } : {}),
                    wave,
                    reasons: formatReasons(reasons, this.cluster.nodes.length),
                };
                this.unplaced.push(entry);
                this.pending.set(pod, { since: now, entry });
            }
            return false;
        }
        this.cluster.bind(pod, node);
        this.bound(pod, Math.max(createdAt, node.readyAt) + pod.workload.model.pod.readySeconds);
        return true;
    }

    /** Tries again to place pods that had nowhere to run (new nodes may have come). */
    retry(now: number): void {
        for (const [pod, { since, entry }] of [...this.pending]) {
            if (this.place(pod, now, now, entry.wave)) {
                entry.placedAfterSeconds = now - since;
                this.pending.delete(pod);
            }
        }
        finalizeClaims(this.cluster);
    }

    /** How many pods of `w` are waiting for a node. */
    waitingOf(w: WorkloadState): number {
        return [...this.pending.keys()].filter((p) => p.workload === w).length;
    }
}
