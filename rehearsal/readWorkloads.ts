/**
 * The readers of workloads: each long-running workload's pods as the scheduler and the eviction
 * API see them (requests after LimitRange defaults, tolerations, placement, topology rules, grace
 * period, time to Ready, `karpenter.sh/do-not-disrupt`), the replicas a rollout meets (autoscalers'
 * minimum), the Services that send them requests, the PodDisruptionBudgets that match them, and
 * the DaemonSets on every node.
 */
import {
    asArray,
    ADVERTISED_EXTENDED_RESOURCES,
    asNumber,
    asNumeric,
    asRecord,
    asString,
    field,
    formatIntOrPercent,
    isExtendedResourceName,
    karpenterDuration,
    normalizedPlacement,
    parseQuantity,
    path,
    readNodePlacement,
    readSelector,
    readTolerations,
    Rec,
    scaledValue,
    selectorMatches,
} from "eks-platform-kernel";
import {
    combinedRange,
    containersOf,
    isKind,
    LONG_RUNNING,
    namespaceOf,
    pdbsByWorkload,
    podTemplateOf,
    readAutoscalers,
    readPdbs,
    readServices,
    readWorkload,
    servingServices,
    singletonReason,
    UndecidedNamespaces,
    Verdicts,
    Workload,
} from "eks-platform-evaluation";
import { DO_NOT_DISRUPT, HOSTNAME, ZONE } from "./model";
import type { DaemonSetModel, DrainResource, PdbModel, PodShape, Requests, TopologyRule, WorkloadModel } from "./model";
import { countProblem, MIB, readOr } from "./readValues";
import { DEFAULT_PROBE_PERIOD_SECONDS, DEFAULT_TERMINATION_GRACE_SECONDS, MAX_WORKLOAD_REPLICAS, POD_START_SECONDS } from "./timing";

/**
 * Whether a pod template's annotation keeps Karpenter from evicting its pods: `"true"`, or a
 * duration the pod is younger than (pkg/utils/pod/scheduling.go `IsDoNotDisruptActive`). A
 * rehearsal's running pods are taken as older than any duration; that is said as not modelled.
 */
function doNotDisrupt(props: unknown, kind: Workload["kind"], notModelled: string[]): boolean {
    const value = asString(path(podTemplateOf(kind, props).metadata, "annotations", DO_NOT_DISRUPT));
    if (value === undefined || value === "true") {
        return value === "true";
    }
    if (karpenterDuration(value) !== undefined) {
        notModelled.push(`${DO_NOT_DISRUPT}: "${value}" protects a pod only that long after it starts: running pods are taken as older`);
    }
    return false;
}

interface ContainerDefaults {
    request: Record<string, unknown>;
    limit: Record<string, unknown>;
}

/** `type: Container` defaults of each namespace's LimitRanges (what admission fills into containers). */
function readLimitRanges(
    resources: readonly DrainResource[],
    verdicts: Verdicts,
    undecided: UndecidedNamespaces,
): Map<string, ContainerDefaults> {
    const out = new Map<string, ContainerDefaults>();
    for (const r of resources) {
        if (!r.type.startsWith("kubernetes:") || !isKind(r.type, r.props, "", "LimitRange")) {
            continue;
        }
        readOr(
            verdicts,
            `LimitRange ${r.name}`,
            () => {
                const ns = namespaceOf(r.props);
                const defaults = out.get(ns) ?? { request: {}, limit: {} };
                for (const item of asArray(path(r.props, "spec", "limits"))) {
                    if (asString(field(item, "type")) !== "Container") {
                        continue;
                    }
                    // The API server defaults defaultRequest to default, and default to max.
                    const limit = { ...(asRecord(field(item, "max")) ?? {}), ...(asRecord(field(item, "default")) ?? {}) };
                    Object.assign(defaults.limit, limit);
                    Object.assign(defaults.request, limit, asRecord(field(item, "defaultRequest")) ?? {});
                }
                out.set(ns, defaults);
            },
            () => undecided.add(r.props),
        );
    }
    return out;
}

