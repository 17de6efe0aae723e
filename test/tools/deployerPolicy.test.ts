/**
 * `npm run deployer-policy`: the deploy role's policy and the stack's permissions boundary on
 * hand-built plans, each rule that scopes a statement; the command in process. Every stack of the
 * repository: deployerPolicy.stacks.test.ts.
 */
import { expect } from "chai";
import { actionCovers, PLATFORM_CLUSTER_TAG, POLICY_WRITING_ACTIONS } from "eks-platform-kernel";
import type { PolicyDocument } from "../../components/iam";
import {
    compactReads,
    deployerPolicy,
    DeployerPolicyError,
    embeddedStacks,
    embedPolicies,
    permissionsBoundary,
    type PlannedResource,
    scopeProblems,
} from "../../tools/deployRole";
import { deployerPolicyCommand } from "../../tools/deployerPolicy";
import { InputError } from "../../tools/errors";
import { ROOT } from "../mocks";
import { stacks } from "../stackFiles";
import { actionsOf, bySid, CTX, res, resourcesOf, role, sids } from "./deployRole.fixtures";

describe("deployerPolicy: scoping rules (hand-built plans)", () => {
    it("refuses a plan it cannot scope, naming each resource and the fix: an auto-named role, a role without the boundary, a type without actions", () => {
        const plan = [role(undefined), role("acme-x", { permissionsBoundary: undefined }), res("aws:lambda/function:Function", "fn")];
        const problems = scopeProblems(plan, CTX);
        expect(problems).to.have.length(3);
        expect(problems[0]).to.equal(
            'aws:iam/role:Role "r-undefined": name (auto-named) is not under "acme-": set it; the deploy role manages only names under the stack\'s prefix',
        );
        expect(problems[1]).to.include('"r-acme-x": permissionsBoundary is null, not arn:aws:iam::111122223333:policy/acme-boundary');
        expect(problems[2]).to.include('aws:lambda/function:Function "fn": no entry in tools/deployerActions.ts');
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
            'aws:kms/key:Key "k": tag platform/cluster is "other", not "acme": the deploy role creates keys only with it',
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

    it("grants statements only for the scopes the plan uses, and the lookups every program makes", () => {
        const doc = deployerPolicy([role("acme-r")], CTX);
        expect(sids(doc)).to.deep.equal([
            "StateList",
            "StateMeta",
            "State",
            "StackSecrets",
            "Lookups",
            "PublicParameters",
            "StackRoles",
            "StackRolesWithBoundary",
            "ReadServiceLinkedRoles",
        ]);
        // The provider's identity call and the preflight's reads (tools/deployerActions.ts, PREFLIGHT_READS), folded per service.
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
            "arn:aws:s3:::acme-state/.pulumi/locks/organization/eks-platform/qa/*",
            "arn:aws:s3:::acme-state/.pulumi/history/eks-platform/qa/*",
            "arn:aws:s3:::acme-state/.pulumi/backups/eks-platform/qa/*",
            "arn:aws:s3:::acme-state/.pulumi/journal/eks-platform/qa/*",
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

describe("permissionsBoundary: the ceiling of every role of the stack", () => {
    const doc = permissionsBoundary(CTX);
    const denies = (action: string, resource = "*") =>
        doc.Statement.some(
            (s) =>
                s.Effect === "Deny" &&
                // A conditional deny (the stack's secrets by alias) is checked on its own.
                s.Condition === undefined &&
                actionsOf(s).some((p) => actionCovers(p, action)) &&
                (s.NotResource === undefined
                    ? resourcesOf(s).some((r) => actionCovers(r, resource))
                    : ![s.NotResource].flat().some((r) => actionCovers(r, resource))),
        );

    it("allows what a role's own policies grant, and denies identity and policy changes of any kind", () => {
        expect(bySid(doc, "WithinOwnPolicies")).to.deep.include({ Effect: "Allow", Action: "*", Resource: "*" });
        // Every escalation path the pack refuses in a Pod Identity role's policy (kernel/iamPolicy.ts), and more.
        for (const action of [
            ...POLICY_WRITING_ACTIONS,
            "iam:CreateOpenIDConnectProvider",
            "iam:DeleteServiceLinkedRole",
            "iam:TagRole",
            "iam:UpdateRoleDescription",
        ]) {
            expect(denies(action), action).to.equal(true);
        }
    });

    it("leaves the controllers what they need: Karpenter's instance profiles and reads, the LB controller's service-linked role and certificates", () => {
        for (const action of [
            "iam:CreateInstanceProfile",
            "iam:AddRoleToInstanceProfile",
            "iam:TagInstanceProfile",
            "iam:GetInstanceProfile",
            "iam:ListInstanceProfiles",
            "iam:CreateServiceLinkedRole",
            "iam:ListServerCertificates",
            "iam:GetServerCertificate",
            "kms:CreateGrant",
            "kms:Decrypt",
            "ec2:RunInstances",
        ]) {
            expect(denies(action, "arn:aws:kms:eu-west-1:111122223333:key/k1"), action).to.equal(false);
        }
        expect(denies("iam:PassRole", "arn:aws:iam::111122223333:role/acme-karpenter-node")).to.equal(false);
    });

    it("denies passing a role outside the stack, administering keys, the state bucket, every stack's secrets and the organization", () => {
        expect(denies("iam:PassRole", "arn:aws:iam::111122223333:role/admin")).to.equal(true);
        for (const action of [
            "kms:PutKeyPolicy",
            "kms:ScheduleKeyDeletion",
            "kms:CreateKey",
            "kms:CreateAlias",
            "kms:DisableKey",
            "organizations:LeaveOrganization",
            "account:CloseAccount",
        ]) {
            expect(denies(action), action).to.equal(true);
        }
        expect(denies("s3:GetObject", "arn:aws:s3:::acme-state/.pulumi/stacks/eks-platform/prod.json")).to.equal(true);
        expect(denies("s3:GetObject", "arn:aws:s3:::team-bucket/report.csv")).to.equal(false);
        expect(bySid(doc, "NoStackSecrets").Condition).to.deep.equal({
            "ForAnyValue:StringLike": { "kms:ResourceAliases": "alias/eks-platform-*-secrets" },
        });
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
        expect(sids(doc)[0]).to.equal("WithinOwnPolicies");
        expect(bySid(doc, "NoState").Resource).to.deep.equal(["arn:aws:s3:::<state-bucket>", "arn:aws:s3:::<state-bucket>/*"]);
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

describe("embedPolicies: docs/ci.md's marked blocks", () => {
    it("replaces only the marked blocks, keeping the marker and the text around them", () => {
        const text =
            "before\n<!-- deployer-policy: qa -->\n```json\n{}\n```\nbetween\n<!-- deployer-policy: qa --boundary -->\n```json\nold\n```\nafter";
        const out = embedPolicies(text, (stack, boundary) => ({
            Version: "2012-10-17",
            Statement: [{ Sid: `${stack}${boundary ? "B" : "P"}`, Effect: "Allow" }],
        }));
        expect(out).to.equal(
            'before\n<!-- deployer-policy: qa -->\n```json\n{\n  "Version": "2012-10-17",\n  "Statement": [\n    {\n      "Sid": "qaP",\n      "Effect": "Allow"\n    }\n  ]\n}\n```\nbetween\n<!-- deployer-policy: qa --boundary -->\n```json\n{\n  "Version": "2012-10-17",\n  "Statement": [\n    {\n      "Sid": "qaB",\n      "Effect": "Allow"\n    }\n  ]\n}\n```\nafter',
        );
        expect(embeddedStacks(text)).to.deep.equal(["qa"]);
        // An empty block ends at its own fence: the text and fences after it stay.
        const empty = "<!-- deployer-policy: qa -->\n```json\n```\nkept\n```bash\necho kept\n```\n";
        expect(embedPolicies(empty, () => ({ Version: "2012-10-17", Statement: [] }))).to.equal(
            '<!-- deployer-policy: qa -->\n```json\n{\n  "Version": "2012-10-17",\n  "Statement": []\n}\n```\nkept\n```bash\necho kept\n```\n',
        );
    });
});
