import { expect } from "chai";
import { extendedResourceNameProblem } from "eks-platform-kernel";

describe("kernel: extended resource names", () => {
    it("accepts the names device plugins advertise", () => {
        for (const name of [
            "nvidia.com/gpu",
            "amd.com/gpu",
            "aws.amazon.com/neuron",
            "aws.amazon.com/neuroncore",
            "vpc.amazonaws.com/efa",
            "example.com/foo_bar.baz",
        ]) {
            expect(extendedResourceNameProblem(name), name).to.equal(undefined);
        }
    });

    it("refuses names Kubernetes does not take as extended resources, saying why", () => {
        const cases: [string, RegExp][] = [
            ["nvidia gpu", /has no domain/],
            ["cpu", /has no domain/],
            ["ephemeral-storage", /has no domain/],
            ["kubernetes.io/gpu", /kubernetes\.io domain/],
            ["example.kubernetes.io/gpu", /kubernetes\.io domain/],
            ["requests.example.com/gpu", /starts with "requests\."/],
            ["NVIDIA.com/gpu", /not a qualified name/],
            ["nvidia.com/", /not a qualified name/],
            ["/gpu", /not a qualified name/],
            ["nvidia.com/gpu/a", /not a qualified name/],
            [`nvidia.com/${"g".repeat(64)}`, /not a qualified name/],
        ];
        for (const [name, why] of cases) {
            expect(extendedResourceNameProblem(name), name).to.match(why);
        }
    });
});
