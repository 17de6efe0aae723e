/**
 * Reads a stack's resources into the rehearsal's model: managed node groups, Auto Scaling groups
 * with their termination hooks, Karpenter NodePools, and the workloads, budgets, autoscalers and
 * DaemonSets that run on them. Values unknown at preview leave their item undecided in `verdicts`.
 */
import {
    asArray,
    AUTO_MODE_COMPONENTS,
    asNumber,
    asNumeric,
    asRecord,
    ADVERTISED_EXTENDED_RESOURCES,
    asString,
    capacityTypesAllowed,
    enabledBuiltInPools,
    field,
    formatIntOrPercent,
    instanceLabels,
    IntOrPercent,
    isAutoModeNodePool,
    isExtendedResourceName,
    isUnknownSentinel,
    karpenterDuration,
    nodeRequirementMatches,
    nodePoolLifetime,
    normalizedPlacement,
    normalizedRequirement,
    NODE_TEMPLATE_LABEL_TAG,
    NODE_TEMPLATE_TAINT_TAG,
    parseQuantity,
    path,
    peek,
    readIntOrPercent,
    readNodePlacement,
    readNodeRequirements,
    readNodeTemplateTags,
    readSelector,
    readTaints,
    readTolerations,
    Rec,
    scaledValue,
    selectorMatches,
    stringMap,
    Taint,
} from "eks-platform-kernel";
import {
    combinedRange,
    containersOf,
    isKind,
    karpenterVersion,
    LONG_RUNNING,
    namespaceOf,
    objectName,
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
import { addonWorkloads } from "./addons";
import { operatorWorkloads } from "./operators";
import { nodeSize, poolCandidates } from "./instances";
import type {
    BudgetModel,
    ClusterModel,
    DaemonSetModel,
    DrainResource,
    GroupModel,
    ManagedGroupModel,
    NodePoolModel,
    NodeTemplate,
    PdbModel,
    PodShape,
    Requests,
    SelfManagedGroupModel,
    TopologyRule,
    WorkloadModel,
} from "./model";
import {
    ASG_DEFAULT_MAX_HEALTHY_PERCENTAGE,
    ASG_DEFAULT_MIN_HEALTHY_PERCENTAGE,
    DEFAULT_HOOK_HEARTBEAT_SECONDS,
    DEFAULT_PROBE_PERIOD_SECONDS,
    DEFAULT_TERMINATION_GRACE_SECONDS,
    EKS_DEFAULT_MAX_UNAVAILABLE,
    KARPENTER_DEFAULT_BUDGET,
    MAX_GROUP_NODES,
    MAX_WORKLOAD_REPLICAS,
    POD_START_SECONDS,
} from "./timing";

/** EKS's instance type when a node group names none and has no launch template type (CreateNodegroup API reference). */
const EKS_DEFAULT_INSTANCE_TYPE = "t3.medium";

const MIB = 2 ** 20;

/** `verdicts.read`, calling `onUnknown` when a value the item needs is unknown at preview. */
function readOr<T>(verdicts: Verdicts, subject: string, fn: () => T, onUnknown: () => void): T | undefined {
    const before = verdicts.undecidedSubjects.length;
    const out = verdicts.read(subject, fn);
    if (verdicts.undecidedSubjects.length > before) {
        onUnknown();
    }
    return out;
}

/** A property that may be unknown at preview, read without tripping the SDK's proxy: `undefined` when unknown. */
function known(obj: unknown, key: string): unknown {
    const raw = peek(obj, key);
    return isUnknownSentinel(raw) ? undefined : raw;
}

/** The zones of the stack's subnets; synthetic names when none can be read. */
function readZones(resources: readonly DrainResource[]): string[] {
    const zones = new Set<string>();
    for (const r of resources) {
        if (r.type === "aws:ec2/subnet:Subnet") {
            const zone = asString(known(r.props, "availabilityZone"));
            if (zone) {
                zones.add(zone);
            }
        }
    }
    return [...zones].sort();
}

function nodeTemplate(
    instanceType: string,
    labels: Record<string, string>,
    taints: Taint[],
    undecided: string[],
    maxPods?: number,
): NodeTemplate {
    const size = nodeSize(instanceType, maxPods);
    if (!size) {
        undecided.push(`the size of instance type ${instanceType} is not in the instance data, so its nodes' capacity is unknown`);
        return {
            instanceType,
            allocatable: undefined,
            capacity: undefined,
            labels: { ...labels, "node.kubernetes.io/instance-type": instanceType },
            taints,
        };
    }
    return {
        instanceType,
        allocatable: size.allocatable,
        capacity: size.capacity,
        labels: { ...instanceLabels(size.info), ...labels },
        taints,
    };
}

/**
 * The type a group's nodes get: on-demand groups launch the first type listed (EKS and the ASG
 * use the `prioritized` strategy); Spot groups may get any, so the smallest is counted.
 */
function chooseType(types: string[], spot: boolean): string {
    if (!spot || types.length === 1) {
        return types[0];
    }
    const sized = types.map((t) => ({ t, s: nodeSize(t) }));
    if (sized.some((x) => !x.s)) {
        return sized.find((x) => !x.s)!.t;
    }
    sized.sort(
        (a, b) => a.s!.allocatable.cpuMillis - b.s!.allocatable.cpuMillis || a.s!.allocatable.memoryMiB - b.s!.allocatable.memoryMiB,
    );
    return sized[0].t;
}

/** What every kind of group says of itself. */
function identity(r: DrainResource, name: string, spot: boolean, undecided: string[]) {
    return { name, resource: r.name, urn: r.urn, spot, undecided };
}

/** A count the rehearsal can replay one by one: a whole number from 0 to `max`; otherwise why not. */
function countProblem(value: number, what: string, max: number): string | undefined {
    if (!Number.isInteger(value) || value < 0) {
        return `${what} ${value} is not a whole number of 0 or more`;
    }
    return value > max ? `${what} ${value} is above the ${max} the rehearsal replays one by one` : undefined;
}

/** The number of zones a group's subnet list spans (one subnet per zone), at least 1; unknown items still count. */
function zoneCount(subnets: unknown): number {
    return Array.isArray(subnets) && subnets.length > 0 ? subnets.length : 1;
}

function trimPrefix(prefix: string | undefined): string | undefined {
    return prefix?.replace(/-+$/, "") || undefined;
}

function readManagedGroup(r: DrainResource): ManagedGroupModel {
    const p = r.props;
    const undecided: string[] = [];
    const name = asString(known(p, "nodeGroupName")) ?? trimPrefix(asString(known(p, "nodeGroupNamePrefix"))) ?? r.name;
    let desired = asNumeric(path(p, "scalingConfig", "desiredSize")) ?? asNumeric(path(p, "scalingConfig", "minSize")) ?? 0;
    const sizeProblem = countProblem(desired, "its desired size", MAX_GROUP_NODES);
    if (sizeProblem) {
        undecided.push(sizeProblem);
        desired = 0;
    }
    const spot = asString(field(p, "capacityType")) === "SPOT";
    let types = asArray(field(p, "instanceTypes")).filter((t): t is string => typeof t === "string");
    if (types.length === 0 && field(p, "launchTemplate") === undefined) {
        types = [EKS_DEFAULT_INSTANCE_TYPE];
    }
    const labels = {
        ...stringMap(field(p, "labels")),
        "eks.amazonaws.com/nodegroup": name,
        "eks.amazonaws.com/capacityType": spot ? "SPOT" : "ON_DEMAND",
    };
    const taints = readTaints(field(p, "taints"));
    let template: NodeTemplate | undefined;
    if (types.length === 0) {
        undecided.push("its instance type is set in the launch template, which the rehearsal does not follow");
    } else {
        template = nodeTemplate(chooseType(types, spot), labels, taints, undecided);
    }
    const update = field(p, "updateConfig");
    const count = asNumeric(field(update, "maxUnavailable"));
    const percent = asNumeric(field(update, "maxUnavailablePercentage"));
    let maxUnavailable = EKS_DEFAULT_MAX_UNAVAILABLE;
    let maxUnavailableSource = `EKS's default of ${EKS_DEFAULT_MAX_UNAVAILABLE} node`;
    if (count !== undefined && count >= 1) {
        maxUnavailable = Math.floor(count);
        maxUnavailableSource = `updateConfig.maxUnavailable ${count}`;
    } else if (percent !== undefined && percent >= 1) {
        // EKS does not document its rounding; down (at least one node) is the slower, safer reading.
        maxUnavailable = Math.max(1, Math.floor((desired * percent) / 100));
        maxUnavailableSource = `updateConfig.maxUnavailablePercentage ${percent}% of ${desired}`;
    }
    return {
        kind: "managed",
        ...identity(r, name, spot, undecided),
        desired,
        zones: zoneCount(field(p, "subnetIds")),
        template,
        maxUnavailable: Math.max(1, Math.min(maxUnavailable, Math.max(desired, 1))),
        maxUnavailableSource,
        minimal: asString(field(update, "updateStrategy")) === "MINIMAL",
    };
}

interface Hook {
    name: string;
    urn: string;
    parent?: string;
    group?: string;
    dependsOn: string[];
    heartbeatSeconds: number;
}

function readHook(r: DrainResource): Hook | undefined {
    if (asString(field(r.props, "lifecycleTransition")) !== "autoscaling:EC2_INSTANCE_TERMINATING") {
        return undefined;
    }
    const raw = field(r.props, "heartbeatTimeout");
    return {
        name: asString(known(r.props, "name")) ?? r.name,
        urn: r.urn,
        parent: r.parent?.urn,
        group: asString(known(r.props, "autoscalingGroupName")),
        dependsOn: (r.propertyDependencies?.autoscalingGroupName ?? []).map((d) => d.urn),
        heartbeatSeconds:
            raw === undefined || raw === null ? DEFAULT_HOOK_HEARTBEAT_SECONDS : (asNumeric(raw) ?? DEFAULT_HOOK_HEARTBEAT_SECONDS),
    };
}

/**
 * The hook of an Auto Scaling group: one whose `autoscalingGroupName` depends on the group (the
 * engine says so), or names it, or shares its parent component; or the only pair in the stack.
 */
function hookOf(r: DrainResource, name: string, hooks: readonly Hook[], groupCount: number): Hook | undefined {
    return (
        hooks.find((h) => h.dependsOn.includes(r.urn)) ??
        hooks.find((h) => h.group !== undefined && h.group === name) ??
        hooks.find((h) => h.parent !== undefined && h.parent === r.parent?.urn) ??
        (groupCount === 1 && hooks.length === 1 ? hooks[0] : undefined)
    );
}

function readSelfManagedGroup(r: DrainResource, hooks: readonly Hook[], groupCount: number): SelfManagedGroupModel {
    const p = r.props;
    const undecided: string[] = [];
    const name = asString(known(p, "name")) ?? trimPrefix(asString(known(p, "namePrefix"))) ?? r.name;
    let desired = asNumeric(field(p, "desiredCapacity")) ?? asNumeric(field(p, "minSize")) ?? 0;
    const sizeProblem = countProblem(desired, "its desired capacity", MAX_GROUP_NODES);
    if (sizeProblem) {
        undecided.push(sizeProblem);
        desired = 0;
    }
    const mixed = field(p, "mixedInstancesPolicy");
    const types = asArray(path(mixed, "launchTemplate", "overrides"))
        .map((o) => asString(field(o, "instanceType")))
        .filter((t): t is string => !!t);
    // EC2 Auto Scaling InstancesDistribution: the first onDemandBaseCapacity instances (default 0)
    // are on-demand, then onDemandPercentageAboveBaseCapacity (default 100) of the rest; any Spot
    // instance gives the group the Spot notice as its window.
    const onDemandShare = asNumeric(path(mixed, "instancesDistribution", "onDemandPercentageAboveBaseCapacity"));
    const onDemandBase = asNumeric(path(mixed, "instancesDistribution", "onDemandBaseCapacity")) ?? 0;
    const spot = mixed !== undefined && onDemandShare !== undefined && onDemandShare < 100 && onDemandBase < desired;
    const tags = new Map<string, string>();
    for (const tag of asArray(field(p, "tags"))) {
        const key = asString(field(tag, "key"));
        if (key !== undefined) {
            tags.set(key, asString(field(tag, "value")) ?? "");
        }
    }
    const declared = readNodeTemplateTags(tags);
    if (!declared) {
        undecided.push(
            `its node labels and taints are set in user data, which the rehearsal cannot read: declare them as ASG tags ${NODE_TEMPLATE_LABEL_TAG}<key> and ${NODE_TEMPLATE_TAINT_TAG}<key> (value:Effect)`,
        );
    }
    const labels = declared?.labels ?? {};
    const taints = declared?.taints ?? [];
    let template: NodeTemplate | undefined;
    if (types.length === 0) {
        undecided.push("its instance type is set in the launch template, which the rehearsal does not follow");
    } else {
        template = nodeTemplate(chooseType(types, spot), labels, taints, undecided);
    }
    const prefs = path(p, "instanceRefresh", "preferences");
    const warmup =
        asNumeric(field(prefs, "instanceWarmup")) ??
        asNumeric(field(p, "defaultInstanceWarmup")) ??
        asNumeric(field(p, "healthCheckGracePeriod")) ??
        0;
    const hook = hookOf(r, name, hooks, groupCount);
    return {
        kind: "selfManaged",
        ...identity(r, name, spot, undecided),
        desired,
        zones: zoneCount(field(p, "vpcZoneIdentifiers") ?? field(p, "availabilityZones")),
        template,
        minHealthyPercentage: asNumeric(field(prefs, "minHealthyPercentage")) ?? ASG_DEFAULT_MIN_HEALTHY_PERCENTAGE,
        maxHealthyPercentage: asNumeric(field(prefs, "maxHealthyPercentage")) ?? ASG_DEFAULT_MAX_HEALTHY_PERCENTAGE,
        warmupSeconds: warmup,
        ...(hook ? { hook: { name: hook.name, heartbeatSeconds: hook.heartbeatSeconds } } : {}),
    };
}

/** A budget's `nodes`: Karpenter writes counts as strings (`"5"`) and percentages as `"10%"`. */
function budgetNodes(value: unknown): IntOrPercent | undefined {
    const text = typeof value === "number" ? String(value) : asString(value);
    const read = text !== undefined && /^\d+$/.test(text) ? readIntOrPercent(Number(text)) : readIntOrPercent(text);
    return "problem" in read ? undefined : read;
}

function readNodePool(r: DrainResource, builtInOf?: string): NodePoolModel {
    const p = r.props;
    const undecided: string[] = [];
    const spec = field(p, "spec");
    const nodeSpec = path(spec, "template", "spec");
    const autoMode = builtInOf !== undefined || isAutoModeNodePool(p);
    // Karpenter reads beta keys as their stable ones (instances.ts `NORMALIZED_LABELS`).
    const requirements = readNodeRequirements(field(nodeSpec, "requirements")).map(normalizedRequirement);
    const capacityTypes = capacityTypesAllowed(requirements);
    const { candidates, unmodelled } = poolCandidates(requirements, autoMode);
    for (const key of unmodelled) {
        undecided.push(
            autoMode && key.startsWith("karpenter.k8s.aws/")
                ? `its requirement on ${key} is a label of self-managed Karpenter, which EKS Auto Mode nodes do not carry (theirs are eks.amazonaws.com/instance-*), so the instance types it allows are unknown`
                : `its requirement on ${key} is not in the instance data, so the instance types it allows are not narrowed by it`,
        );
    }
    if (candidates.length === 0) {
        undecided.push("no instance type in the instance data satisfies its requirements, so its nodes' capacity is unknown");
    }
    const budgets: BudgetModel[] = [];
    const rawBudgets = path(spec, "disruption", "budgets");
    for (const raw of rawBudgets === undefined ? [{ nodes: KARPENTER_DEFAULT_BUDGET }] : asArray(rawBudgets)) {
        // The CRD defaults a budget's `nodes` to 10% too (karpenter.sh_nodepools.yaml `budgets.items.nodes.default`).
        const nodes = budgetNodes(field(raw, "nodes") ?? KARPENTER_DEFAULT_BUDGET);
        if (nodes) {
            const reasons = asArray(field(raw, "reasons")).filter((x): x is string => typeof x === "string");
            budgets.push({
                nodes,
                ...(reasons.length > 0 ? { reasons } : {}),
                ...(asString(field(raw, "schedule")) ? { schedule: asString(field(raw, "schedule")) } : {}),
                ...(asString(field(raw, "duration")) ? { duration: asString(field(raw, "duration")) } : {}),
            });
        }
    }
    const limits = field(spec, "limits");
    const cpu = parseQuantity(field(limits, "cpu"));
    const memory = parseQuantity(field(limits, "memory"));
    // `spec.limits` is a ResourceList: any resource counts, GPUs included (karpenter v1.14.1
    // pkg/apis/v1/nodepool.go `Limits.ExceededBy`).
    const extendedLimits = Object.fromEntries(
        Object.keys(asRecord(limits) ?? {})
            .filter(isExtendedResourceName)
            .flatMap((k) => {
                const q = parseQuantity(field(limits, k));
                return q === undefined ? [] : [[k, q] as const];
            }),
    );
    // Auto Mode fills in its own expireAfter and terminationGracePeriod (kernel `nodePoolLifetime`).
    const lifetime = nodePoolLifetime(p);
    const grace = lifetime.terminationGraceSeconds;
    const name = objectName(p, r.name);
    return {
        kind: "nodePool",
        ...identity(r, name, capacityTypes.includes("spot"), undecided),
        weight: asNumeric(field(spec, "weight")) ?? 0,
        labels: {
            ...stringMap(path(spec, "template", "metadata", "labels")),
            "karpenter.sh/nodepool": name,
            // Auto Mode's nodes say so (create-node-pool.adoc, Supported labels: `eks.amazonaws.com/compute-type` `auto`).
            ...(autoMode ? { [AUTO_MODE_COMPONENTS.computeTypeLabel.key]: AUTO_MODE_COMPONENTS.computeTypeLabel.value } : {}),
        },
        taints: readTaints(field(nodeSpec, "taints")),
        requirements,
        limits: {
            ...(cpu !== undefined ? { cpuMillis: cpu * 1000 } : {}),
            ...(memory !== undefined ? { memoryMiB: memory / MIB } : {}),
            ...(Object.keys(extendedLimits).length > 0 ? { extended: extendedLimits } : {}),
        },
        budgets,
        ...(grace !== undefined ? { terminationGraceSeconds: grace } : {}),
        ...(lifetime.expireAfterSeconds !== undefined ? { expireAfterSeconds: lifetime.expireAfterSeconds } : {}),
        lifetimeDefaults: lifetime.defaulted,
        autoMode,
        ...(builtInOf !== undefined ? { builtInOf } : {}),
        capacityTypes,
        candidates,
        // On the Node it blocks drift even with terminationGracePeriod (karpenter v1.14.1
        // pkg/controllers/state/statenode.go `ValidateNodeDisruptable`, checked before the exemption).
        doNotDisruptNodes: asString(path(spec, "template", "metadata", "annotations", DO_NOT_DISRUPT)) === "true",
    };
}

/** Karpenter's opt-out annotation, on pods and nodes (karpenter v1.14.1 pkg/apis/v1/labels.go `DoNotDisruptAnnotationKey`). */
export const DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt";

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

export const HOSTNAME = "kubernetes.io/hostname";
export const ZONE = "topology.kubernetes.io/zone";
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

/** How the rehearsal reads one node-group resource type, and how it names an item of it. */
interface GroupReader {
    subject: string;
    read(r: DrainResource, context: { hooks: readonly Hook[]; asgCount: number }): GroupModel;
}

const ASG_TYPE = "aws:autoscaling/group:Group";

/** The node-group resource types, by type token. */
const GROUP_READERS: ReadonlyMap<string, GroupReader> = new Map([
    ["aws:eks/nodeGroup:NodeGroup", { subject: "NodeGroup", read: (r) => readManagedGroup(r) }],
    [ASG_TYPE, { subject: "Auto Scaling group", read: (r, { hooks, asgCount }) => readSelfManagedGroup(r, hooks, asgCount) }],
]);

/** A Karpenter v1 NodePool as pulumi-kubernetes registers it; the object is also recognised by its kind under other types. */
const NODE_POOL_TYPE = "kubernetes:karpenter.sh/v1:NodePool";

/**
 * The resource types the rehearsal reads as node capacity, whatever program registers them: an EKS
 * managed node group, an Auto Scaling group (with its `EC2_INSTANCE_TERMINATING` lifecycle hook)
 * and a Karpenter NodePool. Nodes of any other type are invisible to it: every node-group kind of
 * this program names the type of its nodes, and a test checks it is listed here.
 */
export const CAPACITY_TYPES: readonly string[] = [...GROUP_READERS.keys(), NODE_POOL_TYPE];

/** True when the resources hold node capacity to rehearse: a managed node group, an Auto Scaling group or a NodePool. */
export function hasNodeCapacity(resources: readonly DrainResource[]): boolean {
    return (
        resources.some(
            (r) =>
                CAPACITY_TYPES.includes(r.type) ||
                (r.type.startsWith("kubernetes:") && karpenterVersion(r.type, r.props, "karpenter.sh", "NodePool") !== undefined),
        ) || builtInPoolsOf(resources).pools.length > 0
    );
}

/** The built-in pools of EKS Auto Mode the stack's clusters enable (kernel `enabledBuiltInPools`); unreadable values count as none. */
function builtInPoolsOf(resources: readonly DrainResource[]): ReturnType<typeof enabledBuiltInPools> {
    try {
        return enabledBuiltInPools(resources);
    } catch {
        // The SDK's proxy throws on a value unknown at preview: `readCluster` says so through its verdicts.
        return { pools: [], invalid: [], unknown: [] };
    }
}

/** Reads the stack into the rehearsal's model. */
export function readCluster(input: readonly DrainResource[], verdicts: Verdicts): ClusterModel {
    const undecidedNamespaces = new UndecidedNamespaces();
    // The platform's own controllers are workloads too, read from their releases and add-ons; so
    // are the pods and budgets operators make from custom resources (a CloudNativePG Cluster).
    const addons = addonWorkloads(input);
    const operators = operatorWorkloads(input, (r, fn) =>
        readOr(verdicts, `${r.type} ${r.name}`, fn, () => undecidedNamespaces.add(r.props)),
    );
    const resources = [...input, ...addons.resources, ...operators.resources];
    const groups: GroupModel[] = [];
    const notModelled: string[] = [...addons.notes, ...operators.notes];
    const hooks: Hook[] = [];
    const undecided: string[] = [];
    let capacityUndecided = false;
    for (const r of resources) {
        if (r.type === "aws:autoscaling/lifecycleHook:LifecycleHook") {
            const hook = readOr(
                verdicts,
                `LifecycleHook ${r.name}`,
                () => readHook(r),
                () => (capacityUndecided = true),
            );
            if (hook) {
                hooks.push(hook);
            }
        }
    }
    const asgCount = resources.filter((r) => r.type === ASG_TYPE).length;
    for (const r of resources) {
        let group: GroupModel | undefined;
        const reader = GROUP_READERS.get(r.type);
        if (reader) {
            group = readOr(
                verdicts,
                `${reader.subject} ${r.name}`,
                () => reader.read(r, { hooks, asgCount }),
                () => (capacityUndecided = true),
            );
        } else if (r.type.startsWith("kubernetes:")) {
            const version = karpenterVersion(r.type, r.props, "karpenter.sh", "NodePool");
            if (version === "v1") {
                group = readOr(
                    verdicts,
                    `NodePool ${r.name}`,
                    () => readNodePool(r),
                    () => (capacityUndecided = true),
                );
            } else if (version !== undefined) {
                notModelled.push(`NodePool ${r.name} (karpenter.sh/${version}, not the v1 API)`);
            } else if (
                (r.type === "kubernetes:helm.sh/v3:Release" || r.type === "kubernetes:helm.sh/v4:Chart") &&
                !addons.modelled.has(r.name)
            ) {
                notModelled.push(`the pods of Helm release ${r.name} (a chart's objects are not resources here)`);
            }
        } else if (r.type === "aws:eks/addon:Addon" && !addons.modelled.has(r.name)) {
            const addon = asString(known(r.props, "addonName"));
            notModelled.push(`the pods of EKS add-on ${addon ?? r.name}`);
        }
        if (group) {
            groups.push(group);
        }
    }

    // The built-in pools of EKS Auto Mode are no resource of their own: the cluster's
    // computeConfig.nodePools enables them, and the kernel holds what they are.
    const builtIn = readOr(
        verdicts,
        "EKS Auto Mode computeConfig.nodePools",
        () => enabledBuiltInPools(input),
        () => (capacityUndecided = true),
    );
    for (const c of builtIn?.unknown ?? []) {
        capacityUndecided = true;
        undecided.push(`the built-in NodePools of EKS Auto Mode that cluster ${c.name} enables are unknown until apply`);
    }
    for (const { cluster, name } of builtIn?.invalid ?? []) {
        undecided.push(
            `cluster ${cluster.name} enables built-in NodePool "${name}", which EKS Auto Mode does not have (general-purpose, system): EKS refuses it, so no capacity is rehearsed for it`,
        );
    }
    for (const pool of builtIn?.pools ?? []) {
        const r: DrainResource = { type: NODE_POOL_TYPE, name: pool.cluster.name, urn: pool.cluster.urn, props: pool.object };
        const model = readOr(
            verdicts,
            `built-in NodePool ${pool.name}`,
            () => readNodePool(r, pool.cluster.name),
            () => (capacityUndecided = true),
        );
        if (model) {
            groups.push(model);
        }
    }

    const limitRanges = readLimitRanges(resources, verdicts, undecidedNamespaces);
    const autoscalers = readAutoscalers(resources, verdicts, undecidedNamespaces);
    const workloads: WorkloadModel[] = [];
    const read: Workload[] = [];
    const daemonSets: DaemonSetModel[] = [];
    for (const r of resources) {
        if (!r.type.startsWith("kubernetes:")) {
            continue;
        }
        readOr(
            verdicts,
            `${r.type} ${r.name}`,
            () => {
                const w = readWorkload(r.type, r.name, r.props, r.urn);
                if (!w) {
                    return;
                }
                const id = operators.ids.get(r.name) ?? `${w.kind} ${w.namespace}/${w.name}`;
                if (!LONG_RUNNING.has(w.kind)) {
                    notModelled.push(`${id} (runs to completion, not drained as a service)`);
                    return;
                }
                const unmodelled: string[] = [];
                const pod = podShape(w.podSpec, w.podLabels, limitRanges.get(w.namespace), unmodelled);
                if (w.kind === "DaemonSet") {
                    daemonSets.push({ id, pod });
                    return;
                }
                // An autoscaler owns the count: the rollout meets the workload at its minimum.
                const scalers = autoscalers.filter(
                    (a) => a.namespace === w.namespace && a.target.kind === w.kind && a.target.name === w.name,
                );
                const range = scalers.length > 0 ? combinedRange(scalers) : undefined;
                if (!range && w.invalidReplicas !== undefined) {
                    // The API server refuses the object: it never runs, so it is not rehearsed as one replica.
                    undecided.push(
                        `${id}: replicas ${JSON.stringify(w.invalidReplicas)} is refused by the API server (not a non-negative integer), so it is not rehearsed`,
                    );
                    return;
                }
                const replicas = range ? range.min : (w.replicas ?? 1);
                const replicaProblem = countProblem(replicas, range ? `the minimum of ${range.by}` : "replicas", MAX_WORKLOAD_REPLICAS);
                if (replicaProblem) {
                    undecided.push(`${id}: ${replicaProblem}`);
                    return;
                }
                const claims = asArray(path(r.props, "spec", "volumeClaimTemplates")).length > 0;
                const singleton = singletonReason(r.props);
                read.push(w);
                workloads.push({
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
            },
            () => undecidedNamespaces.add(r.props),
        );
    }
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
    // Without subnets to read (a program that gets them elsewhere, or hand-made resources),
    // zones are named in order; three when only NodePools say nothing of theirs.
    const zones = readZones(resources);
    const pools = groups.filter((g): g is NodePoolModel => g.kind === "nodePool");
    if (zones.length === 0) {
        // The zones pools name are the cluster's, whatever else there is.
        zones.push(
            ...new Set(pools.flatMap((p) => p.requirements.filter((r) => r.key === ZONE && r.operator === "In").flatMap((r) => r.values))),
        );
        zones.sort();
    }
    const needed = Math.max(zones.length === 0 ? 3 : 0, ...groups.map((g) => (g.kind === "nodePool" ? 0 : g.zones)));
    for (let i = zones.length; i < needed; i++) {
        zones.push(`zone-${String.fromCharCode(97 + i)}`);
    }
    for (const pool of pools) {
        // Karpenter launches only in the zones its requirements allow (and it has subnets in).
        const zoneRules = pool.requirements.filter((r) => r.key === ZONE);
        if (zoneRules.length > 0) {
            pool.zones = zones.filter((z) => zoneRules.every((r) => nodeRequirementMatches(r, { [ZONE]: z })));
        }
    }
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
    return { zones, groups, workloads, daemonSets, notModelled, undecided, undecidedNamespaces, capacityUndecided };
}
