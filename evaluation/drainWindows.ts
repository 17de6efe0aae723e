/**
 * The drain windows of a stack's nodes: how long a pod on them has, at most, between the start of
 * its node's drain and the node's end. `drain-window` holds grace periods inside them, and
 * `workload-request-path` the time a load balancer needs to stop routing to a pod.
 */
import {
    asNumeric,
    asString,
    AUTO_MODE_DEFAULT_TERMINATION_GRACE_PERIOD,
    capacityTypesAllowed,
    DEFAULT_HOOK_HEARTBEAT_SECONDS,
    enabledBuiltInPools,
    field,
    isAutoModeNodePool,
    nodePoolLifetime,
    nodePoolShape,
    NodeShape,
    path,
    podFits,
    readNodeRequirements,
} from "eks-platform-kernel";
import { karpenterVersion, objectName } from "./kubernetes";
import type { StackResource } from "./stack";
import type { Verdicts } from "./verdicts";

/** One drain window: its length, where it comes from, what ends it, and the nodes it applies to. */
interface DrainWindow {
    seconds: number;
    /** What sets it, for messages: `NodePool spot (Spot)`, `lifecycle hook workers-drain`. */
    source: string;
    /** What happens when it ends, for messages. */
    how: string;
    /** The nodes the window applies to; `undefined`: any node (a lifecycle hook's group, whose labels and taints the input does not show). */
    nodes?: NodeShape;
}

/**
 * The windows the stack's resources set: a Karpenter v1 NodePool's `terminationGracePeriod` (on
 * an EKS Auto Mode NodePool, `eks.amazonaws.com` nodeClassRef, 24h when unset; the built-in pools
 * a cluster's `computeConfig.nodePools` enables, as the kernel's `AUTO_MODE_BUILT_IN_POOLS` hold them),
 * `spotNoticeSeconds` for NodePools that may launch Spot (v1beta1 ones too: their requirements
 * read the same), the `heartbeatTimeout` of an `EC2_INSTANCE_TERMINATING` lifecycle hook (3600 s
 * when unset, the AWS default). Objects whose values are unknown at preview are left undecided in
 * `verdicts`; a value the CRD refuses (karpenter-nodepool reports it) never reaches a node.
 */
export function readDrainWindows(resources: readonly StackResource[], verdicts: Verdicts, spotNoticeSeconds: number): DrainWindow[] {
    const windows: DrainWindow[] = [];
    for (const r of resources) {
        if (r.type === "aws:autoscaling/lifecycleHook:LifecycleHook") {
            verdicts.read(`LifecycleHook ${r.name}`, () => {
                if (asString(field(r.props, "lifecycleTransition")) !== "autoscaling:EC2_INSTANCE_TERMINATING") {
                    return;
                }
                const raw = field(r.props, "heartbeatTimeout");
                const seconds = raw === undefined || raw === null ? DEFAULT_HOOK_HEARTBEAT_SECONDS : asNumeric(raw);
                if (seconds !== undefined) {
                    windows.push({
                        seconds,
                        source: `lifecycle hook ${r.name}`,
                        how: "the Auto Scaling group terminates the instance when the hook's heartbeat expires",
                    });
                }
            });
        } else if (nodePoolVersion(r) !== undefined) {
            verdicts.read(`NodePool ${r.name}`, () => {
                poolWindows(windows, objectName(r.props, r.name), r.props, nodePoolVersion(r) === "v1", spotNoticeSeconds);
            });
        }
    }
    // EKS Auto Mode's built-in pools are no resource of their own: the cluster's computeConfig.nodePools enables them.
    const builtIn = verdicts.read("EKS Auto Mode computeConfig.nodePools", () => enabledBuiltInPools(resources));
    for (const pool of builtIn?.pools ?? []) {
        poolWindows(windows, pool.name, pool.object, true, spotNoticeSeconds, ` (built-in, cluster ${pool.cluster.name})`);
    }
    return windows;
}

/**
 * A NodePool's windows: its `terminationGracePeriod` as the service runs it (EKS Auto Mode's 24h
 * when its NodePool sets none, kernel `nodePoolLifetime`), and the Spot notice if it may launch Spot.
 */
function poolWindows(windows: DrainWindow[], name: string, props: unknown, v1: boolean, spotNoticeSeconds: number, builtIn = ""): void {
    const spec = field(props, "spec");
    const nodeSpec = path(spec, "template", "spec");
    const auto = isAutoModeNodePool(props);
    const grace = v1 ? nodePoolLifetime(props).terminationGraceSeconds : undefined;
    if (grace !== undefined) {
        const set = field(nodeSpec, "terminationGracePeriod") !== undefined;
        windows.push({
            seconds: grace,
            source: `NodePool ${name}${builtIn} (terminationGracePeriod${set ? "" : `, EKS Auto Mode's ${AUTO_MODE_DEFAULT_TERMINATION_GRACE_PERIOD} default`})`,
            how: auto
                ? "EKS Auto Mode deletes remaining pods when the node's terminationGracePeriod ends, on expiry too (every node by 21 days)"
                : "Karpenter deletes remaining pods when the node's terminationGracePeriod ends",
            nodes: nodePoolShape(name, spec),
        });
    }
    if (capacityTypesAllowed(readNodeRequirements(field(nodeSpec, "requirements"))).includes("spot")) {
        windows.push({
            seconds: spotNoticeSeconds,
            source: `NodePool ${name}${builtIn} (Spot)`,
            how: "EC2 reclaims a Spot instance two minutes after its interruption notice",
            nodes: nodePoolShape(name, spec, ["spot"]),
        });
    }
}

/**
 * The tightest of the windows of nodes the pod can be scheduled on (node selector, required
 * affinity and tolerations against each window's nodes), or `undefined` when none applies: a pod
 * pinned to on-demand never sees the Spot notice.
 */
export function tightestWindow(podSpec: unknown, windows: readonly DrainWindow[]): DrainWindow | undefined {
    const applicable = windows.filter((x) => !x.nodes || podFits(podSpec, x.nodes));
    return applicable.length === 0 ? undefined : applicable.reduce((a, b) => (b.seconds < a.seconds ? b : a));
}

/** The API version of a Karpenter NodePool resource (`v1`, `v1beta1`), or `undefined` for anything else. */
function nodePoolVersion(r: { type: string; props: unknown }): string | undefined {
    return r.type.startsWith("kubernetes:") ? karpenterVersion(r.type, r.props, "karpenter.sh", "NodePool") : undefined;
}
