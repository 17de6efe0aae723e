import { expect } from "chai";
import { drainWindow } from "eks-platform-policies/drainWindow";
import { expectClean, expectViolations } from "./expect";
import { cronJob, deployment, lifecycleHook, nodePool } from "./fixtures";
import { changed, runStack, UNKNOWN, urnOf } from "./harness";

const T = "spec.template.spec.terminationGracePeriodSeconds";
const NP = "spec.template.spec";

describe("policy drain-window (stack)", () => {
    it("passes workloads whose grace period fits every node window", async () => {
        expectClean(await runStack(drainWindow, [deployment(), nodePool(), lifecycleHook(300)]));
    });

    it("reports a grace period above a NodePool's terminationGracePeriod, on the workload's URN", async () => {
        const d = changed(deployment(), T, 600);
        const outcome = await runStack(drainWindow, [d, changed(nodePool(), `${NP}.terminationGracePeriod`, "5m")]);
        expectViolations(
            outcome,
            /Deployment prod\/api has a termination grace period of 600 s, longer than the 5m drain window of NodePool general \(terminationGracePeriod\).*Karpenter deletes remaining pods/,
        );
        expect(outcome.violations[0].urn).to.equal(urnOf(d));
    });

    it("reports a grace period above a lifecycle hook's heartbeat", async () => {
        expectViolations(
            await runStack(drainWindow, [changed(deployment(), T, 400), lifecycleHook(300)]),
            /grace period of 400 s, longer than the 5m drain window of lifecycle hook gpu-terminate.*heartbeat expires/,
        );
    });

    it("caps NodePools that may launch Spot at the Spot notice", async () => {
        const spot = changed(nodePool(), `${NP}.requirements`, [
            { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot", "on-demand"] },
        ]);
        expectViolations(
            await runStack(drainWindow, [changed(deployment(), T, 150), spot]),
            /150 s, longer than the 2m drain window of NodePool general \(Spot\)/,
        );
        expectClean(await runStack(drainWindow, [changed(deployment(), T, 150), spot], { spotNoticeSeconds: 180 }));
    });

    it("uses Kubernetes' 30 s default when the grace period is unset", async () => {
        expectViolations(
            await runStack(drainWindow, [changed(deployment(), T, undefined), changed(nodePool(), `${NP}.terminationGracePeriod`, "20s")]),
            /grace period of 30 s, longer than the 20s drain window/,
        );
    });

    it("ignores Jobs, launch hooks and NodePools without a window, and says so when nothing is left", async () => {
        const launching = changed(lifecycleHook(), "lifecycleTransition", "autoscaling:EC2_INSTANCE_LAUNCHING");
        expect(
            (await runStack(drainWindow, [deployment(), launching, changed(nodePool(), `${NP}.terminationGracePeriod`, undefined)]))
                .notApplicable,
        ).to.match(/no drain window/);
        expect((await runStack(drainWindow, [cronJob(), nodePool()])).notApplicable).to.match(/no long-running workload/);
    });

    it("takes no terminationGracePeriod window from a v1beta1 NodePool (a v1 field), but still its Spot notice", async () => {
        const beta = changed(changed(nodePool(), "apiVersion", "karpenter.sh/v1beta1"), `${NP}.terminationGracePeriod`, "5m");
        expect((await runStack(drainWindow, [changed(deployment(), T, 100), beta])).notApplicable).to.match(/no drain window/);
        const spot = changed(beta, `${NP}.requirements`, [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] }]);
        expectViolations(
            await runStack(drainWindow, [changed(deployment(), T, 150), spot]),
            /150 s, longer than the 2m drain window of NodePool general \(Spot\)/,
        );
    });

    it("leaves a workload with an unknown grace period undecided, still judging the others", async () => {
        const outcome = await runStack(drainWindow, [
            changed(deployment(), T, 600),
            changed(deployment("web"), T, UNKNOWN.number),
            lifecycleHook(300),
        ]);
        expect(outcome.violations).to.have.length(1);
        expect(outcome.cantRun).to.match(/undecided until the values are known: Deployment prod\/web/);
    });
});
