/**
 * The Eviction API against PodDisruptionBudgets: whether a pod may be evicted now, the budget that
 * refuses it otherwise, and whether that refusal is for good (a budget that allows no disruption
 * even at full strength, or a pod under more than one budget). Karpenter's termination controller
 * adds its own refusal: it never evicts a pod annotated `karpenter.sh/do-not-disrupt` (EKS and the
 * Node Termination Handler evict such a pod like any other).
 */
import type { Cluster, SimPod, WorkloadState } from "./cluster";
import { DO_NOT_DISRUPT } from "./model";
import type { PdbModel, WorkloadModel } from "./model";

/** What refuses an eviction: the budget (`pdb`, several joined by "and"), or Karpenter's annotation; `never` says why for good. */
export interface Refusal {
    pdb: string;
    urn?: string;
    never?: string;
    /** Held by `karpenter.sh/do-not-disrupt` (no budget: `pdb` is empty). */
    doNotDisrupt?: true;
}

/** The eviction subresource of one rollout's copy of the cluster: each budget counts the Ready pods of the workloads it matches. */
export class EvictionApi {
    private readonly pdbWorkloads = new Map<PdbModel, WorkloadState[]>();

    constructor(cluster: Cluster) {
        for (const w of cluster.workloads.values()) {
            for (const pdb of w.model.pdbs) {
                this.pdbWorkloads.set(pdb, [...(this.pdbWorkloads.get(pdb) ?? []), w]);
            }
        }
    }

    /**
     * What refuses the eviction of `pod` now, or undefined when it may go. `respectDoNotDisrupt`:
     * Karpenter's terminator, which never evicts a do-not-disrupt pod: it waits for the pod to
     * finish or for terminationGracePeriod to delete it (karpenter v1.14.1
     * pkg/controllers/node/termination/terminator `IsEvictable`, `DeleteExpiringPods`).
     */
    refusal(pod: SimPod, respectDoNotDisrupt: boolean): Refusal | undefined {
        if (respectDoNotDisrupt && pod.workload.model.doNotDisrupt) {
            return { pdb: "", doNotDisrupt: true, never: `${DO_NOT_DISRUPT}: "true"` };
        }
        const verdict = this.evictable(pod);
        return verdict.ok
            ? undefined
            : { pdb: verdict.pdb, ...(verdict.urn ? { urn: verdict.urn } : {}), ...(verdict.never ? { never: verdict.never } : {}) };
    }

    /** Whether the eviction API lets `pod` go now; the budget that refuses it otherwise. */
    private evictable(pod: SimPod): { ok: true } | { ok: false; pdb: string; urn?: string; never?: string } {
        const pdbs = pod.workload.model.pdbs;
        if (pdbs.length === 0) {
            return { ok: true };
        }
        if (pdbs.length > 1) {
            return {
                ok: false,
                pdb: pdbs.map((p) => `${p.namespace}/${p.name}`).join(" and "),
                urn: pdbs[0].urn,
                never: "the pod is matched by more than one PodDisruptionBudget, and the eviction API refuses every such eviction",
            };
        }
        const pdb = pdbs[0];
        const healthy = (this.pdbWorkloads.get(pdb) ?? []).reduce((sum, w) => sum + w.ready, 0);
        // The eviction subresource (kubernetes v1.34 pkg/registry/core/pod/storage/eviction.go): a
        // Ready pod needs a disruption to spare; one not yet Ready goes while the budget is met
        // (IfHealthyBudget, the default), or always (unhealthyPodEvictionPolicy: AlwaysAllow).
        const allowed = pod.ready ? healthy - pdb.desiredHealthy > 0 : pdb.alwaysAllowUnhealthy || healthy >= pdb.desiredHealthy;
        if (allowed) {
            return { ok: true };
        }
        const never =
            pdb.desiredHealthy >= pdb.expected
                ? `${pdb.describe} requires ${pdb.desiredHealthy} healthy of ${pdb.expected} pods, so it allows no disruption even at full strength`
                : undefined;
        return { ok: false, pdb: `${pdb.namespace}/${pdb.name}`, urn: pdb.urn, ...(never ? { never } : {}) };
    }
}

/**
 * The budgets of a workload never let its pods go, whatever else happens: more than one budget
 * matches them (the eviction API refuses every such eviction), or one requires as many healthy
 * pods as it expects.
 */
export function budgetsNeverAllow(w: WorkloadModel): boolean {
    return w.pdbs.length > 1 || w.pdbs.some((b) => b.desiredHealthy >= b.expected);
}
