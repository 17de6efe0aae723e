/**
 * What a rehearsal reports, per group and for the stack: waves, blocked evictions, pods with
 * nowhere to go, workloads reaching zero ready replicas, drains against their windows, and the
 * problems behind a non-zero exit, each as a message in the house style; and the report as text
 * and as Markdown (problems first, then passing groups, undecided and not-modelled items, then
 * each group's timeline). Pods that fit nowhere before any rollout are a problem (or, where the
 * input holds only part of the cluster, an undecided item), so the report lists them once, there.
 */
import { formatSeconds, listOf } from "eks-platform-kernel";
import { violation } from "eks-platform-evaluation";
import { DO_NOT_DISRUPT } from "./model";
import type { RequestPathReport } from "./requestPaths";
import { EKS_EVICTION_TIMEOUT_SECONDS } from "./timing";

export type Verdict = "ok" | "blocked" | "undecided";

export interface WaveReport {
    phase: "scale-up" | "upgrade" | "scale-down" | "refresh" | "drift" | "expiry";
    /** Nodes drained and removed in this wave. */
    drained: string[];
    /** Nodes launched in this wave. */
    launched: string[];
    evictions: number;
    /** Longest drain of a node of this wave (evictions and grace periods). */
    drainSeconds: number;
    /** Seconds from the wave's start to its drain's (a replacement may launch first); set when it drains nodes. */
    drainStart?: number;
    /** The pod that leaves the wave's nodes last: what sets `drainSeconds`. */
    slowest?: SlowestPod;
    seconds: number;
}

/** The pod whose departure ends a drain. */
export interface SlowestPod {
    pod: string;
    workload: string;
    workloadUrn?: string;
    node: string;
    /**
     * How it left: `evicted`; `deleted` past its budget by Karpenter's terminationGracePeriod;
     * `terminated` with its instance when the window ended; `held` on the node when the update failed.
     */
    left: "evicted" | "deleted" | "terminated" | "held";
    /** Seconds into the drain it was evicted or deleted. */
    at?: number;
    graceSeconds: number;
    /** The PodDisruptionBudget that held it first, if one did. */
    pdb?: string;
    /** Held by its `karpenter.sh/do-not-disrupt` annotation (Karpenter never evicts it) until deleted. */
    doNotDisrupt?: true;
}

export interface EvictionWait {
    pod: string;
    workload: string;
    pdb: string;
    wave: number;
    seconds: number;
}

export interface BlockedEviction {
    pod: string;
    node: string;
    workload: string;
    workloadUrn?: string;
    /** The budget that refused it (several when the pod has more than one). */
    pdb: string;
    pdbUrn?: string;
    wave: number;
    /** `forever`: the budget allows no disruption at full strength, or the pods it waits for never get Ready. */
    why: string;
}

export interface UnplacedPod {
    pod: string;
    workload: string;
    workloadUrn?: string;
    wave: number;
    reasons: string;
    /** Seconds it waited for a node that a later step launched; absent when it never found one. */
    placedAfterSeconds?: number;
}

export interface ZeroReady {
    workload: string;
    workloadUrn?: string;
    wave: number;
    cause: string;
    /**
     * The Services left with no ready endpoint (requests are dropped); empty when the workload
     * serves nothing (its work is interrupted, no request is dropped).
     */
    services: string[];
}

export interface KilledPod {
    pod: string;
    workload: string;
    workloadUrn?: string;
    wave: number;
    graceSeconds: number;
    /** The PodDisruptionBudget that held it until too late, if one did. */
    pdb?: string;
    pdbUrn?: string;
    /** Held by `karpenter.sh/do-not-disrupt` until Karpenter deleted it too late, not by a budget. */
    doNotDisrupt?: true;
    how: string;
}

/** A pod Karpenter deletes past its budget early enough for its whole grace period (`terminationGracePeriod`). */
export interface DeletedPod {
    /** Held by `karpenter.sh/do-not-disrupt` (Karpenter never evicts it), not by a budget. */
    doNotDisrupt?: true;
    pod: string;
    workload: string;
    workloadUrn?: string;
    node: string;
    wave: number;
    graceSeconds: number;
    pdb?: string;
    pdbUrn?: string;
    /** Seconds into the drain it is deleted. */
    at: number;
}

export interface GroupReport {
    name: string;
    /**
     * The change replayed, when not the group's rollout: `expiry`, an EKS Auto Mode pool's forced
     * expiry (`expireAfter`: no budgets, no replacement first, drain bounded by terminationGracePeriod).
     */
    change?: "expiry";
    kind: "managed" | "selfManaged" | "nodePool";
    urn: string;
    /** Logical name of the resource it was read from. */
    resource: string;
    /** How the platform rolls it, with the settings that decide the waves. */
    mechanism: string;
    nodes: number;
    instanceType?: string;
    verdict: Verdict;
    waves: WaveReport[];
    waits: EvictionWait[];
    blocked: BlockedEviction[];
    unplaced: UnplacedPod[];
    zeroReady: ZeroReady[];
    killed: KilledPod[];
    deleted: DeletedPod[];
    longestDrain?: { node: string; seconds: number };
    /** The time a node has to drain before its pods are cut short or the rollout fails. */
    windows: { seconds: number; source: string }[];
    /** Seconds from the start of the rollout to its end (or to where it stalls). */
    estimatedSeconds: number;
    stalled?: string;
    undecided: string[];
    notes: string[];
}

