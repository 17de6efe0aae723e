/**
 * A drain on the rollout's clock: the nodes are cordoned, their pods evicted in name order
 * through the Eviction API (eviction.ts), each then taking its grace period; a pod a budget holds
 * waits until rescheduled pods get Ready. The drain's window decides what happens when it runs
 * out (each rollout method names its own): the update fails (EKS), the instance is terminated
 * with what still runs on it (a lifecycle hook's heartbeat), or the pods still held are deleted
 * early enough to get their grace period (Karpenter's `terminationGracePeriod`).
 */
import { formatSeconds } from "eks-platform-kernel";
import type { Cluster, SimNode, SimPod } from "./cluster";
import type { EvictionApi, Refusal } from "./eviction";
import { DO_NOT_DISRUPT } from "./model";
import type { Rescheduling } from "./placement";
import { finalizeClaims } from "./provisioning";
import type { GroupReport, SlowestPod } from "./report";

/** What happens when a node's drain outlasts its window. */
export type Expiry =
    /** The rollout fails (EKS `PodEvictionFailure`). */
    | "fail"
    /** The instance is terminated with whatever still runs on it (lifecycle hook heartbeat). */
    | "kill"
    /** Remaining pods are deleted early enough to get their grace period (Karpenter `terminationGracePeriod`). */
    | "delete";

export interface Window {
    seconds: number;
    source: string;
    expiry: Expiry;
}

/** A drain's outcome: each node's drain time, when it started, the pod that left last, and why it stalls. */
export interface DrainResult {
    perNode: Map<SimNode, number>;
    evictions: number;
    start: number;
    slowest?: SlowestPod;
    stalled?: string;
}

/** What a drain needs of the rollout it runs in (rollout.ts `Rollout`): its clock, its copy of the cluster, and what becomes of a pod that leaves. */
export interface DrainContext {
    readonly clock: number;
    readonly wave: number;
    readonly cluster: Cluster;
    readonly report: GroupReport;
    readonly evictions: EvictionApi;
    readonly rescheduling: Rescheduling;
    /** Moves the clock to `to`, marking Ready the pods whose time has come. */
    advance(to: number): void;
    /** The next time after `after` a rescheduled pod gets Ready, if any. */
    nextEvent(after: number): number | undefined;
    /** Removes a pod from its node at `t` and lets its controller replace it. */
    remove(pod: SimPod, t: number, cause: string): void;
}

/** A pod a refusal holds, since when, on which node. */
type Held = Refusal & { since: number; node: SimNode };

/**
 * Drains `nodes` in parallel from the current clock: evictions honour the budgets, waiting for
 * rescheduled pods to get Ready; returns each node's drain time, the pod that leaves last, and
 * whether the rollout stalls.
 */
export function drain(
    run: DrainContext,
    nodes: readonly SimNode[],
    window: Window | undefined,
    options: { respectDoNotDisrupt?: boolean } = {},
): DrainResult {
    return new Drain(run, nodes, window, options.respectDoNotDisrupt === true).run();
}

class Drain {
    private readonly start: number;
    private readonly perNode: Map<SimNode, number>;
    private slowest: SlowestPod | undefined;
    private slowestSeconds = -1;
    private readonly waiting = new Map<SimPod, Held>();
    private readonly queue: { pod: SimPod; node: SimNode }[] = [];
    private evictions = 0;
    private t: number;
    private readonly deadline: number | undefined;
    private stalled: string | undefined;

    constructor(
        private readonly context: DrainContext,
        private readonly nodes: readonly SimNode[],
        private readonly window: Window | undefined,
        private readonly respectDoNotDisrupt: boolean,
    ) {
        this.start = context.clock;
        this.perNode = new Map<SimNode, number>(nodes.map((n) => [n, 0]));
        for (const node of [...nodes].sort((a, b) => a.order - b.order)) {
            node.cordoned = true;
            for (const pod of [...node.pods].sort((a, b) => (a.name < b.name ? -1 : 1))) {
                this.queue.push({ pod, node });
            }
        }
        this.t = this.start;
        this.deadline = window ? this.start + window.seconds : undefined;
    }

    run(): DrainResult {
        const { context, window, queue } = this;
        if (window && window.seconds === 0) {
            return this.withoutDrain(window);
        }
        for (;;) {
            this.evictWhatMayGo();
            finalizeClaims(context.cluster);
            if (queue.length === 0) {
                break;
            }
            const next = context.nextEvent(this.t);
            const deadline = this.deadline;
            const limit = deadline !== undefined && window?.expiry === "delete" ? this.deleteTime(deadline) : deadline;
            if (limit !== undefined && (next === undefined || next > limit)) {
                if (this.windowEnds(limit, next)) {
                    break;
                }
                continue;
            }
            if (next === undefined) {
                this.stalled = `the evictions from ${this.nodes.map((n) => n.name).join(", ")} can never finish`;
                this.recordBlocked(true);
                break;
            }
            this.t = next;
            context.advance(this.t);
        }
        return this.result();
    }

