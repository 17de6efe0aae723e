import { asRecord, compareQuantities, describeShape, field, parseQuantity, path } from "eks-platform-kernel";
import {
    containersOf,
    describeWorkload,
    listOf,
    LONG_RUNNING_KINDS,
    podSpecField,
    readWorkload,
    Verdicts,
    violation,
    workloadKind,
} from "eks-platform-evaluation";
import { declareResourcePolicy, Knobs } from "./declare";

/** Config of `workload-resources`. */
export interface WorkloadResourcesConfig {
    /** Require `limits.cpu` on every container. Defaults to `true`. */
    requireCpuLimit: boolean;
}

const knobs: Knobs<WorkloadResourcesConfig> = {
    requireCpuLimit: {
        type: "boolean",
        default: true,
        description: "Require a CPU limit on every container (false: CPU requests only, no CFS throttling).",
    },
};

const WHY: Record<string, string> = {
    "requests.cpu":
        "the scheduler places the pod as if it needed no CPU, so nodes are overcommitted and Karpenter or the autoscaler size capacity wrongly; under pressure such pods are throttled and evicted first",
    "requests.memory":
        "the scheduler places the pod as if it needed no memory, so nodes are overcommitted and the pod is among the first the kubelet evicts under memory pressure",
    "limits.memory":
        "a leak grows until the node runs out of memory, and the kernel OOM-kills or the kubelet evicts the other pods on that node",
    "limits.cpu":
        "one busy container can starve every other pod on its node (set requireCpuLimit: false for this policy if you deliberately rely on CPU requests only)",
};

const EXAMPLE: Record<string, string> = {
    "requests.cpu": '"100m"',
    "requests.memory": '"128Mi"',
    "limits.memory": '"512Mi"',
    "limits.cpu": '"500m"',
};

/**
 * Every container and init container (Job and CronJob templates too) sets CPU and memory
 * requests and a memory limit (and a CPU limit unless configured off); no request exceeds its limit.
 */
export const workloadResources = declareResourcePolicy<WorkloadResourcesConfig, void>({
    name: "workload-resources",
    description: "Every container and init container sets CPU and memory requests and limits, with requests not above limits.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires:
            "cpu/memory requests and limits on every container and init container (ReplicationController, bare ReplicaSet, Pod, Job/CronJob too), request ≤ limit (compared exactly); one message per container listing all it misses",
        checks: 'every container and init container of a Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Pod, Job or CronJob sets `requests.cpu`, `requests.memory`, `limits.memory` (and `limits.cpu`), one message per container naming every field it misses; no request above its limit (compared exactly: `1001m` equals `"1.001"`); values are valid quantities; `resources`, `requests` or `limits` that are not maps (a list) are reported as the API server\'s rejection, not as missing requests',
    },
    select: (args) => {
        if (!workloadKind(args.type, args.props)) {
            args.notApplicable(`not a Kubernetes workload (${LONG_RUNNING_KINDS}, Job, CronJob)`);
        }
    },
    validateResource: (args, reportViolation, config) => {
        const verdicts = new Verdicts();
        const workload = verdicts.read(`${args.type} ${args.name}`, () => readWorkload(args.type, args.name, args.props));
        if (workload) {
            const subject = describeWorkload(workload);
            const required = ["requests.cpu", "requests.memory", "limits.memory", ...(config.requireCpuLimit ? ["limits.cpu"] : [])];
            const containers = verdicts.read(subject, () => containersOf(workload.podSpec)) ?? [];
            for (const c of containers) {
                const where = `${subject} ${c.role} "${c.name}"`;
                const at = (...rest: string[]) => podSpecField(workload.kind, ...c.at, "resources", ...rest);
                verdicts.judge(where, () => {
                    const resources = field(c.spec, "resources");
                    // A value of the wrong type is the API server's rejection, not a missing request.
                    for (const [key, value, what] of [
                        ["", resources, "a map of requests and limits"],
                        ["requests", field(resources, "requests"), "a map of resource names to quantities"],
                        ["limits", field(resources, "limits"), "a map of resource names to quantities"],
                    ] as const) {
                        const written = key === "" ? "resources" : `resources.${key}`;
                        if (value !== undefined && value !== null && asRecord(value) === undefined) {
                            reportViolation(
                                violation(
                                    `${where} has ${written} as ${describeShape(value)}, not ${what}`,
                                    "the API server rejects the object, so the rollout fails",
                                    `write ${written} as a map, e.g. resources: { requests: { cpu: ${EXAMPLE["requests.cpu"]}, memory: ${EXAMPLE["requests.memory"]} }, limits: { memory: ${EXAMPLE["limits.memory"]} } }`,
                                    key === "" ? at() : at(key),
                                ),
                            );
                            return;
                        }
                    }
                    // Everything missing from one container in one message: a bare container is one fix, not four.
                    const missing: string[] = [];
                    for (const key of required) {
                        const [section, resource] = key.split(".");
                        const value = path(resources, section, resource);
                        if (value === undefined || value === null) {
                            missing.push(key);
                        } else if (parseQuantity(value) === undefined || (parseQuantity(value) as number) < 0) {
                            reportViolation(
                                violation(
                                    `${where} has resources.${key} ${JSON.stringify(value)}, which is not a Kubernetes quantity`,
                                    "the API server rejects the object, so the rollout fails",
                                    `write a quantity such as ${EXAMPLE[key]}`,
                                    at(section, resource),
                                ),
                            );
                        }
                    }
                    if (missing.length > 0) {
                        reportViolation(
                            violation(
                                `${where} sets no ${listOf(
                                    missing.map((k) => `resources.${k}`),
                                    "or",
                                )}`,
                                missing.length === 1 ? WHY[missing[0]] : missing.map((k) => `${k}: ${WHY[k]}`).join("; "),
                                `set ${listOf(
                                    missing.map((k) => `resources.${k} (e.g. ${EXAMPLE[k]})`),
                                    "and",
                                )} on the ${c.role}, sized from its observed usage`,
                                missing.length === 1 ? at(...missing[0].split(".")) : at(),
                            ),
                        );
                    }
                    for (const resource of ["cpu", "memory"]) {
                        // Exact decimal comparison: 1001m and "1.001" are equal, though not as floats.
                        if (compareQuantities(path(resources, "requests", resource), path(resources, "limits", resource)) === 1) {
                            reportViolation(
                                violation(
                                    `${where} requests more ${resource} (${JSON.stringify(path(resources, "requests", resource))}) than its limit (${JSON.stringify(path(resources, "limits", resource))})`,
                                    "the API server rejects a request above its limit, so the rollout fails",
                                    `lower resources.requests.${resource} to at most the limit, or raise resources.limits.${resource}`,
                                    at("requests", resource),
                                ),
                            );
                        }
                    }
                });
            }
        }
        verdicts.finish();
    },
});
