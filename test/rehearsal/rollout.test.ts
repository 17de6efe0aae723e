/**
 * The rollouts of rehearsal/rollout.ts, rule by rule: how a drain is timed and ordered, what a
 * report says of a pod that leaves past its window, and how each kind of group names its waves.
 * Each scenario is hand-checked against the rule in its title; sizes are those of ./scenario.ts
 * (an m6i.large holds 1930m CPU, so two 1500m pods never share one).
 */
import { expect } from "chai";
import type { Rehearsal } from "eks-platform-rehearsal";
import { changed, TestResource, urnOf } from "../policies/harness";
import { service } from "../policies/fixtures";
import { app, asg, hook, managed, nodePool, pdb, run } from "./scenario";

const DO_NOT_DISRUPT = { "karpenter.sh/do-not-disrupt": "true" };

/** `r` with its pod template changed at `dotted` (below `spec.template`). */
function withTemplate(r: TestResource, dotted: string, value: unknown): TestResource {
    return changed(r, `spec.template.${dotted}`, value);
}

/** A readiness probe whose first success comes `delay` + 10 s after the container starts (30 s). */
function slowReady(r: TestResource, delay: number): TestResource {
    return withTemplate(r, "spec.containers", [
        {
            name: "app",
            image: "registry.example.com/app:1.0.0",
            resources: { requests: { cpu: "250m", memory: "256Mi" } },
            readinessProbe: { httpGet: { path: "/", port: 80 }, initialDelaySeconds: delay },
        },
    ]);
}

const phases = (r: Rehearsal, g = 0) => r.groups[g].waves.map((w) => [w.phase, w.drained, w.launched]);

