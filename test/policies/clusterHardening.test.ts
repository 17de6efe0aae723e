import { expect } from "chai";
import { clusterHardening } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { awsCluster, eksComponent, vpc } from "./fixtures";
import { changed, runResource, UNKNOWN } from "./harness";

describe("policy cluster-hardening", () => {
    it("passes both cluster shapes, deciding encryption on a key ARN unknown at preview", async () => {
        expectClean(await runResource(clusterHardening, eksComponent()));
        expectClean(await runResource(clusterHardening, awsCluster()));
        expectClean(
            await runResource(
                clusterHardening,
                changed(changed(eksComponent(), "endpointPublicAccess", true), "publicAccessCidrs", ["203.0.113.0/24"]),
            ),
        );
    });

    it("is not applicable to other resources", async () => {
        expect((await runResource(clusterHardening, vpc())).notApplicable).to.match(/not an EKS cluster/);
    });

    it("reports clusters that do not encrypt secrets", async () => {
        expectViolations(
            await runResource(clusterHardening, changed(eksComponent(), "encryptionConfigKeyArn", undefined)),
            /EKS cluster cluster-eks does not envelope-encrypt Kubernetes secrets.*encryptionConfigKeyArn/,
        );
        expectViolations(
            await runResource(clusterHardening, changed(awsCluster(), "encryptionConfig", undefined)),
            /does not envelope-encrypt/,
        );
        expectViolations(
            await runResource(clusterHardening, changed(awsCluster(), "encryptionConfig.resources", [])),
            /does not envelope-encrypt/,
        );
    });

    it("reports clusters without audit logs (configurable log types)", async () => {
        expectViolations(
            await runResource(clusterHardening, changed(eksComponent(), "enabledClusterLogTypes", ["api"])),
            /does not enable control-plane log type audit/,
        );
        expectViolations(
            await runResource(clusterHardening, eksComponent(), { requiredLogTypes: ["audit", "scheduler"] }),
            /log type scheduler/,
        );
    });

    it("reports a public endpoint open to the world, including the defaults", async () => {
        expectViolations(
            await runResource(clusterHardening, changed(eksComponent(), "endpointPublicAccess", undefined)),
            /has a public API endpoint open to 0\.0\.0\.0\/0/,
        );
        expectViolations(
            await runResource(
                clusterHardening,
                changed(changed(eksComponent(), "endpointPublicAccess", true), "publicAccessCidrs", ["0.0.0.0/0"]),
            ),
            /open to 0\.0\.0\.0\/0/,
        );
        expectViolations(
            await runResource(clusterHardening, changed(awsCluster(), "vpcConfig.publicAccessCidrs", undefined)),
            /vpcConfig\.endpointPublicAccess: false/,
        );
    });

    it("judges what the public endpoint's CIDRs cover together, not their spelling", async () => {
        const open = (cidrs: string[]) => changed(changed(eksComponent(), "endpointPublicAccess", true), "publicAccessCidrs", cidrs);
        expectViolations(
            await runResource(clusterHardening, open(["0.0.0.0/1", "128.0.0.0/1"])),
            /has a public API endpoint open to 0\.0\.0\.0\/0 \(0\.0\.0\.0\/1, 128\.0\.0\.0\/1 cover every address\)/,
        );
        expectViolations(
            await runResource(clusterHardening, open(["10.0.0.0/8", "203.0.113.0/24"])),
            /public API endpoint open to 16,777,472 addresses \(10\.0\.0\.0\/8, 203\.0\.113\.0\/24\), more than one \/16 \(65,536\)/,
        );
        // Overlaps count once: two /17 halves and the /16 they make are one /16.
        expectClean(await runResource(clusterHardening, open(["198.51.0.0/17", "198.51.128.0/17", "198.51.0.0/16"])));
        expectClean(await runResource(clusterHardening, open(["10.0.0.0/8"]), { publicAccessMinPrefix: 8 }));
    });

    it("decides encryption and logging when the endpoint settings are unknown", async () => {
        const outcome = await runResource(
            clusterHardening,
            changed(changed(eksComponent(), "endpointPublicAccess", UNKNOWN.boolean), "enabledClusterLogTypes", []),
        );
        expect(outcome.violations).to.have.length(1);
        expect(outcome.violations[0].message).to.match(/log type audit/);
        expect(outcome.cantRun).to.match(/endpointPublicAccess can't be known during preview/);
    });
});
