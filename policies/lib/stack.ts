/**
 * Reads a stack's Kubernetes objects once into plain data, indexed by namespace and labels, so
 * stack policies stay linear in the number of resources (a later issue benchmarks 10k workloads).
 */
import type { PolicyResource } from "@pulumi/policy";
import { Autoscaler, combinedRange, readAutoscaler } from "./autoscaling";
import { IntOrPercent, readIntOrPercent } from "./intOrPercent";
import { isKind, kubernetesKind, namespaceOf, objectName, readWorkload, Workload } from "./kubernetes";
import { LabelSelector, mapSelector, readSelector, SelectorIndex } from "./selector";
import { isUnknownValueError } from "./sdk";
import { field, path, stringMap } from "./values";
import { count, Verdicts } from "./verdicts";

/** What the stack readers use of a resource: a `PolicyResource` has it, and so can a tool's own records. */
export type StackResource = Pick<PolicyResource, "type" | "name" | "props" | "urn">;

/** A PodDisruptionBudget read into plain data. */
export interface Pdb {
    name: string;
    namespace: string;
    urn: string;
    selector: LabelSelector | undefined;
    minAvailable?: IntOrPercent;
    maxUnavailable?: IntOrPercent;
    /** Values the API server would reject, as written, with why. */
    invalid: { key: "minAvailable" | "maxUnavailable"; value: unknown; reason: string }[];
    /** Both `minAvailable` and `maxUnavailable` are set: the API server rejects the budget. */
    bothSet: boolean;
    /**
     * Neither is set. The API server accepts such a budget (policy/v1 defaults neither), but the
     * disruption controller then never computes the pods it expects and keeps
     * `disruptionsAllowed` at 0: it blocks every eviction of the pods it selects.
     */
    empty: boolean;
}

/** A Service with a selector. */
export interface Service {
    name: string;
    namespace: string;
    selector: LabelSelector;
}

/**
 * Namespaces holding an object that could not be read at preview. A verdict that depends on
 * what is absent from such a namespace ("no PDB covers it") cannot be made there.
 */
export class UndecidedNamespaces {
    private readonly names = new Set<string>();
    private all = false;

    /** Records the namespace of an unreadable object (every namespace if that is unknown too). */
    add(props: unknown): void {
        try {
            this.names.add(namespaceOf(props));
        } catch (err) {
            if (!isUnknownValueError(err)) {
                throw err;
            }
            this.all = true;
        }
    }

    has(namespace: string): boolean {
        return this.all || this.names.has(namespace);
    }
}

/** Workloads of the stack; unknown values leave the resource undecided in `verdicts` (and its namespace in `undecided`). */
export function readWorkloads(resources: readonly StackResource[], verdicts: Verdicts, undecided?: UndecidedNamespaces): Workload[] {
    const out: Workload[] = [];
    for (const r of resources) {
        if (!r.type.startsWith("kubernetes:")) {
            continue;
        }
        let isWorkload = true;
        const w = verdicts.read(`${r.type} ${r.name}`, () => {
            const read = readWorkload(r.type, r.name, r.props, r.urn);
            isWorkload = read !== undefined;
            return read;
        });
        if (w) {
            out.push(w);
        } else if (isWorkload) {
            undecided?.add(r.props);
        }
    }
    return out;
}

function intOrPercentField(spec: unknown, key: "minAvailable" | "maxUnavailable", pdb: Pdb): void {
    const raw = field(spec, key);
    if (raw === undefined || raw === null) {
        return;
    }
    const read = readIntOrPercent(raw);
    if ("problem" in read) {
        pdb.invalid.push({ key, value: raw, reason: read.problem });
    } else {
        pdb[key] = read;
    }
}

/**
 * Sets `autoscaled` on each workload that a HorizontalPodAutoscaler or KEDA ScaledObject of the
 * stack scales (same namespace, target kind and name). An autoscaler unreadable at preview is
 * recorded as undecided in `verdicts`: the replica count of its target cannot be known.
 */
