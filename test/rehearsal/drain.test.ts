/**
 * A drain on the rollout's clock (rehearsal/drain.ts), rule by rule: how long a node's drain
 * lasts, the order pods leave in, which pod is named last out, and how long a budget holds a pod.
 * Each scenario is hand-checked against the rule in its title; sizes are those of ./scenario.ts
 * (an m6i.large holds 1930m CPU, so two 1500m pods never share one).
 */
import { expect } from "chai";
import { urnOf } from "../policies/harness";
import { app, managed, pdb, run, slowReady } from "./scenario";

describe("rehearsal/drain.ts: a drain on the rollout's clock", () => {
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
});
