import { expect } from "chai";
import {
    capacityTypesAllowed,
    nodeRequirementMatches,
    nodeTemplateTags,
    readNodeTemplateTags,
    untoleratedTaint,
} from "eks-platform-kernel";

describe("scheduling rules (kernel/scheduling)", () => {
    it("matches Gt/Lt node requirements as integers and never on a missing or non-numeric label", () => {
        const gt = { key: "karpenter.k8s.aws/instance-generation", operator: "Gt" as const, values: ["5"] };
        expect(nodeRequirementMatches(gt, { "karpenter.k8s.aws/instance-generation": "6" })).to.equal(true);
        expect(nodeRequirementMatches(gt, { "karpenter.k8s.aws/instance-generation": "5" })).to.equal(false);
        expect(nodeRequirementMatches(gt, { "karpenter.k8s.aws/instance-generation": "x" })).to.equal(false);
        expect(nodeRequirementMatches(gt, {})).to.equal(false);
        expect(nodeRequirementMatches({ ...gt, operator: "Lt" }, { "karpenter.k8s.aws/instance-generation": "4" })).to.equal(true);
    });

    it("reads the capacity types a NodePool allows, on-demand when it says nothing", () => {
        const req = (operator: "In" | "NotIn" | "Exists", values: string[] = []) => [
            { key: "karpenter.sh/capacity-type", operator, values },
        ];
        expect(capacityTypesAllowed([])).to.deep.equal(["on-demand"]);
        expect(capacityTypesAllowed(req("In", ["spot", "on-demand"]))).to.deep.equal(["spot", "on-demand"]);
        expect(capacityTypesAllowed(req("NotIn", ["spot"]))).to.deep.equal(["on-demand"]);
        expect(capacityTypesAllowed(req("Exists"))).to.deep.equal(["spot", "on-demand"]);
    });

    it("writes and reads node-template tags for a group's labels and taints", () => {
        const taints = [{ key: "workload", value: "batch", effect: "NoSchedule" as const }];
        const tags = nodeTemplateTags({ workload: "batch" }, taints);
        expect(tags).to.deep.equal({
            "k8s.io/cluster-autoscaler/node-template/label/workload": "batch",
            "k8s.io/cluster-autoscaler/node-template/taint/workload": "batch:NoSchedule",
        });
        expect(readNodeTemplateTags(new Map(Object.entries(tags)))).to.deep.equal({ labels: { workload: "batch" }, taints });
        expect(readNodeTemplateTags(new Map([["Name", "x"]]))).to.equal(undefined);
    });

    it("keeps a pod off a node for NoSchedule/NoExecute taints it does not tolerate, not for PreferNoSchedule", () => {
        const taints = [
            { key: "a", value: "", effect: "PreferNoSchedule" as const },
            { key: "b", value: "1", effect: "NoSchedule" as const },
        ];
        expect(untoleratedTaint([], taints)?.key).to.equal("b");
        expect(untoleratedTaint([{ key: "b", operator: "Equal", value: "1" }], taints)).to.equal(undefined);
    });
});
