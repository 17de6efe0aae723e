/**
 * The AWS side of Karpenter: the role its nodes run as (and that role's access entry), the
 * controller's role (EKS Pod Identity) with a policy scoped to this cluster, and the interruption
 * queue EventBridge feeds so Spot reclaims and maintenance become graceful drains.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { capacityTypesAllowed } from "eks-platform-kernel";
import {
    awsContext,
    type AwsContext,
    clusterArn,
    createEc2NodeRole,
    eventQueuePolicy,
    eventRuleArn,
    nodeRoleManagedPolicies,
    podIdentityTrustPolicy,
    type PolicyDocument,
    queueArn,
    roleArn,
    permissionsBoundaryArn,
} from "../iam";
import { createEventQueue } from "../eventQueue";
import { type EnabledKarpenterConfig, karpenterNames, type KarpenterNames, type NodePoolConfig } from "./schema";
import { renderReferenceStatements } from "./referencePolicy";

/** Namespace and service account of the controller; the Helm values use the same pair. */
export const CONTROLLER_NAMESPACE = "kube-system";
export const CONTROLLER_SERVICE_ACCOUNT = "karpenter";

/** An EventBridge rule feeding the interruption queue. */
export interface InterruptionEvent {
    /** Suffix of the rule's logical and physical names (at most 9 characters: see `interruptionRuleName`). */
    key: string;
    /** The key before keys were shortened to fit EventBridge's rule names: kept as an alias, so the rule and target keep their state. */
    formerKey?: string;
    description: string;
    pattern: { source: string[]; "detail-type": string[] };
}

/**
 * Every event Karpenter's interruption controller acts on. Karpenter filters the messages itself
 * (e.g. Health events for other services), so the patterns stay as broad as its reference setup.
 */
export const INTERRUPTION_EVENTS: readonly InterruptionEvent[] = [
    {
        key: "health",
        formerKey: "scheduled-change",
        description: "AWS Health scheduled changes (instance retirement, maintenance)",
        pattern: { source: ["aws.health"], "detail-type": ["AWS Health Event"] },
    },
    {
        key: "spot",
        formerKey: "spot-interruption",
        description: "Spot two-minute interruption warnings",
        pattern: { source: ["aws.ec2"], "detail-type": ["EC2 Spot Instance Interruption Warning"] },
    },
    {
        key: "rebalance",
        description: "Spot rebalance recommendations (elevated interruption risk)",
        pattern: { source: ["aws.ec2"], "detail-type": ["EC2 Instance Rebalance Recommendation"] },
    },
    {
        key: "state",
        formerKey: "state-change",
        description: "Instances stopping or terminating outside Karpenter",
        pattern: { source: ["aws.ec2"], "detail-type": ["EC2 Instance State-change Notification"] },
    },
    {
        key: "capacity",
        formerKey: "capacity-reservation-interruption",
        description: "Capacity reservation (ODCR / capacity block) reclaim warnings",
        pattern: { source: ["aws.ec2"], "detail-type": ["EC2 Capacity Reservation Instance Interruption Warning"] },
    },
];

/**
 * Static name of an interruption rule, so the queue policy can name its senders at preview.
 * EventBridge allows 64 characters; Karpenter's node role already limits cluster names to 49
 * (schema.ts), which leaves `-karp-` and a 9-character key. Pure.
 */
export function interruptionRuleName(clusterName: string, key: string): string {
    return `${clusterName}-karp-${key}`;
}

/** A KMS key ARN from an ARN or a bare key id of this account and region. Pure. */
export function kmsKeyArn(ctx: AwsContext, key: string): string {
    return key.startsWith("arn:") ? key : `arn:${ctx.partition}:kms:${ctx.region}:${ctx.accountId}:key/${key}`;
}

/** The account's EC2 Spot service-linked role. */
export function spotServiceLinkedRoleArn(ctx: AwsContext): string {
    return `arn:${ctx.partition}:iam::${ctx.accountId}:role/aws-service-role/spot.amazonaws.com/AWSServiceRoleForEC2Spot`;
}

