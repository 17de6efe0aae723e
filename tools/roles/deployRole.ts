/**
 * The deploy role's policy, the drift and preview roles' read-only policies and the stack's
 * permissions boundary (`npm run deployer-policy`, tools/roles/deployerPolicy.ts), derived from what the
 * stack's plan creates: the actions of each
 * resource type it registers (tools/roles/deployerActions.ts), on the stack's own names (the cluster's
 * EKS ARNs, IAM names under the stack's prefix, its log groups, queues, rules, Auto Scaling groups
 * and aliases); roles created, changed and given policies only with the stack's permissions
 * boundary, managed policies attached only from the plan's list, roles passed only to the
 * services the plan passes them to; KMS keys created only with the stack's tag and administered
 * through their own policies; the state of this stack only. The boundary is the ceiling of every
 * role of the stack (kernel/deployScope.ts), an allow-list (tools/roles/boundaryAllowList.ts). Each is
 * checked against AWS's authorization data (tools/roles/authorizationData.ts) and decided by an IAM
 * evaluator in test/tools/roles/deployerPolicy.simulation.test.ts. A stack whose cluster name shadows
 * another's, or a state bucket S3 would refuse, gets no policy at all (`deployerContext`).
 *
 * Offline: the account and partition come from `access.deployer`, the region from `aws:region`.
 */
import * as path from "path";
import {
    MANAGED_POLICY_LIMIT,
    PLATFORM_CLUSTER_TAG,
    permissionsBoundaryName,
    policySize,
    ROLE_INLINE_POLICY_LIMIT,
    stackNamePrefix,
    UNKNOWN,
} from "eks-platform-kernel";
import { authorizationProblems } from "./authorizationData";
import { accountOf, KEY_ADMINISTRATION_ACTIONS, type PolicyDocument, type PolicyStatement } from "../../components/iam";
import { boundaryAllowList } from "./boundaryAllowList";
import { parseRawConfig } from "../../components/config";
import { DEPLOYER_ACTIONS, DEPLOYER_INVOKES, type DeployScope, makesNoAwsCall } from "./deployerActions";
import { InputError } from "../cli/errors";
import { readStackFiles, runProgram, stackNames } from "../render/offline";

/** What scopes a stack's policies: where it runs and its names. */
export interface DeployerContext {
    stack: string;
    project: string;
    partition: string;
    account: string;
    region: string;
    clusterName: string;
    stateBucket: string;
    /** `access.deployer`, `access.preview`, `access.drift` and `access.admins`: none may be under the stack's IAM prefix. */
    principals: readonly string[];
    /** The keys of the AWS provider's default tags (`aws:defaultTags`), which it sends with every create. Defaults to none. */
    defaultTagKeys?: readonly string[];
    /** The KMS keys the stack file names by ARN for volumes, in the boundary's allow-list. Defaults to none. */
    volumeKeyArns?: readonly string[];
    /**
     * The managed policies the stack file attaches to service-account roles, each with its key
     * (`namespaces.<ns>.serviceAccounts.<name>.policyArns`): the boundary cannot read what they
     * grant, so it cannot allow it. Defaults to none.
     */
    tenantPolicyArns?: readonly { key: string; arn: string }[];
    /** The statements of the stack's service-account roles (`namespaces.<ns>.serviceAccounts.<name>.statements`), in the boundary's allow-list. Defaults to none. */
    tenantStatements?: readonly PolicyStatement[];
}

/** A resource of the plan, as tools/render/offline.ts records it. */
export interface PlannedResource {
    type: string;
    name: string;
    props: Record<string, unknown>;
}

/** A plan the deploy role's policy cannot be scoped to; the message lists every problem. */
export class DeployerPolicyError extends InputError {}

/** The type of Karpenter's EC2NodeClass as the program registers it. */
const EC2_NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass";

/** The role actions IAM lets a policy condition on the permissions boundary (`iam:PermissionsBoundary`). */
const BOUNDARY_CONDITIONED = [
    "iam:AttachRolePolicy",
    "iam:CreateRole",
    "iam:DeleteRolePolicy",
    "iam:DetachRolePolicy",
    "iam:PutRolePermissionsBoundary",
    "iam:PutRolePolicy",
];

/** The ARN of the stack's permissions boundary. */
export function boundaryArn(ctx: DeployerContext): string {
    return `arn:${ctx.partition}:iam::${ctx.account}:policy/${permissionsBoundaryName(ctx.clusterName)}`;
}

/** The alias of the stack's secrets key (docs/bootstrap.md, step 2). */
export function secretsKeyAlias(project: string, stack: string): string {
    return `alias/${project}-${stack}-secrets`;
}

