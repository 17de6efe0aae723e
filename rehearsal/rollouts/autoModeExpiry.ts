/**
 * The forced expiry of an EKS Auto Mode pool's nodes (Karpenter docs, Concepts → Disruption,
 * "Expiration"; EKS User Guide create-node-pool.adoc and automode.adoc): when a node reaches
 * `expireAfter` (336h unless the pool sets it; Auto Mode ends every node by 21 days) it is deleted
 * whatever the NodePool's disruption budgets say and without a replacement launched first; the
 * drain evicts through PodDisruptionBudgets only until `terminationGracePeriod` (24h unless the
 * pool sets it), then deletes the pods still there, `karpenter.sh/do-not-disrupt` ones included.
 * The rehearsal's nodes all start together, so they all expire together: one wave of every node,
 * evicted pods placed on what is left or on nodes the pools launch for them. Self-managed
 * Karpenter's `expireAfter` is noted on its drift (./karpenterDrift.ts), not replayed.
 */
import { AUTO_MODE_MAX_NODE_LIFETIME_SECONDS, formatSeconds } from "eks-platform-kernel";
import type { Cluster } from "../cluster";
import { drain, Window } from "../drain";
import type { NodePoolModel } from "../model";
import type { GroupReport } from "../report";
import { Rollout } from "../rollout";
import { newReport, RolloutMethod, spotWindow } from "./method";

/** An EKS Auto Mode pool's forced expiry, every node at once. */
export const autoModeExpiry: RolloutMethod<NodePoolModel> = {
    change: "expiry",
    appliesTo: (g): g is NodePoolModel => g.kind === "nodePool" && g.autoMode,
    replay: expireNodePool,
};

function expireNodePool(cluster: Cluster, pool: NodePoolModel): GroupReport {
    const old = cluster.nodes.filter((n) => n.group === pool);
    const grace = pool.terminationGraceSeconds;
    const expire = pool.expireAfterSeconds;
    const after =
        expire === undefined ? "its expireAfter" : expire === Infinity ? "expireAfter Never" : `expireAfter ${formatSeconds(expire)}`;
    const mechanism = `forced expiry at ${after}: every node at once (the rehearsal's nodes start together), disruption budgets ignored, no replacement launched first; PDB-respecting drain${grace !== undefined ? ` until terminationGracePeriod ${formatSeconds(grace)}, then the pods still there are deleted` : " with no terminationGracePeriod: a pod a budget holds keeps its node"}`;
    const report: GroupReport = { ...newReport(pool, old, mechanism), change: "expiry", undecided: [] };
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
    const result = drain(run, old, window, { respectDoNotDisrupt: true });
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
