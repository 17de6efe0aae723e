/**
 * What a rehearsal reports, per group and for the stack: waves, blocked evictions, pods with
 * nowhere to go, workloads reaching zero ready replicas, drains against their windows, and the
 * problems behind a non-zero exit, each as a message in the house style.
 */
import { formatSeconds } from "eks-platform-kernel";
import { violation } from "eks-platform-kernel/policy";

export type Verdict = "ok" | "blocked" | "undecided";

export interface WaveReport {
    phase: "scale-up" | "upgrade" | "scale-down" | "refresh" | "drift";
    /** Nodes drained and removed in this wave. */
    drained: string[];
    /** Nodes launched in this wave. */
    launched: string[];
    evictions: number;
    /** Longest drain of a node of this wave (evictions and grace periods). */
    drainSeconds: number;
    seconds: number;
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
}

export interface KilledPod {
    pod: string;
    workload: string;
    workloadUrn?: string;
    wave: number;
    how: string;
}

export interface GroupReport {
    name: string;
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
    undecided: string[];
    notModelled: string[];
    problems: Problem[];
}

/** One reason for a blocked verdict, as a house-style message, with the resource it is about. */
export interface Problem {
    group?: string;
    /** The URN of the group's resource (names may repeat across kinds: a node group and a NodePool). */
    groupUrn?: string;
    urn?: string;
    /** The namespace of the workload it is about, when it is about one. */
    namespace?: string;
    /** A pod with nowhere to run: true only of the capacity the rehearsal saw. */
    capacity?: true;
    message: string;
}

const DROP = "a node leaving the cluster would drop requests";