/** Where each scope's actions are allowed, for `ctx`. */
function scopeResources(scope: DeployScope, ctx: DeployerContext, plan: readonly PlannedResource[]): string[] {
    const { partition: p, account: a, region: r, clusterName: c } = ctx;
    const prefix = stackNamePrefix(c);
    switch (scope) {
        case "eks":
            return [
                `arn:${p}:eks:${r}:${a}:cluster/${c}`,
                `arn:${p}:eks:${r}:${a}:nodegroup/${c}/*`,
                `arn:${p}:eks:${r}:${a}:addon/${c}/*`,
                `arn:${p}:eks:${r}:${a}:access-entry/${c}/*`,
                `arn:${p}:eks:${r}:${a}:podidentityassociation/${c}/*`,
            ];
        case "roles":
            return [`arn:${p}:iam::${a}:role/${prefix}*`];
        case "instanceProfiles":
            return [
                `arn:${p}:iam::${a}:instance-profile/${prefix}*`,
                // Karpenter's own, under a path no other cluster's name can extend (a name holds no `/`).
                ...(plan.some((x) => x.type === EC2_NODE_CLASS) ? [`arn:${p}:iam::${a}:instance-profile/karpenter/${r}/${c}/*`] : []),
            ];
        case "oidcProviders":
            return [`arn:${p}:iam::${a}:oidc-provider/oidc.eks.${r}.amazonaws.com/id/*`];
        case "serviceLinkedRoles":
        case "serviceLinkedRoleReads":
            return [`arn:${p}:iam::${a}:role/aws-service-role/*`];
        case "aliases":
            return [`arn:${p}:kms:${r}:${a}:alias/eks/${prefix}*`];
        case "grants":
            return [...new Set(plan.filter((x) => x.type === "aws:kms/grant:Grant").map((x) => String(x.props.keyId)))].sort();
        case "logGroups":
            return [`arn:${p}:logs:${r}:${a}:log-group:/aws/*/${c}/*`];
        case "queues":
            return [`arn:${p}:sqs:${r}:${a}:${prefix}*`];
        case "eventRules":
            return [`arn:${p}:events:${r}:${a}:rule/${prefix}*`];
        case "autoScalingGroups":
            return [`arn:${p}:autoscaling:${r}:${a}:autoScalingGroup:*:autoScalingGroupName/${prefix}*`];
        case "ssm":
            return [`arn:${p}:ssm:${r}::parameter/aws/service/*`];
        case "ec2":
        case "clusters":
        case "keys":
        case "any":
        case "none":
            return ["*"];
    }
}

/** The statement id of each scope, in the order statements are printed. */
const SCOPE_SIDS: readonly (readonly [DeployScope, string])[] = [
    ["any", "Lookups"],
    ["ssm", "PublicParameters"],
    ["ec2", "Ec2"],
    ["eks", "Eks"],
    ["clusters", "CreateTaggedCluster"],
    ["roles", "StackRoles"],
    ["instanceProfiles", "StackInstanceProfiles"],
    ["oidcProviders", "ClusterOidcProviders"],
    ["serviceLinkedRoles", "ServiceLinkedRoles"],
    ["serviceLinkedRoleReads", "ReadServiceLinkedRoles"],
    ["keys", "CreateTaggedKeys"],
    ["aliases", "StackKeyAliases"],
    ["grants", "CustomerKeyGrants"],
    ["logGroups", "StackLogGroups"],
    ["queues", "StackQueues"],
    ["eventRules", "StackEventRules"],
    ["autoScalingGroups", "StackAutoScalingGroups"],
];

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

/**
 * A statement's reads as one wildcard per service and verb (`eks:Describe*`, `iam:List*`) where it
 * holds two or more: reads change nothing, each statement's resources still bound them, and EC2's
 * reads take no resource ARN anyway (Service Authorization Reference, Amazon EC2). Written out, the
 * reads alone would take over a tenth of IAM's limit on a role's inline policies.
 */
export function compactReads(actions: readonly string[]): string[] {
    const verbs = ["Describe", "Get", "List"];
    const count = new Map<string, number>();
    const key = (a: string) => {
        const [service, name = ""] = a.split(":");
        const verb = verbs.find((v) => name.startsWith(v));
        return verb === undefined ? undefined : `${service}:${verb}*`;
    };
    for (const a of actions) {
        const k = key(a);
        if (k !== undefined) {
            count.set(k, (count.get(k) ?? 0) + 1);
        }
    }
    return sorted(
        actions.map((a) => {
            const k = key(a);
            return k !== undefined && (count.get(k) ?? 0) >= 2 ? k : a;
        }),
    );
}

/**
 * The name a plan resource's scope is matched on (`namedBy`; `namePrefix` stands in for an absent
 * `name`), `null` when the type's scope is not by name or the value is unknown at preview (the
 * owner of the name is checked instead), `undefined` when an owner's name is absent: auto-named.
 */
function nameOf(r: PlannedResource, namedBy: string | undefined): string | null | undefined {
    if (namedBy === undefined) {
        return null;
    }
    const v = r.props[namedBy] ?? (namedBy === "name" ? r.props.namePrefix : undefined);
    if (typeof v === "string" && v !== UNKNOWN) {
        return v;
    }
    // What attaches to an owner names it by an output: the owner is checked.
    return v === undefined && namedBy === "name" ? undefined : null;
}

