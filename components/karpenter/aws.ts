/**
 * The AWS side of Karpenter: the role its nodes run as (and that role's access entry), the
 * controller's role (EKS Pod Identity) with a policy scoped to this cluster, and the interruption
 * queue EventBridge feeds so Spot reclaims and maintenance become graceful drains.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { nodeRoleManagedPolicies, podIdentityTrustPolicy, PolicyDocument, trustPolicy } from "../iam";
import { karpenterNames } from "./names";

/** Namespace and service account of the controller; the Helm values use the same pair. */
export const CONTROLLER_NAMESPACE = "kube-system";
export const CONTROLLER_SERVICE_ACCOUNT = "karpenter";

/** An EventBridge rule feeding the interruption queue. */
export interface InterruptionEvent {
    /** Suffix of the rule's logical name. */
    key: string;
    description: string;
    pattern: { source: string[]; "detail-type": string[] };
}

/**
 * Every event Karpenter's interruption controller acts on. Karpenter filters the messages itself
 * (e.g. Health events for other services), so the patterns stay as broad as its reference setup.
 */
export const INTERRUPTION_EVENTS: readonly InterruptionEvent[] = [
    {
        key: "scheduled-change",
        description: "AWS Health scheduled changes (instance retirement, maintenance)",
        pattern: { source: ["aws.health"], "detail-type": ["AWS Health Event"] },
    },
    {
        key: "spot-interruption",
        description: "Spot two-minute interruption warnings",
        pattern: { source: ["aws.ec2"], "detail-type": ["EC2 Spot Instance Interruption Warning"] },
    },
    {
        key: "rebalance",
        description: "Spot rebalance recommendations (elevated interruption risk)",
        pattern: { source: ["aws.ec2"], "detail-type": ["EC2 Instance Rebalance Recommendation"] },
    },
    {
        key: "state-change",
        description: "Instances stopping or terminating outside Karpenter",
        pattern: { source: ["aws.ec2"], "detail-type": ["EC2 Instance State-change Notification"] },
    },
    {
        key: "capacity-reservation-interruption",
        description: "Capacity reservation (ODCR / capacity block) reclaim warnings",
        pattern: { source: ["aws.ec2"], "detail-type": ["EC2 Capacity Reservation Instance Interruption Warning"] },
    },
];

/** Where a policy is evaluated: partition, region, account. */
export interface AwsContext {
    partition: string;
    region: string;
    accountId: string;
}

export function queueArn(ctx: AwsContext, queueName: string): string {
    return `arn:${ctx.partition}:sqs:${ctx.region}:${ctx.accountId}:${queueName}`;
}

export function roleArn(ctx: AwsContext, roleName: string): string {
    return `arn:${ctx.partition}:iam::${ctx.accountId}:role/${roleName}`;
}

/**
 * The controller's permissions, the same statement set as Karpenter's reference CloudFormation:
 * every write is limited to resources tagged for this cluster (`kubernetes.io/cluster/<name>:
 * owned` plus a `karpenter.sh/nodepool` or `karpenter.k8s.aws/ec2nodeclass` tag), `iam:PassRole`
 * reaches only the node role, and the only `*` resources are read-only calls. Pure.
 */
