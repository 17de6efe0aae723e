import { field, fieldText, POD_GRACE_SECONDS } from "eks-platform-kernel";
import {
    ContainerRef,
    containersOf,
    describeWorkload,
    LONG_RUNNING,
    LONG_RUNNING_KINDS,
    podSpecField,
    preStopSleep,
    readWorkload,
    reportUndecided,
    undecided,
    Verdicts,
    violation,
    workloadKind,
    WorkloadKind,
} from "eks-platform-evaluation";
import { declareResourcePolicy, Knobs } from "./declare";

/** Config of `workload-termination-grace`. */
export interface WorkloadTerminationGraceConfig {
    /** Shortest allowed `terminationGracePeriodSeconds`. Defaults to `30`. */
    min: number;
    /**
     * Longest allowed `terminationGracePeriodSeconds`, or `null` (the default): no fixed maximum,
     * the windows of the nodes a pod may run on bound it (`drain-window`, `drain-rehearsal`), and
     * the load balancer in front sets its minimum (`workload-request-path`).
     */
    max: number | null;
}

const knobs: Knobs<WorkloadTerminationGraceConfig> = {
    min: {
        type: "integer",
        minimum: 0,
        default: POD_GRACE_SECONDS.min,
        description: "Shortest allowed terminationGracePeriodSeconds.",
    },
    max: {
        type: ["integer", "null"],
        minimum: 1,
        default: null,
        description:
            "Longest allowed terminationGracePeriodSeconds; null: no fixed maximum (the nodes' drain windows bound it: drain-window, drain-rehearsal).",
    },
};

/**
 * Long-running workloads set `terminationGracePeriodSeconds` explicitly, at least `min` (and at
 * most `max` when one is configured: by default the nodes' windows bound it, through drain-window),
 * and above the longest preStop sleep of their containers and native sidecars. A sleep that
 * cannot run as written (`sleep 5x`, `sleep.seconds: "5"`) is reported; one whose length only
 * exists at run time (`sleep $DELAY` with `DELAY` from `valueFrom`) is undecided. Neither is taken as 0.
 */
