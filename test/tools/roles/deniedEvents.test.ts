/**
 * `npm run deployer-policy -- <stack> --denied <cloudtrail.json>`: denied calls, built in
 * CloudTrail's documented record format (CloudTrail User Guide, "CloudTrail record contents" and
 * "CloudTrail userIdentity element"; both wrappers: `aws cloudtrail lookup-events`' `Events` and a
 * log file's `Records`), judged against the real generator on a stand-in plan. Expected statement
 * ids are read from the generated documents, so a renamed statement changes no test.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { gzipSync } from "zlib";
import { actionCovers, PLATFORM_CLUSTER_TAG, stackNamePrefix } from "eks-platform-kernel";
import type { PolicyDocument, PolicyStatement } from "../../../components/iam";
import {
    actionOf,
    type DeniedCall,
    deniedCalls,
    deniedEventsCommand,
    deniedReport,
    judge,
    parseTrail,
    readMessage,
    type TrailRecord,
} from "../../../tools/roles/deniedEvents";
import {
    boundaryArn,
    deployerContext,
    type DeployerContext,
    deployerPolicy,
    permissionsBoundary,
    type PlannedResource,
} from "../../../tools/roles/deployRole";
import { deployerPolicyCommand } from "../../../tools/roles/deployerPolicy";
import { InputError } from "../../../tools/cli/errors";
import { ROOT } from "../../mocks";
import { stacks } from "../../stackFiles";

const STACK = stacks()[0];
const CTX = deployerContext(ROOT, STACK, "org-state");
const { account: ACCOUNT, clusterName: CLUSTER, region: REGION } = CTX;
const PREFIX = stackNamePrefix(CLUSTER);
const DEPLOYER = CTX.principals[0];
const FIXTURES = path.join(ROOT, "test", "fixtures", "cloudtrail");

/** A stand-in plan: a cluster, a role, a node group, a VPC. */
const planFor = (ctx: DeployerContext): PlannedResource[] => [
    {
        type: "eks:index:Cluster",
        name: "cluster",
        props: { name: ctx.clusterName, clusterTags: { [PLATFORM_CLUSTER_TAG]: ctx.clusterName } },
    },
    {
        type: "aws:iam/role:Role",
        name: "nodes",
        props: { name: `${stackNamePrefix(ctx.clusterName)}nodes`, permissionsBoundary: boundaryArn(ctx) },
    },
    { type: "aws:eks/nodeGroup:NodeGroup", name: "ng", props: { clusterName: ctx.clusterName } },
    { type: "aws:ec2/vpc:Vpc", name: "vpc", props: {} },
];
const PLAN = planFor(CTX);
const render = () => Promise.resolve(PLAN);

interface Call {
    /** The role the session was assumed from (default: the deploy role). */
    role?: string;
    source: string;
    name: string;
    code?: string;
    message?: string;
    params?: Record<string, unknown>;
    time?: string;
}

/** A record as CloudTrail writes it for an assumed-role session. */
function record(c: Call): Record<string, unknown> {
    const role = c.role ?? DEPLOYER;
    const roleName = role.split("/").pop() as string;
    return {
        eventVersion: "1.10",
        userIdentity: {
            type: "AssumedRole",
            principalId: "AROAEXAMPLE:ci",
            arn: `arn:aws:sts::${ACCOUNT}:assumed-role/${roleName}/ci`,
            accountId: ACCOUNT,
            sessionContext: {
                sessionIssuer: { type: "Role", principalId: "AROAEXAMPLE", arn: role, accountId: ACCOUNT, userName: roleName },
            },
        },
        eventTime: c.time ?? "2025-03-04T10:00:00Z",
        eventSource: c.source,
        eventName: c.name,
        awsRegion: REGION,
        sourceIPAddress: "198.51.100.10",
        requestParameters: c.params ?? null,
        responseElements: null,
        eventType: "AwsApiCall",
        recipientAccountId: ACCOUNT,
        ...(c.code ? { errorCode: c.code, errorMessage: c.message } : {}),
    };
}

/** IAM's message for a refused call (IAM User Guide, "Troubleshoot access denied error messages"). */
function denied(action: string, resource: string, why = `because no identity-based policy allows the ${action} action`, role = DEPLOYER) {
    const [source, name] = [`${action.split(":")[0]}.amazonaws.com`, action.split(":")[1]];
    const session = `arn:aws:sts::${ACCOUNT}:assumed-role/${role.split("/").pop()}/ci`;
    return {
        role,
        source,
        name,
        code: "AccessDenied",
        message: `User: ${session} is not authorized to perform: ${action} on resource: ${resource} ${why}`,
    };
}

const logFile = (calls: Call[]) => ({ Records: calls.map(record) });
const lookupEvents = (calls: Call[]) => ({
    Events: calls.map((c, i) => {
        const r = record(c);
        return {
            EventId: `e${i}`,
            EventName: c.name,
            EventSource: c.source,
            Username: "ci",
            Resources: [],
            CloudTrailEvent: JSON.stringify(r),
        };
    }),
});

let dir: string;
before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "denied-"))));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Writes `content` (JSON unless a string or bytes) and runs the command on it. */
async function run(content: unknown, name = "events.json", extra: string[] = []) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, typeof content === "string" || Buffer.isBuffer(content) ? content : JSON.stringify(content));
    const out = await deployerPolicyCommand([STACK, "--denied", file, "--state-bucket", "org-state", ...extra], { root: ROOT, render });
    return { ...out, file };
}

async function refused(content: unknown, name = "bad.json"): Promise<Error> {
    return run(content, name).then(
        () => expect.fail("should refuse"),
        (err: Error) => err,
    );
}

const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const allowing = (doc: PolicyDocument, action: string, effect = "Allow"): PolicyStatement[] =>
    doc.Statement.filter((s) => s.Effect === effect && list(s.Action).some((p) => actionCovers(p, action)));
