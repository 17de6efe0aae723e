/**
 * The rollout each kind of capacity runs when its nodes change, replayed on a copy of the
 * initial placement, with evictions through PodDisruptionBudgets on a clock:
 *
 * - EKS managed node groups (Amazon EKS User Guide, "Understand each phase of node updates"):
 *   default strategy — scale up by one node per Availability Zone in use (or `maxUnavailable` if
 *   larger) and cordon every old node; then waves of `maxUnavailable` old nodes: evict (15-minute
 *   limit, `PodEvictionFailure`), wait 60 s, terminate, and the Auto Scaling group launches a
 *   replacement; finally scale back down. `MINIMAL` strategy: no surge, each wave's nodes are
 *   terminated before their replacements launch.
 * - Self-managed groups (EC2 Auto Scaling instance refresh, `Rolling`): batches that keep
 *   `minHealthyPercentage` in service (launch first when `maxHealthyPercentage` > 100); each
 *   instance waits in its termination lifecycle hook while the Node Termination Handler drains it,
 *   and is terminated when the drain ends or the heartbeat runs out; then instance warmup.
 * - Karpenter NodePools, drift (Karpenter docs, Concepts → Disruption): as many nodes at a time as
 *   the budgets for `Drifted` allow (percentages rounded up), replacements launched and Ready first,
 *   then taint and drain; `terminationGracePeriod` deletes pods a budget still holds so they get
 *   their grace period; without it, a node whose pods a budget never lets go is never disrupted.
 */
import {
    AUTO_MODE_AMI_RELEASE_INTERVAL_SECONDS,
    AUTO_MODE_MAX_NODE_LIFETIME_SECONDS,
    formatSeconds,
    scaledValue,
} from "eks-platform-kernel";
import { Cluster, formatReasons, SimNode, SimPod, WorkloadState } from "./cluster";
import type { GroupModel, ManagedGroupModel, NodePoolModel, PdbModel, SelfManagedGroupModel } from "./model";
import { DO_NOT_DISRUPT } from "./read";
import type { GroupReport, SlowestPod, WaveReport } from "./report";
import { EKS_CORDON_WAIT_SECONDS, EKS_EVICTION_TIMEOUT_SECONDS, NODE_READY_SECONDS, SPOT_NOTICE_SECONDS } from "./timing";

/** What happens when a node's drain outlasts its window. */
type Expiry =
    /** The rollout fails (EKS `PodEvictionFailure`). */
    | "fail"
    /** The instance is terminated with whatever still runs on it (lifecycle hook heartbeat). */
    | "kill"
    /** Remaining pods are deleted early enough to get their grace period (Karpenter `terminationGracePeriod`). */
    | "delete";

interface Window {
    seconds: number;
    source: string;
    expiry: Expiry;
}

/** A drain's outcome: each node's drain time, when it started, the pod that left last, and why it stalls. */
interface DrainResult {
    perNode: Map<SimNode, number>;
    evictions: number;
    start: number;
    slowest?: SlowestPod;
    stalled?: string;
}

interface ReadyEvent {
    pod: SimPod;
    at: number;
}

/** One group's rollout on its own copy of the cluster. */
class Rollout {
    clock = 0;
    private readonly events: ReadyEvent[] = [];
    private readonly pending = new Map<SimPod, { since: number; entry: GroupReport["unplaced"][number] }>();
    private readonly zero = new Set<WorkloadState>();
    private readonly pdbWorkloads = new Map<PdbModel, WorkloadState[]>();
    wave = 0;

    constructor(
        readonly cluster: Cluster,
        readonly report: GroupReport,
    ) {
        for (const w of cluster.workloads.values()) {
            for (const pdb of w.model.pdbs) {
                this.pdbWorkloads.set(pdb, [...(this.pdbWorkloads.get(pdb) ?? []), w]);
            }
        }
    }

    /** Marks pods Ready whose time has come. */
    advance(to: number): void {
        this.clock = Math.max(this.clock, to);
        this.events.sort((a, b) => a.at - b.at);
        while (this.events.length > 0 && this.events[0].at <= this.clock) {
            const { pod } = this.events.shift() as ReadyEvent;
            if (pod.node && !pod.ready) {
                pod.ready = true;
                pod.workload.ready++;
            }
        }
    }

    private nextEvent(after: number): number | undefined {
        let next: number | undefined;
        for (const e of this.events) {
            if (e.at > after && (next === undefined || e.at < next)) {
                next = e.at;
            }
        }
        return next;
    }

