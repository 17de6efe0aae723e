/**
 * Reads a stack's resources into the rehearsal's model: node capacity (readGroups.ts: managed node
 * groups, Auto Scaling groups with their termination hooks, Karpenter NodePools and EKS Auto
 * Mode's built-in pools), the workloads, budgets, autoscalers and DaemonSets that run on it
 * (readWorkloads.ts), and the cluster's zones. Values unknown at preview leave their item
 * undecided in `verdicts`.
 */
import { asString, enabledBuiltInPools, nodeRequirementMatches } from "eks-platform-kernel";
import { karpenterVersion, UndecidedNamespaces, Verdicts } from "eks-platform-evaluation";
import { addonWorkloads } from "./addons";
import { ZONE } from "./model";
import type { ClusterModel, DrainResource, GroupModel, NodePoolModel } from "./model";
import { operatorWorkloads } from "./operators";
import { ASG_TYPE, GROUP_READERS, Hook, NODE_POOL_TYPE, readHook, readNodePool } from "./readGroups";
import { known, readOr } from "./readValues";
import { readWorkloads, setAsideUnknownDevices } from "./readWorkloads";

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
    const notModelled: string[] = [...addons.notes, ...operators.notes];
    const undecided: string[] = [];
    const capacity = readCapacity(resources, verdicts, { modelledReleases: addons.modelled, notModelled });
    capacityFromAutoMode(input, verdicts, capacity, undecided);
    const { workloads, daemonSets } = readWorkloads(resources, verdicts, {
        ids: operators.ids,
        undecidedNamespaces,
        notModelled,
        undecided,
    });
    const zones = clusterZones(resources, capacity.groups);
    setAsideUnknownDevices(workloads, undecided);
    return {
        zones,
        groups: capacity.groups,
        workloads,
        daemonSets,
        notModelled,
        undecided,
        undecidedNamespaces,
        capacityUndecided: capacity.undecided,
    };
}

/** The groups and pools read so far, and whether one (or a hook) was unreadable at preview. */
interface Capacity {
    groups: GroupModel[];
    undecided: boolean;
}

/**
 * The node groups and NodePools among the resources, by resource type (readGroups.ts), their
 * termination hooks first. What looks like capacity or pods but is not read is said: a NodePool of
 * another API version, the pods of a Helm release or an EKS add-on the rehearsal has no model of.
 */
function readCapacity(
    resources: readonly DrainResource[],
    verdicts: Verdicts,
    context: { modelledReleases: ReadonlySet<string>; notModelled: string[] },
): Capacity {
    const { modelledReleases, notModelled } = context;
    const capacity: Capacity = { groups: [], undecided: false };
    const unknown = () => (capacity.undecided = true);
    const hooks: Hook[] = [];
    for (const r of resources) {
        if (r.type === "aws:autoscaling/lifecycleHook:LifecycleHook") {
            const hook = readOr(verdicts, `LifecycleHook ${r.name}`, () => readHook(r), unknown);
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
            group = readOr(verdicts, `${reader.subject} ${r.name}`, () => reader.read(r, { hooks, asgCount }), unknown);
        } else if (r.type.startsWith("kubernetes:")) {
            const version = karpenterVersion(r.type, r.props, "karpenter.sh", "NodePool");
            if (version === "v1") {
                group = readOr(verdicts, `NodePool ${r.name}`, () => readNodePool(r), unknown);
            } else if (version !== undefined) {
                notModelled.push(`NodePool ${r.name} (karpenter.sh/${version}, not the v1 API)`);
            } else if (
                (r.type === "kubernetes:helm.sh/v3:Release" || r.type === "kubernetes:helm.sh/v4:Chart") &&
                !modelledReleases.has(r.name)
            ) {
                notModelled.push(`the pods of Helm release ${r.name} (a chart's objects are not resources here)`);
            }
        } else if (r.type === "aws:eks/addon:Addon" && !modelledReleases.has(r.name)) {
            const addon = asString(known(r.props, "addonName"));
            notModelled.push(`the pods of EKS add-on ${addon ?? r.name}`);
        }
        if (group) {
            capacity.groups.push(group);
        }
    }
    return capacity;
}

/**
 * The built-in pools of EKS Auto Mode are no resource of their own: the cluster's
 * computeConfig.nodePools enables them, and the kernel holds what they are.
 */
function capacityFromAutoMode(input: readonly DrainResource[], verdicts: Verdicts, capacity: Capacity, undecided: string[]): void {
    const unknown = () => (capacity.undecided = true);
    const builtIn = readOr(verdicts, "EKS Auto Mode computeConfig.nodePools", () => enabledBuiltInPools(input), unknown);
    for (const c of builtIn?.unknown ?? []) {
        capacity.undecided = true;
        undecided.push(`the built-in NodePools of EKS Auto Mode that cluster ${c.name} enables are unknown until apply`);
    }
    for (const { cluster, name } of builtIn?.invalid ?? []) {
        undecided.push(
            `cluster ${cluster.name} enables built-in NodePool "${name}", which EKS Auto Mode does not have (general-purpose, system): EKS refuses it, so no capacity is rehearsed for it`,
        );
    }
    for (const pool of builtIn?.pools ?? []) {
        const r: DrainResource = { type: NODE_POOL_TYPE, name: pool.cluster.name, urn: pool.cluster.urn, props: pool.object };
        const model = readOr(verdicts, `built-in NodePool ${pool.name}`, () => readNodePool(r, pool.cluster.name), unknown);
        if (model) {
            capacity.groups.push(model);
        }
    }
}

/**
 * The cluster's zones: its subnets'. Without subnets to read (a program that gets them elsewhere,
 * or hand-made resources), the zones the NodePools name, then zones named in order: as many as a
 * group's subnets, three when only NodePools say nothing of theirs. Each pool's zones are then
 * those its requirements allow.
 */
function clusterZones(resources: readonly DrainResource[], groups: readonly GroupModel[]): string[] {
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
    return zones;
}
