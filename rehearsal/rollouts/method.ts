/**
 * What every rollout method shares: one way a group's nodes are replaced, replayed on its own copy
 * of the initial placement (as Karpenter organises its disruption methods, drift and expiry each
 * behind one interface, each saying which nodes it takes and how; kubernetes-sigs/karpenter
 * pkg/controllers/disruption/types.go `Method`). A method is registered in ./index.ts; what it
 * decides is its own module's, with its sources.
 */
import type { Cluster, SimNode } from "../cluster";
import type { GroupModel } from "../model";
import type { GroupReport } from "../report";
import { SPOT_NOTICE_SECONDS } from "../timing";

/** One way the nodes of a kind of group are replaced. */
export interface RolloutMethod<G extends GroupModel = GroupModel> {
    /**
     * The change it replays when not the group's rollout (`expiry`: an EKS Auto Mode pool's forced
     * expiry); undefined for the rollout every group has exactly one of.
     */
    readonly change?: GroupReport["change"];
    /** Whether it replays a change of `group` (Karpenter's `ShouldDisrupt`, for a group instead of a node). */
    appliesTo(group: GroupModel): group is G;
    /** Replays it on `cluster`, a copy of the initial placement of its own, into the group's report. */
    replay(cluster: Cluster, group: G): GroupReport;
}

/** A group's report before its replay: its nodes, its mechanism, nothing found yet. */
export function newReport(g: GroupModel, nodes: SimNode[], mechanism: string): GroupReport {
    return {
        name: g.name,
        kind: g.kind,
        urn: g.urn,
        resource: g.resource,
        mechanism,
        nodes: nodes.length,
        ...(nodes[0] ? { instanceType: [...new Set(nodes.map((n) => n.instanceType))].join(", ") } : {}),
        verdict: "ok",
        waves: [],
        waits: [],
        blocked: [],
        unplaced: [],
        zeroReady: [],
        killed: [],
        deleted: [],
        windows: [],
        estimatedSeconds: 0,
        undecided: [...g.undecided],
        notes: [],
    };
}

/** Spot capacity: the 2-minute interruption notice is a window every drain of the group is measured against. */
export function spotWindow(g: GroupModel, report: GroupReport): void {
    if (g.spot) {
        report.windows.push({ seconds: SPOT_NOTICE_SECONDS, source: "Spot interruption notice" });
    }
}

/** Replacement nodes like `like`, in its zone. */
export function launchLike(cluster: Cluster, g: GroupModel, like: SimNode, readyAt: number): SimNode {
    return cluster.addNode(
        g,
        like.zone,
        { instanceType: like.instanceType, allocatable: like.allocatable, capacity: like.capacity, labels: stripNodeLabels(like.labels) },
        "new",
        readyAt,
    );
}

function stripNodeLabels(labels: Record<string, string>): Record<string, string> {
    const out = { ...labels };
    delete out["kubernetes.io/hostname"];
    return out;
}