/** What else a resource's scope needs of its inputs: a role's boundary, a key's tag, a grant's key, a service-linked role's service, an EKS resource's cluster. */
function inputProblems(r: PlannedResource, scope: DeployScope, ctx: DeployerContext): string[] {
    if (r.type === "aws:iam/role:Role" && r.props.permissionsBoundary !== boundaryArn(ctx)) {
        return [
            `permissionsBoundary is ${JSON.stringify(r.props.permissionsBoundary ?? null)}, not ${boundaryArn(ctx)}: the deploy role creates roles only with the stack's boundary (components/iam.ts, stackPermissionsBoundary)`,
        ];
    }
    // What the deploy role may create only with the stack's tag in the request: keys, and the cluster (eks:CreateCluster takes no ARN).
    const tagged =
        r.type === "eks:index:Cluster"
            ? { input: "clusterTags", what: "the cluster" }
            : scope === "keys"
              ? { input: "tags", what: "keys" }
              : undefined;
    if (tagged !== undefined) {
        const value = ((r.props[tagged.input] ?? {}) as Record<string, unknown>)[PLATFORM_CLUSTER_TAG];
        return value === ctx.clusterName
            ? []
            : [
                  `${tagged.input}["${PLATFORM_CLUSTER_TAG}"] is ${JSON.stringify(value ?? null)}, not "${ctx.clusterName}": the deploy role creates ${tagged.what} only with it`,
              ];
    }
    if (scope === "grants" && (typeof r.props.keyId !== "string" || !r.props.keyId.startsWith("arn:"))) {
        return [`keyId ${JSON.stringify(r.props.keyId ?? null)} is not a key ARN known at preview: the policy cannot name the grant's key`];
    }
    const service = r.props.awsServiceName;
    if (r.type === "aws:iam/serviceLinkedRole:ServiceLinkedRole" && (typeof service !== "string" || service === UNKNOWN)) {
        return [
            `awsServiceName ${JSON.stringify(service ?? null)} is not a service known at preview: the policy cannot name the service whose role it creates`,
        ];
    }
    // The cluster component names the cluster itself (its tag is checked above).
    if (scope === "eks" && r.props.clusterName !== ctx.clusterName) {
        return [`clusterName ${JSON.stringify(r.props.clusterName ?? null)} is not the stack's cluster "${ctx.clusterName}"`];
    }
    return [];
}

/** Why the plan's resources fall outside the scopes the policy grants, one line each. */
export function scopeProblems(plan: readonly PlannedResource[], ctx: DeployerContext): string[] {
    const prefix = stackNamePrefix(ctx.clusterName);
    const problems: string[] = [];
    const at = (r: PlannedResource) => `${r.type} "${r.name}"`;
    for (const r of plan) {
        const entry = DEPLOYER_ACTIONS[r.type];
        if (entry === undefined) {
            if (!makesNoAwsCall(r.type)) {
                problems.push(
                    `${at(r)}: no entry in tools/roles/deployerActions.ts: add the provider's calls for this type (with their source), or the first \`up\` fails half-way on an action the deploy role lacks`,
                );
            }
            continue;
        }
        problems.push(...inputProblems(r, entry.scope, ctx).map((p) => `${at(r)}: ${p}`));
        const name = nameOf(r, entry.namedBy);
        if (name === null) {
            continue;
        }
        const shown = name === undefined ? "(auto-named)" : JSON.stringify(name);
        const input = entry.namedBy === "name" ? "name" : `${entry.namedBy} (the name it attaches to)`;
        if (entry.scope === "logGroups") {
            if (name === undefined || !name.startsWith("/aws/") || name.split("/")[3] !== ctx.clusterName) {
                problems.push(
                    `${at(r)}: ${input} ${shown} is not /aws/<service>/${ctx.clusterName}/…: the deploy role manages only the stack's log groups`,
                );
            }
        } else if (entry.scope === "aliases") {
            if (name === undefined || !name.startsWith(`alias/eks/${prefix}`)) {
                problems.push(
                    `${at(r)}: ${input} ${shown} is not under "alias/eks/${prefix}": the deploy role manages only the stack's aliases`,
                );
            }
        } else if (name === undefined || !name.startsWith(prefix)) {
            problems.push(
                `${at(r)}: ${input} ${shown} is not under "${prefix}": set it; the deploy role manages only names under the stack's prefix`,
            );
        }
    }
    for (const principal of ctx.principals) {
        const name = principal.split(":role/")[1]?.split("/").pop();
        if (name !== undefined && name.startsWith(prefix)) {
            problems.push(
                `access: ${principal} is under the stack's IAM prefix "${prefix}": the deploy role could rewrite it (name the CI and people's roles outside it, e.g. platform-deployer-${ctx.stack})`,
            );
        }
    }
    return problems;
}

/**
 * The deploy role's policy for `plan`. Throws `DeployerPolicyError` listing every resource it
 * cannot scope. Pure.
 */
