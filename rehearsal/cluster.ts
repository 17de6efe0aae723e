/**
 * The simulated cluster: nodes, the pods bound to them, and a scheduler that places a pod the
 * way kube-scheduler plausibly would, with Karpenter launching nodes for pods that fit nowhere.
 *
 * The scheduler (documented in docs/drain.md, "Placement"): a node qualifies when it is not
 * cordoned, its taints are tolerated, the pod's node selector and required node affinity match,
 * a zonal volume is in its zone, requests fit what is left of its allocatable CPU, memory and pod
 * slots, and the pod's hard topology rules (spread, anti-affinity) hold. Among those it takes the
 * node with the fewest pods of the same workload, then the fewest in its zone, then the least
 * allocated, then the oldest: deterministic, so a report never changes between runs.
 */
import { CAPACITY_TYPE_LABEL, formatTaint, nodeRequirementMatches, placementMismatch, Taint, untoleratedTaint } from "eks-platform-kernel";

import { HOSTNAME, ZONE } from "./read";
import type { Candidate, Capacity, DaemonSetModel, GroupModel, NodePoolModel, PodShape, Requests, WorkloadModel } from "./model";
import { NODE_READY_SECONDS } from "./timing";

export interface SimNode {
    name: string;
    group: GroupModel;
    zone: string;
    labels: Record<string, string>;
    instanceType: string;
    allocatable: Capacity | undefined;
    capacity: Requests | undefined;
    used: Use;
    pods: Set<SimPod>;
    cordoned: boolean;
    /** `old` nodes run the current configuration, `new` ones the rolled-out one. */
    generation: "old" | "new";
    /** Seconds (rollout clock) at which it is Ready. */
    readyAt: number;
    order: number;
    /** A Karpenter NodeClaim still being packed: the instance types that could still hold its pods. */
    options?: Candidate[];
    /** Cache of `classKey()`. */
    classKey?: string;
    /** Per option of a NodeClaim: its labels and DaemonSet overhead (a cache). */
    optionViews?: Map<Candidate, { labels: Record<string, string>; overhead: Use }>;
}

export interface SimPod {
    name: string;
    workload: WorkloadState;
    node?: SimNode;
    ready: boolean;
    /** The zone its volume is in (zonal storage pins a StatefulSet pod). */
    zone?: string;
}

export interface WorkloadState {
    model: WorkloadModel;
    pods: Set<SimPod>;
    ready: number;
    perNode: Map<SimNode, number>;
    perZone: Map<string, number>;
    nextOrdinal: number;
    /** Cached per node class: why nodes of the class never suit it (taints, selectors), or "" when they may. */
    classFit: Map<string, string>;
}

/** Why a pod did not get a node: reasons with the number of nodes (or NodePools) that gave each. */
export type Reasons = Map<string, number>;

function add(reasons: Reasons, reason: string): void {
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
}

/** `0/5 nodes are available: 3 cordoned, 2 insufficient cpu; NodePool general: at its limits`, the scheduler's style. */
export function formatReasons(reasons: Reasons, nodes: number): string {
    const nodeReasons = [...reasons].filter(([r]) => !r.startsWith("NodePool ")).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const poolReasons = [...reasons].filter(([r]) => r.startsWith("NodePool ")).map(([r]) => r);
    const parts = [`0/${nodes} nodes are available${nodeReasons.length ? `: ${nodeReasons.map(([r, n]) => `${n} ${r}`).join(", ")}` : ""}`];
    return [...parts, ...poolReasons].join("; ");
}

interface Use {
    cpuMillis: number;
    memoryMiB: number;
    pods: number;
    /** Extended resources in use; absent until a pod requests one (the common case stays cheap). */
    extended?: Record<string, number>;
}

function zeroUse(): Use {
    return { cpuMillis: 0, memoryMiB: 0, pods: 0 };
}

/** Counts a pod's requests (and its slot) on `used`; `sign` -1 takes them off. */
function count(used: Use, requests: Requests, sign: 1 | -1 = 1): void {
    used.cpuMillis += sign * requests.cpuMillis;
    used.memoryMiB += sign * requests.memoryMiB;
    used.pods += sign;
    if (requests.extended !== undefined) {
        used.extended ??= {};
        for (const [name, value] of Object.entries(requests.extended)) {
            used.extended[name] = (used.extended[name] ?? 0) + sign * value;
        }
    }
}

