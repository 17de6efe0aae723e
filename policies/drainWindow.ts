import type { PolicyConfigSchema, StackValidationPolicy } from "@pulumi/policy";
import { readConfig } from "./lib/config";
import { formatSeconds, parseDuration } from "./lib/duration";
import { describeWorkload, karpenterVersion, LONG_RUNNING, objectName } from "./lib/kubernetes";
import { readWorkloads } from "./lib/stack";
import { asArray, asNumeric, asRecord, asString, field, path } from "./lib/values";
import { Verdicts, violation } from "./lib/verdicts";
import { inputScope } from "./lib/scope";

/** Config of `drain-window`. */
export interface DrainWindowConfig {
    /** Seconds of notice before EC2 reclaims a Spot instance. Defaults to `120`. */
    spotNoticeSeconds: number;
}

const configSchema: PolicyConfigSchema = {
    properties: {
        spotNoticeSeconds: {
            type: "integer",
            minimum: 1,
            default: 120,
            description: "Seconds of notice before EC2 reclaims a Spot instance: the drain window of NodePools that may launch Spot.",
        },
    },
};

// Kubernetes' default when a pod spec sets none.
const DEFAULT_GRACE = 30;
// The AWS default heartbeat of a lifecycle hook.
const DEFAULT_HEARTBEAT = 3600;

interface Window {
    seconds: number;
    source: string;
    how: string;
}

/**
 * No workload's grace period exceeds a node drain window in the stack: a Karpenter NodePool's
 * `terminationGracePeriod` (and the Spot notice for NodePools that may launch Spot), or the
 * heartbeat of a self-managed node group's termination lifecycle hook.
 */
export const drainWindow: StackValidationPolicy = {
    name: "drain-window",
    description: "No workload's termination grace period exceeds the drain window of the nodes it may run on.",
    enforcementLevel: "mandatory",
    configSchema,
    validateStack: (args, reportViolation) => {
        const config = readConfig<DrainWindowConfig>("drain-window", configSchema, args.getConfig());
        const verdicts = new Verdicts();
        const windows: Window[] = [];
        for (const r of args.resources) {
            if (r.type === "aws:autoscaling/lifecycleHook:LifecycleHook") {
                verdicts.read(`LifecycleHook ${r.name}`, () => {
                    if (asString(field(r.props, "lifecycleTransition")) !== "autoscaling:EC2_INSTANCE_TERMINATING") {
                        return;
                    }
                    const raw = field(r.props, "heartbeatTimeout");
                    const seconds = raw === undefined || raw === null ? DEFAULT_HEARTBEAT : asNumeric(raw);
                    if (seconds !== undefined) {
                        windows.push({
                            seconds,
                            source: `lifecycle hook ${r.name}`,
                            how: "the Auto Scaling group terminates the instance when the hook's heartbeat expires",
                        });
                    }
                });
            } else if (nodePoolVersion(r) !== undefined) {
                verdicts.read(`NodePool ${r.name}`, () => {
                    const name = objectName(r.props, r.name);
                    const nodeSpec = path(r.props, "spec", "template", "spec");
                    // terminationGracePeriod is a v1 field; older NodePools (v1beta1, which karpenter-nodepool
                    // reports) only contribute the Spot notice, whose requirements read the same.
                    const v1 = nodePoolVersion(r) === "v1";
                    const grace = v1 ? parseDuration(field(nodeSpec, "terminationGracePeriod")) : undefined;
                    if (grace !== undefined) {
                        windows.push({
                            seconds: grace,
                            source: `NodePool ${name} (terminationGracePeriod)`,
                            how: "Karpenter deletes remaining pods when the node's terminationGracePeriod ends",
                        });
                    }
                    if (mayLaunchSpot(field(nodeSpec, "requirements"))) {
                        windows.push({
                            seconds: config.spotNoticeSeconds,
                            source: `NodePool ${name} (Spot)`,
                            how: "EC2 reclaims a Spot instance two minutes after its interruption notice",
                        });
                    }
                });
            }
        }
        if (windows.length === 0) {
            verdicts.finish();
            args.notApplicable(
                `no drain window ${inputScope(args.stackTags)} (no Karpenter NodePool with terminationGracePeriod or Spot, no EC2_INSTANCE_TERMINATING lifecycle hook): nothing was checked`,
            );
        }
        const tightest = windows.reduce((a, b) => (b.seconds < a.seconds ? b : a));
        for (const w of readWorkloads(args.resources, verdicts)) {
            if (!LONG_RUNNING.has(w.kind)) {
                continue;
            }
            verdicts.judge(describeWorkload(w), () => {
                const raw = field(w.podSpec, "terminationGracePeriodSeconds");
                const grace = raw === undefined || raw === null ? DEFAULT_GRACE : asNumeric(raw);
                if (grace !== undefined && grace > tightest.seconds) {
                    reportViolation(
                        violation(
                            `${describeWorkload(w)} has a termination grace period of ${grace} s, longer than the ${formatSeconds(tightest.seconds)} drain window of ${tightest.source}`,
                            `${tightest.how}, so the pod is killed mid-shutdown and its in-flight work is lost`,
                            `lower terminationGracePeriodSeconds to at most ${tightest.seconds}, or lengthen the node's window`,
                        ),
                        w.urn,
                    );
                }
            });
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable(`no long-running workload ${inputScope(args.stackTags)}: nothing was checked against the drain windows`);
        }
    },
};

/** True when NodePool requirements allow `karpenter.sh/capacity-type` spot. */
/** The API version of a Karpenter NodePool resource (`v1`, `v1beta1`), or `undefined` for anything else. */
function nodePoolVersion(r: { type: string; props: unknown }): string | undefined {
    return r.type.startsWith("kubernetes:") ? karpenterVersion(r.type, r.props, "karpenter.sh", "NodePool") : undefined;
}

function mayLaunchSpot(requirements: unknown): boolean {
    for (const raw of asArray(requirements)) {
        const req = asRecord(raw);
        if (asString(req?.key) !== "karpenter.sh/capacity-type") {
            continue;
        }
        const values = asArray(req?.values);
        const operator = asString(req?.operator);
        if (operator === "In" && values.includes("spot")) {
            return true;
        }
        if (operator === "NotIn" && !values.includes("spot")) {
            return true;
        }
        if (operator === "Exists") {
            return true;
        }
    }
    return false;
}
