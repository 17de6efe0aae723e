import { expect } from "chai";
import { nodegroupUpdateConfig, nodeLaunchHardening, nodeRolePolicies, roleNameFromArn, trustsEc2 } from "eks-platform-policies";
import { managedPolicyName } from "eks-platform-kernel";
import { expectClean, expectUndecided, expectViolations } from "./expect";
import {
    attachment,
    EC2_TRUST,
    ingressRule,
    launchTemplate,
    NODE_POLICIES,
    nodeClass,
    nodeGroup,
    nodeRoleWithPolicies,
    role,
    securityGroup,
    securityGroupRule,
    vpc,
} from "./fixtures";
import { changed, runResource, runStack, TestResource, UNKNOWN, urnOf } from "./harness";

const without = (policy: string, name = "platform-prod-system-node"): TestResource[] => [
    role(name),
    ...NODE_POLICIES.filter((p) => p !== policy).map((p) => attachment(name, p)),
];

describe("policy node-role-policies (stack)", () => {
    it("parses managed policy ARNs, role ARNs and EC2 trust policies", () => {
        expect(managedPolicyName("arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy")).to.equal("AmazonEKS_CNI_Policy");
        expect(managedPolicyName("arn:aws-cn:iam::aws:policy/AmazonEKSWorkerNodePolicy")).to.equal("AmazonEKSWorkerNodePolicy");
        expect(managedPolicyName("arn:aws:iam::123456789012:policy/AmazonEKS_CNI_Policy")).to.equal(undefined);
        expect(roleNameFromArn("arn:aws:iam::123456789012:role/nodes/platform-prod-gpu-node")).to.equal("platform-prod-gpu-node");
        expect(trustsEc2(EC2_TRUST)).to.equal(true);
        expect(
            trustsEc2({ Statement: [{ Effect: "Allow", Principal: { Service: ["eks.amazonaws.com", "ec2.amazonaws.com"] } }] }),
        ).to.equal(true);
        expect(trustsEc2({ Statement: { Effect: "Deny", Principal: { Service: "ec2.amazonaws.com" } } })).to.equal(false);
        expect(trustsEc2("{not json")).to.equal(false);
    });

    it("passes a node role with the required policies attached by name", async () => {
        expectClean(await runStack(nodeRolePolicies, nodeRoleWithPolicies()));
        expectClean(
            await runStack(nodeRolePolicies, [
                ...without("AmazonEC2ContainerRegistryReadOnly"),
                attachment("platform-prod-system-node", "AmazonEC2ContainerRegistryPullOnly"),
            ]),
        );
    });

    for (const policy of ["AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy", "AmazonEC2ContainerRegistryReadOnly"]) {
        it(`reports a node role without ${policy}, on the role's URN`, async () => {
            const resources = without(policy);
            const outcome = await runStack(nodeRolePolicies, resources);
            expectViolations(
                outcome,
                new RegExp(
                    `IAM role platform-prod-system-node \\(EC2 may assume it\\) does not attach ${policy}\\.? Why: without ${policy}`,
                ),
            );
            expect(outcome.violations[0].urn).to.equal(urnOf(resources[0]));
        });
    }

    it("accepts a node role without the CNI policy when requireCniPolicy is false", async () => {
        expectClean(await runStack(nodeRolePolicies, without("AmazonEKS_CNI_Policy"), { requireCniPolicy: false }));
    });

    it("counts managedPolicyArns on the role", async () => {
        const r = changed(
            role(),
            "managedPolicyArns",
            NODE_POLICIES.map((p) => `arn:aws:iam::aws:policy/${p}`),
        );
        expectClean(await runStack(nodeRolePolicies, [r]));
    });

    it("finds node roles referenced by name from an EC2NodeClass or instance profile, whatever their trust policy", async () => {
        const other = role(
            "platform-prod-karpenter-node",
            JSON.stringify({ Statement: [{ Effect: "Allow", Principal: { Service: "pods.eks.amazonaws.com" } }] }),
        );
        expectViolations(
            await runStack(nodeRolePolicies, [other, nodeClass()]),
            /IAM role platform-prod-karpenter-node \(EC2NodeClass default uses it\) does not attach AmazonEKSWorkerNodePolicy, AmazonEKS_CNI_Policy, AmazonEC2ContainerRegistryReadOnly/,
        );
        const profile: TestResource = {
            type: "aws:iam/instanceProfile:InstanceProfile",
            name: "gpu-profile",
            props: { role: "platform-prod-gpu-node" },
        };
        expectViolations(
            await runStack(nodeRolePolicies, [profile, role("platform-prod-gpu-node", JSON.stringify({ Statement: [] }))]),
            /platform-prod-gpu-node \(instance profile gpu-profile uses it\)/,
        );
    });

    it("leaves a role the input only references undecided, on the referencing resource: never a violation, never a pass", async () => {
        // IAM roles are not Kubernetes objects: a manifest set, or a stack taking its roles from another stack, only names them.
        const nc = nodeClass();
        const outcome = await runStack(nodeRolePolicies, [nc]);
        expectUndecided(
            outcome,
            /^Undecided: IAM role platform-prod-karpenter-node \(EC2NodeClass default uses it\) is not defined in this input.*AmazonEKSWorkerNodePolicy.*To decide it: /,
        );
        expect(outcome.undecided[0].urn).to.equal(urnOf(nc));
        const profile: TestResource = {
            type: "aws:iam/instanceProfile:InstanceProfile",
            name: "gpu-profile",
            props: { role: "platform-prod-gpu-node" },
        };
        expectUndecided(
            await runStack(nodeRolePolicies, [profile]),
            /IAM role platform-prod-gpu-node \(instance profile gpu-profile uses it\) is not defined/,
        );
        const group = changed(nodeGroup(), "nodeRoleArn", "arn:aws:iam::123456789012:role/shared-node");
        expectUndecided(
            await runStack(nodeRolePolicies, [group]),
            /IAM role shared-node \(managed node group nodegroups-system uses it\) is not defined/,
        );
        // Defined in the input, it is judged.
        expectClean(await runStack(nodeRolePolicies, [nc, ...nodeRoleWithPolicies("platform-prod-karpenter-node")]));
    });

    it("ignores roles EC2 does not assume, and says so when no node role exists", async () => {
        const eksRole = role(
            "platform-prod-control-plane",
            JSON.stringify({ Statement: [{ Effect: "Allow", Principal: { Service: "eks.amazonaws.com" } }] }),
        );
        expect((await runStack(nodeRolePolicies, [eksRole, vpc()])).notApplicable).to.match(/no node IAM role in this stack/);
    });

    it("still decides at preview: node group role ARN unknown, role names static", async () => {
        expectClean(await runStack(nodeRolePolicies, [...nodeRoleWithPolicies(), nodeGroup()]));
        expectViolations(
            await runStack(nodeRolePolicies, [...without("AmazonEKSWorkerNodePolicy"), nodeGroup()]),
            /does not attach AmazonEKSWorkerNodePolicy/,
        );
    });

    it("leaves a role undecided when an attachment's role is unknown", async () => {
        const unlinked = changed(attachment("x", "AmazonEKSWorkerNodePolicy"), "role", UNKNOWN.string);
        const outcome = await runStack(nodeRolePolicies, [...without("AmazonEKSWorkerNodePolicy"), unlinked]);
        expect(outcome.violations).to.deep.equal([]);
        expect(outcome.cantRun).to.match(/role can't be known during preview.*node role platform-prod-system-node/);
    });
});

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
