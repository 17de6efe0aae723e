/**
 * The Eviction API against PodDisruptionBudgets (rehearsal/eviction.ts), hand-checked: which pods
 * a budget lets go, Ready or not. A pod under two budgets is in ./index.test.ts.
 */
import { expect } from "chai";
import type { Rehearsal } from "eks-platform-rehearsal";
import { changed } from "../policies/harness";
import { app, asg, hook, pdb, run } from "./scenario";

describe("rehearsal/eviction.ts: the Eviction API against budgets", () => {
    describe("unhealthyPodEvictionPolicy (policy/v1 PodDisruptionBudgetSpec; kubernetes v1.34 pkg/registry/core/pod/storage/eviction.go)", () => {
        // Three instances refreshed one at a time (60% of 3 keeps 2), each with a 5m hook; one 900m pod
        // per instance, Ready 1240 s after it starts; minAvailable 3 lets no Ready pod go. web-0 is
        // terminated with batch-1 at 300 s and recreated as web-3 on batch-2, where it is not yet Ready
        // when batch-2 drains, with 2 of the 3 pods the budget wants healthy.
        const slow = changed(app("web", { replicas: 3, cpu: "900m" }), "spec.template.spec.containers.0.readinessProbe", {
            httpGet: { path: "/", port: 80 },
            initialDelaySeconds: 1200,
        });
        const refresh = (spec: Record<string, unknown>) =>
            run([asg("batch", 3, { minHealthy: 60 }), hook(300), slow, pdb("web", spec)]).groups[0];
        const killed = (g: Rehearsal["groups"][number]) => g.killed.map((k) => [k.pod, k.wave]);

        it("IfHealthyBudget (the default): a pod not yet Ready goes only while the budget is met, so web-3 is terminated with batch-2", () => {
            const g = refresh({ minAvailable: 3 });
            expect(killed(g)).to.deep.equal([
                ["web-0", 1],
                ["web-1", 2],
                ["web-3", 2],
                ["web-2", 3],
                ["web-5", 3],
            ]);
            expect(g.waves.map((w) => w.evictions)).to.deep.equal([0, 0, 0]);
        });

        it("AlwaysAllow: a pod not yet Ready is evicted whatever the budget, so web-3 leaves batch-2 before it is terminated", () => {
            const g = refresh({ minAvailable: 3, unhealthyPodEvictionPolicy: "AlwaysAllow" });
            expect(killed(g)).to.deep.equal([
                ["web-0", 1],
                ["web-1", 2],
                ["web-2", 3],
            ]);
            expect(g.waves.map((w) => w.evictions)).to.deep.equal([0, 1, 1]);
        });
    });
});
