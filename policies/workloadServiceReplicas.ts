import { asString, inputScope, path } from "eks-platform-kernel";
import {
    describeReplicas,
    describeWorkload,
    replicaBounds,
    servedWorkloads,
    SINGLETON_ANNOTATION,
    singletonReason,
    UndecidedNamespaces,
    Verdicts,
    violation,
    withAutoscalers,
} from "eks-platform-evaluation";
import { declareStackPolicy, Knobs } from "./declare";

// The opt-out annotation is the pack's (drain-rehearsal honours it too).
export { SINGLETON_ANNOTATION };

/** Config of `workload-service-replicas`. */
export interface WorkloadServiceReplicasConfig {
    /** Fewest replicas of a workload a Service sends traffic to. Defaults to `2`. */
    minReplicas: number;
}

const knobs: Knobs<WorkloadServiceReplicasConfig> = {
    minReplicas: {
        type: "integer",
        minimum: 2,
        default: 2,
        description: "Fewest replicas of a workload a Service sends traffic to (scrape-only Services aside).",
    },
};

/**
 * A workload that a Service sends traffic to runs at least `minReplicas` pods, so that a drain,
 * an upgrade or a Spot reclaim never takes all of them: no PodDisruptionBudget can keep a single
 * pod serving without blocking the drain. Services only scraped or debugged through, or whose ports reach no container of the pod, do not count. A
 * deliberate singleton says so with the `platform/singleton` annotation and a reason.
 */
export const workloadServiceReplicas = declareStackPolicy<WorkloadServiceReplicasConfig>({
    name: "workload-service-replicas",
    description: "Workloads a Service sends traffic to run at least two replicas, unless annotated as deliberate singletons.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires:
            'at least 2 replicas (an autoscaler\'s minimum when one scales it) for a workload a Service sends traffic to; a deliberate singleton is annotated `platform/singleton: "<reason>"`',
        checks: 'a long-running workload (Deployment, StatefulSet, ReplicaSet, ReplicationController, bare Pod) that a Service sends traffic to runs at least `minReplicas` pods (an HPA\'s or KEDA ScaledObject\'s minimum when one scales it); Services only scraped or debugged through, or whose ports reach no container of the pod, do not count (see "Which Service ports carry traffic"); a deliberate singleton carries the annotation `platform/singleton: "<reason>"` (a reason is required)',
    },
    validateStack: (args, reportViolation, config) => {
        const verdicts = new Verdicts();
        const props = new Map(args.resources.map((r) => [r.urn, r.props]));
        const served = servedWorkloads(args.resources, verdicts);
        // An autoscaler (HPA, KEDA ScaledObject) owns the count of the workloads it scales: judged at its minimum.
        const undecided = new UndecidedNamespaces();
        withAutoscalers(
            served.map((s) => s.workload),
            args.resources,
            verdicts,
            undecided,
        );
        for (const { workload: w, services } of served) {
            // DaemonSets run one pod per node: their count is the cluster's, not a setting; replicas
            // the API server refuses are workload-pdb-required's to report.
            const bounds = replicaBounds(w);
            if (bounds === undefined) {
                continue;
            }
            const subject = describeWorkload(w);
            verdicts.judge(subject, () => {
                if (bounds.min >= config.minReplicas) {
                    return;
                }
                if (undecided.has(w.namespace)) {
                    // An autoscaler of its namespace could not be read at preview: it may scale this one.
                    verdicts.leaveUndecided(subject, ["HorizontalPodAutoscaler", w.namespace, "spec"]);
                    return;
                }
                const own = props.get(w.urn as string);
                if (singletonReason(own) !== undefined) {
                    return;
                }
                const reason = path(own, "metadata", "annotations", SINGLETON_ANNOTATION);
                const names = services.map((s) => s.name).join(", ");
                const count = describeReplicas(w);
                if (reason !== undefined && reason !== null) {
                    reportViolation(
                        violation(
                            `${subject} runs ${count} behind Service ${names} and is annotated ${SINGLETON_ANNOTATION} without a reason (${JSON.stringify(asString(reason) ?? reason)})`,
                            "the annotation accepts a single pod's outage on every drain, upgrade and Spot reclaim; without a reason nobody can tell a deliberate choice from a forgotten one",
                            `write why in the annotation's value, e.g. ${SINGLETON_ANNOTATION}: "leader-elected; clients retry for 60 s", or run at least ${config.minReplicas} replicas`,
                            ["metadata", "annotations", SINGLETON_ANNOTATION],
                        ),
                        w.urn,
                    );
                    return;
                }
                reportViolation(
                    violation(
                        `${subject} runs ${count}, yet Service ${names} sends it traffic`,
                        "a node drain, managed node group upgrade, Karpenter consolidation or Spot reclaim evicts that pod, and every request to the Service fails until a replacement is scheduled and ready; a PodDisruptionBudget cannot keep it serving without blocking the drain",
                        `${w.autoscaled ? `raise the minimum of ${w.autoscaled.by} to at least ${config.minReplicas}` : `run at least ${config.minReplicas} replicas`} spread over nodes (topologySpreadConstraints) with a PodDisruptionBudget such as maxUnavailable: 1; for a deliberate singleton, annotate the workload ${SINGLETON_ANNOTATION}: "<why one pod is acceptable>"`,
                        w.autoscaled || w.kind === "Pod" ? [] : ["spec", "replicas"],
                    ),
                    w.urn,
                );
            });
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable(
                `no long-running workload ${inputScope(args.stackTags)} is selected by a Service that serves requests: nothing was checked`,
            );
        }
    },
});
