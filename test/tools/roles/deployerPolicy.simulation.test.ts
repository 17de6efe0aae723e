/**
 * The deploy path of every stack, decided by an IAM evaluator (test/tools/simulate.ts): the calls
 * a first `up` makes, with the stack's real ARNs and request context, are allowed to the deploy
 * role; the Pulumi DIY backend's object calls to the deploy, preview and drift roles; what every
 * role of the stack is granted (managed and inline policies) fits under its permissions boundary;
 * and a role minted under that boundary, whatever its own policy says, reaches no escalation and
 * nothing of another stack. Each stack's plan renders in a process of its own (test/mocks.ts
 * `planOf`).
 */
import { expect } from "chai";
import { stackNamePrefix } from "eks-platform-kernel";
import type { PolicyDocument, PolicyStatement } from "../../../components/iam";
import { MANAGED_POLICIES } from "../../../tools/roles/data/managedPolicies";
import { DEPLOYER_ACTIONS, DEPLOYER_INVOKES } from "../../../tools/roles/deployerActions";
import {
    boundaryArn,
    type DeployerContext,
    deployerContext,
    deployerPolicy,
    driftPolicy,
    permissionsBoundary,
    type PlannedResource,
    previewPolicy,
} from "../../../tools/roles/deployRole";
import { planOf, ROOT } from "../../mocks";
import { stacks } from "../../stackFiles";
import { accepts, decide, expandAction, type IamRequest, resourceFor } from "../simulate";

const BUCKET = "org-pulumi-state";
const ALLOW_ALL: PolicyDocument = { Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: "*", Resource: "*" }] };
const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Names that stand in for a stack's own resources in an ARN template (test/tools/simulate.ts `resourceFor`). */
function stackNames(ctx: DeployerContext): Record<string, string> {
    const { partition, region, account, clusterName: c } = ctx;
    const prefix = stackNamePrefix(c);
    return {
        Partition: partition,
        Region: region,
        Account: account,
        ClusterName: c,
        RoleNameWithPath: `${prefix}node`,
        RoleName: `${prefix}node`,
        InstanceProfileNameWithPath: `karpenter/${region}/${c}/uid1/${c}_1`,
        QueueName: `${prefix}karpenter`,
        AutoScalingGroupName: `${prefix}system`,
        GroupFriendlyName: `${prefix}system`,
        LogGroupName: `/aws/vpc/${c}/flow-logs`,
        // AWS's public parameters (AMI releases): what the stack's roles read.
        ParameterNameWithoutLeadingSlash: "aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/standard/recommended/image_id",
    };
}

/** `resourceFor`, with AWS's public parameters in no account (their ARN has none: `arn:aws:ssm:<region>::parameter/aws/service/…`). */
async function stackResource(action: string, names: Record<string, string>): Promise<string> {
    const arn = await resourceFor(action, names);
    return arn.replace(/^(arn:[^:]+:ssm:[^:]*:)[^:]*(:parameter\/aws\/service\/)/, "$1$2");
}

/**
 * An ARN of a statement's resource pattern for one request: the stack's region and account, `x1`
 * for each wildcard of the name; an instance profile any name would do is one Karpenter makes
 * (its tag conditions pick its own: under `/karpenter/<region>/<cluster>/`, Karpenter v1.14.1).
 */
function concrete(pattern: string, ctx: DeployerContext): string {
    const parts = pattern.split(":");
    if (parts.length < 6) {
        return pattern;
    }
    parts[3] = parts[3] === "*" ? ctx.region : parts[3];
    parts[4] = parts[4] === "*" ? ctx.account : parts[4];
    if (parts[5] === "instance-profile/*") {
        parts[5] = `instance-profile/${stackNames(ctx).InstanceProfileNameWithPath}`;
    }
    return parts.join(":").replace(/\*/g, "x1");
}