export function controllerPolicyDocument(
    ctx: AwsContext & { clusterName: string; nodeRoleName: string; queueName: string },
): PolicyDocument {
    const ec2 = (type: string, account = "*") => `arn:${ctx.partition}:ec2:${ctx.region}:${account}:${type}/*`;
    const requestOwned = {
        [`aws:RequestTag/kubernetes.io/cluster/${ctx.clusterName}`]: "owned",
        "aws:RequestTag/eks:eks-cluster-name": ctx.clusterName,
    };
    const resourceOwned = { [`aws:ResourceTag/kubernetes.io/cluster/${ctx.clusterName}`]: "owned" };
    const launched = ["fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request"].map((t) => ec2(t));
    const instanceProfiles = `arn:${ctx.partition}:iam::${ctx.accountId}:instance-profile/*`;
    const region = { "aws:RequestTag/topology.kubernetes.io/region": ctx.region };
    return {
        Version: "2012-10-17",
        Statement: [
            {
                Sid: "AllowScopedEC2InstanceAccessActions",
                Effect: "Allow",
                Action: ["ec2:RunInstances", "ec2:CreateFleet"],
                Resource: [
                    `arn:${ctx.partition}:ec2:${ctx.region}::image/*`,
                    `arn:${ctx.partition}:ec2:${ctx.region}::snapshot/*`,
                    ec2("security-group"),
                    ec2("subnet"),
                    ec2("capacity-reservation"),
                ],
            },
            {
                Sid: "AllowScopedEC2LaunchTemplateAccessActions",
                Effect: "Allow",
                Action: ["ec2:RunInstances", "ec2:CreateFleet"],
                Resource: ec2("launch-template"),
                Condition: { StringEquals: resourceOwned, StringLike: { "aws:ResourceTag/karpenter.sh/nodepool": "*" } },
            },
            {
                Sid: "AllowScopedEC2InstanceActionsWithTags",
                Effect: "Allow",
                Action: ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
                Resource: [...launched, ec2("capacity-reservation")],
                Condition: { StringEquals: requestOwned, StringLike: { "aws:RequestTag/karpenter.sh/nodepool": "*" } },
            },
            {
                Sid: "AllowScopedResourceCreationTagging",
                Effect: "Allow",
                Action: "ec2:CreateTags",
                Resource: launched,
                Condition: {
                    StringEquals: { ...requestOwned, "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"] },
                    StringLike: { "aws:RequestTag/karpenter.sh/nodepool": "*" },
                },
            },
            {
                Sid: "AllowScopedResourceTagging",
                Effect: "Allow",
                Action: "ec2:CreateTags",
                Resource: ec2("instance"),
                Condition: {
                    StringEquals: resourceOwned,
                    StringLike: { "aws:ResourceTag/karpenter.sh/nodepool": "*" },
                    StringEqualsIfExists: { "aws:RequestTag/eks:eks-cluster-name": ctx.clusterName },
                    "ForAllValues:StringEquals": { "aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"] },
                },
            },
            {
                Sid: "AllowScopedDeletion",
                Effect: "Allow",
                Action: ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
                Resource: [ec2("instance"), ec2("launch-template")],
                Condition: { StringEquals: resourceOwned, StringLike: { "aws:ResourceTag/karpenter.sh/nodepool": "*" } },
            },
            {
                Sid: "AllowRegionalReadActions",
                Effect: "Allow",
                Action: [
                    "ec2:DescribeCapacityReservations",
                    "ec2:DescribeImages",
                    "ec2:DescribeInstances",
                    "ec2:DescribeInstanceTypeOfferings",
                    "ec2:DescribeInstanceTypes",
                    "ec2:DescribeLaunchTemplates",
                    "ec2:DescribeSecurityGroups",
                    "ec2:DescribeSpotPriceHistory",
                    "ec2:DescribeSubnets",
                ],
                // Describe calls support no resource-level scoping; pin them to this region instead.
                Resource: "*",
                Condition: { StringEquals: { "aws:RequestedRegion": ctx.region } },
            },
            {
                // Resolves AMI aliases (al2023@v…) through the public SSM parameters.
                Sid: "AllowSSMReadActions",
                Effect: "Allow",
                Action: "ssm:GetParameter",
                Resource: `arn:${ctx.partition}:ssm:${ctx.region}::parameter/aws/service/*`,
            },
            { Sid: "AllowPricingReadActions", Effect: "Allow", Action: "pricing:GetProducts", Resource: "*" },
            {
                Sid: "AllowInterruptionQueueActions",
                Effect: "Allow",
                Action: ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
                Resource: queueArn(ctx, ctx.queueName),
            },
            {
                Sid: "AllowPassingInstanceRole",
                Effect: "Allow",
                Action: "iam:PassRole",
                Resource: roleArn(ctx, ctx.nodeRoleName),
                Condition: { StringEquals: { "iam:PassedToService": "ec2.amazonaws.com" } },
            },
            {
                Sid: "AllowScopedInstanceProfileCreationActions",
                Effect: "Allow",
                Action: "iam:CreateInstanceProfile",
                Resource: instanceProfiles,
                Condition: {
                    StringEquals: { ...requestOwned, ...region },
                    StringLike: { "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*" },
                },
            },
            {
                Sid: "AllowScopedInstanceProfileTagActions",
                Effect: "Allow",
                Action: "iam:TagInstanceProfile",
                Resource: instanceProfiles,
                Condition: {
                    StringEquals: {
                        ...resourceOwned,
                        "aws:ResourceTag/topology.kubernetes.io/region": ctx.region,
                        ...requestOwned,
                        ...region,
                    },
                    StringLike: {
                        "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
                        "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*",
                    },
                },
            },
            {
                Sid: "AllowScopedInstanceProfileActions",
                Effect: "Allow",
                Action: ["iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"],
                Resource: instanceProfiles,
                Condition: {
                    StringEquals: { ...resourceOwned, "aws:ResourceTag/topology.kubernetes.io/region": ctx.region },
                    StringLike: { "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*" },
                },
            },
            { Sid: "AllowInstanceProfileReadActions", Effect: "Allow", Action: "iam:GetInstanceProfile", Resource: instanceProfiles },
            {
                // Garbage collection of instance profiles whose EC2NodeClass is gone lists them all;
                // the List call accepts no resource ARN.
                Sid: "AllowUnscopedInstanceProfileListAction",
                Effect: "Allow",
                Action: "iam:ListInstanceProfiles",
                Resource: "*",
            },
            {
                Sid: "AllowAPIServerEndpointDiscovery",
                Effect: "Allow",
                Action: "eks:DescribeCluster",
                Resource: `arn:${ctx.partition}:eks:${ctx.region}:${ctx.accountId}:cluster/${ctx.clusterName}`,
            },
        ],
    };
}