export interface Rehearsal {
    verdict: Verdict;
    zones: string[];
    groups: GroupReport[];
    /** Pods that fit nowhere before any rollout starts. */
    unschedulable: { pod: string; workload: string; workloadUrn?: string; reasons: string }[];
    /** Everything undecided: values unknown until apply, then what the input cannot tell. */
    undecided: string[];
    /** What the input itself cannot tell (never a value unknown at preview): reported, never failing a run by itself. */
    inputUndecided: string[];
    /** Findings reported at the advisory level (interrupted work that drops no request). */
    advisories: Problem[];
    notModelled: string[];
    problems: Problem[];
    /** One pod's exit on each load balancer's request path (rehearsal/requestPaths.ts). */
    requestPaths: RequestPathReport[];
}

/** One reason for a blocked verdict, as a house-style message, with the resource it is about. */
export interface Problem {
    group?: string;
    /** The URN of the group's resource (names may repeat across kinds: a node group and a NodePool). */
    groupUrn?: string;
    /** The group report's `change` (a pool's forced expiry), when not its rollout. */
    change?: "expiry";
    urn?: string;
    /** The namespace of the workload it is about, when it is about one. */
    namespace?: string;
    /** A pod with nowhere to run: true only of the capacity the rehearsal saw. */
    capacity?: true;
    /** Reported at the advisory level: work is interrupted, no request dropped (never blocks a rollout's verdict). */
    advisory?: true;
    /**
     * A pod cut short: its grace period outlasts its node's drain window, which is true of any one
     * node leaving, not only of every node of a pool leaving together.
     */
    cutShort?: true;
    message: string;
}

const DROP = "a node leaving the cluster would drop requests";

/** A problem, and the workload it is about when it is about one (its namespace is added from it). */
interface Finding {
    problem: Problem;
    workload?: string;
}

/** The problems behind a blocked verdict, one message each, on the resource to change. */
export function problemsOf(
    groups: readonly GroupReport[],
    unschedulable: Rehearsal["unschedulable"],
    namespaceOf: (workload: string) => string | undefined,
): Problem[] {
    const findings: Finding[] = [...unschedulable.map(unschedulableFinding), ...groups.flatMap(groupFindings)];
    return findings.map(({ problem, workload }) => {
        const namespace = workload === undefined ? undefined : namespaceOf(workload);
        return namespace === undefined ? problem : { ...problem, namespace };
    });
}

/** A pod that fits nowhere before any rollout: a capacity problem on its workload, under no group. */
function unschedulableFinding(p: Rehearsal["unschedulable"][number]): Finding {
    return {
        problem: {
            urn: p.workloadUrn,
            capacity: true,
            message: violation(
                `Pod ${p.pod} of ${p.workload} fits on no node of the stack, before any rollout: ${p.reasons}`,
                "it stays Pending, so the workload runs short of replicas, and every drain has less room",
                "lower its requests, tolerate or label for a group that can hold it, or add capacity (node group size, NodePool limits)",
            ),
        },
        workload: p.workload,
    };
}

/** A group report's problems, in order: its stall, blocked evictions, pods with nowhere to run, zero ready, cut short, deleted, Spot. */
function groupFindings(g: GroupReport): Finding[] {
    const subject = groupTitle(g);
    const on = { group: g.name, groupUrn: g.urn, ...(g.change ? { change: g.change } : {}) };
    const about = (workload: string | undefined, problem: Omit<Problem, keyof typeof on>): Finding => ({
        problem: { ...on, ...problem },
        ...(workload !== undefined ? { workload } : {}),
    });
    return [
        ...(g.stalled ? [about(undefined, stallProblem(g, subject))] : []),
        ...g.blocked.map((b) => about(b.workload, blockedProblem(g, subject, b))),
        ...g.unplaced.map((u) => about(u.workload, unplacedProblem(subject, u))),
        ...g.zeroReady.map((z) => about(z.workload, zeroReadyProblem(subject, z))),
        ...g.killed.map((k) => about(k.workload, killedProblem(g, subject, k))),
        ...g.deleted.map((d) => about(d.workload, deletedProblem(g, subject, d))),
        ...spotProblems(g, subject).map(({ problem, workload }) => about(workload, problem)),
    ];
}

/** A budget that blocks an eviction for good, and what each rollout does about it. */
function blockedProblem(g: GroupReport, subject: string, b: BlockedEviction): Pick<Problem, "urn" | "message"> {
    return {
        urn: b.pdbUrn ?? b.workloadUrn,
        message: violation(
            `PodDisruptionBudget ${b.pdb} blocks the eviction of ${b.pod} (${b.workload}) from node ${b.node} of ${subject}, for good, in ${waveAt(g, b.wave)}: ${b.why}`,
            g.kind === "managed"
                ? "EKS gives up after 15 minutes with PodEvictionFailure and the node group update fails"
                : g.kind === "selfManaged"
                  ? "the lifecycle hook's heartbeat runs out and the instance is terminated with the pod still on it"
                  : "Karpenter cannot finish the node's drain until its terminationGracePeriod (if any) deletes the pod anyway",
            "let the budget allow one disruption (maxUnavailable: 1, or minAvailable below the replica count) and give the workload room to reschedule",
        ),
    };
}

/** An evicted pod with nowhere to run during the rollout: a capacity problem on its workload. */
function unplacedProblem(subject: string, u: UnplacedPod): Pick<Problem, "urn" | "capacity" | "message"> {
    return {
        urn: u.workloadUrn,
        capacity: true,
        message: violation(
            `Evicted pod ${u.pod} of ${u.workload} has nowhere to run during the rollout of ${subject} (wave ${u.wave}): ${u.reasons}${u.placedAfterSeconds !== undefined ? `; it waits ${formatSeconds(u.placedAfterSeconds)} for a node launched later` : "; no later step makes room"}`,
            "the workload runs short of replicas while it is Pending, and a budget that counts it blocks the next evictions",
            "leave spare room for a wave (more nodes, surge, smaller requests), or let a NodePool the pod can use provision for it",
        ),
    };
}