/** The context a request of `action` carries when a stack role makes it: a KMS key of the stack carries its tag (components/iam.ts). */
function roleContext(action: string, resource: string, ctx: DeployerContext): Record<string, string> {
    if (/^arn:[^:]+:kms:[^:]*:[^:]*:key\//.test(resource)) {
        return { "aws:ResourceTag/platform/cluster": ctx.clusterName };
    }
    if (action === "iam:PassRole") {
        return { "iam:PassedToService": "ec2.amazonaws.com" };
    }
    if (action === "iam:CreateServiceLinkedRole") {
        return { "iam:AWSServiceName": /aws-service-role\/([^/]+)\//.exec(resource)?.[1] ?? "elasticloadbalancing.amazonaws.com" };
    }
    return {};
}

/** Each (action, resource) a policy's Allow statements grant, wildcards expanded, on the stack's own names. */
async function grantedRequests(statements: readonly PolicyStatement[], ctx: DeployerContext): Promise<IamRequest[]> {
    const out: IamRequest[] = [];
    for (const st of statements.filter((s) => s.Effect === "Allow")) {
        for (const pattern of list(st.Action)) {
            for (const action of await expandAction(pattern)) {
                for (const r of list(st.Resource)) {
                    const resource =
                        r !== "*"
                            ? concrete(r, ctx)
                            : action === "iam:CreateServiceLinkedRole"
                              ? `arn:${ctx.partition}:iam::${ctx.account}:role/aws-service-role/elasticloadbalancing.amazonaws.com/AWSServiceRoleForElasticLoadBalancing`
                              : await stackResource(action, stackNames(ctx));
                    // A statement lists the resources of all its actions; each action is asked about its own.
                    if (r === "*" || (await accepts(action, resource))) {
                        out.push({ action, resource, context: roleContext(action, resource, ctx) });
                    }
                }
            }
        }
    }
    return out;
}

/**
 * Calls the boundary refuses on purpose although a managed policy grants them, each with why:
 * AmazonSSMManagedInstanceCore lets a node read every parameter of the account; the boundary keeps
 * the stack's roles to AWS's public ones (another stack's SecureString is no node's business).
 */
const CUT_ON_PURPOSE: Readonly<Record<string, string>> = {
    "ssm:GetParameter": "an account parameter (the boundary allows AWS's public ones only)",
    "ssm:GetParameters": "an account parameter (the boundary allows AWS's public ones only)",
};

async function refusals(requests: readonly IamRequest[], identity: PolicyDocument, principal: string, boundary?: PolicyDocument) {
    const refused: string[] = [];
    for (const request of requests) {
        const decision = await decide(request, identity, principal, boundary);
        if (decision !== "Allowed") {
            refused.push(`${request.action} on ${request.resource} ${JSON.stringify(request.context ?? {})}: ${decision}`);
        }
    }
    return refused;
}

describe("the deploy path, decided by an IAM evaluator: every stack of the repository", () => {
    for (const stack of stacks()) {
        describe(`stack ${stack}`, () => {
            let ctx: DeployerContext;
            let plan: PlannedResource[];
            let boundary: PolicyDocument;
            let minted: string;
            before(async () => {
                ctx = deployerContext(ROOT, stack, BUCKET);
                plan = (await planOf(stack)).resources;
                boundary = permissionsBoundary(ctx);
                minted = `arn:${ctx.partition}:iam::${ctx.account}:role/${stackNamePrefix(ctx.clusterName)}minted`;
            });

            it("lets each role of the stack do what its AWS-managed policies grant, under the boundary (but the cuts made on purpose)", async () => {
                const attached = new Set(
                    plan
                        .filter((r) => r.type === "aws:iam/rolePolicyAttachment:RolePolicyAttachment")
                        .map((r) => String(r.props.policyArn)),
                );
                const policies = Object.values(MANAGED_POLICIES).filter((m) => attached.has(m.arn.replace(":aws:", `:${ctx.partition}:`)));
                // An AWS-managed policy tools/roles/data/managedPolicies.ts does not hold is one the boundary was not judged against:
                // named here. A team's own (policyArns) `deployer-policy --boundary` names as not modelled.
                const known = new Set(policies.map((m) => m.arn.replace(":aws:", `:${ctx.partition}:`)));
                expect(
                    [...attached].filter((arn) => /:iam::aws:policy\//.test(arn) && !known.has(arn)),
                    "AWS-managed policies without facts in tools/roles/data/managedPolicies.ts",
                ).to.deep.equal([]);
                const statements = policies.flatMap((m) =>
                    m.allows.map((a) => ({ Effect: "Allow" as const, Action: [...a.actions], Resource: [...a.resources] })),
                );
                const requests = await grantedRequests(statements, ctx);
                const allowAll: PolicyDocument = { Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: "*", Resource: "*" }] };
                const refused = await refusals(requests, allowAll, minted, boundary);
                expect(refused.filter((r) => CUT_ON_PURPOSE[r.split(" ")[0]] === undefined)).to.deep.equal([]);
                // What is cut is cut only where the table says: AWS's public parameters stay readable.
                for (const action of Object.keys(CUT_ON_PURPOSE)) {
                    const request = { action, resource: await stackResource(action, stackNames(ctx)) };
                    expect(await decide(request, allowAll, minted, boundary), action).to.equal("Allowed");
                }
            });

            it("lets each role of the stack do what its inline policies grant, under the boundary", async () => {
                const inline = plan.filter(
                    (r) =>
                        r.type === "aws:iam/rolePolicy:RolePolicy" && typeof r.props.policy === "string" && r.props.policy.startsWith("{"),
                );
                expect(inline.length).to.be.greaterThan(0);
                for (const r of inline) {
                    const doc = JSON.parse(String(r.props.policy)) as PolicyDocument;
                    // The boundary's decision alone: the role's own conditions are its own business.
                    const refused = await refusals(await grantedRequests(doc.Statement, ctx), ALLOW_ALL, minted, boundary);
                    expect(refused, r.name).to.deep.equal([]);
                }
            });

            it("denies a role minted under the boundary, whatever its own policy grants, every escalation and everything of another stack", async () => {
                const { partition: p, account: a, region: r, clusterName: c } = ctx;
                const others = [
                    ...stacks()
                        .filter((s) => s !== stack)
                        .map((s) => deployerContext(ROOT, s).clusterName),
                    "platform-other",
                ];
                const allowAll: PolicyDocument = { Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: "*", Resource: "*" }] };
                const role = (name: string) => `arn:${p}:iam::${a}:role/${name}`;
                const escalations: IamRequest[] = [
                    {
                        action: "iam:AttachRolePolicy",
                        resource: role(`${c}-node`),
                        context: { "iam:PolicyARN": `arn:${p}:iam::aws:policy/AdministratorAccess` },
                    },
                    { action: "iam:CreateRole", resource: role(`${c}-escape`) },
                    { action: "iam:PutRolePolicy", resource: role(`${c}-karpenter-controller`) },
                    { action: "iam:DeleteRolePermissionsBoundary", resource: role(`${c}-node`) },
                    { action: "iam:PutRolePermissionsBoundary", resource: role(`${c}-node`) },
                    { action: "iam:CreatePolicyVersion", resource: boundaryArn(ctx) },
                    { action: "iam:UpdateAssumeRolePolicy", resource: ctx.principals[0] },
                    { action: "iam:PutRolePolicy", resource: ctx.principals[0] },
                    { action: "iam:CreateUser", resource: `arn:${p}:iam::${a}:user/escape` },
                    { action: "iam:CreateAccessKey", resource: `arn:${p}:iam::${a}:user/admin` },
                    { action: "iam:PassRole", resource: role("admin"), context: { "iam:PassedToService": "ec2.amazonaws.com" } },
                    {
                        action: "iam:PassRole",
                        resource: role(`${c}-control-plane`),
                        context: { "iam:PassedToService": "lambda.amazonaws.com" },
                    },
                    { action: "sts:AssumeRole", resource: role("admin") },
                    { action: "sts:AssumeRole", resource: ctx.principals[0] },
                    {
                        action: "iam:CreateServiceLinkedRole",
                        resource: role("aws-service-role/ssm.amazonaws.com/AWSServiceRoleForAmazonSSM"),
                        context: { "iam:AWSServiceName": "ssm.amazonaws.com" },
                    },
                    { action: "ssm:SendCommand", resource: `arn:${p}:ec2:${r}:${a}:instance/i-1` },
                    { action: "ssm:StartSession", resource: `arn:${p}:ec2:${r}:${a}:instance/i-1` },
                    { action: "lambda:CreateFunction", resource: `arn:${p}:lambda:${r}:${a}:function:escape` },
                    { action: "lambda:UpdateFunctionCode", resource: `arn:${p}:lambda:${r}:${a}:function:anything` },
                    { action: "cloudformation:CreateStack", resource: `arn:${p}:cloudformation:${r}:${a}:stack/escape/x1` },
                    { action: "organizations:LeaveOrganization", resource: "*" },
                    { action: "secretsmanager:GetSecretValue", resource: `arn:${p}:secretsmanager:${r}:${a}:secret:prod-db-x1` },
                    { action: "s3:GetObject", resource: `arn:${p}:s3:::${BUCKET}/.pulumi/stacks/${ctx.project}/${stack}.json` },
                    { action: "s3:PutObject", resource: `arn:${p}:s3:::${BUCKET}/.pulumi/meta.yaml` },
                    {
                        action: "kms:Decrypt",
                        resource: `arn:${p}:kms:${r}:${a}:key/k1`,
                        context: { "kms:ResourceAliases": [`alias/${ctx.project}-${stack}-secrets`] },
                    },
                    { action: "kms:PutKeyPolicy", resource: `arn:${p}:kms:${r}:${a}:key/k1` },
                    ...others.map((o) => ({
                        action: "kms:Decrypt",
                        resource: `arn:${p}:kms:${r}:${a}:key/k2`,
                        context: { "aws:ResourceTag/platform/cluster": o },
                    })),
                    { action: "kms:CreateGrant", resource: `arn:${p}:kms:${r}:${a}:key/untagged` },
                    { action: "kms:ScheduleKeyDeletion", resource: `arn:${p}:kms:${r}:${a}:key/k1` },
                    { action: "eks:CreateAccessEntry", resource: `arn:${p}:eks:${r}:${a}:cluster/${c}` },
                    { action: "eks:AssociateAccessPolicy", resource: `arn:${p}:eks:${r}:${a}:access-entry/${c}/role/${a}/escape/x1` },
                    { action: "eks:UpdateClusterConfig", resource: `arn:${p}:eks:${r}:${a}:cluster/${c}` },
                    ...others.flatMap((o) => [
                        { action: "eks:DescribeCluster", resource: `arn:${p}:eks:${r}:${a}:cluster/${o}` },
                        { action: "eks:CreateAccessEntry", resource: `arn:${p}:eks:${r}:${a}:cluster/${o}` },
                        { action: "iam:PassRole", resource: role(`${o}-node`), context: { "iam:PassedToService": "ec2.amazonaws.com" } },
                        {
                            action: "iam:CreateInstanceProfile",
                            resource: `arn:${p}:iam::${a}:instance-profile/karpenter/${r}/${o}/uid1/${o}_1`,
                        },
                        { action: "sqs:ReceiveMessage", resource: `arn:${p}:sqs:${r}:${a}:${o}-karpenter` },
                        {
                            action: "autoscaling:UpdateAutoScalingGroup",
                            resource: `arn:${p}:autoscaling:${r}:${a}:autoScalingGroup:x1:autoScalingGroupName/${o}-system`,
                        },
                        { action: "s3:GetObject", resource: `arn:${p}:s3:::${BUCKET}/.pulumi/stacks/${ctx.project}/${o}.json` },
                    ]),
                ];
                const allowed: string[] = [];
                for (const request of escalations) {
                    if ((await decide(request, allowAll, minted, boundary)) === "Allowed") {
                        allowed.push(`${request.action} on ${request.resource}`);
                    }
                }
                expect(allowed).to.deep.equal([]);
            });

            it("denies the deploy role itself every way out of its stack: roles without the boundary, foreign roles and clusters, itself, the boundary", async () => {
                const { partition: p, account: a, region: r, clusterName: c } = ctx;
                const deploy = deployerPolicy(plan, ctx);
                const others = [
                    ...stacks()
                        .filter((s) => s !== stack)
                        .map((s) => deployerContext(ROOT, s).clusterName),
                    "platform-other",
                ];
                const role = (name: string) => `arn:${p}:iam::${a}:role/${name}`;
                const bounded = { "iam:PermissionsBoundary": boundaryArn(ctx) };
                const escapes: IamRequest[] = [
                    { action: "iam:CreateRole", resource: role(`${c}-escape`) },
                    {
                        action: "iam:CreateRole",
                        resource: role(`${c}-escape`),
                        context: { "iam:PermissionsBoundary": `arn:${p}:iam::${a}:policy/x1-boundary` },
                    },
                    { action: "iam:CreateRole", resource: role("escape"), context: bounded },
                    {
                        action: "iam:AttachRolePolicy",
                        resource: role(`${c}-node`),
                        context: { ...bounded, "iam:PolicyARN": `arn:${p}:iam::aws:policy/AdministratorAccess` },
                    },
                    { action: "iam:DeleteRolePermissionsBoundary", resource: role(`${c}-node`), context: bounded },
                    { action: "iam:PutRolePolicy", resource: ctx.principals[0] },
                    {
                        action: "iam:AttachRolePolicy",
                        resource: ctx.principals[0],
                        context: { "iam:PolicyARN": `arn:${p}:iam::aws:policy/AdministratorAccess` },
                    },
                    { action: "iam:UpdateAssumeRolePolicy", resource: ctx.principals[0] },
                    { action: "iam:CreatePolicyVersion", resource: boundaryArn(ctx) },
                    { action: "iam:SetDefaultPolicyVersion", resource: boundaryArn(ctx) },
                    { action: "iam:PassRole", resource: role("admin"), context: { "iam:PassedToService": "ec2.amazonaws.com" } },
                    {
                        action: "iam:PassRole",
                        resource: role(`${c}-control-plane`),
                        context: { "iam:PassedToService": "lambda.amazonaws.com" },
                    },
                    {
                        action: "kms:Decrypt",
                        resource: `arn:${p}:kms:${r}:${a}:key/k1`,
                        context: { "kms:ResourceAliases": [`alias/${ctx.project}-other-secrets`] },
                    },
                    {
                        action: "kms:TagResource",
                        resource: `arn:${p}:kms:${r}:${a}:key/k1`,
                        context: {
                            "aws:RequestTag/platform/cluster": c,
                            "aws:TagKeys": ["platform/cluster"],
                            "aws:ResourceTag/platform/cluster": "x1",
                        },
                    },
                    { action: "sts:AssumeRole", resource: role("admin") },
                    { action: "ssm:SendCommand", resource: `arn:${p}:ec2:${r}:${a}:instance/i-1` },
                    { action: "lambda:CreateFunction", resource: `arn:${p}:lambda:${r}:${a}:function:escape` },
                    { action: "cloudformation:CreateStack", resource: `arn:${p}:cloudformation:${r}:${a}:stack/escape/x1` },
                    { action: "organizations:LeaveOrganization", resource: "*" },
                    ...others.flatMap((o) => [
                        { action: "eks:CreateAccessEntry", resource: `arn:${p}:eks:${r}:${a}:cluster/${o}` },
                        { action: "eks:AssociateAccessPolicy", resource: `arn:${p}:eks:${r}:${a}:access-entry/${o}/role/${a}/x1/x1` },
                        { action: "eks:DeleteCluster", resource: `arn:${p}:eks:${r}:${a}:cluster/${o}` },
                        { action: "iam:PutRolePolicy", resource: role(`${o}-node`), context: bounded },
                        { action: "sqs:DeleteQueue", resource: `arn:${p}:sqs:${r}:${a}:${o}-karpenter` },
                    ]),
                ];
                const allowed: string[] = [];
                for (const request of escapes) {
                    if ((await decide(request, deploy, ctx.principals[0])) === "Allowed") {
                        allowed.push(`${request.action} on ${request.resource} ${JSON.stringify(request.context ?? {})}`);
                    }
                }
                expect(allowed).to.deep.equal([]);
            });

            it("lets the deploy role make each call the provider makes for each resource of the plan, on its own ARN and context", async () => {
                const deploy = deployerPolicy(plan, ctx);
                const refused: string[] = [];
                for (const r of plan) {
                    const entry = DEPLOYER_ACTIONS[r.type];
                    if (entry === undefined) {
                        continue;
                    }
                    const actions = [...entry.actions, ...Object.values(entry.also ?? {}).flat()];
                    for (const action of actions) {
                        const request = await deployRequest(action, r, ctx);
                        if ((await decide(request, deploy, ctx.principals[0])) !== "Allowed") {
                            refused.push(`${r.type} "${r.name}": ${action} on ${request.resource} ${JSON.stringify(request.context)}`);
                        }
                    }
                    if (entry.passesRole !== undefined) {
                        const request = {
                            action: "iam:PassRole",
                            resource: `arn:${ctx.partition}:iam::${ctx.account}:role/${stackNamePrefix(ctx.clusterName)}node`,
                            context: { "iam:PassedToService": entry.passesRole },
                        };
                        if ((await decide(request, deploy, ctx.principals[0])) !== "Allowed") {
                            refused.push(`${r.type} "${r.name}": iam:PassRole to ${entry.passesRole}`);
                        }
                    }
                }
                for (const invoke of DEPLOYER_INVOKES) {
                    for (const action of invoke.actions) {
                        const request = {
                            action,
                            resource: await stackResource(action, {
                                ...stackNames(ctx),
                                RoleNameWithPath: "aws-service-role/eks.amazonaws.com/AWSServiceRoleForAmazonEKS",
                            }),
                        };
                        if ((await decide(request, deploy, ctx.principals[0])) !== "Allowed") {
                            refused.push(`${invoke.source}: ${action} on ${request.resource}`);
                        }
                    }
                }
                expect(refused).to.deep.equal([]);
            });

            it("lets the deploy, preview and drift roles make the Pulumi DIY backend's object calls, and none on another stack's state", async () => {
                const refused: string[] = [];
                const allowed: string[] = [];
                const roles: [string, PolicyDocument, "write" | "read"][] = [
                    ["deploy", deployerPolicy(plan, ctx), "write"],
                    ["preview", previewPolicy(ctx), "read"],
                    ["drift", driftPolicy(plan, ctx), "read"],
                ];
                for (const [kind, policy, access] of roles) {
                    for (const call of backendCalls(ctx.project, stack).filter((x) => access === "write" || x.read)) {
                        if ((await decide(backendRequest(call, ctx), policy, ctx.principals[0])) !== "Allowed") {
                            refused.push(`${kind}: ${call.action} ${call.object ?? call.prefix} (${call.source})`);
                        }
                    }
                    for (const other of [...stacks().filter((s) => s !== stack), "other"]) {
                        for (const call of backendCalls(ctx.project, other)) {
                            if (call.stackOwn && (await decide(backendRequest(call, ctx), policy, ctx.principals[0])) === "Allowed") {
                                allowed.push(`${kind}: ${call.action} ${call.object ?? call.prefix}`);
                            }
                        }
                    }
                }
                expect(refused, "refused").to.deep.equal([]);
                expect(allowed, "another stack's state").to.deep.equal([]);
            });
        });
    }
});