    /** Schedules a new pod at `now`: an existing node, else a node Karpenter launches; else it waits. */
    place(pod: SimPod, now: number, createdAt: number): boolean {
        const chosen = this.cluster.choose(pod);
        const reasons = chosen.reasons;
        let node = chosen.node;
        if (!node) {
            const provisioned = this.cluster.provision(pod, now);
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
                    wave: this.wave,
                    reasons: formatReasons(reasons, this.cluster.nodes.length),
                };
                this.report.unplaced.push(entry);
                this.pending.set(pod, { since: now, entry });
            }
            return false;
        }
        this.cluster.bind(pod, node);
        this.events.push({ pod, at: Math.max(createdAt, node.readyAt) + pod.workload.model.pod.readySeconds });
        return true;
    }

    /** Tries again to place pods that had nowhere to run (new nodes may have come). */
    retryPending(now: number): void {
        for (const [pod, { since, entry }] of [...this.pending]) {
            if (this.place(pod, now, now)) {
                entry.placedAfterSeconds = now - since;
                this.pending.delete(pod);
            }
        }
        this.cluster.finalizeClaims();
    }

    private checkZero(w: WorkloadState, cause: string): void {
        // A deliberate singleton (platform/singleton) has accepted its outage on a drain.
        if (w.ready === 0 && w.model.replicas > 0 && w.model.singleton === undefined && !this.zero.has(w)) {
            this.zero.add(w);
            // Availability is the Service's: one that also selects another workload with ready
            // pods (Bookinfo's reviews v1/v2/v3) keeps its endpoints, and no request is dropped.
            const dark = w.model.services.filter((svc) =>
                [...this.cluster.workloads.values()].every(
                    (other) => other === w || other.ready === 0 || !other.model.services.includes(svc),
                ),
            );
            if (w.model.services.length > 0 && dark.length === 0) {
                this.report.notes.push(
                    `${w.model.id} reaches zero ready replicas in wave ${this.wave}, but ${w.model.services.join(", ")} keep${w.model.services.length === 1 ? "s" : ""} ready endpoints from other workloads`,
                );
                return;
            }
            this.report.zeroReady.push({
                workload: w.model.id,
                ...(w.model.urn ? { workloadUrn: w.model.urn } : {}),
                wave: this.wave,
                cause,
                services: dark,
            });
        }
    }

    /** Removes a pod from its node at `t` and lets its controller replace it. */
    private remove(pod: SimPod, t: number, cause: string): void {
        const w = pod.workload;
        const grace = w.model.pod.graceSeconds;
        if (pod.ready) {
            pod.ready = false;
            w.ready--;
        }
        this.cluster.forget(pod);
        this.checkZero(w, cause);
        if (!w.model.recreated) {
            this.report.notes.push(`${pod.name} (${w.model.id}) is a bare Pod: nothing recreates it after its eviction`);
            return;
        }
        const replacement = this.cluster.newPod(w);
        if (pod.zone !== undefined) {
            replacement.zone = pod.zone;
        }
        const createdAt = w.model.recreateAfterTermination ? t + grace : t;
        this.place(replacement, t, createdAt);
    }

    /** Whether the eviction API lets `pod` go now; the budget that refuses it otherwise. */
    private evictable(pod: SimPod): { ok: true } | { ok: false; pdb: string; urn?: string; never?: string } {
        const pdbs = pod.workload.model.pdbs;
        if (pdbs.length === 0) {
            return { ok: true };
        }
        if (pdbs.length > 1) {
            return {
                ok: false,
                pdb: pdbs.map((p) => `${p.namespace}/${p.name}`).join(" and "),
                urn: pdbs[0].urn,
                never: "the pod is matched by more than one PodDisruptionBudget, and the eviction API refuses every such eviction",
            };
        }
        const pdb = pdbs[0];
        const healthy = (this.pdbWorkloads.get(pdb) ?? []).reduce((sum, w) => sum + w.ready, 0);
        // The eviction subresource (kubernetes v1.34 pkg/registry/core/pod/storage/eviction.go): a
        // Ready pod needs a disruption to spare; one not yet Ready goes while the budget is met
        // (IfHealthyBudget, the default), or always (unhealthyPodEvictionPolicy: AlwaysAllow).
        const allowed = pod.ready ? healthy - pdb.desiredHealthy > 0 : pdb.alwaysAllowUnhealthy || healthy >= pdb.desiredHealthy;
        if (allowed) {
            return { ok: true };
        }
        const never =
            pdb.desiredHealthy >= pdb.expected
                ? `${pdb.describe} requires ${pdb.desiredHealthy} healthy of ${pdb.expected} pods, so it allows no disruption even at full strength`
                : undefined;
        return { ok: false, pdb: `${pdb.namespace}/${pdb.name}`, urn: pdb.urn, ...(never ? { never } : {}) };
    }

    /**
     * Drains `nodes` in parallel from the current clock: evictions honour the budgets, waiting for
     * rescheduled pods to get Ready; returns each node's drain time, the pod that leaves last, and
     * whether the rollout stalls.
     */
    drain(nodes: readonly SimNode[], window: Window | undefined, options: { respectDoNotDisrupt?: boolean } = {}): DrainResult {
        const start = this.clock;
        const perNode = new Map<SimNode, number>(nodes.map((n) => [n, 0]));
        let slowest: SlowestPod | undefined;
        let slowestSeconds = -1;
        // A node's drain lasts until its last pod is gone.
        const note = (
            node: SimNode,
            seconds: number,
            pod: SimPod,
            left: SlowestPod["left"],
            at: number | undefined,
            pdb: string | undefined,
            doNotDisrupt?: true,
        ) => {
            perNode.set(node, Math.max(perNode.get(node) ?? 0, seconds));
            if (seconds > slowestSeconds) {
                slowestSeconds = seconds;
                slowest = {
                    pod: pod.name,
                    workload: pod.workload.model.id,
                    ...(pod.workload.model.urn ? { workloadUrn: pod.workload.model.urn } : {}),
                    node: node.name,
                    left,
                    ...(at !== undefined ? { at } : {}),
                    graceSeconds: pod.workload.model.pod.graceSeconds,
                    ...(pdb !== undefined ? { pdb } : {}),
                    ...(doNotDisrupt ? { doNotDisrupt } : {}),
                };
            }
        };
        const waiting = new Map<SimPod, { since: number; pdb: string; urn?: string; never?: string; node: SimNode; doNotDisrupt?: true }>();
        const queue: { pod: SimPod; node: SimNode }[] = [];
        for (const node of [...nodes].sort((a, b) => a.order - b.order)) {
            node.cordoned = true;
            for (const pod of [...node.pods].sort((a, b) => (a.name < b.name ? -1 : 1))) {
                queue.push({ pod, node });
            }
        }
        let evictions = 0;
        let t = start;
        const deadline = window ? start + window.seconds : undefined;
        const finish = (pod: SimPod, node: SimNode, at: number, end: number, held?: { pdb: string; urn?: string }) => {
            note(node, end - start, pod, "evicted", at - start, held?.pdb);
            if (deadline !== undefined && end > deadline && window && window.expiry !== "fail") {
                this.report.killed.push({
                    ...this.podEntry(pod),
                    ...(held ? { pdb: held.pdb, ...(held.urn ? { pdbUrn: held.urn } : {}) } : {}),
                    how: `it needs until ${formatSeconds(Math.round(end - start))} into the drain (evicted at ${formatSeconds(Math.round(at - start))}, grace period ${formatSeconds(pod.workload.model.pod.graceSeconds)}), past the ${formatSeconds(window.seconds)} ${window.source}`,
                });
            }
        };
        if (window && window.seconds === 0) {
            // No drain at all: the instance goes with its pods.
            for (const { pod, node } of queue) {
                this.report.killed.push({
                    ...this.podEntry(pod),
                    how: `${window.source}: the instance is terminated without a drain`,
                });
                perNode.set(node, 0);
                this.remove(pod, t, `its pod ${pod.name} is killed when node ${node.name} terminates without a drain`);
            }
            this.cluster.finalizeClaims();
            return { perNode, evictions, start };
        }
        let stalled: string | undefined;
        for (;;) {
            for (let i = 0; i < queue.length; i++) {
                const { pod, node } = queue[i];
                // Karpenter's termination controller never evicts a do-not-disrupt pod: it waits
                // for the pod to finish or for terminationGracePeriod to delete it (karpenter
                // v1.14.1 pkg/controllers/node/termination/terminator `IsEvictable`, `DeleteExpiringPods`).
                if (options.respectDoNotDisrupt && pod.workload.model.doNotDisrupt) {
                    if (!waiting.has(pod)) {
                        waiting.set(pod, { since: t, pdb: "", node, doNotDisrupt: true, never: `${DO_NOT_DISRUPT}: "true"` });
                    }
                    continue;
                }
                const verdict = this.evictable(pod);
                if (!verdict.ok) {
                    if (!waiting.has(pod)) {
                        waiting.set(pod, {
                            since: t,
                            pdb: verdict.pdb,
                            ...(verdict.urn ? { urn: verdict.urn } : {}),
                            ...(verdict.never ? { never: verdict.never } : {}),
                            node,
                        });
                    }
                    continue;
                }
                const waited = waiting.get(pod);
                if (waited) {
                    waiting.delete(pod);
                    this.recordWait(pod, waited, t);
                }
                queue.splice(i--, 1);
                evictions++;
                finish(pod, node, t, t + pod.workload.model.pod.graceSeconds, waited);
                this.remove(pod, t, `its last ready pod ${pod.name} is evicted from node ${node.name}`);
            }
            this.cluster.finalizeClaims();
            if (queue.length === 0) {
                break;
            }
            const next = this.nextEvent(t);
            const limit = deadline !== undefined && window?.expiry === "delete" ? this.deleteTime(queue, deadline) : deadline;
            if (limit !== undefined && (next === undefined || next > limit)) {
                t = Math.max(t, limit);
                this.advance(t);
                if (window?.expiry === "fail") {
                    // Every node that still holds pods has drained for the whole window.
                    for (const { pod, node } of queue) {
                        note(node, t - start, pod, "held", undefined, waiting.get(pod)?.pdb);
                    }
                    stalled = `node${nodes.length > 1 ? "s" : ""} ${nodes.map((n) => n.name).join(", ")} still hold${nodes.length > 1 ? "" : "s"} pods after ${formatSeconds(window.seconds)} (${window.source}): PodEvictionFailure`;
                    this.recordBlocked(waiting, next === undefined);
                    break;
                }
                // The window ends: what is left is deleted (Karpenter) or dies with the instance (ASG).
                for (const { pod, node } of [...queue]) {
                    if (window?.expiry === "delete" && t < deadline! - pod.workload.model.pod.graceSeconds) {
                        continue;
                    }
                    queue.splice(
                        queue.findIndex((q) => q.pod === pod),
                        1,
                    );
                    const held = waiting.get(pod);
                    const grace = pod.workload.model.pod.graceSeconds;
                    const entry = {
                        ...this.podEntry(pod),
                        ...(held?.doNotDisrupt
                            ? { doNotDisrupt: true as const }
                            : held
                              ? { pdb: held.pdb, ...(held.urn ? { pdbUrn: held.urn } : {}) }
                              : {}),
                    };
                    if (window?.expiry === "delete" && t + grace <= deadline!) {
                        // Deleted early enough for its whole grace period: past its budget, not cut short.
                        this.report.deleted.push({ ...entry, node: node.name, at: t - start });
                    } else {
                        this.report.killed.push({
                            ...entry,
                            how:
                                window?.expiry === "delete"
                                    ? `Karpenter deletes it past ${held?.doNotDisrupt ? `its ${DO_NOT_DISRUPT} annotation` : `its PodDisruptionBudget ${held?.pdb ?? ""}`} at ${formatSeconds(t - start)}, too late for its ${formatSeconds(grace)} grace period to end by the ${formatSeconds(window.seconds)} ${window.source}`
                                    : `still on node ${node.name} when the ${formatSeconds(window!.seconds)} ${window!.source} ends and the instance is terminated`,
                        });
                    }
                    waiting.delete(pod);
                    // The node is gone when the window ends, whatever still runs on it.
                    if (window?.expiry === "delete") {
                        // A do-not-disrupt pod is held by its annotation, not by a budget.
                        note(
                            node,
                            Math.min(t - start + grace, window.seconds),
                            pod,
                            "deleted",
                            t - start,
                            held?.doNotDisrupt ? undefined : held?.pdb,
                            held?.doNotDisrupt,
                        );
                    } else {
                        note(node, t - start, pod, "terminated", undefined, held?.pdb);
                    }
                    this.remove(
                        pod,
                        t,
                        window?.expiry === "delete"
                            ? `its pod ${pod.name} is deleted from node ${node.name} despite its ${held?.doNotDisrupt ? DO_NOT_DISRUPT : "budget"}`
                            : `its pod ${pod.name} is terminated with node ${node.name} when the ${window!.source} ends`,
                    );
                }
                this.cluster.finalizeClaims();
                if (queue.length === 0) {
                    break;
                }
                continue;
            }
            if (next === undefined) {
                stalled = `the evictions from ${nodes.map((n) => n.name).join(", ")} can never finish`;
                this.recordBlocked(waiting, true);
                break;
            }
            t = next;
            this.advance(t);
        }
        if (stalled === undefined && window?.expiry === "fail") {
            const late = [...perNode].filter(([, seconds]) => seconds > window.seconds).map(([n]) => n.name);
            if (late.length > 0) {
                stalled = `pods on ${late.join(", ")} are still terminating after ${formatSeconds(window.seconds)} (${window.source}): PodEvictionFailure`;
                // The update fails when the window ends, not when the pods were evicted.
                this.advance(start + window.seconds);
            }
        }
        if (stalled === undefined) {
            for (const [pod, w] of waiting) {
                this.recordWait(pod, w, t);
            }
        }
        return { perNode, evictions, start, ...(slowest ? { slowest } : {}), ...(stalled ? { stalled } : {}) };
    }

    /** How a report names a pod that leaves in this wave: the pod, its workload, the wave, its grace period. */
    private podEntry(pod: SimPod): { pod: string; workload: string; workloadUrn?: string; wave: number; graceSeconds: number } {
        const w = pod.workload.model;
        return {
            pod: pod.name,
            workload: w.id,
            ...(w.urn ? { workloadUrn: w.urn } : {}),
            wave: this.wave,
            graceSeconds: w.pod.graceSeconds,
        };
    }

    /** A budget held `pod` from `w.since` until `t`, then let it go. */
    private recordWait(pod: SimPod, w: { since: number; pdb: string }, t: number): void {
        this.report.waits.push({ pod: pod.name, workload: pod.workload.model.id, pdb: w.pdb, wave: this.wave, seconds: t - w.since });
    }

    /** The earliest time Karpenter deletes one of the held pods: the window's end minus that pod's grace period. */
    private deleteTime(queue: readonly { pod: SimPod }[], deadline: number): number {
        return Math.min(...queue.map((q) => deadline - q.pod.workload.model.pod.graceSeconds));
    }

    private recordBlocked(
        waiting: Map<SimPod, { since: number; pdb: string; urn?: string; never?: string; node: SimNode }>,
        forever: boolean,
    ): void {
        for (const [pod, w] of waiting) {
            const pendingPeers = [...this.pending.keys()].filter((p) => p.workload === pod.workload).length;
            this.report.blocked.push({
                pod: pod.name,
                node: w.node.name,
                workload: pod.workload.model.id,
                ...(pod.workload.model.urn ? { workloadUrn: pod.workload.model.urn } : {}),
                pdb: w.pdb,
                ...(w.urn ? { pdbUrn: w.urn } : {}),
                wave: this.wave,
                why:
                    w.never ??
                    (forever
                        ? pendingPeers > 0
                            ? `the budget waits for ${pendingPeers} rescheduled pod${pendingPeers > 1 ? "s" : ""} ${pendingPeers > 1 ? "that have" : "that has"} nowhere to run, so ${pendingPeers > 1 ? "they never get" : "it never gets"} Ready`
                            : "the budget waits for pods that never get Ready"
                        : "the budget still waits for rescheduled pods when the window ends"),
            });
        }
    }

    /** Records a wave; drain figures from `drain()`. */
    wavePush(wave: Omit<WaveReport, "drainSeconds" | "evictions"> & { drainSeconds?: number; evictions?: number }): void {
        this.report.waves.push({ drainSeconds: 0, evictions: 0, ...wave });
    }

    /**
     * Ends a wave: the drained nodes leave, pods get Ready until `until`, pods with nowhere to run
     * try again on the nodes there are now, and the wave is recorded from `start`.
     */
    closeWave(
        phase: WaveReport["phase"],
        start: number,
        drained: readonly SimNode[],
        launched: readonly SimNode[],
        result: DrainResult,
        longest: number,
        until: number,
    ): void {
        for (const n of drained) {
            this.cluster.removeNode(n);
        }
        this.advance(until);
        this.retryPending(this.clock);
        this.wavePush({
            phase,
            drained: drained.map((n) => n.name),
            launched: launched.map((n) => n.name),
            evictions: result.evictions,
            drainSeconds: longest,
            ...drainOf(result, start),
            seconds: this.clock - start,
        });
    }

    /** Ends the rollout in a wave that cannot finish: the wave so far is recorded, and why it stops. */
    stallWave(
        phase: WaveReport["phase"],
        start: number,
        drained: readonly SimNode[],
        result: DrainResult,
        longest: number,
        why: string,
    ): void {
        this.report.stalled = why;
        this.wavePush({
            phase,
            drained: drained.map((n) => n.name),
            launched: [],
            evictions: result.evictions,
            drainSeconds: longest,
            ...drainOf(result, start),
            seconds: this.clock - start,
        });
        this.report.estimatedSeconds = this.clock;
    }

    noteDrain(perNode: Map<SimNode, number>): number {
        let longest = 0;
        for (const [node, seconds] of perNode) {
            longest = Math.max(longest, seconds);
            if (!this.report.longestDrain || seconds > this.report.longestDrain.seconds) {
                this.report.longestDrain = { node: node.name, seconds };
            }
        }
        return longest;
    }

    finishRollout(): void {
        // The rollout ends when the last rescheduled pod is Ready.
        this.advance(Math.max(this.clock, ...this.events.map((e) => e.at)));
        this.retryPending(this.clock);
        this.report.estimatedSeconds = this.clock;
    }
}