/** A container's requests and limits, read once (each read goes through the SDK's proxy). */
interface ContainerResources {
    requests: Rec;
    limits: Rec;
    /** Every resource name it requests or limits. */
    names: string[];
}

function containerResources(spec: Rec): ContainerResources {
    const resources = field(spec, "resources");
    const requests = asRecord(field(resources, "requests")) ?? {};
    const limits = asRecord(field(resources, "limits")) ?? {};
    const names = Object.keys(requests);
    for (const name of Object.keys(limits)) {
        if (!(name in requests)) {
            names.push(name);
        }
    }
    return { requests, limits, names };
}

/** A container's request for `resource` after defaulting: its request, else its limit, else the namespace's defaults. */
function containerRequest(r: ContainerResources, resource: "cpu" | "memory", defaults: ContainerDefaults | undefined): number {
    const raw = r.requests[resource] ?? r.limits[resource] ?? defaults?.request[resource];
    const value = parseQuantity(raw) ?? 0;
    return resource === "cpu" ? value * 1000 : value / MIB;
}

/** A container's requests of extended resources: its request, else its limit (for these a limit is the request). */
function extendedRequests(r: ContainerResources): Record<string, number> {
    const out: Record<string, number> = {};
    for (const name of r.names) {
        if (name.includes("/") && isExtendedResourceName(name)) {
            const value = parseQuantity(r.requests[name] ?? r.limits[name]) ?? 0;
            if (value > 0) {
                out[name] = value;
            }
        }
    }
    return out;
}

/**
 * Requests of a pod as the scheduler counts them: containers and sidecars, or the largest init
 * container if more (kube-scheduler NodeResourcesFit, `computePodResourceRequest`), extended
 * resources included.
 */
function podRequests(podSpec: unknown, defaults: ContainerDefaults | undefined, unsized?: Set<string>): Requests {
    const total = { cpuMillis: 0, memoryMiB: 0 };
    const init = { cpuMillis: 0, memoryMiB: 0 };
    const sidecars = { cpuMillis: 0, memoryMiB: 0 };
    const extended: Record<string, number> = {};
    const initExtended: Record<string, number> = {};
    const sidecarExtended: Record<string, number> = {};
    for (const c of containersOf(podSpec)) {
        const resources = containerResources(c.spec);
        for (const name of resources.names) {
            // Node disk and huge pages are not in the instance data: said, not sized.
            if (name === "ephemeral-storage" || name.startsWith("hugepages-")) {
                unsized?.add(name);
            }
        }
        const cpu = containerRequest(resources, "cpu", defaults);
        const memory = containerRequest(resources, "memory", defaults);
        const own = extendedRequests(resources);
        if (c.role === "container" || c.sidecar) {
            total.cpuMillis += cpu;
            total.memoryMiB += memory;
            for (const [k, v] of Object.entries(own)) {
                extended[k] = (extended[k] ?? 0) + v;
            }
            if (c.sidecar) {
                sidecars.cpuMillis += cpu;
                sidecars.memoryMiB += memory;
                for (const [k, v] of Object.entries(own)) {
                    sidecarExtended[k] = (sidecarExtended[k] ?? 0) + v;
                }
            }
        } else {
            init.cpuMillis = Math.max(init.cpuMillis, cpu + sidecars.cpuMillis);
            init.memoryMiB = Math.max(init.memoryMiB, memory + sidecars.memoryMiB);
            for (const [k, v] of Object.entries(own)) {
                initExtended[k] = Math.max(initExtended[k] ?? 0, v + (sidecarExtended[k] ?? 0));
            }
        }
    }
    for (const [k, v] of Object.entries(initExtended)) {
        extended[k] = Math.max(extended[k] ?? 0, v);
    }
    const requests: Requests = {
        cpuMillis: Math.max(total.cpuMillis, init.cpuMillis),
        memoryMiB: Math.max(total.memoryMiB, init.memoryMiB),
    };
    return Object.keys(extended).length > 0 ? { ...requests, extended } : requests;
}

