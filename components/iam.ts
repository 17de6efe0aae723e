/**
 * IAM documents every component builds the same way: who may assume a role (its trust policy),
 * which AWS managed policies a node role carries, the policy of a queue EventBridge rules feed,
 * and the ARNs they name. Pure functions, except `awsContext`, which reads the account and
 * partition of the running credentials.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { managedPolicyArn, NODE_ROLE_POLICIES, permissionsBoundaryName } from "eks-platform-kernel";

export interface PolicyStatement {
    Sid?: string;
    Effect: "Allow" | "Deny";
    Action?: string | string[];
    NotAction?: string | string[];
    /** Absent in trust policies, where the role itself is the resource. */
    Resource?: string | string[];
    NotResource?: string | string[];
    Principal?: unknown;
    Condition?: Record<string, Record<string, string | string[] | boolean | number>>;
}

export interface PolicyDocument {
    Version: "2012-10-17";
    Id?: string;
    Statement: PolicyStatement[];
}

/** Where a policy is evaluated: partition, region, account. */
export interface AwsContext {
    partition: string;
    region: string;
    accountId: string;
}

/** The partition and account of the credentials running the program: known at preview. What IAM's global ARNs need. */
export function accountContext(opts: pulumi.InvokeOutputOptions): pulumi.Output<Pick<AwsContext, "partition" | "accountId">> {
    const identity = aws.getCallerIdentityOutput({}, opts);
    const partition = aws.getPartitionOutput({}, opts);
    return pulumi.all([partition.partition, identity.accountId]).apply(([p, accountId]) => ({ partition: p, accountId }));
}

/** The partition and account of the credentials running the program, in `region`: known at preview. */
export function awsContext(region: string, opts: pulumi.InvokeOutputOptions): pulumi.Output<AwsContext> {
    return accountContext(opts).apply((c): AwsContext => ({ ...c, region }));
}

export function queueArn(ctx: AwsContext, queueName: string): string {
    return `arn:${ctx.partition}:sqs:${ctx.region}:${ctx.accountId}:${queueName}`;
}

/** IAM is global: a role's ARN names no region. */
export function roleArn(ctx: Pick<AwsContext, "partition" | "accountId">, roleName: string): string {
    return `arn:${ctx.partition}:iam::${ctx.accountId}:role/${roleName}`;
}

/**
 * The permissions boundary every role of `clusterName` carries (kernel/deployScope.ts): the deploy
 * role may create and change roles only with it, and no role of the stack can exceed it.
 */
export function permissionsBoundaryArn(ctx: Pick<AwsContext, "partition" | "accountId">, clusterName: string): string {
    return `arn:${ctx.partition}:iam::${ctx.accountId}:policy/${permissionsBoundaryName(clusterName)}`;
}

/** The permissions boundary of `clusterName` in the account of the running credentials, known at preview. */
export function stackPermissionsBoundary(clusterName: string, opts: pulumi.InvokeOutputOptions): pulumi.Output<string> {
    return accountContext(opts).apply((c) => permissionsBoundaryArn(c, clusterName));
}

/**
 * What the deploy role does to a key the stack created (the provider's calls for `aws:kms/key:Key`
 * and `aws:kms/alias:Alias`, and what EKS requires of the caller that creates a cluster with
 * secrets encryption: `kms:CreateGrant`, `kms:DescribeKey`). Granted by the key's own policy
 * (`stackKeyPolicy`), never by the deploy role's IAM policy: IAM cannot scope key administration to
 * keys that do not exist yet, so the deploy role administers exactly the keys whose policy names it.
 */
export const KEY_ADMINISTRATION_ACTIONS: readonly string[] = [
    "kms:CreateAlias",
    "kms:CreateGrant",
    "kms:DeleteAlias",
    "kms:DescribeKey",
    "kms:DisableKey",
    "kms:DisableKeyRotation",
    "kms:EnableKey",
    "kms:EnableKeyRotation",
    "kms:GetKeyPolicy",
    "kms:GetKeyRotationStatus",
    "kms:ListResourceTags",
    "kms:PutKeyPolicy",
    "kms:ScheduleKeyDeletion",
    "kms:TagResource",
    "kms:UntagResource",
    "kms:UpdateAlias",
    "kms:UpdateKeyDescription",
];

/**
 * The policy of every KMS key the program creates: the account keeps the key (its IAM policies
 * decide, as with KMS's default key policy: people and the roles whose IAM policies grant use of the
 * key), and `administrator`, the stack's deploy role, may administer it. Pure.
 */
export function stackKeyPolicy(ctx: Pick<AwsContext, "partition" | "accountId">, administrator: string): PolicyDocument {
    return {
        Version: "2012-10-17",
        Statement: [
            {
                Sid: "Account",
                Effect: "Allow",
                Principal: { AWS: `arn:${ctx.partition}:iam::${ctx.accountId}:root` },
                Action: "kms:*",
                Resource: "*",
            },
            {
                Sid: "DeployRole",
                Effect: "Allow",
                Principal: { AWS: administrator },
                Action: [...KEY_ADMINISTRATION_ACTIONS],
                Resource: "*",
            },
        ],
    };
}

export function clusterArn(ctx: AwsContext, clusterName: string): string {
    return `arn:${ctx.partition}:eks:${ctx.region}:${ctx.accountId}:cluster/${clusterName}`;
}

export function eventRuleArn(ctx: AwsContext, ruleName: string): string {
    return `arn:${ctx.partition}:events:${ctx.region}:${ctx.accountId}:rule/${ruleName}`;
}

/** The account of an ARN (`arn:partition:service:region:account:…`). Pure. */
export function accountOf(arn: string): string {
    return arn.split(":")[4] ?? "";
}