/**
 * The first extended resource `requests` needs more of than is left, or undefined. An extended
 * resource cannot be overcommitted: requested plus the pod's must not exceed allocatable, and a
 * node without it has none (kube-scheduler NodeResourcesFit `fitsRequest`, scalar resources).
 */
function missingExtended(used: Use, extra: Requests, allocatable: Capacity, overhead?: Use): string | undefined {
    if (used.extended === undefined && extra.extended === undefined && overhead?.extended === undefined) {
        return undefined;
    }
    const names = new Set([
        ...Object.keys(used.extended ?? {}),
        ...Object.keys(extra.extended ?? {}),
        ...Object.keys(overhead?.extended ?? {}),
    ]);
    for (const name of names) {
        const wanted = (used.extended?.[name] ?? 0) + (overhead?.extended?.[name] ?? 0) + (extra.extended?.[name] ?? 0);
        if (wanted > 0 && wanted > (allocatable.extended?.[name] ?? 0)) {
            return name;
        }
    }
    return undefined;
}

function fits(used: Use, requests: Requests, allocatable: Capacity | undefined): string | undefined {
    if (!allocatable) {
        return undefined;
    }
    if (used.pods + 1 > allocatable.pods) {
        return "too many pods";
    }
    if (used.cpuMillis + requests.cpuMillis > allocatable.cpuMillis) {
        return "insufficient cpu";
    }
    if (used.memoryMiB + requests.memoryMiB > allocatable.memoryMiB) {
        return "insufficient memory";
    }
    const extended = missingExtended(used, requests, allocatable);
    return extended === undefined ? undefined : `insufficient ${extended}`;
}

function runsOn(pod: PodShape, labels: Record<string, string>, taints: readonly Taint[]): boolean {
    return untoleratedTaint(pod.tolerations, taints) === undefined && placementMismatch(pod.placement, labels) === undefined;
}

function taintsOf(group: GroupModel): readonly Taint[] {
    return group.kind === "nodePool" ? group.taints : (group.template?.taints ?? []);
}

export class Cluster {
    readonly nodes: SimNode[] = [];
    readonly workloads = new Map<string, WorkloadState>();
    private counter = new Map<string, number>();
    private order = 0;

    constructor(
        readonly zones: readonly string[],
        readonly daemonSets: readonly DaemonSetModel[],
        readonly pools: readonly NodePoolModel[],
        workloads: readonly WorkloadModel[],
    ) {
        for (const w of workloads) {
            this.workloads.set(w.id, {
                model: w,
                pods: new Set(),
                ready: 0,
                perNode: new Map(),
                perZone: new Map(),
                nextOrdinal: 0,
                classFit: new Map(),
            });
        }
    }

    /** A deep copy: each rollout starts from the same initial placement. */
    clone(): Cluster {
        const copy = new Cluster(
            this.zones,
            this.daemonSets,
            this.pools,
            [...this.workloads.values()].map((w) => w.model),
        );
        copy.counter = new Map(this.counter);
        copy.order = this.order;
        const nodes = new Map<SimNode, SimNode>();
        for (const n of this.nodes) {
            const c: SimNode = {
                ...n,
                labels: n.labels,
                used: { ...n.used, ...(n.used.extended ? { extended: { ...n.used.extended } } : {}) },
                pods: new Set(),
            };
            nodes.set(n, c);
            copy.nodes.push(c);
        }
        for (const [id, w] of this.workloads) {
            const cw = copy.workloads.get(id) as WorkloadState;
            cw.nextOrdinal = w.nextOrdinal;
            for (const p of w.pods) {
                const cp: SimPod = { ...p, workload: cw, node: undefined };
                cw.pods.add(cp);
                if (p.node) {
                    // The node's `used` copied above already counts the pod's requests.
                    copy.attach(cp, nodes.get(p.node) as SimNode, false);
                }
                if (cp.ready) {
                    cw.ready++;
                }
            }
        }
        return copy;
    }

