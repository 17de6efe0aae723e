import { expect } from "chai";
import { tolerates } from "../../../components/nodegroups/schema";

describe("tolerations", () => {
    it("match taints by key, value and effect as Kubernetes does", () => {
        const taint = { key: "nvidia.com/gpu", value: "true", effect: "NoSchedule" as const };
        expect(tolerates([{ key: "nvidia.com/gpu", operator: "Exists" }], taint)).to.equal(true);
        expect(tolerates([{ key: "nvidia.com/gpu", operator: "Equal", value: "true", effect: "NoSchedule" }], taint)).to.equal(true);
        expect(tolerates([{ key: "nvidia.com/gpu", operator: "Equal", value: "false" }], taint)).to.equal(false);
        expect(tolerates([{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoExecute" }], taint)).to.equal(false);
        expect(tolerates([{ operator: "Exists" }], taint)).to.equal(true);
        expect(tolerates([], taint)).to.equal(false);
    });
});
