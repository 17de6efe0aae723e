import { expect } from "chai";
import eniMaxPods from "eks-platform-kernel/data/eniMaxPods.json";
import instanceSpecs from "eks-platform-kernel/data/instanceSpecs.json";
import {
    allocatable,
    amiTypeArchitecture,
    architectureFromName,
    GPU_FAMILY_MANUFACTURERS,
    instanceTypeInfo,
    instanceTypeNames,
    isInstanceFamily,
    isInstanceType,
    kubeReservedCpuMillis,
    kubeReservedMemoryMiB,
} from "eks-platform-kernel";

describe("policy lib: EC2 instance types", () => {
    it("knows real type names and refuses made-up ones", () => {
        for (const real of ["m5.large", "m7g.large", "t3.large", "g4dn.xlarge", "m7i.metal-48xl", "c7i-flex.large"]) {
            expect(isInstanceType(real), real).to.equal(true);
        }
        for (const fake of ["m5.huge", "m5", "M5.LARGE", "m5.large ", "", "m99.large", "t3.large.x"]) {
            expect(isInstanceType(fake), JSON.stringify(fake)).to.equal(false);
            expect(instanceTypeInfo(fake), JSON.stringify(fake)).to.equal(undefined);
        }
    });

    it("gives max pods from amazon-eks-ami's table and leaves unknown values undefined", () => {
        // Values from eni-max-pods.txt: ENIs * (IPv4 per ENI - 1) + 2.
        expect(instanceTypeInfo("t3.large")?.maxPods).to.equal(35);
        expect(instanceTypeInfo("m5.large")?.maxPods).to.equal(29);
        expect(instanceTypeInfo("p5.48xlarge")?.maxPods).to.equal(100);
        const unknownSpecs = Object.keys(eniMaxPods.maxPods).find((t) => !(t in instanceSpecs.types));
        expect(unknownSpecs, "a listed type outside the spec table").to.be.a("string");
        const info = instanceTypeInfo(unknownSpecs!)!;
        expect(info.vcpu, "unknown vCPU stays undefined").to.equal(undefined);
        expect(info.memoryMiB, "unknown memory stays undefined").to.equal(undefined);
        expect(allocatable(info), "no allocatable without vCPU and memory").to.equal(undefined);
    });

    it("every max-pods entry is a whole number the VPC CNI formula can produce", () => {
        for (const [type, pods] of Object.entries(eniMaxPods.maxPods)) {
            expect(Number.isInteger(pods) && pods >= 4, type).to.equal(true);
            expect(isInstanceType(type), type).to.equal(true);
        }
    });

    it("derives architecture by EC2's naming rule exactly as the EC2 data states it", () => {
        const rows = Object.entries(instanceSpecs.types);
        expect(
            rows.some(([, s]) => s.architecture === "arm64"),
            "the data holds Graviton types",
        ).to.equal(true);
        expect(
            rows.some(([, s]) => s.architecture === "x86_64"),
            "the data holds x86 types",
        ).to.equal(true);
        for (const [type, spec] of rows) {
            expect(architectureFromName(type), type).to.equal(spec.architecture);
        }
        for (const [type, arch] of [
            ["c6gn.large", "arm64"],
            ["x2gd.large", "arm64"],
            ["im4gn.large", "arm64"],
            ["is4gen.large", "arm64"],
            ["g5g.xlarge", "arm64"],
            ["t4g.small", "arm64"],
            ["p6e-gb200.36xlarge", "arm64"],
            ["mac2-m2.metal", "arm64"],
            ["mac1.metal", "x86_64"],
            ["g4dn.xlarge", "x86_64"],
            ["gr6.4xlarge", "x86_64"],
            ["u7in-16tb.224xlarge", "x86_64"],
            ["c7i-flex.large", "x86_64"],
        ] as const) {
            expect(architectureFromName(type), type).to.equal(arch);
        }
    });

    it("reserves CPU as nodeadm does (6% / 1% / 0.5% / 0.25% by core range)", () => {
        // Worked by hand from the ranges: 1 core 60m; 2 cores 60+10; 4 cores 60+10+10; 16 cores 60+10+10+30.
        expect(kubeReservedCpuMillis(1)).to.equal(60);
        expect(kubeReservedCpuMillis(2)).to.equal(70);
        expect(kubeReservedCpuMillis(4)).to.equal(80);
        expect(kubeReservedCpuMillis(16)).to.equal(110);
        expect(kubeReservedCpuMillis(96)).to.equal(310);
        expect(kubeReservedMemoryMiB(29)).to.equal(574);
    });

    it("matches the allocatable Karpenter publishes for AL2023 nodes", () => {
        // Expected values: the Resources tables of karpenter-provider-aws's generated
        // instance-types reference (AL2023, 7.5% VM overhead), not this module.
        const published: [string, number, number][] = [
            ["m5.large", 1930, 6903],
            ["m5.xlarge", 3920, 14162],
            ["m5.4xlarge", 15890, 57691],
            ["m4.large", 1930, 7002],
            ["c1.medium", 1930, 1122],
            ["c4.8xlarge", 35840, 53903],
            ["t3.large", 1930, 6837],
            ["g4dn.xlarge", 3920, 14481],
            ["m7i.48xlarge", 191450, 718987],
        ];
        for (const [type, cpuMillis, memoryMiB] of published) {
            const a = allocatable(instanceTypeInfo(type)!);
            expect(a, type).to.deep.include({ cpuMillis, memoryMiB });
        }
    });

    it("carries the GPU count and architecture of the listed families", () => {
        expect(instanceTypeInfo("g4dn.12xlarge")).to.deep.include({ gpus: 4, vcpu: 48, architecture: "x86_64" });
        expect(instanceTypeInfo("m7g.large")).to.deep.include({ vcpu: 2, memoryMiB: 8192, architecture: "arm64" });
        expect(instanceTypeInfo("m7i.large")?.gpus).to.equal(undefined);
    });

    it("names the GPU maker of the listed families and of GPU families the data does not size", () => {
        expect(instanceTypeInfo("g4dn.xlarge")?.gpuManufacturer).to.equal("nvidia");
        expect(instanceTypeInfo("g4ad.xlarge")?.gpuManufacturer).to.equal("amd");
        expect(instanceTypeInfo("p5.48xlarge")?.gpuManufacturer).to.equal("nvidia");
        expect(instanceTypeInfo("g6e.xlarge")?.gpuManufacturer).to.equal("nvidia");
        expect(instanceTypeInfo("m5.large")?.gpuManufacturer).to.equal(undefined);
        expect(instanceTypeInfo("trn1.2xlarge")?.gpuManufacturer, "Trainium is no GPU").to.equal(undefined);
    });

    it("knows the maker of every GPU type the data lists, and only real families", () => {
        // A GPU family added to the data without its maker would not be seen as NVIDIA capacity.
        const gpuTypes = Object.entries(instanceSpecs.types).filter(([, s]) => "gpus" in s);
        expect(gpuTypes.length, "the data lists GPU types").to.be.greaterThan(0);
        for (const [type] of gpuTypes) {
            expect(instanceTypeInfo(type)?.gpuManufacturer, type).to.be.a("string");
        }
        for (const family of Object.keys(GPU_FAMILY_MANUFACTURERS)) {
            expect(isInstanceFamily(family), family).to.equal(true);
        }
    });

    it("lists every real type name, sized or not", () => {
        const names = instanceTypeNames();
        expect(names).to.include.members(["m5.large", "g6.xlarge", "p5.48xlarge"]);
        expect(names.every(isInstanceType)).to.equal(true);
        expect([...names].sort()).to.deep.equal(names);
    });

    it("lets max pods and the VM overhead be overridden", () => {
        const info = instanceTypeInfo("m5.large")!;
        expect(allocatable(info, 110)?.pods).to.equal(110);
        expect(allocatable(info, 110)!.memoryMiB).to.equal(allocatable(info)!.memoryMiB - 11 * (110 - 29));
        expect(allocatable(info, undefined, { vmMemoryOverheadPercent: 0 })!.memoryMiB).to.equal(8192 - 574 - 100);
    });

    it("reads the architecture of EKS AMI types", () => {
        expect(amiTypeArchitecture("AL2023_x86_64_STANDARD")).to.equal("x86_64");
        expect(amiTypeArchitecture("AL2023_ARM_64_STANDARD")).to.equal("arm64");
        expect(amiTypeArchitecture("AL2023_x86_64_NVIDIA")).to.equal("x86_64");
        expect(amiTypeArchitecture("AL2023_ARM_64_NVIDIA")).to.equal("arm64");
        expect(amiTypeArchitecture("AL2_x86_64_GPU")).to.equal("x86_64");
        expect(amiTypeArchitecture("AL2_ARM_64")).to.equal("arm64");
        expect(amiTypeArchitecture("BOTTLEROCKET_ARM_64_FIPS")).to.equal("arm64");
        expect(amiTypeArchitecture("WINDOWS_CORE_2022_x86_64")).to.equal("x86_64");
        expect(amiTypeArchitecture("CUSTOM")).to.equal(undefined);
        expect(amiTypeArchitecture("AL2023_X86_64_STANDARD")).to.equal(undefined);
    });
});
