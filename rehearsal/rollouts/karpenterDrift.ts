/**
 * Karpenter drift of a NodePool's nodes (Karpenter docs, Concepts → Disruption): as many nodes at
 * a time as the budgets for `Drifted` allow (percentages rounded up), replacements launched and
 * Ready first, then taint and drain; `terminationGracePeriod` deletes pods a budget still holds so
 * they get their grace period; without it, a node whose pods a budget never lets go is never
 * disrupted. Karpenter never evicts a `karpenter.sh/do-not-disrupt` pod, and never selects a node
 * that carries the annotation. Expiry (`expireAfter`) is noted here; EKS Auto Mode's forced expiry
 * is a method of its own (./autoModeExpiry.ts).
 */
import { AUTO_MODE_AMI_RELEASE_INTERVAL_SECONDS, formatSeconds, scaledValue } from "eks-platform-kernel";
import type { Cluster, SimNode } from "../cluster";
import { drain, Window } from "../drain";
import { budgetsNeverAllow } from "../eviction";
import { DO_NOT_DISRUPT } from "../model";
import type { NodePoolModel } from "../model";
import type { GroupReport } from "../report";
import { Rollout } from "../rollout";
import { NODE_READY_SECONDS } from "../timing";
import { launchLike, newReport, RolloutMethod, spotWindow } from "./method";

/** A NodePool's drift, every node replaced. */
export const karpenterDrift: RolloutMethod<NodePoolModel> = {
    appliesTo: (g): g is NodePoolModel => g.kind === "nodePool",
    replay: driftNodePool,
};

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

function mechanismOf(perWave: number, grace: number | undefined): string {
    return `Karpenter drift: ${perWave} node${perWave === 1 ? "" : "s"} at a time (disruption budgets for Drifted), replacement launched and Ready first, then PDB-respecting drain${grace !== undefined ? ` bounded by terminationGracePeriod ${formatSeconds(grace)}` : " with no terminationGracePeriod"}`;
}

/** What the report says of the pool besides its drift: how often it drifts, expiry, a built-in pool's settings. */
function poolNotes(pool: NodePoolModel): string[] {
    return [
        pool.autoMode
            ? `EKS Auto Mode drifts every node when it releases a new AMI, about every ${formatSeconds(AUTO_MODE_AMI_RELEASE_INTERVAL_SECONDS)} (automode-learn-instances.adoc): this rollout, that often; its forced expiry is replayed as a rollout of its own`
            : "expiry (expireAfter) is forceful: no budgets and no replacement first; budgets then hold pods only until terminationGracePeriod",
        ...(pool.builtInOf !== undefined
            ? [
                  `a built-in pool of EKS Auto Mode (cluster ${pool.builtInOf}, computeConfig.nodePools): its settings are EKS's and cannot be changed; a workload that needs others runs on a NodePool of its own`,
              ]
            : []),
    ];
}

function driftNodePool(cluster: Cluster, pool: NodePoolModel): GroupReport {
    const old = cluster.nodes.filter((n) => n.group === pool);
    const notes: string[] = [];
    const perWave = driftBudget(pool, old.length, notes);
    const grace = pool.terminationGraceSeconds;
    const report = newReport(pool, old, mechanismOf(perWave, grace));
    report.notes.push(...notes, ...poolNotes(pool));
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
        if ((grace === undefined && neverSelected(run, batch)) || !driftWave(run, pool, batch, window)) {
            return report;
        }
    }
    run.finishRollout();
    return report;
}

/**
 * Without terminationGracePeriod, whether Karpenter never selects a node of `batch` for drift: one
 * holds a do-not-disrupt pod (karpenter v1.14.1 pkg/controllers/disruption/types.go NewCandidate:
 * the pod's block is waived only for eventual disruption with a grace period), or pods a budget
 * never lets go. Then drift stops here, said on the report.
 */
function neverSelected(run: Rollout, batch: readonly SimNode[]): boolean {
    const report = run.report;
    const protectedPod = batch.flatMap((n) => [...n.pods]).find((p) => p.workload.model.doNotDisrupt);
    if (protectedPod) {
        report.stalled = `Karpenter never selects node ${protectedPod.node?.name ?? "?"} for drift: ${protectedPod.name} (${protectedPod.workload.model.id}) is annotated ${DO_NOT_DISRUPT}: "true" and the NodePool sets no terminationGracePeriod, so the node keeps its drifted configuration`;
        report.estimatedSeconds = run.clock;
        return true;
    }
    const held = batch.flatMap((n) => [...n.pods].filter((p) => budgetsNeverAllow(p.workload.model)));
    if (held.length === 0) {
        return false;
    }
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
    return true;
}

/** One wave of drift: replacements launched and Ready first (within the pool's limits), then the drain. Returns false when drift stops. */
function driftWave(run: Rollout, pool: NodePoolModel, batch: readonly SimNode[], window: Window | undefined): boolean {
    const { cluster, report } = run;
    const start = run.clock;
    const launched: SimNode[] = [];
    const deleting = new Set<SimNode>();
    for (const n of batch) {
        if (!withinLimits(cluster, pool, n, deleting)) {
            report.stalled = `a replacement for node ${n.name} (${n.instanceType}) would exceed the NodePool's limits, so drift waits`;
            report.estimatedSeconds = run.clock;
            return false;
        }
        launched.push(launchLike(cluster, pool, n, start + NODE_READY_SECONDS));
        deleting.add(n);
    }
    run.advance(start + NODE_READY_SECONDS);
    const result = drain(run, batch, window, { respectDoNotDisrupt: true });
    const longest = run.noteDrain(result.perNode);
    if (result.stalled) {
        // A drain that can never finish holds its nodes: drift stops here, the nodes stay.
        run.stallWave("drift", start, batch, result, longest, `wave ${run.wave}: ${result.stalled}`);
        return false;
    }
    run.closeWave("drift", start, batch, launched, result, longest, start + NODE_READY_SECONDS + longest);
    return true;
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