export const workloadTerminationGrace = declareResourcePolicy<WorkloadTerminationGraceConfig, WorkloadKind | undefined>({
    name: "workload-termination-grace",
    description: "Long-running workloads set terminationGracePeriodSeconds explicitly, at least the minimum and above their preStop sleep.",
    enforcementLevel: "mandatory",
    config: knobs,
    checkConfig: (c) => (c.max !== null && c.min > c.max ? [`min: ${c.min} is above max ${c.max}`] : []),
    docs: {
        requires:
            "explicit `terminationGracePeriodSeconds` within bounds and above any preStop sleep (`sleep` action, `sleep` by any path or in `sh -c` scripts; a sleep that cannot run as written is reported, one known only at run time is undecided)",
        checks: "long-running workloads (Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Pod) set `terminationGracePeriodSeconds` explicitly, at least `min` (and at most `max` if set: by default no fixed maximum, since the windows of the nodes a pod may run on bound it, `drain-window` and `drain-rehearsal`, and the load balancer in front may need more than two minutes, `workload-request-path`), and above the longest preStop sleep of a container or native sidecar (see below); a sleep that cannot run as written is reported, one only known at run time (`valueFrom`) is undecided; neither is taken as 0",
    },
    select: (args) => {
        const kind = workloadKind(args.type, args.props);
        if (!kind || !LONG_RUNNING.has(kind)) {
            args.notApplicable(`not a long-running Kubernetes workload (${LONG_RUNNING_KINDS})`);
        }
        return kind;
    },
    validateResource: (args, reportViolation, config) => {
        const verdicts = new Verdicts();
        const workload = verdicts.read(`${args.type} ${args.name}`, () => readWorkload(args.type, args.name, args.props));
        if (workload) {
            const subject = describeWorkload(workload);
            const grace = podSpecField(workload.kind, "terminationGracePeriodSeconds");
            const key = fieldText(grace);
            verdicts.judge(subject, () => {
                const raw = field(workload.podSpec, "terminationGracePeriodSeconds");
                const bounds = config.max === null ? `at least ${config.min}` : `between ${config.min} and ${config.max}`;
                if (raw === undefined || raw === null) {
                    reportViolation(
                        violation(
                            `${subject} does not set ${key}`,
                            "the implicit 30 s default is nobody's decision: it may cut in-flight requests short when a node drains, or outlast the node's drain window",
                            `set ${key} explicitly, ${bounds} seconds and above any preStop sleep`,
                            grace,
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
                            grace,
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
                            grace,
                        ),
                    );
                }
                if (config.max !== null && raw > config.max) {
                    reportViolation(
                        violation(
                            `${subject} sets ${key} to ${raw}, above the maximum ${config.max}`,
                            "each drain waits this long per pod, and Karpenter's terminationGracePeriod, the node termination handler's heartbeat and the 2-minute Spot notice cut it short anyway, killing the pod mid-shutdown",
                            `lower ${key} to at most ${config.max}; finish long work through a queue or checkpoint instead`,
                            grace,
                        ),
                    );
                }
                let longest = 0;
                let sleeper: ContainerRef | undefined;
                const unreadable: { c: ContainerRef; text: string }[] = [];
                const runtime: { c: ContainerRef; words: string[] }[] = [];
                const hookOf = (c: ContainerRef) => podSpecField(workload.kind, ...c.at, "lifecycle", "preStop");
                for (const c of containersOf(workload.podSpec)) {
                    // Plain init containers have exited before the pod stops; native sidecars stop with it.
                    if (c.role === "init container" && !c.sidecar) {
                        continue;
                    }
                    const sleep = preStopSleep(c.spec);
                    if (sleep.seconds > longest) {
                        longest = sleep.seconds;
                        sleeper = c;
                    }
                    if (sleep.unreadable.length > 0) {
                        unreadable.push({ c, text: `"${c.name}" (${sleep.unreadable.join(", ")})` });
                    }
                    if (sleep.runtime.length > 0) {
                        runtime.push({ c, words: sleep.runtime });
                    }
                }
                if (sleeper && raw <= longest) {
                    const what = Number.isFinite(longest) ? `the ${longest} s preStop sleep` : "the endless preStop sleep (sleep infinity)";
                    reportViolation(
                        violation(
                            `${subject} sets ${key} to ${raw}, not above ${what} of container "${sleeper.name}"`,
                            "the preStop hook runs inside the grace period, so the app gets SIGKILL with no time left to drain its requests after SIGTERM",
                            Number.isFinite(longest)
                                ? `raise ${key} above ${longest} s plus the longest request, or shorten the preStop sleep`
                                : `give the preStop hook a bounded sleep (e.g. sleep 5) and keep ${key} above it plus the longest request`,
                            grace,
                        ),
                    );
                }
                if (unreadable.length > 0) {
                    reportViolation(
                        violation(
                            `${subject} has a preStop sleep that cannot run as written in container ${unreadable.map((u) => u.text).join("; ")}`,
                            "sleep refuses the operand or the API server refuses the value: the hook fails and the pod gets SIGTERM while still receiving traffic, or the rollout is rejected",
                            `write the sleep as a literal duration (lifecycle.preStop.sleep.seconds: 5, or sleep 5 / sleep 1m in the exec command, or $VAR in a shell -c script with a literal env value) and keep ${key} above it`,
                            hookOf(unreadable[0].c),
                        ),
                    );
                }
                for (const r of runtime) {
                    reportUndecided(
                        reportViolation,
                        undecided(
                            `${subject} container "${r.c.name}" sleeps ${r.words.join(" ")} in its preStop hook, a length only known at run time`,
                            `the shell reads it from the container's environment (valueFrom, the image's ENV) or a command when the hook runs, so whether ${key} ${raw} outlasts it cannot be seen in the object`,
                            `write the sleep as a literal duration (lifecycle.preStop.sleep.seconds: 5, or sleep 5 in the exec command), or give the variable a literal env value`,
                            hookOf(r.c),
                        ),
                    );
                }
            });
        }
        verdicts.finish();
    },
});