/** The problems behind a blocked verdict, one message each. */
export function problemsOf(
    groups: readonly GroupReport[],
    unschedulable: Rehearsal["unschedulable"],
    namespaceOf: (workload: string) => string | undefined,
): Problem[] {
    const out: Problem[] = [];
    const push = (p: Problem, workload?: string) => {
        const namespace = workload === undefined ? undefined : namespaceOf(workload);
        out.push(namespace === undefined ? p : { ...p, namespace });
    };
    for (const p of unschedulable) {
        push(
            {
                urn: p.workloadUrn,
                capacity: true,
                message: violation(
                    `Pod ${p.pod} of ${p.workload} fits on no node of the stack, before any rollout: ${p.reasons}`,
                    "it stays Pending, so the workload runs short of replicas, and every drain has less room",
                    "lower its requests, tolerate or label for a group that can hold it, or add capacity (node group size, NodePool limits)",
                ),
            },
            p.workload,
        );
    }
    for (const g of groups) {
        const subject = `${kindName(g.kind)} ${g.name}`;
        if (g.stalled) {
            push({
                group: g.name,
                groupUrn: g.urn,
                urn: g.blocked[0]?.pdbUrn ?? g.urn,
                message: violation(
                    `The rollout of ${subject} stalls: ${g.stalled}`,
                    "the update fails part-way, leaving old and new nodes side by side until someone intervenes",
                    stallFix(g),
                ),
            });
        }
        for (const b of g.blocked) {
            push(
                {
                    group: g.name,
                    groupUrn: g.urn,
                    urn: b.pdbUrn ?? b.workloadUrn,
                    message: violation(
                        `PodDisruptionBudget ${b.pdb} blocks the eviction of ${b.pod} (${b.workload}) from node ${b.node} of ${subject}, for good: ${b.why}`,
                        g.kind === "managed"
                            ? "EKS gives up after 15 minutes with PodEvictionFailure and the node group update fails"
                            : g.kind === "selfManaged"
                              ? "the lifecycle hook's heartbeat runs out and the instance is terminated with the pod still on it"
                              : "Karpenter cannot finish the node's drain until its terminationGracePeriod (if any) deletes the pod anyway",
                        "let the budget allow one disruption (maxUnavailable: 1, or minAvailable below the replica count) and give the workload room to reschedule",
                    ),
                },
                b.workload,
            );
        }
        for (const u of g.unplaced) {
            push(
                {
                    group: g.name,
                    groupUrn: g.urn,
                    urn: u.workloadUrn,
                    capacity: true,
                    message: violation(
                        `Evicted pod ${u.pod} of ${u.workload} has nowhere to run during the rollout of ${subject} (wave ${u.wave}): ${u.reasons}${u.placedAfterSeconds !== undefined ? `; it waits ${formatSeconds(u.placedAfterSeconds)} for a node launched later` : "; no later step makes room"}`,
                        "the workload runs short of replicas while it is Pending, and a budget that counts it blocks the next evictions",
                        "leave spare room for a wave (more nodes, surge, smaller requests), or let a NodePool the pod can use provision for it",
                    ),
                },
                u.workload,
            );
        }
        for (const z of g.zeroReady) {
            push(
                {
                    group: g.name,
                    groupUrn: g.urn,
                    urn: z.workloadUrn,
                    message: violation(
                        `${z.workload} reaches zero ready replicas during the rollout of ${subject} (wave ${z.wave}): ${z.cause}`,
                        `until a replacement is Ready nothing serves it: ${DROP}`,
                        "run at least two replicas spread across nodes (topology spread on kubernetes.io/hostname) with a PodDisruptionBudget of maxUnavailable: 1",
                    ),
                },
                z.workload,
            );
        }
        for (const k of g.killed) {
            push(
                {
                    group: g.name,
                    groupUrn: g.urn,
                    urn: k.workloadUrn,
                    message: violation(
                        `Pod ${k.pod} of ${k.workload} is cut short during the rollout of ${subject} (wave ${k.wave}): ${k.how}`,
                        `its in-flight work is lost: ${DROP}`,
                        "make the drain fit its window: budgets that let evictions proceed, grace periods shorter than the window, or a longer window",
                    ),
                },
                k.workload,
            );
        }
        const spot = g.windows.find((w) => w.source.startsWith("Spot"));
        if (spot && g.longestDrain && g.longestDrain.seconds > spot.seconds) {
            push({
                group: g.name,
                groupUrn: g.urn,
                urn: g.urn,
                message: violation(
                    `Node ${g.longestDrain.node} of ${subject} takes ${formatSeconds(g.longestDrain.seconds)} to drain, longer than the ${formatSeconds(spot.seconds)} ${spot.source}`,
                    `on an interruption EC2 reclaims the instance before its pods have left: ${DROP}`,
                    "shorten grace periods and budget waits on Spot capacity, or run such workloads on on-demand capacity",
                ),
            });
        }
    }
    return out;
}

function stallFix(g: GroupReport): string {
    if (g.kind === "nodePool") {
        return "set the NodePool's terminationGracePeriod, let its budgets allow drift, or raise its limits so a replacement fits";
    }
    return "let every PodDisruptionBudget allow a disruption and make sure evicted pods fit elsewhere, then retry the update";
}

export function kindName(kind: GroupReport["kind"]): string {
    return kind === "managed" ? "managed node group" : kind === "selfManaged" ? "self-managed node group" : "NodePool";
}