/**
 * What the controller may do with customer-managed keys of EC2NodeClass root volumes: only
 * through EC2 in this region and for this account (what EBS does when it encrypts a launched
 * volume), and grants only for AWS resources. Without it Karpenter's nodes terminate right after
 * launch (Karpenter troubleshooting, "Node terminates before ready on failed encrypted EBS
 * volume"; EC2 Auto Scaling guide, "Required AWS KMS key policy for use with encrypted volumes").
 * The key policy must delegate to IAM, as the default key policy does. Pure.
 */
export function customerKeyStatements(ctx: AwsContext, keyArns: string[]): PolicyDocument["Statement"] {
    if (keyArns.length === 0) {
        return [];
    }
    const viaEc2 = { "kms:ViaService": `ec2.${ctx.region}.amazonaws.com`, "kms:CallerAccount": ctx.accountId };
    return [
        {
            Sid: "AllowEbsUseOfCustomerKeys",
            Effect: "Allow",
            Action: ["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey"],
            Resource: keyArns,
            Condition: { StringEquals: viaEc2 },
        },
        {
            Sid: "AllowEbsGrantsOnCustomerKeys",
            Effect: "Allow",
            Action: "kms:CreateGrant",
            Resource: keyArns,
            Condition: { StringEquals: viaEc2, Bool: { "kms:GrantIsForAWSResource": "true" } },
        },
    ];
}

/**
 * The controller's permissions: Karpenter's reference statements for the installed version
 * (./referencePolicy.ts, kept as data next to its source), rendered for this cluster, plus the
 * use of customer-managed volume keys when EC2NodeClasses name any. Every write is limited to
 * resources tagged for this cluster, `iam:PassRole` reaches only the node role, and the only `*`
 * resources are read-only calls. Pure.
 */
export function controllerPolicyDocument(
    ctx: AwsContext & { clusterName: string; nodeRoleName: string; queueName: string; customerKeyArns?: string[] },
): PolicyDocument {
    return {
        Version: "2012-10-17",
        Statement: [
            ...renderReferenceStatements({
                ...ctx,
                nodeRoleArn: roleArn(ctx, ctx.nodeRoleName),
                queueArn: queueArn(ctx, ctx.queueName),
            }),
            ...customerKeyStatements(ctx, ctx.customerKeyArns ?? []),
        ],
    };
}

/** The operations of the grant that lets the Spot service-linked role launch volumes with a customer key. */
export const SPOT_KEY_GRANT_OPERATIONS = [
    "Decrypt",
    "Encrypt",
    "GenerateDataKey",
    "GenerateDataKeyWithoutPlaintext",
    "CreateGrant",
    "DescribeKey",
    "ReEncryptFrom",
    "ReEncryptTo",
];

/**
 * True when a NodePool may launch Spot capacity: its capacity-type requirement admits `spot`
 * (the pack's reading of the requirement). Without any such requirement Karpenter launches
 * on-demand only. Pure.
 */
export function allowsSpot(pool: Pick<NodePoolConfig, "requirements">): boolean {
    return capacityTypesAllowed(pool.requirements).includes("spot");
}

/** A customer-managed key of EC2NodeClass root volumes, and whether Spot launches use it. */
export interface VolumeKey {
    /** Key ARN or id, as in `rootVolume.kmsKeyId`. */
    key: string;
    /** A NodePool that may launch Spot uses a class with this key. */
    spot: boolean;
}

/** Every distinct `rootVolume.kmsKeyId` of the EC2NodeClasses, with whether a Spot pool uses it. Pure. */
export function volumeKeys(config: Pick<EnabledKarpenterConfig, "nodeClasses" | "nodePools">): VolumeKey[] {
    const keys = new Map<string, VolumeKey>();
    for (const [className, nodeClass] of Object.entries(config.nodeClasses)) {
        const key = nodeClass.rootVolume.kmsKeyId;
        if (key === undefined) {
            continue;
        }
        const spot = Object.values(config.nodePools).some((pool) => pool.nodeClassRef.name === className && allowsSpot(pool));
        keys.set(key, { key, spot: spot || (keys.get(key)?.spot ?? false) });
    }
    return [...keys.values()];
}

