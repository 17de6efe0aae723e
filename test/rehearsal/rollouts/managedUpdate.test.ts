/**
 * An EKS managed node group update (rehearsal/rollouts/managedUpdate.ts): its 15-minute eviction
 * limit. updateConfig, the surge and the MINIMAL strategy are in ../index.rules.test.ts and
 * ../rollout.test.ts.
 * Each scenario is hand-checked against the rule in its title; sizes are those of ../scenario.ts
 * (an m6i.large holds 1930m CPU, so two 1500m pods never share one).
 */
import { expect } from "chai";
import { urnOf } from "../../policies/harness";
import { app, managed, pdb, run, slowReady } from "../scenario";

describe("rehearsal/rollouts/managedUpdate.ts: an EKS managed node group update", () => {
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
});
