/**
 * One group's rollout, replayed on its own copy of the initial placement on a clock: what every
 * rollout method (rollouts/) shares. A pod that leaves its node is recreated by its controller and
 * placed again (placement.ts `Rescheduling`), Ready after its start time; a workload left with no
 * ready replica is recorded with the Services it leaves without an endpoint; each wave is recorded
 * as the method runs it, its drains timed by drain.ts through the Eviction API (eviction.ts).
 */
import type { Cluster, SimNode, SimPod, WorkloadState } from "./cluster";
import type { DrainContext, DrainResult } from "./drain";
import { EvictionApi } from "./eviction";
import { Rescheduling } from "./placement";
import type { GroupReport, WaveReport } from "./report";

interface ReadyEvent {
    pod: SimPod;
    at: number;
}

/** One group's rollout on its own copy of the cluster. */
export class Rollout implements DrainContext {
    clock = 0;
    wave = 0;
    readonly evictions: EvictionApi;
    readonly rescheduling: Rescheduling;
    private readonly events: ReadyEvent[] = [];
    private readonly zero = new Set<WorkloadState>();

    constructor(
        readonly cluster: Cluster,
        readonly report: GroupReport,
    ) {
        this.evictions = new EvictionApi(cluster);
        this.rescheduling = new Rescheduling(cluster, report.unplaced, (pod, at) => this.events.push({ pod, at }));
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

    nextEvent(after: number): number | undefined {
        let next: number | undefined;
        for (const e of this.events) {
            if (e.at > after && (next === undefined || e.at < next)) {
                next = e.at;
            }
        }
        return next;
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
    remove(pod: SimPod, t: number, cause: string): void {
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
        this.rescheduling.place(replacement, t, createdAt, this.wave);
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
        this.rescheduling.retry(this.clock);
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
        this.rescheduling.retry(this.clock);
        this.report.estimatedSeconds = this.clock;
    }
}

/** Where a wave's drain starts within it, and the pod that leaves its nodes last. */
function drainOf(result: DrainResult, waveStart: number): Pick<WaveReport, "drainStart" | "slowest"> {
    return { drainStart: result.start - waveStart, ...(result.slowest ? { slowest: result.slowest } : {}) };
}