/**
 * The DIY backend's object calls for one stack at the pinned CLI (pulumi/pulumi pkg/backend/diy,
 * read at 3.260): `read` for those a preview makes too, `stackOwn` for those naming the stack.
 */
function backendCalls(project: string, stack: string) {
    const stacks = `.pulumi/stacks/${project}`;
    const lock = `.pulumi/locks/organization/${project}/${stack}`;
    return [
        { action: "s3:GetObject", object: ".pulumi/meta.yaml", read: true, stackOwn: false, source: "meta.go readPulumiMeta" },
        { action: "s3:ListBucket", prefix: `${stacks}/${stack}.json`, read: true, stackOwn: true, source: "state.go stackPath" },
        { action: "s3:GetObject", object: `${stacks}/${stack}.json`, read: true, stackOwn: true, source: "state.go getCheckpoint" },
        {
            action: "s3:GetObject",
            object: `${stacks}/${stack}.pulumi-tags`,
            read: true,
            stackOwn: true,
            source: "stack_tags.go loadStackTags",
        },
        {
            action: "s3:ListBucket",
            prefix: `${stacks}/${stack}.pulumi-tags`,
            read: true,
            stackOwn: true,
            source: "a missing object answers 404 only to a caller who may list it",
        },
        { action: "s3:PutObject", object: `${stacks}/${stack}.json`, read: false, stackOwn: true, source: "state.go saveCheckpoint" },
        { action: "s3:PutObject", object: `${stacks}/${stack}.json.bak`, read: false, stackOwn: true, source: "state.go backupTarget" },
        {
            action: "s3:PutObject",
            object: `.pulumi/backups/${project}/${stack}/${stack}.1765000000000000000.json`,
            read: false,
            stackOwn: true,
            source: "state.go backupStack",
        },
        {
            action: "s3:PutObject",
            object: `.pulumi/history/${project}/${stack}/${stack}-1765000000000000000.history.json`,
            read: false,
            stackOwn: true,
            source: "state.go addToHistory",
        },
        {
            action: "s3:PutObject",
            object: `.pulumi/history/${project}/${stack}/${stack}-1765000000000000000.checkpoint.json`,
            read: false,
            stackOwn: true,
            source: "state.go addToHistory",
        },
        { action: "s3:ListBucket", prefix: `${lock}/`, read: false, stackOwn: true, source: "lock.go checkForLock" },
        { action: "s3:PutObject", object: `${lock}/0b7a3c1e.json`, read: false, stackOwn: true, source: "lock.go Lock" },
        { action: "s3:GetObject", object: `${lock}/0b7a3c1e.json`, read: false, stackOwn: true, source: "lock.go checkForLock" },
        { action: "s3:DeleteObject", object: `${lock}/0b7a3c1e.json`, read: false, stackOwn: true, source: "lock.go Unlock" },
    ];
}