/** Estimated seconds to Ready: start, then the slowest readiness probe's first success. */
function readySeconds(podSpec: unknown): number {
    let probe = 0;
    for (const c of containersOf(podSpec)) {
        const readiness = path(c.spec, "readinessProbe");
        if (asRecord(readiness)) {
            const delay = asNumeric(field(readiness, "initialDelaySeconds")) ?? 0;
            const period = asNumeric(field(readiness, "periodSeconds")) ?? DEFAULT_PROBE_PERIOD_SECONDS;
            const successes = asNumeric(field(readiness, "successThreshold")) ?? 1;
            probe = Math.max(probe, delay + period * successes);
        }
    }
    return POD_START_SECONDS + probe;
}

const TOPOLOGY_KEYS = new Set([HOSTNAME, ZONE]);

/** Spread constraints and required anti-affinity over the workload's own pods; others go to `notModelled`. */
function readTopology(podSpec: unknown, labels: Record<string, string>, notModelled: string[]): TopologyRule[] {
    const out: TopologyRule[] = [];
    for (const raw of asArray(field(podSpec, "topologySpreadConstraints"))) {
        const topologyKey = asString(field(raw, "topologyKey"));
        const selector = readSelector(field(raw, "labelSelector"));
        if (!topologyKey) {
            continue;
        }
        if (!TOPOLOGY_KEYS.has(topologyKey)) {
            notModelled.push(`a topology spread constraint on ${topologyKey} (only hostname and zone domains are modelled)`);
            continue;
        }
        if (!selectorMatches(selector, labels)) {
            notModelled.push(`a topology spread constraint on ${topologyKey} whose selector does not pick the workload's own pods`);
            continue;
        }
        out.push({
            topologyKey,
            maxSkew: asNumber(field(raw, "maxSkew")) ?? 1,
            hard: asString(field(raw, "whenUnsatisfiable")) !== "ScheduleAnyway",
            kind: "spread",
        });
    }
    for (const raw of asArray(path(podSpec, "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution"))) {
        const topologyKey = asString(field(raw, "topologyKey"));
        if (!topologyKey) {
            continue;
        }
        if (!TOPOLOGY_KEYS.has(topologyKey)) {
            notModelled.push(`a required pod anti-affinity on ${topologyKey} (only hostname and zone domains are modelled)`);
            continue;
        }
        if (!selectorMatches(readSelector(field(raw, "labelSelector")), labels)) {
            notModelled.push(`a required pod anti-affinity on ${topologyKey} whose selector does not pick the workload's own pods`);
            continue;
        }
        out.push({ topologyKey, maxSkew: 0, hard: true, kind: "antiAffinity" });
    }
    if (asRecord(path(podSpec, "affinity", "podAffinity"))) {
        notModelled.push("pod affinity");
    }
    return out;
}

function podShape(
    podSpec: unknown,
    labels: Record<string, string>,
    defaults: ContainerDefaults | undefined,
    notModelled: string[],
): PodShape {
    const grace = asNumeric(field(podSpec, "terminationGracePeriodSeconds"));
    const unsized = new Set<string>();
    const requests = podRequests(podSpec, defaults, unsized);
    if (unsized.size > 0) {
        notModelled.push(`its ${[...unsized].sort().join(", ")} requests (node disk and huge pages are not in the instance data)`);
    }
    return {
        requests,
        tolerations: readTolerations(podSpec),
        placement: normalizedPlacement(readNodePlacement(podSpec)),
        topology: readTopology(podSpec, labels, notModelled),
        graceSeconds: grace ?? DEFAULT_TERMINATION_GRACE_SECONDS,
        readySeconds: readySeconds(podSpec),
    };
}

