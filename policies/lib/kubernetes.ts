/**
 * Kubernetes resources as policies see them: the kind behind a Pulumi type token (and, for custom
 * resources, behind `apiVersion`/`kind`), and the pod template of every workload kind.
 */
import { isUnknownValueError } from "./sdk";
import { asArray, asNumber, asRecord, asString, field, path, Rec, stringMap } from "./values";

export interface KubernetesKind {
    /** API group; `""` for the core group. */
    group: string;
    version: string;
    kind: string;
}

// Groups served by the API server itself: their Pulumi type token is authoritative.
const BUILT_IN_GROUPS = new Set([
    "",
    "apps",
    "batch",
    "policy",
    "autoscaling",
    "networking.k8s.io",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "scheduling.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "coordination.k8s.io",
    "discovery.k8s.io",
    "node.k8s.io",
    "certificates.k8s.io",
    "extensions",
]);

/**
 * The Kubernetes kind of a resource: from the type token (`kubernetes:apps/v1:Deployment`), and
 * for custom resources from the object's own `apiVersion`/`kind` when they are readable, since a
 * custom resource may be registered under another token (YAML, generic CustomResource).
 */
export function kubernetesKind(type: string, props: unknown): KubernetesKind | undefined {
    if (!type.startsWith("kubernetes:")) {
        return undefined;
    }
    const match = /^kubernetes:([^/:]+)\/([^:]+):([A-Za-z0-9]+)$/.exec(type);
    const fromToken = match ? { group: match[1] === "core" ? "" : match[1], version: match[2], kind: match[3] } : undefined;
    if (fromToken && BUILT_IN_GROUPS.has(fromToken.group)) {
        return fromToken;
    }
    let apiVersion: string | undefined;
    let kind: string | undefined;
    try {
        apiVersion = asString(field(props, "apiVersion"));
        kind = asString(field(props, "kind"));
    } catch (err) {
        if (!isUnknownValueError(err)) {
            throw err;
        }
    }
    if (apiVersion && kind) {
        const slash = apiVersion.lastIndexOf("/");
        return { group: slash < 0 ? "" : apiVersion.slice(0, slash), version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1), kind };
    }
    return fromToken;
}

/** True when the resource is `group`/`kind` (any version). */
export function isKind(type: string, props: unknown, group: string, kind: string): boolean {
    const k = kubernetesKind(type, props);
    return k !== undefined && k.group === group && k.kind === kind;
}

export type WorkloadKind = "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet" | "Pod" | "Job" | "CronJob";

const WORKLOAD_GROUPS: Record<WorkloadKind, string[]> = {
    Deployment: ["apps", "extensions"],
    StatefulSet: ["apps"],
    DaemonSet: ["apps", "extensions"],
    ReplicaSet: ["apps", "extensions"],
    Pod: [""],
    Job: ["batch"],
    CronJob: ["batch"],
};

/** Kinds whose pods run until replaced: the ones node drains evict and wait for. */
export const LONG_RUNNING: ReadonlySet<WorkloadKind> = new Set(["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Pod"]);

/** The workload kind of a resource, or `undefined` for anything else. */
export function workloadKind(type: string, props: unknown): WorkloadKind | undefined {
    const k = kubernetesKind(type, props);
    if (!k || !(k.kind in WORKLOAD_GROUPS)) {
        return undefined;
    }
    const kind = k.kind as WorkloadKind;
    return WORKLOAD_GROUPS[kind].includes(k.group) ? kind : undefined;
}

/** `metadata.namespace`, or `default` when unset (the namespace the API server uses). */
export function namespaceOf(props: unknown): string {
    return asString(path(props, "metadata", "namespace")) || "default";
}

/** `metadata.name`, or the Pulumi resource name when the program lets Pulumi name the object. */
export function objectName(props: unknown, resourceName: string): string {
    return asString(path(props, "metadata", "name")) || resourceName;
}