/** Queue policy: EventBridge (and SQS) may send; nothing may use the queue without TLS. Pure. */
export function interruptionQueuePolicyDocument(arn: string): PolicyDocument {
    return {
        Version: "2012-10-17",
        Id: "KarpenterInterruptionQueue",
        Statement: [
            {
                Sid: "AllowEventBridgeToSend",
                Effect: "Allow",
                Principal: { Service: ["events.amazonaws.com", "sqs.amazonaws.com"] },
                Action: "sqs:SendMessage",
                Resource: arn,
            },
            {
                Sid: "DenyNonTLS",
                Effect: "Deny",
                Principal: "*",
                Action: "sqs:*",
                Resource: arn,
                Condition: { Bool: { "aws:SecureTransport": "false" } },
            },
        ],
    };
}

export interface KarpenterAwsArgs {
    /** Static cluster name: scopes every policy condition and names the node role and queue. */
    clusterName: string;
    /** AWS region of the cluster. */
    region: string;
    /** The EKS control plane; access entries and Pod Identity associations need it to exist. */
    cluster: pulumi.Resource;
}

/**
 * IAM, Pod Identity and the interruption queue for one cluster's Karpenter. Names that policies
 * and Helm values link by (node role, queue) are static, so they are known at preview.
 */
export class KarpenterAws extends pulumi.ComponentResource {
    /** Static name of the node role; EC2NodeClasses reference it by name. */
    public readonly nodeRoleName: string;
    /** Static name of the interruption queue (Helm `settings.interruptionQueue`). */
    public readonly queueName: string;
    public readonly nodeRole: aws.iam.Role;
    public readonly controllerRole: aws.iam.Role;
    public readonly queue: aws.sqs.Queue;
    /** What must exist before Karpenter launches a node: node role policies and its access entry. */
    public readonly nodeReady: pulumi.Resource[];
    /** What must exist before the controller starts: its permissions and its Pod Identity association. */
    public readonly controllerReady: pulumi.Resource[];

