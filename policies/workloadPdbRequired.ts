import type { PolicyConfigSchema, StackValidationPolicy } from "@pulumi/policy";
import { readConfig } from "./lib/config";
import { describeWorkload, REPLICATED } from "./lib/kubernetes";
import { formatLabels, SelectorIndex } from "./lib/selector";
import { Pdb, pdbsByWorkload, readPdbs, readWorkloads, UndecidedNamespaces } from "./lib/stack";
import { Verdicts, violation } from "./lib/verdicts";
import { inputScope } from "./lib/scope";

/** Config of `workload-pdb-required`. */
export interface WorkloadPdbRequiredConfig {
    /** Replicated workloads (Deployment, StatefulSet, ReplicaSet, ReplicationController) with at least this many replicas need a PDB. Defaults to `2`. */
    minReplicas: number;
}

const configSchema: PolicyConfigSchema = {
    properties: {
        minReplicas: {
            type: "integer",
            minimum: 1,
            default: 2,
            description:
                "Deployments, StatefulSets, ReplicaSets and ReplicationControllers with at least this many replicas need a PodDisruptionBudget.",
        },
    },
};

/** Each Deployment, StatefulSet, ReplicaSet or ReplicationController with replicas ≥ `minReplicas` is matched by a PDB in its namespace. */
export const workloadPdbRequired: StackValidationPolicy = {
    name: "workload-pdb-required",
    description:
        "Replicated Deployments, StatefulSets, ReplicaSets and ReplicationControllers are covered by a PodDisruptionBudget in their namespace.",
    enforcementLevel: "mandatory",
    configSchema,
    validateStack: (args, reportViolation) => {
        const config = readConfig<WorkloadPdbRequiredConfig>("workload-pdb-required", configSchema, args.getConfig());
        const verdicts = new Verdicts();
        const workloads = readWorkloads(args.resources, verdicts).filter(
            (w) => REPLICATED.has(w.kind) && w.replicas !== undefined && w.replicas >= config.minReplicas,
        );
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
                if ((matches.get(w) ?? []).length === 0) {
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
                            `${describeWorkload(w)} (${w.replicas} replicas) is not covered by any PodDisruptionBudget in namespace ${w.namespace}${stale}`,
                            "a node drain, managed node group upgrade or Karpenter consolidation may evict all its pods at once, an outage of the service",
                            `add a PodDisruptionBudget in namespace ${w.namespace} whose selector matches the pod template labels ${formatLabels(w.podLabels)}, e.g. maxUnavailable: 1`,
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
};
