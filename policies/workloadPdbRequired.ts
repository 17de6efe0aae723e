import { formatLabels, inputScope, SelectorIndex } from "eks-platform-kernel";
import {
    describeReplicas,
    describeWorkload,
    Pdb,
    pdbsByWorkload,
    readPdbs,
    readWorkloads,
    replicaBounds,
    REPLICATED,
    UndecidedNamespaces,
    Verdicts,
    violation,
    withAutoscalers,
} from "eks-platform-evaluation";
import { declareStackPolicy, Knobs } from "./declare";

/** Config of `workload-pdb-required`. */
export interface WorkloadPdbRequiredConfig {
    /** Replicated workloads (Deployment, StatefulSet, ReplicaSet, ReplicationController) with at least this many replicas need a PDB. Defaults to `2`. */
    minReplicas: number;
}

const knobs: Knobs<WorkloadPdbRequiredConfig> = {
    minReplicas: {
        type: "integer",
        minimum: 1,
        default: 2,
        description:
            "Deployments, StatefulSets, ReplicaSets and ReplicationControllers with at least this many replicas need a PodDisruptionBudget.",
    },
};

/**
 * Each Deployment, StatefulSet, ReplicaSet or ReplicationController that runs `minReplicas` or
 * more pods — by `replicas`, or at the top of the range of an autoscaler (HPA, KEDA ScaledObject)
 * that scales it — is matched by a PDB in its namespace. A budget with neither `minAvailable` nor
 * `maxUnavailable` does not count: it blocks every eviction instead of bounding them
 * (pdb-allows-disruption reports it); nor does one on an API version no longer served.
 */
export const workloadPdbRequired = declareStackPolicy<WorkloadPdbRequiredConfig>({
    name: "workload-pdb-required",
    description:
        "Replicated Deployments, StatefulSets, ReplicaSets and ReplicationControllers are covered by a PodDisruptionBudget in their namespace.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires:
            "a PDB matching each Deployment, StatefulSet, ReplicaSet or ReplicationController with ≥ `minReplicas` replicas (or an HPA/KEDA range reaching it) (full selector semantics; a PDB the API server would reject, one on a removed API version, or one with neither value never counts)",
        checks: 'each Deployment, StatefulSet, ReplicaSet and ReplicationController with `replicas` ≥ `minReplicas` — or an HPA/KEDA ScaledObject range whose top reaches it (see below) — is matched by a PodDisruptionBudget in its namespace (`matchLabels` and `matchExpressions` In/NotIn/Exists/DoesNotExist against the pod template labels); a budget the API server would reject (malformed selector or values, a removed API version such as `policy/v1beta1`), or one with neither `minAvailable` nor `maxUnavailable` (it blocks every eviction), never counts; `replicas` that are not a non-negative integer (`"3"`) are reported as the API server\'s refusal, never skipped',
    },
    validateStack: (args, reportViolation, config) => {
        const verdicts = new Verdicts();
        const all = withAutoscalers(readWorkloads(args.resources, verdicts), args.resources, verdicts);
        for (const w of all.filter((x) => x.invalidReplicas !== undefined)) {
            verdicts.judge(describeWorkload(w), () =>
                reportViolation(
                    violation(
                        `${describeWorkload(w)} sets spec.replicas to ${JSON.stringify(w.invalidReplicas)}, which is not a non-negative integer`,
                        "the API server refuses the object, so it never runs, and whether it needs a PodDisruptionBudget cannot be judged",
                        "write spec.replicas as a whole number (or leave it out when an autoscaler owns the count)",
                    ),
                    w.urn,
                ),
            );
        }
        const workloads = all.filter((w) => REPLICATED.has(w.kind) && (replicaBounds(w)?.max ?? 0) >= config.minReplicas);
        const undecided = new UndecidedNamespaces();
        const pdbs = readPdbs(args.resources, verdicts, undecided);
        const matches = pdbsByWorkload(workloads, pdbs);
        // Budgets the API server no longer serves cover nothing, but the reader should hear why theirs does not count.
        const refused = new SelectorIndex<Pdb>();
        for (const pdb of pdbs) {
            if (pdb.removedApi) {
                refused.add(pdb.namespace, pdb.selector, pdb);
            }
        }
        for (const w of workloads) {
            verdicts.judge(describeWorkload(w), () => {
                const matched = matches.get(w) ?? [];
                const blocking = matched.filter((p) => p.empty);
                if (matched.length === blocking.length) {
                    if (undecided.has(w.namespace)) {
                        // A budget in this namespace could not be read at preview: it may be the one.
                        verdicts.leaveUndecided(describeWorkload(w), ["PodDisruptionBudget", w.namespace, "spec"]);
                        return;
                    }
                    const stale = refused
                        .matching(w.namespace, w.podLabels)
                        .map(
                            (p) =>
                                ` (PodDisruptionBudget ${p.name} matches it but uses apiVersion ${p.removedApi?.apiVersion}, which Kubernetes ${p.removedApi?.removedIn} and later refuse)`,
                        )
                        .join("");
                    reportViolation(
                        violation(
                            `${describeWorkload(w)} (${describeReplicas(w)}) is not covered by any PodDisruptionBudget in namespace ${w.namespace}${stale}` +
                                (blocking.length > 0
                                    ? `: PodDisruptionBudget ${blocking.map((p) => p.name).join(", ")} matches it but sets neither minAvailable nor maxUnavailable, which blocks every eviction instead of bounding them`
                                    : ""),
                            "a node drain, managed node group upgrade or Karpenter consolidation may evict all its pods at once, an outage of the service",
                            blocking.length > 0
                                ? `set maxUnavailable: 1 on PodDisruptionBudget ${blocking.map((p) => p.name).join(", ")}`
                                : `add a PodDisruptionBudget in namespace ${w.namespace} whose selector matches the pod template labels ${formatLabels(w.podLabels)}, e.g. maxUnavailable: 1`,
                        ),
                        w.urn,
                    );
                }
            });
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable(
                `no Deployment, StatefulSet, ReplicaSet or ReplicationController with ${config.minReplicas} or more replicas ${inputScope(args.stackTags)}: nothing was checked`,
            );
        }
    },
});