    constructor(name: string, args: KarpenterAwsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:karpenter:KarpenterAws", name, {}, opts);
        const parent = { parent: this };
        const names = karpenterNames(args.clusterName);
        this.nodeRoleName = names.nodeRole;
        this.queueName = names.interruptionQueue;

        const identity = aws.getCallerIdentityOutput({}, parent);
        const partition = aws.getPartitionOutput({}, parent);
        const ctx = pulumi
            .all([partition.partition, identity.accountId])
            .apply(([p, accountId]): AwsContext => ({ partition: p, region: args.region, accountId }));

        // Nodes.
        this.nodeRole = new aws.iam.Role(
            `${name}-node`,
            {
                name: names.nodeRole,
                description: `Nodes Karpenter launches for EKS cluster ${args.clusterName}`,
                assumeRolePolicy: JSON.stringify(trustPolicy("ec2.amazonaws.com")),
            },
            parent,
        );
        const attachments = Object.entries(nodeRoleManagedPolicies(true)).map(
            ([key, policyArn]) => new aws.iam.RolePolicyAttachment(`${name}-node-${key}`, { role: this.nodeRole.name, policyArn }, parent),
        );
        // Without an access entry the instances boot but never register as nodes.
        const accessEntry = new aws.eks.AccessEntry(
            `${name}-node`,
            { clusterName: args.clusterName, principalArn: this.nodeRole.arn, type: "EC2_LINUX" },
            { parent: this, dependsOn: [args.cluster] },
        );
        this.nodeReady = [...attachments, accessEntry];

        // Interruption queue and the rules feeding it.
        this.queue = new aws.sqs.Queue(
            `${name}-interruption`,
            {
                name: names.interruptionQueue,
                // An interruption older than the two-minute Spot notice is no longer actionable.
                messageRetentionSeconds: 300,
                sqsManagedSseEnabled: true,
            },
            parent,
        );
        const queuePolicy = new aws.sqs.QueuePolicy(
            `${name}-interruption`,
            {
                queueUrl: this.queue.url,
                policy: ctx.apply((c) => JSON.stringify(interruptionQueuePolicyDocument(queueArn(c, names.interruptionQueue)))),
            },
            parent,
        );
        for (const event of INTERRUPTION_EVENTS) {
            const rule = new aws.cloudwatch.EventRule(
                `${name}-${event.key}`,
                { description: `Karpenter ${args.clusterName}: ${event.description}`, eventPattern: JSON.stringify(event.pattern) },
                parent,
            );
            new aws.cloudwatch.EventTarget(
                `${name}-${event.key}`,
                { rule: rule.name, targetId: "KarpenterInterruptionQueue", arn: this.queue.arn },
                // Until the policy lets EventBridge send, its deliveries are refused.
                { parent: this, dependsOn: [queuePolicy] },
            );
        }

        // Controller.
        this.controllerRole = new aws.iam.Role(
            `${name}-controller`,
            {
                description: `Karpenter controller of EKS cluster ${args.clusterName} (Pod Identity ${CONTROLLER_NAMESPACE}/${CONTROLLER_SERVICE_ACCOUNT})`,
                assumeRolePolicy: JSON.stringify(
                    podIdentityTrustPolicy(
                        args.clusterName,
                        CONTROLLER_NAMESPACE,
                        CONTROLLER_SERVICE_ACCOUNT,
                        "AllowEksPodIdentityForKarpenter",
                    ),
                ),
            },
            parent,
        );
        const controllerPolicy = new aws.iam.RolePolicy(
            `${name}-controller`,
            {
                role: this.controllerRole.name,
                policy: ctx.apply((c) =>
                    JSON.stringify(
                        controllerPolicyDocument({
                            ...c,
                            clusterName: args.clusterName,
                            nodeRoleName: names.nodeRole,
                            queueName: names.interruptionQueue,
                        }),
                    ),
                ),
            },
            parent,
        );
        const association = new aws.eks.PodIdentityAssociation(
            `${name}-controller`,
            {
                clusterName: args.clusterName,
                namespace: CONTROLLER_NAMESPACE,
                serviceAccount: CONTROLLER_SERVICE_ACCOUNT,
                roleArn: this.controllerRole.arn,
            },
            { parent: this, dependsOn: [args.cluster] },
        );
        this.controllerReady = [controllerPolicy, association];

        this.registerOutputs({
            nodeRoleName: this.nodeRoleName,
            queueName: this.queueName,
            controllerRoleArn: this.controllerRole.arn,
        });
    }
}