/** The target id of the queue in every interruption rule. */
const INTERRUPTION_TARGET_ID = "KarpenterInterruptionQueue";

/** The interruption queue's policy: only the interruption rules of this cluster may send, over TLS. Pure. */
export function interruptionQueuePolicy(ctx: AwsContext, clusterName: string, queueName: string): PolicyDocument {
    return eventQueuePolicy(
        queueArn(ctx, queueName),
        INTERRUPTION_EVENTS.map((event) => eventRuleArn(ctx, interruptionRuleName(clusterName, event.key))),
        "KarpenterInterruptionQueue",
    );
}

/** The controller role's trust: EKS Pod Identity for the controller's service account of this cluster only. Pure. */
export function controllerTrustPolicy(ctx: AwsContext, clusterName: string): PolicyDocument {
    return podIdentityTrustPolicy(clusterName, CONTROLLER_NAMESPACE, CONTROLLER_SERVICE_ACCOUNT, {
        sid: "AllowEksPodIdentityForKarpenter",
        clusterArn: clusterArn(ctx, clusterName),
    });
}

/**
 * The KMS grants the Spot service-linked role needs: one per customer key a Spot pool's volumes
 * use, named by the key's id (the last part of its ARN), never by list position. Pure.
 */
export function spotKeyGrants(keys: readonly VolumeKey[]): { key: string; suffix: string }[] {
    return keys.filter((k) => k.spot).map((k) => ({ key: k.key, suffix: k.key.split("/").pop() ?? k.key }));
}

export interface KarpenterAwsArgs {
    /** Static cluster name: scopes every policy condition and names the node role and queue. */
    clusterName: string;
    /** AWS region of the cluster. */
    region: string;
    /** The EKS control plane; access entries and Pod Identity associations need it to exist. */
    cluster: pulumi.Resource;
    /** Customer-managed keys of EC2NodeClass root volumes. Defaults to `[]`. */
    volumeKeys?: VolumeKey[];
    /**
     * Create the account's EC2 Spot service-linked role (once per account; see
     * `karpenter.createSpotServiceLinkedRole`). Defaults to `false`.
     */
    createSpotServiceLinkedRole?: boolean;
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
        const names = karpenterNames(args.clusterName);
        this.nodeRoleName = names.nodeRole;
        this.queueName = names.interruptionQueue;
        const ctx = awsContext(args.region, { parent: this });

        const nodes = this.nodeAccess(name, args, names);
        this.nodeRole = nodes.role;
        this.queue = this.interruptionQueue(name, args, names, ctx);
        this.nodeReady = [...nodes.ready, ...this.spotAccess(name, args, ctx)];
        const controller = this.controller(name, args, names, ctx);
        this.controllerRole = controller.role;
        this.controllerReady = controller.ready;

