import { expect } from "chai";
import { karpenterNodePool } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { deployment, nodePool } from "./fixtures";
import { changed, runResource, UNKNOWN } from "./harness";

describe("policy karpenter-nodepool", () => {
    it("passes a complete v1 NodePool", async () => {
        expectClean(await runResource(karpenterNodePool, nodePool()));
    });

    it("is not applicable to other resources", async () => {
        expect((await runResource(karpenterNodePool, deployment())).notApplicable).to.match(/not a Karpenter NodePool/);
    });

    for (const key of ["group", "kind", "name"]) {
        it(`reports a nodeClassRef without ${key}`, async () => {
            expectViolations(
                await runResource(karpenterNodePool, changed(nodePool(), `spec.template.spec.nodeClassRef.${key}`, undefined)),
                new RegExp(`NodePool general spec\\.template\\.spec\\.nodeClassRef lacks ${key}`),
            );
        });
    }

    it("reports missing cpu or memory limits", async () => {
        expectViolations(
            await runResource(karpenterNodePool, changed(nodePool(), "spec.limits.memory", undefined)),
            /sets no valid spec\.limits\.memory/,
        );
        expectViolations(
            await runResource(karpenterNodePool, changed(nodePool(), "spec.limits", undefined)),
            /spec\.limits\.cpu or spec\.limits\.memory/,
        );
    });

    it("reports a missing or invalid terminationGracePeriod", async () => {
        expectViolations(
            await runResource(karpenterNodePool, changed(nodePool(), "spec.template.spec.terminationGracePeriod", undefined)),
            /sets no spec\.template\.spec\.terminationGracePeriod.*never reclaimed/,
        );
        expectViolations(
            await runResource(karpenterNodePool, changed(nodePool(), "spec.template.spec.terminationGracePeriod", "1 day")),
            /"1 day", which is not a duration/,
        );
    });

    it("reports a v1beta1 NodePool once, as an API to migrate, instead of v1 field checks", async () => {
        const beta = changed(
            changed(changed(nodePool(), "apiVersion", "karpenter.sh/v1beta1"), "spec.template.spec.terminationGracePeriod", undefined),
            "spec.template.spec.nodeClassRef",
            { apiVersion: "karpenter.k8s.aws/v1beta1", kind: "EC2NodeClass", name: "default" },
        );
        for (const np of [beta, { ...beta, type: "kubernetes:karpenter.sh/v1beta1:NodePool" }]) {
            expectViolations(
                await runResource(karpenterNodePool, np),
                /NodePool general uses apiVersion karpenter\.sh\/v1beta1, not Karpenter's v1 API.*pre-1\.0 releases.*1\.1 removed.*Fix: migrate it to apiVersion karpenter\.sh\/v1/,
            );
        }
        const generic = { ...beta, type: "kubernetes:apiextensions.k8s.io:CustomResource" };
        expectViolations(await runResource(karpenterNodePool, generic), /uses apiVersion karpenter\.sh\/v1beta1/);
    });

    it("judges the known fields when limits are unknown", async () => {
        const np = changed(changed(nodePool(), "spec.limits", UNKNOWN.object), "spec.template.spec.nodeClassRef.group", undefined);
        const outcome = await runResource(karpenterNodePool, np);
        expect(outcome.violations).to.have.length(1);
        expect(outcome.cantRun).to.match(/spec\.limits can't be known during preview/);
    });
});
