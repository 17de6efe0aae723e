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
import type { PolicyDocument, PolicyStatement } from "../../components/iam";
import { actionOf, deniedEventsCommand, readMessage } from "../../tools/deniedEvents";
import {
    boundaryArn,
    deployerContext,
    type DeployerContext,
    deployerPolicy,
    permissionsBoundary,
    type PlannedResource,
} from "../../tools/deployRole";
import { deployerPolicyCommand } from "../../tools/deployerPolicy";
import { InputError } from "../../tools/errors";
import { ROOT } from "../mocks";
import { stacks } from "../stackFiles";

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
        expect(out.stdout).to.include("aws:eks/nodeGroup:NodeGroup").and.include("in tools/deployerActions.ts");
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
        expect(out.stdout).to.include("2× eks:CreateFargateProfile").and.include("first at 2025-03-04T10:01:00Z");
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