/** Where a wave's drain starts within it, and the pod that leaves its nodes last. */
function drainOf(result: DrainResult, waveStart: number): Pick<WaveReport, "drainStart" | "slowest"> {
    return { drainStart: result.start - waveStart, ...(result.slowest ? { slowest: result.slowest } : {}) };
}

function emptyReport(g: GroupModel, nodes: SimNode[], mechanism: string): GroupReport {
    return {
        name: g.name,
        kind: g.kind,
        urn: g.urn,
        resource: g.resource,
        mechanism,
        nodes: nodes.length,
        ...(nodes[0] ? { instanceType: [...new Set(nodes.map((n) => n.instanceType))].join(", ") } : {}),
        verdict: "ok",
        waves: [],
        waits: [],
        blocked: [],
        unplaced: [],
        zeroReady: [],
        killed: [],
        deleted: [],
        windows: [],
        estimatedSeconds: 0,
        undecided: [...g.undecided],
        notes: [],
    };
}

function spotWindow(g: GroupModel, report: GroupReport): void {
    if (g.spot) {
        report.windows.push({ seconds: SPOT_NOTICE_SECONDS, source: "Spot interruption notice" });
    }
}

/** Replacement nodes like `like`, in its zone. */
function launchLike(cluster: Cluster, g: GroupModel, like: SimNode, readyAt: number): SimNode {
    return cluster.addNode(
        g,
        like.zone,
        { instanceType: like.instanceType, allocatable: like.allocatable, capacity: like.capacity, labels: stripNodeLabels(like.labels) },
        "new",
        readyAt,
    );
}

