/**
 * IAM documents and ARNs more than one component writes: the trust of a role assumed through EKS
 * Pod Identity, the policy of a queue EventBridge feeds, and the ARNs they name. Pure functions,
 * except `awsContext`, which reads the account and partition of the running credentials.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";

/** Where a policy is evaluated: partition, region, account. */
export interface AwsContext {
    partition: string;
    region: string;
    accountId: string;
}

/** The partition and account of the credentials running the program, in `region`: known at preview. */
export function awsContext(region: string, opts: pulumi.InvokeOutputOptions): pulumi.Output<AwsContext> {
    const identity = aws.getCallerIdentityOutput({}, opts);
    const partition = aws.getPartitionOutput({}, opts);
    return pulumi
        .all([partition.partition, identity.accountId])
        .apply(([p, accountId]): AwsContext => ({ partition: p, region, accountId }));
}

export function queueArn(ctx: AwsContext, queueName: string): string {
    return `arn:${ctx.partition}:sqs:${ctx.region}:${ctx.accountId}:${queueName}`;
}

export function roleArn(ctx: AwsContext, roleName: string): string {
    return `arn:${ctx.partition}:iam::${ctx.accountId}:role/${roleName}`;
}

export function clusterArn(ctx: AwsContext, clusterName: string): string {
    return `arn:${ctx.partition}:eks:${ctx.region}:${ctx.accountId}:cluster/${clusterName}`;
}

export function eventRuleArn(ctx: AwsContext, ruleName: string): string {
    return `arn:${ctx.partition}:events:${ctx.region}:${ctx.accountId}:rule/${ruleName}`;
}

export interface PolicyStatement {
    Sid: string;
    Effect: "Allow" | "Deny";
    Action: string | string[];
    /** Absent in trust policies, where the role itself is the resource. */
    Resource?: string | string[];
    Principal?: unknown;
    Condition?: Record<string, Record<string, string | string[]>>;
}

export interface PolicyDocument {
    Version: "2012-10-17";
    Id?: string;
    Statement: PolicyStatement[];
}

/** The service account a Pod Identity role is for: one cluster, one namespace, one name. */
export interface PodIdentitySubject {
    /** ARN of the cluster (it names the account and region, unlike the cluster name alone). */
    clusterArn: string;
    namespace: string;
    serviceAccount: string;
}

/**
 * Trust of a role assumed through EKS Pod Identity, by one service account of one cluster only.
 * Pod Identity passes the cluster ARN, namespace and service account as session tags on every
 * AssumeRole (Amazon EKS User Guide, "Grant pods access to AWS resources based on tags": the six
 * tags it adds); without these conditions any Pod Identity association in the account could use
 * the role. Pure.
 */
export function podIdentityTrustPolicy(subject: PodIdentitySubject): PolicyDocument {
    return {
        Version: "2012-10-17",
        Statement: [
            {
                Sid: "AllowEksPodIdentity",
                Effect: "Allow",
                Principal: { Service: "pods.eks.amazonaws.com" },
                Action: ["sts:AssumeRole", "sts:TagSession"],
                Condition: {
                    StringEquals: {
                        "aws:RequestTag/eks-cluster-arn": subject.clusterArn,
                        "aws:RequestTag/kubernetes-namespace": subject.namespace,
                        "aws:RequestTag/kubernetes-service-account": subject.serviceAccount,
                    },
                },
            },
        ],
    };
}

/** The account of an ARN (`arn:partition:service:region:account:…`). Pure. */
export function accountOf(arn: string): string {
    return arn.split(":")[4] ?? "";
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
