import { expect } from "chai";
import { ENFORCE_LABEL, ENFORCE_VERSION_LABEL, POD_SECURITY_LEVELS, podSecurityLevel } from "eks-platform-kernel";

describe("Pod Security Standards levels and labels (kernel/podSecurityLevels.ts)", () => {
    it("has the three levels, least to most restrictive (k8s.io/pod-security-admission api/constants.go)", () => {
        expect(POD_SECURITY_LEVELS).to.deep.equal(["privileged", "baseline", "restricted"]);
    });

    it("reads a level only when it is one, exactly as written (api.ParseLevel is case-sensitive)", () => {
        for (const level of POD_SECURITY_LEVELS) {
            expect(podSecurityLevel(level)).to.equal(level);
        }
        for (const bad of ["Restricted", " baseline", "", "strict", undefined, null, 1]) {
            expect(podSecurityLevel(bad), String(bad)).to.equal(undefined);
        }
    });

    it("names the enforce labels as Pod Security Admission reads them (api.EnforceLevelLabel, api.EnforceVersionLabel)", () => {
        expect(ENFORCE_LABEL).to.equal("pod-security.kubernetes.io/enforce");
        expect(ENFORCE_VERSION_LABEL).to.equal("pod-security.kubernetes.io/enforce-version");
    });
});