function stripNodeLabels(labels: Record<string, string>): Record<string, string> {
    const out = { ...labels };
    delete out["kubernetes.io/hostname"];
    return out;
}

function rollManaged(cluster: Cluster, g: ManagedGroupModel): GroupReport {
    const old = cluster.nodes.filter((n) => n.group === g);
    const zonesInUse = [...new Set(old.map((n) => n.zone))];
    const surge = g.minimal ? 0 : Math.max(zonesInUse.length, g.maxUnavailable);
    const mechanism = g.minimal
        ? `EKS managed node group update, MINIMAL strategy: ${g.maxUnavailable} node${g.maxUnavailable > 1 ? "s" : ""} at a time (${g.maxUnavailableSource}), each terminated before its replacement launches`
        : `EKS managed node group update: surge ${surge} new node${surge === 1 ? "" : "s"} (one per zone in use, or maxUnavailable if larger), then ${g.maxUnavailable} node${g.maxUnavailable > 1 ? "s" : ""} at a time (${g.maxUnavailableSource}), PDB-respecting evictions within 15 minutes, 60 s before termination, then scale down by ${surge}`;
    const report = emptyReport(g, old, mechanism);
    report.windows.push({ seconds: EKS_EVICTION_TIMEOUT_SECONDS, source: "EKS eviction limit (PodEvictionFailure)" });
    spotWindow(g, report);
    const run = new Rollout(cluster, report);
    if (old.length === 0) {
        return report;
    }
    const window: Window = { seconds: EKS_EVICTION_TIMEOUT_SECONDS, source: "EKS eviction limit", expiry: "fail" };
    if (surge > 0) {
        run.wave = 1;
        const launched = Array.from({ length: surge }, (_, i) =>
            launchLike(cluster, g, old.find((n) => n.zone === zonesInUse[i % zonesInUse.length]) as SimNode, NODE_READY_SECONDS),
        );
        for (const n of old) {
            n.cordoned = true;
        }
        run.advance(NODE_READY_SECONDS);
        run.wavePush({ phase: "scale-up", drained: [], launched: launched.map((n) => n.name), seconds: NODE_READY_SECONDS });
    }
    const remaining = [...old];
    while (remaining.length > 0) {
        run.wave++;
        const batch = remaining.splice(0, g.maxUnavailable);
        const start = run.clock;
        const result = run.drain(batch, window);
        const longest = run.noteDrain(result.perNode);
        if (result.stalled) {
            run.stallWave("upgrade", start, batch, result, longest, `wave ${run.wave}: ${result.stalled}`);
            return report;
        }
        const terminated = start + longest + EKS_CORDON_WAIT_SECONDS;
        const launched = batch.map((n) => launchLike(cluster, g, n, terminated + NODE_READY_SECONDS));
        run.closeWave("upgrade", start, batch, launched, result, longest, terminated + NODE_READY_SECONDS);
    }
    if (surge > 0) {
        // The Auto Scaling group sheds the extra nodes; the emptiest go (fewest pods, newest first).
        run.wave++;
        const fresh = cluster.nodes
            .filter((n) => n.group === g)
            .sort((a, b) => a.pods.size - b.pods.size || b.order - a.order)
            .slice(0, surge);
        const start = run.clock;
        const result = run.drain(fresh, window);
        const longest = run.noteDrain(result.perNode);
        if (result.stalled) {
            run.stallWave("scale-down", start, fresh, result, longest, `scale-down: ${result.stalled}`);
        } else {
            run.closeWave("scale-down", start, fresh, [], result, longest, start + longest + EKS_CORDON_WAIT_SECONDS);
        }
    }
    run.finishRollout();
    return report;
}

