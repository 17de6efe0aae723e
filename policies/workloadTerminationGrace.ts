import type { PolicyConfigSchema, ResourceValidationPolicy } from "@pulumi/policy";
import { readConfig } from "./lib/config";
import { containersOf, describeWorkload, LONG_RUNNING, preStopSleepSeconds, readWorkload, workloadKind } from "./lib/kubernetes";
import { field } from "./lib/values";
import { Verdicts, violation } from "./lib/verdicts";

/** Config of `workload-termination-grace`. */
export interface WorkloadTerminationGraceConfig {
    /** Shortest allowed `terminationGracePeriodSeconds`. Defaults to `30`. */
    min: number;
    /** Longest allowed `terminationGracePeriodSeconds`. Defaults to `120`. */
    max: number;
}

const configSchema: PolicyConfigSchema = {
    properties: {
        min: { type: "integer", minimum: 0, default: 30, description: "Shortest allowed terminationGracePeriodSeconds." },
        max: {
            type: "integer",
            minimum: 1,
            default: 120,
            description: "Longest allowed terminationGracePeriodSeconds (fit the node drain window and the 2-minute Spot notice).",
        },
    },
};

/**
 * Long-running workloads set `terminationGracePeriodSeconds` explicitly, within `min`..`max`,
 * and above the longest preStop sleep of their containers.
 */
export const workloadTerminationGrace: ResourceValidationPolicy = {
    name: "workload-termination-grace",
    description: "Long-running workloads set terminationGracePeriodSeconds explicitly, within bounds and above their preStop sleep.",
    enforcementLevel: "mandatory",
    configSchema,
    validateResource: (args, reportViolation) => {
        const kind = workloadKind(args.type, args.props);
        if (!kind || !LONG_RUNNING.has(kind)) {
            args.notApplicable("not a long-running Kubernetes workload (Deployment, StatefulSet, DaemonSet, ReplicaSet, Pod)");
        }
        const config = readConfig<WorkloadTerminationGraceConfig>("workload-termination-grace", configSchema, args.getConfig(), (c) =>
            c.min > c.max ? [`min: ${c.min} is above max ${c.max}`] : [],
        );
        const verdicts = new Verdicts();
        const workload = verdicts.read(`${args.type} ${args.name}`, () => readWorkload(args.type, args.name, args.props));
        if (workload) {
            const subject = describeWorkload(workload);
            const key = kind === "Pod" ? "spec.terminationGracePeriodSeconds" : "spec.template.spec.terminationGracePeriodSeconds";
            verdicts.judge(subject, () => {
                const raw = field(workload.podSpec, "terminationGracePeriodSeconds");
                const bounds = `between ${config.min} and ${config.max}`;
                if (raw === undefined || raw === null) {
                    reportViolation(
                        violation(
                            `${subject} does not set ${key}`,
                            "the implicit 30 s default is nobody's decision: it may cut in-flight requests short when a node drains, or outlast the node's drain window",
                            `set ${key} explicitly, ${bounds} seconds and above any preStop sleep`,
                        ),
                    );
                    return;
                }
                if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 0) {
                    reportViolation(
                        violation(
                            `${subject} sets ${key} to ${JSON.stringify(raw)}, which is not a whole number of seconds`,
                            "the API server rejects the object, so the rollout fails",
                            `set ${key} to an integer ${bounds}`,
                        ),
                    );
                    return;
                }
                if (raw < config.min) {
                    reportViolation(
                        violation(
                            `${subject} sets ${key} to ${raw}, below the minimum ${config.min}`,
                            "on every drain, upgrade or scale-in the pod is killed before it finishes in-flight requests, which then fail",
                            `raise ${key} to at least ${config.min} (longest request + preStop sleep)`,
                        ),
                    );
                }
                if (raw > config.max) {
                    reportViolation(
                        violation(
                            `${subject} sets ${key} to ${raw}, above the maximum ${config.max}`,
                            "each drain waits this long per pod, and Karpenter's terminationGracePeriod, the node termination handler's heartbeat and the 2-minute Spot notice cut it short anyway, killing the pod mid-shutdown",
                            `lower ${key} to at most ${config.max}; finish long work through a queue or checkpoint instead`,
                        ),
                    );
                }
                let longest = 0;
                let sleeper = "";
                for (const c of containersOf(workload.podSpec)) {
                    const sleep = preStopSleepSeconds(c.spec);
                    if (sleep > longest) {
                        longest = sleep;
                        sleeper = c.name;
                    }
                }
                if (longest > 0 && raw <= longest) {
                    reportViolation(
                        violation(
                            `${subject} sets ${key} to ${raw}, not above the ${longest} s preStop sleep of container "${sleeper}"`,
                            "the preStop hook runs inside the grace period, so the app gets SIGKILL with no time left to drain its requests after SIGTERM",
                            `raise ${key} above ${longest} s plus the longest request, or shorten the preStop sleep`,
                        ),
                    );
                }
            });
        }
        verdicts.finish();
    },
};
