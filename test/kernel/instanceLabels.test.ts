import { expect } from "chai";
import {
    GPU_COUNT_LABEL,
    GPU_MANUFACTURER_LABEL,
    GPU_NAME_LABEL,
    gpuInstanceTypesAllowed,
    instanceLabels,
    instanceTypeInfo,
    NodeRequirement,
} from "eks-platform-kernel";

const req = (key: string, operator: NodeRequirement["operator"], values: string[] = []): NodeRequirement => ({ key, operator, values });
const FAMILY = "karpenter.k8s.aws/instance-family";
const CATEGORY = "karpenter.k8s.aws/instance-category";

describe("kernel: instance labels", () => {
    it("labels a sized GPU type as Karpenter does: name parts, vCPU, memory, GPU count, maker and model", () => {
        // Karpenter's published labels of g4dn.xlarge (instance-types reference).
        expect(instanceLabels(instanceTypeInfo("g4dn.xlarge")!)).to.deep.equal({
            [GPU_NAME_LABEL]: "t4",
            "node.kubernetes.io/instance-type": "g4dn.xlarge",
            "kubernetes.io/arch": "amd64",
            "kubernetes.io/os": "linux",
            "karpenter.k8s.aws/instance-category": "g",
            "karpenter.k8s.aws/instance-generation": "4",
            "karpenter.k8s.aws/instance-family": "g4dn",
            "karpenter.k8s.aws/instance-size": "xlarge",
            "karpenter.k8s.aws/instance-cpu": "4",
            "karpenter.k8s.aws/instance-memory": "16384",
            [GPU_COUNT_LABEL]: "1",
            [GPU_MANUFACTURER_LABEL]: "nvidia",
        });
    });

    it("gives no GPU labels to a type without GPUs, and only the name's labels to a type the data does not size", () => {
        const m5 = instanceLabels(instanceTypeInfo("m5.large")!);
        expect(m5).to.not.have.any.keys(GPU_COUNT_LABEL, GPU_MANUFACTURER_LABEL);
        const g6 = instanceLabels(instanceTypeInfo("g6.xlarge")!);
        expect(g6).to.include({ [FAMILY]: "g6", [GPU_MANUFACTURER_LABEL]: "nvidia" });
        expect(g6).to.not.have.any.keys("karpenter.k8s.aws/instance-cpu", GPU_COUNT_LABEL);
    });
});

describe("kernel: NVIDIA instance types a NodePool may launch", () => {
    const nvidia = (requirements: NodeRequirement[]) => gpuInstanceTypesAllowed(requirements, "nvidia");

    it("finds GPU types by family, category, GPU count or GPU maker, sized by the data or not", () => {
        const byFamily = nvidia([req(FAMILY, "In", ["g5", "g6"])]);
        // g6 is outside the sized families: it counts by its name.
        expect(byFamily).to.include.members(["g5.xlarge", "g6.xlarge", "g6.48xlarge"]);
        expect(
            byFamily.every((t) => /^g[56]\./.test(t)),
            byFamily.join(", "),
        ).to.equal(true);
        const gp = nvidia([req(CATEGORY, "In", ["g", "p"])]);
        expect(gp).to.include.members(["g4dn.xlarge", "p5.48xlarge"]);
        // Karpenter's category is the letters before the generation digit: gr6 is category gr.
        expect(gp).to.not.include("gr6.4xlarge");
        expect(nvidia([req(CATEGORY, "In", ["gr"])])).to.include("gr6.4xlarge");
        expect(nvidia([req(GPU_COUNT_LABEL, "Gt", ["0"])])).to.include.members(["g4dn.xlarge", "g6e.xlarge"]);
        expect(nvidia([req(GPU_MANUFACTURER_LABEL, "In", ["nvidia"])])).to.include("p4d.24xlarge");
        expect(nvidia([req("node.kubernetes.io/instance-type", "In", ["g5.2xlarge", "m5.large"])])).to.deep.equal(["g5.2xlarge"]);
    });

    it("counts a pool with no instance requirement as one that may launch GPUs (Karpenter would pick any type)", () => {
        expect(nvidia([req("karpenter.sh/capacity-type", "In", ["spot"])]).length).to.be.greaterThan(40);
    });

    it("finds none for CPU families, AMD-only families, or pools that exclude GPUs", () => {
        expect(nvidia([req(FAMILY, "In", ["m5", "m6i", "c5"])])).to.deep.equal([]);
        expect(nvidia([req(CATEGORY, "In", ["c", "m", "r"]), req("karpenter.k8s.aws/instance-generation", "Gt", ["5"])])).to.deep.equal([]);
        expect(nvidia([req(FAMILY, "In", ["g4ad"])])).to.deep.equal([]);
        expect(gpuInstanceTypesAllowed([req(FAMILY, "In", ["g4ad"])], "amd")).to.include("g4ad.xlarge");
        expect(nvidia([req(GPU_COUNT_LABEL, "DoesNotExist")])).to.deep.equal([]);
        expect(nvidia([req(GPU_MANUFACTURER_LABEL, "NotIn", ["nvidia"])])).to.deep.equal([]);
        expect(nvidia([req(CATEGORY, "In", ["g"]), req(FAMILY, "NotIn", ["g4dn", "g5", "g5g", "g6", "g6e"])])).to.deep.equal([]);
    });

    it("keeps the types whose value the data lacks when a requirement needs it (unknown may hold)", () => {
        // The data sizes g5 (4 vCPU for xlarge) but not g6: a vCPU bound can only rule out g5 sizes.
        const small = nvidia([req(FAMILY, "In", ["g5", "g6"]), req("karpenter.k8s.aws/instance-cpu", "Lt", ["5"])]);
        expect(small).to.include.members(["g5.xlarge", "g6.48xlarge"]);
        expect(small).to.not.include("g5.48xlarge");
        // A key this module does not model never rules a type out.
        expect(nvidia([req(FAMILY, "In", ["g6"]), req("karpenter.k8s.aws/instance-gpu-name", "In", ["l4"])])).to.include("g6.xlarge");
        // An architecture is known from the name: only the Graviton NVIDIA family is arm64.
        const arm = nvidia([req("kubernetes.io/arch", "In", ["arm64"])]);
        expect(arm.length).to.be.greaterThan(0);
        expect(
            arm.every((t) => t.startsWith("g5g.")),
            arm.join(", "),
        ).to.equal(true);
    });
});