export function deployerPolicy(plan: readonly PlannedResource[], ctx: DeployerContext): PolicyDocument {
    const problems = scopeProblems(plan, ctx);
    if (problems.length > 0) {
        throw new DeployerPolicyError(`the deploy role of stack "${ctx.stack}" cannot be scoped to its plan:\n  ${problems.join("\n  ")}`);
    }
    const byScope = new Map<DeployScope, Set<string>>();
    const add = (scope: DeployScope, actions: readonly string[]) => {
        if (scope === "none" || actions.length === 0) {
            return;
        }
        const set = byScope.get(scope) ?? new Set<string>();
        actions.forEach((x) => set.add(x));
        byScope.set(scope, set);
    };
    const passedTo = new Set<string>();
    let passesWithoutService = false;
    const linkedRoles = new Set<string>();
    const types = new Set(plan.map((r) => r.type));
    for (const type of types) {
        const entry = DEPLOYER_ACTIONS[type];
        if (entry === undefined) {
            continue;
        }
        add(entry.scope, entry.actions);
        for (const [scope, actions] of Object.entries(entry.also ?? {}) as [DeployScope, string[]][]) {
            add(scope, actions);
        }
        if (entry.passesRole) {
            passedTo.add(entry.passesRole);
        }
        passesWithoutService ||= entry.passesRoleWithoutService === true;
        if (entry.createsServiceLinkedRole) {
            linkedRoles.add(entry.createsServiceLinkedRole);
        }
    }
    for (const r of plan) {
        if (r.type === "aws:iam/serviceLinkedRole:ServiceLinkedRole" && typeof r.props.awsServiceName === "string") {
            linkedRoles.add(r.props.awsServiceName);
        }
    }
    if (linkedRoles.size > 0) {
        add("serviceLinkedRoles", ["iam:CreateServiceLinkedRole"]);
    }
    for (const invoke of DEPLOYER_INVOKES) {
        add(invoke.scope, invoke.actions);
    }

    const statements: PolicyStatement[] = [...stateStatements(ctx)];
    for (const [scope, sid] of SCOPE_SIDS) {
        const actions = byScope.get(scope);
        if (actions === undefined) {
            continue;
        }
        const resources = scopeResources(scope, ctx, plan);
        const resource = resources.length === 1 ? resources[0] : resources;
        if (scope === "roles") {
            statements.push(...roleStatements(sid, sorted(actions), resource, plan, ctx));
            continue;
        }
        const statement: PolicyStatement = { Sid: sid, Effect: "Allow", Action: compactReads(sorted(actions)), Resource: resource };
        if (scope === "serviceLinkedRoles") {
            statement.Condition = { StringEquals: { "iam:AWSServiceName": sorted(linkedRoles) } };
        } else if (scope === "clusters") {
            statement.Condition = { StringEquals: { [`aws:RequestTag/${PLATFORM_CLUSTER_TAG}`]: ctx.clusterName } };
        } else if (scope === "keys") {
            // The stack's tag set to its cluster; only its own and the default tags' keys (the provider
            // sends both with CreateKey); never over another cluster's tag: no tag-based grant of one
            // stack can be moved onto another's key.
            statement.Condition = {
                StringEquals: { [`aws:RequestTag/${PLATFORM_CLUSTER_TAG}`]: ctx.clusterName },
                "ForAllValues:StringEquals": { "aws:TagKeys": sorted([PLATFORM_CLUSTER_TAG, ...(ctx.defaultTagKeys ?? [])]) },
                StringEqualsIfExists: { [`aws:ResourceTag/${PLATFORM_CLUSTER_TAG}`]: ctx.clusterName },
            };
        }
        statements.push(statement);
    }
    if (passedTo.size > 0) {
        statements.push({
            Sid: "PassStackRoles",
            Effect: "Allow",
            Action: "iam:PassRole",
            Resource: scopeResources("roles", ctx, plan)[0],
            // `IfExists` only where a call passes a role without naming the service (adding a role to an
            // instance profile): then the key is absent, and present it still must be one of these.
            Condition: { [passesWithoutService ? "StringEqualsIfExists" : "StringEquals"]: { "iam:PassedToService": sorted(passedTo) } },
        });
    }
    return { Version: "2012-10-17", Statement: statements };
}

/** IAM actions that read only: a `Describe`, `Get` or `List` call of any service (or a wildcard of them), and the reads named otherwise. */
const READ_ACTION = /^[a-z0-9-]+:(Describe|Get|List)[A-Za-z*]*$/;
const OTHER_READS: readonly string[] = ["ec2:SearchTransitGatewayRoutes"];

/** Whether `action` only reads (see `READ_ACTION`). Pure. */
export function isReadAction(action: string): boolean {
    return READ_ACTION.test(action) || OTHER_READS.includes(action);
}

/** The deploy policy's statements about state and secrets, which the drift policy writes itself. */
const STATE_SIDS = ["StateBucket", "StateList", "StateMeta", "State", "StackSecrets"];

/**
 * What a read-only role of the stack reads of its state, and the key it decrypts with: the
 * backend's metadata, the stack's checkpoint and tags (a preview takes no lock on a self-managed
 * backend: pulumi/pulumi pkg/backend/diy/backend.go `Preview`), decrypting with the stack's
 * secrets key only.
 */
function readOnlyStateStatements(ctx: DeployerContext): PolicyStatement[] {
    const bucket = `arn:${ctx.partition}:s3:::${ctx.stateBucket}`;
    const reads = stateReads(ctx.project, ctx.stack);
    return [
        ...stateListStatements(ctx, [".pulumi/meta.yaml", `.pulumi/stacks/${ctx.project}/`, ...reads]),
        {
            Sid: "StateRead",
            Effect: "Allow",
            Action: "s3:GetObject",
            Resource: [`${bucket}/.pulumi/meta.yaml`, ...reads.map((o) => `${bucket}/${o}`)],
        },
        {
            Sid: "StackSecrets",
            Effect: "Allow",
            Action: "kms:Decrypt",
            Resource: `arn:${ctx.partition}:kms:${ctx.region}:${ctx.account}:key/*`,
            Condition: { "ForAnyValue:StringEquals": { "kms:ResourceAliases": secretsKeyAlias(ctx.project, ctx.stack) } },
        },
    ];
}

/**
 * The policy of the stack's preview role (`access.preview`, `npm run deployer-policy -- <stack>
 * --preview`): its state read-only and its secrets key (`readOnlyStateStatements`), the calls the
 * program makes at preview whatever it registers (tools/roles/deployerActions.ts `DEPLOYER_INVOKES`:
 * the provider's identity, AMI releases) and the preflight's reads. Nothing it could change, and
 * nothing of another stack: pull-request code runs as this role. Pure.
 */
