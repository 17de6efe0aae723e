import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { createEventQueue } from "../eventQueue";
import { awsContext, clusterArn, eventQueuePolicy, eventRuleArn, permissionsBoundaryArn, podIdentityTrustPolicy, queueArn } from "../iam";
import { vpcResolverAddress } from "../network.schema";
import { nthEventPatterns, nthRuleName, type Toleration } from "./schema";

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

/**
 * The keys NTH's rules had before they were shortened to fit EventBridge's 64-character rule
 * names: kept as aliases, so each rule and its target keep their state.
 */
const NTH_FORMER_RULE_KEYS: Readonly<Record<string, string>> = {
    asg: "asg-terminate",
    spot: "spot-interruption",
    state: "state-change",
    health: "scheduled-change",
};

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

/**
 * DNS of NTH pods when CoreDNS cannot answer. NTH resolves only AWS endpoints (SQS, EC2, Auto
 * Scaling), and a first `up` may start it before CoreDNS runs (CoreDNS waits for the node groups
 * too): it then crash-loops on DNS until its release times out. Karpenter avoids this with
 * `dnsPolicy: Default`; the NTH chart's queue-processor Deployment has no `dnsPolicy` value, only
 * `dnsConfig`, which appends the VPC's resolver after the cluster DNS. While CoreDNS has no ready
 * endpoint, kube-proxy rejects queries to its Service (iptables mode, EKS's default; otherwise they
 * time out after `timeout` seconds) and the resolver moves on to the VPC's; `ndots: 2` sends the
 * AWS endpoint names (two dots or more) out as absolute names first. Source of the chart's values:
 * `config/helm/aws-node-termination-handler/templates/deployment.yaml` of NTH (queue mode renders
 * `dnsConfig`, not `dnsPolicy`). Undefined for a malformed CIDR. Pure.
 */
export function nthDnsConfig(vpcCidr: string): Record<string, unknown> | undefined {
    const resolver = vpcResolverAddress(vpcCidr);
    return resolver
        ? {
              nameservers: [resolver],
              options: [
                  { name: "ndots", value: "2" },
                  { name: "timeout", value: "2" },
              ],
          }
        : undefined;
}

/** Helm values of NTH in queue-processor mode (the queue URL may be an Output). Pure. */
export function nthValues(
    queueUrl: pulumi.Input<string>,
    region: string,
    placement: NthPlacement = {},
    vpcCidr?: string,
): Record<string, unknown> {
    const dnsConfig = vpcCidr === undefined ? undefined : nthDnsConfig(vpcCidr);
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
        // Before it cordons, NTH labels the node node.kubernetes.io/exclude-from-external-load-balancers
        // (chart 0.27.1 values.yaml, EXCLUDE_FROM_LOAD_BALANCERS in templates/deployment.yaml), so
        // instance target groups deregister it while its pods drain, as Karpenter and managed
        // groups do, instead of routing to it until it terminates.
        excludeFromLoadBalancers: true,
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
        ...(dnsConfig ? { dnsConfig } : {}),
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
    /** The VPC's range: NTH pods fall back to its resolver (see `nthDnsConfig`). */
    vpcCidr: string;
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
        const queueName = `${args.clusterName}-nth`;
        const ctx = awsContext(args.region, parent);

        const { queue, targets } = createEventQueue(
            {
                // An event older than the lifecycle heartbeat (or the 2-minute Spot notice) can no longer be acted on.
                queue: { logical: `${name}-queue`, name: queueName, retentionSeconds: LIFECYCLE_HEARTBEAT_SECONDS },
                policyLogical: `${name}-queue-policy`,
                policy: (c) =>
                    eventQueuePolicy(
                        queueArn(c, queueName),
                        Object.keys(nthEventPatterns()).map((rule) => eventRuleArn(c, nthRuleName(args.clusterName, rule))),
                    ),
                rules: Object.entries(nthEventPatterns()).map(([rule, pattern]) => ({
                    logical: `${name}-${rule}`,
                    name: nthRuleName(args.clusterName, rule),
                    description: `${args.clusterName}: ${rule} events to the Node Termination Handler queue`,
                    pattern,
                    ...(NTH_FORMER_RULE_KEYS[rule] ? { formerLogical: `${name}-${NTH_FORMER_RULE_KEYS[rule]}` } : {}),
                })),
                ctx,
            },
            this,
        );
        this.queue = queue;
        this.drainPath.push(...targets);

        this.role = new aws.iam.Role(
            `${name}-role`,
            {
                name: `${args.clusterName}-nth`,
                description: `AWS Node Termination Handler of EKS ${args.clusterName} (Pod Identity)`,
                assumeRolePolicy: ctx.apply((c) =>
                    JSON.stringify(
                        podIdentityTrustPolicy(args.clusterName, NTH_NAMESPACE, NTH_SERVICE_ACCOUNT, {
                            clusterArn: clusterArn(c, args.clusterName),
                        }),
                    ),
                ),
                permissionsBoundary: ctx.apply((c) => permissionsBoundaryArn(c, args.clusterName)),
            },
            parent,
        );
        const rolePolicy = new aws.iam.RolePolicy(
            `${name}-role`,
            {
                role: this.role.name,
                policy: pulumi
                    .all([this.queue.arn, ctx])
                    .apply(([arn, c]) =>
                        JSON.stringify(nthPolicy(arn, nthAsgArnPattern(c.partition, c.region, c.accountId, args.clusterName))),
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
                values: nthValues(this.queue.url, args.region, args.placement, args.vpcCidr),
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
