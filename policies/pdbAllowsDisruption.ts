import { formatIntOrPercent, formatLabels, formatSelector, inputScope, scaledValue } from "eks-platform-kernel";
import {
    count,
    customResourcesByNamespace,
    CustomWorkloadKind,
    customWorkloadKinds,
    describeWorkload,
    Pdb,
    pdbRefusals,
    pdbRejected,
    pdbsByWorkload,
    PodSource,
    readCustomWorkloads,
    readPdbs,
    readWorkloads,
    replicaBounds,
    reportUndecided,
    undecided,
    UndecidedNamespaces,
    Verdicts,
    violation,
    withAutoscalers,
} from "eks-platform-evaluation";
import { declareStackPolicy, Knobs } from "./declare";

const BLOCKS =
    "node drains and managed node group upgrades block (PodEvictionFailure), and Karpenter cannot consolidate or replace the node until its terminationGracePeriod forces it";

const REJECTED =
    "the API server rejects the budget, so the workloads it was meant for ship without protection against drains (and workload-pdb-required does not count it)";

/** Config of `pdb-allows-disruption`. */
export interface PdbAllowsDisruptionConfig {
    /**
     * Workload-like custom kinds besides the operators' built in (`OPERATOR_WORKLOADS`); one of the
     * same group and kind replaces the built-in one. Defaults to `[]`.
     */
    customWorkloads: CustomWorkloadKind[];
}

const knobs: Knobs<PdbAllowsDisruptionConfig> = {
    customWorkloads: {
        type: "array",
        default: [],
        description:
            "Workload-like custom kinds whose operator keeps pods running, besides the built-in prometheus-operator, CloudNativePG, Strimzi and ECK kinds: how to read their pod count and pod labels, so budgets for their pods are judged like a StatefulSet's.",
        items: {
            type: "object",
            required: ["group", "kind", "replicas", "defaultReplicas", "podLabels"],
            additionalProperties: false,
            properties: {
                group: { type: "string", minLength: 1, description: "API group, e.g. monitoring.coreos.com." },
                kind: { type: "string", minLength: 1, description: "Kind, e.g. Alertmanager." },
                replicas: {
                    type: "string",
                    minLength: 1,
                    description: "Dotted path of the pod count; a [] segment sums over a list (spec.nodeSets[].count).",
                },
                defaultReplicas: { type: "integer", minimum: 0, description: "Pods when the count is unset." },
                replicaFactor: {
                    type: "string",
                    minLength: 1,
                    description: "Dotted path of a count multiplying the pods (spec.shards).",
                },
                podLabels: {
                    type: "object",
                    additionalProperties: { type: "string" },
                    description: "Labels every pod gets; {name} is the resource's name, {label:KEY} one of its own labels.",
                },
                podLabelsFrom: {
                    type: "array",
                    items: { type: "string", minLength: 1 },
                    description: "Dotted paths of label maps copied onto the pods (spec.podMetadata.labels).",
                },
            },
        },
    },
};

/**
 * A PDB the API server would reject is reported as such: a malformed value (negative, a
 * fraction, a percentage above 100% or not written as `"N%"`), both `minAvailable` and
 * `maxUnavailable` set, or a malformed selector. Otherwise it lets at least one pod go for the
 * workloads it matches (workload-like custom resources included): no `maxUnavailable` of 0 or
 * 0%, no `minAvailable` of 100% or of all matched replicas (percentages round up, as the
 * disruption controller does), and not neither of them (the controller then allows no
 * disruption at all). Replicas are judged at the low end of an autoscaler's range, where a budget
 * blocks first. A workload matched by several PDBs (the eviction API refuses those pods) is
 * reported too. A PDB matching nothing is a violation only where the input shows the selector is
 * wrong; where its pods may come from elsewhere it is undecided.
 */
export const pdbAllowsDisruption = declareStackPolicy<PdbAllowsDisruptionConfig>({
    name: "pdb-allows-disruption",
    description: "PodDisruptionBudgets allow at least one voluntary disruption of the workloads they match.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires:
            "every PDB lets at least one pod go (no `maxUnavailable: 0`, `minAvailable: 100%` or ≥ replicas at the bottom of an autoscaler's range, not neither value), operators' pods included (Alertmanager, Prometheus, ThanosRuler, CloudNativePG, Strimzi, ECK); a PDB matching nothing is a violation only beside workloads it should have matched, else undecided; nothing the API server rejects (both values set, bad values, malformed selector)",
        checks: 'no PDB with `maxUnavailable` 0 / `"0%"`, `minAvailable` `"100%"`, neither `minAvailable` nor `maxUnavailable` (the disruption controller then allows no eviction), or a `minAvailable` (integer, or percentage rounded up) ≥ the replicas it selects (at the bottom of an autoscaler\'s range; pods of workload-like custom resources included: see below); a PDB matching nothing is a violation only where its namespace holds workloads and no custom resource (a selector typo), undecided otherwise; no workload matched by two PDBs (the eviction API refuses those pods); nothing the API server would reject: both `minAvailable` and `maxUnavailable` set, negative or fractional numbers, percentages above `"100%"`, strings that are not `"N%"` (`"2"`, `" 25%"`), a malformed selector (`matchLabels` not a map of strings, `matchExpressions` not a list of `{key, operator, values}`, an unknown operator, values that do not fit the operator, invalid label keys or values)',
        knobs: { customWorkloads: "empty: the built-in operators' kinds only" },
    },
    validateStack: (args, reportViolation, config) => {
        const verdicts = new Verdicts();
        const undecided = new UndecidedNamespaces();
        const workloads: PodSource[] = [
            ...withAutoscalers(readWorkloads(args.resources, verdicts, undecided), args.resources, verdicts, undecided),
            ...readCustomWorkloads(args.resources, customWorkloadKinds(config.customWorkloads), verdicts, undecided),
        ];
        const pdbs = readPdbs(args.resources, verdicts);
        const context: MatchContext = {
            scope: inputScope(args.stackTags),
            workloads: new Map(),
            customResources: customResourcesByNamespace(args.resources),
        };
        for (const w of workloads) {
            context.workloads.set(w.namespace, [...(context.workloads.get(w.namespace) ?? []), w]);
        }
        const byWorkload = pdbsByWorkload(workloads, pdbs);
        const byPdb = new Map<Pdb, PodSource[]>();
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
                judgePdb(pdb, byPdb.get(pdb) ?? [], complete, context, reportViolation);
            });
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable(`no PodDisruptionBudget ${context.scope}: nothing was checked`);
        }
    },
});

