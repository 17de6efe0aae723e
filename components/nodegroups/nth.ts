import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { podIdentityTrustPolicy } from "../iam";
import type { Toleration } from "./scheduling";

/**
 * Chart of the AWS Node Termination Handler, pinned (chart 0.27.1 = NTH v1.25.1). Bump
 * deliberately: `helm show values oci://public.ecr.aws/aws-ec2/helm/aws-node-termination-handler
 * --version <new>` and check the values in `nthValues` still exist.
 */
export const NTH_CHART = { chart: "oci://public.ecr.aws/aws-ec2/helm/aws-node-termination-handler", version: "0.27.1" };

/** Where NTH runs; the Pod Identity association binds this service account to its role. */
export const NTH_NAMESPACE = "kube-system";
export const NTH_SERVICE_ACCOUNT = "aws-node-termination-handler";

/** The ASG tag NTH checks before it drains an instance: only our self-managed nodes carry it. */
export const NTH_MANAGED_TAG = "aws-node-termination-handler/managed";

/** Seconds the ASG holds a terminating instance for NTH (the lifecycle hook heartbeat). */
export const LIFECYCLE_HEARTBEAT_SECONDS = 300;

/**
 * Seconds NTH gives one node's drain. It must end inside the lifecycle heartbeat, with a margin
 * for NTH to see the message and complete the lifecycle action: after the heartbeat the ASG
 * terminates the instance whatever is still running on it.
 */
export const NTH_DRAIN_SECONDS = 240;

/** The EventBridge patterns that feed the NTH queue, keyed by a short rule name. Pure. */
export function nthEventPatterns(): Record<string, Record<string, unknown>> {
    return {
        "asg-terminate": { source: ["aws.autoscaling"], "detail-type": ["EC2 Instance-terminate Lifecycle Action"] },
        "spot-interruption": { source: ["aws.ec2"], "detail-type": ["EC2 Spot Instance Interruption Warning"] },
        rebalance: { source: ["aws.ec2"], "detail-type": ["EC2 Instance Rebalance Recommendation"] },
        "state-change": { source: ["aws.ec2"], "detail-type": ["EC2 Instance State-change Notification"] },
        "scheduled-change": {
            source: ["aws.health"],
            "detail-type": ["AWS Health Event"],
            detail: { service: ["EC2"], eventTypeCategory: ["scheduledChange"] },
        },
    };
}