    /** Adds a node of `group` in `zone`, with its DaemonSet pods counted against its capacity. */
    addNode(
        group: GroupModel,
        zone: string,
        shape: { instanceType: string; allocatable: Capacity | undefined; capacity: Requests | undefined; labels: Record<string, string> },
        generation: "old" | "new",
        readyAt: number,
        options?: Candidate[],
    ): SimNode {
        const n = (this.counter.get(group.name) ?? 0) + 1;
        this.counter.set(group.name, n);
        const name = `${group.name}-${n}`;
        const node: SimNode = {
            name,
            group,
            zone,
            labels: {
                ...shape.labels,
                [ZONE]: zone,
                "topology.kubernetes.io/region": zone.replace(/[a-z]$/, ""),
                [HOSTNAME]: name,
            },
            instanceType: shape.instanceType,
            allocatable: shape.allocatable,
            capacity: shape.capacity,
            used: zeroUse(),
            pods: new Set(),
            cordoned: false,
            generation,
            readyAt,
            order: this.order++,
            ...(options ? { options } : {}),
        };
        if (!options) {
            this.addDaemonSets(node);
        }
        this.nodes.push(node);
        return node;
    }

    private addDaemonSets(node: SimNode): void {
        for (const ds of this.daemonSets) {
            if (runsOn(ds.pod, node.labels, taintsOf(node.group))) {
                count(node.used, ds.pod.requests);
            }
        }
    }

    removeNode(node: SimNode): void {
        const i = this.nodes.indexOf(node);
        if (i >= 0) {
            this.nodes.splice(i, 1);
        }
    }

    /** A new pod of a workload (not yet bound). */
    newPod(w: WorkloadState): SimPod {
        const pod: SimPod = { name: `${w.model.name}-${w.nextOrdinal++}`, workload: w, ready: false };
        w.pods.add(pod);
        return pod;
    }

    private attach(pod: SimPod, node: SimNode, countRequests = true): void {
        const w = pod.workload;
        pod.node = node;
        node.pods.add(pod);
        if (countRequests) {
            count(node.used, w.model.pod.requests);
        }
        w.perNode.set(node, (w.perNode.get(node) ?? 0) + 1);
        w.perZone.set(node.zone, (w.perZone.get(node.zone) ?? 0) + 1);
    }

    /** Binds a pod to a node; a zonal workload's pod stays in that zone from then on. */
    bind(pod: SimPod, node: SimNode): void {
        this.attach(pod, node);
        if (pod.workload.model.zonePinned) {
            pod.zone ??= node.zone;
        }
        if (node.options) {
            node.options = node.options.filter((o) => this.optionHolds(node, o, pod.workload.model.pod, true));
        }
    }

    /** Removes a pod from its node (evicted, deleted or terminated). */
    unbind(pod: SimPod): void {
        const node = pod.node;
        if (!node) {
            return;
        }
        const w = pod.workload;
        node.pods.delete(pod);
        count(node.used, w.model.pod.requests, -1);
        const onNode = (w.perNode.get(node) ?? 1) - 1;
        if (onNode > 0) {
            w.perNode.set(node, onNode);
        } else {
            w.perNode.delete(node);
        }
        w.perZone.set(node.zone, (w.perZone.get(node.zone) ?? 1) - 1);
        pod.node = undefined;
    }

    /** The pod leaves the workload for good (deleted, not replaced). */
    forget(pod: SimPod): void {
        this.unbind(pod);
        pod.workload.pods.delete(pod);
    }

    /** A NodeClaim option's labels and DaemonSet overhead on this node, computed once per node and option. */
    private optionView(node: SimNode, option: Candidate): { labels: Record<string, string>; overhead: Use } {
        node.optionViews ??= new Map();
        let view = node.optionViews.get(option);
        if (!view) {
            const labels = { ...node.labels, ...option.labels };
            const overhead = zeroUse();
            for (const ds of this.daemonSets) {
                if (runsOn(ds.pod, labels, taintsOf(node.group))) {
                    count(overhead, ds.pod.requests);
                }
            }
            view = { labels, overhead };
            node.optionViews.set(option, view);
        }
        return view;
    }