function rollSelfManaged(cluster: Cluster, g: SelfManagedGroupModel): GroupReport {
    const old = cluster.nodes.filter((n) => n.group === g);
    const desired = Math.max(old.length, 1);
    const launchFirst = g.maxHealthyPercentage > 100;
    const batchSize = launchFirst
        ? Math.max(1, Math.floor((desired * (g.maxHealthyPercentage - g.minHealthyPercentage)) / 100))
        : Math.max(1, desired - Math.ceil((desired * g.minHealthyPercentage) / 100));
    const hook = g.hook
        ? `lifecycle hook ${g.hook.name} (${formatSeconds(g.hook.heartbeatSeconds)} heartbeat) while the Node Termination Handler drains`
        : "no termination lifecycle hook: instances terminate without a drain";
    const mechanism = `ASG instance refresh: ${batchSize} instance${batchSize === 1 ? "" : "s"} at a time (minHealthyPercentage ${g.minHealthyPercentage}, maxHealthyPercentage ${g.maxHealthyPercentage}: ${launchFirst ? "launch before terminate" : "terminate before launch"}), ${hook}, ${formatSeconds(g.warmupSeconds)} warmup`;
    const report = emptyReport(g, old, mechanism);
    if (g.hook) {
        report.windows.push({ seconds: g.hook.heartbeatSeconds, source: `heartbeat of lifecycle hook ${g.hook.name}` });
    }
    spotWindow(g, report);
    const run = new Rollout(cluster, report);
    const window: Window = g.hook
        ? { seconds: g.hook.heartbeatSeconds, source: `heartbeat of lifecycle hook ${g.hook.name}`, expiry: "kill" }
        : { seconds: 0, source: "no termination lifecycle hook", expiry: "kill" };
    const remaining = [...old];
    while (remaining.length > 0) {
        run.wave++;
        const batch = remaining.splice(0, batchSize);
        const start = run.clock;
        const launched: SimNode[] = [];
        if (launchFirst) {
            launched.push(...batch.map((n) => launchLike(cluster, g, n, start + NODE_READY_SECONDS)));
            run.advance(start + NODE_READY_SECONDS + g.warmupSeconds);
        }
        const drainStart = run.clock;
        const result = run.drain(batch, window);
        const longest = run.noteDrain(result.perNode);
        const terminated = drainStart + longest;
        if (!launchFirst) {
            launched.push(...batch.map((n) => launchLike(cluster, g, n, terminated + NODE_READY_SECONDS)));
        }
        run.closeWave(
            "refresh",
            start,
            batch,
            launched,
            result,
            longest,
            launchFirst ? terminated : terminated + NODE_READY_SECONDS + g.warmupSeconds,
        );
    }
    run.finishRollout();
    return report;
}