const DEPLOY = deployerPolicy(PLAN, CTX);

describe("deniedEvents: the verdicts", () => {
    it("a call no statement allows: missing, with the plan's types whose entry would take it; exit 1", async () => {
        expect(allowing(DEPLOY, "eks:CreateFargateProfile"), "the stand-in's policy lacks it").to.deep.equal([]);
        const out = await run(logFile([denied("eks:CreateFargateProfile", `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/${CLUSTER}`)]));
        expect(out.code).to.equal(1);
        expect(out.stdout).to.include("missing: no statement of the deploy policy allows eks:CreateFargateProfile");
        expect(out.stdout).to.include("aws:eks/nodeGroup:NodeGroup").and.include("in tools/roles/deployerActions.ts");
        expect(out.stdout).to.include("1 of 1 calls refused by the generated policies");
    });

    it("a resource outside the stack's names: names the statement that allows the action and where; exit 1", async () => {
        const outside = `arn:aws:iam::${ACCOUNT}:role/shared-admin`;
        const sids = allowing(DEPLOY, "iam:TagRole").map((s) => s.Sid);
        expect(sids).to.not.deep.equal([]);
        const out = await run(logFile([denied("iam:TagRole", outside)]));
        expect(out.code).to.equal(1);
        for (const sid of sids) {
            expect(out.stdout).to.include(`${sid} (on `);
        }
        expect(out.stdout).to.include(`allows iam:TagRole but not on ${outside}: it is outside the stack's names`);
    });

    it("a statement whose condition the request did not meet: the operator, key and values, and what the request said; exit 1", async () => {
        const [st] = allowing(DEPLOY, "iam:CreateRole");
        const role = `arn:aws:iam::${ACCOUNT}:role/${PREFIX}nodes`;
        const out = await run(logFile([{ ...denied("iam:CreateRole", role), params: { roleName: `${PREFIX}nodes` } }]));
        expect(out.code).to.equal(1);
        expect(out.stdout).to.include(
            `statement ${st.Sid} allows iam:CreateRole on ${role} only under its condition StringEquals iam:PermissionsBoundary = ${boundaryArn(CTX)} (the request's permissionsBoundary: none): the request did not meet it`,
        );
    });

    it("a role of the stack refused by the boundary: names the boundary's statement; exit 1", async () => {
        const karpenter = `arn:aws:iam::${ACCOUNT}:role/${PREFIX}karpenter`;
        const [deny] = allowing(permissionsBoundary(CTX), "iam:PassRole", "Deny");
        const out = await run(
            logFile([
                denied(
                    "iam:PassRole",
                    `arn:aws:iam::${ACCOUNT}:role/other-nodes`,
                    "with an explicit deny in a permissions boundary",
                    karpenter,
                ),
            ]),
        );
        expect(out.code).to.equal(1);
        expect(out.stdout).to.include(`by ${PREFIX}karpenter`).and.include(`the boundary refuses it: statement ${deny.Sid}`);
    });

    it("judges the deploy role against its policy, never the boundary (it carries none): a tag its policy allows comes from elsewhere", async () => {
        expect(allowing(permissionsBoundary(CTX), "iam:TagRole", "Deny"), "the boundary denies roles iam:TagRole").to.not.deep.equal([]);
        const out = await run(logFile([denied("iam:TagRole", `arn:aws:iam::${ACCOUNT}:role/${PREFIX}nodes`)]));
        expect(out.stdout).to.not.include("the boundary refuses it");
        expect(out.stdout).to.include("allowed by the generated policy");
        expect(out.code).to.equal(0);
    });

    it("a call the policy allows: the refusal came from elsewhere, what the message says (an SCP); exit 0", async () => {
        const cluster = `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/${CLUSTER}`;
        const out = await run(logFile([denied("eks:DescribeCluster", cluster, "with an explicit deny in a service control policy")]));
        expect(out.code).to.equal(0);
        expect(out.stdout).to.include("the refusal came from elsewhere: explicit deny in a service control policy");
        expect(out.stdout).to.include("none of the 1 calls is refused by the generated policies");
    });

    it("says the account's policy differs from the generated one when IAM blames an identity-based policy the generator allows", async () => {
        const out = await run(logFile([denied("eks:DescribeCluster", `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/${CLUSTER}`)]));
        expect(out.stdout).to.include("the deploy role's policy in the account differs from the generated one");
        expect(out.code).to.equal(0);
    });

    it("EC2's encoded message names no action or resource: the action from the record, judged on it alone, and how to decode", async () => {
        const message = "You are not authorized to perform this operation. Encoded authorization failure message: pXb3EXAMPLE";
        const out = await run(logFile([{ source: "ec2.amazonaws.com", name: "CreateVpc", code: "Client.UnauthorizedOperation", message }]));
        expect(out.stdout).to.include("1× ec2:CreateVpc on (no resource named)");
        expect(out.stdout).to.include("aws sts decode-authorization-message");
        expect(out.code).to.equal(0);
        const missing = await run(
            logFile([{ source: "ec2.amazonaws.com", name: "CreateFleet", code: "Client.UnauthorizedOperation", message }]),
        );
        expect(missing.stdout).to.include("missing: no statement of the deploy policy allows ec2:CreateFleet");
        expect(missing.code).to.equal(1);
    });
});

