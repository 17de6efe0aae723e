/**
 * The drain rehearsal's view of a stack: node capacity (groups and NodePools) and the workloads
 * that run on it, read once from resource properties into plain data.
 */
import type { IntOrPercent, LabelSelector, NodePlacement, NodeRequirement, Taint, Toleration } from "eks-platform-kernel";
import type { StackResource, UndecidedNamespaces, WorkloadKind } from "eks-platform-evaluation";

/** Karpenter's opt-out annotation, on pods and nodes (karpenter v1.14.1 pkg/apis/v1/labels.go `DoNotDisruptAnnotationKey`). */
export const DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt";

/** The node labels that name a node's hostname and zone domains (topology rules, zonal volumes, Karpenter launches). */
export const HOSTNAME = "kubernetes.io/hostname";
export const ZONE = "topology.kubernetes.io/zone";

/** A resource as the rehearsal reads it: what a stack policy gets, and what the CLI builds from a plan. */
export interface DrainResource extends StackResource {
    /** The parent resource (its URN is all that is read). */
    parent?: { urn: string };
    /** Resources each property depends on (the engine knows them; the offline plan does not). */
    propertyDependencies?: Record<string, readonly { urn: string }[]>;
}

/** CPU in millicores, memory in MiB, pod slots, and extended resources (`nvidia.com/gpu`: count). */
export interface Capacity {
    cpuMillis: number;
    memoryMiB: number;
    pods: number;
    /** Extended resources by name; absent or 0: the node has none. */
    extended?: Readonly<Record<string, number>>;
}

export interface Requests {
    cpuMillis: number;
    memoryMiB: number;
    /** Extended resources by name (a container's limit is its request for these). */
    extended?: Readonly<Record<string, number>>;
}

/** A topology spread constraint or required pod anti-affinity term. */
export interface TopologyRule {
    topologyKey: string;
    /** Spread: the allowed skew; anti-affinity: 0 other matching pods in the domain. */
    maxSkew: number;
    /** `DoNotSchedule` / required anti-affinity; `ScheduleAnyway` only steers the choice. */
    hard: boolean;
    kind: "spread" | "antiAffinity";
}

/** What the scheduler needs to know about one pod of a workload. */
export interface PodShape {
    requests: Requests;
    tolerations: Toleration[];
    placement: NodePlacement;
    /** Rules whose selector picks the workload's own pods (the common form); others are noted, not modelled. */
    topology: TopologyRule[];
    /** `terminationGracePeriodSeconds` (default 30). */
    graceSeconds: number;
    /** Estimated seconds from creation on a Ready node to Ready (start + readiness probe). */
    readySeconds: number;
}

export interface PdbModel {
    name: string;
    namespace: string;
    urn: string;
    minAvailable?: IntOrPercent;
    maxUnavailable?: IntOrPercent;
    /** Pods the disruption controller expects: the replicas of every workload the budget matches. */
    expected: number;
    /** Healthy pods it must keep. */
    desiredHealthy: number;
    /** What it was written as, for messages: `maxUnavailable: 1`. */
    describe: string;
    /** `unhealthyPodEvictionPolicy: AlwaysAllow`: a pod not yet Ready is evicted whatever the budget. */
    alwaysAllowUnhealthy: boolean;
}

export interface WorkloadModel {
    /** `Deployment web/web`: how reports name it. */
    id: string;
    kind: WorkloadKind;
    name: string;
    namespace: string;
    urn?: string;
    labels: Record<string, string>;
    /** Replicas the rehearsal runs: `spec.replicas`, or the minimum of the autoscalers (HPA, KEDA ScaledObject) that scale it. */
    replicas: number;
    /** The autoscalers that scale it (`name`: as messages name them, e.g. `HorizontalPodAutoscaler prod/web`) and their range. */
    hpa?: { name: string; minReplicas: number; maxReplicas?: number };
    /** Why it is a deliberate singleton (`platform/singleton`): reaching zero ready replicas in a rollout is accepted, not reported. */
    singleton?: string;
    pod: PodShape;
    /** A controller recreates an evicted pod (not so for a bare Pod). */
    recreated: boolean;
    /** StatefulSets recreate a pod (same name) only after the old one has terminated. */
    recreateAfterTermination: boolean;
    /** StatefulSet pods with volume claims stay in their zone: an EBS volume is zonal. */
    zonePinned: boolean;
    /** The PDBs matching its pods (more than one: the eviction API refuses every eviction). */
    pdbs: PdbModel[];
    /**
     * Its pods are annotated `karpenter.sh/do-not-disrupt: "true"`: Karpenter never evicts them
     * (consolidation skips their nodes; drift does too unless the pool sets terminationGracePeriod,
     * which then deletes them at its end). EKS and NTH drains ignore the annotation.
     */
    doNotDisrupt: boolean;
    /**
     * The Services that send it requests (`Service ns/name`): those selecting its pods, except
     * scrape-only ones and those whose ports reach none of its containers (`servingServices`). Empty: it serves nothing, so losing its pods interrupts work but drops
     * no request.
     */
    services: string[];
    /** Constraints read but not modelled, for the report. */
    notModelled: string[];
}

