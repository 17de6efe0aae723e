/**
 * Reads a stack's Kubernetes objects once into plain data, indexed by namespace and labels, so
 * stack policies stay linear in the number of resources (a later issue benchmarks 10k workloads).
 */
import type { PolicyResource } from "@pulumi/policy";
import { Autoscaler, AUTOSCALER_KINDS, combinedRange, readAutoscaler } from "./autoscaling";
import { IntOrPercent, readIntOrPercent } from "./intOrPercent";
import { RemovedApi, removedApi } from "./apiVersions";
import { CustomWorkload, CustomWorkloadKind, readCustomWorkload } from "./customWorkloads";
import { isBuiltInGroup, isKind, kubernetesKind, LONG_RUNNING, namespaceOf, objectName, readWorkload, Workload } from "./kubernetes";
import { LabelSelector, mapSelector, readSelector, SelectorIndex } from "./selector";
import { isUnknownValueError } from "./sdk";
import { asArray, asNumber, asString, field, path, stringMap } from "./values";
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
    /**
     * Written against an API version Kubernetes no longer serves (`policy/v1beta1`, removed in
     * 1.25, before any EKS version still on offer): the API server refuses it, so it protects
     * nothing. `api-versions-served` reports it.
     */
    removedApi?: RemovedApi;
}

/** One port of a Service. */
export interface ServicePort {
    /** `spec.ports[].name`, `""` when unnamed. */
    name: string;
    port: number | undefined;
    /** A container port number, or the name of a container port; defaults to `port`. */
    targetPort: number | string | undefined;
}

/** A Service with a selector. */
export interface Service {
    name: string;
    namespace: string;
    selector: LabelSelector;
    ports: ServicePort[];
    /** Every port is a metrics port (`isMetricsPort`): the Service exists to be scraped, not to serve requests. */
    metricsOnly: boolean;
    urn?: string;
}

/**
 * True for a port named for metrics: its name, or its target port's name, holds the word
 * `metrics` between `-`, `_` or `.` (`metrics`, `http-metrics`, `https-metrics`, `metrics-tls`),
 * the names exporters, operators and Helm charts give their scrape ports. Numbers decide nothing:
 * 9090 is Prometheus's own query API, 8080 anybody's.
 */
export function isMetricsPort(port: Pick<ServicePort, "name" | "targetPort">): boolean {
    const named = (s: unknown) => typeof s === "string" && s.toLowerCase().split(/[-_.]/).includes("metrics");
    return named(port.name) || named(port.targetPort);
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

/**
 * The Kubernetes objects `read` makes something of; an object whose values are unknown at
 * preview is left undecided in `verdicts`, and its namespace in `undecided`.
 */
function readEach<T>(
    resources: readonly StackResource[],
    verdicts: Verdicts,
    undecided: UndecidedNamespaces | undefined,
    read: (r: StackResource) => T | undefined,
): T[] {
    const out: T[] = [];
    for (const r of resources) {
        if (!r.type.startsWith("kubernetes:")) {
            continue;
        }
        let isOne = true;
        const item = verdicts.read(`${r.type} ${r.name}`, () => {
            const value = read(r);
            isOne = value !== undefined;
            return value;
        });
        if (item) {
            out.push(item);
        } else if (isOne) {
            undecided?.add(r.props);
        }
    }
    return out;
}

/** Workloads of the stack; unknown values leave the resource undecided in `verdicts` (and its namespace in `undecided`). */
export function readWorkloads(resources: readonly StackResource[], verdicts: Verdicts, undecided?: UndecidedNamespaces): Workload[] {
    return readEach(resources, verdicts, undecided, (r) => readWorkload(r.type, r.name, r.props, r.urn));
}

/** Workload-like custom resources of `kinds` (see `customWorkloads`); unknown values leave the resource undecided. */
export function readCustomWorkloads(
    resources: readonly StackResource[],
    kinds: readonly CustomWorkloadKind[],
    verdicts: Verdicts,
    undecided?: UndecidedNamespaces,
): CustomWorkload[] {
    return readEach(resources, verdicts, undecided, (r) => readCustomWorkload(r.type, r.name, r.props, kinds, r.urn));
}

/**
 * The custom resources (any API group the API server does not serve itself) of each namespace:
 * an operator may create pods from any of them. A resource whose namespace is unknown at preview
 * may be in any namespace (`all`).
 */
export function customResourcesByNamespace(resources: readonly StackResource[]): { byNamespace: Map<string, string[]>; all: boolean } {
    const byNamespace = new Map<string, string[]>();
    let all = false;
    for (const r of resources) {
        if (!r.type.startsWith("kubernetes:")) {
            continue;
        }
        try {
            const k = kubernetesKind(r.type, r.props);
            if (!k || isBuiltInGroup(k.group)) {
                continue;
            }
            const ns = namespaceOf(r.props);
            byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), `${k.kind} ${objectName(r.props, r.name)}`]);
        } catch (err) {
            if (!isUnknownValueError(err)) {
                throw err;
            }
            all = true;
        }
    }
    return { byNamespace, all };
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
 * The autoscalers (HorizontalPodAutoscaler, KEDA ScaledObject) of the stack, read by the pack's one
 * autoscaler reader. One unreadable at preview is recorded as undecided in `verdicts`, and its
 * namespace in `undecided`: any workload of that namespace may be the one it scales.
 */
