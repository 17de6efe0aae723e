/**
 * The initial placement: every group's nodes at their desired size, DaemonSets on each, then each
 * workload's replicas in turn (workloads by name) on the node the scheduler would pick. Pods that
 * fit no node go, largest first as Karpenter sorts them, to NodeClaims Karpenter packs and then
 * launches as the smallest instance type that holds them; what fits nowhere is reported.
 */
import { Cluster, formatReasons, Reasons, SimPod } from "./cluster";
import type { ClusterModel, NodePoolModel } from "./model";

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
            const { node } = cluster.choose(pod);
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
            const strict = cluster.choose(pod, { karpenter: true });
            const provisioned = strict.node ? undefined : cluster.provision(pod, 0);
            const chosen = strict.node || provisioned?.node ? strict : cluster.choose(pod);
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
        cluster.finalizeClaims();
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