export function previewPolicy(ctx: DeployerContext): PolicyDocument {
    const statements = readOnlyStateStatements(ctx);
    const sids: Partial<Record<DeployScope, string>> = {
        ssm: "AmiReleases",
        any: "Preflight",
        serviceLinkedRoleReads: "PreflightServiceLinkedRoles",
    };
    for (const [scope, sid] of Object.entries(sids) as [DeployScope, string][]) {
        const actions = sorted(DEPLOYER_INVOKES.filter((i) => i.scope === scope).flatMap((i) => i.actions));
        // Each of these scopes is one ARN pattern, whatever the plan.
        statements.push({ Sid: sid, Effect: "Allow", Action: compactReads(actions), Resource: scopeResources(scope, ctx, [])[0] });
    }
    return { Version: "2012-10-17", Statement: statements };
}

/**
 * The read-only policy of the scheduled drift check's role (`access.drift`, `npm run
 * deployer-policy -- <stack> --drift`): what `pulumi preview --refresh` and the preflight read,
 * nothing they could change. Every read of the deploy role's policy, on the same resources and
 * under the same conditions (a refresh reads each resource with the calls the provider reads it
 * with after a create); the stack's checkpoint and the backend's metadata, read only (a preview
 * takes no lock on a self-managed backend); decrypting with the stack's secrets key only; and the
 * reads of the stack's own KMS keys, which the deploy role gets from each key's policy
 * (`stackKeyPolicy`) and this role by the key's tag. Throws as `deployerPolicy` does. Pure.
 */
export function driftPolicy(plan: readonly PlannedResource[], ctx: DeployerContext): PolicyDocument {
    const deploy = deployerPolicy(plan, ctx).Statement;
    const statements = readOnlyStateStatements(ctx);
    for (const statement of deploy.filter((st) => !STATE_SIDS.includes(st.Sid ?? ""))) {
        const reads = ([] as string[]).concat(statement.Action ?? []).filter(isReadAction);
        if (reads.length > 0) {
            statements.push({ ...statement, Action: compactReads(reads) });
        }
    }
    if (plan.some((r) => r.type === "aws:kms/key:Key")) {
        statements.push({
            Sid: "StackKeyReads",
            Effect: "Allow",
            Action: KEY_ADMINISTRATION_ACTIONS.filter(isReadAction),
            Resource: `arn:${ctx.partition}:kms:${ctx.region}:${ctx.account}:key/*`,
            Condition: { StringEquals: { [`aws:ResourceTag/${PLATFORM_CLUSTER_TAG}`]: ctx.clusterName } },
        });
    }
    return { Version: "2012-10-17", Statement: statements };
}

/**
 * This stack's state and secrets only. The DIY backend's project-scoped layout (pulumi/pulumi
 * pkg/backend/diy, read at 3.260 for the pinned 3.270): the checkpoint `.pulumi/stacks/<project>/<stack>.json`
 * (`.gz` or `.zst` when compressed, listed with that prefix to pick the newest; `.json.bak` copied
 * beside it before each write: state.go `stackPath`, `backupTarget`); the stack's tags
 * `.pulumi/stacks/<project>/<stack>.pulumi-tags`, read by every preview, up, refresh and destroy
 * since 3.211 (state.go `getTarget` → stack_tags.go `loadStackTags`: only NotFound means no tags,
 * AccessDenied stops the command with "failed to load stack tags"); backups and history written
 * after each update under `.pulumi/backups|history/<project>/<stack>/` (state.go `backupStack`,
 * `addToHistory`); locks under `.pulumi/locks/organization/<project>/<stack>/` (lock.go, the fully
 * qualified stack name; listed, written, read, deleted). No journal: the DIY backend has none.
 */
export function stateObjects(project: string, stack: string): string[] {
    return [
        `.pulumi/stacks/${project}/${stack}.json*`,
        `.pulumi/stacks/${project}/${stack}.pulumi-tags`,
        `.pulumi/locks/organization/${project}/${stack}/*`,
        ...["history", "backups"].map((kind) => `.pulumi/${kind}/${project}/${stack}/*`),
    ];
}

/** What a read-only role reads of the stack's state: the checkpoint and the stack's tags (`stateObjects`, the first two). */
export function stateReads(project: string, stack: string): string[] {
    return stateObjects(project, stack).slice(0, 2);
}

/**
 * The state bucket's location (no prefix: S3's GetBucketLocation supports no `s3:prefix` key, so
 * under that condition it would never be allowed; Service Authorization Reference, Amazon S3) and
 * its listing under `prefixes` only.
 */
function stateListStatements(ctx: DeployerContext, prefixes: readonly string[]): PolicyStatement[] {
    const bucket = `arn:${ctx.partition}:s3:::${ctx.stateBucket}`;
    return [
        { Sid: "StateBucket", Effect: "Allow", Action: "s3:GetBucketLocation", Resource: bucket },
        {
            Sid: "StateList",
            Effect: "Allow",
            Action: "s3:ListBucket",
            Resource: bucket,
            Condition: { StringLike: { "s3:prefix": [...prefixes] } },
        },
    ];
}

function stateStatements(ctx: DeployerContext): PolicyStatement[] {
    const bucket = `arn:${ctx.partition}:s3:::${ctx.stateBucket}`;
    const own = stateObjects(ctx.project, ctx.stack);
    return [
        ...stateListStatements(ctx, [".pulumi/meta.yaml", `.pulumi/stacks/${ctx.project}/`, ...own]),
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
            Resource: `arn:${ctx.partition}:kms:${ctx.region}:${ctx.account}:key/*`,
            Condition: { "ForAnyValue:StringEquals": { "kms:ResourceAliases": secretsKeyAlias(ctx.project, ctx.stack) } },
        },
    ];
}

/**
 * The role statements (`sid`, `<sid>WithBoundary`, `AttachPlannedPolicies`): reads and deletes on
 * the prefix; writes only with the boundary; attachments only of the plan's policies.
 */
