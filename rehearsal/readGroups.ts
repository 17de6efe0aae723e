/**
 * The readers of node capacity, by resource type: an EKS managed node group, an Auto Scaling group
 * with its `EC2_INSTANCE_TERMINATING` lifecycle hook, and a Karpenter NodePool (EKS Auto Mode's
 * among them, the built-in ones too), each read into the group model its rollout method replays
 * (rollouts/). The settings of each rollout (`updateConfig`, instance refresh preferences,
 * disruption budgets, `terminationGracePeriod`) are read here, with the services' defaults.
 */
import {
    asArray,
    AUTO_MODE_COMPONENTS,
    asNumeric,
    asRecord,
    asString,
    capacityTypesAllowed,
    enabledBuiltInPools,
    field,
    instanceLabels,
    IntOrPercent,
    isAutoModeNodePool,
    isExtendedResourceName,
    nodePoolLifetime,
    normalizedRequirement,
    NODE_TEMPLATE_LABEL_TAG,
    NODE_TEMPLATE_TAINT_TAG,
    parseQuantity,
    path,
    readIntOrPercent,
    readNodeRequirements,
    readNodeTemplateTags,
    readTaints,
    stringMap,
    Taint,
} from "eks-platform-kernel";
import { karpenterVersion, objectName } from "eks-platform-evaluation";
import { nodeSize, poolCandidates } from "./instances";
import { DO_NOT_DISRUPT } from "./model";
import type {
    BudgetModel,
    DrainResource,
    GroupModel,
    ManagedGroupModel,
    NodePoolModel,
    NodeTemplate,
    SelfManagedGroupModel,
} from "./model";
import { countProblem, known, MIB } from "./readValues";
import {
    ASG_DEFAULT_MAX_HEALTHY_PERCENTAGE,
    ASG_DEFAULT_MIN_HEALTHY_PERCENTAGE,
    DEFAULT_HOOK_HEARTBEAT_SECONDS,
    EKS_DEFAULT_MAX_UNAVAILABLE,
    KARPENTER_DEFAULT_BUDGET,
    MAX_GROUP_NODES,
} from "./timing";

/** EKS's instance type when a node group names none and has no launch template type (CreateNodegroup API reference). */
const EKS_DEFAULT_INSTANCE_TYPE = "t3.medium";

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

export interface Hook {
    name: string;
    urn: string;
    parent?: string;
    group?: string;
    dependsOn: string[];
    heartbeatSeconds: number;
}

export function readHook(r: DrainResource): Hook | undefined {
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

export function readNodePool(r: DrainResource, builtInOf?: string): NodePoolModel {
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

/** How the rehearsal reads one node-group resource type, and how it names an item of it. */
export interface GroupReader {
    subject: string;
    read(r: DrainResource, context: { hooks: readonly Hook[]; asgCount: number }): GroupModel;
}

export const ASG_TYPE = "aws:autoscaling/group:Group";

/** The node-group resource types, by type token. */
export const GROUP_READERS: ReadonlyMap<string, GroupReader> = new Map([
    ["aws:eks/nodeGroup:NodeGroup", { subject: "NodeGroup", read: (r) => readManagedGroup(r) }],
    [ASG_TYPE, { subject: "Auto Scaling group", read: (r, { hooks, asgCount }) => readSelfManagedGroup(r, hooks, asgCount) }],
]);

/** A Karpenter v1 NodePool as pulumi-kubernetes registers it; the object is also recognised by its kind under other types. */
export const NODE_POOL_TYPE = "kubernetes:karpenter.sh/v1:NodePool";

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