    /** A node's drain lasts until its last pod is gone. */
    private note(
        node: SimNode,
        seconds: number,
        pod: SimPod,
        left: SlowestPod["left"],
        at: number | undefined,
        pdb: string | undefined,
        doNotDisrupt?: true,
    ): void {
        this.perNode.set(node, Math.max(this.perNode.get(node) ?? 0, seconds));
        if (seconds > this.slowestSeconds) {
            this.slowestSeconds = seconds;
            this.slowest = {
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
    }

    /** No drain at all (a window of 0): the instance goes with its pods. */
    private withoutDrain(window: Window): DrainResult {
        const { context, perNode, evictions, start } = this;
        for (const { pod, node } of this.queue) {
            context.report.killed.push({
                ...this.podEntry(pod),
                how: `${window.source}: the instance is terminated without a drain`,
            });
            perNode.set(node, 0);
            context.remove(pod, this.t, `its pod ${pod.name} is killed when node ${node.name} terminates without a drain`);
        }
        finalizeClaims(context.cluster);
        return { perNode, evictions, start };
    }

    /** One pass over the pods still on the nodes: each the Eviction API lets go is evicted now; the others wait. */
    private evictWhatMayGo(): void {
        const { context, queue, waiting, t } = this;
        for (let i = 0; i < queue.length; i++) {
            const { pod, node } = queue[i];
            const refusal = context.evictions.refusal(pod, this.respectDoNotDisrupt);
            if (refusal) {
                if (!waiting.has(pod)) {
                    waiting.set(pod, { since: t, ...refusal, node });
                }
                continue;
            }
            const waited = waiting.get(pod);
            if (waited) {
                waiting.delete(pod);
                this.recordWait(pod, waited, t);
            }
            queue.splice(i--, 1);
            this.evictions++;
            this.evicted(pod, node, t, t + pod.workload.model.pod.graceSeconds, waited);
            context.remove(pod, t, `its last ready pod ${pod.name} is evicted from node ${node.name}`);
        }
    }

    /** `pod` is evicted at `at` and gone at `end`: past a window that does not fail the rollout, it is cut short. */
    private evicted(pod: SimPod, node: SimNode, at: number, end: number, held?: { pdb: string; urn?: string }): void {
        const { start, deadline, window } = this;
        this.note(node, end - start, pod, "evicted", at - start, held?.pdb);
        if (deadline !== undefined && end > deadline && window && window.expiry !== "fail") {
            this.context.report.killed.push({
                ...this.podEntry(pod),
                ...(held ? { pdb: held.pdb, ...(held.urn ? { pdbUrn: held.urn } : {}) } : {}),
                how: `it needs until ${formatSeconds(Math.round(end - start))} into the drain (evicted at ${formatSeconds(Math.round(at - start))}, grace period ${formatSeconds(pod.workload.model.pod.graceSeconds)}), past the ${formatSeconds(window.seconds)} ${window.source}`,
            });
        }
    }

    /**
     * The clock reaches `limit` (the window's end, or Karpenter's next deletion) before any pod
     * gets Ready: the update fails, or what is left is deleted (Karpenter) or dies with the
     * instance (ASG). Returns whether the drain is over.
     */
    private windowEnds(limit: number, next: number | undefined): boolean {
        const { context, window, start } = this;
        this.t = Math.max(this.t, limit);
        context.advance(this.t);
        if (window?.expiry === "fail") {
            // Every node that still holds pods has drained for the whole window.
            for (const { pod, node } of this.queue) {
                this.note(node, this.t - start, pod, "held", undefined, this.waiting.get(pod)?.pdb);
            }
            const nodes = this.nodes;
            this.stalled = `node${nodes.length > 1 ? "s" : ""} ${nodes.map((n) => n.name).join(", ")} still hold${nodes.length > 1 ? "" : "s"} pods after ${formatSeconds(window.seconds)} (${window.source}): PodEvictionFailure`;
            this.recordBlocked(next === undefined);
            return true;
        }
        for (const { pod, node } of [...this.queue]) {
            if (window?.expiry === "delete" && this.t < this.deadline! - pod.workload.model.pod.graceSeconds) {
                continue;
            }
            this.queue.splice(
                this.queue.findIndex((q) => q.pod === pod),
                1,
            );
            this.leavesAtWindowEnd(pod, node);
        }
        finalizeClaims(context.cluster);
        return this.queue.length === 0;
    }

    /** A pod still on its node when the window ends: deleted past what held it (in time for its grace period, or too late), or terminated with its instance. */
    private leavesAtWindowEnd(pod: SimPod, node: SimNode): void {
        const { context, window, start, t } = this;
        const deadline = this.deadline!;
        const held = this.waiting.get(pod);
        const grace = pod.workload.model.pod.graceSeconds;
        const entry = {
            ...this.podEntry(pod),
            ...(held?.doNotDisrupt
                ? { doNotDisrupt: true as const }
                : held
                  ? { pdb: held.pdb, ...(held.urn ? { pdbUrn: held.urn } : {}) }
                  : {}),
        };
        if (window?.expiry === "delete" && t + grace <= deadline) {
            // Deleted early enough for its whole grace period: past its budget, not cut short.
            context.report.deleted.push({ ...entry, node: node.name, at: t - start });
        } else {
            context.report.killed.push({
                ...entry,
                how:
                    window?.expiry === "delete"
                        ? `Karpenter deletes it past ${held?.doNotDisrupt ? `its ${DO_NOT_DISRUPT} annotation` : `its PodDisruptionBudget ${held?.pdb ?? ""}`} at ${formatSeconds(t - start)}, too late for its ${formatSeconds(grace)} grace period to end by the ${formatSeconds(window.seconds)} ${window.source}`
                        : `still on node ${node.name} when the ${formatSeconds(window!.seconds)} ${window!.source} ends and the instance is terminated`,
            });
        }
        this.waiting.delete(pod);
        // The node is gone when the window ends, whatever still runs on it.
        if (window?.expiry === "delete") {
            // A do-not-disrupt pod is held by its annotation, not by a budget.
            this.note(
                node,
                Math.min(t - start + grace, window.seconds),
                pod,
                "deleted",
                t - start,
                held?.doNotDisrupt ? undefined : held?.pdb,
                held?.doNotDisrupt,
            );
        } else {
            this.note(node, t - start, pod, "terminated", undefined, held?.pdb);
        }
        context.remove(
            pod,
            t,
            window?.expiry === "delete"
                ? `its pod ${pod.name} is deleted from node ${node.name} despite its ${held?.doNotDisrupt ? DO_NOT_DISRUPT : "budget"}`
                : `its pod ${pod.name} is terminated with node ${node.name} when the ${window!.source} ends`,
        );
    }

    /** The drain's outcome; an EKS update also fails when a pod evicted in time is still terminating at the window's end. */
    private result(): DrainResult {
        const { context, window, perNode, evictions, start, slowest } = this;
        if (this.stalled === undefined && window?.expiry === "fail") {
            const late = [...perNode].filter(([, seconds]) => seconds > window.seconds).map(([n]) => n.name);
            if (late.length > 0) {
                this.stalled = `pods on ${late.join(", ")} are still terminating after ${formatSeconds(window.seconds)} (${window.source}): PodEvictionFailure`;
                // The update fails when the window ends, not when the pods were evicted.
                context.advance(start + window.seconds);
            }
        }
        const stalled = this.stalled;
        if (stalled === undefined) {
            for (const [pod, w] of this.waiting) {
                this.recordWait(pod, w, this.t);
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
            wave: this.context.wave,
            graceSeconds: w.pod.graceSeconds,
        };
    }

    /** A budget held `pod` from `w.since` until `t`, then let it go. */
    private recordWait(pod: SimPod, w: { since: number; pdb: string }, t: number): void {
        this.context.report.waits.push({
            pod: pod.name,
            workload: pod.workload.model.id,
            pdb: w.pdb,
            wave: this.context.wave,
            seconds: t - w.since,
        });
    }

    /** The earliest time Karpenter deletes one of the held pods: the window's end minus that pod's grace period. */
    private deleteTime(deadline: number): number {
        return Math.min(...this.queue.map((q) => deadline - q.pod.workload.model.pod.graceSeconds));
    }

    /** Every pod still held is blocked: for good (`forever`), or still waiting when the window ends. */
    private recordBlocked(forever: boolean): void {
        const { context } = this;
        for (const [pod, w] of this.waiting) {
            const pendingPeers = context.rescheduling.waitingOf(pod.workload);
            context.report.blocked.push({
                pod: pod.name,
                node: w.node.name,
                workload: pod.workload.model.id,
                ...(pod.workload.model.urn ? { workloadUrn: pod.workload.model.urn } : {}),
                pdb: w.pdb,
                ...(w.urn ? { pdbUrn: w.urn } : {}),
                wave: context.wave,
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
}
