/**
 * The simulated cluster: nodes, the pods bound to them, what each node has left, and the
 * NodeClaims Karpenter is still packing. Where a pod goes is placement's: kube-scheduler's choice
 * among these nodes (scheduler.ts) and Karpenter's launches (provisioning.ts).
 */
import { placementMismatch, Taint, untoleratedTaint } from "eks-platform-kernel";

import { HOSTNAME, ZONE } from "./model";
import type { Candidate, Capacity, DaemonSetModel, GroupModel, NodePoolModel, PodShape, Requests, WorkloadModel } from "./model";

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

/** Counts one more node (or NodePool) giving `reason`. */
export function addReason(reasons: Reasons, reason: string): void {
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

/** Why `requests` do not fit beside `used` on a node of `allocatable`, or undefined (unsized: anything fits). */
export function fits(used: Use, requests: Requests, allocatable: Capacity | undefined): string | undefined {
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

export function taintsOf(group: GroupModel): readonly Taint[] {
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

    /** Counts the DaemonSet pods that run on `node` against its capacity. */
    addDaemonSets(node: SimNode): void {
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

    /** Takes back a NodeClaim that held nothing: it leaves no gap in its group's node names. */
    discardClaim(node: SimNode): void {
        this.removeNode(node);
        this.counter.set(node.group.name, (this.counter.get(node.group.name) ?? 1) - 1);
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
    optionView(node: SimNode, option: Candidate): { labels: Record<string, string>; overhead: Use } {
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
    optionHolds(node: SimNode, option: Candidate, pod: PodShape, alreadyBound = false): boolean {
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
    claimHolds(node: SimNode, pod: PodShape): boolean {
        const options = node.options as Candidate[];
        for (let i = options.length - 1; i >= 0; i--) {
            if (this.optionHolds(node, options[i], pod)) {
                return true;
            }
        }
        return false;
    }
}