function pdbModel(pdb: ReturnType<typeof readPdbs>[number], workloads: readonly WorkloadModel[]): PdbModel {
    const expected = workloads.reduce((sum, w) => sum + w.replicas, 0);
    let desiredHealthy = 0;
    let describe = "";
    if (pdb.minAvailable) {
        desiredHealthy = scaledValue(pdb.minAvailable, expected);
        describe = `minAvailable: ${formatIntOrPercent(pdb.minAvailable)}`;
    } else if (pdb.maxUnavailable) {
        desiredHealthy = Math.max(0, expected - scaledValue(pdb.maxUnavailable, expected));
        describe = `maxUnavailable: ${formatIntOrPercent(pdb.maxUnavailable)}`;
    } else {
        // Neither value: the disruption controller allows no disruption (ARCHITECTURE.md, facts).
        desiredHealthy = expected + 1;
        describe = "neither minAvailable nor maxUnavailable";
    }
    return {
        name: pdb.name,
        namespace: pdb.namespace,
        urn: pdb.urn,
        ...(pdb.minAvailable ? { minAvailable: pdb.minAvailable } : {}),
        ...(pdb.maxUnavailable ? { maxUnavailable: pdb.maxUnavailable } : {}),
        expected,
        desiredHealthy,
        describe,
        alwaysAllowUnhealthy: pdb.unhealthyPodEvictionPolicy === "AlwaysAllow",
    };
}

/** What the workload reader fills in as it goes: the models, and what it says it leaves out or cannot tell. */
interface WorkloadReading {
    /** How reports name a synthesised operator workload (`OperatorWorkloads.ids`). */
    ids: ReadonlyMap<string, string>;
    limitRanges: Map<string, ContainerDefaults>;
    autoscalers: ReturnType<typeof readAutoscalers>;
    notModelled: string[];
    undecided: string[];
    /** The workloads as the kernel reads them, and their models, index for index. */
    read: Workload[];
    workloads: WorkloadModel[];
    daemonSets: DaemonSetModel[];
}

/**
 * Reads every long-running workload and DaemonSet of the resources, then who sends each requests
 * and the budgets over its pods. What it leaves out goes to `notModelled`, what it cannot replay to
 * `undecided`; a workload unknown at preview withholds the verdicts on its namespace.
 */
export function readWorkloads(
    resources: readonly DrainResource[],
    verdicts: Verdicts,
    context: { ids: ReadonlyMap<string, string>; undecidedNamespaces: UndecidedNamespaces; notModelled: string[]; undecided: string[] },
): { workloads: WorkloadModel[]; daemonSets: DaemonSetModel[] } {
    const { undecidedNamespaces } = context;
    const reading: WorkloadReading = {
        ids: context.ids,
        limitRanges: readLimitRanges(resources, verdicts, undecidedNamespaces),
        autoscalers: readAutoscalers(resources, verdicts, undecidedNamespaces),
        notModelled: context.notModelled,
        undecided: context.undecided,
        read: [],
        workloads: [],
        daemonSets: [],
    };
    for (const r of resources) {
        if (!r.type.startsWith("kubernetes:")) {
            continue;
        }
        readOr(
            verdicts,
            `${r.type} ${r.name}`,
            () => readOneWorkload(r, reading),
            () => undecidedNamespaces.add(r.props),
        );
    }
    const { read, workloads, daemonSets } = reading;
    // Who serves requests: a workload a Service sends traffic to (scrape-only Services and ports the pod does not declare aside: `servingServices`).
    const modelOf = new Map(read.map((w, i) => [w, workloads[i]]));
    for (const { workload, services } of servingServices(read, readServices(resources, verdicts))) {
        const model = modelOf.get(workload);
        if (model) {
            model.services = services.map((svc) => `Service ${svc.namespace}/${svc.name}`);
        }
    }
    const matches = pdbsByWorkload(read, readPdbs(resources, verdicts, undecidedNamespaces));
    const byPdb = new Map<ReturnType<typeof readPdbs>[number], WorkloadModel[]>();
    read.forEach((w, i) => {
        for (const pdb of matches.get(w) ?? []) {
            byPdb.set(pdb, [...(byPdb.get(pdb) ?? []), workloads[i]]);
        }
    });
    for (const [pdb, matched] of byPdb) {
        const model = pdbModel(pdb, matched);
        for (const w of matched) {
            w.pdbs.push(model);
        }
    }
    return { workloads, daemonSets };
}

