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

    it("judge 2,000 and 8,000 workloads correctly, the larger with well under 16× the work", async () => {
        // Work, not time: every read of the resources' properties is counted (a machine's speed,
        // another Node version or a busy CI runner cannot change it). `npm run bench` measures time.
        const reads: number[] = [];
        for (const n of [2000, 8000]) {
            const resources = stack(n);
            const counter = { count: 0 };
            const required = await runStack(workloadPdbRequired, resources, {}, undefined, counter);
            const disruption = await runStack(pdbAllowsDisruption, resources, {}, undefined, counter);
            const prestop = await runStack(workloadPrestopHook, resources, {}, undefined, counter);
            reads.push(counter.count);
            expect(required.violations, "one per workload without a PDB").to.have.length(n / 10);
            expect(disruption.violations).to.deep.equal([]);
            expect(prestop.violations, "one per workload without preStop").to.have.length(n / 10);
        }
        // 4× the resources: linear work reads about 4× as much; comparing every pair would read 16×.
        expect(reads[0], "the reads are counted").to.be.greaterThan(2000);
        expect(reads[1] / reads[0], reads.join(" reads, ")).to.be.lessThan(6);
    });
});