/** The queue policy: EventBridge may send; nobody may use the queue without TLS. Pure. */
export function nthQueuePolicy(queueArn: string): Record<string, unknown> {
    return {
        Version: "2012-10-17",
        Statement: [
            {
                Sid: "EventBridgeSends",
                Effect: "Allow",
                Principal: { Service: ["events.amazonaws.com", "sqs.amazonaws.com"] },
                Action: "sqs:SendMessage",
                Resource: queueArn,
            },
            {
                Sid: "DenyNonTls",
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
 * What NTH may do: read and delete queue messages, look up instances and their ASG tags, and
 * complete lifecycle actions of our self-managed groups only. Pure.
 */
export function nthPolicy(queueArn: string, asgArnPattern: string): Record<string, unknown> {
    return {
        Version: "2012-10-17",
        Statement: [
            { Sid: "Queue", Effect: "Allow", Action: ["sqs:ReceiveMessage", "sqs:DeleteMessage"], Resource: queueArn },
            { Sid: "CompleteLifecycle", Effect: "Allow", Action: "autoscaling:CompleteLifecycleAction", Resource: asgArnPattern },
            {
                // These describe calls support no resource-level permissions.
                Sid: "Describe",
                Effect: "Allow",
                Action: ["autoscaling:DescribeAutoScalingInstances", "autoscaling:DescribeTags", "ec2:DescribeInstances"],
                Resource: "*",
            },
        ],
    };
}

export interface NthPlacement {
    /** Node labels NTH pods are scheduled on (the system group). Defaults to `{}`. */
    nodeSelector?: Record<string, string>;
    /** Tolerations of NTH pods. Defaults to `CriticalAddonsOnly` only. */
    tolerations?: Toleration[];
}

/** Helm values of NTH in queue-processor mode (the queue URL may be an Output). Pure. */
export function nthValues(queueUrl: pulumi.Input<string>, region: string, placement: NthPlacement = {}): Record<string, unknown> {
    return {
        enableSqsTerminationDraining: true,
        queueURL: queueUrl,
        awsRegion: region,
        serviceAccount: { create: true, name: NTH_SERVICE_ACCOUNT },
        checkTagBeforeDraining: true,
        managedTag: NTH_MANAGED_TAG,
        deleteSqsMsgIfNodeNotFound: true,
        ignoreDaemonSets: true,
        deleteLocalData: true,
        // -1: each pod keeps its own terminationGracePeriodSeconds; the whole drain is capped below.
        podTerminationGracePeriod: -1,
        nodeTerminationGracePeriod: NTH_DRAIN_SECONDS,
        emitKubernetesEvents: true,
        jsonLogging: true,
        replicas: 2,
        podDisruptionBudget: { maxUnavailable: 1 },
        priorityClassName: "system-cluster-critical",
        resources: { requests: { cpu: "50m", memory: "64Mi" }, limits: { memory: "128Mi" } },
        nodeSelector: { ...(placement.nodeSelector ?? {}) },
        tolerations: placement.tolerations ?? [{ key: "CriticalAddonsOnly", operator: "Exists" }],
    };
}

/**
 * The Auto Scaling groups whose lifecycle actions NTH may complete: every group of this cluster
 * (their names start `<cluster>-`). A pattern rather than the groups' ARNs, so the handler does
 * not depend on the groups and outlives them when they are deleted. Pure.
 */
export function nthAsgArnPattern(partition: string, region: string, accountId: string, clusterName: string): string {
    return `arn:${partition}:autoscaling:${region}:${accountId}:autoScalingGroup:*:autoScalingGroupName/${clusterName}-*`;
}

export interface NodeTerminationHandlerArgs {
    clusterName: string;
    region: string;
    provider: k8s.Provider;
    /** The control plane (Pod Identity associations need it). */
    cluster: pulumi.Resource;
    /** Where NTH pods run. Defaults to anywhere untainted. */
    placement?: NthPlacement;
    /**
     * What NTH pods need to be scheduled: nodes that are not drained by NTH (managed groups).
     * Never the self-managed groups: they depend on NTH, so NTH outlives them. Defaults to `[]`;
     * with none, the release does not wait for its pods (they start when the groups' nodes join).
     */
    releaseDependencies?: pulumi.Resource[];
}

/**
 * AWS Node Termination Handler in queue mode for self-managed groups: an encrypted SQS queue fed
 * by EventBridge (ASG terminate lifecycle actions, Spot interruptions, rebalance recommendations,
 * state changes, scheduled maintenance), an IAM role assumed through EKS Pod Identity, and the
 * chart. NTH cordons and drains the node, then completes the lifecycle action.
 */
export class NodeTerminationHandler extends pulumi.ComponentResource {
    public readonly queue: aws.sqs.Queue;
    public readonly role: aws.iam.Role;
    public readonly release: k8s.helm.v3.Release;
    /**
     * What must exist while a self-managed group's instances terminate (the release, and the
     * EventBridge targets feeding its queue): each Auto Scaling group depends on these, so Pulumi,
     * which deletes dependents first, deletes the group (draining its nodes) before any of them.
     */
    public readonly drainPath: pulumi.Resource[] = [];

    constructor(name: string, args: NodeTerminationHandlerArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:nodegroups:NodeTerminationHandler", name, {}, opts);
        const parent = { parent: this };

        this.queue = new aws.sqs.Queue(
            `${name}-queue`,
            {
                name: `${args.clusterName}-nth`,
                // An event older than the lifecycle heartbeat (or the 2-minute Spot notice) can no longer be acted on.
                messageRetentionSeconds: LIFECYCLE_HEARTBEAT_SECONDS,
                sqsManagedSseEnabled: true,
            },
            parent,
        );
        const queuePolicy = new aws.sqs.QueuePolicy(
            `${name}-queue-policy`,
            { queueUrl: this.queue.url, policy: this.queue.arn.apply((arn) => JSON.stringify(nthQueuePolicy(arn))) },
            parent,
        );

        for (const [rule, pattern] of Object.entries(nthEventPatterns())) {
            const eventRule = new aws.cloudwatch.EventRule(
                `${name}-${rule}`,
                {
                    description: `${args.clusterName}: ${rule} events to the Node Termination Handler queue`,
                    eventPattern: JSON.stringify(pattern),
                },
                parent,
            );
            const target = new aws.cloudwatch.EventTarget(
                `${name}-${rule}`,
                { rule: eventRule.name, arn: this.queue.arn },
                { parent: this, dependsOn: [queuePolicy] },
            );
            this.drainPath.push(target);
        }

        this.role = new aws.iam.Role(
            `${name}-role`,
            {
                name: `${args.clusterName}-nth`,
                description: `AWS Node Termination Handler of EKS ${args.clusterName} (Pod Identity)`,
                assumeRolePolicy: JSON.stringify(podIdentityTrustPolicy(args.clusterName, NTH_NAMESPACE, NTH_SERVICE_ACCOUNT)),
            },
            parent,
        );
        const rolePolicy = new aws.iam.RolePolicy(
            `${name}-role`,
            {
                role: this.role.name,
                policy: pulumi
                    .all([this.queue.arn, aws.getPartitionOutput({}, parent).partition, aws.getCallerIdentityOutput({}, parent).accountId])
                    .apply(([queueArn, partition, accountId]) =>
                        JSON.stringify(nthPolicy(queueArn, nthAsgArnPattern(partition, args.region, accountId, args.clusterName))),
                    ),
            },
            parent,
        );
        const association = new aws.eks.PodIdentityAssociation(
            `${name}-pod-identity`,
            { clusterName: args.clusterName, namespace: NTH_NAMESPACE, serviceAccount: NTH_SERVICE_ACCOUNT, roleArn: this.role.arn },
            { parent: this, dependsOn: [args.cluster] },
        );

        this.release = new k8s.helm.v3.Release(
            `${name}-release`,
            {
                name: "aws-node-termination-handler",
                chart: NTH_CHART.chart,
                version: NTH_CHART.version,
                namespace: NTH_NAMESPACE,
                values: nthValues(this.queue.url, args.region, args.placement),
                // With no other nodes, NTH's pods can only start once the groups it serves exist,
                // and those are created after it.
                ...((args.releaseDependencies ?? []).length === 0 ? { skipAwait: true } : {}),
            },
            { parent: this, provider: args.provider, dependsOn: [association, rolePolicy, ...(args.releaseDependencies ?? [])] },
        );
        this.drainPath.push(this.release);

        this.registerOutputs({ queueUrl: this.queue.url, roleArn: this.role.arn });
    }
}