/**
 * Services that pass session tags when they assume a role: their trust must also allow
 * `sts:TagSession` or the call fails. EKS Pod Identity always tags the session (cluster,
 * namespace, service account); the EKS cluster role's documented trust allows it too.
 */
const TAGGING_SERVICES: readonly string[] = ["pods.eks.amazonaws.com", "eks.amazonaws.com"];

/**
 * The trust policy that lets one AWS service assume a role, optionally only under `condition`.
 * Every role of the platform is trusted through this function. Pure.
 */
export function trustPolicy(service: string, options: { sid?: string; condition?: PolicyStatement["Condition"] } = {}): PolicyDocument {
    return {
        Version: "2012-10-17",
        Statement: [
            {
                ...(options.sid ? { Sid: options.sid } : {}),
                Effect: "Allow",
                Principal: { Service: service },
                Action: TAGGING_SERVICES.includes(service) ? ["sts:AssumeRole", "sts:TagSession"] : "sts:AssumeRole",
                ...(options.condition ? { Condition: options.condition } : {}),
            },
        ],
    };
}

/**
 * Trust for EKS Pod Identity, limited to one service account of one cluster (the agent passes
 * these as session tags on every AssumeRole: Amazon EKS User Guide, "Grant pods access to AWS
 * resources based on tags"), so another cluster's association cannot borrow the role. With
 * `clusterArn` the cluster is also pinned by ARN, which names its account and region (a cluster of
 * the same name elsewhere in the account cannot borrow the role either). Pure.
 */
export function podIdentityTrustPolicy(
    clusterName: string,
    namespace: string,
    serviceAccount: string,
    options: { sid?: string; clusterArn?: string } = {},
): PolicyDocument {
    return trustPolicy("pods.eks.amazonaws.com", {
        sid: options.sid,
        condition: {
            StringEquals: {
                ...(options.clusterArn ? { "aws:RequestTag/eks-cluster-arn": options.clusterArn } : {}),
                "aws:RequestTag/eks-cluster-name": clusterName,
                "aws:RequestTag/kubernetes-namespace": namespace,
                "aws:RequestTag/kubernetes-service-account": serviceAccount,
            },
        },
    });
}

/**
 * Policy of a queue that EventBridge rules feed: only those rules of this account may send
 * (EventBridge sets `aws:SourceArn` to the rule and `aws:SourceAccount` to its account), and
 * nobody may use the queue without TLS. Pure.
 */
export function eventQueuePolicy(queueArn: string, ruleArns: string[], id?: string): PolicyDocument {
    return {
        Version: "2012-10-17",
        ...(id ? { Id: id } : {}),
        Statement: [
            {
                Sid: "AllowEventBridgeRulesToSend",
                Effect: "Allow",
                Principal: { Service: "events.amazonaws.com" },
                Action: "sqs:SendMessage",
                Resource: queueArn,
                Condition: {
                    ArnEquals: { "aws:SourceArn": ruleArns },
                    StringEquals: { "aws:SourceAccount": accountOf(queueArn) },
                },
            },
            {
                Sid: "DenyNonTLS",
                Effect: "Deny",
                Principal: "*",
                Action: "sqs:*",
                Resource: queueArn,
                Condition: { Bool: { "aws:SecureTransport": "false" } },
            },
        ],
    };
}

/**
 * The managed policies of a node role keyed by a short name (the suffix of each attachment's
 * resource name): what every node needs to join and run pods, plus AmazonSSMManagedInstanceCore
 * when `ssm` (shell access through Session Manager, no SSH keys or open ports). Pure.
 */
export function nodeRoleManagedPolicies(ssm: boolean, partition = "aws"): Record<string, string> {
    return {
        ...Object.fromEntries(NODE_ROLE_POLICIES.map((p) => [p.key, managedPolicyArn(p.policy, partition)])),
        ...(ssm ? { ssm: managedPolicyArn("AmazonSSMManagedInstanceCore", partition) } : {}),
    };
}

/** A node role: the role, its ARN from its static name (known at preview; users depend on `role`), its policy attachments. */
export interface NodeRole {
    role: aws.iam.Role;
    /**
     * The role's ARN built from its static name, the account and the partition: known at preview
     * (unlike `role.arn`), so policies can link node groups and access entries to the role by name.
     * Whoever uses it must also depend on `role`.
     */
    arn: pulumi.Output<string>;
    /** The policy attachments; nodes need them before they can join. */
    attachments: aws.iam.RolePolicyAttachment[];
}

/**
 * The one way a role of EC2 nodes is made (node groups, Karpenter's nodes, EKS Auto Mode's): a
 * static name, EC2's trust, the stack's permissions boundary, and one attachment per managed
 * policy, each named `<logical>-<key>`, under `parent`.
 */
export function createEc2NodeRole(
    logical: string,
    args: {
        roleName: string;
        clusterName: string;
        description: string;
        policies: Readonly<Record<string, pulumi.Input<string>>>;
        tags?: Record<string, string>;
    },
    parent: pulumi.Resource,
): NodeRole {
    const role = new aws.iam.Role(
        logical,
        {
            name: args.roleName,
            description: args.description,
            assumeRolePolicy: JSON.stringify(trustPolicy("ec2.amazonaws.com")),
            permissionsBoundary: stackPermissionsBoundary(args.clusterName, { parent }),
            ...(args.tags !== undefined ? { tags: args.tags } : {}),
        },
        { parent },
    );
    const attachments = Object.entries(args.policies).map(
        ([key, policyArn]) => new aws.iam.RolePolicyAttachment(`${logical}-${key}`, { role: role.name, policyArn }, { parent }),
    );
    const arn = accountContext({ parent }).apply((c) => roleArn(c, args.roleName));
    return { role, arn, attachments };
}
