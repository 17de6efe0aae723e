/**
 * `npm run deployer-policy`: the deploy role's policy and the stack's permissions boundary on
 * hand-built plans, each rule that scopes a statement; the command in process. Every stack of the
 * repository: deployerPolicy.stacks.test.ts.
 */
import { expect } from "chai";
import { PLATFORM_CLUSTER_TAG, POLICY_WRITING_ACTIONS, UNKNOWN } from "eks-platform-kernel";
import type { PolicyDocument } from "../../../components/iam";
import {
    compactReads,
    deployerContext,
    deployerPolicy,
    DeployerPolicyError,
    driftPolicy,
    embeddedStacks,
    kmsKeyArnsIn,
    embedPolicies,
    withAccountPlaceholder,
    isReadAction,
    permissionsBoundary,
    type PlannedResource,
    previewPolicy,
    scopeProblems,
    stackPolicy,
    STATE_BUCKET_PLACEHOLDER,
    stateBucketProblems,
} from "../../../tools/roles/deployRole";
import { DEPLOYER_ACTIONS, type DeployerActions, PREFLIGHT_READS } from "../../../tools/roles/deployerActions";
import { deployerPolicyCommand } from "../../../tools/roles/deployerPolicy";
import { InputError } from "../../../tools/cli/errors";
import { ROOT } from "../../mocks";
import { editedFixture, stacks } from "../../stackFiles";
import { actionsOf, allows, BOUNDARY, bySid, CTX, res, resourcesOf, role, sids, withEntry } from "./deployRole.fixtures";