describe("rehearsal/rollout.ts: the rollouts, rule by rule", () => {
    describe("a drain (kubectl drain, NTH, Karpenter's terminator: every pod evicted at once, each then gets its grace period)", () => {
        it("a node's drain lasts until its last pod is gone, not until its last eviction: 300 s grace then 10 s is 300 s", () => {
            // One m6i.large, one zone: the surge node apps-2 comes first; then apps-1 drains at 120 s.
            const alpha = app("alpha", { replicas: 1, grace: 300 });
            const r = run([managed("apps", 1, { zones: 1 }), alpha, app("beta", { replicas: 1, grace: 10 })]);
            const wave = r.groups[0].waves[1];
            expect(wave).to.deep.include({ phase: "upgrade", drained: ["apps-1"], evictions: 2, drainSeconds: 300, drainStart: 0 });
            expect(wave.slowest).to.deep.equal({
                pod: "alpha-0",
                workload: "Deployment prod/alpha",
                workloadUrn: urnOf(alpha),
                node: "apps-1",
                left: "evicted",
                at: 0,
                graceSeconds: 300,
            });
            expect(r.groups[0].longestDrain).to.deep.equal({ node: "apps-1", seconds: 300 });
        });

        it("a pod with no grace period still leaves a drain: it is the last out, at 0 s", () => {
            const r = run([managed("apps", 1, { zones: 1 }), app("quick", { replicas: 1, grace: 0 })]);
            const wave = r.groups[0].waves[1];
            expect(wave.drainSeconds).to.equal(0);
            expect(wave.slowest).to.include({ pod: "quick-0", left: "evicted", at: 0, graceSeconds: 0 });
        });

        it("pods leave a node in name order (the rehearsal's deterministic order): of two that end together, the first by name is named last out", () => {
            // Given in the order c, b, a (and the StatefulSet a placed last, by id), a-0 is still evicted first.
            const r = run([
                managed("apps", 1, { zones: 1 }),
                app("c", { replicas: 1 }),
                app("b", { replicas: 1 }),
                app("a", { replicas: 1, kind: "StatefulSet" }),
            ]);
            expect(r.groups[0].waves[1].slowest).to.include({ pod: "a-0", node: "apps-1", at: 0, graceSeconds: 60 });
        });

        it("the longest drain of a rollout is the first node to take the longest: 60 s, 300 s, 300 s names apps-2", () => {
            // One pod per node (the least allocated node first); the old nodes drain one at a time.
            const r = run([
                managed("apps", 3, { zones: 1 }),
                app("a", { replicas: 1, grace: 60 }),
                app("b", { replicas: 1, grace: 300 }),
                app("c", { replicas: 1, grace: 300 }),
            ]);
            const g = r.groups[0];
            expect(g.waves.filter((w) => w.phase === "upgrade").map((w) => [w.drained, w.drainSeconds])).to.deep.equal([
                [["apps-1"], 60],
                [["apps-2"], 300],
                [["apps-3"], 300],
            ]);
            expect(g.longestDrain).to.deep.equal({ node: "apps-2", seconds: 300 });
        });

        it("a budget's wait ends at the eviction it held back, not at the end of the drain (kubernetes eviction API: 429 until disruptionsAllowed > 0)", () => {
            // apps-1 holds two pods of each; maxUnavailable 1: the second of each waits for the first's replacement
            // on the surge node: api's is Ready 30 s after, slow's 30 + 290 + 10 = 330 s after. The drain waits for
            // the earliest of them first.
            const r = run([
                managed("apps", 1, { zones: 1 }),
                app("api", { replicas: 2 }),
                pdb("api", { maxUnavailable: 1 }),
                slowReady(app("slow", { replicas: 2 }), 290),
                pdb("slow", { maxUnavailable: 1 }),
            ]);
            const g = r.groups[0];
            expect(g.waits).to.deep.equal([
                { pod: "api-1", workload: "Deployment prod/api", pdb: "prod/api", wave: 2, seconds: 30 },
                { pod: "slow-1", workload: "Deployment prod/slow", pdb: "prod/slow", wave: 2, seconds: 330 },
            ]);
            expect(g.waves[1]).to.deep.include({ drainSeconds: 390, evictions: 4 });
            expect(g.waves[1].slowest).to.include({ pod: "slow-1", left: "evicted", at: 330, pdb: "prod/slow" });
        });
    });

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

    describe("the 15-minute eviction limit of a managed node group update (EKS User Guide, upgrade phase: PodEvictionFailure when pods have not left)", () => {
        it("a budget waiting for its one rescheduled pod that has nowhere to run says so in the singular, counting only its own workload's pods", () => {
            // MINIMAL, one node: web-0 and other-0 are evicted and find no node; web-1 waits for web-2 for good.
            const r = run([
                managed("apps", 1, { zones: 1, update: { maxUnavailable: 1, updateStrategy: "MINIMAL" } }),
                app("web", { replicas: 2 }),
                pdb("web", { maxUnavailable: 1 }),
                app("other", { replicas: 1 }),
            ]);
            expect(r.groups[0].blocked.map((b) => [b.pod, b.why])).to.deep.equal([
                ["web-1", "the budget waits for 1 rescheduled pod that has nowhere to run, so it never gets Ready"],
            ]);
        });

        it("a pod not yet Ready is evicted while its budget is met (eviction API, unhealthyPodEvictionPolicy IfHealthyBudget), though a Ready one beside it is refused", () => {
            // MINIMAL, three nodes, Ready 1240 s after start; maxUnavailable 1 of 3 keeps 2. Wave 1 moves web-0 to apps-2 as web-3;
            // in wave 2 web-1 (Ready) would leave 1 healthy and waits; web-3 (not Ready) goes, 2 healthy ≥ 2.
            const r = run([
                managed("apps", 3, { zones: 1, update: { maxUnavailable: 1, updateStrategy: "MINIMAL" } }),
                slowReady(app("web", { replicas: 3 }), 1200),
                pdb("web", { maxUnavailable: 1 }),
            ]);
            const g = r.groups[0];
            expect(g.waves.map((w) => [w.drained, w.evictions])).to.deep.equal([
                [["apps-1"], 1],
                [["apps-2"], 1],
            ]);
            expect(g.blocked.map((b) => [b.pod, b.why])).to.deep.equal([
                ["web-1", "the budget still waits for rescheduled pods when the window ends"],
            ]);
        });

        it("a budget that never lets go holds its pod for the whole limit: blocked, naming the pod's workload and the budget", () => {
            const held = app("held", { replicas: 1 });
            const budget = pdb("held", { minAvailable: 1 });
            const r = run([managed("apps", 1, { zones: 1 }), held, budget]);
            expect(r.groups[0].blocked.map((b) => [b.pod, b.node, b.workloadUrn, b.pdb, b.pdbUrn, b.wave])).to.deep.equal([
                ["held-0", "apps-1", urnOf(held), "prod/held", urnOf(budget), 2],
            ]);
            expect(r.groups[0].waits).to.deep.equal([]);
        });

        it("a grace period that ends at the 15-minute mark is within the limit; one second more fails the update, naming every late node", () => {
            const ontime = run([managed("apps", 1, { zones: 1 }), app("web", { replicas: 1, grace: 900 })]);
            expect(ontime.groups[0].stalled).to.equal(undefined);
            expect(ontime.groups[0].waves[1].drainSeconds).to.equal(900);
            const late = run([
                managed("apps", 2, { zones: 1, update: { maxUnavailable: 2 } }),
                app("a", { replicas: 1, grace: 901 }),
                app("b", { replicas: 1, grace: 901 }),
            ]);
            expect(late.groups[0].stalled).to.equal(
                "wave 2: pods on apps-1, apps-2 are still terminating after 15m (EKS eviction limit): PodEvictionFailure",
            );
        });
    });

    describe("how a rollout names its waves and when it ends", () => {
        it("each group's rollout drains only its own nodes: a managed group and an Auto Scaling group side by side", () => {
            const r = run([managed("apps", 2, { zones: 1 }), asg("batch", 1), hook(300)]);
            const apps = r.groups.findIndex((g) => g.name === "apps");
            const batch = r.groups.findIndex((g) => g.name === "batch");
            expect(r.groups[apps].nodes).to.equal(2);
            // Surge apps-3; apps-1 and apps-2 replaced by apps-4 and apps-5; the newest empty node is shed.
            expect(phases(r, apps)).to.deep.equal([
                ["scale-up", [], ["apps-3"]],
                ["upgrade", ["apps-1"], ["apps-4"]],
                ["upgrade", ["apps-2"], ["apps-5"]],
                ["scale-down", ["apps-5"], []],
            ]);
            expect(r.groups[apps].notes).to.deep.equal([]);
            expect(r.groups[batch].nodes).to.equal(1);
            expect(phases(r, batch)).to.deep.equal([["refresh", ["batch-1"], ["batch-2"]]]);
        });

        it("a MINIMAL update names its batch size: 2 nodes at a time", () => {
            const r = run([managed("apps", 2, { zones: 1, update: { maxUnavailable: 2, updateStrategy: "MINIMAL" } })]);
            expect(r.groups[0].mechanism).to.equal(
                "EKS managed node group update, MINIMAL strategy: 2 nodes at a time (updateConfig.maxUnavailable 2), each terminated before its replacement launches",
            );
        });

        it("MINIMAL: an evicted pod with nowhere to run waits for the replacement node: 60 s grace, 60 s, 120 s to Ready, in each wave", () => {
            // Two 1500m pods, one per node: each wave's evicted pod fits neither the cordoned node nor the other, still full.
            const big = app("big", { replicas: 2, cpu: "1500m" });
            const r = run([managed("apps", 2, { zones: 1, update: { maxUnavailable: 1, updateStrategy: "MINIMAL" } }), big]);
            expect(r.groups[0].unplaced).to.deep.equal([
                {
                    pod: "big-2",
                    workload: "Deployment prod/big",
                    workloadUrn: urnOf(big),
                    wave: 1,
                    reasons: "0/2 nodes are available: 1 cordoned, 1 insufficient cpu",
                    placedAfterSeconds: 240,
                },
                {
                    pod: "big-3",
                    workload: "Deployment prod/big",
                    workloadUrn: urnOf(big),
                    wave: 2,
                    reasons: "0/2 nodes are available: 1 cordoned, 1 insufficient cpu",
                    placedAfterSeconds: 240,
                },
            ]);
        });

        it("a replacement node carries its group's labels (EKS labels every node eks.amazonaws.com/nodegroup): a pod selecting them waits for it, then runs", () => {
            const pinned = changed(app("web", { replicas: 1 }), "spec.template.spec.nodeSelector", {
                "eks.amazonaws.com/nodegroup": "apps",
            });
            const r = run([managed("apps", 1, { zones: 1, update: { maxUnavailable: 1, updateStrategy: "MINIMAL" } }), pinned]);
            expect(r.groups[0].unplaced.map((u) => [u.pod, u.placedAfterSeconds])).to.deep.equal([["web-1", 240]]);
        });

        it("a pod pinned to its node's hostname never runs again once the node leaves: reported once, never placed", () => {
            // kubernetes.io/hostname is unique to a node: no replacement carries apps-1's.
            const pinned = changed(app("web", { replicas: 1 }), "spec.template.spec.nodeSelector", { "kubernetes.io/hostname": "apps-1" });
            const r = run([managed("apps", 2, { zones: 1 }), pinned]);
            const unplaced = r.groups[0].unplaced;
            expect(unplaced.map((u) => u.pod)).to.deep.equal(["web-1"]);
            expect(unplaced[0]).to.not.have.property("placedAfterSeconds");
        });

        it("the rollout ends when the last rescheduled pod is Ready, after the scale-down: 120 s + 1240 s", () => {
            // Scale-up 120 s; apps-1: 60 s grace, 60 s, 120 s to its replacement; scale-down 60 s: the waves end at 420 s.
            // web-1 starts on the surge node at 120 s and is Ready 30 + 1200 + 10 s later, at 1360 s.
            const r = run([managed("apps", 1, { zones: 1 }), slowReady(app("web", { replicas: 1 }), 1200)]);
            const g = r.groups[0];
            expect(g.waves.map((w) => w.seconds)).to.deep.equal([120, 240, 60]);
            expect(g.estimatedSeconds).to.equal(1360);
        });
    });

    describe("Karpenter drift (Karpenter docs, Concepts → Disruption: replacement launched and Ready first, then the drain)", () => {
        it("the mechanism and notes say whether terminationGracePeriod bounds the drain; the drain starts when the replacement is Ready", () => {
            const bounded = run([nodePool("general", { terminationGracePeriod: "10m" }), app("web", { replicas: 1 })]);
            const g = bounded.groups[0];
            expect(g.mechanism).to.equal(
                "Karpenter drift: 1 node at a time (disruption budgets for Drifted), replacement launched and Ready first, then PDB-respecting drain bounded by terminationGracePeriod 10m",
            );
            expect(g.notes).to.deep.equal([
                "expiry (expireAfter) is forceful: no budgets and no replacement first; budgets then hold pods only until terminationGracePeriod",
            ]);
            expect(g.windows).to.deep.equal([{ seconds: 600, source: "terminationGracePeriod of NodePool general" }]);
            expect(g.waves[0]).to.deep.include({ phase: "drift", drained: ["general-1"], launched: ["general-2"], drainStart: 120 });
            const unbounded = run([nodePool("general"), app("web", { replicas: 1 })]);
            expect(unbounded.groups[0].mechanism).to.equal(
                "Karpenter drift: 1 node at a time (disruption budgets for Drifted), replacement launched and Ready first, then PDB-respecting drain with no terminationGracePeriod",
            );
            expect(unbounded.groups[0].windows).to.deep.equal([]);
        });

        it("each held pod is deleted at the window's end minus its own grace period, whatever its name: a (5 m grace) at 5 m, b (1 m) at 9 m", () => {
            const held = (name: string, grace: number) => [app(name, { replicas: 1, grace }), pdb(name, { minAvailable: 1 })];
            const r = run([nodePool("general", { terminationGracePeriod: "10m" }), ...held("a", 300), ...held("b", 60)]);
            expect(r.groups[0].deleted.map((d) => [d.pod, d.at])).to.deep.equal([
                ["a-0", 300],
                ["b-0", 540],
            ]);
        });

        it("a pod a budget holds past terminationGracePeriod is deleted despite its budget: the zero-ready cause says so", () => {
            const r = run([
                nodePool("general", { terminationGracePeriod: "10m" }),
                app("held", { replicas: 1 }),
                pdb("held", { minAvailable: 1 }),
            ]);
            expect(r.groups[0].zeroReady.map((z) => z.cause)).to.deep.equal([
                "its pod held-0 is deleted from node general-1 despite its budget",
            ]);
        });

        it("without terminationGracePeriod a node whose pod a budget never lets go is never disrupted: blocked, naming the pod's workload", () => {
            const held = app("held", { replicas: 1 });
            const budget = pdb("held", { minAvailable: 1 });
            const r = run([nodePool("general"), held, budget]);
            expect(r.groups[0].blocked.map((b) => [b.pod, b.node, b.workloadUrn, b.pdbUrn, b.wave])).to.deep.equal([
                ["held-0", "general-1", urnOf(held), urnOf(budget), 1],
            ]);
        });

        it("a scheduled budget of one node is noted as limiting drift to 1 node while it applies", () => {
            const pool = changed(nodePool("general"), "spec.disruption.budgets", [{ nodes: "1", schedule: "@daily", duration: "10m" }]);
            const r = run([pool, app("web", { replicas: 1 })]);
            expect(r.groups[0].notes).to.include('budget nodes 1 applies during "@daily" for 10m: drift is limited to 1 node then');
        });

        it("a do-not-disrupt pod whose grace period outlasts terminationGracePeriod is deleted at once and cut short (terminator DeleteExpiringPods)", () => {
            const r = run([
                nodePool("general", { terminationGracePeriod: "1m" }),
                withTemplate(app("batch", { replicas: 1, grace: 120 }), "metadata.annotations", DO_NOT_DISRUPT),
            ]);
            const g = r.groups[0];
            expect(g.killed.map((k) => [k.pod, k.doNotDisrupt, k.how])).to.deep.equal([
                [
                    "batch-0",
                    true,
                    "Karpenter deletes it past its karpenter.sh/do-not-disrupt annotation at 0s, too late for its 2m grace period to end by the 1m terminationGracePeriod of NodePool general",
                ],
            ]);
            // It is held by its annotation, not by a budget.
            expect(g.waves[0].slowest).to.deep.include({ pod: "batch-0", left: "deleted", at: 0, doNotDisrupt: true });
            expect(g.waves[0].slowest).to.not.have.property("pdb");
            expect(g.zeroReady.map((z) => z.cause)).to.deep.equal([
                "its pod batch-0 is deleted from node general-1 despite its karpenter.sh/do-not-disrupt",
            ]);
        });
    });

    describe("a Service's endpoints (a workload reaching zero drops requests only if no other workload behind its Services is Ready)", () => {
        it("two workloads behind two shared Services: the first to reach zero is a note, the second drops both Services", () => {
            const tier = (name: string) => withTemplate(app(name, { replicas: 1 }), "metadata.labels", { app: name, tier: "web" });
            const b = tier("b");
            const r = run([
                managed("apps", 1, { zones: 1 }),
                tier("a"),
                b,
                service("web", "prod", { tier: "web" }),
                service("web2", "prod", { tier: "web" }),
            ]);
            const g = r.groups[0];
            expect(g.notes).to.deep.equal([
                "Deployment prod/a reaches zero ready replicas in wave 2, but Service prod/web, Service prod/web2 keep ready endpoints from other workloads",
            ]);
            expect(g.zeroReady).to.deep.equal([
                {
                    workload: "Deployment prod/b",
                    workloadUrn: urnOf(b),
                    wave: 2,
                    cause: "its last ready pod b-0 is evicted from node apps-1",
                    services: ["Service prod/web", "Service prod/web2"],
                },
            ]);
        });
    });
});
