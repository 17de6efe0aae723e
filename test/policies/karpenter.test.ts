import { expect } from "chai";
import { karpenterNodeClass } from "../../policies/karpenterNodeClass";
import { karpenterNodePool } from "../../policies/karpenterNodePool";
import { expectClean, expectViolations } from "./expect";
import { deployment, nodeClass, nodePool } from "./fixtures";
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

    it("judges the known fields when limits are unknown", async () => {
        const np = changed(changed(nodePool(), "spec.limits", UNKNOWN.object), "spec.template.spec.nodeClassRef.group", undefined);
        const outcome = await runResource(karpenterNodePool, np);
        expect(outcome.violations).to.have.length(1);
        expect(outcome.cantRun).to.match(/spec\.limits can't be known during preview/);
    });
});

describe("policy karpenter-nodeclass", () => {
    it("passes a pinned, encrypted, IMDSv2 EC2NodeClass", async () => {
        expectClean(await runResource(karpenterNodeClass, nodeClass()));
    });

    it("reports an @latest AMI alias unless allowLatestAmi", async () => {
        const latest = changed(nodeClass(), "spec.amiSelectorTerms", [{ alias: "al2023@latest" }]);
        expectViolations(
            await runResource(karpenterNodeClass, latest),
            /EC2NodeClass default selects its AMI with alias al2023@latest.*drifts every node/,
        );
        expectClean(await runResource(karpenterNodeClass, latest, { allowLatestAmi: true }));
    });

    it("reports tags under the prefixes Karpenter reserves", async () => {
        for (const key of [
            "kubernetes.io/cluster/platform-prod",
            "karpenter.sh/nodepool",
            "karpenter.k8s.aws/ec2nodeclass",
            "eks:eks-cluster-name",
        ]) {
            expectViolations(
                await runResource(karpenterNodeClass, changed(nodeClass(), "spec.tags", { team: "platform", [key]: "x" })),
                new RegExp(`reserved tag ${key.replace(/[./]/g, "\\$&")} in spec\\.tags`),
            );
        }
    });

    it("reports IMDSv1 allowed", async () => {
        expectViolations(
            await runResource(karpenterNodeClass, changed(nodeClass(), "spec.metadataOptions.httpTokens", "optional")),
            /httpTokens to "optional"/,
        );
    });

    it("reports an unencrypted block device", async () => {
        expectViolations(
            await runResource(karpenterNodeClass, changed(nodeClass(), "spec.blockDeviceMappings.0.ebs.encrypted", false)),
            /block device \/dev\/xvda is not encrypted/,
        );
        expectViolations(
            await runResource(karpenterNodeClass, changed(nodeClass(), "spec.blockDeviceMappings.0.ebs.encrypted", undefined)),
            /not encrypted/,
        );
    });
});