/** A workload read into plain data: what the drain policies need. */
export interface Workload {
    kind: WorkloadKind;
    name: string;
    namespace: string;
    /** Pod template labels (Pod: its own labels). */
    podLabels: Record<string, string>;
    /** The pod spec (still the SDK's proxy: read through `values`). */
    podSpec: Rec | undefined;
    /**
     * Pods it keeps running: `spec.replicas` (default 1) for Deployment/StatefulSet/ReplicaSet,
     * 1 for a Pod, `undefined` when it depends on the cluster (DaemonSet) or on a schedule (Job, CronJob).
     */
    replicas: number | undefined;
    /** Pulumi URN when known (stack policies report against it). */
    urn?: string;
}

/** The pod template of a workload's properties. */
export function podTemplateOf(kind: WorkloadKind, props: unknown): { labels: unknown; spec: unknown } {
    switch (kind) {
        case "Pod":
            return { labels: path(props, "metadata", "labels"), spec: field(props, "spec") };
        case "CronJob":
            return {
                labels: path(props, "spec", "jobTemplate", "spec", "template", "metadata", "labels"),
                spec: path(props, "spec", "jobTemplate", "spec", "template", "spec"),
            };
        default:
            return { labels: path(props, "spec", "template", "metadata", "labels"), spec: path(props, "spec", "template", "spec") };
    }
}

/** Reads a workload; `undefined` when the resource is not one. Unknown values throw (SDK proxy). */
export function readWorkload(type: string, resourceName: string, props: unknown, urn?: string): Workload | undefined {
    const kind = workloadKind(type, props);
    if (!kind) {
        return undefined;
    }
    const template = podTemplateOf(kind, props);
    let replicas: number | undefined;
    if (kind === "Pod") {
        replicas = 1;
    } else if (kind === "Deployment" || kind === "StatefulSet" || kind === "ReplicaSet") {
        const raw = path(props, "spec", "replicas");
        replicas = raw === undefined || raw === null ? 1 : asNumber(raw);
    }
    return {
        kind,
        name: objectName(props, resourceName),
        namespace: namespaceOf(props),
        podLabels: stringMap(template.labels),
        podSpec: asRecord(template.spec),
        replicas,
        ...(urn ? { urn } : {}),
    };
}

export interface ContainerRef {
    /** `container` or `init container`. */
    role: "container" | "init container";
    name: string;
    spec: Rec;
}

/** Containers and init containers of a pod spec. */
export function containersOf(podSpec: unknown): ContainerRef[] {
    const out: ContainerRef[] = [];
    for (const [list, role] of [
        ["initContainers", "init container"],
        ["containers", "container"],
    ] as const) {
        const items = asArray(field(podSpec, list));
        for (let i = 0; i < items.length; i++) {
            const spec = asRecord(items[i]);
            if (spec) {
                out.push({ role, name: asString(spec.name) || `#${i}`, spec });
            }
        }
    }
    return out;
}

/** `Deployment prod/api` — how messages name a workload. */
export function describeWorkload(w: Pick<Workload, "kind" | "namespace" | "name">): string {
    return `${w.kind} ${w.namespace}/${w.name}`;
}

/** True when the container has a preStop hook of any handler type. */
export function hasPreStop(container: unknown): boolean {
    const preStop = path(container, "lifecycle", "preStop");
    return asRecord(preStop) !== undefined && Object.keys(preStop as Rec).length > 0;
}

/**
 * Seconds a container's preStop hook sleeps: the `sleep` action, or `sleep N` commands in an
 * `exec` hook (summed: `sleep 5; nginx -s quit; sleep 2` is 7). 0 when it does not sleep.
 */
export function preStopSleepSeconds(container: unknown): number {
    const preStop = path(container, "lifecycle", "preStop");
    const sleep = asNumber(path(preStop, "sleep", "seconds"));
    if (sleep !== undefined) {
        return sleep;
    }
    const command = asArray(path(preStop, "exec", "command"))
        .filter((part): part is string => typeof part === "string")
        .join(" ");
    let total = 0;
    for (const match of command.matchAll(/(?:^|[\s;&|(])sleep\s+(\d+(?:\.\d+)?)s?(?=$|[\s;&|)])/g)) {
        total += Number(match[1]);
    }
    return total;
}