describe("deployerPolicy: scoping rules (hand-built plans)", () => {
    it("refuses a plan it cannot scope, naming each resource and the fix: an auto-named role, a role without the boundary, a type without actions", () => {
        const plan = [role(undefined), role("acme-x", { permissionsBoundary: undefined }), res("aws:lambda/function:Function", "fn")];
        const problems = scopeProblems(plan, CTX);
        expect(problems).to.have.length(3);
        expect(problems[0]).to.equal(
            'aws:iam/role:Role "r-undefined": name (auto-named) is not under "acme-": set it; the deploy role manages only names under the stack\'s prefix',
        );
        expect(problems[1]).to.include('"r-acme-x": permissionsBoundary is null, not arn:aws:iam::111122223333:policy/acme-boundary');
        expect(problems[2]).to.include('aws:lambda/function:Function "fn": no entry in tools/roles/deployerActions.ts');
        expect(() => deployerPolicy(plan, CTX))
            .to.throw(DeployerPolicyError)
            .with.property("message")
            .that.includes('the deploy role of stack "qa" cannot be scoped to its plan:\n  aws:iam/role:Role "r-undefined"');
    });

    it("refuses names outside the stack's scope for each kind of name, and what attaches to one by a known name", () => {
        const plan = [
            role("other-role"),
            res("aws:iam/rolePolicy:RolePolicy", "p", { role: "other-role" }),
            res("aws:iam/instanceProfile:InstanceProfile", "ip", { name: "profile" }),
            res("aws:sqs/queue:Queue", "q", { name: "acme" }),
            res("aws:cloudwatch/eventRule:EventRule", "e", { name: "acmes-rule" }),
            res("aws:cloudwatch/eventTarget:EventTarget", "t", { rule: "x-rule" }),
            res("aws:autoscaling/group:Group", "g", { namePrefix: "batch-" }),
            res("aws:cloudwatch/logGroup:LogGroup", "l", { name: "/aws/eks/other/cluster" }),
            res("aws:cloudwatch/logGroup:LogGroup", "l2", { name: "/var/acme/x" }),
            res("aws:kms/alias:Alias", "a", { name: "alias/acme-secrets" }),
        ];
        const problems = scopeProblems(plan, CTX);
        expect(problems.map((p) => p.split(":")[2]?.split('"')[1] ?? p)).to.have.length(10);
        expect(problems.join("\n")).to.include(
            'aws:iam/rolePolicy:RolePolicy "p": role (the name it attaches to) "other-role" is not under "acme-"',
        );
        expect(problems.join("\n")).to.include('aws:cloudwatch/eventTarget:EventTarget "t": rule (the name it attaches to) "x-rule"');
        expect(problems.join("\n")).to.include('aws:autoscaling/group:Group "g": name "batch-" is not under "acme-"');
        expect(problems.join("\n")).to.include('"l": name "/aws/eks/other/cluster" is not /aws/<service>/acme/…');
        expect(problems.join("\n")).to.include('"l2": name "/var/acme/x" is not /aws/<service>/acme/…');
        expect(problems.join("\n")).to.include('"a": name "alias/acme-secrets" is not under "alias/eks/acme-"');
    });

    it("accepts names under the prefix, a namePrefix for an absent name, and what attaches to an owner by a name unknown at preview", () => {
        const plan = [
            role("acme-nodes"),
            res("aws:iam/rolePolicy:RolePolicy", "p", { role: "acme-nodes" }),
            res("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "pa", { policyArn: "arn:aws:iam::aws:policy/X" }),
            res("aws:autoscaling/group:Group", "g", { namePrefix: "acme-batch-" }),
            res("aws:autoscaling/lifecycleHook:LifecycleHook", "h", { name: "drain" }),
            res("aws:cloudwatch/logGroup:LogGroup", "l", { name: "/aws/vpc/acme/flow-logs" }),
            res("aws:kms/alias:Alias", "a", { name: "alias/eks/acme-ebs" }),
            res("aws:kms/key:Key", "k", { tags: { [PLATFORM_CLUSTER_TAG]: "acme" } }),
            res("aws:eks/addon:Addon", "ad", { clusterName: "acme" }),
            res("platform:network:Network", "n"),
            res("kubernetes:core/v1:Namespace", "ns"),
        ];
        expect(scopeProblems(plan, CTX)).to.deep.equal([]);
    });

    it("refuses a key without the stack's tag, a grant whose key is unknown at preview, an EKS resource of another cluster", () => {
        const problems = scopeProblems(
            [
                res("aws:kms/key:Key", "k", { tags: { [PLATFORM_CLUSTER_TAG]: "other" } }),
                res("aws:kms/grant:Grant", "gr", { keyId: "1234abcd" }),
                res("aws:eks/accessEntry:AccessEntry", "ae", { clusterName: "other" }),
            ],
            CTX,
        );
        expect(problems).to.deep.equal([
            'aws:kms/key:Key "k": tags["platform/cluster"] is "other", not "acme": the deploy role creates keys only with it',
            'aws:kms/grant:Grant "gr": keyId "1234abcd" is not a key ARN known at preview: the policy cannot name the grant\'s key',
            'aws:eks/accessEntry:AccessEntry "ae": clusterName "other" is not the stack\'s cluster "acme"',
        ]);
    });

    it("refuses a deploy, preview or people's role under the stack's prefix: the deploy role could rewrite it", () => {
        const problems = scopeProblems([], {
            ...CTX,
            principals: ["arn:aws:iam::111122223333:role/ci/acme-deployer", "arn:aws:iam::111122223333:role/acmeish"],
        });
        expect(problems).to.deep.equal([
            "access: arn:aws:iam::111122223333:role/ci/acme-deployer is under the stack's IAM prefix \"acme-\": the deploy role could rewrite it (name the CI and people's roles outside it, e.g. platform-deployer-qa)",
        ]);
    });

    it("refuses a role whose boundary is another's (another stack's, or a broad one), not only one without", () => {
        for (const foreign of ["arn:aws:iam::111122223333:policy/other-boundary", "arn:aws:iam::aws:policy/AdministratorAccess"]) {
            expect(scopeProblems([role("acme-x", { permissionsBoundary: foreign })], CTX), foreign).to.deep.equal([
                `aws:iam/role:Role "r-acme-x": permissionsBoundary is "${foreign}", not arn:aws:iam::111122223333:policy/acme-boundary: the deploy role creates roles only with the stack's boundary (components/iam.ts, stackPermissionsBoundary)`,
            ]);
        }
    });

    it("checks the drift role against the stack's prefix like the deploy and preview roles: a stack file's access.drift under it is refused", () => {
        const root = editedFixture("dev", (text) =>
            text.replace(/^( *)preview: (.*)$/m, "$1preview: $2\n$1drift: arn:aws:iam::123456789012:role/platform-dev-drift"),
        );
        const ctx = deployerContext(root, "dev");
        expect(ctx.principals).to.include("arn:aws:iam::123456789012:role/platform-dev-drift");
        expect(scopeProblems([], ctx)).to.deep.equal([
            "access: arn:aws:iam::123456789012:role/platform-dev-drift is under the stack's IAM prefix \"platform-dev-\": the deploy role could rewrite it (name the CI and people's roles outside it, e.g. platform-deployer-dev)",
        ]);
    });

    it("grants statements only for the scopes the plan uses, and the lookups every program makes", () => {
        const doc = deployerPolicy([role("acme-r")], CTX);
        expect(sids(doc)).to.deep.equal([
            "StateBucket",
            "StateList",
            "StateMeta",
            "State",
            "StackSecrets",
            "Lookups",
            "PublicParameters",
            "StackRoles",
            "StackRolesWithBoundary",
            // Deleting a role removes it from the profiles that hold it: an action on the profile.
            "StackInstanceProfiles",
            "ReadServiceLinkedRoles",
        ]);
        // The provider's identity call and the preflight's reads (tools/roles/deployerActions.ts, PREFLIGHT_READS), folded per service.
        expect(bySid(doc, "Lookups").Action).to.deep.equal([
            "ec2:Describe*",
            "ec2:SearchTransitGatewayRoutes",
            "eks:Describe*",
            "servicequotas:GetServiceQuota",
            "sts:GetCallerIdentity",
        ]);
        expect(bySid(doc, "PublicParameters").Resource).to.equal("arn:aws:ssm:eu-west-1::parameter/aws/service/*");
        expect(bySid(doc, "ReadServiceLinkedRoles")).to.deep.include({
            Action: ["iam:GetRole"],
            Resource: "arn:aws:iam::111122223333:role/aws-service-role/*",
        });
    });

    it("passes roles to the services of the plan's types; IfExists only when adding a role to an instance profile (no service in that request)", () => {
        const pass = (plan: PlannedResource[]) => bySid(deployerPolicy(plan, CTX), "PassStackRoles");
        const flow = pass([
            res("aws:ec2/flowLog:FlowLog", "f"),
            res("aws:eks/podIdentityAssociation:PodIdentityAssociation", "p", { clusterName: "acme" }),
        ]);
        expect(flow.Condition).to.deep.equal({
            StringEquals: { "iam:PassedToService": ["pods.eks.amazonaws.com", "vpc-flow-logs.amazonaws.com"] },
        });
        expect(flow.Resource).to.equal("arn:aws:iam::111122223333:role/acme-*");
        const profile = pass([res("aws:iam/instanceProfile:InstanceProfile", "ip", { name: "acme-p" })]);
        expect(profile.Condition).to.deep.equal({ StringEqualsIfExists: { "iam:PassedToService": ["ec2.amazonaws.com"] } });
        expect(sids(deployerPolicy([res("aws:sqs/queue:Queue", "q", { name: "acme-q" })], CTX))).to.not.include("PassStackRoles");
    });

    it("lets the deploy role create the service-linked roles its types' first creates make, and those the plan declares, only those", () => {
        const doc = deployerPolicy(
            [
                res("aws:eks/nodeGroup:NodeGroup", "ng", { clusterName: "acme" }),
                res("aws:ec2transitgateway/vpcAttachment:VpcAttachment", "tgw"),
                res("aws:iam/serviceLinkedRole:ServiceLinkedRole", "spot", { awsServiceName: "spot.amazonaws.com" }),
            ],
            CTX,
        );
        const s = bySid(doc, "ServiceLinkedRoles");
        expect(s.Resource).to.equal("arn:aws:iam::111122223333:role/aws-service-role/*");
        expect(s.Condition).to.deep.equal({
            StringEquals: { "iam:AWSServiceName": ["eks-nodegroup.amazonaws.com", "spot.amazonaws.com", "transitgateway.amazonaws.com"] },
        });
        expect(sids(deployerPolicy([res("aws:ec2/vpc:Vpc", "v")], CTX))).to.not.include("ServiceLinkedRoles");
    });

    it("scopes each named kind to the stack's ARNs in the stack's region and account", () => {
        const doc = deployerPolicy(
            [
                res("aws:eks/addon:Addon", "ad", { clusterName: "acme" }),
                res("aws:sqs/queue:Queue", "q", { name: "acme-q" }),
                res("aws:cloudwatch/eventRule:EventRule", "e", { name: "acme-e" }),
                res("aws:cloudwatch/logGroup:LogGroup", "l", { name: "/aws/eks/acme/cluster" }),
                res("aws:autoscaling/group:Group", "g", { name: "acme-g" }),
                res("aws:kms/alias:Alias", "a", { name: "alias/eks/acme-ebs" }),
                res("aws:kms/grant:Grant", "gr", { keyId: "arn:aws:kms:eu-west-1:111122223333:key/k1" }),
                res("aws:iam/instanceProfile:InstanceProfile", "ip", { name: "acme-p" }),
            ],
            CTX,
        );
        expect(bySid(doc, "Eks").Resource).to.include.members([
            "arn:aws:eks:eu-west-1:111122223333:cluster/acme",
            "arn:aws:eks:eu-west-1:111122223333:addon/acme/*",
            "arn:aws:eks:eu-west-1:111122223333:nodegroup/acme/*",
        ]);
        expect(bySid(doc, "StackQueues").Resource).to.equal("arn:aws:sqs:eu-west-1:111122223333:acme-*");
        expect(bySid(doc, "StackEventRules").Resource).to.equal("arn:aws:events:eu-west-1:111122223333:rule/acme-*");
        expect(bySid(doc, "StackLogGroups").Resource).to.equal("arn:aws:logs:eu-west-1:111122223333:log-group:/aws/*/acme/*");
        expect(bySid(doc, "StackAutoScalingGroups").Resource).to.equal(
            "arn:aws:autoscaling:eu-west-1:111122223333:autoScalingGroup:*:autoScalingGroupName/acme-*",
        );
        expect(bySid(doc, "StackKeyAliases").Resource).to.equal("arn:aws:kms:eu-west-1:111122223333:alias/eks/acme-*");
        expect(bySid(doc, "CustomerKeyGrants").Resource).to.equal("arn:aws:kms:eu-west-1:111122223333:key/k1");
        expect(bySid(doc, "StackInstanceProfiles").Resource).to.equal("arn:aws:iam::111122223333:instance-profile/acme-*");
        expect(bySid(doc, "Lookups").Action).to.include.members(["kms:ListAliases", "logs:DescribeLogGroups", "sts:GetCallerIdentity"]);
    });

    it("writes the stack's state objects only, as Pulumi's DIY backend lays them out (project-scoped; locks by organization/project/stack)", () => {
        const doc = deployerPolicy([], CTX);
        expect(bySid(doc, "State").Resource).to.deep.equal([
            "arn:aws:s3:::acme-state/.pulumi/stacks/eks-platform/qa.json*",
            // Read by every preview, up, refresh and destroy since Pulumi 3.211 (stack_tags.go).
            "arn:aws:s3:::acme-state/.pulumi/stacks/eks-platform/qa.pulumi-tags",
            "arn:aws:s3:::acme-state/.pulumi/locks/organization/eks-platform/qa/*",
            "arn:aws:s3:::acme-state/.pulumi/history/eks-platform/qa/*",
            "arn:aws:s3:::acme-state/.pulumi/backups/eks-platform/qa/*",
        ]);
        expect(bySid(doc, "StateMeta").Resource).to.equal("arn:aws:s3:::acme-state/.pulumi/meta.yaml");
        expect(bySid(doc, "StateList").Condition?.StringLike?.["s3:prefix"]).to.include.members([
            ".pulumi/meta.yaml",
            ".pulumi/stacks/eks-platform/",
        ]);
    });

    it("folds a statement's reads into one wildcard per service and verb only where it holds two or more", () => {
        expect(
            compactReads([
                "ec2:DescribeVpcs",
                "ec2:DescribeSubnets",
                "ec2:CreateVpc",
                "iam:GetRole",
                "eks:ListTagsForResource",
                "eks:ListAddons",
            ]),
        ).to.deep.equal(["ec2:CreateVpc", "ec2:Describe*", "eks:List*", "iam:GetRole"]);
        expect(compactReads(["iam:GetRole", "iam:GetRolePolicy", "iam:ListRolePolicies"])).to.deep.equal([
            "iam:Get*",
            "iam:ListRolePolicies",
        ]);
        expect(compactReads(["sqs:GetQueueAttributes", "sqs:SetQueueAttributes"])).to.deep.equal([
            "sqs:GetQueueAttributes",
            "sqs:SetQueueAttributes",
        ]);
    });
});

describe("deployerPolicy: each statement exactly, and the inputs each rule reads (hand-built plans)", () => {
    const ROLES = "arn:aws:iam::111122223333:role/acme-*";
    const policy = (plan: PlannedResource[]) => deployerPolicy(plan, CTX);

    it("scopes EKS actions to the cluster, its node groups, add-ons, access entries and Pod Identity associations (access policies are no resource of any call)", () => {
        const eks = bySid(
            policy([
                res("aws:eks/addon:Addon", "ad", { clusterName: "acme" }),
                res("aws:eks/accessPolicyAssociation:AccessPolicyAssociation", "apa", { clusterName: "acme" }),
            ]),
            "Eks",
        );
        expect(eks).to.deep.include({
            Effect: "Allow",
            Resource: [
                "arn:aws:eks:eu-west-1:111122223333:cluster/acme",
                "arn:aws:eks:eu-west-1:111122223333:nodegroup/acme/*",
                "arn:aws:eks:eu-west-1:111122223333:addon/acme/*",
                "arn:aws:eks:eu-west-1:111122223333:access-entry/acme/*",
                "arn:aws:eks:eu-west-1:111122223333:podidentityassociation/acme/*",
            ],
        });
        expect(eks.Action).to.include.members(["eks:AssociateAccessPolicy", "eks:CreateAddon"]);
        // Only service-linked roles and keys are conditioned.
        expect(eks).to.not.have.property("Condition");
    });

    it("grants the cluster component's OIDC provider under the region's EKS issuers, and exempts the component from the clusterName check", () => {
        const cluster = res("eks:index:Cluster", "cluster", { name: "acme", clusterTags: { [PLATFORM_CLUSTER_TAG]: "acme" } });
        expect(scopeProblems([cluster], CTX)).to.deep.equal([]);
        expect(scopeProblems([res("aws:eks/addon:Addon", "ad")], CTX)).to.deep.equal([
            'aws:eks/addon:Addon "ad": clusterName null is not the stack\'s cluster "acme"',
        ]);
        const oidc = bySid(policy([cluster]), "ClusterOidcProviders");
        expect(oidc).to.deep.include({
            Effect: "Allow",
            Resource: "arn:aws:iam::111122223333:oidc-provider/oidc.eks.eu-west-1.amazonaws.com/id/*",
        });
        expect(oidc.Action).to.include.members(["iam:CreateOpenIDConnectProvider", "iam:DeleteOpenIDConnectProvider"]);
        expect(oidc).to.not.have.property("Condition");
    });

    it("creates the cluster (eks:CreateCluster takes no ARN) on `*` only with the stack's tag in the request, never under the cluster's ARN", () => {
        const cluster = res("eks:index:Cluster", "cluster", { name: "acme", clusterTags: { [PLATFORM_CLUSTER_TAG]: "acme" } });
        const doc = policy([cluster]);
        expect(bySid(doc, "CreateTaggedCluster")).to.deep.equal({
            Sid: "CreateTaggedCluster",
            Effect: "Allow",
            Action: ["eks:CreateCluster"],
            Resource: "*",
            Condition: { StringEquals: { "aws:RequestTag/platform/cluster": "acme" } },
        });
        expect(bySid(doc, "Eks").Action).to.not.include("eks:CreateCluster");
        // The tag must be in the cluster's inputs, or the create would be refused at `up`.
        expect(
            scopeProblems([res("eks:index:Cluster", "cluster", { name: "acme", clusterTags: { [PLATFORM_CLUSTER_TAG]: "other" } })], CTX),
        ).to.deep.equal([
            'eks:index:Cluster "cluster": clusterTags["platform/cluster"] is "other", not "acme": the deploy role creates the cluster only with it',
        ]);
        expect(
            scopeProblems([res("eks:index:Cluster", "cluster", { name: "acme", tags: { [PLATFORM_CLUSTER_TAG]: "acme" } })], CTX),
        ).to.have.length(1);
    });

    it("removes the node roles from Karpenter's own instance profiles, under its cluster's path, only where the plan has an EC2NodeClass", () => {
        const nodeClass = res("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "nc");
        const profiles = (plan: PlannedResource[]) => resourcesOf(bySid(policy(plan), "StackInstanceProfiles"));
        expect(profiles([role("acme-r"), nodeClass])).to.deep.equal([
            "arn:aws:iam::111122223333:instance-profile/acme-*",
            "arn:aws:iam::111122223333:instance-profile/karpenter/eu-west-1/acme/*",
        ]);
        expect(profiles([role("acme-r")])).to.deep.equal(["arn:aws:iam::111122223333:instance-profile/acme-*"]);
        expect(bySid(policy([role("acme-r")]), "StackInstanceProfiles").Action).to.deep.equal(["iam:RemoveRoleFromInstanceProfile"]);
    });

    it("lets a managed node group's caller launch and tag from its launch template (EKS checks the caller's ec2:RunInstances and ec2:CreateTags)", () => {
        const ec2 = bySid(policy([res("aws:eks/nodeGroup:NodeGroup", "ng", { clusterName: "acme" })]), "Ec2");
        expect(ec2.Resource).to.equal("*");
        expect(ec2.Action).to.include.members(["ec2:RunInstances", "ec2:CreateTags"]);
    });

    it("allows EC2 and the lookups on `*` unconditioned, and key creation on `*` only with the stack's tag in the request", () => {
        const doc = policy([res("aws:ec2/vpc:Vpc", "v"), res("aws:kms/key:Key", "k", { tags: { [PLATFORM_CLUSTER_TAG]: "acme" } })]);
        const ec2 = bySid(doc, "Ec2");
        expect(ec2).to.deep.include({ Effect: "Allow", Resource: "*" });
        expect(ec2.Action).to.include.members(["ec2:CreateVpc", "ec2:DeleteVpc"]);
        expect(ec2).to.not.have.property("Condition");
        expect(bySid(doc, "Lookups")).to.deep.include({ Effect: "Allow", Resource: "*" });
        expect(bySid(doc, "Lookups")).to.not.have.property("Condition");
        const keys = bySid(doc, "CreateTaggedKeys");
        expect(keys).to.deep.include({ Effect: "Allow", Resource: "*" });
        expect(keys.Condition?.StringEquals).to.deep.equal({ "aws:RequestTag/platform/cluster": "acme" });
        expect(keys.Action).to.include("kms:CreateKey");
    });

    it("allows the stack's tag key alone on a key when the stack sets no default tags", () => {
        const keys = bySid(
            deployerPolicy([res("aws:kms/key:Key", "k", { tags: { [PLATFORM_CLUSTER_TAG]: "acme" } })], CTX),
            "CreateTaggedKeys",
        );
        expect(keys.Condition?.["ForAllValues:StringEquals"]).to.deep.equal({ "aws:TagKeys": ["platform/cluster"] });
    });

    it("creates and tags a key only with the stack's tag set to its cluster, the stack's and default tags' keys alone, never over another cluster's tag", () => {
        const key = res("aws:kms/key:Key", "k", { tags: { [PLATFORM_CLUSTER_TAG]: "acme" } });
        const keys = bySid(deployerPolicy([key], { ...CTX, defaultTagKeys: ["team", "env"] }), "CreateTaggedKeys");
        expect(keys).to.deep.equal({
            Sid: "CreateTaggedKeys",
            Effect: "Allow",
            Action: ["kms:CreateKey", "kms:TagResource"],
            Resource: "*",
            Condition: {
                StringEquals: { "aws:RequestTag/platform/cluster": "acme" },
                "ForAllValues:StringEquals": { "aws:TagKeys": ["env", "platform/cluster", "team"] },
                StringEqualsIfExists: { "aws:ResourceTag/platform/cluster": "acme" },
            },
        });
    });

    it("grants on the customer keys the plan's grants name, each once, sorted", () => {
        const key = (k: string) => `arn:aws:kms:eu-west-1:111122223333:key/${k}`;
        const doc = policy([
            res("aws:kms/grant:Grant", "g1", { keyId: key("k2") }),
            res("aws:kms/grant:Grant", "g2", { keyId: key("k1") }),
            res("aws:kms/grant:Grant", "g3", { keyId: key("k2") }),
        ]);
        expect(bySid(doc, "CustomerKeyGrants").Resource).to.deep.equal([key("k1"), key("k2")]);
    });

    it("refuses a grant whose keyId is absent or not a string: no key to name", () => {
        expect(scopeProblems([res("aws:kms/grant:Grant", "g"), res("aws:kms/grant:Grant", "n", { keyId: 7 })], CTX)).to.deep.equal([
            'aws:kms/grant:Grant "g": keyId null is not a key ARN known at preview: the policy cannot name the grant\'s key',
            'aws:kms/grant:Grant "n": keyId 7 is not a key ARN known at preview: the policy cannot name the grant\'s key',
        ]);
    });

    it("creates the service-linked roles of the types whose first create makes one, with no ServiceLinkedRole in the plan", () => {
        expect(bySid(policy([res("aws:eks/nodeGroup:NodeGroup", "ng", { clusterName: "acme" })]), "ServiceLinkedRoles")).to.deep.equal({
            Sid: "ServiceLinkedRoles",
            Effect: "Allow",
            Action: ["iam:CreateServiceLinkedRole"],
            Resource: "arn:aws:iam::111122223333:role/aws-service-role/*",
            Condition: { StringEquals: { "iam:AWSServiceName": ["eks-nodegroup.amazonaws.com"] } },
        });
    });

    it("takes a declared service only from a ServiceLinkedRole's awsServiceName, never from another type's input of that name", () => {
        const doc = policy([
            res("aws:eks/nodeGroup:NodeGroup", "ng", { clusterName: "acme" }),
            res("aws:ec2/vpc:Vpc", "v", { awsServiceName: "elasticloadbalancing.amazonaws.com" }),
        ]);
        expect(bySid(doc, "ServiceLinkedRoles").Condition).to.deep.equal({
            StringEquals: { "iam:AWSServiceName": ["eks-nodegroup.amazonaws.com"] },
        });
    });

    it("refuses a ServiceLinkedRole whose service is absent or unknown at preview: the policy cannot name it", () => {
        const slr = "aws:iam/serviceLinkedRole:ServiceLinkedRole";
        expect(scopeProblems([res(slr, "none"), res(slr, "later", { awsServiceName: UNKNOWN })], CTX)).to.deep.equal([
            `${slr} "none": awsServiceName null is not a service known at preview: the policy cannot name the service whose role it creates`,
            `${slr} "later": awsServiceName "${UNKNOWN}" is not a service known at preview: the policy cannot name the service whose role it creates`,
        ]);
    });

    it("writes role reads and deletes on the prefix, the boundary-conditioned writes with the boundary, attachments of the plan's policies only", () => {
        const doc = policy([
            role("acme-r"),
            res("aws:iam/rolePolicy:RolePolicy", "p", { role: "acme-r" }),
            res("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "b", { role: "acme-r", policyArn: "arn:aws:iam::aws:policy/B" }),
            res("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "a", { role: "acme-r", policyArn: "arn:aws:iam::aws:policy/A" }),
            res("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "b2", { role: "acme-r", policyArn: "arn:aws:iam::aws:policy/B" }),
            res("aws:iam/instanceProfile:InstanceProfile", "ip", { name: "acme-p" }),
        ]);
        const plain = bySid(doc, "StackRoles");
        expect(plain).to.deep.include({ Effect: "Allow", Resource: ROLES });
        expect(plain).to.not.have.property("Condition");
        expect(plain.Action).to.include.members(["iam:DeleteRole", "iam:TagRole", "iam:UpdateAssumeRolePolicy"]);
        // The actions IAM conditions on `iam:PermissionsBoundary` are never granted without it.
        const conditioned = [
            "iam:AttachRolePolicy",
            "iam:CreateRole",
            "iam:DeleteRolePolicy",
            "iam:DetachRolePolicy",
            "iam:PutRolePermissionsBoundary",
            "iam:PutRolePolicy",
        ];
        expect(actionsOf(plain).filter((a) => conditioned.includes(a))).to.deep.equal([]);
        expect(bySid(doc, "StackRolesWithBoundary")).to.deep.equal({
            Sid: "StackRolesWithBoundary",
            Effect: "Allow",
            Action: conditioned.filter((a) => a !== "iam:AttachRolePolicy"),
            Resource: ROLES,
            Condition: { StringEquals: { "iam:PermissionsBoundary": BOUNDARY } },
        });
        expect(bySid(doc, "AttachPlannedPolicies")).to.deep.equal({
            Sid: "AttachPlannedPolicies",
            Effect: "Allow",
            Action: "iam:AttachRolePolicy",
            Resource: ROLES,
            Condition: {
                StringEquals: { "iam:PermissionsBoundary": BOUNDARY },
                ArnEquals: { "iam:PolicyARN": ["arn:aws:iam::aws:policy/A", "arn:aws:iam::aws:policy/B"] },
            },
        });
    });

    it("writes a role statement only when it has actions: a type that only attaches gets the attachment statement alone", () => {
        const entry = { actions: ["iam:AttachRolePolicy"], scope: "roles" as const, source: "test" };
        const doc = withEntry("test:attach:Only", entry, () => policy([res("test:attach:Only", "x")]));
        expect(sids(doc).filter((s) => s?.startsWith("StackRoles") || s === "AttachPlannedPolicies")).to.deep.equal([
            "AttachPlannedPolicies",
        ]);
    });

    it("writes no statement for a scope without actions, and none for a type without an entry (components, Kubernetes objects)", () => {
        const empty = { actions: [], scope: "queues" as const, source: "test" };
        const doc = withEntry("test:queue:Empty", empty, () => policy([res("test:queue:Empty", "q")]));
        expect(sids(doc)).to.not.include("StackQueues");
        expect(policy([res("platform:network:Network", "n"), res("kubernetes:core/v1:Namespace", "ns")])).to.deep.equal(policy([]));
    });

    it("passes the stack's roles only, to the plan's services; the policy is of IAM's current version", () => {
        const doc = policy([res("aws:ec2/flowLog:FlowLog", "f")]);
        expect(doc.Version).to.equal("2012-10-17");
        expect(bySid(doc, "PassStackRoles")).to.deep.equal({
            Sid: "PassStackRoles",
            Effect: "Allow",
            Action: "iam:PassRole",
            Resource: ROLES,
            Condition: { StringEquals: { "iam:PassedToService": ["vpc-flow-logs.amazonaws.com"] } },
        });
    });

    it("lists and reads the state bucket's layout, writes this stack's objects, and uses the stack's secrets key by its alias only", () => {
        const bucket = "arn:aws:s3:::acme-state";
        const own = [
            ".pulumi/stacks/eks-platform/qa.json*",
            ".pulumi/stacks/eks-platform/qa.pulumi-tags",
            ".pulumi/locks/organization/eks-platform/qa/*",
            ".pulumi/history/eks-platform/qa/*",
            ".pulumi/backups/eks-platform/qa/*",
        ];
        expect(policy([]).Statement.slice(0, 5)).to.deep.equal([
            // GetBucketLocation supports no s3:prefix key: under that condition it would never be allowed.
            { Sid: "StateBucket", Effect: "Allow", Action: "s3:GetBucketLocation", Resource: bucket },
            {
                Sid: "StateList",
                Effect: "Allow",
                Action: "s3:ListBucket",
                Resource: bucket,
                Condition: { StringLike: { "s3:prefix": [".pulumi/meta.yaml", ".pulumi/stacks/eks-platform/", ...own] } },
            },
            { Sid: "StateMeta", Effect: "Allow", Action: "s3:GetObject", Resource: `${bucket}/.pulumi/meta.yaml` },
            {
                Sid: "State",
                Effect: "Allow",
                Action: ["s3:DeleteObject", "s3:GetObject", "s3:PutObject"],
                Resource: own.map((o) => `${bucket}/${o}`),
            },
            {
                Sid: "StackSecrets",
                Effect: "Allow",
                Action: ["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey"],
                Resource: "arn:aws:kms:eu-west-1:111122223333:key/*",
                Condition: { "ForAnyValue:StringEquals": { "kms:ResourceAliases": "alias/eks-platform-qa-secrets" } },
            },
        ]);
    });

    it("lists the problems one per line under the stack's heading", () => {
        expect(() => policy([role("other"), res("aws:sqs/queue:Queue", "q", { name: "other-q" })]))
            .to.throw(DeployerPolicyError)
            .with.property("message")
            .that.equals(
                'the deploy role of stack "qa" cannot be scoped to its plan:\n' +
                    '  aws:iam/role:Role "r-other": name "other" is not under "acme-": set it; the deploy role manages only names under the stack\'s prefix\n' +
                    '  aws:sqs/queue:Queue "q": name "other-q" is not under "acme-": set it; the deploy role manages only names under the stack\'s prefix',
            );
    });

    it("skips names unknown at preview, an owner's or one an attachment names it by: the owner is checked", () => {
        const plan = [
            role(UNKNOWN),
            res("aws:iam/rolePolicy:RolePolicy", "p", { role: UNKNOWN }),
            res("aws:cloudwatch/eventTarget:EventTarget", "t", { rule: UNKNOWN }),
            res("aws:cloudwatch/logGroup:LogGroup", "l", { name: UNKNOWN }),
        ];
        expect(scopeProblems(plan, CTX)).to.deep.equal([]);
    });

    it("takes a namePrefix for an absent name only, never for the owner's name an attachment names", () => {
        // A role policy's own namePrefix is the policy's, not the role's: the role is unknown, so skipped.
        expect(scopeProblems([res("aws:iam/rolePolicy:RolePolicy", "p", { namePrefix: "other-" })], CTX)).to.deep.equal([]);
        expect(scopeProblems([res("aws:sqs/queue:Queue", "q", { namePrefix: "other-" })], CTX)).to.deep.equal([
            'aws:sqs/queue:Queue "q": name "other-" is not under "acme-": set it; the deploy role manages only names under the stack\'s prefix',
        ]);
    });

    it("refuses an auto-named log group or alias, and a log group outside /aws/ even with the cluster third", () => {
        const plan = [
            res("aws:cloudwatch/logGroup:LogGroup", "auto"),
            res("aws:cloudwatch/logGroup:LogGroup", "var", { name: "/var/eks/acme/x" }),
            res("aws:kms/alias:Alias", "a"),
        ];
        expect(scopeProblems(plan, CTX)).to.deep.equal([
            'aws:cloudwatch/logGroup:LogGroup "auto": name (auto-named) is not /aws/<service>/acme/…: the deploy role manages only the stack\'s log groups',
            'aws:cloudwatch/logGroup:LogGroup "var": name "/var/eks/acme/x" is not /aws/<service>/acme/…: the deploy role manages only the stack\'s log groups',
            'aws:kms/alias:Alias "a": name (auto-named) is not under "alias/eks/acme-": the deploy role manages only the stack\'s aliases',
        ]);
    });

    it("checks only roles among the principals: a user under the prefix is no role the deploy role manages", () => {
        expect(scopeProblems([], { ...CTX, principals: ["arn:aws:iam::111122223333:user/acme-ci"] })).to.deep.equal([]);
    });

    it("folds only reads (Describe, Get, List): two writes of one service stay as they are", () => {
        expect(compactReads(["sqs:UntagQueue", "sqs:TagQueue", "sqs:CreateQueue"])).to.deep.equal([
            "sqs:CreateQueue",
            "sqs:TagQueue",
            "sqs:UntagQueue",
        ]);
    });
});

describe("deployerContext: the stack file's account, partition and principals", () => {
    it("takes the partition from access.deployer, and checks the deployer, the preview role and every admin", () => {
        const root = editedFixture("dev", (text) => text.replace(/arn:aws:iam::/g, "arn:aws-cn:iam::"));
        const ctx = deployerContext(root, "dev");
        expect(ctx).to.deep.include({ stack: "dev", partition: "aws-cn", account: "123456789012", stateBucket: "<state-bucket>" });
        expect(ctx.principals).to.deep.equal([
            "arn:aws-cn:iam::123456789012:role/platform-deployer-dev",
            "arn:aws-cn:iam::123456789012:role/platform-preview",
            "arn:aws-cn:iam::123456789012:role/platform-admin",
        ]);
    });

    it("checks no preview role where the stack has none", () => {
        const root = editedFixture("dev", (text) => text.replace(/^ *preview: .*\n/m, ""));
        expect(deployerContext(root, "dev").principals).to.deep.equal([
            "arn:aws:iam::123456789012:role/platform-deployer-dev",
            "arn:aws:iam::123456789012:role/platform-admin",
        ]);
    });
});

describe("deployerContext: what keeps the stacks apart is checked before any policy is written", () => {
    it("refuses a cluster name under another stack's prefix, either way, and the same name twice, naming both stacks and the fix", () => {
        const under = editedFixture("prod", (text) => text.replace("clusterName: platform-prod", "clusterName: platform-dev-prod"));
        for (const stack of ["dev", "prod"]) {
            expect(() => deployerContext(under, stack), stack)
                .to.throw(DeployerPolicyError)
                .with.property("message")
                .that.includes('"platform-dev-prod" starts with "platform-dev-"')
                .and.includes("rename one");
        }
        const same = editedFixture("prod", (text) => text.replace("clusterName: platform-prod", "clusterName: platform-dev"));
        expect(() => deployerContext(same, "dev")).to.throw(DeployerPolicyError, 'stack "prod" names the same cluster "platform-dev"');
        // A name that merely begins alike, without the dash, reaches nothing of the other's.
        const alike = editedFixture("prod", (text) => text.replace("clusterName: platform-prod", "clusterName: platform-devx"));
        expect(deployerContext(alike, "dev").clusterName).to.equal("platform-dev");
    });

    it("says which stack cannot be kept apart, and leaves out a sibling that names no cluster", () => {
        const under = editedFixture("prod", (text) => text.replace("clusterName: platform-prod", "clusterName: platform-dev-prod"));
        expect(() => deployerContext(under, "dev")).to.throw(
            DeployerPolicyError,
            /^stack "dev" cannot be given policies that keep it apart:\n {2}clusterName: stack "prod"/,
        );
        const unnamed = editedFixture("prod", (text) => text.replace(/^ *eks-platform:clusterName: .*\n/m, ""));
        expect(deployerContext(unnamed, "dev").clusterName).to.equal("platform-dev");
    });

    it("takes the AWS provider's default tag keys from the stack file (the provider sends them with every create), sorted, none without", () => {
        expect(deployerContext(ROOT, "dev").defaultTagKeys).to.deep.equal(["environment", "managed-by", "project"]);
        const none = editedFixture("dev", (text) => text.replace(/^ *aws:defaultTags:\n(?: {4,}.*\n)+/m, ""));
        expect(deployerContext(none, "dev").defaultTagKeys).to.deep.equal([]);
        const odd = editedFixture("dev", (text) => text.replace(/^( *aws:defaultTags:\n)(?: {4,}.*\n)+/m, "$1    tags: 5\n"));
        expect(deployerContext(odd, "dev").defaultTagKeys).to.deep.equal([]);
    });

    it("leaves a sibling stack file that does not parse to its own commands", () => {
        const broken = editedFixture("prod", (text) => `${text}\n  : [unclosed\n`);
        expect(deployerContext(broken, "dev").clusterName).to.equal("platform-dev");
    });

    it("refuses a state bucket S3 would refuse, naming each rule, and takes the placeholder and a valid name", () => {
        expect(stateBucketProblems("org-pulumi-state-123456789012")).to.deep.equal([]);
        expect(stateBucketProblems("a.b-c")).to.deep.equal([]);
        expect(stateBucketProblems("*")).to.have.length(3);
        expect(stateBucketProblems("ab")).to.deep.equal(["is 2 characters long, not 3 to 63"]);
        expect(stateBucketProblems("x".repeat(64))).to.deep.equal(["is 64 characters long, not 3 to 63"]);
        expect(stateBucketProblems("Org-State")[0]).to.match(/^may hold only lowercase letters/);
        expect(stateBucketProblems("-org")).to.deep.equal(["must begin and end with a letter or a digit"]);
        expect(stateBucketProblems("org-")).to.deep.equal(["must begin and end with a letter or a digit"]);
        expect(stateBucketProblems("org..state")).to.deep.equal(["may not hold two dots side by side"]);
        expect(stateBucketProblems("192.168.5.4")).to.deep.equal(["may not be an IP address"]);
        expect(stateBucketProblems("1.2.3.4a")).to.deep.equal([]);
        expect(stateBucketProblems("a1.2.3.4")).to.deep.equal([]);
        expect(stateBucketProblems("abc")).to.deep.equal([]);
        expect(stateBucketProblems("x".repeat(63))).to.deep.equal([]);
        expect(stateBucketProblems("xn--org")).to.deep.equal(["may not begin with xn-- (reserved by S3)"]);
        expect(stateBucketProblems("sthree-org")).to.deep.equal(["may not begin with sthree- (reserved by S3)"]);
        expect(stateBucketProblems("amzn-s3-demo-org")).to.deep.equal(["may not begin with amzn-s3-demo- (reserved by S3)"]);
        for (const suffix of ["-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"]) {
            expect(stateBucketProblems(`org${suffix}`), suffix).to.deep.equal([`may not end with ${suffix} (reserved by S3)`]);
        }
        expect(() => deployerContext(ROOT, "dev", "org_state*")).to.throw(DeployerPolicyError, '--state-bucket "org_state*" may hold only');
        expect(deployerContext(ROOT, "dev").stateBucket).to.equal(STATE_BUCKET_PLACEHOLDER);
    });
});

describe("permissionsBoundary: an allow-list, the ceiling of every role of the stack (decisions: deployerPolicy.simulation.test.ts)", () => {
    const doc = permissionsBoundary(CTX);

    it("allows only what its statements name: no `*` action anywhere, and only EC2, ELB and reads on `*` resources", () => {
        expect(doc.Version).to.equal("2012-10-17");
        const allows = doc.Statement.filter((s) => s.Effect === "Allow");
        expect(allows.length).to.be.greaterThan(5);
        for (const st of allows) {
            expect(actionsOf(st), st.Sid).to.not.include("*");
            expect(st).to.not.have.property("NotAction");
        }
        expect(sids(doc).slice(-5)).to.deep.equal(["NoIdentityChanges", "PassOnlyStackRoles", "NoState", "NoStackSecrets", "NoEscapes"]);
        // Each statement says what it is for: a Sid of its own (IAM refuses duplicates in one policy).
        const named = sids(doc).filter((sid): sid is string => typeof sid === "string" && /^[A-Za-z0-9]+$/.test(sid));
        expect(new Set(named).size, sids(doc).join(", ")).to.equal(doc.Statement.length);
    });

    it("scopes EKS, Auto Scaling, queues, log groups and Karpenter's instance profiles to the stack's own names", () => {
        expect(resourcesOf(bySid(doc, "OwnClusterReads"))).to.include("arn:aws:eks:eu-west-1:111122223333:cluster/acme");
        expect(bySid(doc, "OwnQueues").Resource).to.equal("arn:aws:sqs:eu-west-1:111122223333:acme-*");
        expect(bySid(doc, "OwnAutoScalingGroups").Resource).to.equal(
            "arn:aws:autoscaling:eu-west-1:111122223333:autoScalingGroup:*:autoScalingGroupName/acme-*",
        );
        expect(bySid(doc, "OwnLogGroups").Resource).to.equal("arn:aws:logs:eu-west-1:111122223333:log-group:/aws/*/acme/*");
        expect(resourcesOf(bySid(doc, "NodeInstanceProfiles"))).to.include(
            "arn:aws:iam::111122223333:instance-profile/karpenter/eu-west-1/acme/*",
        );
        expect(bySid(doc, "PassNodeRoles")).to.deep.include({
            Resource: "arn:aws:iam::111122223333:role/acme-*",
            Condition: { StringEquals: { "iam:PassedToService": "ec2.amazonaws.com" } },
        });
    });

    it("takes the stack's service-account statements as written (Allow only), each under a Sid of its own", () => {
        const statement = { Sid: "Reports", Effect: "Allow" as const, Action: ["s3:GetObject"], Resource: "arn:aws:s3:::team-reports/*" };
        const deny = { Effect: "Deny" as const, Action: "s3:DeleteObject", Resource: "*" };
        const withTenants = permissionsBoundary({ ...CTX, tenantStatements: [statement, deny, { ...statement, Sid: undefined }] });
        expect(withTenants.Statement.filter((s) => s.Sid?.startsWith("ServiceAccount"))).to.deep.equal([
            { Sid: "ServiceAccount1", Effect: "Allow", Action: ["s3:GetObject"], Resource: "arn:aws:s3:::team-reports/*" },
            { Sid: "ServiceAccount2", Effect: "Allow", Action: ["s3:GetObject"], Resource: "arn:aws:s3:::team-reports/*" },
        ]);
        expect(sids(doc).filter((s) => s?.startsWith("ServiceAccount"))).to.deep.equal([]);
    });

    it("lets volumes use the stack's own keys (by their tag) and the keys its stack file names by ARN, never another's", () => {
        expect(bySid(doc, "OwnVolumeKeys").Condition).to.deep.equal({ StringEquals: { "aws:ResourceTag/platform/cluster": "acme" } });
        expect(sids(doc)).to.not.include("GivenVolumeKeys");
        const given = "arn:aws:kms:eu-west-1:111122223333:key/1234abcd";
        const withGiven = permissionsBoundary({ ...CTX, volumeKeyArns: [given] });
        expect(bySid(withGiven, "GivenVolumeKeys")).to.deep.include({ Resource: [given] });
        expect(bySid(withGiven, "GivenVolumeKeys")).to.not.have.property("Condition");
        expect(
            kmsKeyArnsIn({ a: { kmsKey: given }, b: [{ kmsKeyId: given }, "platform"], c: "arn:aws:kms:eu-west-1:1:alias/x" }),
        ).to.deep.equal([given]);
    });

    it("denies using any stack's secrets key, whatever the key's ARN: by its alias", () => {
        expect(bySid(doc, "NoStackSecrets")).to.deep.equal({
            Sid: "NoStackSecrets",
            Effect: "Deny",
            Action: ["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey*", "kms:ReEncrypt*"],
            Resource: "*",
            Condition: { "ForAnyValue:StringLike": { "kms:ResourceAliases": "alias/eks-platform-*-secrets" } },
        });
    });
});

describe("driftPolicy: the drift check's role reads what the deploy role may read, nothing more", () => {
    const key = res("aws:kms/key:Key", "k", { tags: { [PLATFORM_CLUSTER_TAG]: "acme" } });
    const plan = [
        role("acme-nodes"),
        res("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "a", { role: "acme-nodes", policyArn: "arn:aws:iam::aws:policy/X" }),
        res("aws:sqs/queue:Queue", "q", { name: "acme-interruptions" }),
        key,
    ];

    it("knows a read by its verb, wildcards included, and the reads named otherwise", () => {
        for (const a of [
            "ec2:DescribeSubnets",
            "iam:Get*",
            "eks:ListAccessEntries",
            "kms:GetKeyPolicy",
            "ec2:SearchTransitGatewayRoutes",
            "s3:GetObject",
        ]) {
            expect(isReadAction(a), a).to.equal(true);
        }
        for (const a of [
            "iam:PassRole",
            "iam:CreateRole",
            "ec2:CreateTags",
            "kms:Decrypt",
            "s3:PutObject",
            "ec2:*",
            "*",
            "ec2:SearchLocalGatewayRoutesX",
            "sqs:ReceiveMessage",
        ]) {
            expect(isReadAction(a), a).to.equal(false);
        }
    });

    it("keeps each read of the deploy policy on the same resources, under the same conditions, and drops every write", () => {
        const deploy = deployerPolicy(plan, CTX);
        const drift = driftPolicy(plan, CTX);
        // Decrypting with the stack's secrets key is the one call that is no read by its verb: a preview needs it.
        for (const st of drift.Statement.filter((x) => x.Sid !== "StackSecrets")) {
            expect(st.Effect, st.Sid).to.equal("Allow");
            for (const a of actionsOf(st)) {
                expect(isReadAction(a), `${st.Sid}: ${a}`).to.equal(true);
            }
        }
        for (const st of deploy.Statement.filter(
            (x) => !["StateBucket", "StateList", "StateMeta", "State", "StackSecrets"].includes(x.Sid ?? ""),
        )) {
            const reads = actionsOf(st).filter(isReadAction);
            const found = drift.Statement.find((x) => x.Sid === st.Sid);
            if (reads.length === 0) {
                expect(found, `${st.Sid} has no read`).to.equal(undefined);
                continue;
            }
            expect(found, st.Sid).to.not.equal(undefined);
            expect(found!.Resource, st.Sid).to.deep.equal(st.Resource);
            expect(found!.Condition, st.Sid).to.deep.equal(st.Condition);
            expect(actionsOf(found!), st.Sid).to.deep.equal(compactReads(reads));
        }
        expect(allows(drift, "iam:PassRole")).to.deep.equal([]);
        expect(sids(drift)).to.not.include.members(["StackRolesWithBoundary", "AttachPlannedPolicies", "PassStackRoles"]);
        expect(POLICY_WRITING_ACTIONS.filter((w) => allows(drift, w).length > 0)).to.deep.equal([]);
    });

    it("reads the stack's checkpoint and the backend's metadata only, and decrypts with the stack's secrets key only", () => {
        const drift = driftPolicy(plan, CTX);
        // The deploy policy's state statements are not copied: each Sid once.
        expect(new Set(sids(drift)).size, sids(drift).join(", ")).to.equal(sids(drift).length);
        expect(sids(drift).slice(0, 4)).to.deep.equal(["StateBucket", "StateList", "StateRead", "StackSecrets"]);
        expect(bySid(drift, "StateRead")).to.deep.equal({
            Sid: "StateRead",
            Effect: "Allow",
            Action: "s3:GetObject",
            Resource: [
                "arn:aws:s3:::acme-state/.pulumi/meta.yaml",
                "arn:aws:s3:::acme-state/.pulumi/stacks/eks-platform/qa.json*",
                "arn:aws:s3:::acme-state/.pulumi/stacks/eks-platform/qa.pulumi-tags",
            ],
        });
        expect((bySid(drift, "StateList").Condition as { StringLike: Record<string, string[]> }).StringLike["s3:prefix"]).to.deep.equal([
            ".pulumi/meta.yaml",
            ".pulumi/stacks/eks-platform/",
            ".pulumi/stacks/eks-platform/qa.json*",
            ".pulumi/stacks/eks-platform/qa.pulumi-tags",
        ]);
        expect(bySid(drift, "StackSecrets")).to.deep.include({
            Action: "kms:Decrypt",
            Resource: "arn:aws:kms:eu-west-1:111122223333:key/*",
            Condition: { "ForAnyValue:StringEquals": { "kms:ResourceAliases": "alias/eks-platform-qa-secrets" } },
        });
        // No lock, history or backup: a preview writes none of them.
        expect(allows(drift, "s3:PutObject")).to.deep.equal([]);
        expect(allows(drift, "kms:Encrypt").concat(allows(drift, "kms:GenerateDataKey"))).to.deep.equal([]);
    });

    it("reads the stack's own keys by their tag (the deploy role reads them through each key's policy), only when the plan has a key", () => {
        const drift = driftPolicy(plan, CTX);
        expect(bySid(drift, "StackKeyReads")).to.deep.equal({
            Sid: "StackKeyReads",
            Effect: "Allow",
            Action: ["kms:DescribeKey", "kms:GetKeyPolicy", "kms:GetKeyRotationStatus", "kms:ListResourceTags"],
            Resource: "arn:aws:kms:eu-west-1:111122223333:key/*",
            Condition: { StringEquals: { [`aws:ResourceTag/${PLATFORM_CLUSTER_TAG}`]: "acme" } },
        });
        expect(
            sids(
                driftPolicy(
                    plan.filter((r) => r !== key),
                    CTX,
                ),
            ),
        ).to.not.include("StackKeyReads");
    });

    it("refuses a plan the deploy policy cannot scope, as the deploy policy does", () => {
        expect(() => driftPolicy([role(undefined)], CTX)).to.throw(DeployerPolicyError, /cannot be scoped to its plan/);
    });
});

describe("previewPolicy: the preview role reads its stack's state and the program's lookups, nothing else", () => {
    it("reads the metadata, the checkpoint and the stack's tags, decrypts with its key, and makes the preview's and preflight's reads", () => {
        const doc = previewPolicy(CTX);
        expect(sids(doc)).to.deep.equal([
            "StateBucket",
            "StateList",
            "StateRead",
            "StackSecrets",
            "AmiReleases",
            "Preflight",
            "PreflightServiceLinkedRoles",
        ]);
        expect(bySid(doc, "StateRead").Resource).to.include("arn:aws:s3:::acme-state/.pulumi/stacks/eks-platform/qa.pulumi-tags");
        expect(bySid(doc, "AmiReleases")).to.deep.include({
            Action: ["ssm:GetParameter"],
            Resource: "arn:aws:ssm:eu-west-1::parameter/aws/service/*",
        });
        expect(bySid(doc, "PreflightServiceLinkedRoles")).to.deep.include({
            Action: ["iam:GetRole"],
            Resource: "arn:aws:iam::111122223333:role/aws-service-role/*",
        });
        for (const action of PREFLIGHT_READS) {
            expect(allows(doc, action).length, action).to.equal(1);
        }
        for (const st of doc.Statement.filter((x) => x.Sid !== "StackSecrets")) {
            expect(actionsOf(st).every(isReadAction), st.Sid).to.equal(true);
        }
        expect(allows(doc, "s3:PutObject").concat(allows(doc, "kms:Encrypt"))).to.deep.equal([]);
    });

    it("is the one stackPolicy gives for `preview`, as it gives each other kind's", () => {
        expect(stackPolicy("preview", [], CTX)).to.deep.equal(previewPolicy(CTX));
        expect(stackPolicy("boundary", [], CTX)).to.deep.equal(permissionsBoundary(CTX));
        expect(stackPolicy("drift", [role("acme-r")], CTX)).to.deep.equal(driftPolicy([role("acme-r")], CTX));
        expect(stackPolicy("deploy", [role("acme-r")], CTX)).to.deep.equal(deployerPolicy([role("acme-r")], CTX));
    });
});

describe("deployerPolicyCommand", () => {
    const render = () => Promise.resolve([role("acme-r")]);
    const ctxRoot = ROOT;

    it("prints the stack's policy as JSON, with the state bucket given", async () => {
        const stack = stacks()[0];
        const out = await deployerPolicyCommand([stack, "--state-bucket", "org-state"], {
            root: ctxRoot,
            render: () => Promise.resolve([]),
        });
        expect(out.code).to.equal(0);
        const doc = JSON.parse(out.stdout) as PolicyDocument;
        expect(bySid(doc, "StateMeta").Resource).to.equal("arn:aws:s3:::org-state/.pulumi/meta.yaml");
    });

    it("prints the permissions boundary with --boundary, and a placeholder bucket without --state-bucket", async () => {
        const stack = stacks()[0];
        const out = await deployerPolicyCommand([stack, "--boundary"], { root: ctxRoot, render });
        const doc = JSON.parse(out.stdout) as PolicyDocument;
        expect(sids(doc)[0]).to.equal("Ec2AndLoadBalancers");
        expect(bySid(doc, "NoState").Resource).to.deep.equal(["arn:aws:s3:::<state-bucket>", "arn:aws:s3:::<state-bucket>/*"]);
    });

    it("prints the drift role's read-only policy with --drift, and refuses --drift with --boundary", async () => {
        const stack = stacks()[0];
        const out = await deployerPolicyCommand([stack, "--drift", "--state-bucket", "org-state"], {
            root: ctxRoot,
            render: () => Promise.resolve([]),
        });
        const doc = JSON.parse(out.stdout) as PolicyDocument;
        expect(bySid(doc, "StateRead").Resource).to.include("arn:aws:s3:::org-state/.pulumi/meta.yaml");
        expect(sids(doc)).to.include("Lookups").and.not.include("State");
        await deployerPolicyCommand([stack, "--drift", "--boundary"], { root: ctxRoot, render }).then(
            () => expect.fail("should refuse"),
            (err: Error) =>
                expect(err).to.be.instanceOf(InputError).with.property("message").that.includes("[--boundary | --drift | --preview]"),
        );
    });

    it("prints the preview role's policy with --preview, rendering no plan, and refuses it beside another kind", async () => {
        const stack = stacks()[0];
        const out = await deployerPolicyCommand([stack, "--preview", "--state-bucket", "org-state"], {
            root: ctxRoot,
            render: () => Promise.reject(new Error("the preview role's policy reads no plan")),
        });
        const doc = JSON.parse(out.stdout) as PolicyDocument;
        expect(sids(doc)).to.include("AmiReleases").and.not.include("Lookups");
        for (const other of ["--boundary", "--drift"]) {
            await deployerPolicyCommand([stack, "--preview", other], { root: ctxRoot, render }).then(
                () => expect.fail("should refuse"),
                (err: Error) => expect(err).to.be.instanceOf(InputError),
            );
        }
    });

    it("says on stderr, naming the stack file's key, which managed policies of a service account the boundary cannot read; none where there are none", async () => {
        const root = editedFixture("prod", (text) =>
            text.replace(
                /^( {4}checkout:\n)/m,
                "$1      serviceAccounts:\n        reports:\n          policyArns: [arn:aws:iam::123456789012:policy/reports-read]\n",
            ),
        );
        const out = await deployerPolicyCommand(["prod", "--boundary"], { root, render });
        expect(JSON.parse(out.stdout)).to.have.property("Statement");
        expect(out.stderr).to.equal(
            "not modelled: namespaces.checkout.serviceAccounts.reports.policyArns: arn:aws:iam::123456789012:policy/reports-read is a managed policy the boundary cannot read; its grants work only where the boundary already allows them: write them as statements (namespaces.checkout.serviceAccounts.reports.statements) to have the boundary allow them\n",
        );
        // Only the boundary is judged by what it cannot read: the deploy role's policy names the attachment itself.
        expect((await deployerPolicyCommand(["prod", "--preview"], { root, render })).stderr).to.equal(undefined);
        expect((await deployerPolicyCommand([stacks()[0], "--boundary"], { root: ctxRoot, render })).stderr).to.equal(undefined);
    });

    it("refuses to print a policy AWS's authorization data contradicts, naming each statement and what is wrong", async () => {
        const stack = stacks()[0];
        const entry = { actions: ["sqs:CreateQueues"], scope: "queues" as const, namedBy: "name", source: "test" };
        const ctx = deployerContext(ROOT, stack);
        const table = DEPLOYER_ACTIONS as Record<string, DeployerActions>;
        table["aws:test/bogus:Bogus"] = entry;
        await deployerPolicyCommand([stack], {
            root: ctxRoot,
            render: () => Promise.resolve([res("aws:test/bogus:Bogus", "b", { name: `${ctx.clusterName}-q` })]),
        })
            .finally(() => delete table["aws:test/bogus:Bogus"])
            .then(
                () => expect.fail("should refuse"),
                (err: Error) =>
                    expect(err)
                        .to.be.instanceOf(DeployerPolicyError)
                        .with.property("message")
                        .that.includes(`contradicts AWS's authorization data`)
                        .and.includes("statement StackQueues: sqs:CreateQueues is no action of AWS's authorization reference"),
            );
    });

    it("refuses a missing stack, an unknown option and an unknown stack, with the usage or the stacks there are", async () => {
        for (const argv of [[], ["a", "b"]]) {
            await deployerPolicyCommand(argv, { root: ctxRoot, render }).then(
                () => expect.fail("should refuse"),
                (err: Error) =>
                    expect(err)
                        .to.be.instanceOf(InputError)
                        .with.property("message")
                        .that.includes("usage: npm run deployer-policy -- <stack>"),
            );
        }
        await deployerPolicyCommand(["dev", "--bogus"], { root: ctxRoot, render }).then(
            () => expect.fail("should refuse"),
            (err: Error) => expect(err.message).to.include("--bogus"),
        );
        await deployerPolicyCommand(["nosuch"], { root: ctxRoot, render }).then(
            () => expect.fail("should refuse"),
            (err: Error) => expect(err.message).to.include('unknown stack "nosuch"'),
        );
    });

    it("refuses a policy over IAM's limit, saying by how much", async () => {
        const stack = stacks()[0];
        const many = Array.from({ length: 400 }, (_, i) =>
            res("aws:iam/rolePolicyAttachment:RolePolicyAttachment", `a${i}`, { policyArn: `arn:aws:iam::aws:policy/Policy${i}` }),
        );
        await deployerPolicyCommand([stack], { root: ctxRoot, render: () => Promise.resolve(many) }).then(
            () => expect.fail("should refuse"),
            (err: Error) =>
                expect(err)
                    .to.be.instanceOf(DeployerPolicyError)
                    .with.property("message")
                    .that.matches(new RegExp(`^the deploy role's policy of stack "${stack}" is \\d+ characters, over IAM's 10240$`)),
        );
    });
});

describe("embedPolicies: docs/roles.md's marked blocks", () => {
    it("replaces only the marked blocks, keeping the marker and the text around them", () => {
        const text =
            "before\n<!-- deployer-policy: qa -->\n```json\n{}\n```\nbetween\n<!-- deployer-policy: qa --boundary -->\n```json\nold\n```\nafter";
        const out = embedPolicies(text, (stack, kind) => ({
            Version: "2012-10-17",
            Statement: [{ Sid: `${stack}${kind === "boundary" ? "B" : kind === "deploy" ? "P" : "?"}`, Effect: "Allow" }],
        }));
        expect(out).to.equal(
            'before\n<!-- deployer-policy: qa -->\n```json\n{\n  "Version": "2012-10-17",\n  "Statement": [\n    {\n      "Sid": "qaP",\n      "Effect": "Allow"\n    }\n  ]\n}\n```\nbetween\n<!-- deployer-policy: qa --boundary -->\n```json\n{\n  "Version": "2012-10-17",\n  "Statement": [\n    {\n      "Sid": "qaB",\n      "Effect": "Allow"\n    }\n  ]\n}\n```\nafter',
        );
        expect(embeddedStacks(text)).to.deep.equal(["qa"]);
        const drift = embedPolicies("<!-- deployer-policy: qa --drift -->\n```json\nold\n```\n", (stack, kind) => ({
            Version: "2012-10-17",
            Statement: [{ Sid: `${stack}-${kind}`, Effect: "Allow" }],
        }));
        expect(drift).to.equal(
            '<!-- deployer-policy: qa --drift -->\n```json\n{\n  "Version": "2012-10-17",\n  "Statement": [\n    {\n      "Sid": "qa-drift",\n      "Effect": "Allow"\n    }\n  ]\n}\n```\n',
        );
        // An option the generator does not print is no marker: the block stays as it is.
        const unknown = "<!-- deployer-policy: qa --other -->\n```json\nold\n```\n";
        expect(embedPolicies(unknown, () => ({ Version: "2012-10-17", Statement: [] }))).to.equal(unknown);
        // An empty block ends at its own fence: the text and fences after it stay.
        const empty = "<!-- deployer-policy: qa -->\n```json\n```\nkept\n```bash\necho kept\n```\n";
        expect(embedPolicies(empty, () => ({ Version: "2012-10-17", Statement: [] }))).to.equal(
            '<!-- deployer-policy: qa -->\n```json\n{\n  "Version": "2012-10-17",\n  "Statement": []\n}\n```\nkept\n```bash\necho kept\n```\n',
        );
    });
});

describe("withAccountPlaceholder: docs/roles.md shows the stack's own account as <account>", () => {
    const doc: PolicyDocument = {
        Version: "2012-10-17",
        Statement: [
            {
                Sid: "S",
                Effect: "Allow",
                Action: "kms:Decrypt",
                Resource: ["arn:aws:kms:us-east-1:111122223333:key/*", "arn:aws:kms:us-east-1:444455556666:key/shared"],
                Condition: { StringEquals: { "kms:CallerAccount": "111122223333", "aws:ResourceTag/id": "91111222233334" } },
            },
        ],
    };
    it("replaces the account in ARNs and condition values, and nothing else: another account, a longer number holding it", () => {
        expect(withAccountPlaceholder(doc, "111122223333").Statement[0]).to.deep.include({
            Resource: ["arn:aws:kms:us-east-1:<account>:key/*", "arn:aws:kms:us-east-1:444455556666:key/shared"],
            Condition: { StringEquals: { "kms:CallerAccount": "<account>", "aws:ResourceTag/id": "91111222233334" } },
        });
    });
    it("leaves the document as it is for an account that is no 12-digit id", () => {
        expect(withAccountPlaceholder(doc, "")).to.deep.equal(doc);
        expect(withAccountPlaceholder(doc, "1111")).to.deep.equal(doc);
    });
});