/** A workload at zero ready replicas: its Services drop requests, or, serving none, its work pauses (an advisory). */
function zeroReadyProblem(subject: string, z: ZeroReady): Pick<Problem, "urn" | "advisory" | "message"> {
    return z.services.length > 0
        ? {
              urn: z.workloadUrn,
              message: violation(
                  `${z.workload} reaches zero ready replicas during the rollout of ${subject} (wave ${z.wave}): ${z.cause}; ${z.services.join(", ")} ${z.services.length === 1 ? "has" : "have"} no ready endpoint left`,
                  `until a replacement is Ready nothing serves it: ${DROP}`,
                  "run at least two replicas spread across nodes (topology spread on kubernetes.io/hostname) with a PodDisruptionBudget of maxUnavailable: 1",
              ),
          }
        : {
              urn: z.workloadUrn,
              advisory: true,
              message: violation(
                  `${z.workload} reaches zero ready replicas during the rollout of ${subject} (wave ${z.wave}): ${z.cause}`,
                  "no Service sends it requests, so none is dropped, but its work (a queue consumer, a controller) pauses until a replacement is Ready",
                  `run two replicas if the pause matters, or annotate it platform/singleton: "<reason>" to accept it`,
              ),
          };
}

/** A pod cut short: its in-flight work is lost. */
function killedProblem(g: GroupReport, subject: string, k: KilledPod): Pick<Problem, "urn" | "cutShort" | "message"> {
    return {
        urn: k.workloadUrn,
        cutShort: true,
        message: violation(
            `Pod ${k.pod} of ${k.workload} is cut short during the rollout of ${subject} (wave ${k.wave}): ${k.how}`,
            `its in-flight work is lost: ${DROP}`,
            killedFix(g, k),
        ),
    };
}

/** A pod Karpenter deletes past its budget or its do-not-disrupt annotation, in time for its grace period. */
function deletedProblem(g: GroupReport, subject: string, d: DeletedPod): Pick<Problem, "urn" | "message"> {
    const window = drainWindow(g);
    return {
        urn: d.pdbUrn ?? d.workloadUrn,
        message: d.doNotDisrupt
            ? violation(
                  `Pod ${d.pod} of ${d.workload} is annotated karpenter.sh/do-not-disrupt, so Karpenter never evicts it from node ${d.node} of ${subject}: it holds the node ${formatSeconds(d.at)} into the drain (wave ${d.wave}), then Karpenter deletes it so that its ${formatSeconds(d.graceSeconds)} grace period ends by the ${window ? `${formatSeconds(window.seconds)} ${window.source}` : "terminationGracePeriod"}`,
                  "the annotation does not protect the pod from drift: it only delays the deletion, and its work is interrupted all the same",
                  "let drift happen when the work allows (disruption budgets with a schedule, or a terminationGracePeriod longer than the work), or run such pods on a pool whose drift you start by hand",
              )
            : violation(
                  `${d.pdb ? `PodDisruptionBudget ${d.pdb}` : "A budget"} still holds pod ${d.pod} of ${d.workload} on node ${d.node} of ${subject} ${formatSeconds(d.at)} into the drain (wave ${d.wave}): Karpenter deletes it past the budget, in time for its ${formatSeconds(d.graceSeconds)} grace period to end by the ${window ? `${formatSeconds(window.seconds)} ${window.source}` : "terminationGracePeriod"}`,
                  "the pod shuts down cleanly, but the budget is overridden: the workload has fewer ready pods than the budget promises until the replacement is Ready",
                  "let the budget allow one disruption (maxUnavailable: 1, or minAvailable below the replica count) so the drain ends within the terminationGracePeriod, and give the workload room to reschedule",
              ),
    };
}

/** Why a rollout stalls, naming what holds it (a budget, a long shutdown) and the fix for that cause. */
function stallProblem(g: GroupReport, subject: string): Pick<Problem, "urn" | "message"> {
    const when = g.estimatedSeconds > 0 ? `${formatSeconds(g.estimatedSeconds)} after it starts` : "before its first wave";
    const what = `The rollout of ${subject} stalls ${when}: ${g.stalled}`;
    const why = "the update fails part-way, leaving old and new nodes side by side until someone intervenes";
    const last = g.waves[g.waves.length - 1];
    const slow = last?.slowest;
    if (g.kind === "managed" && slow?.left === "evicted" && last.drainSeconds > EKS_EVICTION_TIMEOUT_SECONDS) {
        // Every pod was evicted: a shutdown longer than EKS waits, not a budget, fails the update.
        return {
            urn: slow.workloadUrn ?? g.urn,
            message: violation(
                `${what}. ${slow.workload} is the cause: on node ${slow.node}, its pod ${slow.pod} is ${departure(slow)}, so it terminates ${formatSeconds(last.drainSeconds)} into the drain, past EKS's ${formatSeconds(EKS_EVICTION_TIMEOUT_SECONDS)} limit`,
                why,
                `shorten the grace period of ${slow.workload} (terminationGracePeriodSeconds ${formatSeconds(slow.graceSeconds)}, its preStop hook included) so its pods are gone within ${formatSeconds(EKS_EVICTION_TIMEOUT_SECONDS)} of their eviction, or run it on a self-managed group or NodePool whose window fits its shutdown; then retry the update`,
            ),
        };
    }
    if (g.blocked.length > 0) {
        const budgets = [...new Set(g.blocked.map((b) => b.pdb))];
        const held = [...new Set(g.blocked.map((b) => b.workload))];
        return {
            urn: g.blocked[0].pdbUrn ?? g.urn,
            message: violation(
                `${what}; ${budgets.length > 1 ? "PodDisruptionBudgets" : "PodDisruptionBudget"} ${listOf(budgets, "and")} ${budgets.length > 1 ? "hold" : "holds"} ${listOf(held, "and")}`,
                why,
                `let ${budgets.length > 1 ? "PodDisruptionBudgets" : "PodDisruptionBudget"} ${listOf(budgets, "and")} allow a disruption and make sure evicted pods fit elsewhere${g.kind === "nodePool" ? ", or set the NodePool's terminationGracePeriod so Karpenter deletes held pods in the end" : ""}; then retry the update`,
            ),
        };
    }
    return {
        urn: g.urn,
        message: violation(
            what,
            why,
            g.kind === "nodePool"
                ? "set the NodePool's terminationGracePeriod, let its budgets allow drift, or raise its limits so a replacement fits"
                : "let every PodDisruptionBudget allow a disruption and make sure evicted pods fit elsewhere, then retry the update",
        ),
    };
}

