import { expect } from "chai";
import { nodeLaunchHardening } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { ingressRule, launchTemplate, securityGroup, securityGroupRule } from "./fixtures";
import { changed, runResource, UNKNOWN } from "./harness";

describe("policy node-launch-hardening", () => {
    it("passes hardened launch templates and security groups without public SSH", async () => {
        for (const r of [launchTemplate(), securityGroup(), ingressRule(), securityGroupRule()]) {
            expectClean(await runResource(nodeLaunchHardening, r));
        }
        expectClean(await runResource(nodeLaunchHardening, changed(launchTemplate(), "blockDeviceMappings.0.ebs.encrypted", true)));
    });

    it("reports IMDSv1 allowed or left to the default", async () => {
        expectViolations(
            await runResource(nodeLaunchHardening, changed(launchTemplate(), "metadataOptions.httpTokens", "optional")),
            /LaunchTemplate system-lt does not set metadataOptions\.httpTokens: "required" \(it is "optional"\)/,
        );
        expectViolations(
            await runResource(nodeLaunchHardening, changed(launchTemplate(), "metadataOptions", undefined)),
            /does not set metadataOptions\.httpTokens/,
            /does not set metadataOptions\.httpPutResponseHopLimit/,
        );
    });

    it("reports a metadata hop limit above maxHopLimit, or left to the AMI's default", async () => {
        // Two hops let every pod on the pod network reach IMDS, and the node role's credentials with it.
        expectViolations(
            await runResource(nodeLaunchHardening, changed(launchTemplate(), "metadataOptions.httpPutResponseHopLimit", 2)),
            /LaunchTemplate system-lt sets metadataOptions\.httpPutResponseHopLimit to 2, above 1\. Why: .*pods? .*node role's credentials/,
        );
        expectViolations(
            await runResource(nodeLaunchHardening, changed(launchTemplate(), "metadataOptions.httpPutResponseHopLimit", undefined)),
            /LaunchTemplate system-lt does not set metadataOptions\.httpPutResponseHopLimit/,
        );
        expectClean(
            await runResource(nodeLaunchHardening, changed(launchTemplate(), "metadataOptions.httpPutResponseHopLimit", 2), {
                maxHopLimit: 2,
            }),
        );
    });

    it("reports unencrypted EBS volumes, string or boolean", async () => {
        expectViolations(
            await runResource(nodeLaunchHardening, changed(launchTemplate(), "blockDeviceMappings.0.ebs.encrypted", "false")),
            /block device \/dev\/xvda is not encrypted/,
        );
        expectViolations(
            await runResource(nodeLaunchHardening, changed(launchTemplate(), "blockDeviceMappings.0.ebs.encrypted", undefined)),
            /not encrypted/,
        );
    });

    it("reports SSH open to the internet in every rule shape", async () => {
        expectViolations(
            await runResource(
                nodeLaunchHardening,
                changed(securityGroup(), "ingress.0", { protocol: "tcp", fromPort: 22, toPort: 22, cidrBlocks: ["0.0.0.0/0"] }),
            ),
            /SecurityGroup nodes-sg ingress\[0\] opens port 22 to 0\.0\.0\.0\/0/,
        );
        expectViolations(
            await runResource(
                nodeLaunchHardening,
                changed(securityGroup(), "ingress.0", { protocol: "-1", fromPort: 0, toPort: 0, ipv6CidrBlocks: ["::/0"] }),
            ),
            /opens port 22 to ::\/0/,
        );
        expectViolations(
            await runResource(nodeLaunchHardening, changed(ingressRule(), "fromPort", 0)),
            /SecurityGroupIngressRule nodes-https opens port 22 to 0\.0\.0\.0\/0/,
        );
        expectViolations(
            await runResource(nodeLaunchHardening, changed(securityGroupRule(), "cidrBlocks", ["0.0.0.0/0"])),
            /SecurityGroupRule nodes-ssh-vpn opens port 22/,
        );
        expectClean(
            await runResource(nodeLaunchHardening, changed(changed(securityGroupRule(), "cidrBlocks", ["0.0.0.0/0"]), "type", "egress")),
        );
        expectClean(await runResource(nodeLaunchHardening, changed(changed(ingressRule(), "fromPort", 22), "ipProtocol", "udp")));
    });

    it("decides on known rules when another rule's CIDRs are unknown", async () => {
        const sg = changed(securityGroup(), "ingress", [
            { protocol: "tcp", fromPort: 22, toPort: 22, cidrBlocks: ["0.0.0.0/0"] },
            { protocol: "tcp", fromPort: 443, toPort: 443, cidrBlocks: UNKNOWN.array },
        ]);
        const outcome = await runResource(nodeLaunchHardening, sg);
        expect(outcome.violations).to.have.length(1);
        expect(outcome.cantRun).to.match(/ingress\[1\]/);
    });
});