/** Nodes a pool may disrupt at once for drift: the most restrictive always-active budget (schedules noted). */
function driftBudget(pool: NodePoolModel, nodes: number, notes: string[]): number {
    let allowed = Infinity;
    for (const b of pool.budgets) {
        if (b.reasons && !b.reasons.includes("Drifted")) {
            continue;
        }
        const value = scaledValue(b.nodes, nodes);
        if (b.schedule) {
            notes.push(
                `budget nodes ${b.nodes.kind === "percent" ? `${b.nodes.value}%` : b.nodes.value} applies during "${b.schedule}" for ${b.duration ?? "(no duration)"}: drift ${value === 0 ? "pauses" : `is limited to ${value} node${value === 1 ? "" : "s"}`} then`,
            );
            continue;
        }
        allowed = Math.min(allowed, value);
    }
    return allowed === Infinity ? nodes : allowed;
}

function rollNodePool(cluster: Cluster, pool: NodePoolModel): GroupReport {
    const old = cluster.nodes.filter((n) => n.group === pool);
    const notes: string[] = [];
    const perWave = driftBudget(pool, old.length, notes);
    const grace = pool.terminationGraceSeconds;
    const mechanism = `Karpenter drift: ${perWave} node${perWave === 1 ? "" : "s"} at a time (disruption budgets for Drifted), replacement launched and Ready first, then PDB-respecting drain${grace !== undefined ? ` bounded by terminationGracePeriod ${formatSeconds(grace)}` : " with no terminationGracePeriod"}`;
    const report = emptyReport(pool, old, mechanism);
    report.notes.push(...notes);
    report.notes.push(
        pool.autoMode
            ? `EKS Auto Mode drifts every node when it releases a new AMI, about every ${formatSeconds(AUTO_MODE_AMI_RELEASE_INTERVAL_SECONDS)} (automode-learn-instances.adoc): this rollout, that often; its forced expiry is replayed as a rollout of its own`
            : "expiry (expireAfter) is forceful: no budgets and no replacement first; budgets then hold pods only until terminationGracePeriod",
    );
    if (pool.builtInOf !== undefined) {
        report.notes.push(
            `a built-in pool of EKS Auto Mode (cluster ${pool.builtInOf}, computeConfig.nodePools): its settings are EKS's and cannot be changed; a workload that needs others runs on a NodePool of its own`,
        );
    }
    if (grace !== undefined) {
        report.windows.push({ seconds: grace, source: `terminationGracePeriod of NodePool ${pool.name}` });
    }
    spotWindow(pool, report);
    const run = new Rollout(cluster, report);
    if (old.length === 0) {
        return report;
    }
    if (perWave === 0) {
        report.stalled = "its disruption budgets allow 0 nodes for Drifted at all times: drifted nodes are never replaced";
        return report;
    }
    if (pool.doNotDisruptNodes) {
        report.stalled = `its nodes carry ${DO_NOT_DISRUPT}: "true" (the NodePool template's annotations), so drift never selects them, terminationGracePeriod or not; remove the annotation from the template (karpenter v1.14.1 state/statenode.go ValidateNodeDisruptable)`;
        return report;
    }
    const window: Window | undefined =
        grace !== undefined ? { seconds: grace, source: `terminationGracePeriod of NodePool ${pool.name}`, expiry: "delete" } : undefined;
    const remaining = [...old];
    while (remaining.length > 0) {
        run.wave++;
        const batch = remaining.splice(0, perWave);
        if (grace === undefined) {
            // Without terminationGracePeriod Karpenter never selects a node holding a
            // do-not-disrupt pod for drift (karpenter v1.14.1 pkg/controllers/disruption/types.go
            // NewCandidate: the pod's block is waived only for eventual disruption with a grace period).
            const protectedPod = batch.flatMap((n) => [...n.pods]).find((p) => p.workload.model.doNotDisrupt);
            if (protectedPod) {
                report.stalled = `Karpenter never selects node ${protectedPod.node?.name ?? "?"} for drift: ${protectedPod.name} (${protectedPod.workload.model.id}) is annotated ${DO_NOT_DISRUPT}: "true" and the NodePool sets no terminationGracePeriod, so the node keeps its drifted configuration`;
                report.estimatedSeconds = run.clock;
                return report;
            }
            // Without terminationGracePeriod Karpenter skips a node whose pods a budget never lets go.
            const held = batch.flatMap((n) =>
                [...n.pods].filter(
                    (p) => p.workload.model.pdbs.length > 1 || p.workload.model.pdbs.some((b) => b.desiredHealthy >= b.expected),
                ),
            );
            if (held.length > 0) {
                const pdb = held[0].workload.model.pdbs;
                report.stalled = `Karpenter never disrupts node ${held[0].node?.name ?? "?"}: ${held[0].name} (${held[0].workload.model.id}) is held by PodDisruptionBudget ${pdb.map((b) => `${b.namespace}/${b.name}`).join(" and ")}, and the NodePool sets no terminationGracePeriod to override it`;
                for (const p of held) {
                    const b = p.workload.model.pdbs[0];
                    report.blocked.push({
                        pod: p.name,
                        node: p.node?.name ?? "?",
                        workload: p.workload.model.id,
                        ...(p.workload.model.urn ? { workloadUrn: p.workload.model.urn } : {}),
                        pdb: p.workload.model.pdbs.map((x) => `${x.namespace}/${x.name}`).join(" and "),
                        pdbUrn: b.urn,
                        wave: run.wave,
                        why:
                            p.workload.model.pdbs.length > 1
                                ? "the pod is matched by more than one PodDisruptionBudget"
                                : `${b.describe} allows no disruption of its ${b.expected} pods`,
                    });
                }
                report.estimatedSeconds = run.clock;
                return report;
            }
        }
        const start = run.clock;
        const launched: SimNode[] = [];
        const deleting = new Set<SimNode>();
        for (const n of batch) {
            if (!withinLimits(cluster, pool, n, deleting)) {
                report.stalled = `a replacement for node ${n.name} (${n.instanceType}) would exceed the NodePool's limits, so drift waits`;
                report.estimatedSeconds = run.clock;
                return report;
            }
            launched.push(launchLike(cluster, pool, n, start + NODE_READY_SECONDS));
            deleting.add(n);
        }
        run.advance(start + NODE_READY_SECONDS);
        const result = run.drain(batch, window, { respectDoNotDisrupt: true });
        const longest = run.noteDrain(result.perNode);
        if (result.stalled) {
            // A drain that can never finish holds its nodes: drift stops here, the nodes stay.
            run.stallWave("drift", start, batch, result, longest, `wave ${run.wave}: ${result.stalled}`);
            return report;
        }
        run.closeWave("drift", start, batch, launched, result, longest, start + NODE_READY_SECONDS + longest);
    }
    run.finishRollout();
    return report;
}