    /** Whether a NodeClaim option still holds what is packed on the node plus `pod` (and its DaemonSets). */
    private optionHolds(node: SimNode, option: Candidate, pod: PodShape, alreadyBound = false): boolean {
        const view = this.optionView(node, option);
        const constrained = pod.placement.terms !== undefined || Object.keys(pod.placement.nodeSelector).length > 0;
        if (constrained && placementMismatch(pod.placement, view.labels) !== undefined) {
            return false;
        }
        const extra: Requests = alreadyBound ? { cpuMillis: 0, memoryMiB: 0 } : pod.requests;
        const a = option.allocatable;
        return (
            node.used.cpuMillis + view.overhead.cpuMillis + extra.cpuMillis <= a.cpuMillis &&
            node.used.memoryMiB + view.overhead.memoryMiB + extra.memoryMiB <= a.memoryMiB &&
            node.used.pods + view.overhead.pods + (alreadyBound ? 0 : 1) <= a.pods &&
            // What is packed so far (alreadyBound: the pod included) must still fit this option.
            missingExtended(node.used, extra, a, view.overhead) === undefined
        );
    }

    /** Some option of a NodeClaim holds `pod` too (largest first: the likeliest). */
    private claimHolds(node: SimNode, pod: PodShape): boolean {
        const options = node.options as Candidate[];
        for (let i = options.length - 1; i >= 0; i--) {
            if (this.optionHolds(node, options[i], pod)) {
                return true;
            }
        }
        return false;
    }

    /** Why the nodes of a class (group, zone, instance type) never suit a workload's pods, or "". */
    private classMismatch(w: WorkloadState, node: SimNode): string {
        const pod = w.model.pod;
        const usesHostname = pod.placement.terms?.some((t) => t.some((r) => r.key === HOSTNAME)) || HOSTNAME in pod.placement.nodeSelector;
        const key = usesHostname ? undefined : classKey(node);
        const cached = key === undefined ? undefined : w.classFit.get(key);
        if (cached !== undefined) {
            return cached;
        }
        const taint = untoleratedTaint(pod.tolerations, taintsOf(node.group));
        let reason = taint ? `untolerated taint ${formatTaint(taint)}` : "";
        if (!reason) {
            if (node.options) {
                reason = node.options.some((o) => placementMismatch(pod.placement, this.optionView(node, o).labels) === undefined)
                    ? ""
                    : "node affinity/selector mismatch";
            } else {
                reason = placementMismatch(pod.placement, node.labels) ? "node affinity/selector mismatch" : "";
            }
        }
        if (key !== undefined) {
            w.classFit.set(key, reason);
        }
        return reason;
    }

    /**
     * The node the scheduler would bind `pod` to among existing nodes, or the reasons none
     * qualifies. `now` is the rollout clock (nodes not yet Ready still count: the pod waits for them).
     */
    choose(pod: SimPod, options: { exclude?: ReadonlySet<SimNode>; karpenter?: boolean } = {}): { node?: SimNode; reasons: Reasons } {
        const { exclude, karpenter } = options;
        const w = pod.workload;
        const shape = w.model.pod;
        const reasons: Reasons = new Map();
        // Domains of hard topology rules: every node matching the pod's node placement, cordoned or not
        // (the scheduler's default nodeTaintsPolicy Ignore counts tainted and cordoned nodes).
        // Karpenter, launching nodes, first treats preferences as requirements, and a new node is
        // always a hostname domain with none of the pods (Karpenter docs, Concepts → Scheduling).
        const hard = karpenter ? shape.topology : shape.topology.filter((t) => t.hard);
        let minHost = Infinity;
        const zoneMin = new Map<string, number>();
        const eligible: SimNode[] = [];
        for (const node of this.nodes) {
            if (exclude?.has(node)) {
                continue;
            }
            const mismatch = this.classMismatch(w, node);
            if (mismatch.startsWith("node affinity")) {
                add(reasons, mismatch);
                continue;
            }
            if (hard.length > 0) {
                minHost = Math.min(minHost, w.perNode.get(node) ?? 0);
                zoneMin.set(node.zone, w.perZone.get(node.zone) ?? 0);
            }
            if (mismatch) {
                add(reasons, mismatch);
                continue;
            }
            eligible.push(node);
        }
        if (karpenter) {
            minHost = 0;
            for (const zone of this.podZones(shape)) {
                zoneMin.set(zone, w.perZone.get(zone) ?? 0);
            }
        }
        const minZone = zoneMin.size > 0 ? Math.min(...zoneMin.values()) : 0;
        let best: SimNode | undefined;
        let bestScore: number[] = [];
        for (const node of eligible) {
            const reason = this.nodeProblem(pod, node, hard, minHost, minZone);
            if (reason) {
                add(reasons, reason);
                continue;
            }
            const score = [w.perNode.get(node) ?? 0, w.perZone.get(node.zone) ?? 0, allocatedShare(node, shape.requests), node.order];
            if (!best || lexLess(score, bestScore)) {
                best = node;
                bestScore = score;
            }
        }
        return best ? { node: best, reasons } : { reasons };
    }