function roleStatements(
    sid: string,
    actions: string[],
    resource: string | string[],
    plan: readonly PlannedResource[],
    ctx: DeployerContext,
): PolicyStatement[] {
    const boundary = { "iam:PermissionsBoundary": boundaryArn(ctx) };
    const plain = actions.filter((a) => !BOUNDARY_CONDITIONED.includes(a));
    const bounded = actions.filter((a) => BOUNDARY_CONDITIONED.includes(a) && a !== "iam:AttachRolePolicy");
    const out: PolicyStatement[] = [];
    if (plain.length > 0) {
        out.push({ Sid: sid, Effect: "Allow", Action: compactReads(plain), Resource: resource });
    }
    if (bounded.length > 0) {
        out.push({
            Sid: `${sid}WithBoundary`,
            Effect: "Allow",
            Action: bounded,
            Resource: resource,
            Condition: { StringEquals: boundary },
        });
    }
    if (actions.includes("iam:AttachRolePolicy")) {
        const attached = sorted(
            plan.filter((r) => r.type === "aws:iam/rolePolicyAttachment:RolePolicyAttachment").map((r) => String(r.props.policyArn)),
        );
        out.push({
            Sid: "AttachPlannedPolicies",
            Effect: "Allow",
            Action: "iam:AttachRolePolicy",
            Resource: resource,
            Condition: { StringEquals: boundary, ArnEquals: { "iam:PolicyARN": attached } },
        });
    }
    return out;
}

/**
 * The permissions boundary of every role of the stack, an allow-list: what the platform's roles
 * use (tools/roles/boundaryAllowList.ts), the stack's service-account statements as the stack file
 * writes them (`namespaces.<ns>.serviceAccounts.<name>.statements`: a team's role gets what its
 * statements ask and the app-role gate judges, nothing more), and denials that hold whatever
 * those statements say: no IAM identity or policy change, no role of another stack passed, no
 * Pulumi state, no stack's secrets, no assumed role, no command on a node, no Lambda or
 * CloudFormation escape, no organization or account change. Pure.
 */
export function permissionsBoundary(ctx: DeployerContext): PolicyDocument {
    const { partition: p, account: a } = ctx;
    const tenants = (ctx.tenantStatements ?? [])
        .filter((st) => st.Effect === "Allow")
        .map(({ Sid: _sid, ...st }, i) => ({ Sid: `ServiceAccount${i + 1}`, ...st }));
    return {
        Version: "2012-10-17",
        Statement: [
            ...boundaryAllowList(ctx),
            ...tenants,
            {
                Sid: "NoIdentityChanges",
                Effect: "Deny",
                Action: [
                    "iam:*AccessKey*",
                    "iam:*Group*",
                    "iam:*LoginProfile*",
                    "iam:*MFADevice*",
                    "iam:*PermissionsBoundary",
                    "iam:*Policy*",
                    "iam:*Provider*",
                    "iam:*User*",
                    "iam:CreateRole",
                    "iam:DeleteRole",
                    "iam:DeleteServiceLinkedRole",
                    "iam:TagRole",
                    "iam:UntagRole",
                    "iam:UpdateRole*",
                ],
                Resource: "*",
            },
            {
                Sid: "PassOnlyStackRoles",
                Effect: "Deny",
                Action: "iam:PassRole",
                NotResource: `arn:${p}:iam::${a}:role/${stackNamePrefix(ctx.clusterName)}*`,
            },
            {
                Sid: "NoState",
                Effect: "Deny",
                Action: "s3:*",
                Resource: [`arn:${p}:s3:::${ctx.stateBucket}`, `arn:${p}:s3:::${ctx.stateBucket}/*`],
            },
            {
                Sid: "NoStackSecrets",
                Effect: "Deny",
                Action: ["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey*", "kms:ReEncrypt*"],
                Resource: "*",
                Condition: { "ForAnyValue:StringLike": { "kms:ResourceAliases": secretsKeyAlias(ctx.project, "*") } },
            },
            {
                Sid: "NoEscapes",
                Effect: "Deny",
                Action: [
                    "account:*",
                    "cloudformation:*",
                    "lambda:AddPermission",
                    "lambda:CreateEventSourceMapping",
                    "lambda:CreateFunction*",
                    "lambda:UpdateFunction*",
                    "organizations:*",
                    "ssm:SendCommand",
                    "ssm:StartSession",
                    "sts:AssumeRole*",
                ],
                Resource: "*",
            },
        ],
    };
}

/** What `deployerContext` writes for a state bucket not given: a placeholder, as docs/roles.md shows the policies. */
export const STATE_BUCKET_PLACEHOLDER = "<state-bucket>";

/** What docs/roles.md shows in place of the stack's own account id (the one of `access.deployer`). */
export const ACCOUNT_PLACEHOLDER = "<account>";

/**
 * `doc` with every occurrence of `account` (the stack's own, as a whole 12-digit id: in ARNs and
 * condition values alike) written as `<account>`: how docs/roles.md shows the policies, so a fork
 * that puts in its own account ids changes no documentation (`npm run deployer-policy` prints the
 * real ids). Another account a stack file names stays as written. Pure.
 */
export function withAccountPlaceholder(doc: PolicyDocument, account: string): PolicyDocument {
    if (!/^\d{12}$/.test(account)) {
        return doc;
    }
    const own = new RegExp(`(?<!\\d)${account}(?!\\d)`, "g");
    return JSON.parse(JSON.stringify(doc).replace(own, ACCOUNT_PLACEHOLDER)) as PolicyDocument;
}

