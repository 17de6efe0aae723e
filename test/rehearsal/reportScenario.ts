/**
 * Hand-built reports for the tests of rehearsal/report.ts (report.problems.test.ts,
 * report.format.test.ts): a group or a rehearsal with only the fields a test sets, so each
 * expected line follows from the values the test chose, not from a run of the engine.
 */
import type { GroupReport, Rehearsal } from "eks-platform-rehearsal";

type Wave = GroupReport["waves"][number];

/** A group that passes with nothing to report: two m6i.large nodes, no waves, no windows. */
export function group(over: Partial<GroupReport> = {}): GroupReport {
    return {
        name: "apps",
        kind: "managed",
        urn: "urn:group:apps",
        resource: "nodegroups-apps",
        mechanism: "EKS managed rolling update: 1 node at a time",
        nodes: 2,
        instanceType: "m6i.large",
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
        undecided: [],
        notes: [],
        ...over,
    };
}

/** A wave that drains nothing and launches nothing, lasting `seconds`. */
export function wave(seconds: number, over: Partial<Wave> = {}): Wave {
    return { phase: "upgrade", drained: [], launched: [], evictions: 0, drainSeconds: 0, seconds, ...over };
}

/** A rehearsal of these groups that passes, in zones a, b. */
export function rehearsal(over: Partial<Rehearsal> = {}): Rehearsal {
    return {
        verdict: "ok",
        zones: ["a", "b"],
        groups: [],
        unschedulable: [],
        undecided: [],
        inputUndecided: [],
        advisories: [],
        notModelled: [],
        problems: [],
        requestPaths: [],
        ...over,
    };
}

/** A house-style message's three parts (kernel `violation`: `<what>. Why: <why>. Fix: <fix>.`). */
export function split(message: string): { what: string; why: string; fix: string } {
    const m = /^(.*?) Why: (.*?) Fix: (.*)$/s.exec(message);
    if (!m) {
        throw new Error(`not a what/why/fix message: ${message}`);
    }
    return { what: m[1], why: m[2], fix: m[3] };
}

export const SPOT = { seconds: 120, source: "Spot interruption notice" };
export const EKS_LIMIT = { seconds: 900, source: "EKS eviction limit (PodEvictionFailure)" };