        this.registerOutputs({
            nodeRoleName: this.nodeRoleName,
            queueName: this.queueName,
            controllerRoleArn: this.controllerRole.arn,
        });
    }

    /** The role Karpenter's nodes run as, its managed policies, and its access entry. */
    private nodeAccess(name: string, args: KarpenterAwsArgs, names: KarpenterNames): { role: aws.iam.Role; ready: pulumi.Resource[] } {
        const { role, attachments } = createEc2NodeRole(
            `${name}-node`,
            {
                roleName: names.nodeRole,
                clusterName: args.clusterName,
                description: `Nodes Karpenter launches for EKS cluster ${args.clusterName}`,
                policies: nodeRoleManagedPolicies(true),
            },
            this,
        );
        // Without an access entry the instances boot but never register as nodes.
        const accessEntry = new aws.eks.AccessEntry(
            `${name}-node`,
            { clusterName: args.clusterName, principalArn: role.arn, type: "EC2_LINUX" },
            { parent: this, dependsOn: [args.cluster] },
        );
        return { role, ready: [...attachments, accessEntry] };
    }

    /** The interruption queue and the EventBridge rules feeding it. */
    private interruptionQueue(name: string, args: KarpenterAwsArgs, names: KarpenterNames, ctx: pulumi.Output<AwsContext>): aws.sqs.Queue {
        const { queue } = createEventQueue(
            {
                // An interruption older than the two-minute Spot notice is no longer actionable.
                queue: { logical: `${name}-interruption`, name: names.interruptionQueue, retentionSeconds: 300 },
                policyLogical: `${name}-interruption`,
                policy: (c) => interruptionQueuePolicy(c, args.clusterName, names.interruptionQueue),
                rules: INTERRUPTION_EVENTS.map((event) => ({
                    logical: `${name}-${event.key}`,
                    name: interruptionRuleName(args.clusterName, event.key),
                    description: `Karpenter ${args.clusterName}: ${event.description}`,
                    pattern: event.pattern,
                    ...(event.formerKey ? { formerLogical: `${name}-${event.formerKey}` } : {}),
                })),
                targetId: INTERRUPTION_TARGET_ID,
                ctx,
            },
            this,
        );
        return queue;
    }

    /**
     * Spot capacity: the account's service-linked role, and the grants that let it use the
     * customer keys of volumes it launches (EC2 User Guide, "Service-linked role for Spot
     * Instance requests"). The role is shared by the whole account, so it outlives the stack.
     */
    private spotAccess(name: string, args: KarpenterAwsArgs, ctx: pulumi.Output<AwsContext>): pulumi.Resource[] {
        const spotRole = args.createSpotServiceLinkedRole
            ? new aws.iam.ServiceLinkedRole(
                  `${name}-spot`,
                  { awsServiceName: "spot.amazonaws.com", description: "EC2 Spot (created by the eks-platform stack that owns it)" },
                  { parent: this, retainOnDelete: true },
              )
            : undefined;
        const grants = spotKeyGrants(args.volumeKeys ?? []).map(
            (g) =>
                new aws.kms.Grant(
                    `${name}-spot-${g.suffix}`,
                    {
                        keyId: ctx.apply((c) => kmsKeyArn(c, g.key)),
                        granteePrincipal: ctx.apply(spotServiceLinkedRoleArn),
                        operations: SPOT_KEY_GRANT_OPERATIONS,
                    },
                    { parent: this, dependsOn: spotRole ? [spotRole] : [] },
                ),
        );
        return [...(spotRole ? [spotRole] : []), ...grants];
    }

    /** The controller's role (EKS Pod Identity), its policy and its association. */
    private controller(
        name: string,
        args: KarpenterAwsArgs,
        names: KarpenterNames,
        ctx: pulumi.Output<AwsContext>,
    ): { role: aws.iam.Role; ready: pulumi.Resource[] } {
        const parent = { parent: this };
        const role = new aws.iam.Role(
            `${name}-controller`,
            {
                name: names.controllerRole,
                description: `Karpenter controller of EKS cluster ${args.clusterName} (Pod Identity ${CONTROLLER_NAMESPACE}/${CONTROLLER_SERVICE_ACCOUNT})`,
                assumeRolePolicy: ctx.apply((c) => JSON.stringify(controllerTrustPolicy(c, args.clusterName))),
                permissionsBoundary: ctx.apply((c) => permissionsBoundaryArn(c, args.clusterName)),
            },
            parent,
        );
        const policy = new aws.iam.RolePolicy(
            `${name}-controller`,
            {
                role: role.name,
                policy: ctx.apply((c) =>
                    JSON.stringify(
                        controllerPolicyDocument({
                            ...c,
                            clusterName: args.clusterName,
                            nodeRoleName: names.nodeRole,
                            queueName: names.interruptionQueue,
                            customerKeyArns: (args.volumeKeys ?? []).map((k) => kmsKeyArn(c, k.key)),
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
                roleArn: role.arn,
            },
            { parent: this, dependsOn: [args.cluster] },
        );
        return { role, ready: [policy, association] };
    }
}
