/**
 * An Auto Scaling group's instance refresh (rehearsal/rollouts/asgRefresh.ts): what its lifecycle
 * hook's heartbeat does to pods still draining, wave by wave. Batch sizes and launch-first
 * refreshes are in ../index.rules.test.ts ("instance refresh batches").
 * Each scenario is hand-checked against the rule in its title; sizes are those of ../scenario.ts
 * (an m6i.large holds 1930m CPU, so two 1500m pods never share one).
 */
import { expect } from "chai";
import { urnOf } from "../../policies/harness";
import { app, asg, hook, pdb, run } from "../scenario";

describe("rehearsal/rollouts/asgRefresh.ts: an ASG instance refresh", () => {
    describe("a lifecycle hook's heartbeat (EC2 Auto Scaling lifecycle hooks: when the heartbeat runs out, the default result applies and the instance terminates)", () => {
        it("a pod a budget still holds dies with the instance: reported killed, naming its budget, and its workload reaches zero", () => {
            const stuck = app("stuck", { replicas: 1, grace: 0 });
            const budget = pdb("stuck", { minAvailable: 1 });
            const r = run([asg("batch", 1), hook(300), stuck, budget]);
            const g = r.groups[0];
            expect(g.killed).to.deep.equal([
                {
                    pod: "stuck-0",
                    workload: "Deployment prod/stuck",
                    workloadUrn: urnOf(stuck),
                    wave: 1,
                    graceSeconds: 0,
                    pdb: "prod/stuck",
                    pdbUrn: urnOf(budget),
                    how: "still on node batch-1 when the 5m heartbeat of lifecycle hook nodegroups-batch-terminate ends and the instance is terminated",
                },
            ]);
            // Even with no grace period to end, a pod the heartbeat cuts off is killed, not deleted.
            expect(g.deleted).to.deep.equal([]);
            expect(g.waves[0].slowest).to.deep.equal({
                pod: "stuck-0",
                workload: "Deployment prod/stuck",
                workloadUrn: urnOf(stuck),
                node: "batch-1",
                left: "terminated",
                graceSeconds: 0,
                pdb: "prod/stuck",
            });
            expect(g.waves[0].drainSeconds).to.equal(300);
            expect(g.zeroReady).to.deep.equal([
                {
                    workload: "Deployment prod/stuck",
                    workloadUrn: urnOf(stuck),
                    wave: 1,
                    cause: "its pod stuck-0 is terminated with node batch-1 when the heartbeat of lifecycle hook nodegroups-batch-terminate ends",
                    services: [],
                },
            ]);
        });

        it("each wave's instance is held for the whole heartbeat: 300 s in wave 1 and again in wave 2, timed from each wave's drain", () => {
            // The budget never lets go (minAvailable 1 of 1); stuck-0's replacement runs on batch-2, drained next.
            const r = run([
                asg("batch", 2, { minHealthy: 50 }),
                hook(300),
                app("stuck", { replicas: 1 }),
                pdb("stuck", { minAvailable: 1 }),
            ]);
            const g = r.groups[0];
            expect(g.waves.map((w) => [w.drained, w.drainSeconds, w.slowest?.left])).to.deep.equal([
                [["batch-1"], 300, "terminated"],
                [["batch-2"], 300, "terminated"],
            ]);
            expect(g.killed.map((k) => [k.wave, k.pod, k.pdb])).to.deep.equal([
                [1, "stuck-0", "prod/stuck"],
                [2, "stuck-1", "prod/stuck"],
            ]);
        });

        it("a pod a budget held, then evicted too late to end its grace period by the heartbeat, is killed naming that budget", () => {
            // index.test.ts's trio: trio-2 waits 30 s for trio-0's replacement, then needs 120 s more, past the 120 s heartbeat.
            const budget = pdb("trio", { maxUnavailable: 1 });
            const r = run([asg("batch", 2, { minHealthy: 50 }), hook(120), app("trio", { replicas: 3, grace: 120 }), budget]);
            expect(r.groups[0].killed.filter((k) => k.wave === 1)).to.deep.equal([
                {
                    pod: "trio-2",
                    workload: "Deployment prod/trio",
                    workloadUrn: urnOf(app("trio")),
                    wave: 1,
                    graceSeconds: 120,
                    pdb: "prod/trio",
                    pdbUrn: urnOf(budget),
                    how: "it needs until 2m 30s into the drain (evicted at 30s, grace period 2m), past the 2m heartbeat of lifecycle hook nodegroups-batch-terminate",
                },
            ]);
        });

        it("without a hook the instance goes undrained: the zero-ready cause says so", () => {
            const r = run([asg("batch", 1), app("web", { replicas: 1 })]);
            expect(r.groups[0].zeroReady.map((z) => z.cause)).to.deep.equal([
                "its pod web-0 is killed when node batch-1 terminates without a drain",
            ]);
        });

        it("a pod evicted in a later wave is timed from that wave's drain: evicted at 0 s, needing 2 m, past the 1 m heartbeat", () => {
            // Two instances, one at a time (minHealthyPercentage 50); slow-0 moves to batch-2 in wave 1 and is evicted again in wave 2.
            const r = run([asg("batch", 2, { minHealthy: 50 }), hook(60), app("slow", { replicas: 1, grace: 120 })]);
            const g = r.groups[0];
            expect(g.killed.map((k) => [k.wave, k.pod, k.how])).to.deep.equal([
                [
                    1,
                    "slow-0",
                    "it needs until 2m into the drain (evicted at 0s, grace period 2m), past the 1m heartbeat of lifecycle hook nodegroups-batch-terminate",
                ],
                [
                    2,
                    "slow-1",
                    "it needs until 2m into the drain (evicted at 0s, grace period 2m), past the 1m heartbeat of lifecycle hook nodegroups-batch-terminate",
                ],
            ]);
        });
    });
});
