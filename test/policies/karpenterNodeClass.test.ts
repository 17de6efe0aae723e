import { karpenterNodeClass } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { nodeClass } from "./fixtures";
import { changed, runResource } from "./harness";

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

    it("reports a metadata hop limit above maxHopLimit; unset is Karpenter's default of 1", async () => {
        expectViolations(
            await runResource(karpenterNodeClass, changed(nodeClass(), "spec.metadataOptions.httpPutResponseHopLimit", 2)),
            /EC2NodeClass default sets metadataOptions\.httpPutResponseHopLimit to 2, above 1\. Why: .*node role's credentials/,
        );
        expectClean(await runResource(karpenterNodeClass, changed(nodeClass(), "spec.metadataOptions.httpPutResponseHopLimit", undefined)));
        expectClean(await runResource(karpenterNodeClass, changed(nodeClass(), "spec.metadataOptions", undefined)));
        expectClean(
            await runResource(karpenterNodeClass, changed(nodeClass(), "spec.metadataOptions.httpPutResponseHopLimit", 2), {
                maxHopLimit: 2,
            }),
        );
    });

    it("passes Windows aliases at @latest, the only version Karpenter accepts for them, and refuses a pinned one", async () => {
        // Karpenter v1 EC2NodeClass CEL: "windows families may only specify version 'latest'".
        for (const family of ["windows2019", "windows2022", "windows2025"]) {
            expectClean(
                await runResource(karpenterNodeClass, changed(nodeClass(), "spec.amiSelectorTerms", [{ alias: `${family}@latest` }])),
            );
            expectViolations(
                await runResource(karpenterNodeClass, changed(nodeClass(), "spec.amiSelectorTerms", [{ alias: `${family}@v20250101` }])),
                new RegExp(`alias ${family}@v20250101.*Karpenter.*only.*latest.*Fix: select ${family}@latest`),
            );
        }
    });

    it("reports an alias Karpenter's validation refuses: malformed, or of an unknown family", async () => {
        for (const [alias, pattern] of [
            ["al2023", /alias "al2023" is not written family@version/],
            [
                "AL2023@v20250115",
                /alias "AL2023@v20250115" names family AL2023, which Karpenter does not know \(al2, al2023, bottlerocket, windows2019, windows2022, windows2025\)/,
            ],
            ["ubuntu@latest", /alias "ubuntu@latest" names family ubuntu, which Karpenter does not know/],
        ] as const) {
            expectViolations(
                await runResource(karpenterNodeClass, changed(nodeClass(), "spec.amiSelectorTerms", [{ alias }])),
                new RegExp(`EC2NodeClass default ${pattern.source}.*Why: the API server refuses the EC2NodeClass`),
            );
        }
    });

    it("reports each tag key the EC2NodeClass CRD restricts", async () => {
        for (const key of [
            "kubernetes.io/cluster/platform-prod",
            "karpenter.sh/nodepool",
            "karpenter.sh/nodeclaim",
            "karpenter.k8s.aws/ec2nodeclass",
            "eks:eks-cluster-name",
        ]) {
            expectViolations(
                await runResource(karpenterNodeClass, changed(nodeClass(), "spec.tags", { team: "platform", [key]: "x" })),
                new RegExp(`EC2NodeClass default sets restricted tag ${key.replace(/[./]/g, "\\$&")}.* in spec\\.tags.*API server refuses`),
            );
        }
    });

    it("reports kubernetes.io/cluster keys without a slash too, as the CRD's startsWith does", async () => {
        expectViolations(
            await runResource(karpenterNodeClass, changed(nodeClass(), "spec.tags", { "kubernetes.io/clusterfoo": "x" })),
            /restricted tag kubernetes\.io\/clusterfoo \(keys starting with kubernetes\.io\/cluster\)/,
        );
    });

    it("reports an empty tag key", async () => {
        expectViolations(
            await runResource(karpenterNodeClass, changed(nodeClass(), "spec.tags", { "": "x" })),
            /restricted tag an empty key/,
        );
    });

    it("lists several restricted keys in one violation", async () => {
        expectViolations(
            await runResource(
                karpenterNodeClass,
                changed(nodeClass(), "spec.tags", { "karpenter.sh/nodepool": "a", "eks:eks-cluster-name": "b" }),
            ),
            /restricted tags karpenter\.sh\/nodepool, eks:eks-cluster-name in spec\.tags/,
        );
    });

    it("passes other keys under karpenter.sh/ and karpenter.k8s.aws/, such as karpenter.sh/discovery", async () => {
        expectClean(
            await runResource(
                karpenterNodeClass,
                changed(nodeClass(), "spec.tags", {
                    "karpenter.sh/discovery": "platform",
                    "karpenter.sh/team": "payments",
                    "karpenter.k8s.aws/owner": "platform",
                    "kubernetes.io/role": "node",
                }),
            ),
        );
    });

    it("reports tag keys under the aws: prefix, in any letter case", async () => {
        for (const key of ["aws:cost-center", "AWS:Owner"]) {
            expectViolations(
                await runResource(karpenterNodeClass, changed(nodeClass(), "spec.tags", { [key]: "x" })),
                new RegExp(`sets tag ${key} in spec\\.tags, under the aws: prefix.*EC2 refuses`),
            );
        }
    });

    it("reports a v1beta1 EC2NodeClass once, as an API to migrate", async () => {
        const beta = changed(changed(nodeClass(), "apiVersion", "karpenter.k8s.aws/v1beta1"), "spec.tags", {
            "karpenter.sh/nodepool": "x",
        });
        expectViolations(
            await runResource(karpenterNodeClass, beta),
            /EC2NodeClass default uses apiVersion karpenter\.k8s\.aws\/v1beta1, not Karpenter's v1 API.*Fix: migrate it to apiVersion karpenter\.k8s\.aws\/v1/,
        );
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