    private nodeProblem(
        pod: SimPod,
        node: SimNode,
        hard: readonly PodShape["topology"][number][],
        minHost: number,
        minZone: number,
    ): string | undefined {
        const w = pod.workload;
        if (node.cordoned) {
            return "cordoned";
        }
        if (pod.zone !== undefined && node.zone !== pod.zone) {
            return `volume in another zone (${pod.zone})`;
        }
        const resource = node.options
            ? this.claimHolds(node, w.model.pod)
                ? undefined
                : "insufficient capacity in any instance type of the NodeClaim"
            : fits(node.used, w.model.pod.requests, node.allocatable);
        if (resource) {
            return resource;
        }
        for (const rule of hard) {
            const host = rule.topologyKey === HOSTNAME;
            const count = host ? (w.perNode.get(node) ?? 0) : (w.perZone.get(node.zone) ?? 0);
            if (rule.kind === "antiAffinity" ? count > 0 : count + 1 - (host ? minHost : minZone) > rule.maxSkew) {
                return rule.kind === "antiAffinity"
                    ? `pod anti-affinity (${rule.topologyKey})`
                    : `topology spread (${rule.topologyKey}, maxSkew ${rule.maxSkew})`;
            }
        }
        return undefined;
    }

    /**
     * Karpenter's answer to a pod that fits no node: a NodeClaim from the heaviest NodePool whose
     * taints the pod tolerates, whose labels and instance types suit it, in a zone its rules
     * allow, within the pool's limits. Returns the new (still packable) NodeClaim or the reasons.
     */
    provision(pod: SimPod, now: number): { node?: SimNode; reasons: Reasons } {
        const reasons: Reasons = new Map();
        const w = pod.workload;
        const shape = w.model.pod;
        // Heavier first; of equal weight, the name later in the alphabet first (karpenter v1.14.1
        // pkg/utils/nodepool/nodepool.go OrderByWeight).
        const pools = [...this.pools].sort((a, b) => b.weight - a.weight || (a.name > b.name ? -1 : 1));
        for (const pool of pools) {
            const taint = untoleratedTaint(shape.tolerations, pool.taints);
            if (taint) {
                add(reasons, `NodePool ${pool.name}: untolerated taint ${formatTaint(taint)}`);
                continue;
            }
            const remaining = this.remainingLimits(pool);
            let lastReason = "no instance type its requirements allow";
            for (const capacityType of pool.capacityTypes) {
                const inPool = this.zoneOrder(pod).filter((z) => pool.zones === undefined || pool.zones.includes(z));
                // A new node is a fresh hostname domain, but its zone already holds pods: zone rules
                // still apply (Karpenter's scheduler: topology.go, preferences counted as requirements).
                const zones = inPool.filter((z) => this.zoneRuleProblem(w, z) === undefined);
                if (inPool.length > 0 && zones.length === 0) {
                    lastReason = `${this.zoneRuleProblem(w, inPool[0]) ?? ""} in every zone it may launch in`;
                } else if (zones.length === 0) {
                    lastReason =
                        pool.zones?.length === 0
                            ? "its zone requirement allows none of the cluster's zones"
                            : `its zone requirement allows only ${(pool.zones ?? []).join(", ")}, not the pod's volume zone ${pod.zone ?? ""}`;
                }
                for (const zone of zones) {
                    const labels = { ...pool.labels, [CAPACITY_TYPE_LABEL]: capacityType, [ZONE]: zone };
                    // Karpenter's scheduler drops an instance type whose capacity exceeds what the
                    // pool's limits leave (karpenter v1.14.1 provisioning/scheduling/scheduler.go
                    // `filterByRemainingResources`), extended resources included.
                    const options = pool.candidates.filter(
                        (c) =>
                            placementMismatch(shape.placement, { ...labels, ...c.labels }) === undefined &&
                            (remaining.cpuMillis === undefined || c.capacity.cpuMillis <= remaining.cpuMillis) &&
                            (remaining.memoryMiB === undefined || c.capacity.memoryMiB <= remaining.memoryMiB) &&
                            Object.entries(remaining.extended).every(([name, left]) => (c.capacity.extended?.[name] ?? 0) <= left),
                    );
                    const suited = pool.candidates.some(
                        (c) => placementMismatch(shape.placement, { ...labels, ...c.labels }) === undefined,
                    );
                    if (!suited) {
                        lastReason = "its labels and instance types do not match the pod's node selector/affinity";
                        continue;
                    }
                    if (options.length === 0) {
                        lastReason = `at its limits (${formatLimits(pool)})`;
                        continue;
                    }
                    const node = this.addNode(
                        pool,
                        zone,
                        { instanceType: "(NodeClaim)", allocatable: undefined, capacity: undefined, labels },
                        "new",
                        now + NODE_READY_SECONDS,
                        options,
                    );
                    const holds = options.filter((o) => this.optionHolds(node, o, shape));
                    if (holds.length === 0) {
                        this.removeNode(node);
                        this.counter.set(pool.name, (this.counter.get(pool.name) ?? 1) - 1);
                        lastReason = `no instance type it allows fits the pod's requests (${formatRequests(shape.requests)})`;
                        continue;
                    }
                    node.options = holds;
                    return { node, reasons };
                }
            }
            if (pool.zones !== undefined && lastReason.startsWith("its labels") && this.suitsElsewhere(pool, shape)) {
                lastReason = `its zone requirement allows only ${pool.zones.join(", ") || "no zone of the cluster"}, and the pod's node selector/affinity wants another zone`;
            }
            add(reasons, `NodePool ${pool.name}: ${lastReason}`);
        }
        return { reasons };
    }