/** What decides whether a budget that matches nothing is wrong. */
interface MatchContext {
    /** `in this stack` / `in these manifests`. */
    scope: string;
    /** The workloads (custom ones included) of each namespace. */
    workloads: Map<string, PodSource[]>;
    customResources: { byNamespace: Map<string, string[]>; all: boolean };
}

/**
 * A budget matching nothing: a violation only where the input shows the selector is wrong (its
 * namespace holds workloads, none match, and no custom resource an operator could create pods
 * from); undecided where its pods may come from elsewhere. Never "delete the budget": deleting a
 * budget that protects an operator's pods lets one drain take them all.
 */
function judgeUnmatched(pdb: Pdb, context: MatchContext, report: (message: string, urn?: string) => void): void {
    const subject = `PodDisruptionBudget ${pdb.namespace}/${pdb.name}`;
    const selector = `selector ${formatSelector(pdb.selector)}`;
    const customs = context.customResources.byNamespace.get(pdb.namespace) ?? [];
    const workloads = context.workloads.get(pdb.namespace) ?? [];
    if (customs.length > 0 || context.customResources.all) {
        const shown = customs.slice(0, 3).join(", ") + (customs.length > 3 ? ` and ${customs.length - 3} more` : "");
        reportUndecided(
            report,
            undecided(
                `${subject} matches no workload ${context.scope} (${selector}), but namespace ${pdb.namespace} holds custom resources${shown ? ` (${shown})` : ""} from which an operator may create its pods`,
                "pods an operator creates from a custom resource are not in the input, so whether the budget protects them cannot be told; deleting it could let one drain take all of them",
                `if the pods come from a custom kind, describe it in pdb-allows-disruption's customWorkloads (its pod count and labels) so the budget is judged like a StatefulSet's; otherwise compare the selector with the running pods (kubectl get pods -n ${pdb.namespace} -l '${formatSelector(pdb.selector)}')`,
            ),
            pdb.urn,
        );
        return;
    }
    if (workloads.length === 0) {
        reportUndecided(
            report,
            undecided(
                `${subject} matches no workload ${context.scope} (${selector}): namespace ${pdb.namespace} holds no workload here`,
                "the pods it protects come from elsewhere (another repository, a Helm release, an operator), so whether the selector fits them cannot be told; deleting it could let one drain take all of them",
                `check it together with the workload it protects, or compare the selector with the running pods (kubectl get pods -n ${pdb.namespace} -l '${formatSelector(pdb.selector)}')`,
            ),
            pdb.urn,
        );
        return;
    }
    const shown = workloads
        .slice(0, 3)
        .map((w) => `${describeWorkload(w)} (${formatLabels(w.podLabels)})`)
        .join(", ");
    report(
        violation(
            `${subject} matches none of the workloads of namespace ${pdb.namespace} ${context.scope} (${selector}; there: ${shown}${workloads.length > 3 ? ` and ${workloads.length - 3} more` : ""})`,
            "a selector that matches no pod protects nothing: the workload it was written for can lose all its pods in one drain, and a later pod that happens to match may get a budget nobody meant for it",
            "fix the selector to match the pod template labels of the workload it protects",
            ["spec", "selector"],
        ),
        pdb.urn,
    );
}

// A budget on an API version Kubernetes no longer serves is reported by api-versions-served; here it is no budget at all.
function judgePdb(
    pdb: Pdb,
    matched: PodSource[],
    complete: boolean,
    context: MatchContext,
    report: (message: string, urn?: string) => void,
): void {
    const subject = `PodDisruptionBudget ${pdb.namespace}/${pdb.name}`;
    if (pdb.removedApi) {
        return;
    }
    // What the API server refuses: the budget never exists, so its effect on drains is moot.
    for (const refusal of pdbRefusals(pdb)) {
        report(violation(`${subject} ${refusal.what}`, REJECTED, refusal.fix, refusal.at), pdb.urn);
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
                ["spec", "maxUnavailable"],
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
                ["spec", "minAvailable"],
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
                ["spec"],
            ),
            pdb.urn,
        );
    }
    if (!complete) {
        return;
    }
    if (matched.length === 0) {
        judgeUnmatched(pdb, context, report);
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
                    ["spec", "minAvailable"],
                ),
                pdb.urn,
            );
        }
    }
}
