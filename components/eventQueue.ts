/**
 * An SQS queue fed by EventBridge rules, as the node lifecycle handlers use it: the Node
 * Termination Handler's (components/nodegroups/nth.ts) and Karpenter's interruption queue
 * (components/karpenter/aws.ts). One way to build it: the queue (SQS-managed encryption), one rule
 * per event pattern, the queue's policy letting exactly those rules send, and one target per rule
 * that waits for the policy (until it exists, EventBridge's deliveries are refused).
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import type { AwsContext, PolicyDocument } from "./iam";

/** One rule of an event queue: its logical and static names, its pattern, and the logical names it had before. */
export interface EventQueueRule {
    /** Logical name of the rule and of its target. */
    logical: string;
    name: string;
    description: string;
    pattern: unknown;
    /** Former logical names of the rule and its target (their `aliases`). */
    formerLogical?: string;
}

export interface EventQueueArgs {
    queue: { logical: string; name: string; retentionSeconds: number };
    /** Logical name of the queue's policy. */
    policyLogical: string;
    /** The queue's policy, from the account context: only `rules` may send. */
    policy: (ctx: AwsContext) => PolicyDocument;
    rules: readonly EventQueueRule[];
    /** The targets' id, when the queue's consumer documents one. */
    targetId?: string;
    ctx: pulumi.Output<AwsContext>;
}

/** The queue and the targets feeding it, under `parent`. */
export function createEventQueue(
    args: EventQueueArgs,
    parent: pulumi.Resource,
): { queue: aws.sqs.Queue; targets: aws.cloudwatch.EventTarget[] } {
    const queue = new aws.sqs.Queue(
        args.queue.logical,
        { name: args.queue.name, messageRetentionSeconds: args.queue.retentionSeconds, sqsManagedSseEnabled: true },
        { parent },
    );
    const aliases = (rule: EventQueueRule) => (rule.formerLogical ? [{ name: rule.formerLogical }] : []);
    const rules = args.rules.map(
        (rule) =>
            [
                rule,
                new aws.cloudwatch.EventRule(
                    rule.logical,
                    { name: rule.name, description: rule.description, eventPattern: JSON.stringify(rule.pattern) },
                    { parent, aliases: aliases(rule) },
                ),
            ] as const,
    );
    // Senders named by ARN from the static rule names: the policy is known at preview.
    const queuePolicy = new aws.sqs.QueuePolicy(
        args.policyLogical,
        { queueUrl: queue.url, policy: args.ctx.apply((c) => JSON.stringify(args.policy(c))) },
        { parent },
    );
    const targets = rules.map(
        ([rule, eventRule]) =>
            new aws.cloudwatch.EventTarget(
                rule.logical,
                { rule: eventRule.name, ...(args.targetId !== undefined ? { targetId: args.targetId } : {}), arn: queue.arn },
                { parent, dependsOn: [queuePolicy], aliases: aliases(rule) },
            ),
    );
    return { queue, targets };
}
