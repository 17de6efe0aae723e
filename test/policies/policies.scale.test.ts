import { expect } from "chai";
import { pdbAllowsDisruption, workloadPdbRequired, workloadPrestopHook } from "eks-platform-policies";
import { deployment, pdb, service } from "./fixtures";
import { changed, runStack, TestResource } from "./harness";

/** `n` workloads over 100 namespaces, each with its Service and PDB, except every 10th without a PDB or preStop. */
function stack(n: number): TestResource[] {
    const out: TestResource[] = [];
    for (let i = 0; i < n; i++) {
        const ns = `ns${i % 100}`;
        const d = deployment(`app${i}`, ns);
        out.push(
            i % 10 === 0 ? changed(d, "spec.template.spec.containers.0.lifecycle", undefined) : d,
            service(`app${i}`, ns, { app: `app${i}` }),
        );
        if (i % 10 !== 0) {
            out.push(pdb(`app${i}`, ns, { maxUnavailable: 1, selector: { matchLabels: { app: `app${i}` } } }));
        }
    }
    return out;
}

describe("stack policies at scale (linear in resources, not workloads × budgets)", function () {
    this.timeout(300_000);

    it("judge 2,000 and 8,000 workloads correctly, the larger in well under 16× the time", async () => {
        const times: number[] = [];
        for (const n of [2000, 8000]) {
            const resources = stack(n);
            const start = process.hrtime.bigint();
            const required = await runStack(workloadPdbRequired, resources);
            const disruption = await runStack(pdbAllowsDisruption, resources);
            const prestop = await runStack(workloadPrestopHook, resources);
            times.push(Number(process.hrtime.bigint() - start) / 1e6);
            expect(required.violations, "one per workload without a PDB").to.have.length(n / 10);
            expect(disruption.violations).to.deep.equal([]);
            expect(prestop.violations, "one per workload without preStop").to.have.length(n / 10);
        }
        // 4× the resources: linear work takes about 4×; comparing every pair would take 16×.
        expect(times[1] / times[0], `${times.map((t) => t.toFixed(0)).join(" ms, ")} ms`).to.be.lessThan(10);
    });
});
