/**
 * The drain rehearsal: before `pulumi up`, what each node rollout of the stack would do to its
 * workloads. Pure: resources in (as a stack policy sees them), a report out. Shared by
 * `npm run drain` (tools/manifests/drain.ts) and the `drain-rehearsal` policy. Method and sources: docs/drain.md.
 */
import { Verdicts } from "eks-platform-evaluation";
import type { DrainResource } from "./model";
import { place } from "./placement";
import { readCluster } from "./read";
import { kindName, ownsProblem, Problem, problemsOf, Rehearsal, Verdict } from "./report";
import { requestPaths } from "./requestPaths";
import { replays } from "./rollouts";

export type { DrainResource } from "./model";
export { ADDON_SPECS, addonWorkloads } from "./addons";
export { CAPACITY_TYPES, hasNodeCapacity } from "./readGroups";
export { describeCapacity } from "./capacity";
export type { GroupCapacity, InstanceTypeCapacity } from "./capacity";
export { formatRehearsal, formatRehearsalMarkdown, groupTitle, kindName, problemsOf } from "./report";
export type { GroupReport, Problem, Rehearsal, Verdict } from "./report";
export type { RequestPathReport } from "./requestPaths";

/** A `--group` that names no group of the stack. */
export class UnknownGroupError extends Error {
    constructor(
        readonly group: string,
        readonly known: string[],
    ) {
        super(`no node group or NodePool named "${group}" in this stack (groups: ${known.join(", ") || "none"})`);
        this.name = "UnknownGroupError";
    }
}

export interface RehearsalOptions {
    /** Only the rollout of this group (its name, or the logical name of its resource). */
    group?: string;
    /**
     * The input may hold only part of the cluster's nodes (plain manifests: the node groups live in
     * the platform's stack): a pod with nowhere to run on what the input holds is undecided, since
     * the cluster's other nodes may take it; every other verdict stands.
     */
    capacityElsewhere?: boolean;
}

/**
 * Rehearses the rollout of every group (or one) of the stack. `verdicts` collects what was
 * unknown at preview and what the engine could not judge (the policy hands it to the analyzer);
 * the report lists all of it as undecided.
 */
export function rehearse(
    resources: readonly DrainResource[],
    options: RehearsalOptions = {},
    verdicts: Verdicts = new Verdicts(),
): Rehearsal {
    const model = readCluster(resources, verdicts);
    const selected =
        options.group === undefined ? model.groups : model.groups.filter((g) => g.name === options.group || g.resource === options.group);
    if (options.group !== undefined && selected.length === 0) {
        throw new UnknownGroupError(
            options.group,
            model.groups.map((g) => g.name),
        );
    }
    const { cluster, unschedulable } = place(model);
    const groups = selected.flatMap((g) => replays(cluster, g));
    // Two kinds of undecided: a value unknown until apply (the engine will know it: the analyzer's
    // "can't run", at the policy's level), and what the input itself cannot tell (an unsized
    // instance type, node groups outside plain manifests): `inputUndecided`, which never fails a
    // run by itself (the policy reports it at the advisory level).
    const atApply: string[] = verdicts.undecidedSubjects.map((s) => `${s}: a value it needs is unknown until apply`);
    const fromInput: string[] = [...model.undecided];
    // Without the nodes of a group whose size is unknown, "fits nowhere" is not a verdict.
    const unsized = model.groups.filter((g) => g.kind !== "nodePool" && !g.template);
    const judged = unsized.length === 0 ? unschedulable : [];
    for (const p of unsized.length === 0 ? [] : unschedulable) {
        fromInput.push(
            `${p.pod} (${p.workload}) found no node, but the nodes of ${unsized.map((g) => g.name).join(", ")} could not be counted`,
        );
    }
    for (const g of groups) {
        fromInput.push(...g.undecided.map((u) => `${kindName(g.kind)} ${g.name}: ${u}`));
    }
    // A verdict that may depend on what could not be read waits: every one when a group, pool or
    // hook is unknown (placement changes), those about workloads of a namespace with an unknown object.
    const namespaces = new Map(model.workloads.map((w) => [w.id, w.namespace]));
    const problems: Problem[] = [];
    const withheld: Problem[] = [];
    const advisories: Problem[] = [];
    // A problem's "what", without its why and fix, for an undecided item.
    const what = (p: Problem) => p.message.slice(0, p.message.indexOf(" Why: "));
    for (const p of problemsOf(groups, judged, (id) => namespaces.get(id))) {
        if (p.advisory) {
            advisories.push(p);
        } else if (model.capacityUndecided || (p.namespace !== undefined && model.undecidedNamespaces.has(p.namespace))) {
            withheld.push(p);
            atApply.push(`${what(p)} — unless what is unknown until apply changes it`);
        } else if (p.change === "expiry" && !p.cutShort) {
            // A forced expiry is replayed as its worst case (every node of the pool at once): the
            // nodes' ages are not in the input, so what follows from their expiring together is said,
            // never a failure by itself. A grace period past the pool's terminationGracePeriod is cut
            // short whichever node expires: that stays a problem.
            withheld.push(p);
            fromInput.push(`${what(p)} — if every node of the pool expires at once (their ages are not in the input)`);
        } else if (p.capacity && options.capacityElsewhere) {
            withheld.push(p);
            fromInput.push(`${what(p)} — unless the cluster's nodes outside this input take it (they are not in it)`);
        } else {
            problems.push(p);
        }
    }
    for (const g of groups) {
        const own = (p: Problem) => ownsProblem(g, p);
        g.verdict = problems.some(own) ? "blocked" : withheld.some(own) || g.undecided.length > 0 ? "undecided" : "ok";
    }
    // What waits for apply goes to the analyzer as "can't run", never a pass.
    const fromValues = verdicts.undecidedSubjects.length;
    for (const item of atApply.slice(fromValues)) {
        verdicts.leaveUndecided(item, ["spec"]);
    }
    const undecided = [...atApply, ...fromInput];
    const verdict: Verdict = problems.length > 0 ? "blocked" : undecided.length > 0 ? "undecided" : "ok";
    const notModelled = [...model.notModelled, ...model.workloads.flatMap((w) => w.notModelled.map((n) => `${w.id}: ${n}`))];
    return {
        verdict,
        zones: model.zones,
        groups,
        unschedulable: judged,
        undecided,
        inputUndecided: fromInput,
        advisories,
        notModelled,
        problems,
        requestPaths: requestPaths(resources),
    };
}
