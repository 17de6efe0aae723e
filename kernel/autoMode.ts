/**
 * EKS Auto Mode's node lifecycle as data: the built-in NodePools EKS runs itself, the defaults it
 * applies to every NodePool on its NodeClass, the lifetime it enforces, and the labels its nodes
 * carry instead of Karpenter's AWS ones. Shared by the program's config (`autoMode`), the drain
 * rehearsal (which models the built-in pools as capacity and replays their forced expiry) and the
 * pack (`drain-window`, `karpenter-nodepool`). Pure: no SDK, no I/O.
 *
 * Sources (EKS User Guide, awsdocs/amazon-eks-user-guide `latest/ug/automode/`):
 * - `set-builtin-node-pools.adoc` (https://docs.aws.amazon.com/eks/latest/userguide/set-builtin-node-pools.html):
 *   `system` has the `CriticalAddonsOnly` taint and runs amd64 and arm64, `general-purpose` amd64
 *   only; both use the `default` NodeClass, On-Demand capacity, the C, M and R families of
 *   generation 5 or newer; they cannot be modified, only enabled or disabled through
 *   `computeConfig.nodePools`.
 * - `create-node-pool.adoc` (https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html),
 *   "Disruption" and "Termination Grace Period": by default Auto Mode consolidates underutilized
 *   instances, terminates instances after 336 hours, sets one disruption budget of 10% of nodes,
 *   allows drift replacement when a new Auto Mode AMI is released (roughly weekly), and applies a
 *   24-hour `terminationGracePeriod` to a NodeClaim whose NodePool sets none (not shown on the
 *   NodePool itself); "Supported labels": Auto Mode labels nodes `eks.amazonaws.com/instance-*`,
 *   "different labels than Karpenter".
 * - `automode.adoc` (https://docs.aws.amazon.com/eks/latest/userguide/automode.html): "EKS Auto
 *   Mode enforces a 21-day maximum node lifetime"; blocking PDBs may need intervention before it.
 * - `automode-learn-instances.adoc`: "Generally, EKS releases a new AMI each week"; instance types
 *   with more than 1 CPU only, no nano, micro or small sizes.
 *
 * NOT PUBLISHED BY AWS: the exact YAML of the built-in pools. `consolidateAfter: 30s`,
 * `consolidationPolicy: WhenEmptyOrUnderutilized`, `expireAfter: 336h`, the budget `nodes: 10%`
 * and `terminationGracePeriod: 24h0m0s` below come from public copies of the in-cluster objects
 * (a third-party blog and a code-search copy of `general-purpose`), which agree with the UG's
 * defaults above; the requirement keys follow the UG's prose (category C/M/R as
 * `eks.amazonaws.com/instance-category`, "generation 5 or newer" as `instance-generation Gt 4`).
 * Unconfirmed, too: whether Auto Mode rejects or clamps a NodePool whose `expireAfter` plus
 * `terminationGracePeriod` exceeds 21 days (no AWS text found).
 */
import { karpenterDuration, parseDuration } from "./duration";
import { isUnknownSentinel } from "./unknown";
import { asArray, asString, field, path } from "./values";

/** The NodeClass API of EKS Auto Mode, as a NodePool's `nodeClassRef` names it (`eks.amazonaws.com`, kind `NodeClass`). */
export const AUTO_MODE_NODE_CLASS_GROUP = "eks.amazonaws.com";
export const AUTO_MODE_NODE_CLASS_KIND = "NodeClass";

/** The longest a node of EKS Auto Mode lives: "EKS Auto Mode enforces a 21-day maximum node lifetime" (automode.adoc). In seconds. */
export const AUTO_MODE_MAX_NODE_LIFETIME_SECONDS = 21 * 24 * 3600;

/** How often a new Auto Mode AMI drifts every node: "Generally, EKS releases a new AMI each week" (automode-learn-instances.adoc). About, in seconds. */
export const AUTO_MODE_AMI_RELEASE_INTERVAL_SECONDS = 7 * 24 * 3600;

/** `expireAfter` of an Auto Mode NodePool that sets none: "terminates instances after 336 hours" (create-node-pool.adoc, Disruption). */
const AUTO_MODE_DEFAULT_EXPIRE_AFTER = "336h";

/**
 * `terminationGracePeriod` of an Auto Mode NodeClaim whose NodePool sets none: a 24-hour default
 * applied to the NodeClaim, not shown on the NodePool (create-node-pool.adoc, Termination Grace Period).
 */
export const AUTO_MODE_DEFAULT_TERMINATION_GRACE_PERIOD = "24h";

/**
 * `expireAfter` of a self-managed Karpenter v1 NodePool that sets none: the CRD's default
 * (karpenter v1 `pkg/apis/v1/nodepool.go`, `+kubebuilder:default:="720h"`).
 */
const KARPENTER_DEFAULT_EXPIRE_AFTER = "720h";