/** The rehearsal as text: per group its mechanism, waves, estimated time and problems. */
export function formatRehearsal(r: Rehearsal, stack?: string): string {
    const lines: string[] = [];
    lines.push(
        `Drain rehearsal${stack ? ` of stack "${stack}"` : ""}: ${r.groups.length} group${r.groups.length === 1 ? "" : "s"}, zones ${r.zones.join(", ")}`,
    );
    for (const g of r.groups) {
        lines.push("");
        lines.push(
            `${kindName(g.kind)} ${g.name}: ${g.nodes} node${g.nodes === 1 ? "" : "s"}${g.instanceType ? ` (${g.instanceType})` : ""} — ${g.verdict.toUpperCase()}`,
        );
        lines.push(`  rollout: ${g.mechanism}`);
        g.waves.forEach((w, i) => {
            const parts = [
                w.drained.length
                    ? `drain ${w.drained.join(", ")} (${w.evictions} eviction${w.evictions === 1 ? "" : "s"}, longest ${formatSeconds(w.drainSeconds)})`
                    : "",
                w.launched.length ? `launch ${w.launched.join(", ")}` : "",
            ].filter(Boolean);
            lines.push(`  wave ${i + 1} ${w.phase}: ${parts.join("; ") || "nothing to move"} — ${formatSeconds(w.seconds)}`);
        });
        if (g.waves.length === 0) {
            lines.push("  no waves: the group has no nodes to replace");
        }
        lines.push(`  estimated time: ${formatSeconds(g.estimatedSeconds)}${g.stalled ? " until it stalls" : ""}`);
        if (g.longestDrain) {
            const windows = g.windows.map((w) => `${formatSeconds(w.seconds)} ${w.source}`).join(", ");
            lines.push(
                `  longest drain: ${g.longestDrain.node} ${formatSeconds(g.longestDrain.seconds)}${windows ? ` (window: ${windows})` : ""}`,
            );
        }
        for (const w of g.waits) {
            lines.push(
                `  waits: ${w.pod} (${w.workload}) waits ${formatSeconds(w.seconds)} in wave ${w.wave} for PDB ${w.pdb} until rescheduled pods are Ready`,
            );
        }
        if (g.stalled) {
            lines.push(`  STALLS: ${g.stalled}`);
        }
        for (const b of g.blocked) {
            lines.push(`  BLOCKED for good: ${b.pod} (${b.workload}) on ${b.node} by PDB ${b.pdb}: ${b.why}`);
        }
        for (const u of g.unplaced) {
            lines.push(
                `  NOWHERE TO RUN: ${u.pod} (${u.workload}) in wave ${u.wave}: ${u.reasons}${u.placedAfterSeconds !== undefined ? ` — placed after ${formatSeconds(u.placedAfterSeconds)}` : ""}`,
            );
        }
        for (const z of g.zeroReady) {
            lines.push(`  ZERO READY: ${z.workload} in wave ${z.wave}: ${z.cause}`);
        }
        for (const k of g.killed) {
            lines.push(`  CUT SHORT: ${k.pod} (${k.workload}) in wave ${k.wave}: ${k.how}`);
        }
        for (const u of g.undecided) {
            lines.push(`  UNDECIDED: ${u}`);
        }
        for (const n of g.notes) {
            lines.push(`  note: ${n}`);
        }
    }
    if (r.unschedulable.length > 0) {
        lines.push("");
        lines.push("Pods that fit nowhere before any rollout:");
        for (const p of r.unschedulable) {
            lines.push(`  ${p.pod} (${p.workload}): ${p.reasons}`);
        }
    }
    if (r.undecided.length > 0) {
        lines.push("");
        lines.push("Undecided (values unknown until apply, or not in the data):");
        for (const u of r.undecided) {
            lines.push(`  ${u}`);
        }
    }
    if (r.notModelled.length > 0) {
        lines.push("");
        lines.push(
            `Not modelled (${r.notModelled.length}): ${r.notModelled.slice(0, 8).join("; ")}${r.notModelled.length > 8 ? "; …" : ""}`,
        );
    }
    lines.push("");
    lines.push(
        r.verdict === "blocked"
            ? `BLOCKED: ${r.problems.length} problem${r.problems.length === 1 ? "" : "s"}:\n${r.problems.map((p) => `  - ${p.message}`).join("\n")}`
            : r.verdict === "undecided"
              ? "UNDECIDED: no blocker found in what is known, but the items above could not be judged (not a pass)."
              : "OK: every rollout completes without a blocked eviction, a pod with nowhere to run or a workload at zero ready replicas.",
    );
    return lines.join("\n");
}
