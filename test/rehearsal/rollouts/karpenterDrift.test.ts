/**
 * Karpenter drift of a NodePool (rehearsal/rollouts/karpenterDrift.ts): the replacement first,
 * terminationGracePeriod deleting what a budget or karpenter.sh/do-not-disrupt still holds, and
 * what stops drift. Budgets and limits are in ../index.rules.test.ts and ../index.fidelity.test.ts.
 * Each scenario is hand-checked against the rule in its title; sizes are those of ../scenario.ts
 * (an m6i.large holds 1930m CPU, so two 1500m pods never share one).
 */
import { expect } from "chai";
import { changed, urnOf } from "../../policies/harness";
import { app, nodePool, pdb, run, withTemplate } from "../scenario";

const DO_NOT_DISRUPT = { "karpenter.sh/do-not-disrupt": "true" };

describe("rehearsal/rollouts/karpenterDrift.ts: Karpenter drift", () => {
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
});
