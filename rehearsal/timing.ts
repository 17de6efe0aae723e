/**
 * The times and limits a drain rehearsal counts with. Those that AWS, Kubernetes or Karpenter
 * define are quoted with their source; the rest are estimates, named as such in every report
 * (docs/drain.md "Timing"). The drain time budget every policy shares lives in ../drain.
 */
export { DEFAULT_HOOK_HEARTBEAT_SECONDS, DEFAULT_TERMINATION_GRACE_SECONDS, SPOT_NOTICE_SECONDS } from "eks-platform-kernel";

/**
 * An EKS managed node group update fails with `PodEvictionFailure` when a node's pods do not
 * leave within 15 minutes (no force flag). Source: Amazon EKS User Guide, "Understand each phase
 * of node updates", upgrade phase.
 */
export const EKS_EVICTION_TIMEOUT_SECONDS = 15 * 60;

/**
 * After evicting every pod EKS cordons the node and waits 60 seconds before it asks the Auto
 * Scaling group to terminate it. Source: same page, upgrade phase step 4.
 */
export const EKS_CORDON_WAIT_SECONDS = 60;

/**
 * EKS's `updateConfig` default when neither `maxUnavailable` nor `maxUnavailablePercentage` is
 * set: one node. Source: same page, setup phase.
 */
export const EKS_DEFAULT_MAX_UNAVAILABLE = 1;

/** ASG instance refresh defaults. Source: Amazon EC2 Auto Scaling User Guide, "instance refresh" (minimum 90, maximum 100). */
export const ASG_DEFAULT_MIN_HEALTHY_PERCENTAGE = 90;
export const ASG_DEFAULT_MAX_HEALTHY_PERCENTAGE = 100;

/**
 * Karpenter's disruption budget when a NodePool defines none: `nodes: 10%`, percentages rounded
 * up. Source: Karpenter v1 docs, Concepts → Disruption → NodePool Disruption Budgets.
 */
export const KARPENTER_DEFAULT_BUDGET = "10%";

/**
 * ESTIMATE: seconds from an instance launch to a Ready node (EC2 start, AL2023 nodeadm bootstrap,
 * kubelet registration, CNI ready). Typically one to two minutes; the rehearsal counts two.
 */
export const NODE_READY_SECONDS = 120;

/**
 * ESTIMATE: seconds from a pod's creation on a node to its containers running (image pull on a
 * fresh node, container start), before its readiness probe counts.
 */
export const POD_START_SECONDS = 30;

/** A readiness probe's `periodSeconds` when unset (Kubernetes API default). */
export const DEFAULT_PROBE_PERIOD_SECONDS = 10;

/**
 * The most nodes a group and the most replicas a workload may have for the rehearsal to replay
 * them node by node and pod by pod; beyond (or not a whole number ≥ 0) the item is reported as not
 * rehearsed instead of exhausting memory. EKS allows 450 nodes per managed node group.
 */
export const MAX_GROUP_NODES = 1000;
export const MAX_WORKLOAD_REPLICAS = 5000;