/**
 * Why `name` is no S3 bucket name (S3 User Guide, "General purpose bucket naming rules"): 3 to 63
 * characters of lowercase letters, digits, dots and hyphens, a letter or digit at each end, no two
 * dots side by side, not an IP address, none of S3's reserved prefixes and suffixes. A name the
 * rules refuse would scope the state statements to nothing; a pattern (`*`, `?`) to every bucket. Pure.
 */
export function stateBucketProblems(name: string): string[] {
    const problems: string[] = [];
    if (name.length < 3 || name.length > 63) {
        problems.push(`is ${name.length} characters long, not 3 to 63`);
    }
    if (!/^[a-z0-9.-]*$/.test(name)) {
        problems.push(
            "may hold only lowercase letters, digits, dots and hyphens (no wildcard: the state statements would reach every bucket)",
        );
    }
    if (!/^[a-z0-9]/.test(name) || !/[a-z0-9]$/.test(name)) {
        problems.push("must begin and end with a letter or a digit");
    }
    if (name.includes("..")) {
        problems.push("may not hold two dots side by side");
    }
    if (/^\d{1,3}(\.\d{1,3}){3}$/.test(name)) {
        problems.push("may not be an IP address");
    }
    const prefix = ["xn--", "sthree-", "amzn-s3-demo-"].find((p) => name.startsWith(p));
    if (prefix !== undefined) {
        problems.push(`may not begin with ${prefix} (reserved by S3)`);
    }
    const suffix = ["-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"].find((x) => name.endsWith(x));
    if (suffix !== undefined) {
        problems.push(`may not end with ${suffix} (reserved by S3)`);
    }
    return problems;
}

/**
 * The stacks of `root` whose cluster names shadow `clusterName`'s: a name under another stack's
 * prefix (`platform-dev-auto` under `platform-dev-`), or the same name. Every name the deploy
 * role, the boundary and the drift role are scoped by starts with the cluster's name and a dash
 * (kernel/deployScope.ts), so one stack's role could then rewrite, pass or read the other's. A
 * stack file that does not parse is left to its own commands. Pure but for reading the files.
 */
export function shadowingProblems(root: string, stack: string, clusterName: string): string[] {
    const problems: string[] = [];
    for (const other of stackNames(root).filter((s) => s !== stack)) {
        let name: unknown;
        try {
            const files = readStackFiles(root, other);
            name = files.config[`${files.project}:clusterName`];
        } catch {
            continue;
        }
        if (typeof name !== "string") {
            continue;
        }
        if (name === clusterName) {
            problems.push(`stack "${other}" names the same cluster "${name}"`);
        } else if (name.startsWith(stackNamePrefix(clusterName)) || clusterName.startsWith(stackNamePrefix(name))) {
            const [outer, inner] = name.startsWith(stackNamePrefix(clusterName)) ? [clusterName, name] : [name, clusterName];
            problems.push(
                `stack "${other}"'s cluster "${name}" and this stack's "${clusterName}" overlap: "${inner}" starts with "${stackNamePrefix(outer)}", so the roles, queues and rules scoped to "${outer}" reach "${inner}"'s too; rename one so neither starts with the other and a dash`,
            );
        }
    }
    return problems;
}

/**
 * The stack's context from its stack file: the account and partition of `access.deployer`, the
 * region, the cluster name. Throws `DeployerPolicyError` on a state bucket S3 would refuse and on
 * a cluster name another stack's shadows (or that shadows another's): the policies could not keep
 * the stacks apart.
 */
export function deployerContext(root: string, stack: string, stateBucket = STATE_BUCKET_PLACEHOLDER): DeployerContext {
    const files = readStackFiles(root, stack);
    const config = parseRawConfig(files.config, stack);
    const deployer = config.access.deployer;
    const problems = [
        ...(stateBucket === STATE_BUCKET_PLACEHOLDER
            ? []
            : stateBucketProblems(stateBucket).map((p) => `--state-bucket "${stateBucket}" ${p}`)),
        ...shadowingProblems(root, stack, config.clusterName).map((p) => `clusterName: ${p}`),
    ];
    if (problems.length > 0) {
        throw new DeployerPolicyError(`stack "${stack}" cannot be given policies that keep it apart:\n  ${problems.join("\n  ")}`);
    }
    return {
        stack,
        project: files.project,
        partition: deployer.split(":")[1] ?? "aws",
        account: accountOf(deployer),
        region: config.region,
        clusterName: config.clusterName,
        stateBucket,
        principals: [deployer, ...[config.access.preview, config.access.drift].filter((r) => r !== undefined), ...config.access.admins],
        defaultTagKeys: defaultTagKeys(files.config["aws:defaultTags"]),
        volumeKeyArns: kmsKeyArnsIn([config.addons, config.autoMode, config.karpenter]),
        tenantPolicyArns: Object.entries(config.namespaces).flatMap(([ns, n]) =>
            Object.entries(n.serviceAccounts).flatMap(([sa, a]) =>
                a.policyArns.map((arn) => ({ key: `namespaces.${ns}.serviceAccounts.${sa}.policyArns`, arn })),
            ),
        ),
        tenantStatements: Object.values(config.namespaces).flatMap((ns) =>
            Object.values(ns.serviceAccounts).flatMap((sa) => sa.statements as PolicyStatement[]),
        ),
    };
}

