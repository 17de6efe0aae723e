import { expect } from "chai";
import { nodeRolePolicies, roleNameFromArn, trustsEc2 } from "eks-platform-policies";
import { managedPolicyName } from "eks-platform-kernel";
import { expectClean, expectUndecided, expectViolations } from "./expect";
import { attachment, EC2_TRUST, NODE_POLICIES, nodeClass, nodeGroup, nodeRoleWithPolicies, role, vpc } from "./fixtures";
import { changed, runStack, TestResource, UNKNOWN, urnOf } from "./harness";

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
