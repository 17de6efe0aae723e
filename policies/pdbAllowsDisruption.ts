import type { StackValidationPolicy } from "@pulumi/policy";
import { formatIntOrPercent, scaledValue } from "./lib/intOrPercent";
import { describeWorkload, Workload } from "./lib/kubernetes";
import { formatSelector } from "./lib/selector";
import {
    Pdb,
    pdbRejected,
    pdbsByWorkload,
    readPdbs,
    readWorkloads,
    replicaBounds,
    UndecidedNamespaces,
    withAutoscalers,
} from "./lib/stack";
import { count, Verdicts, violation } from "./lib/verdicts";

const BLOCKS =
    "node drains and managed node group upgrades block (PodEvictionFailure), and Karpenter cannot consolidate or replace the node until its terminationGracePeriod forces it";

const REJECTED =
    "the API server rejects the budget, so the workloads it was meant for ship without protection against drains (and workload-pdb-required does not count it)";

/**
 * A PDB the API server would reject is reported as such: a malformed value (negative, a
 * fraction, a percentage above 100% or not written as `"N%"`), both `minAvailable` and
 * `maxUnavailable` set, or a malformed selector. Otherwise it lets at least one pod go for the
 * workloads it matches: no `maxUnavailable` of 0 or 0%, no `minAvailable` of 100% or of all
 * matched replicas (percentages round up, as the disruption controller does), and not neither of
 * them (the controller then allows no disruption at all). Replicas are judged at the low end of an
 * autoscaler's range, where a budget blocks first. A PDB matching no workload, and a workload
 * matched by several PDBs (the eviction API refuses those pods), are reported too.
 */
export const pdbAllowsDisruption: StackValidationPolicy = {
    name: "pdb-allows-disruption",
    description: "PodDisruptionBudgets allow at least one voluntary disruption of the workloads they match.",
    enforcementLevel: "mandatory",
    validateStack: (args, reportViolation) => {
        const verdicts = new Verdicts();
        const undecided = new UndecidedNamespaces();
        const workloads = withAutoscalers(readWorkloads(args.resources, verdicts, undecided), args.resources, verdicts);
        const pdbs = readPdbs(args.resources, verdicts);
        const byWorkload = pdbsByWorkload(workloads, pdbs);
        const byPdb = new Map<Pdb, Workload[]>();
        for (const [w, matched] of byWorkload) {
            for (const pdb of matched) {
                const list = byPdb.get(pdb);
                if (list) {
                    list.push(w);
                } else {
                    byPdb.set(pdb, [w]);
                }
            }
            if (matched.length > 1) {
                reportViolation(
                    violation(
                        `${describeWorkload(w)} is matched by ${matched.length} PodDisruptionBudgets (${matched.map((p) => p.name).join(", ")})`,
                        `the eviction API refuses to evict a pod covered by more than one PodDisruptionBudget, so ${BLOCKS}`,
                        "keep exactly one PodDisruptionBudget per workload: narrow the selectors or merge the budgets",
                    ),
                    w.urn,
                );
            }
        }
        for (const pdb of pdbs) {
            const subject = `PodDisruptionBudget ${pdb.namespace}/${pdb.name}`;
            verdicts.judge(subject, () => {
                // A workload unreadable at preview may be matched too: only the budget's own values are decided.
                const complete = !undecided.has(pdb.namespace);
                if (!complete) {
                    verdicts.leaveUndecided(subject, ["workload", pdb.namespace, "spec"]);
                }
                judgePdb(pdb, byPdb.get(pdb) ?? [], complete, reportViolation);
            });
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable("no PodDisruptionBudget in this stack: nothing was checked");
        }
    },
};