/**
 * The forced expiry of an EKS Auto Mode pool's nodes (Karpenter docs, Concepts → Disruption,
 * "Expiration"; EKS User Guide create-node-pool.adoc and automode.adoc): when a node reaches
 * `expireAfter` (336h unless the pool sets it; Auto Mode ends every node by 21 days) it is deleted
 * whatever the NodePool's disruption budgets say and without a replacement launched first; the
 * drain evicts through PodDisruptionBudgets only until `terminationGracePeriod` (24h unless the
 * pool sets it), then deletes the pods still there, `karpenter.sh/do-not-disrupt` ones included.
 * The rehearsal's nodes all start together, so they all expire together: one wave of every node,
 * evicted pods placed on what is left or on nodes the pools launch for them.
 */
function expireNodePool(cluster: Cluster, pool: NodePoolModel): GroupReport {
    const old = cluster.nodes.filter((n) => n.group === pool);
    const grace = pool.terminationGraceSeconds;
    const expire = pool.expireAfterSeconds;
    const after =
        expire === undefined ? "its expireAfter" : expire === Infinity ? "expireAfter Never" : `expireAfter ${formatSeconds(expire)}`;
    const mechanism = `forced expiry at ${after}: every node at once (the rehearsal's nodes start together), disruption budgets ignored, no replacement launched first; PDB-respecting drain${grace !== undefined ? ` until terminationGracePeriod ${formatSeconds(grace)}, then the pods still there are deleted` : " with no terminationGracePeriod: a pod a budget holds keeps its node"}`;
    const report: GroupReport = { ...emptyReport(pool, old, mechanism), change: "expiry", undecided: [] };
    report.notes.push(...pool.lifetimeDefaults.map((d) => `the NodePool sets no ${d.split(" ")[0]}: ${d}`));
    const lifetime = expire === undefined ? undefined : expire + (grace ?? 0);
    if (lifetime !== undefined && lifetime > AUTO_MODE_MAX_NODE_LIFETIME_SECONDS) {
        report.notes.push(
            `${after} plus terminationGracePeriod ${grace !== undefined ? formatSeconds(grace) : "(none)"} is past the ${formatSeconds(AUTO_MODE_MAX_NODE_LIFETIME_SECONDS)} EKS Auto Mode lets a node live (automode.adoc): AWS ends its nodes by then anyway (whether it refuses or clamps such a pool is not published)`,
        );
    }
    if (grace !== undefined) {
        report.windows.push({ seconds: grace, source: `terminationGracePeriod of NodePool ${pool.name}` });
    }
    spotWindow(pool, report);
    if (old.length === 0) {
        return report;
    }
    const run = new Rollout(cluster, report);
    run.wave = 1;
    const before = new Set(cluster.nodes);
    const window: Window | undefined =
        grace !== undefined ? { seconds: grace, source: `terminationGracePeriod of NodePool ${pool.name}`, expiry: "delete" } : undefined;
    const result = run.drain(old, window, { respectDoNotDisrupt: true });
    const longest = run.noteDrain(result.perNode);
    if (result.stalled) {
        run.stallWave("expiry", 0, old, result, longest, `wave 1: ${result.stalled}`);
        return report;
    }
    const launched = cluster.nodes.filter((n) => !before.has(n));
    run.closeWave("expiry", 0, old, launched, result, longest, longest);
    run.finishRollout();
    return report;
}

