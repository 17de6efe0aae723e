import { expect } from "chai";
import { pdbAllowsDisruption } from "../../policies/pdbAllowsDisruption";
import { expectClean, expectViolations } from "./expect";
import { daemonSet, deployment, pdb } from "./fixtures";
import { runStack, UNKNOWN, urnOf } from "./harness";

const select = { matchLabels: { app: "api" } };

describe("policy pdb-allows-disruption (stack)", () => {
    it("passes budgets that leave at least one pod evictable", async () => {
        for (const spec of [{ maxUnavailable: 1 }, { maxUnavailable: "10%" }, { minAvailable: 2 }, { minAvailable: "50%" }]) {
            expectClean(await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "prod", { ...spec, selector: select })]));
        }
    });

    it("reports maxUnavailable 0 and 0%", async () => {
        for (const value of [0, "0%"]) {
            const p = pdb("api", "prod", { maxUnavailable: value, selector: select });
            const outcome = await runStack(pdbAllowsDisruption, [deployment(), p]);
            expectViolations(
                outcome,
                /PodDisruptionBudget prod\/api sets maxUnavailable: (0|"0%"), so no pod may ever be evicted.*drains .* block/,
            );
            expect(outcome.violations[0].urn).to.equal(urnOf(p));
        }
    });

    it('reports minAvailable "100%"', async () => {
        expectViolations(
            await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "prod", { minAvailable: "100%", selector: select })]),
            /minAvailable: "100%"/,
        );
    });

    it("reports an integer minAvailable at or above the replicas, and percentages that round up to all pods", async () => {
        expectViolations(
            await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "prod", { minAvailable: 3, selector: select })]),
            /requires minAvailable 3 \(3 pods\) of the 3 replicas of Deployment prod\/api.*with minAvailable 3 and 3 replicas node drains/,
        );
        expectViolations(
            await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "prod", { minAvailable: 5, selector: select })]),
            /minAvailable 5/,
        );
        expectViolations(
            await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "prod", { minAvailable: "90%", selector: select })]),
            /minAvailable "90%" \(3 pods\) of the 3 replicas/,
        );
    });

    it("skips replica arithmetic for DaemonSets, whose size depends on the cluster", async () => {
        expectClean(
            await runStack(pdbAllowsDisruption, [
                daemonSet(),
                pdb("agent", "prod", { minAvailable: 3, selector: { matchLabels: { app: "agent" } } }),
            ]),
        );
    });

    it("reports a budget that matches no workload in the stack", async () => {
        expectViolations(
            await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "staging")]),
            /PodDisruptionBudget staging\/api matches no workload in this stack \(selector app=api in namespace staging\)/,
        );
    });

    it("reports a workload matched by two budgets", async () => {
        const d = deployment();
        const outcome = await runStack(pdbAllowsDisruption, [
            d,
            pdb(),
            pdb("api-web", "prod", { maxUnavailable: 1, selector: { matchLabels: { tier: "web" } } }),
        ]);
        expectViolations(outcome, /Deployment prod\/api is matched by 2 PodDisruptionBudgets \(api, api-web\).*eviction API refuses/);
        expect(outcome.violations[0].urn).to.equal(urnOf(d));
    });

    it("reports values the API server rejects", async () => {
        expectViolations(
            await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "prod", { maxUnavailable: "one", selector: select })]),
            /maxUnavailable to "one", which is neither/,
        );
    });

    it("says so instead of passing when the stack has no PDB", async () => {
        expect((await runStack(pdbAllowsDisruption, [deployment()])).notApplicable).to.match(/no PodDisruptionBudget in this stack/);
    });

    it("decides the known budgets when one budget's values are unknown", async () => {
        const outcome = await runStack(pdbAllowsDisruption, [
            deployment(),
            pdb("api", "prod", { maxUnavailable: 0, selector: select }),
            deployment("web"),
            pdb("web", "prod", { maxUnavailable: UNKNOWN.number, selector: { matchLabels: { app: "web" } } }),
        ]);
        expect(outcome.violations.map((v) => v.message)).to.have.length(1);
        expect(outcome.violations[0].message).to.match(/prod\/api sets maxUnavailable: 0/);
        expect(outcome.cantRun).to.match(/undecided until the values are known: PodDisruptionBudget prod-web-pdb/);
    });
});
