/**
 * Reads a stack's Kubernetes objects once into plain data, indexed by namespace and labels, so
 * stack policies stay linear in the number of resources (a later issue benchmarks 10k workloads).
 */
import type { PolicyResource } from "@pulumi/policy";
import {
    asArray,
    asNumber,
    asString,
    field,
    IntOrPercent,
    isBuiltInGroup,
    LabelSelector,
    mapSelector,
    path,
    readIntOrPercent,
    readSelector,
    SelectorIndex,
    stringMap,
} from "eks-platform-kernel";
import { Autoscaler, AUTOSCALER_KINDS, combinedRange, readAutoscaler } from "./autoscaling";
import { RemovedApi, removedApi } from "./apiVersions";
import { CustomWorkload, CustomWorkloadKind, readCustomWorkload } from "./customWorkloads";
import {
    ContainerRef,
    containersOf,
    isKind,
    kubernetesKind,
    LONG_RUNNING,
    namespaceOf,
    objectName,
    readWorkload,
    Workload,
} from "./kubernetes";
import { isUnknownValueError } from "./sdk";
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
     * `spec.unhealthyPodEvictionPolicy` (k8s.io/api policy/v1 types.go): `AlwaysAllow` lets a
     * running pod that is not yet Ready be evicted whatever the budget; `IfHealthyBudget` (the
     * default, also when unset) only while the budget is met. Any other value is refused by the API
     * server (`pdbRefusals`).
     */
    unhealthyPodEvictionPolicy?: unknown;
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
    /** Every port is a scrape or debug port (`isScrapePort`): the Service exists to be scraped, not to serve requests. */
    scrapeOnly: boolean;
    /** `spec.type` (`ClusterIP` when unset). */
    type: string;
    /** `spec.loadBalancerClass`, when set. */
    loadBalancerClass?: string;
    /** `spec.externalTrafficPolicy` (`Cluster` when unset). */
    externalTrafficPolicy: string;
    /** `metadata.annotations` (string values only). */
    annotations: Record<string, string>;
    urn?: string;
}

/**
 * Words that name a port for scraping or debugging, not for requests: `metrics` (Prometheus
 * exporters, operators and Helm charts: `metrics`, `http-metrics`, `https-metrics`, `metrics-tls`),
 * `telemetry` (Envoy and OpenTelemetry collectors' own metrics), `profiling` and `pprof` (Go's
 * net/http/pprof), `debug` (debuggers, admin consoles). A health-check port is not among them: a
 * load balancer's health check decides whether requests reach the pod.
 */
const SCRAPE_PORT_WORDS: readonly string[] = ["metrics", "telemetry", "profiling", "pprof", "debug"];

/**
 * True for a port named for scraping or debugging: its name, or its target port's name, holds one
 * of `SCRAPE_PORT_WORDS` between `-`, `_` or `.`. Numbers decide nothing: 9090 is Prometheus's own
 * query API, 8080 anybody's.
 */
function isScrapePort(port: Pick<ServicePort, "name" | "targetPort">): boolean {
    const named = (s: unknown) =>
        typeof s === "string" &&
        s
            .toLowerCase()
            .split(/[-_.]/)
            .some((word) => SCRAPE_PORT_WORDS.includes(word));
    return named(port.name) || named(port.targetPort);
}

/** The ports a container declares: names and numbers. */
function declaredPorts(c: ContainerRef): { names: Set<string>; numbers: Set<number> } {
    const names = new Set<string>();
    const numbers = new Set<number>();
    for (const p of asArray(field(c.spec, "ports"))) {
        const name = asString(field(p, "name"));
        const number = asNumber(field(p, "containerPort"));
        if (name) {
            names.add(name);
        }
        if (number !== undefined) {
            numbers.add(number);
        }
    }
    return { names, numbers };
}

/** The containers of a pod that can take a Service's traffic: containers and native sidecars. */
export function servingContainers(podSpec: unknown): ContainerRef[] {
    return containersOf(podSpec).filter((c) => c.role === "container" || c.sidecar);
}

/**
 * Which of `containers` the Services' ports reach, each with how (`Service api sends it traffic
 * (port 80 → targetPort 8080)`), as the EndpointSlice controller resolves a target port
 * (kubernetes v1.34 pkg/controller/endpointslice, `podutil.FindPort`): a **name** reaches the
 * container declaring a port of that name, and no container declaring it leaves the pod out of the
 * Service's endpoints for that port; a **number** reaches the container declaring that
 * `containerPort`, and when none declares it (declaring is informational) the only container, or
 * every container of several, said so. Scrape and debug ports (`isScrapePort`) are left out. A
 * Service without ports (headless, DNS only) may reach any container.
 */