export interface DaemonSetModel {
    id: string;
    pod: PodShape;
}

/** What a node of a group or NodePool looks like. */
export interface NodeTemplate {
    instanceType: string;
    /** `undefined` when the instance data does not know the type's size. */
    allocatable: Capacity | undefined;
    /** vCPU and memory of the instance (NodePool limits count these). */
    capacity: Requests | undefined;
    labels: Record<string, string>;
    taints: Taint[];
}

interface GroupBase {
    name: string;
    /** Logical name of the resource it was read from. */
    resource: string;
    urn: string;
    spot: boolean;
    /** Why its capacity or rollout cannot be decided (unknown instance type, labels only in user data…). */
    undecided: string[];
}

export interface ManagedGroupModel extends GroupBase {
    kind: "managed";
    desired: number;
    zones: number;
    template: NodeTemplate | undefined;
    /** Nodes updated in parallel. */
    maxUnavailable: number;
    maxUnavailableSource: string;
    /** `MINIMAL` update strategy: no surge nodes; old nodes terminate before new ones launch. */
    minimal: boolean;
}

export interface SelfManagedGroupModel extends GroupBase {
    kind: "selfManaged";
    desired: number;
    zones: number;
    template: NodeTemplate | undefined;
    minHealthyPercentage: number;
    maxHealthyPercentage: number;
    warmupSeconds: number;
    /** The EC2_INSTANCE_TERMINATING hook that holds an instance while it drains; `undefined`: none. */
    hook?: { name: string; heartbeatSeconds: number };
}

export interface BudgetModel {
    nodes: IntOrPercent;
    reasons?: string[];
    schedule?: string;
    duration?: string;
}

export interface Candidate {
    instanceType: string;
    allocatable: Capacity;
    capacity: Requests;
    /** Well-known labels of the type (`node.kubernetes.io/instance-type`, `karpenter.k8s.aws/instance-family`, …). */
    labels: Record<string, string>;
}

export interface NodePoolModel extends GroupBase {
    kind: "nodePool";
    weight: number;
    labels: Record<string, string>;
    taints: Taint[];
    requirements: NodeRequirement[];
    limits: { cpuMillis?: number; memoryMiB?: number; extended?: Readonly<Record<string, number>> };
    /** The zones its requirements allow (`topology.kubernetes.io/zone`); `undefined`: every zone of the cluster. */
    zones?: readonly string[];
    /**
     * Its nodes carry `karpenter.sh/do-not-disrupt: "true"` (the template's annotations): Karpenter
     * never selects them for drift or consolidation, terminationGracePeriod or not.
     */
    doNotDisruptNodes: boolean;
    budgets: BudgetModel[];
    /** The bound of a node's drain; on EKS Auto Mode 24h when the NodePool sets none (kernel `nodePoolLifetime`). */
    terminationGraceSeconds?: number;
    /** `expireAfter` as the service runs it (Karpenter's CRD default 720h, Auto Mode's 336h); `Infinity` for `Never`. */
    expireAfterSeconds?: number;
    /** The lifetime settings the service fills in because the NodePool sets none, for notes. */
    lifetimeDefaults: string[];
    /** EKS Auto Mode runs it (`nodeClassRef` group `eks.amazonaws.com`, or a built-in pool). */
    autoMode: boolean;
    /** A built-in pool of EKS Auto Mode: the cluster resource whose `computeConfig.nodePools` enables it. */
    builtInOf?: string;
    /** Capacity types it may launch, preferred first (Spot is cheaper). */
    capacityTypes: ("spot" | "on-demand")[];
    /** Instance types its requirements allow, smallest first. */
    candidates: Candidate[];
}

export type GroupModel = ManagedGroupModel | SelfManagedGroupModel | NodePoolModel;

export interface ClusterModel {
    zones: string[];
    groups: GroupModel[];
    workloads: WorkloadModel[];
    daemonSets: DaemonSetModel[];
    /** Objects present but not simulated (Helm releases, Jobs…), for the report. */
    notModelled: string[];
    /** Workloads the rehearsal cannot replay (a replica count it cannot count pod by pod), with why. */
    undecided: string[];
    /** Namespaces holding a Kubernetes object unreadable at preview: verdicts on their workloads wait. */
    undecidedNamespaces: UndecidedNamespaces;
    /** A group, pool or hook was unreadable at preview: placement and rollouts may differ. */
    capacityUndecided: boolean;
}

export type { LabelSelector };
