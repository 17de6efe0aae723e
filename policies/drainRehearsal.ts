import { hasNodeCapacity, rehearse } from "eks-platform-rehearsal";
import { INPUT_TAG, MANIFEST_INPUT } from "eks-platform-kernel";
import { reportAdvisory, reportUndecided, undecided, Verdicts } from "eks-platform-evaluation";
import { declareStackPolicy } from "./declare";

const NO_CAPACITY =
    "no managed node group, Auto Scaling group, Karpenter NodePool or EKS Auto Mode built-in pool in this stack: no rollout to rehearse";

/**
 * Rehearses the rollout of every node group and NodePool of the stack against the workloads the
 * stack deploys (the engine behind `npm run drain`, rehearsal/): a rollout that would
 * stall (a PodDisruptionBudget that never lets go, EKS's 15-minute eviction limit, budgets or
 * limits that stop drift), an evicted pod with nowhere to run, a pod cut short by its node's
 * window, or a workload reaching zero ready replicas is a violation. What the input cannot tell
 * (an instance type outside the data, labels only in user data, node groups outside plain
 * manifests) is reported as undecided at the advisory level; a value unknown until apply is "can't run".
 */
export const drainRehearsal = declareStackPolicy({
    name: "drain-rehearsal",
    description:
        "Every node rollout of the stack (managed group update, instance refresh, Karpenter drift) completes without a blocked eviction, a pod with nowhere to run, a pod cut short or a workload at zero ready replicas.",
    enforcementLevel: "mandatory",
    docs: {
        requires:
            "every node rollout of the stack (managed group update, instance refresh, Karpenter drift) completes without a blocked eviction, a pod with nowhere to run, a pod cut short or a workload at zero ready replicas ([docs/drain.md](docs/drain.md))",
        checks: "replays every node rollout of the stack — EKS managed node group update (surge, `maxUnavailable` waves, 15-minute eviction limit), ASG instance refresh with its termination hook, Karpenter drift with its budgets and `terminationGracePeriod`, and for EKS Auto Mode pools (custom ones and the built-in `system`/`general-purpose` a cluster's `computeConfig.nodePools` enables) also their forced expiry (every node at once, budgets ignored, no replacement first, PDBs respected until `terminationGracePeriod`, 24h when unset) — against the stack's workloads, PDBs, HPAs and DaemonSets ([drain.md](drain.md)): no rollout that stalls, no evicted pod with nowhere to run, no pod cut short by its node's window (hook heartbeat, `terminationGracePeriod`, Spot notice), no workload at zero ready replicas; what the input cannot tell (an instance type the data cannot size, labels only in user data, the node groups of plain manifests) is reported as undecided (advisory), a value unknown until apply as can't run",
    },
    validateStack: (args, reportViolation) => {
        // Plain manifests (the manifest gate) bring workloads but no nodes: nothing to read then.
        if (!hasNodeCapacity(args.resources)) {
            args.notApplicable(NO_CAPACITY);
        }
        const verdicts = new Verdicts();
        // Manifests bring NodePools at most: the managed groups they may also run on are elsewhere.
        const rehearsal = rehearse(args.resources, { capacityElsewhere: args.stackTags.get(INPUT_TAG) === MANIFEST_INPUT }, verdicts);
        if (rehearsal.groups.length === 0) {
            verdicts.finish();
            args.notApplicable(NO_CAPACITY);
        }
        const evicted = rehearsal.groups.some((g) => g.waves.some((w) => w.evictions > 0)) || rehearsal.unschedulable.length > 0;
        for (const problem of rehearsal.problems) {
            reportViolation(problem.message, problem.urn);
        }
        // Interrupted work that drops no request is worth knowing, never a reason to refuse a change.
        for (const advisory of rehearsal.advisories) {
            reportAdvisory(reportViolation, advisory.message, advisory.urn);
        }
        // What the input cannot tell is said as undecided, at the advisory level: never a pass,
        // never a failure by itself (a value unknown until apply is the analyzer's "can't run").
        for (const item of rehearsal.inputUndecided) {
            reportUndecided(
                reportViolation,
                undecided(
                    `drain rehearsal: ${item}`,
                    "the rehearsal cannot judge it from what the input holds",
                    "give it what the item names (an instance type the instance data sizes, the node groups the pods run on, a count it can replay), or check that rollout by hand",
                ),
            );
        }
        verdicts.finish();
        // Not applicable only when nothing at all was said: an undecided or advisory item is a verdict.
        if (!evicted && rehearsal.problems.length === 0 && rehearsal.inputUndecided.length === 0 && rehearsal.advisories.length === 0) {
            args.notApplicable("no workload of this stack runs on its node groups or NodePools: no eviction to rehearse");
        }
    },
});