/** A backend call as the request S3 authorizes: an object's ARN, or the bucket's with the listed prefix. */
function backendRequest(call: { action: string; object?: string; prefix?: string }, ctx: DeployerContext): IamRequest {
    const bucket = `arn:${ctx.partition}:s3:::${BUCKET}`;
    return call.object === undefined
        ? { action: call.action, resource: bucket, context: call.prefix === undefined ? {} : { "s3:prefix": call.prefix } }
        : { action: call.action, resource: `${bucket}/${call.object}` };
}

/** The request a provider call of `action` for plan resource `r` makes: its ARN from the resource's names, the context IAM gives it. */
async function deployRequest(action: string, r: PlannedResource, ctx: DeployerContext): Promise<IamRequest> {
    const str = (v: unknown) => (typeof v === "string" && !v.startsWith("04da6b54") ? v : undefined);
    const names: Record<string, string> = {
        ...stackNames(ctx),
        ClusterName: str(r.props.clusterName) ?? ctx.clusterName,
        RoleNameWithPath:
            str(r.props.role) ??
            (r.type === "aws:iam/role:Role" ? str(r.props.name) : undefined) ??
            `${stackNamePrefix(ctx.clusterName)}node`,
        InstanceProfileNameWithPath:
            r.type === "aws:iam/instanceProfile:InstanceProfile" ? (str(r.props.name) ?? "x1") : `${stackNamePrefix(ctx.clusterName)}x1`,
        QueueName: str(r.props.name) ?? `${stackNamePrefix(ctx.clusterName)}karpenter`,
        RuleName: str(r.props.rule) ?? str(r.props.name) ?? `${stackNamePrefix(ctx.clusterName)}x1`,
        AutoScalingGroupName: str(r.props.autoScalingGroupName) ?? str(r.props.name) ?? `${stackNamePrefix(ctx.clusterName)}x1`,
        LogGroupName: str(r.props.name) ?? `/aws/vpc/${ctx.clusterName}/flow-logs`,
        Alias: (str(r.props.name) ?? `alias/eks/${ctx.clusterName}-x1`).replace(/^alias\//, ""),
        KeyId: (str(r.props.keyId) ?? "k1").split("/").pop() ?? "k1",
        OidcProviderName: `oidc.eks.${ctx.region}.amazonaws.com/id/X1`,
    };
    if (action === "iam:CreateServiceLinkedRole") {
        const service = str(r.props.awsServiceName) ?? DEPLOYER_ACTIONS[r.type]?.createsServiceLinkedRole ?? "eks.amazonaws.com";
        names.RoleNameWithPath = `aws-service-role/${service}/AWSServiceRole`;
        return { action, resource: await resourceFor(action, names), context: { "iam:AWSServiceName": service } };
    }
    const resource = await stackResource(action, names);
    const context: Record<string, string | string[]> = {};
    if (
        /^iam:(CreateRole|PutRolePolicy|AttachRolePolicy|PutRolePermissionsBoundary|DeleteRolePolicy|DetachRolePolicy|DeleteRole|GetRole|UpdateAssumeRolePolicy|UpdateRole|UpdateRoleDescription)$/.test(
            action,
        )
    ) {
        context["iam:PermissionsBoundary"] = boundaryArn(ctx);
    }
    if (action === "iam:AttachRolePolicy" || action === "iam:DetachRolePolicy") {
        context["iam:PolicyARN"] = String(r.props.policyArn);
    }
    if (["kms:CreateKey", "kms:TagResource", "eks:CreateCluster"].includes(action)) {
        // What the provider sends: the resource's tags and the stack's default tags (tagsAll); pulumi-eks
        // merges a cluster's clusterTags and tags (nodejs/eks/cluster/cluster.ts).
        const own = (v: unknown) => (v ?? {}) as Record<string, string>;
        const tags = {
            ...Object.fromEntries((ctx.defaultTagKeys ?? []).map((k) => [k, "x1"])),
            ...own(r.props.clusterTags),
            ...own(r.props.tags),
        };
        for (const [key, value] of Object.entries(tags)) {
            context[`aws:RequestTag/${key}`] = value;
        }
        context["aws:TagKeys"] = Object.keys(tags);
    }
    return { action, resource, context };
}