/** The pools EKS Auto Mode runs itself, by the names `computeConfig.nodePools` takes. */
export const BUILT_IN_POOL_NAMES = ["general-purpose", "system"] as const;
type BuiltInPoolName = (typeof BUILT_IN_POOL_NAMES)[number];

/** What the UG and the public copies agree the built-in pools hold (see the module comment: not published as YAML by AWS). */
function builtInPool(name: BuiltInPoolName, arch: string[], taints: { key: string; effect: string }[]): Readonly<Record<string, unknown>> {
    return {
        apiVersion: "karpenter.sh/v1",
        kind: "NodePool",
        metadata: { name },
        spec: {
            disruption: { budgets: [{ nodes: "10%" }], consolidateAfter: "30s", consolidationPolicy: "WhenEmptyOrUnderutilized" },
            template: {
                spec: {
                    nodeClassRef: { group: AUTO_MODE_NODE_CLASS_GROUP, kind: AUTO_MODE_NODE_CLASS_KIND, name: "default" },
                    expireAfter: AUTO_MODE_DEFAULT_EXPIRE_AFTER,
                    terminationGracePeriod: AUTO_MODE_DEFAULT_TERMINATION_GRACE_PERIOD,
                    requirements: [
                        { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
                        { key: "eks.amazonaws.com/instance-category", operator: "In", values: ["c", "m", "r"] },
                        { key: "eks.amazonaws.com/instance-generation", operator: "Gt", values: ["4"] },
                        { key: "kubernetes.io/arch", operator: "In", values: arch },
                    ],
                    ...(taints.length > 0 ? { taints } : {}),
                },
            },
        },
    };
}

/**
 * The built-in NodePools as `karpenter.sh/v1` objects, by name: what a reader of NodePools reads
 * them as. Their nodes carry `karpenter.sh/nodepool: <name>` like any pool's.
 */
export const AUTO_MODE_BUILT_IN_POOLS: Readonly<Record<BuiltInPoolName, Readonly<Record<string, unknown>>>> = {
    system: builtInPool("system", ["amd64", "arm64"], [{ key: "CriticalAddonsOnly", effect: "NoSchedule" }]),
    "general-purpose": builtInPool("general-purpose", ["amd64"], []),
};

/** True for a name `computeConfig.nodePools` accepts. */
export function isBuiltInPoolName(name: string): name is BuiltInPoolName {
    return Object.prototype.hasOwnProperty.call(AUTO_MODE_BUILT_IN_POOLS, name);
}

/** True when a NodePool's `nodeClassRef` names Auto Mode's NodeClass API (`eks.amazonaws.com`): EKS runs it. */
export function isAutoModeNodePool(props: unknown): boolean {
    return asString(path(props, "spec", "template", "spec", "nodeClassRef", "group")) === AUTO_MODE_NODE_CLASS_GROUP;
}

/**
 * Seconds a node of the pool lives at most before expiry drains it, and the drain's bound, as the
 * service runs it: Auto Mode's defaults (336h, 24h) where its NodePool sets none, Karpenter's
 * CRD default (720h, no bound) otherwise; `Never` is `Infinity`. `undefined` for a value the CRD
 * refuses (karpenter-nodepool reports it).
 */
export function nodePoolLifetime(props: unknown): { expireAfterSeconds?: number; terminationGraceSeconds?: number; defaulted: string[] } {
    const auto = isAutoModeNodePool(props);
    const nodeSpec = path(props, "spec", "template", "spec");
    const defaulted: string[] = [];
    const rawExpire = field(nodeSpec, "expireAfter");
    const rawGrace = field(nodeSpec, "terminationGracePeriod");
    let expire: number | undefined;
    if (rawExpire === undefined || rawExpire === null) {
        const d = auto ? AUTO_MODE_DEFAULT_EXPIRE_AFTER : KARPENTER_DEFAULT_EXPIRE_AFTER;
        defaulted.push(`expireAfter ${d} (${auto ? "EKS Auto Mode's default" : "the NodePool CRD's default"})`);
        expire = parseDuration(d);
    } else {
        expire = karpenterDuration(rawExpire, "orNever");
    }
    let grace: number | undefined;
    if ((rawGrace === undefined || rawGrace === null) && auto) {
        defaulted.push(`terminationGracePeriod ${AUTO_MODE_DEFAULT_TERMINATION_GRACE_PERIOD} (EKS Auto Mode's default on the NodeClaim)`);
        grace = parseDuration(AUTO_MODE_DEFAULT_TERMINATION_GRACE_PERIOD);
    } else if (rawGrace !== undefined && rawGrace !== null) {
        grace = karpenterDuration(rawGrace);
    }
    return {
        ...(expire !== undefined ? { expireAfterSeconds: expire } : {}),
        ...(grace !== undefined ? { terminationGraceSeconds: grace } : {}),
        defaulted,
    };
}

/**
 * The instance labels of an Auto Mode node and the Karpenter AWS provider label each reads as
 * (create-node-pool.adoc, "Supported labels"). Only those whose value follows from the instance
 * type's name or its vCPU count are mapped: the UG does not say `instance-memory` is in MiB like
 * Karpenter's, nor how GPU names are spelled, so requirements on those (and on every other
 * `eks.amazonaws.com/instance-*` key) are not modelled: said undecided, never taken as met.
 */
export const AUTO_MODE_INSTANCE_LABELS: Readonly<Record<string, string>> = {
    "eks.amazonaws.com/instance-category": "karpenter.k8s.aws/instance-category",
    "eks.amazonaws.com/instance-generation": "karpenter.k8s.aws/instance-generation",
    "eks.amazonaws.com/instance-family": "karpenter.k8s.aws/instance-family",
    "eks.amazonaws.com/instance-size": "karpenter.k8s.aws/instance-size",
    "eks.amazonaws.com/instance-cpu": "karpenter.k8s.aws/instance-cpu",
};

/** Sizes Auto Mode never launches ("not nano, micro or small", automode-learn-instances.adoc). */
export const AUTO_MODE_EXCLUDED_SIZES: ReadonlySet<string> = new Set(["nano", "micro", "small"]);

/** Something with a type, a logical name, a URN and properties: a stack resource as any reader sees it. */
interface ResourceLike {
    type: string;
    name: string;
    urn: string;
    props: unknown;
}

/** One built-in pool a cluster of the stack enables. */
interface EnabledBuiltInPool {
    name: BuiltInPoolName;
    /** The cluster resource that enables it (`eks:index:Cluster` or `aws:eks/cluster:Cluster`). */
    cluster: ResourceLike;
    object: Readonly<Record<string, unknown>>;
}

/**
 * A cluster resource that runs EKS Auto Mode, with the built-in pools it names (pulumi-eks's
 * default of both when its `computeConfig.nodePools` is unset); undefined for anything else. The
 * one reading of "runs Auto Mode" for the pack, the rehearsal and the tools.
 */
function autoModeCompute(r: Pick<ResourceLike, "type" | "props">): { nodePools: unknown } | undefined {
    if (r.type === "eks:index:Cluster") {
        const auto = field(r.props, "autoMode");
        if (field(auto, "enabled") !== true) {
            return undefined;
        }
        const compute = field(auto, "computeConfig");
        // pulumi-eks spreads computeConfig over its own `enabled: true`: a stack's `enabled: false` turns the compute off.
        if (field(compute, "enabled") === false) {
            return undefined;
        }
        return {
            nodePools:
                compute === undefined || field(compute, "nodePools") === undefined
                    ? ["general-purpose", "system"]
                    : field(compute, "nodePools"),
        };
    }
    if (r.type === "aws:eks/cluster:Cluster") {
        const compute = field(r.props, "computeConfig");
        return field(compute, "enabled") === true ? { nodePools: field(compute, "nodePools") } : undefined;
    }
    return undefined;
}

/**
 * True when a cluster of the input runs EKS Auto Mode: pulumi-eks `autoMode.enabled` (its
 * `computeConfig` not turned off), or `aws:eks/cluster:Cluster` `computeConfig.enabled`.
 */
export function runsAutoMode(resources: readonly Pick<ResourceLike, "type" | "props">[]): boolean {
    return resources.some((r) => autoModeCompute(r) !== undefined);
}

/**
 * The built-in pools the stack's clusters enable: pulumi-eks's `autoMode.computeConfig.nodePools`
 * (both pools when `autoMode.enabled` and the list is unset, pulumi-eks's documented default) and
 * `aws:eks/cluster:Cluster` `computeConfig` (`enabled` and `nodePools`). A pool counts once even
 * when the component and its own `aws:eks/cluster:Cluster` both say so. `invalid`: names EKS
 * refuses (not `general-purpose` or `system`); `unknown`: clusters whose list is unknown until apply.
 */
export function enabledBuiltInPools(resources: readonly ResourceLike[]): {
    pools: EnabledBuiltInPool[];
    invalid: { cluster: ResourceLike; name: string }[];
    unknown: ResourceLike[];
} {
    const pools: EnabledBuiltInPool[] = [];
    const invalid: { cluster: ResourceLike; name: string }[] = [];
    const unknown: ResourceLike[] = [];
    for (const r of resources) {
        const compute = autoModeCompute(r);
        if (compute === undefined) {
            continue;
        }
        const raw = compute.nodePools;
        if (isUnknownSentinel(raw)) {
            unknown.push(r);
            continue;
        }
        for (const item of asArray(raw)) {
            const name = asString(item);
            if (name === undefined || isUnknownSentinel(name)) {
                unknown.push(r);
            } else if (!isBuiltInPoolName(name)) {
                invalid.push({ cluster: r, name });
            } else if (!pools.some((p) => p.name === name)) {
                pools.push({ name, cluster: r, object: AUTO_MODE_BUILT_IN_POOLS[name] });
            }
        }
    }
    return { pools, invalid, unknown };
}
