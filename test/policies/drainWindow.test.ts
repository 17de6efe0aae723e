import { expect } from "chai";
import { drainWindow } from "eks-platform-policies";
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

describe("policy drain-window: only the pools a workload can be scheduled on", () => {
    const P = "spec.template.spec";
    /** A NodePool launching only Spot nodes, with a long terminationGracePeriod: its only tight window is the Spot notice. */
    const spotOnly = (name = "spot") =>
        changed(
            changed(
                changed(nodePool(name), `${NP}.requirements`, [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] }]),
                `${NP}.terminationGracePeriod`,
                "48h",
            ),
            "metadata.name",
            name,
        );
    const slow = (d = deployment()) => changed(d, T, 300);

    it("does not judge a workload pinned to on-demand against a Spot-only NodePool's window", async () => {
        const pinned = changed(slow(), `${P}.nodeSelector`, { "karpenter.sh/capacity-type": "on-demand" });
        expectClean(await runStack(drainWindow, [pinned, spotOnly()]));
        // Unpinned, it may land there and gets the Spot notice.
        expectViolations(
            await runStack(drainWindow, [slow(), spotOnly()]),
            /300 s, longer than the 2m drain window of NodePool spot \(Spot\), whose nodes its pods may be scheduled on/,
        );
    });

    it("judges an on-demand-pinned workload against the on-demand nodes of a mixed pool, not its Spot notice", async () => {
        const mixed = changed(
            changed(nodePool(), `${NP}.requirements`, [
                { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot", "on-demand"] },
            ]),
            `${NP}.terminationGracePeriod`,
            "4m",
        );
        const pinned = changed(slow(), `${P}.nodeSelector`, { "karpenter.sh/capacity-type": "on-demand" });
        expectViolations(
            await runStack(drainWindow, [pinned, mixed]),
            /300 s, longer than the 4m drain window of NodePool general \(terminationGracePeriod\)/,
        );
        expectViolations(
            await runStack(drainWindow, [slow(), mixed]),
            /300 s, longer than the 2m drain window of NodePool general \(Spot\)/,
        );
    });

    it("reads required node affinity: In, NotIn, and terms that are ORed", async () => {
        const affinity = (terms: unknown[]) =>
            changed(slow(), `${P}.affinity`, {
                nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
            });
        const onDemandOnly = { matchExpressions: [{ key: "karpenter.sh/capacity-type", operator: "NotIn", values: ["spot"] }] };
        expectClean(await runStack(drainWindow, [affinity([onDemandOnly]), spotOnly()]));
        const spotToo = { matchExpressions: [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] }] };
        expectViolations(await runStack(drainWindow, [affinity([onDemandOnly, spotToo]), spotOnly()]), /NodePool spot \(Spot\)/);
        // An operator the policy does not model never excludes a pool.
        expectViolations(
            await runStack(drainWindow, [
                affinity([{ matchExpressions: [{ key: "karpenter.k8s.aws/instance-cpu", operator: "Gt", values: ["4"] }] }]),
                spotOnly(),
            ]),
            /NodePool spot \(Spot\)/,
        );
    });

    it("keeps a workload off pools it does not select by label, and off tainted pools it does not tolerate", async () => {
        const gpu = changed(changed(spotOnly("gpu"), `spec.template.metadata.labels`, { workload: "gpu" }), `${NP}.taints`, [
            { key: "nvidia.com/gpu", value: "true", effect: "NoSchedule" },
        ]);
        expectClean(await runStack(drainWindow, [slow(), gpu]));
        const tolerant = changed(slow(), `${P}.tolerations`, [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }]);
        expectViolations(await runStack(drainWindow, [tolerant, gpu]), /NodePool gpu \(Spot\)/);
        expectClean(await runStack(drainWindow, [changed(tolerant, `${P}.nodeSelector`, { workload: "batch" }), gpu]));
        expectViolations(
            await runStack(drainWindow, [changed(tolerant, `${P}.nodeSelector`, { workload: "gpu" }), gpu]),
            /NodePool gpu \(Spot\)/,
        );
        // A pool is selectable by its karpenter.sh/nodepool label.
        expectClean(await runStack(drainWindow, [changed(tolerant, `${P}.nodeSelector`, { "karpenter.sh/nodepool": "general" }), gpu]));
    });

    it("applies a lifecycle hook's window to every workload: its nodes are not described", async () => {
        const pinned = changed(slow(), `${P}.nodeSelector`, { "karpenter.sh/capacity-type": "on-demand" });
        expectViolations(
            await runStack(drainWindow, [pinned, spotOnly(), lifecycleHook(120)]),
            /drain window of lifecycle hook gpu-terminate/,
        );
    });
});
