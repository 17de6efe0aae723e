/**
 * A self-managed group's instance refresh (EC2 Auto Scaling User Guide, "instance refresh",
 * `Rolling`): batches that keep `minHealthyPercentage` in service (launch first when
 * `maxHealthyPercentage` > 100); each instance waits in its termination lifecycle hook while the
 * Node Termination Handler drains it, and is terminated when the drain ends or the heartbeat runs
 * out (EC2 Auto Scaling lifecycle hooks: the default result applies); then instance warmup.
 * Without a hook an instance terminates without a drain.
 */
import { formatSeconds } from "eks-platform-kernel";
import type { Cluster, SimNode } from "../cluster";
import { drain, Window } from "../drain";
import type { SelfManagedGroupModel } from "../model";
import type { GroupReport } from "../report";
import { Rollout } from "../rollout";
import { NODE_READY_SECONDS } from "../timing";
import { launchLike, newReport, RolloutMethod, spotWindow } from "./method";

/** An Auto Scaling group's instance refresh, every instance replaced. */
export const asgRefresh: RolloutMethod<SelfManagedGroupModel> = {
    appliesTo: (g): g is SelfManagedGroupModel => g.kind === "selfManaged",
    replay: refreshInstances,
};

/** Instances replaced at once: what `minHealthyPercentage` (rounded up) leaves, or the range up to `maxHealthyPercentage` when launching first; at least one. */
function batchSizeOf(g: SelfManagedGroupModel, desired: number, launchFirst: boolean): number {
    return launchFirst
        ? Math.max(1, Math.floor((desired * (g.maxHealthyPercentage - g.minHealthyPercentage)) / 100))
        : Math.max(1, desired - Math.ceil((desired * g.minHealthyPercentage) / 100));
}

function mechanismOf(g: SelfManagedGroupModel, batchSize: number, launchFirst: boolean): string {
    const hook = g.hook
        ? `lifecycle hook ${g.hook.name} (${formatSeconds(g.hook.heartbeatSeconds)} heartbeat) while the Node Termination Handler drains`
        : "no termination lifecycle hook: instances terminate without a drain";
    return `ASG instance refresh: ${batchSize} instance${batchSize === 1 ? "" : "s"} at a time (minHealthyPercentage ${g.minHealthyPercentage}, maxHealthyPercentage ${g.maxHealthyPercentage}: ${launchFirst ? "launch before terminate" : "terminate before launch"}), ${hook}, ${formatSeconds(g.warmupSeconds)} warmup`;
}

function refreshInstances(cluster: Cluster, g: SelfManagedGroupModel): GroupReport {
    const old = cluster.nodes.filter((n) => n.group === g);
    const desired = Math.max(old.length, 1);
    const launchFirst = g.maxHealthyPercentage > 100;
    const batchSize = batchSizeOf(g, desired, launchFirst);
    const report = newReport(g, old, mechanismOf(g, batchSize, launchFirst));
    if (g.hook) {
        report.windows.push({ seconds: g.hook.heartbeatSeconds, source: `heartbeat of lifecycle hook ${g.hook.name}` });
    }
    spotWindow(g, report);
    const run = new Rollout(cluster, report);
    // When the heartbeat runs out the instance terminates with what still runs on it.
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
        const result = drain(run, batch, window);
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