/** The window a pod cut short ran out of, and the fix for what made it late: a budget, its own grace period, or no drain at all. */
function killedFix(g: GroupReport, k: KilledPod): string {
    const window = drainWindow(g);
    if (g.kind === "selfManaged" && !window) {
        return "add an EC2_INSTANCE_TERMINATING lifecycle hook to the group with a heartbeat longer than its drains, and run the Node Termination Handler so instances are drained before they terminate";
    }
    const longer = g.kind === "selfManaged" ? "raise the lifecycle hook's heartbeatTimeout" : "raise the NodePool's terminationGracePeriod";
    const size = window ? `${formatSeconds(window.seconds)} ${window.source}` : "window";
    if (window && k.graceSeconds > window.seconds) {
        return `shorten the grace period of ${k.workload} (terminationGracePeriodSeconds ${formatSeconds(k.graceSeconds)}, its preStop hook included) to well within the ${size}, or ${longer}`;
    }
    if (k.pdb) {
        return `let PodDisruptionBudget ${k.pdb} allow more disruptions at once, so the pods of ${k.workload} are evicted early enough for their ${formatSeconds(k.graceSeconds)} grace period, or ${longer}`;
    }
    return `make the drain fit the ${size}: budgets that let evictions proceed, a grace period for ${k.workload} shorter than ${formatSeconds(k.graceSeconds)}, or ${longer}`;
}

/** One problem per workload whose pod keeps a node draining past the Spot notice, at its worst wave. */
function spotProblems(g: GroupReport, subject: string): { problem: Pick<Problem, "urn" | "message">; workload?: string }[] {
    const spot = g.windows.find((w) => w.source.startsWith("Spot"));
    if (!spot) {
        return [];
    }
    const worst = new Map<string | undefined, number>();
    g.waves.forEach((wave, i) => {
        const key = wave.slowest?.workload;
        const known = worst.get(key);
        if (wave.drainSeconds > spot.seconds && (known === undefined || wave.drainSeconds > g.waves[known].drainSeconds)) {
            worst.set(key, i);
        }
    });
    const notice = `${formatSeconds(spot.seconds)} ${spot.source}`;
    const why = `on an interruption EC2 reclaims the instance before its pods have left: ${DROP}`;
    const offSpot = "or keep it off Spot capacity (node affinity karpenter.sh/capacity-type NotIn spot, or an on-demand group)";
    return [...worst.values()].map((i) => {
        const wave = g.waves[i];
        const s = wave.slowest;
        if (!s) {
            return {
                problem: {
                    urn: g.urn,
                    message: violation(
                        `A node of ${subject} takes ${formatSeconds(wave.drainSeconds)} to drain in ${waveAt(g, i + 1)}, longer than the ${notice}`,
                        why,
                        "shorten grace periods and budget waits on Spot capacity, or run such workloads on on-demand capacity",
                    ),
                },
            };
        }
        const fix =
            s.graceSeconds > spot.seconds
                ? `shorten the grace period of ${s.workload} (terminationGracePeriodSeconds ${formatSeconds(s.graceSeconds)}, its preStop hook included) to fit the ${formatSeconds(spot.seconds)} notice, ${offSpot}`
                : s.pdb
                  ? `let PodDisruptionBudget ${s.pdb} allow more disruptions at once so the pods of ${s.workload} leave within the ${formatSeconds(spot.seconds)} notice, ${offSpot}`
                  : `make the pods of ${s.workload} leave within the ${formatSeconds(spot.seconds)} notice, ${offSpot}`;
        return {
            workload: s.workload,
            problem: {
                urn: s.workloadUrn ?? g.urn,
                message: violation(
                    `${s.workload} keeps node ${s.node} of ${subject} draining for ${formatSeconds(wave.drainSeconds)} in ${waveAt(g, i + 1)}, longer than the ${notice}: its pod ${s.pod} is ${departure(s)}`,
                    why,
                    fix,
                ),
            },
        };
    });
}

/** The window a group's nodes drain in, other than the Spot notice: the heartbeat, `terminationGracePeriod`, EKS's limit. */
function drainWindow(g: GroupReport): GroupReport["windows"][number] | undefined {
    return g.windows.find((w) => !w.source.startsWith("Spot"));
}