function judgePdb(pdb: Pdb, matched: Workload[], complete: boolean, report: (message: string, urn?: string) => void): void {
    const subject = `PodDisruptionBudget ${pdb.namespace}/${pdb.name}`;
    // What the API server refuses: the budget never exists, so its effect on drains is moot.
    for (const bad of pdb.invalid) {
        report(
            violation(
                `${subject} sets ${bad.key} to ${JSON.stringify(bad.value)}, ${bad.reason}`,
                REJECTED,
                `set ${bad.key} to a non-negative integer such as 1 or a percentage string from "0%" to "100%" such as "25%"`,
            ),
            pdb.urn,
        );
    }
    if (pdb.bothSet) {
        report(
            violation(`${subject} sets both minAvailable and maxUnavailable`, REJECTED, "keep only one of them, e.g. maxUnavailable: 1"),
            pdb.urn,
        );
    }
    if (pdb.selector?.invalid) {
        report(
            violation(
                `${subject} has a malformed selector: ${pdb.selector.invalid}`,
                REJECTED,
                "write spec.selector as matchLabels (a map of label keys to string values) and/or matchExpressions (a list of {key, operator: In|NotIn|Exists|DoesNotExist, values}) matching the workload's pod template labels",
            ),
            pdb.urn,
        );
    }
    if (pdbRejected(pdb)) {
        return;
    }
    if (pdb.maxUnavailable && pdb.maxUnavailable.value === 0) {
        report(
            violation(
                `${subject} sets maxUnavailable: ${formatIntOrPercent(pdb.maxUnavailable)}, so no pod may ever be evicted`,
                BLOCKS,
                "set maxUnavailable: 1 (or a percentage that leaves at least one pod evictable)",
            ),
            pdb.urn,
        );
    }
    if (pdb.minAvailable?.kind === "percent" && pdb.minAvailable.value >= 100) {
        report(
            violation(
                `${subject} sets minAvailable: ${formatIntOrPercent(pdb.minAvailable)}, so no pod may ever be evicted`,
                BLOCKS,
                'use maxUnavailable: 1 instead, or a minAvailable below "100%" that leaves at least one pod evictable',
            ),
            pdb.urn,
        );
    }
    if (pdb.empty) {
        report(
            violation(
                `${subject} sets neither minAvailable nor maxUnavailable, so no pod may ever be evicted`,
                `the API server accepts such a budget, but the disruption controller never computes how many pods it expects and keeps disruptionsAllowed at 0, so ${BLOCKS}`,
                "set maxUnavailable: 1 (or a minAvailable below the replicas it selects)",
            ),
            pdb.urn,
        );
    }
    if (!complete) {
        return;
    }
    if (matched.length === 0) {
        report(
            violation(
                `${subject} matches no workload in this stack (selector ${formatSelector(pdb.selector)} in namespace ${pdb.namespace})`,
                "a budget that protects nothing hides that the workload it was meant for can lose all its pods in one drain, and may later block drains of pods nobody meant it for",
                "fix the selector to match the pod template labels of the workload, or delete the budget",
            ),
            pdb.urn,
        );
        return;
    }
    // The disruption controller counts every pod the budget selects; DaemonSet sizes depend on the cluster.
    const bounds = matched.map(replicaBounds);
    if (pdb.empty || bounds.some((b) => b === undefined)) {
        return;
    }
    // The fewest pods the matched workloads run while any runs at all (an autoscaler may go to 0):
    // where a minAvailable blocks first.
    const fewest = bounds.reduce((sum, b) => sum + (b as { min: number }).min, 0);
    const total = Math.max(fewest, 1);
    const names = matched
        .map(
            (w) =>
                `${describeWorkload(w)}${w.autoscaled ? ` (${w.autoscaled.min} to ${w.autoscaled.max}, scaled by ${w.autoscaled.by})` : ""}`,
        )
        .join(", ");
    if (
        bounds.some((b) => (b as { max: number }).max > 0) &&
        pdb.minAvailable &&
        !(pdb.minAvailable.kind === "percent" && pdb.minAvailable.value >= 100)
    ) {
        const required = scaledValue(pdb.minAvailable, total);
        if (required >= total) {
            const scaled = matched.some((w) => w.autoscaled);
            report(
                violation(
                    `${subject} requires minAvailable ${formatIntOrPercent(pdb.minAvailable)} (${count(required, "pod")}) of the ${count(total, "replica")} of ${names}, so no pod may be evicted`,
                    `with minAvailable ${required} and ${count(total, "replica")}${scaled ? " (the low end of the autoscaler's range)" : ""} ${BLOCKS}`,
                    `${total > 1 ? `lower minAvailable to ${total - 1} or less, ` : ""}use maxUnavailable: 1, or add replicas${scaled ? " (raise the autoscaler's minimum)" : ""}`,
                ),
                pdb.urn,
            );
        }
    }
}
