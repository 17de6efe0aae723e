import { expect } from "chai";
import {
    addonKubernetesMinor,
    kubernetesMinor,
    parseKubernetesVersion,
    parseRelease,
    parseReleaseVersion,
    podSecurityMinor,
} from "eks-platform-kernel";

describe("Kubernetes versions: one parser, a reader per shape (kernel/kubernetesVersion.ts)", () => {
    it("parses the version at the start of the text, keeping the digits and the rest as written", () => {
        expect(parseKubernetesVersion("v1.34.0-eksbuild.2")).to.deep.equal({
            prefixed: true,
            major: 1,
            minor: 34,
            patch: 0,
            digits: { major: "1", minor: "34", patch: "0" },
            suffix: "-eksbuild.2",
        });
        expect(parseKubernetesVersion("1.034")).to.deep.include({ minor: 34, digits: { major: "1", minor: "034" }, suffix: "" });
        for (const bad of ["", "latest", "1", "v1", "1.x", " 1.34", "v.1.34"]) {
            expect(parseKubernetesVersion(bad), bad).to.equal(undefined);
        }
    });

    it("reads a cluster's minor (1.N) and nothing else", () => {
        expect(kubernetesMinor("1.34")).to.equal(34);
        expect(kubernetesMinor("1.034")).to.equal(34);
        for (const bad of ["v1.34", "1.34.2", "2.34", "01.34", "1.34\n", "1.34-x", "undefined", ""]) {
            expect(kubernetesMinor(bad), bad).to.be.NaN;
        }
    });

    it("reads a release for the API-version table: an optional v and patch, trimmed", () => {
        expect(parseRelease(" v1.25.3 ")).to.deep.equal({ major: 1, minor: 25 });
        expect(parseRelease("2.0")).to.deep.equal({ major: 2, minor: 0 });
        expect(parseRelease("1.25-x")).to.equal(undefined);
        expect(parseRelease(125)).to.equal(undefined);
    });

    it("reads a Pod Security version label as api.ParseVersion does: v1.N, no leading zero", () => {
        expect(podSecurityMinor("v1.34")).to.equal(34);
        expect(podSecurityMinor("v1.0")).to.equal(0);
        for (const bad of ["1.34", "v1.034", "v1.34.0", "v2.1", "v01.34", "latest"]) {
            expect(podSecurityMinor(bad), bad).to.equal(undefined);
        }
    });

    it("reads the minor an EKS add-on build is for", () => {
        expect(addonKubernetesMinor("v1.34.0-eksbuild.2")).to.equal("1.34");
        expect(addonKubernetesMinor("v1.33.x")).to.equal("1.33");
        for (const bad of ["1.34.0-eksbuild.2", "v1.34", "v1.34-eksbuild.2"]) {
            expect(addonKubernetesMinor(bad), bad).to.equal(undefined);
        }
    });

    it("reads a pinned EKS AMI release: a two-digit minor, a patch and an 8-digit date", () => {
        expect(parseReleaseVersion("1.34.7-20260512")).to.deep.equal({ minor: "1.34", patch: "1.34.7", date: "20260512" });
        for (const bad of [
            "latest",
            "1.34.7",
            "1.34-20260512",
            "v1.34.7-20260512",
            "1.100.1-20260512",
            "1.34.7-2026051",
            "2.34.7-20260512",
        ]) {
            expect(parseReleaseVersion(bad), bad).to.equal(undefined);
        }
    });
});