/**
 * What the boundary of `ctx` cannot judge, one line each naming the stack file's key: a managed
 * policy attached to a service account's role grants what the boundary never reads, so those
 * grants work only where the boundary already allows them. Pure.
 */
export function boundaryNotes(ctx: DeployerContext): string[] {
    return (ctx.tenantPolicyArns ?? []).map(
        ({ key, arn }) =>
            `not modelled: ${key}: ${arn} is a managed policy the boundary cannot read; its grants work only where the boundary already allows them: write them as statements (${key.replace(/policyArns$/, "statements")}) to have the boundary allow them`,
    );
}

/** The KMS key ARNs anywhere in `value` (a StorageClass's `kmsKey`, a NodeClass's `kmsKeyId`), once each, sorted. Pure. */
export function kmsKeyArnsIn(value: unknown): string[] {
    const found = new Set<string>();
    const walk = (v: unknown): void => {
        if (typeof v === "string" && /^arn:[a-z-]+:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/.test(v)) {
            found.add(v);
        } else if (v !== null && typeof v === "object") {
            Object.values(v).forEach(walk);
        }
    };
    walk(value);
    return [...found].sort();
}

/** The keys of `aws:defaultTags` as the stack file sets it (`{ tags: { … } }`, JSON as the CLI hands config over), sorted. */
function defaultTagKeys(value: string | undefined): string[] {
    if (value === undefined) {
        return [];
    }
    try {
        const tags = (JSON.parse(value) as { tags?: unknown }).tags;
        return tags !== null && typeof tags === "object" ? sorted(Object.keys(tags)) : [];
    } catch {
        return [];
    }
}

/** The stack's plan as the policy reads it (the program under the mock engine, as `npm run plan` renders it). */
export async function plannedResources(root: string, stack: string): Promise<PlannedResource[]> {
    const run = await runProgram(root, stack, path.join(root, "index.ts"), "preview");
    return run.resources.map((r) => ({ type: r.type, name: r.name, props: r.props }));
}

/** Which of a stack's policies: the deploy role's, the permissions boundary, the drift check's role's, the preview role's. */
export type PolicyKind = "deploy" | "boundary" | "drift" | "preview";

/** The stack's policy of `kind`: the one place each kind is generated (the command, docs/roles.md, the tests). */
export function stackPolicy(kind: PolicyKind, plan: readonly PlannedResource[], ctx: DeployerContext): PolicyDocument {
    switch (kind) {
        case "boundary":
            return permissionsBoundary(ctx);
        case "drift":
            return driftPolicy(plan, ctx);
        case "preview":
            return previewPolicy(ctx);
        case "deploy":
            return deployerPolicy(plan, ctx);
    }
}

/** What each kind of policy is called in messages. */
const WHAT: Record<PolicyKind, string> = {
    deploy: "deploy role's policy",
    boundary: "permissions boundary",
    drift: "drift role's policy",
    preview: "preview role's policy",
};

/**
 * The stack's policy of `kind`, refused (`DeployerPolicyError`) when it is over IAM's size limit
 * for where it goes (a role's inline policies, or a managed policy for the boundary) or when AWS's
 * authorization data contradicts it: what every command that hands a policy to IAM prints.
 */
export async function checkedStackPolicy(
    kind: PolicyKind,
    plan: readonly PlannedResource[],
    ctx: DeployerContext,
): Promise<PolicyDocument> {
    const doc = stackPolicy(kind, plan, ctx);
    const limit = kind === "boundary" ? MANAGED_POLICY_LIMIT : ROLE_INLINE_POLICY_LIMIT;
    const size = policySize(doc);
    if (size > limit) {
        throw new DeployerPolicyError(`the ${WHAT[kind]} of stack "${ctx.stack}" is ${size} characters, over IAM's ${limit}`);
    }
    const contradicted = await authorizationProblems(doc);
    if (contradicted.length > 0) {
        throw new DeployerPolicyError(
            `the ${WHAT[kind]} of stack "${ctx.stack}" contradicts AWS's authorization data (fix tools/roles/deployerActions.ts or tools/roles/deployRole.ts):\n  ${contradicted.join("\n  ")}`,
        );
    }
    return doc;
}

/**
 * docs/roles.md embeds a stack's policies as `npm run docs` writes them: a JSON block after each
 * marker `<!-- deployer-policy: <stack> -->` (or with ` --boundary`, ` --drift` or ` --preview` after the stack,
 * the options that print it). A test compares them with the generator's. The block ends at its own
 * closing fence, whatever it holds (an empty block included): nothing past it is ever replaced.
 */
export const DOCS_POLICY_MARKER =
    /<!-- deployer-policy: ([A-Za-z0-9_.-]+)(?: --(boundary|drift|preview))? -->\n```json\n(?:(?!```)[\s\S])*```/g;

/** `text` with each marked block replaced by `render(stack, kind)`. */
export function embedPolicies(text: string, render: (stack: string, kind: PolicyKind) => PolicyDocument): string {
    return text.replace(DOCS_POLICY_MARKER, (_all, stack: string, option: Exclude<PolicyKind, "deploy"> | undefined) => {
        const marker = `<!-- deployer-policy: ${stack}${option ? ` --${option}` : ""} -->`;
        return `${marker}\n\`\`\`json\n${JSON.stringify(render(stack, option ?? "deploy"), null, 2)}\n\`\`\``;
    });
}

/** The stacks whose policies `text` embeds. */
export function embeddedStacks(text: string): string[] {
    return [...new Set([...text.matchAll(DOCS_POLICY_MARKER)].map((m) => m[1]))];
}
