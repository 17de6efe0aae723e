import { nodegroupUpdateConfig } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { nodeGroup } from "./fixtures";
import { changed, runResource } from "./harness";

describe("policy nodegroup-update-config", () => {
    it("passes a node group with maxUnavailablePercentage 33 or a small maxUnavailable", async () => {
        expectClean(await runResource(nodegroupUpdateConfig, nodeGroup()));
        expectClean(await runResource(nodegroupUpdateConfig, changed(nodeGroup(), "updateConfig", { maxUnavailable: 1 })));
    });

    it("reports a missing updateConfig", async () => {
        expectViolations(
            await runResource(nodegroupUpdateConfig, changed(nodeGroup(), "updateConfig", undefined)),
            /NodeGroup nodegroups-system sets no updateConfig/,
        );
    });

    it("reports 100%, and a count that is every node the group may hold", async () => {
        expectViolations(
            await runResource(nodegroupUpdateConfig, changed(nodeGroup(), "updateConfig.maxUnavailablePercentage", 100)),
            /maxUnavailablePercentage to 100.*drain every node of the group at once/,
        );
        expectViolations(
            await runResource(nodegroupUpdateConfig, changed(nodeGroup(), "updateConfig", { maxUnavailable: 6 })),
            /maxUnavailable to 6, every node the group may hold \(scalingConfig\.maxSize 6\).*Fix: set maxUnavailable below 6/,
        );
    });

    it("does not compare with desiredSize: an autoscaler moves it, and one node is EKS's minimum", async () => {
        const oneNode = changed(nodeGroup(), "scalingConfig", { minSize: 1, desiredSize: 1, maxSize: 1 });
        expectClean(await runResource(nodegroupUpdateConfig, changed(oneNode, "updateConfig", { maxUnavailable: 1 })));
        expectClean(await runResource(nodegroupUpdateConfig, oneNode));
        expectClean(await runResource(nodegroupUpdateConfig, changed(nodeGroup(), "updateConfig", { maxUnavailable: 3 })));
        expectClean(
            await runResource(
                nodegroupUpdateConfig,
                changed(changed(nodeGroup(), "scalingConfig.desiredSize", "2"), "updateConfig", { maxUnavailable: "2" }),
            ),
        );
    });

    it("reports values EKS rejects", async () => {
        expectViolations(
            await runResource(
                nodegroupUpdateConfig,
                changed(nodeGroup(), "updateConfig", { maxUnavailable: 1, maxUnavailablePercentage: 33 }),
            ),
            /sets both updateConfig\.maxUnavailable and updateConfig\.maxUnavailablePercentage.*EKS accepts only one/,
        );
        for (const [key, value] of [
            ["maxUnavailable", 0],
            ["maxUnavailable", 1.5],
            ["maxUnavailable", 101],
            ["maxUnavailablePercentage", 0],
            ["maxUnavailablePercentage", 150],
        ] as const) {
            expectViolations(
                await runResource(nodegroupUpdateConfig, changed(nodeGroup(), "updateConfig", { [key]: value })),
                new RegExp(`sets updateConfig\\.${key} to ${value}, outside the whole numbers 1 to 100 EKS accepts`),
            );
        }
    });
});