export function readAutoscalers(resources: readonly StackResource[], verdicts: Verdicts, undecided?: UndecidedNamespaces): Autoscaler[] {
    const out: Autoscaler[] = [];
    for (const r of resources) {
        if (!r.type.startsWith("kubernetes:")) {
            continue;
        }
        const k = kubernetesKind(r.type, r.props);
        if (!k || !AUTOSCALER_KINDS.has(k.kind)) {
            continue;
        }
        let read = false;
        const a = verdicts.read(`${k.kind} ${r.name}`, () => {
            const autoscaler = readAutoscaler(k.group, k.kind, r.props, r.name);
            read = true;
            return autoscaler;
        });
        if (!read) {
            undecided?.add(r.props);
        }
        if (a) {
            out.push(a);
        }
    }
    return out;
}

/**
 * Sets `autoscaled` on each workload that a HorizontalPodAutoscaler or KEDA ScaledObject of the
 * stack scales (same namespace, target kind and name); see `readAutoscalers` for what cannot be read.
 */
export function withAutoscalers(
    workloads: Workload[],
    resources: readonly StackResource[],
    verdicts: Verdicts,
    undecided?: UndecidedNamespaces,
): Workload[] {
    const byTarget = new Map<string, Autoscaler[]>();
    for (const a of readAutoscalers(resources, verdicts, undecided)) {
        const key = `${a.namespace}/${a.target.kind}/${a.target.name}`;
        byTarget.set(key, [...(byTarget.get(key) ?? []), a]);
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
export function replicaBounds(w: Pick<Workload, "autoscaled" | "replicas">): { min: number; max: number } | undefined {
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
            const k = kubernetesKind(r.type, r.props);
            const removed = k && removedApi(k);
            const p: Pdb = {
                name: objectName(r.props, r.name),
                namespace: namespaceOf(r.props),
                urn: r.urn,
                selector: readSelector(field(spec, "selector")),
                invalid: [],
                bothSet: false,
                empty: false,
                ...(removed ? { removedApi: removed } : {}),
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

/** A Namespace of the stack: its name, the resource's URN (verdicts on the namespace go there) and its properties. */
export interface StackNamespace {
    name: string;
    urn: string;
    props: unknown;
}

/**
 * The Namespace `r` (a resource of that kind), or `undefined` when its name is unknown at preview
 * (left undecided in `verdicts`). One resource at a time, so callers reading other kinds in the
 * same pass keep their undecided items in resource order.
 */
export function readNamespace(r: StackResource, verdicts: Verdicts): StackNamespace | undefined {
    const name = verdicts.read(`Namespace ${r.name}`, () => objectName(r.props, r.name));
    return name === undefined ? undefined : { name, urn: r.urn, props: r.props };
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
        const svc = verdicts.read(`Service ${r.name}`, (): Service | undefined => {
            const selector = mapSelector(stringMap(path(r.props, "spec", "selector")));
            if (!selector) {
                return undefined;
            }
            const ports = asArray(path(r.props, "spec", "ports")).map((raw): ServicePort => {
                const port = asNumber(field(raw, "port"));
                const target = field(raw, "targetPort");
                return {
                    name: asString(field(raw, "name")) ?? "",
                    port,
                    targetPort: typeof target === "number" || (typeof target === "string" && target !== "") ? target : port,
                };
            });
            return {
                name: objectName(r.props, r.name),
                namespace: namespaceOf(r.props),
                selector,
                ports,
                metricsOnly: ports.length > 0 && ports.every(isMetricsPort),
                urn: r.urn,
            };
        });
        if (svc) {
            out.push(svc);
        }
    }
    return out;
}

/**
 * Long-running workloads with the Services that send them requests: Services selecting their
 * pods in their namespace, except those that only expose metrics (`isMetricsPort`).
 */
export function servedWorkloads(resources: readonly StackResource[], verdicts: Verdicts): { workload: Workload; services: Service[] }[] {
    return servingServices(readWorkloads(resources, verdicts), readServices(resources, verdicts));
}

/** `servedWorkloads` on workloads and Services already read. */
export function servingServices<W extends Workload>(
    workloads: readonly W[],
    services: readonly Service[],
): { workload: W; services: Service[] }[] {
    const index = new SelectorIndex<Service>();
    for (const svc of services) {
        if (!svc.metricsOnly) {
            index.add(svc.namespace, svc.selector, svc);
        }
    }
    const out: { workload: W; services: Service[] }[] = [];
    for (const workload of workloads) {
        const matched = LONG_RUNNING.has(workload.kind) ? index.matching(workload.namespace, workload.podLabels) : [];
        if (matched.length > 0) {
            out.push({ workload, services: matched });
        }
    }
    return out;
}

/** True when the API server would refuse the budget (bad values, both values set, malformed selector, a removed API version): it protects nothing. */
export function pdbRejected(pdb: Pdb): boolean {
    return pdb.invalid.length > 0 || pdb.bothSet || pdb.selector?.invalid !== undefined || pdb.removedApi !== undefined;
}

/** What a PodDisruptionBudget can select: the pods of a workload or of a workload-like custom resource. */
export type PodSource = Pick<Workload, "name" | "namespace" | "podLabels" | "replicas" | "autoscaled" | "urn"> & { kind: string };

/**
 * The PDBs matching each workload's pod labels in its namespace (Kubernetes selector semantics).
 * Budgets the API server would refuse match nothing: they never exist in the cluster.
 */
export function pdbsByWorkload<W extends PodSource>(workloads: readonly W[], pdbs: readonly Pdb[]): Map<W, Pdb[]> {
    const index = new SelectorIndex<Pdb>();
    for (const pdb of pdbs) {
        if (!pdbRejected(pdb)) {
            index.add(pdb.namespace, pdb.selector, pdb);
        }
    }
    const out = new Map<W, Pdb[]>();
    for (const w of workloads) {
        out.set(w, index.matching(w.namespace, w.podLabels));
    }
    return out;
}