/**
 * Whether Karpenter launches a replacement for `like` during drift. Its scheduling simulation
 * leaves the candidate out of the pool's usage, so the replacement fits when the other nodes plus
 * it stay within the limits (provisioning/scheduling/scheduler.go `filterByRemainingResources`),
 * and the launch is refused only when usage, the candidate still counted, already exceeds a limit
 * (`Limits.ExceededBy`, a strict `>`; provisioner.go `Create`): a pool exactly at its limits drifts
 * (karpenter v1.14.1, disruption/helpers.go `SimulateScheduling`).
 */
function withinLimits(cluster: Cluster, pool: NodePoolModel, like: SimNode, deleting: ReadonlySet<SimNode>): boolean {
    const size = like.capacity;
    if (!size) {
        return true;
    }
    const others = { cpu: 0, memory: 0, extended: {} as Record<string, number> };
    for (const n of cluster.nodes) {
        // Nodes already replaced are marked for deletion: they no longer count (state/cluster.go `updateNodePoolResources`).
        if (n.group === pool && n !== like && !deleting.has(n)) {
            others.cpu += n.capacity?.cpuMillis ?? 0;
            others.memory += n.capacity?.memoryMiB ?? 0;
            for (const [name, value] of Object.entries(n.capacity?.extended ?? {})) {
                others.extended[name] = (others.extended[name] ?? 0) + value;
            }
        }
    }
    const fitsWith = (used: number, add: number, limit: number | undefined) => limit === undefined || used + add <= limit;
    const extendedOk = Object.entries(pool.limits.extended ?? {}).every(([name, limit]) =>
        fitsWith(others.extended[name] ?? 0, size.extended?.[name] ?? 0, limit),
    );
    return (
        fitsWith(others.cpu, size.cpuMillis, pool.limits.cpuMillis) &&
        fitsWith(others.memory, size.memoryMiB, pool.limits.memoryMiB) &&
        extendedOk
    );
}

/** Replays the rollout of one group on a copy of the placed cluster. */
export function rollout(initial: Cluster, group: GroupModel): GroupReport {
    const cluster = initial.clone();
    switch (group.kind) {
        case "managed":
            return rollManaged(cluster, group);
        case "selfManaged":
            return rollSelfManaged(cluster, group);
        case "nodePool":
            return rollNodePool(cluster, group);
    }
}

/**
 * The other changes a group goes through, each replayed on its own copy of the placed cluster: an
 * EKS Auto Mode pool's forced expiry (Auto Mode expires every node by 21 days; self-managed
 * Karpenter's `expireAfter` is noted on its drift rollout, not replayed).
 */
export function otherChanges(initial: Cluster, group: GroupModel): GroupReport[] {
    return group.kind === "nodePool" && group.autoMode ? [expireNodePool(initial.clone(), group)] : [];
}