describe("deniedEvents: reading the file", () => {
    it("reads lookup-events' Events (each record a JSON string) and a log file's Records, gzipped or not, to the same verdicts", async () => {
        const calls = [denied("eks:CreateFargateProfile", `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/${CLUSTER}`)];
        const a = await run(lookupEvents(calls), "lookup.json");
        const b = await run(logFile(calls), "trail.json");
        expect(a.code).to.equal(1);
        expect(a.stdout.replace(a.file, "F")).to.equal(b.stdout.replace(b.file, "F"));
        // A trail's log file as S3 stores it, gzipped.
        const c = await run(gzipSync(JSON.stringify(logFile(calls))), "trail.json.gz");
        expect(c.stdout.replace(c.file, "F")).to.equal(b.stdout.replace(b.file, "F"));
    });

    it("counts the records read, the denied, and another principal's (skipped); one line per distinct call with its count and first time", async () => {
        const other = `arn:aws:iam::${ACCOUNT}:role/platform-preview-${STACK}`;
        const call = denied("eks:CreateFargateProfile", `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/${CLUSTER}`);
        const out = await run(
            logFile([
                { source: "sts.amazonaws.com", name: "GetCallerIdentity" },
                { ...call, time: "2025-03-04T10:05:00Z" },
                { ...call, time: "2025-03-04T10:01:00Z" },
                denied("iam:CreateRole", `arn:aws:iam::${ACCOUNT}:role/${PREFIX}x`, undefined, other),
            ]),
        );
        expect(out.stdout.split("\n")[0]).to.match(/: 4 records read, 3 denied, 1 of another principal skipped/);
        expect(out.stdout).to.include("  2× eks:CreateFargateProfile").and.include("first at 2025-03-04T10:01:00Z");
        expect(out.stdout).to.not.include("iam:CreateRole");
    });

    it("no denied record: says so, exit 0, and renders no plan", async () => {
        const file = path.join(dir, "quiet.json");
        fs.writeFileSync(file, JSON.stringify(logFile([{ source: "sts.amazonaws.com", name: "GetCallerIdentity" }])));
        const out = await deployerPolicyCommand([STACK, "--denied", file], {
            root: ROOT,
            render: () => Promise.reject(new Error("rendered")),
        });
        expect(out).to.deep.equal({ code: 0, stdout: `no AccessDenied events in ${file} (1 records read)\n` });
    });

    it("refuses bad input, naming the file and the record: not JSON, neither wrapper, a record without eventName, unreadable", async () => {
        const notJson = await refused("{ not json", "broken.json");
        expect(notJson)
            .to.be.instanceOf(InputError)
            .with.property("message")
            .that.matches(/broken\.json: not JSON/);
        const neither = await refused({ Items: [] }, "neither.json");
        expect(neither.message).to.include('neither.json: neither "Events"');
        const trail = logFile([denied("iam:TagRole", "arn:aws:iam::1:role/x"), { source: "iam.amazonaws.com", name: "TagRole" }]);
        delete trail.Records[1].eventName;
        const noName = await refused(trail, "noname.json");
        expect(noName).to.be.instanceOf(InputError).with.property("message").that.includes("noname.json: Records[1]: no eventName");
        const lookup = { Events: [{ EventId: "e", CloudTrailEvent: "{oops" }] };
        expect((await refused(lookup, "lookup.json")).message).to.include("lookup.json: Events[0]: its CloudTrailEvent is not a record");
        const missing = path.join(dir, "absent.json");
        await deployerPolicyCommand([STACK, "--denied", missing], { root: ROOT, render }).then(
            () => expect.fail("should refuse"),
            (err: Error) =>
                expect(err).to.be.instanceOf(InputError).with.property("message").that.includes(`${missing}: cannot read it (ENOENT)`),
        );
    });

    it("refuses --denied with another policy option", async () => {
        await deployerPolicyCommand([STACK, "--denied", "x.json", "--boundary"], { root: ROOT, render }).then(
            () => expect.fail("should refuse"),
            (err: Error) => expect(err).to.be.instanceOf(InputError).with.property("message").that.includes("--denied <cloudtrail.json>"),
        );
    });

    it("the fixtures: a first up's lookup-events output and a trail's log file (of the frozen dev stack's names)", async () => {
        const dev: DeployerContext = {
            stack: "dev",
            project: "eks-platform",
            partition: "aws",
            account: "123456789012",
            region: "us-east-1",
            clusterName: "platform-dev",
            stateBucket: "org-state",
            principals: ["arn:aws:iam::123456789012:role/platform-deployer-dev"],
        };
        const plan = () => Promise.resolve(planFor(dev));
        const lookup = await deniedEventsCommand(path.join(FIXTURES, "lookup-events.json"), dev, plan);
        expect(lookup.code).to.equal(1);
        expect(lookup.stdout).to.include("7 records read, 6 denied, 1 of another principal skipped");
        expect(lookup.stdout).to.include("2× iam:CreateRole").and.include("only under its condition");
        expect(lookup.stdout).to.include("missing: no statement of the deploy policy allows eks:CreateFargateProfile");
        const log = await deniedEventsCommand(path.join(FIXTURES, "log-file.json"), dev, plan);
        expect(log.code).to.equal(1);
        expect(log.stdout).to.include("by platform-dev-karpenter").and.include("the boundary refuses it: statement NoIdentityChanges");
        expect(log.stdout).to.include("but not on arn:aws:iam::123456789012:role/shared-admin");
    });
});