/** How the last pod left a drained node, on the drain's clock: `evicted at 30s, then takes its 2m grace period`. */
function departure(s: SlowestPod): string {
    const at = formatSeconds(s.at ?? 0);
    const grace = `then takes its ${formatSeconds(s.graceSeconds)} grace period`;
    const pdb = s.doNotDisrupt ? `its ${DO_NOT_DISRUPT} annotation` : s.pdb ? `PodDisruptionBudget ${s.pdb}` : "its budget";
    switch (s.left) {
        case "evicted":
            return s.pdb ? `held by ${pdb} until it is evicted at ${at}, ${grace}` : `evicted at ${at}, ${grace}`;
        case "deleted":
            return `held by ${pdb} until Karpenter deletes it at ${at}, ${grace}`;
        case "terminated":
            return `${s.pdb ? `held by ${pdb} and ` : ""}still running when the window ends: terminated with its instance`;
        case "held":
            return `held by ${pdb}: never evicted`;
    }
}

export function kindName(kind: GroupReport["kind"]): string {
    return kind === "managed" ? "managed node group" : kind === "selfManaged" ? "self-managed node group" : "NodePool";
}

/** A group report as messages name it: `NodePool system`, `NodePool system (forced expiry)`. */
export function groupTitle(g: Pick<GroupReport, "kind" | "name" | "change">): string {
    return `${kindName(g.kind)} ${groupName(g)}`;
}

/** A group report's name with the change it replays: `system`, `system (forced expiry)`. */
function groupName(g: Pick<GroupReport, "name" | "change">): string {
    return g.change === "expiry" ? `${g.name} (forced expiry)` : g.name;
}

/** Whether a problem is about this group report (its group and the change replayed). */
export function ownsProblem(g: GroupReport, p: Problem): boolean {
    return p.groupUrn === g.urn && (p.group === undefined || p.group === g.name) && p.change === g.change;
}

/** A wave's span on the rollout's clock: each starts where the one before ends. */
interface WaveSpan {
    n: number;
    wave: WaveReport;
    start: number;
    end: number;
    /** The drain, on the same clock, when the wave drains nodes. */
    drain?: { start: number; end: number };
    /** The windows its drain runs past. */
    over: GroupReport["windows"];
    /** The rollout stalls in this wave. */
    stalls: boolean;
}

function spans(g: GroupReport): WaveSpan[] {
    let t = 0;
    return g.waves.map((wave, i) => {
        const start = t;
        t += wave.seconds;
        const drains = wave.drained.length > 0;
        const drainStart = start + (wave.drainStart ?? 0);
        return {
            n: i + 1,
            wave,
            start,
            end: t,
            ...(drains ? { drain: { start: drainStart, end: drainStart + wave.drainSeconds } } : {}),
            over: drains ? g.windows.filter((w) => wave.drainSeconds > w.seconds) : [],
            stalls: g.stalled !== undefined && i === g.waves.length - 1,
        };
    });
}