/** One resource, if it is a workload: a DaemonSet, a workload the rehearsal replays, or one it says it leaves out. */
function readOneWorkload(r: DrainResource, reading: WorkloadReading): void {
    const w = readWorkload(r.type, r.name, r.props, r.urn);
    if (!w) {
        return;
    }
    const id = reading.ids.get(r.name) ?? `${w.kind} ${w.namespace}/${w.name}`;
    if (!LONG_RUNNING.has(w.kind)) {
        reading.notModelled.push(`${id} (runs to completion, not drained as a service)`);
        return;
    }
    const unmodelled: string[] = [];
    const pod = podShape(w.podSpec, w.podLabels, reading.limitRanges.get(w.namespace), unmodelled);
    if (w.kind === "DaemonSet") {
        reading.daemonSets.push({ id, pod });
        return;
    }
    // An autoscaler owns the count: the rollout meets the workload at its minimum.
    const scalers = reading.autoscalers.filter((a) => a.namespace === w.namespace && a.target.kind === w.kind && a.target.name === w.name);
    const range = scalers.length > 0 ? combinedRange(scalers) : undefined;
    if (!range && w.invalidReplicas !== undefined) {
        // The API server refuses the object: it never runs, so it is not rehearsed as one replica.
        reading.undecided.push(
            `${id}: replicas ${JSON.stringify(w.invalidReplicas)} is refused by the API server (not a non-negative integer), so it is not rehearsed`,
        );
        return;
    }
    const replicas = range ? range.min : (w.replicas ?? 1);
    const replicaProblem = countProblem(replicas, range ? `the minimum of ${range.by}` : "replicas", MAX_WORKLOAD_REPLICAS);
    if (replicaProblem) {
        reading.undecided.push(`${id}: ${replicaProblem}`);
        return;
    }
    const claims = asArray(path(r.props, "spec", "volumeClaimTemplates")).length > 0;
    const singleton = singletonReason(r.props);
    reading.read.push(w);
    reading.workloads.push({
        id,
        kind: w.kind,
        name: w.name,
        namespace: w.namespace,
        ...(w.urn ? { urn: w.urn } : {}),
        labels: w.podLabels,
        replicas,
        ...(range ? { hpa: { name: range.by, minReplicas: range.min, maxReplicas: range.max } } : {}),
        ...(singleton !== undefined ? { singleton } : {}),
        pod,
        recreated: w.kind !== "Pod",
        recreateAfterTermination: w.kind === "StatefulSet",
        zonePinned: w.kind === "StatefulSet" && claims,
        pdbs: [],
        doNotDisrupt: doNotDisrupt(r.props, w.kind, unmodelled),
        services: [],
        notModelled: unmodelled,
    });
}

/**
 * Extended resources no instance type of the instance data advertises (a device plugin the
 * rehearsal does not know) are set aside: where such pods can run is said undecided, not judged.
 */
export function setAsideUnknownDevices(workloads: readonly WorkloadModel[], undecided: string[]): void {
    for (const w of workloads) {
        for (const name of Object.keys(w.pod.requests.extended ?? {})) {
            if (!ADVERTISED_EXTENDED_RESOURCES.has(name)) {
                undecided.push(
                    `${w.id} requests ${name}, which no instance type of the instance data advertises (a device plugin the rehearsal does not know): where its pods can run is not judged`,
                );
                const rest = { ...w.pod.requests.extended };
                delete rest[name];
                w.pod.requests = { ...w.pod.requests, extended: rest };
            }
        }
    }
}