describe("deniedEvents: messages and event sources", () => {
    it("reads the action, resource and reason of IAM's message forms; EC2's encoded form names none", () => {
        const user =
            "User: arn:aws:sts::1:assumed-role/r/s is not authorized to perform: iam:CreateRole on resource: arn:aws:iam::1:role/x";
        expect(readMessage(`${user} because no identity-based policy allows the iam:CreateRole action`)).to.deep.equal({
            action: "iam:CreateRole",
            resource: "arn:aws:iam::1:role/x",
            reason: "no identity-based policy allows it",
            encoded: false,
        });
        expect(readMessage(`${user} with an explicit deny in a permissions boundary`).reason).to.equal(
            "explicit deny in a permissions boundary",
        );
        expect(readMessage(`${user} because no permissions boundary allows the iam:CreateRole action`).reason).to.equal(
            "no permissions boundary allows it",
        );
        expect(readMessage(`${user} with an explicit deny in a service control policy`).reason).to.equal(
            "explicit deny in a service control policy",
        );
        expect(readMessage(`${user}.`).resource).to.equal("arn:aws:iam::1:role/x");
        expect(
            readMessage("User: u is not authorized to perform: sts:GetCallerIdentity because no identity-based policy allows it"),
        ).to.include({
            action: "sts:GetCallerIdentity",
            resource: undefined,
        });
        expect(readMessage("You are not authorized to perform this operation. Encoded authorization failure message: x")).to.deep.equal({
            action: undefined,
            resource: undefined,
            reason: undefined,
            encoded: true,
        });
    });

    it("maps an event source to its IAM prefix: the endpoint's first label, CloudWatch's monitoring endpoint to cloudwatch", () => {
        expect(actionOf("eks.amazonaws.com", "CreateCluster")).to.equal("eks:CreateCluster");
        expect(actionOf("monitoring.amazonaws.com", "PutMetricAlarm")).to.equal("cloudwatch:PutMetricAlarm");
        expect(actionOf("elasticloadbalancing.amazonaws.com", "CreateLoadBalancer")).to.equal("elasticloadbalancing:CreateLoadBalancer");
        expect(actionOf("s3.amazonaws.com", "GetObject")).to.equal("s3:GetObject");
    });
});

/** A denied call as deniedCalls makes it: of the deploy role unless `more` says whose. */
const callOf = (action: string, resource?: string, more: Partial<DeniedCall> = {}): DeniedCall => ({
    whose: "deploy",
    action,
    resource,
    encoded: false,
    count: 1,
    firstTime: "2025-03-04T10:00:00Z",
    ...more,
});
const KARPENTER = `arn:aws:iam::${ACCOUNT}:role/${PREFIX}karpenter`;
const docOf = (...Statement: PolicyStatement[]): PolicyDocument => ({ Version: "2012-10-17", Statement });
const allow = (
    Sid: string,
    Action: string | string[],
    Resource: string | string[],
    more: Partial<PolicyStatement> = {},
): PolicyStatement => ({
    Sid,
    Effect: "Allow",
    Action,
    Resource,
    ...more,
});
const verdictOf = (call: DeniedCall, ...statements: PolicyStatement[]) => judge(call, docOf(...statements), PLAN, CTX);