    /** The zone rule (spread, anti-affinity) a new node in `zone` would break for the workload's next pod. */
    private zoneRuleProblem(w: WorkloadState, zone: string): string | undefined {
        const rules = w.model.pod.topology.filter((t) => t.topologyKey === ZONE);
        if (rules.length === 0) {
            return undefined;
        }
        const count = w.perZone.get(zone) ?? 0;
        const minZone = Math.min(...this.podZones(w.model.pod).map((z) => w.perZone.get(z) ?? 0));
        for (const rule of rules) {
            if (rule.kind === "antiAffinity" ? count > 0 : count + 1 - minZone > rule.maxSkew) {
                return rule.kind === "antiAffinity" ? `pod anti-affinity (${ZONE})` : `topology spread (${ZONE}, maxSkew ${rule.maxSkew})`;
            }
        }
        return undefined;
    }

    /**
     * The zone domains Karpenter takes a zone spread's minimum over: the zones some NodePool can
     * launch in or some node the pod may run on is in (karpenter topology.go: domains from the
     * NodePools' requirements and the cluster's nodes), of those the pod's own node selector and
     * required node affinity allow (topologygroup.go `domainMinCount`: only the pod's domains).
     */
    private podZones(shape: PodShape): string[] {
        const { nodeSelector, terms } = shape.placement;
        return this.zones.filter(
            (z) =>
                (nodeSelector[ZONE] === undefined || nodeSelector[ZONE] === z) &&
                (terms === undefined ||
                    terms.some((term) => term.every((r) => r.key !== ZONE || nodeRequirementMatches(r, { [ZONE]: z })))) &&
                (this.pools.some((p) => p.zones === undefined || p.zones.includes(z)) ||
                    this.nodes.some((n) => n.zone === z && placementMismatch(shape.placement, n.labels) === undefined)),
        );
    }