export function serviceRoutes(containers: readonly ContainerRef[], services: readonly Service[]): Map<ContainerRef, string[]> {
    const out = new Map<ContainerRef, string[]>();
    const add = (c: ContainerRef, route: string) => out.set(c, [...(out.get(c) ?? []), route]);
    const declared = new Map(containers.map((c) => [c, declaredPorts(c)]));
    for (const svc of services) {
        if (svc.ports.length === 0) {
            for (const c of containers) {
                add(c, `Service ${svc.name} (no ports: clients may connect to any port) sends it traffic`);
            }
            continue;
        }
        for (const port of svc.ports) {
            if (isScrapePort(port)) {
                continue;
            }
            const route = (note = "") =>
                `Service ${svc.name} sends it traffic (port ${port.name || port.port} → targetPort ${port.targetPort}${note})`;
            const target = port.targetPort;
            if (typeof target === "string") {
                containers.filter((c) => declared.get(c)?.names.has(target)).forEach((c) => add(c, route()));
                continue;
            }
            const owners = containers.filter((c) => target !== undefined && declared.get(c)?.numbers.has(target));
            if (owners.length > 0) {
                owners.forEach((c) => add(c, route()));
            } else if (containers.length === 1) {
                add(containers[0], route());
            } else {
                for (const c of containers) {
                    add(
                        c,
                        route(", a port no container declares, so any of them may serve it: declare it in the serving container's ports"),
                    );
                }
            }
        }
    }
    return out;
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
            const unhealthy = field(spec, "unhealthyPodEvictionPolicy");
            if (unhealthy !== undefined && unhealthy !== null) {
                p.unhealthyPodEvictionPolicy = unhealthy;
            }
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
                scrapeOnly: ports.length > 0 && ports.every(isScrapePort),
                type: asString(path(r.props, "spec", "type")) ?? "ClusterIP",
                loadBalancerClass: asString(path(r.props, "spec", "loadBalancerClass")),
                externalTrafficPolicy: asString(path(r.props, "spec", "externalTrafficPolicy")) ?? "Cluster",
                annotations: stringMap(path(r.props, "metadata", "annotations")),
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
 * pods in their namespace whose ports reach a container of the pod (`serviceRoutes`), so neither a
 * Service that is only scraped nor one whose named target port the pod does not declare counts.
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
        if (!svc.scrapeOnly) {
            index.add(svc.namespace, svc.selector, svc);
        }
    }
    const out: { workload: W; services: Service[] }[] = [];
    for (const workload of workloads) {
        const selecting = LONG_RUNNING.has(workload.kind) ? index.matching(workload.namespace, workload.podLabels) : [];
        const matched = selecting.filter((svc) => reachesPod(workload.podSpec, svc));
        if (matched.length > 0) {
            out.push({ workload, services: matched });
        }
    }
    return out;
}

/** Whether a Service's ports reach a container of the pod; a port list unknown at preview counts as reaching it. */
function reachesPod(podSpec: unknown, svc: Service): boolean {
    try {
        return serviceRoutes(servingContainers(podSpec), [svc]).size > 0;
    } catch (err) {
        if (isUnknownValueError(err)) {
            return true;
        }
        throw err;
    }
}

/** The values policy/v1 accepts for `spec.unhealthyPodEvictionPolicy` (ValidatePodDisruptionBudgetSpec). */
const UNHEALTHY_POD_EVICTION_POLICIES: readonly string[] = ["IfHealthyBudget", "AlwaysAllow"];

/**
 * Why the API server would refuse the budget (policy/v1 ValidatePodDisruptionBudgetSpec), each as
 * what is wrong (`sets maxUnavailable to -1, …`) and its fix; empty when it would accept it. A
 * removed API version is `api-versions-served`'s to report and is left out.
 */
export function pdbRefusals(pdb: Pdb): { what: string; fix: string; at: string[] }[] {
    const out: { what: string; fix: string; at: string[] }[] = [];
    for (const bad of pdb.invalid) {
        out.push({
            what: `sets ${bad.key} to ${JSON.stringify(bad.value)}, ${bad.reason}`,
            fix: `set ${bad.key} to a non-negative integer such as 1 or a percentage string from "0%" to "100%" such as "25%"`,
            at: ["spec", bad.key],
        });
    }
    const policy = pdb.unhealthyPodEvictionPolicy;
    if (policy !== undefined && !UNHEALTHY_POD_EVICTION_POLICIES.includes(policy as string)) {
        out.push({
            what: `sets unhealthyPodEvictionPolicy to ${JSON.stringify(policy)}, not one of ${UNHEALTHY_POD_EVICTION_POLICIES.join(" or ")}`,
            fix: "set unhealthyPodEvictionPolicy to AlwaysAllow (pods not yet Ready never hold a drain) or IfHealthyBudget, or leave it unset",
            at: ["spec", "unhealthyPodEvictionPolicy"],
        });
    }
    if (pdb.bothSet) {
        out.push({ what: "sets both minAvailable and maxUnavailable", fix: "keep only one of them, e.g. maxUnavailable: 1", at: ["spec"] });
    }
    if (pdb.selector?.invalid) {
        out.push({
            what: `has a malformed selector: ${pdb.selector.invalid}`,
            fix: "write spec.selector as matchLabels (a map of label keys to string values) and/or matchExpressions (a list of {key, operator: In|NotIn|Exists|DoesNotExist, values}) matching the workload's pod template labels",
            at: ["spec", "selector"],
        });
    }
    return out;
}

/** True when the API server would refuse the budget (bad values, both values set, malformed selector, a removed API version): it protects nothing. */
export function pdbRejected(pdb: Pdb): boolean {
    return pdbRefusals(pdb).length > 0 || pdb.removedApi !== undefined;
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