/** `wave 2 (2m–5m into the rollout)`: a wave and where it sits on the rollout's clock. */
function waveAt(g: GroupReport, n: number): string {
    const span = spans(g)[n - 1];
    return span ? `wave ${n} (${formatSeconds(span.start)}–${formatSeconds(span.end)} into the rollout)` : `wave ${n}`;
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** What a wave moves: `drain general-1 from 2m to 6m 10s (4m 10s, 4 evictions; last out redis-cluster-4 of …); launch general-4`. */
function describeWave(s: WaveSpan): string {
    const w = s.wave;
    const parts: string[] = [];
    if (s.drain) {
        const evictions = w.evictions === 0 && w.drainSeconds === 0 ? "no pods to evict" : plural(w.evictions, "eviction");
        const last = w.slowest ? `; last out ${w.slowest.pod} of ${w.slowest.workload}, ${departure(w.slowest)}` : "";
        parts.push(
            w.drainSeconds > 0
                ? `drain ${w.drained.join(", ")} from ${formatSeconds(s.drain.start)} to ${formatSeconds(s.drain.end)} (${formatSeconds(w.drainSeconds)}, ${evictions}${last})`
                : `drain ${w.drained.join(", ")} at ${formatSeconds(s.drain.start)} (${evictions})`,
        );
    }
    if (w.launched.length > 0) {
        // Replacements launched before the drain (Karpenter, a launch-first refresh) come first.
        const launch = `launch ${w.launched.join(", ")}`;
        if ((w.drainStart ?? 0) > 0) {
            parts.unshift(launch);
        } else {
            parts.push(launch);
        }
    }
    return parts.join("; ") || "nothing to move";
}

/** Each window against the longest drain that runs in it. */
function describeWindows(g: GroupReport): string[] {
    const longest = g.longestDrain;
    if (g.nodes === 0) {
        return [];
    }
    return g.windows.map((w) => {
        const against = !longest
            ? "no drain (the rollout stops before one)"
            : longest.seconds === 0
              ? "no node has pods to drain"
              : `longest drain ${formatSeconds(longest.seconds)} (${longest.node})`;
        const verdict =
            !longest || longest.seconds === 0
                ? ""
                : longest.seconds > w.seconds
                  ? `, over by ${formatSeconds(longest.seconds - w.seconds)}`
                  : longest.seconds === w.seconds
                    ? ", reaches it"
                    : ", fits";
        return `${formatSeconds(w.seconds)} ${w.source}: ${against}${verdict}`;
    });
}

/** `15m 20s`, `17m until it stalls`, `stalls before its first wave`: how long the rollout takes. */
function timeOf(g: GroupReport): string {
    if (!g.stalled) {
        return formatSeconds(g.estimatedSeconds);
    }
    return g.estimatedSeconds > 0 ? `${formatSeconds(g.estimatedSeconds)} until it stalls` : "stalls before its first wave";
}

function summaryOf(g: GroupReport): string {
    return `${plural(g.nodes, "node")}${g.instanceType ? ` (${g.instanceType})` : ""}`;
}

/** Splits a house-style message into what, why and fix, for display. */
function parts(message: string): { what: string; why?: string; fix?: string } {
    const m = /^(.*?) Why: (.*?) Fix: (.*)$/s.exec(message);
    return m ? { what: m[1], why: m[2], fix: m[3] } : { what: message };
}

/** Problems by group, in the order of the groups; pods that fit nowhere before any rollout first. */
function problemsByGroup(r: Rehearsal): { group?: GroupReport; problems: Problem[] }[] {
    const before = r.problems.filter((p) => p.groupUrn === undefined);
    const out: { group?: GroupReport; problems: Problem[] }[] = before.length > 0 ? [{ problems: before }] : [];
    for (const g of r.groups) {
        const own = r.problems.filter((p) => ownsProblem(g, p));
        if (own.length > 0) {
            out.push({ group: g, problems: own });
        }
    }
    return out;
}

function verdictLine(r: Rehearsal): string {
    const blocked = r.groups.filter((g) => g.verdict === "blocked").map((g) => groupTitle(g));
    return r.verdict === "blocked"
        ? `BLOCKED: ${plural(r.problems.length, "problem")}${blocked.length > 0 ? ` in ${listOf(blocked, "and")}` : ""}, listed first above.`
        : r.verdict === "undecided"
          ? "UNDECIDED: no blocker found in what is known, but the items above could not be judged (not a pass)."
          : "OK: every rollout completes without a blocked eviction, a pod with nowhere to run or a workload at zero ready replicas.";
}

function notModelled(r: Rehearsal, limit: number): string {
    return `${r.notModelled.slice(0, limit).join("; ")}${r.notModelled.length > limit ? "; …" : ""}`;
}

/**
 * The rehearsal as text: problems first (by group, each with what, why and fix), then the passing
 * groups one line each, what is undecided and not modelled, then each group's timeline.
 */
export function formatRehearsal(r: Rehearsal, stack?: string): string {
    const lines: string[] = [
        `Drain rehearsal${stack ? ` of stack "${stack}"` : ""}: ${plural(r.groups.length, "group")}, zones ${r.zones.join(", ")} — ${r.verdict.toUpperCase()}`,
    ];
    const byGroup = problemsByGroup(r);
    if (byGroup.length > 0) {
        lines.push("", `Problems (${r.problems.length}):`);
        let i = 0;
        for (const { group, problems } of byGroup) {
            lines.push(
                "",
                group
                    ? `${groupTitle(group)}: ${summaryOf(group)}, ${group.verdict.toUpperCase()}, ${timeOf(group)}`
                    : "Before any rollout:",
            );
            for (const p of problems) {
                const { what, why, fix } = parts(p.message);
                lines.push(`  ${++i}. ${what}`);
                if (why !== undefined) {
                    lines.push(`     Why: ${why}`);
                }
                if (fix !== undefined) {
                    lines.push(`     Fix: ${fix}`);
                }
            }
        }
    }
    const table = (groups: GroupReport[]) => {
        const rows = groups.map((g) => [
            groupName(g),
            kindName(g.kind),
            plural(g.nodes, "node"),
            formatSeconds(g.estimatedSeconds),
            g.verdict,
        ]);
        const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
        return rows.map((row) => `  ${row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]))).join("  ")}`);
    };
    const passing = r.groups.filter((g) => g.verdict === "ok");
    if (passing.length > 0) {
        lines.push("", "Passing groups:", ...table(passing));
    }
    if (r.advisories.length > 0) {
        lines.push("", "Advisory (work interrupted, no request dropped):");
        lines.push(...r.advisories.map((a) => `  - ${a.message}`));
    }
    const undecidedGroups = r.groups.filter((g) => g.verdict === "undecided");
    if (undecidedGroups.length > 0 || r.undecided.length > 0) {
        lines.push("", "Undecided (values unknown until apply, or not in the data):");
        if (undecidedGroups.length > 0) {
            lines.push(...table(undecidedGroups));
        }
        lines.push(...r.undecided.map((u) => `  - ${u}`));
    }
    if (r.notModelled.length > 0) {
        lines.push("", `Not modelled (${r.notModelled.length}): ${notModelled(r, 8)}`);
    }
    if (r.groups.length > 0) {
        lines.push("", "Timelines:");
        for (const g of r.groups) {
            lines.push("", ...textTimeline(g));
        }
    }
    if (r.requestPaths.length > 0) {
        lines.push("", `${REQUEST_PATH_TITLE}:`);
        for (const p of r.requestPaths) {
            const width = Math.max(...p.phases.map((x) => formatSeconds(x.at).length));
            lines.push("", `${p.workload}, container "${p.container}" — ${p.path}:`);
            lines.push(...p.phases.map((x) => `  ${formatSeconds(x.at).padStart(width)}  ${x.what}`));
            lines.push(`  ${exitVerdict(p)}`);
        }
    }
    lines.push("", verdictLine(r));
    return lines.join("\n");
}

/** A group's timeline: its mechanism, its waves on the rollout's clock, its drains against their windows, waits and notes. */
function textTimeline(g: GroupReport): string[] {
    const lines = [`${groupTitle(g)}: ${summaryOf(g)}, ${g.verdict.toUpperCase()}, ${timeOf(g)}`, `  rollout: ${g.mechanism}`];
    const waves = spans(g);
    const ranges = waves.map((s) => `${formatSeconds(s.start)} → ${formatSeconds(s.end)}`);
    const width = Math.max(0, ...ranges.map((x) => x.length));
    waves.forEach((s, i) => {
        const flags = [
            ...s.over.map((w) => `over the ${formatSeconds(w.seconds)} ${w.source} by ${formatSeconds(s.wave.drainSeconds - w.seconds)}`),
            ...(s.stalls ? ["STALLS here"] : []),
        ];
        lines.push(
            `  ${ranges[i].padEnd(width)}  wave ${s.n} ${s.wave.phase}: ${describeWave(s)}${flags.length > 0 ? ` — ${flags.join("; ")}` : ""}`,
        );
    });
    if (waves.length === 0) {
        lines.push(
            g.nodes === 0 ? "  no waves: the group has no nodes to replace" : `  no wave starts: ${g.stalled ?? "nothing to replace"}`,
        );
    }
    const end = waves.length > 0 ? waves[waves.length - 1].end : 0;
    if (g.estimatedSeconds > end && !g.stalled) {
        lines.push(`  ${formatSeconds(g.estimatedSeconds)}: the last rescheduled pod is Ready`);
    }
    if (g.stalled && waves.length > 0) {
        lines.push(`  stalls: ${g.stalled}`);
    }
    lines.push(...describeWindows(g).map((w) => `  window: ${w}`));
    for (const w of g.waits) {
        lines.push(
            `  wait: ${w.pod} (${w.workload}) waits ${formatSeconds(w.seconds)} in wave ${w.wave} for PDB ${w.pdb} until rescheduled pods are Ready`,
        );
    }
    lines.push(...g.notes.map((n) => `  note: ${n}`));
    return lines;
}

const REQUEST_PATH_TITLE = "Request paths (one pod's exit, seconds after its deletion; workload-request-path judges them)";

/** A request path's verdict line: where requests fail, or that none does. */
function exitVerdict(p: RequestPathReport): string {
    return p.gaps.length === 0
        ? "OK: routing stops before the app does, the target drains before the pod dies, and the node outlives both"
        : `DROPS REQUESTS: ${p.gaps.map((g) => `${formatSeconds(g.from)} → ${formatSeconds(g.to)}, ${g.why}`).join("; ")}`;
}

/** Text for a Mermaid task or section name: no `:`, `;` or `#`, which the gantt syntax reserves. */
function mermaidName(text: string): string {
    return text.replace(/[:;#]/g, " ").replace(/\s+/g, " ").trim();
}

/** Markdown text: no raw HTML, no table breaks. */
function md(text: string): string {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\|/g, "\\|");
}

/**
 * A group's rollout as a Mermaid gantt chart on the rollout's clock (seconds from its start): one
 * section per wave with the wave and its drain; each window the drain is measured against as a
 * milestone where it falls within the chart, and the part of a drain past a window as a `crit` bar.
 */
function ganttOf(g: GroupReport): string[] {
    const waves = spans(g);
    const end = Math.max(g.estimatedSeconds, ...waves.map((s) => Math.max(s.end, s.drain?.end ?? 0)));
    const lines = [
        "```mermaid",
        "gantt",
        `    title ${mermaidName(`${groupTitle(g)}, ${timeOf(g)}`)}`,
        "    dateFormat X",
        `    axisFormat ${end >= 3600 ? "%H:%M" : "%M:%S"}`,
        "    todayMarker off",
    ];
    const bar = (name: string, start: number, seconds: number, tags: string[] = []) =>
        `    ${mermaidName(name)} :${[...tags, String(Math.round(start)), `${Math.max(0, Math.round(seconds))}s`].join(", ")}`;
    for (const s of waves) {
        lines.push(`    section ${mermaidName(`wave ${s.n} ${s.wave.phase}`)}`);
        lines.push(bar(describeWaveShort(s), s.start, s.end - s.start, s.stalls ? ["crit"] : []));
        if (s.drain && s.wave.drainSeconds > 0) {
            const first = Math.min(s.wave.drainSeconds, ...s.over.map((w) => w.seconds));
            lines.push(bar(`drain ${s.wave.drained.join(", ")}, ${formatSeconds(s.wave.drainSeconds)}`, s.drain.start, first, ["active"]));
            if (first < s.wave.drainSeconds) {
                lines.push(bar(`past the ${formatSeconds(first)} window`, s.drain.start + first, s.wave.drainSeconds - first, ["crit"]));
            }
            for (const w of g.windows) {
                if (s.drain.start + w.seconds <= end) {
                    lines.push(bar(`${formatSeconds(w.seconds)} ${w.source}`, s.drain.start + w.seconds, 0, ["milestone"]));
                }
            }
        }
    }
    lines.push("```");
    return lines;
}

function describeWaveShort(s: WaveSpan): string {
    const w = s.wave;
    const drain = w.drained.length > 0 ? `drain ${w.drained.join(", ")}` : "";
    const launch = w.launched.length > 0 ? `launch ${w.launched.join(", ")}` : "";
    const parts = (w.drainStart ?? 0) > 0 ? [launch, drain] : [drain, launch];
    return `wave ${s.n}, ${parts.filter(Boolean).join(", then ") || "nothing to move"}`;
}

/**
 * The rehearsal as Markdown (a pull request's job summary): the same report as the text, with each
 * group's timeline as a Mermaid gantt chart; the timelines and the request paths folded.
 */
export function formatRehearsalMarkdown(r: Rehearsal, stack?: string): string {
    const lines: string[] = [
        `## Drain rehearsal${stack ? ` of stack \`${stack}\`` : ""}: ${r.verdict.toUpperCase()}`,
        "",
        `${plural(r.groups.length, "group")}, zones ${r.zones.join(", ")}.`,
        ...markdownProblems(r),
        ...markdownGroupsAndItems(r),
        // The timelines and request paths are the evidence behind the verdicts above: folded, so a
        // stack's rehearsal in a pull request's summary is its verdict, problems and tables.
        ...markdownTimelines(r),
        ...markdownRequestPaths(r),
        "",
        `**${verdictLine(r).replace(/^(\w+):/, "$1:**")}`,
    ];
    return `${lines.join("\n")}\n`;
}

/** Problems first, under their group's heading, numbered throughout, why and fix as sub-items. */
function markdownProblems(r: Rehearsal): string[] {
    const byGroup = problemsByGroup(r);
    if (byGroup.length === 0) {
        return [];
    }
    const lines = ["", `### Problems (${r.problems.length})`];
    let i = 0;
    for (const { group, problems } of byGroup) {
        lines.push(
            "",
            group
                ? `#### ${kindName(group.kind)} \`${groupName(group)}\`: ${group.verdict.toUpperCase()}, ${md(summaryOf(group))}, ${timeOf(group)}`
                : "#### Before any rollout",
            "",
        );
        for (const p of problems) {
            const { what, why, fix } = parts(p.message);
            lines.push(`${++i}. ${md(what)}`);
            if (why !== undefined) {
                lines.push(`   - **Why:** ${md(why)}`);
            }
            if (fix !== undefined) {
                lines.push(`   - **Fix:** ${md(fix)}`);
            }
        }
    }
    return lines;
}

/** Passing and undecided groups as tables, advisories and undecided items as lists, not-modelled items folded. */
function markdownGroupsAndItems(r: Rehearsal): string[] {
    const lines: string[] = [];
    const table = (groups: GroupReport[]) => [
        "| group | kind | nodes | estimated time | verdict |",
        "|---|---|---|---|---|",
        ...groups.map(
            (g) => `| \`${groupName(g)}\` | ${kindName(g.kind)} | ${g.nodes} | ${formatSeconds(g.estimatedSeconds)} | ${g.verdict} |`,
        ),
    ];
    const passing = r.groups.filter((g) => g.verdict === "ok");
    if (passing.length > 0) {
        lines.push("", "### Passing groups", "", ...table(passing));
    }
    if (r.advisories.length > 0) {
        lines.push("", "### Advisory (work interrupted, no request dropped)", "", ...r.advisories.map((a) => `- ${md(a.message)}`));
    }
    const undecidedGroups = r.groups.filter((g) => g.verdict === "undecided");
    if (undecidedGroups.length > 0 || r.undecided.length > 0) {
        lines.push("", "### Undecided", "");
        if (undecidedGroups.length > 0) {
            lines.push(...table(undecidedGroups), "");
        }
        lines.push(...r.undecided.map((u) => `- ${md(u)}`));
    }
    if (r.notModelled.length > 0) {
        lines.push(
            "",
            `<details><summary>Not modelled (${r.notModelled.length})</summary>`,
            "",
            ...r.notModelled.map((n) => `- ${md(n)}`),
            "",
            "</details>",
        );
    }
    return lines;
}

/** Each group's timeline, folded: heading, mechanism, a gantt chart or a sentence, then stalls, windows, waits and notes. */
function markdownTimelines(r: Rehearsal): string[] {
    if (r.groups.length === 0) {
        return [];
    }
    const lines = ["", `<details><summary>Timelines (${plural(r.groups.length, "group")})</summary>`];
    for (const g of r.groups) {
        lines.push(
            "",
            `#### ${kindName(g.kind)} \`${groupName(g)}\`: ${md(summaryOf(g))}, ${g.verdict.toUpperCase()}, ${timeOf(g)}`,
            "",
            md(g.mechanism),
        );
        if (g.waves.length > 0) {
            lines.push("", ...ganttOf(g));
        } else {
            lines.push(
                "",
                g.nodes === 0
                    ? "No waves: the group has no nodes to replace."
                    : `No wave starts: ${md(g.stalled ?? "nothing to replace")}.`,
            );
        }
        const details = [
            // A group that stalls before its first wave says why in the sentence above.
            ...(g.stalled && g.waves.length > 0 ? [`stalls: ${g.stalled}`] : []),
            ...describeWindows(g).map((w) => `window: ${w}`),
            ...g.waits.map((w) => `wait: ${w.pod} (${w.workload}) waits ${formatSeconds(w.seconds)} in wave ${w.wave} for PDB ${w.pdb}`),
            ...g.notes.map((n) => `note: ${n}`),
        ];
        if (details.length > 0) {
            lines.push("", ...details.map((d) => `- ${md(d)}`));
        }
    }
    lines.push("", "</details>");
    return lines;
}

/** Each request path as a table of its phases, folded, its verdict in bold. */
function markdownRequestPaths(r: Rehearsal): string[] {
    if (r.requestPaths.length === 0) {
        return [];
    }
    const lines = ["", `<details><summary>${REQUEST_PATH_TITLE} (${r.requestPaths.length})</summary>`];
    for (const p of r.requestPaths) {
        lines.push("", `#### ${md(p.workload)}, container \`${p.container}\`: ${md(p.path)}`, "", "| at | what |", "|---|---|");
        lines.push(...p.phases.map((x) => `| ${formatSeconds(x.at)} | ${md(x.what)} |`));
        lines.push("", `**${md(exitVerdict(p)).replace(/^([A-Z ]+):/, "$1:**")}`);
    }
    lines.push("", "</details>");
    return lines;
}
