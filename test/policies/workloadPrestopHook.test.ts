import { expect } from "chai";
import { workloadPrestopHook } from "eks-platform-policies/workloadPrestopHook";
import { expectClean, expectViolations } from "./expect";
import { deployment, service } from "./fixtures";
import { changed, runStack, UNKNOWN, urnOf } from "./harness";

const P = "spec.template.spec.containers.0.lifecycle";

describe("policy workload-prestop-hook (stack)", () => {
    it("is advisory by default", () => {
        expect(workloadPrestopHook.enforcementLevel).to.equal("advisory");
    });

    it("passes a Service-selected workload whose containers have a preStop hook", async () => {
        expectClean(await runStack(workloadPrestopHook, [deployment(), service()]));
    });

    it("reports a container without preStop on the workload's URN", async () => {
        const d = changed(deployment(), P, undefined);
        const outcome = await runStack(workloadPrestopHook, [d, service()]);
        expectViolations(outcome, /Deployment prod\/api container "app" has no preStop hook, yet Service api sends it traffic/);
        expect(outcome.violations[0].urn).to.equal(urnOf(d));
    });

    it("treats native sidecars (init containers with restartPolicy: Always) like containers", async () => {
        const I = "spec.template.spec.initContainers.0";
        const d = changed(deployment(), `${I}.restartPolicy`, "Always");
        expectViolations(
            await runStack(workloadPrestopHook, [d, service()]),
            /Deployment prod\/api sidecar container "migrate" has no preStop hook, yet Service api sends it traffic/,
        );
        expectClean(await runStack(workloadPrestopHook, [changed(d, `${I}.lifecycle`, { preStop: { sleep: { seconds: 5 } } }), service()]));
        // A plain init container has exited before the pod serves traffic.
        expectClean(await runStack(workloadPrestopHook, [changed(deployment(), `${I}.restartPolicy`, "OnFailure"), service()]));
    });

    it("ignores workloads no Service selects: other labels, other namespace", async () => {
        const d = changed(deployment(), P, undefined);
        expect((await runStack(workloadPrestopHook, [d, service("web", "prod", { app: "web" })])).notApplicable).to.match(
            /no long-running workload .* selected by a Service/,
        );
        expect((await runStack(workloadPrestopHook, [d, service("api", "web")])).notApplicable).to.match(/nothing was checked/);
        expect((await runStack(workloadPrestopHook, [d, service("api", "prod", {})])).notApplicable).to.match(/nothing was checked/);
    });

    it("says so instead of passing when the stack has nothing to check", async () => {
        expect((await runStack(workloadPrestopHook, [])).notApplicable).to.match(/nothing was checked/);
    });

    it("decides known workloads when a Service selector is unknown, and reports the undecided one", async () => {
        const d = changed(deployment(), P, undefined);
        const unknownSvc = changed(service("other"), "spec.selector", UNKNOWN.object);
        const outcome = await runStack(workloadPrestopHook, [d, service(), unknownSvc]);
        expect(outcome.violations).to.have.length(1);
        expect(outcome.cantRun).to.match(/undecided until the values are known: Service prod-other-svc/);
    });
});
