/**
 * An EKS managed node group update (Amazon EKS User Guide, "Understand each phase of node
 * updates"): default strategy — scale up by one node per Availability Zone in use (or
 * `maxUnavailable` if larger) and cordon every old node; then waves of `maxUnavailable` old nodes:
 * evict (15-minute limit, `PodEvictionFailure`), wait 60 s, terminate, and the Auto Scaling group
 * launches a replacement; finally scale back down. `MINIMAL` strategy: no surge, each wave's nodes
 * are terminated before their replacements launch. EKS evicts through the budgets and ignores
 * `karpenter.sh/do-not-disrupt`.
 */
import type { Cluster, SimNode } from "../cluster";
import { drain, Window } from "../drain";
import type { ManagedGroupModel } from "../model";
import type { GroupReport } from "../report";
import { Rollout } from "../rollout";
import { EKS_CORDON_WAIT_SECONDS, EKS_EVICTION_TIMEOUT_SECONDS, NODE_READY_SECONDS } from "../timing";
import { launchLike, newReport, RolloutMethod, spotWindow } from "./method";

/** An EKS managed node group's update, every node replaced. */
export const managedUpdate: RolloutMethod<ManagedGroupModel> = {
    appliesTo: (g): g is ManagedGroupModel => g.kind === "managed",
    replay: updateNodeGroup,
};

/** A drain fails the update when its pods have not left after 15 minutes. */
const EVICTION_LIMIT: Window = { seconds: EKS_EVICTION_TIMEOUT_SECONDS, source: "EKS eviction limit", expiry: "fail" };

function mechanismOf(g: ManagedGroupModel, surge: number): string {
    return g.minimal
        ? `EKS managed node group update, MINIMAL strategy: ${g.maxUnavailable} node${g.maxUnavailable > 1 ? "s" : ""} at a time (${g.maxUnavailableSource}), each terminated before its replacement launches`
        : `EKS managed node group update: surge ${surge} new node${surge === 1 ? "" : "s"} (one per zone in use, or maxUnavailable if larger), then ${g.maxUnavailable} node${g.maxUnavailable > 1 ? "s" : ""} at a time (${g.maxUnavailableSource}), PDB-respecting evictions within 15 minutes, 60 s before termination, then scale down by ${surge}`;
}

function updateNodeGroup(cluster: Cluster, g: ManagedGroupModel): GroupReport {
    const old = cluster.nodes.filter((n) => n.group === g);
    const zonesInUse = [...new Set(old.map((n) => n.zone))];
    const surge = g.minimal ? 0 : Math.max(zonesInUse.length, g.maxUnavailable);
    const report = newReport(g, old, mechanismOf(g, surge));
    report.windows.push({ seconds: EKS_EVICTION_TIMEOUT_SECONDS, source: "EKS eviction limit (PodEvictionFailure)" });
    spotWindow(g, report);
    const run = new Rollout(cluster, report);
    if (old.length === 0) {
        return report;
    }
    if (surge > 0) {
        scaleUp(run, g, old, zonesInUse, surge);
    }
    if (!upgrade(run, g, old)) {
        return report;
    }
    if (surge > 0) {
        scaleDown(run, g, surge);
    }
    run.finishRollout();
    return report;
}

/** The scale-up phase: one new node per zone in use (or `surge`), Ready before any drain; every old node cordoned. */
function scaleUp(run: Rollout, g: ManagedGroupModel, old: readonly SimNode[], zonesInUse: readonly string[], surge: number): void {
    run.wave = 1;
    const launched = Array.from({ length: surge }, (_, i) =>
        launchLike(run.cluster, g, old.find((n) => n.zone === zonesInUse[i % zonesInUse.length]) as SimNode, NODE_READY_SECONDS),
    );
    for (const n of old) {
        n.cordoned = true;
    }
    run.advance(NODE_READY_SECONDS);
    run.wavePush({ phase: "scale-up", drained: [], launched: launched.map((n) => n.name), seconds: NODE_READY_SECONDS });
}

/** The upgrade phase: waves of `maxUnavailable` old nodes drained, terminated and replaced. Returns false when it stalls. */
function upgrade(run: Rollout, g: ManagedGroupModel, old: readonly SimNode[]): boolean {
    const remaining = [...old];
    while (remaining.length > 0) {
        run.wave++;
        const batch = remaining.splice(0, g.maxUnavailable);
        const start = run.clock;
        const result = drain(run, batch, EVICTION_LIMIT);
        const longest = run.noteDrain(result.perNode);
        if (result.stalled) {
            run.stallWave("upgrade", start, batch, result, longest, `wave ${run.wave}: ${result.stalled}`);
            return false;
        }
        const terminated = start + longest + EKS_CORDON_WAIT_SECONDS;
        const launched = batch.map((n) => launchLike(run.cluster, g, n, terminated + NODE_READY_SECONDS));
        run.closeWave("upgrade", start, batch, launched, result, longest, terminated + NODE_READY_SECONDS);
    }
    return true;
}

/** The scale-down phase: the Auto Scaling group sheds the extra nodes; the emptiest go (fewest pods, newest first). */
function scaleDown(run: Rollout, g: ManagedGroupModel, surge: number): void {
    run.wave++;
    const fresh = run.cluster.nodes
        .filter((n) => n.group === g)
        .sort((a, b) => a.pods.size - b.pods.size || b.order - a.order)
        .slice(0, surge);
    const start = run.clock;
    const result = drain(run, fresh, EVICTION_LIMIT);
    const longest = run.noteDrain(result.perNode);
    if (result.stalled) {
        run.stallWave("scale-down", start, fresh, result, longest, `scale-down: ${result.stalled}`);
    } else {
        run.closeWave("scale-down", start, fresh, [], result, longest, start + longest + EKS_CORDON_WAIT_SECONDS);
    }
}