export function withAutoscalers(workloads: Workload[], resources: readonly PolicyResource[], verdicts: Verdicts): Workload[] {
    const byTarget = new Map<string, Autoscaler[]>();
    for (const r of resources) {
        if (!r.type.startsWith("kubernetes:")) {
            continue;
        }
        const k = kubernetesKind(r.type, r.props);
        if (!k || (k.kind !== "HorizontalPodAutoscaler" && k.kind !== "ScaledObject")) {
            continue;
        }
        const a = verdicts.read(`${k.kind} ${r.name}`, () => readAutoscaler(k.group, k.kind, r.props, r.name));
        if (a) {
            const key = `${a.namespace}/${a.target.kind}/${a.target.name}`;
            byTarget.set(key, [...(byTarget.get(key) ?? []), a]);
        }
    }
    for (const w of workloads) {
        const autoscalers = byTarget.get(`${w.namespace}/${w.kind}/${w.name}`);
        if (autoscalers) {
            w.autoscaled = combinedRange(autoscalers);
        }
    }
    return workloads;
}

/** The fewest and most pods a workload runs: its autoscaler's range, else `replicas`; `undefined` for a DaemonSet, Job, CronJob. */
export function replicaBounds(w: Workload): { min: number; max: number } | undefined {
    if (w.autoscaled) {
        return { min: w.autoscaled.min, max: w.autoscaled.max };
    }
    return w.replicas === undefined ? undefined : { min: w.replicas, max: w.replicas };
}

/** `3 replicas`, `1 replica`, or `2 to 10 replicas, scaled by HorizontalPodAutoscaler prod/api`. */
export function describeReplicas(w: Workload): string {
    if (w.autoscaled) {
        return `${w.autoscaled.min} to ${count(w.autoscaled.max, "replica")}, scaled by ${w.autoscaled.by}`;
    }
    return w.replicas === undefined ? "replicas set by the cluster" : count(w.replicas, "replica");
}

/** PodDisruptionBudgets of the stack. */
export function readPdbs(resources: readonly StackResource[], verdicts: Verdicts, undecided?: UndecidedNamespaces): Pdb[] {
    const out: Pdb[] = [];
    for (const r of resources) {
        if (!r.type.startsWith("kubernetes:") || !isKind(r.type, r.props, "policy", "PodDisruptionBudget")) {
            continue;
        }
        const pdb = verdicts.read(`PodDisruptionBudget ${r.name}`, () => {
            const spec = field(r.props, "spec");
            const p: Pdb = {
                name: objectName(r.props, r.name),
                namespace: namespaceOf(r.props),
                urn: r.urn,
                selector: readSelector(field(spec, "selector")),
                invalid: [],
                bothSet: false,
                empty: false,
            };
            intOrPercentField(spec, "minAvailable", p);
            intOrPercentField(spec, "maxUnavailable", p);
            const set = [field(spec, "minAvailable"), field(spec, "maxUnavailable")].filter((v) => v !== undefined && v !== null);
            p.bothSet = set.length === 2;
            p.empty = set.length === 0;
            return p;
        });
        if (pdb) {
            out.push(pdb);
        } else {
            undecided?.add(r.props);
        }
    }
    return out;
}

/** Services with a selector (a Service without one has hand-managed endpoints and selects no pods). */
export function readServices(resources: readonly StackResource[], verdicts: Verdicts): Service[] {
    const out: Service[] = [];
    for (const r of resources) {
        if (!r.type.startsWith("kubernetes:")) {
            continue;
        }
        const k = kubernetesKind(r.type, r.props);
        if (!k || k.group !== "" || k.kind !== "Service") {
            continue;
        }
        const svc = verdicts.read(`Service ${r.name}`, () => {
            const selector = mapSelector(stringMap(path(r.props, "spec", "selector")));
            return selector ? { name: objectName(r.props, r.name), namespace: namespaceOf(r.props), selector } : undefined;
        });
        if (svc) {
            out.push(svc);
        }
    }
    return out;
}

/** True when the API server would refuse the budget (bad values, both values set, malformed selector): it protects nothing. */
export function pdbRejected(pdb: Pdb): boolean {
    return pdb.invalid.length > 0 || pdb.bothSet || pdb.selector?.invalid !== undefined;
}

/**
 * The PDBs matching each workload's pod labels in its namespace (Kubernetes selector semantics).
 * Budgets the API server would refuse match nothing: they never exist in the cluster.
 */
export function pdbsByWorkload(workloads: readonly Workload[], pdbs: readonly Pdb[]): Map<Workload, Pdb[]> {
    const index = new SelectorIndex<Pdb>();
    for (const pdb of pdbs) {
        if (!pdbRejected(pdb)) {
            index.add(pdb.namespace, pdb.selector, pdb);
        }
    }
    const out = new Map<Workload, Pdb[]>();
    for (const w of workloads) {
        out.set(w, index.matching(w.namespace, w.podLabels));
    }
    return out;
}