describe("deniedEvents: which statements cover a call", () => {
    const covered = (pattern: string | string[], arn: string) =>
        !verdictOf(callOf("s3:GetObject", arn), allow("S", "s3:GetObject", pattern)).refused;

    it("a Resource pattern: `*` any run, `?` one character, every other character literal, names case-sensitive", () => {
        expect(covered("arn:aws:s3:::my.bucket/*", "arn:aws:s3:::my.bucket/a/b:c"), "`*` reaches past / and :").to.equal(true);
        expect(covered("arn:aws:s3:::my.bucket/*", "arn:aws:s3:::myxbucket/a"), "a dot is a dot, not any character").to.equal(false);
        expect(covered("arn:aws:s3:::b/k+(1)", "arn:aws:s3:::b/k+(1)"), "a pattern's regex characters are literal").to.equal(true);
        expect(covered("arn:aws:s3:::b/ab?", "arn:aws:s3:::b/abc"), "`?` is one character").to.equal(true);
        expect(covered("arn:aws:s3:::b/ab?", "arn:aws:s3:::b/abcd"), "`?` is not two characters").to.equal(false);
        expect(covered("arn:aws:s3:::b/ab?", "arn:aws:s3:::b/ab"), "`?` is not none").to.equal(false);
        expect(covered("arn:aws:s3:::b/Ab*", "arn:aws:s3:::b/abc"), "names compare case-sensitively").to.equal(false);
    });

    it("a statement with several Resource patterns covers what any one of them covers", () => {
        expect(covered(["arn:aws:s3:::a/*", "arn:aws:s3:::b/*"], "arn:aws:s3:::b/k"), "the second pattern covers it").to.equal(true);
    });

    it("a NotResource statement covers what none of its patterns covers", () => {
        const notResource = (arn: string) =>
            !verdictOf(callOf("iam:TagRole", arn), {
                Sid: "N",
                Effect: "Allow",
                Action: "iam:TagRole",
                NotResource: ["arn:aws:iam::1:role/admin-*", "arn:aws:iam::1:role/break-glass"],
            }).refused;
        expect(notResource("arn:aws:iam::1:role/app"), "no pattern covers it: the statement does").to.equal(true);
        expect(notResource("arn:aws:iam::1:role/admin-1"), "one pattern covers it: the statement does not").to.equal(false);
    });

    it("a NotAction statement covers the actions none of its patterns covers", () => {
        const fence: PolicyStatement = { Sid: "Fence", Effect: "Deny", NotAction: ["iam:Get*", "iam:List*"], Resource: "*" };
        const role = "arn:aws:iam::1:role/app";
        expect(
            verdictOf(callOf("iam:CreateRole", role), allow("All", "iam:*", "*"), fence).text,
            "CreateRole is outside Get*, List*",
        ).to.match(/^the deploy policy denies it: statement Fence \(/);
        expect(verdictOf(callOf("iam:GetRole", role), allow("All", "iam:*", "*"), fence).refused, "GetRole is within Get*").to.equal(false);
    });

    it("a call whose message names no resource is judged on its action alone: any statement's resources cover it", () => {
        const v = verdictOf(callOf("ec2:CreateVpc", undefined, { encoded: true }), allow("Vpc", "ec2:CreateVpc", "arn:aws:ec2:*:1:vpc/*"));
        expect(v.refused, "allowed on whatever resource").to.equal(false);
        expect(v.text).to.match(/^allowed by the generated policy \(statement Vpc, on whatever resource it was\): /);
        const named = verdictOf(callOf("ec2:CreateVpc", "arn:aws:ec2:r:1:vpc/v"), allow("Vpc", "ec2:CreateVpc", "arn:aws:ec2:*:1:vpc/*"));
        expect(named.text, "a named resource adds nothing to the statement").to.match(
            /^allowed by the generated policy \(statement Vpc\): /,
        );
    });
});

describe("deniedEvents: the verdict's rules", () => {
    const role = `arn:aws:iam::${ACCOUNT}:role/${PREFIX}nodes`;
    const conditional: PolicyStatement = {
        Sid: "Fenced",
        Effect: "Deny",
        Action: "iam:CreateRole",
        Resource: "*",
        Condition: { StringNotEquals: { "iam:PermissionsBoundary": "arn:b" } },
    };
    const all = allow("All", "iam:*", "*");

    it("a Deny without a condition is blamed whatever policy type the message names", () => {
        const v = verdictOf(callOf("iam:CreateRole", role, { reason: "explicit deny in a service control policy" }), all, {
            ...conditional,
            Condition: undefined,
        });
        expect(v, "an unconditional Deny on the call").to.deep.equal({
            refused: true,
            text: "the deploy policy denies it: statement Fenced (tools/roles/deployRole.ts says why): have the role do it another way, or change it there",
        });
    });

    it("a Deny under a condition is blamed when the message names no policy type, or the permissions boundary", () => {
        const none = verdictOf(callOf("iam:CreateRole", role), all, conditional);
        expect(none.text, "no reason: the conditional Deny is blamed, with its condition").to.match(
            /^the deploy policy denies it: statement Fenced when StringNotEquals iam:PermissionsBoundary = arn:b \(tools\/roles\/deployRole\.ts says why\)/,
        );
        const boundary = verdictOf(
            callOf("iam:CreateRole", role, { whose: KARPENTER, reason: "explicit deny in a permissions boundary" }),
            all,
            conditional,
        );
        expect(boundary.text, "the boundary named: its conditional Deny is blamed").to.match(
            /^the boundary refuses it: statement Fenced when /,
        );
    });

    it("a Deny under a condition is not blamed when the message names another policy type: the allowing statement stands", () => {
        const v = verdictOf(callOf("iam:CreateRole", role, { reason: "explicit deny in a service control policy" }), all, conditional);
        expect(v.refused, "an SCP refused it, not the conditional Deny").to.equal(false);
        expect(v.text).to.match(
            /^allowed by the generated policy \(statement All\): the refusal came from elsewhere: explicit deny in a service control policy: /,
        );
    });

    it("a Deny that does not cover the resource neither refuses nor allows: with no Allow the call is missing", () => {
        const elsewhere: PolicyStatement = { Sid: "Other", Effect: "Deny", Action: "eks:*", Resource: "arn:aws:eks:*:1:cluster/other" };
        const v = verdictOf(callOf("eks:CreateFargateProfile", `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/${CLUSTER}`), elsewhere);
        expect(v.text, "no Allow statement: case 1").to.match(
            /^missing: no statement of the deploy policy allows eks:CreateFargateProfile;/,
        );
    });

    it("a role of the stack whose boundary allows no statement of the action: the boundary refuses it", () => {
        expect(verdictOf(callOf("sqs:SendMessage", "arn:aws:sqs:r:1:q", { whose: KARPENTER }), all)).to.deep.equal({
            refused: true,
            text: "the boundary refuses it: none of its statements allows sqs:SendMessage (tools/roles/deployRole.ts, permissionsBoundary)",
        });
    });

    it("outside the statements' resources: one statement, or several, each with its Resource patterns; no hint with a real state bucket", () => {
        const outside = "arn:aws:iam::1:role/shared-admin";
        const one = verdictOf(
            callOf("iam:TagRole", outside),
            allow("Roles", "iam:TagRole", ["arn:aws:iam::1:role/a-*", "arn:aws:iam::1:role/b-*"]),
        );
        expect(one.text, "one statement: singular, its patterns joined").to.equal(
            `statement Roles (on arn:aws:iam::1:role/a-*, arn:aws:iam::1:role/b-*) allows iam:TagRole but not on ${outside}: it is outside the stack's names: name the resource within them, or scope the call in tools/roles/deployRole.ts`,
        );
        const two = verdictOf(
            callOf("iam:TagRole", outside),
            allow("A", "iam:TagRole", "arn:aws:iam::1:role/a-*"),
            allow("B", "iam:Tag*", "arn:aws:iam::1:role/b-*"),
        );
        expect(two.text, "two statements: plural, each with its patterns").to.match(
            /^statements A \(on arn:aws:iam::1:role\/a-\*\), B \(on arn:aws:iam::1:role\/b-\*\) allow iam:TagRole but not on /,
        );
        const s3 = verdictOf(callOf("s3:GetObject", "arn:aws:s3:::other/k"), allow("State", "s3:GetObject", "arn:aws:s3:::org-state/*"));
        expect(s3.text, "a real state bucket: no --state-bucket hint").to.match(/scope the call in tools\/roles\/deployRole\.ts$/);
    });

    it("a NotResource statement the call is outside of is named by what it leaves out", () => {
        const v = verdictOf(callOf("iam:TagRole", "arn:aws:iam::1:role/admin-1"), {
            Sid: "N",
            Effect: "Allow",
            Action: "iam:TagRole",
            NotResource: "arn:aws:iam::1:role/admin-*",
        });
        expect(v.text, "the statement names its NotResource").to.match(
            /^statement N \(on all but arn:aws:iam::1:role\/admin-\*\) allows iam:TagRole but not on /,
        );
    });

    it("the placeholder state bucket: an S3 call outside the statements says to give --state-bucket; other calls do not", () => {
        const placeholder: DeployerContext = { ...CTX, stateBucket: "<state-bucket>" };
        const s3 = judge(
            callOf("s3:GetObject", "arn:aws:s3:::org-state/k"),
            docOf(allow("State", "s3:GetObject", "arn:aws:s3:::<state-bucket>/*")),
            PLAN,
            placeholder,
        );
        expect(s3.text, "an S3 call under the placeholder").to.match(
            /; give --state-bucket: without it the policy names a placeholder bucket$/,
        );
        const iam = judge(
            callOf("iam:TagRole", "arn:aws:iam::1:role/x"),
            docOf(allow("Roles", "iam:TagRole", "arn:aws:iam::1:role/y")),
            PLAN,
            placeholder,
        );
        expect(iam.text, "not an S3 call: no hint").to.not.include("--state-bucket");
    });

    it("only under a condition: each statement's operators, keys and values, and what the request said of the keys CloudTrail records", () => {
        const st = allow("Create", "iam:CreateRole", "*", {
            Condition: {
                StringEquals: { "iam:PermissionsBoundary": "arn:b", "aws:RequestTag/team": "platform" },
                ArnLike: { "iam:PolicyARN": ["arn:p1", "arn:p2"] },
            },
        });
        const v = verdictOf(callOf("iam:CreateRole", role, { requestParameters: { permissionsBoundary: "arn:other" } }), st);
        expect(v).to.deep.equal({
            refused: true,
            text: `statement Create allows iam:CreateRole on ${role} only under its condition StringEquals iam:PermissionsBoundary = arn:b and StringEquals aws:RequestTag/team = platform and ArnLike iam:PolicyARN = arn:p1, arn:p2 (the request's permissionsBoundary: "arn:other", policyArn: none): the request did not meet it; give the resource what the condition requires`,
        });
    });

    it("only under a condition, for a call CloudTrail recorded without parameters (`requestParameters: null`): none said, no crash", () => {
        const st = allow("Create", "iam:CreateRole", "*", { Condition: { StringEquals: { "iam:PermissionsBoundary": "arn:b" } } });
        const v = verdictOf(callOf("iam:CreateRole", role, { requestParameters: null }), st);
        expect(v.text).to.include("(the request's permissionsBoundary: none)");
        expect(v.refused).to.equal(true);
    });

    it("only under a condition on keys CloudTrail does not record: no word of the request; several statements each said, an unnamed resource said so", () => {
        const tagged = (Sid: string) =>
            allow(Sid, "ec2:RunInstances", "*", { Condition: { StringEquals: { "aws:RequestTag/team": Sid } } });
        const v = verdictOf(callOf("ec2:RunInstances", undefined, { encoded: true }), tagged("a"), tagged("b"));
        expect(v.text).to.equal(
            "statement a allows ec2:RunInstances on (the message names no resource) only under its condition StringEquals aws:RequestTag/team = a; " +
                "statement b allows ec2:RunInstances on (the message names no resource) only under its condition StringEquals aws:RequestTag/team = b: the request did not meet it; give the resource what the condition requires",
        );
    });

    it("a statement that allows the call outright on the resource outweighs those that allow it only under a condition", () => {
        const v = verdictOf(
            callOf("iam:CreateRole", role),
            allow("Conditional", "iam:CreateRole", "*", { Condition: { StringEquals: { "iam:PermissionsBoundary": "arn:b" } } }),
            allow("Outright", "iam:CreateRole", "*"),
        );
        expect(v.refused, "the outright statement allows it").to.equal(false);
        expect(v.text, "named for the outright statement").to.match(/^allowed by the generated policy \(statement Outright\): /);
    });
});

describe("deniedEvents: where the refusal came from when the generated document allows the call", () => {
    const cases: [string | undefined, string, string][] = [
        [
            "explicit deny in a service control policy",
            "a policy of the organization, not of this repository: ask its administrators to allow the call in this account",
            "a policy of the organization, not of this repository: ask its administrators to allow the call in this account",
        ],
        [
            "explicit deny in a resource control policy",
            "a policy of the organization, not of this repository: ask its administrators to allow the call in this account",
            "a policy of the organization, not of this repository: ask its administrators to allow the call in this account",
        ],
        [
            "explicit deny in a resource-based policy",
            "not a policy this repository generates: allow the call there",
            "not a policy this repository generates: allow the call there",
        ],
        [
            "explicit deny in a permissions boundary",
            "the deploy role carries none in docs/roles.md: remove it",
            "the boundary in the account differs from the generated one: re-apply the one --boundary prints",
        ],
        [
            "no identity-based policy allows it",
            "the deploy role's policy in the account differs from the generated one: re-apply the one this command prints without --denied",
            "the role's own policy (components/) lacks it",
        ],
    ];
    for (const [reason, deploy, stackRole] of cases) {
        it(`${reason}: what the deploy role's and a stack role's lines say`, () => {
            const all = allow("All", "*", "*");
            const d = verdictOf(callOf("eks:DescribeCluster", "arn:aws:eks:r:1:cluster/c", { reason }), all);
            expect(d, "the deploy role").to.deep.equal({
                refused: false,
                text: `allowed by the generated policy (statement All): the refusal came from elsewhere: ${reason}: ${deploy}`,
            });
            const s = verdictOf(callOf("eks:DescribeCluster", "arn:aws:eks:r:1:cluster/c", { reason, whose: KARPENTER }), all);
            expect(s, "a role of the stack").to.deep.equal({
                refused: false,
                text: `allowed by the generated boundary (statement All): the refusal came from elsewhere: ${reason}: ${stackRole}`,
            });
        });
    }

    it("a message that names no policy: compare and re-apply, or decode EC2's encoded one", () => {
        const all = allow("All", "*", "*");
        expect(verdictOf(callOf("eks:DescribeCluster", "arn:aws:eks:r:1:cluster/c"), all).text, "a plain message").to.match(
            /: the refusal came from elsewhere: the message does not say which policy: compare the policy in the account with the generated one and re-apply it$/,
        );
        expect(verdictOf(callOf("ec2:CreateVpc", undefined, { encoded: true }), all).text, "an encoded message").to.match(
            /: the refusal came from elsewhere: the message is encoded: `aws sts decode-authorization-message --encoded-message <message>` says which policy refused it$/,
        );
    });
});

describe("deniedEvents: where a missing action goes in tools/roles/deployerActions.ts", () => {
    const missingIn = (action: string, types: string[]) =>
        judge(
            callOf(action, undefined, { encoded: true }),
            docOf(),
            types.map((type, i) => ({ type, name: `r${i}`, props: {} })),
            CTX,
        ).text;
    const where = (text: string) => /add it to (.*) in tools\/roles\/deployerActions\.ts$/.exec(text)?.[1];

    it("the plan's types that call the action's noun in its service, not the service's other types; types it does not know are passed over", () => {
        const text = missingIn("ec2:DeleteLaunchTemplateVersions", [
            "pulumi:pulumi:Stack",
            "aws:ec2/vpc:Vpc",
            "aws:ec2/launchTemplate:LaunchTemplate",
            "aws:ec2/subnet:Subnet",
        ]);
        expect(where(text), "LaunchTemplate calls ec2:DescribeLaunchTemplateVersions").to.equal(
            "the entry of aws:ec2/launchTemplate:LaunchTemplate",
        );
    });

    it("the noun counts only in the action's service: a type calling it in another service is not singled out", () => {
        // NodeGroup calls eks:CreateNodegroup and some ec2 actions; the Vpc calls ec2 actions only.
        const text = missingIn("ec2:DescribeNodegroup", ["aws:ec2/vpc:Vpc", "aws:eks/nodeGroup:NodeGroup"]);
        expect(where(text), "both call ec2, neither an ec2 action of the noun").to.equal(
            "the entry of aws:ec2/vpc:Vpc or aws:eks/nodeGroup:NodeGroup",
        );
    });

    it("no type calls the noun: the plan's types of the service, sorted, not those of other services; past three, a count of the rest", () => {
        const three = missingIn("ec2:CreateCapacityReservation", [
            "aws:ec2/vpc:Vpc",
            "aws:iam/role:Role",
            "aws:ec2/subnet:Subnet",
            "aws:ec2/eip:Eip",
        ]);
        expect(where(three), "three ec2 types, sorted; the role calls no ec2").to.equal(
            "the entry of aws:ec2/eip:Eip or aws:ec2/subnet:Subnet or aws:ec2/vpc:Vpc",
        );
        const five = missingIn("ec2:CreateCapacityReservation", [
            "aws:ec2/vpc:Vpc",
            "aws:iam/role:Role",
            "aws:ec2/subnet:Subnet",
            "aws:ec2/eip:Eip",
            "aws:ec2/routeTable:RouteTable",
            "aws:ec2/internetGateway:InternetGateway",
        ]);
        expect(where(five), "five ec2 types: the first three, then how many more").to.equal(
            "the entry of aws:ec2/eip:Eip or aws:ec2/internetGateway:InternetGateway or aws:ec2/routeTable:RouteTable or 2 more of the plan's ec2 types",
        );
    });

    it("no type of the plan calls the service: the entry of the type that makes the call", () => {
        expect(where(missingIn("sqs:SendMessage", ["aws:ec2/vpc:Vpc"])), "no sqs type in the plan").to.equal(
            "the entry of the plan's type that makes this call",
        );
    });
});

describe("deniedEvents: reading the records", () => {
    const parsed = (doc: unknown) => () => parseTrail("f.json", JSON.stringify(doc));

    it("a document that is no object with Events or Records: neither wrapper", () => {
        for (const doc of [null, 5, [], "x"]) {
            expect(parsed(doc), `a document ${JSON.stringify(doc)}`).to.throw(InputError, 'f.json: neither "Events"');
        }
    });

    it("an entry that is no object: no record, in a log file and in lookup-events' CloudTrailEvent", () => {
        for (const entry of ["x", null, [], 5]) {
            expect(parsed({ Records: [entry] }), `a log file's entry ${JSON.stringify(entry)}`).to.throw(
                InputError,
                "f.json: Records[0]: no record:",
            );
            expect(parsed({ Events: [{ CloudTrailEvent: JSON.stringify(entry) }] }), `a CloudTrailEvent ${JSON.stringify(entry)}`).to.throw(
                InputError,
                "f.json: Events[0]: no record:",
            );
        }
        expect(parsed({ Events: [null] }), "a lookup-events entry that is no object").to.throw(
            InputError,
            "f.json: Events[0]: its CloudTrailEvent is not a record",
        );
        expect(parsed({ Events: [{}] }), "a lookup-events entry without CloudTrailEvent").to.throw(
            InputError,
            "f.json: Events[0]: its CloudTrailEvent is not a record",
        );
    });

    it("counts as denied the refused authorizations' error codes only, whole", () => {
        const codes = [
            "AccessDenied",
            "AccessDeniedException",
            "Client.UnauthorizedOperation",
            "UnauthorizedOperation",
            "UnauthorizedAccess",
            "AuthorizationError",
            "AuthorizationErrorException",
        ];
        const others = ["KMSAccessDeniedException", "AccessDeniedForDependencyException", "ThrottlingException", undefined];
        for (const code of [...codes, ...others]) {
            const r = { ...record({ source: "eks.amazonaws.com", name: "DescribeCluster" }), errorCode: code } as unknown as TrailRecord;
            expect(deniedCalls([r], CTX).denied, `error code ${code}`).to.equal(codes.includes(code as string) ? 1 : 0);
        }
    });

    it("whose: only the deploy role and the account's roles named under the stack's prefix; users, other accounts' roles and records without an identity are skipped", () => {
        const base = { eventSource: "eks.amazonaws.com", eventName: "DescribeCluster", errorCode: "AccessDenied" };
        const others: TrailRecord[] = [
            base,
            { ...base, userIdentity: { arn: `arn:aws:iam::${ACCOUNT}:user/${PREFIX}ci` } },
            { ...base, userIdentity: { arn: `arn:aws:iam::${ACCOUNT}:user/${PREFIX}ci`, sessionContext: {} } },
            { ...base, userIdentity: { sessionContext: { sessionIssuer: { arn: `arn:aws:iam::999999999999:role/${PREFIX}nodes` } } } },
        ];
        expect(deniedCalls(others, CTX), "none of the stack's principals").to.deep.include({ denied: 4, skipped: 4, calls: [] });
        const own = {
            ...base,
            userIdentity: { sessionContext: { sessionIssuer: { arn: `arn:aws:iam::${ACCOUNT}:role/ci/${PREFIX}nodes` } } },
        };
        expect(
            deniedCalls([own], CTX).calls.map((c) => c.whose),
            "a role of the stack, under a path",
        ).to.deep.equal([`arn:aws:iam::${ACCOUNT}:role/ci/${PREFIX}nodes`]);
    });

    it("one call per principal, action and resource; counted; its first record (oldest) gives its time and request, whatever the file's order", () => {
        const at = (time: string, resource = `arn:aws:iam::${ACCOUNT}:role/${PREFIX}a`) =>
            ({ ...record({ ...denied("iam:TagRole", resource), params: { time } }), eventTime: time }) as unknown as TrailRecord;
        for (const order of [
            [at("2025-03-04T10:01:00Z"), at("2025-03-04T10:05:00Z")],
            [at("2025-03-04T10:05:00Z"), at("2025-03-04T10:01:00Z")],
        ]) {
            const [call, ...rest] = deniedCalls(order, CTX).calls;
            expect(rest, "one call").to.deep.equal([]);
            expect(call, "its count, first time and first request").to.deep.include({
                count: 2,
                firstTime: "2025-03-04T10:01:00Z",
                requestParameters: { time: "2025-03-04T10:01:00Z" },
            });
        }
        const two = deniedCalls([at("2025-03-04T10:01:00Z"), at("2025-03-04T10:02:00Z", `arn:aws:iam::${ACCOUNT}:role/${PREFIX}b`)], CTX);
        expect(
            two.calls.map((c) => c.resource),
            "another resource: another call",
        ).to.deep.equal([`arn:aws:iam::${ACCOUNT}:role/${PREFIX}a`, `arn:aws:iam::${ACCOUNT}:role/${PREFIX}b`]);
    });

    it("a record without a time is taken as the oldest: its call's first time reads (no time)", () => {
        const timed = record({ ...denied("iam:TagRole", `arn:aws:iam::${ACCOUNT}:role/${PREFIX}a`), time: "2025-03-04T10:01:00Z" });
        const untimed = { ...timed, eventTime: undefined };
        for (const order of [
            [timed, untimed],
            [untimed, timed],
        ]) {
            expect(deniedCalls(order as unknown as TrailRecord[], CTX).calls[0].firstTime, "the untimed record first").to.equal(
                "(no time)",
            );
        }
    });
});

describe("deniedEvents: the report", () => {
    const cluster = `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/${CLUSTER}`;

    it("a header, one line per call (a role of the stack named, the deploy role not), a summary, each on its own line", () => {
        const found = deniedCalls(
            [
                record(denied("eks:CreateFargateProfile", cluster)),
                record(denied("sqs:SendMessage", "arn:aws:sqs:r:1:q", undefined, KARPENTER)),
            ] as unknown as TrailRecord[],
            CTX,
        );
        const out = deniedReport("f.json", 2, found, { deploy: DEPLOY, plan: PLAN }, CTX);
        const lines = out.stdout.split("\n");
        expect(lines, "header, two calls, summary, and the final newline").to.have.length(5);
        expect(lines[0]).to.match(/^f\.json: 2 records read, 2 denied, 0 of another principal skipped/);
        expect(lines[1], "the deploy role's line").to.match(
            new RegExp(`^  1× eks:CreateFargateProfile on ${cluster}, first at 2025-03-04T10:00:00Z: missing: `),
        );
        expect(lines[2], "a stack role's line").to.match(
            new RegExp(`^  1× sqs:SendMessage on arn:aws:sqs:r:1:q by ${PREFIX}karpenter, first at `),
        );
        expect(lines[3]).to.match(/^2 of 2 calls refused by the generated policies/);
        expect(lines[4]).to.equal("");
    });

    it("only other principals' refusals: says so, exit 0, and renders no plan", async () => {
        const other = `arn:aws:iam::${ACCOUNT}:role/platform-preview-${STACK}`;
        const file = path.join(dir, "others.json");
        fs.writeFileSync(file, JSON.stringify(logFile([denied("iam:CreateRole", `arn:aws:iam::${ACCOUNT}:role/x`, undefined, other)])));
        const out = await deniedEventsCommand(file, CTX, () => Promise.reject(new Error("rendered")));
        expect(out.code).to.equal(0);
        expect(out.stdout.split("\n").slice(1), "the summary").to.deep.equal([
            "no denied call of the deploy role or of the stack's roles: the file holds other principals' refusals only",
            "",
        ]);
    });

    it("only the stack's roles' calls: judged against the boundary without rendering the plan", async () => {
        const file = path.join(dir, "roles.json");
        fs.writeFileSync(file, JSON.stringify(logFile([denied("sqs:SendMessage", "arn:aws:sqs:r:1:q", undefined, KARPENTER)])));
        const out = await deniedEventsCommand(file, CTX, () => Promise.reject(new Error("rendered")));
        expect(out.stdout, "the boundary's verdict").to.include("the boundary refuses it: none of its statements allows sqs:SendMessage");
    });

    it("only a file that starts with gzip's two magic bytes is gunzipped: one that starts with either alone is read as text", async () => {
        for (const bytes of [
            [0x1f, 0x7b],
            [0x7b, 0x8b],
        ]) {
            const err = await refused(Buffer.from(bytes), "magic.json");
            expect(err.message, `bytes ${bytes.join(", ")}`).to.match(/magic\.json: not JSON/);
        }
    });
});