    /** Whether some instance type of the pool would suit the pod in a zone outside the pool's zones. */
    private suitsElsewhere(pool: NodePoolModel, shape: PodShape): boolean {
        return this.zones
            .filter((z) => !(pool.zones ?? []).includes(z))
            .some((zone) =>
                pool.candidates.some(
                    (c) => placementMismatch(shape.placement, { ...pool.labels, ...c.labels, [ZONE]: zone }) === undefined,
                ),
            );
    }

    /** Zones to try for a new node: the pod's volume zone, else the zone with the fewest of its pods. */
    private zoneOrder(pod: SimPod): string[] {
        if (pod.zone) {
            return [pod.zone];
        }
        const w = pod.workload;
        return [...this.zones].sort((a, b) => (w.perZone.get(a) ?? 0) - (w.perZone.get(b) ?? 0) || (a < b ? -1 : 1));
    }

    /** What a pool may still launch: its limits minus every node it has (largest option for NodeClaims). */
    private remainingLimits(pool: NodePoolModel): { cpuMillis?: number; memoryMiB?: number; extended: Record<string, number> } {
        let cpu = 0;
        let memory = 0;
        const extended: Record<string, number> = { ...pool.limits.extended };
        for (const n of this.nodes) {
            if (n.group === pool) {
                const size = n.options ? n.options[n.options.length - 1].capacity : n.capacity;
                cpu += size?.cpuMillis ?? 0;
                memory += size?.memoryMiB ?? 0;
                for (const name of Object.keys(extended)) {
                    extended[name] -= size?.extended?.[name] ?? 0;
                }
            }
        }
        return {
            ...(pool.limits.cpuMillis !== undefined ? { cpuMillis: pool.limits.cpuMillis - cpu } : {}),
            ...(pool.limits.memoryMiB !== undefined ? { memoryMiB: pool.limits.memoryMiB - memory } : {}),
            extended,
        };
    }

    /** Launches packed NodeClaims as the cheapest (smallest) instance type that holds their pods. */
    finalizeClaims(): void {
        for (const node of this.nodes) {
            if (!node.options) {
                continue;
            }
            const chosen = node.options[0];
            delete node.options;
            delete node.optionViews;
            delete node.classKey;
            node.instanceType = chosen.instanceType;
            node.allocatable = chosen.allocatable;
            node.capacity = chosen.capacity;
            node.labels = { ...node.labels, ...chosen.labels };
            this.addDaemonSets(node);
        }
    }
}

/** Nodes of one class share every label but their name: group, zone, instance type (or an unlaunched claim). */
function classKey(node: SimNode): string {
    node.classKey ??= `${node.group.kind}\u0000${node.group.name}\u0000${node.zone}\u0000${node.options ? "(claim)" : node.instanceType}`;
    return node.classKey;
}

function allocatedShare(node: SimNode, requests: Requests): number {
    const alloc = node.options ? node.options[node.options.length - 1].allocatable : node.allocatable;
    if (!alloc) {
        return 0;
    }
    return (
        ((node.used.cpuMillis + requests.cpuMillis) / Math.max(alloc.cpuMillis, 1) +
            (node.used.memoryMiB + requests.memoryMiB) / Math.max(alloc.memoryMiB, 1)) /
        2
    );
}

function lexLess(a: number[], b: number[]): boolean {
    for (let i = 0; i < a.length; i++) {
        if (a[i] !== b[i]) {
            return a[i] < b[i];
        }
    }
    return false;
}

export function formatRequests(r: Requests): string {
    const extended = Object.entries(r.extended ?? {}).map(([name, value]) => `, ${name} ${value}`);
    return `cpu ${Math.round(r.cpuMillis)}m, memory ${Math.round(r.memoryMiB)}Mi${extended.join("")}`;
}

function formatLimits(pool: NodePoolModel): string {
    const parts = [];
    if (pool.limits.cpuMillis !== undefined) {
        parts.push(`cpu ${pool.limits.cpuMillis / 1000}`);
    }
    if (pool.limits.memoryMiB !== undefined) {
        parts.push(`memory ${Math.round(pool.limits.memoryMiB / 1024)}Gi`);
    }
    for (const [name, value] of Object.entries(pool.limits.extended ?? {})) {
        parts.push(`${name} ${value}`);
    }
    return parts.join(", ");
}
