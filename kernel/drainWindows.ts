/**
 * The drain windows of a stack's nodes: how long a pod on them has, at most, between the start of
 * its node's drain and the node's end. `drain-window` holds grace periods inside them, and
 * `workload-request-path` the time a load balancer needs to stop routing to a pod.
 */
import { DEFAULT_HOOK_HEARTBEAT_SECONDS } from "./drain";
import { karpenterDuration } from "./duration";
import { karpenterVersion, objectName } from "./kubernetes";
import { capacityTypesAllowed, nodePoolShape, NodeShape, podFits, readNodeRequirements } from "./scheduling";
import type { StackResource } from "./stack";
import { asNumeric, asString, field, path } from "./values";
import type { Verdicts } from "./verdicts";

/** One drain window: its length, where it comes from, what ends it, and the nodes it applies to. */
export interface DrainWindow {
    seconds: number;
    /** What sets it, for messages: `NodePool spot (Spot)`, `lifecycle hook workers-drain`. */
    source: string;
    /** What happens when it ends, for messages. */
    how: string;
    /** The nodes the window applies to; `undefined`: any node (a lifecycle hook's group, whose labels and taints the input does not show). */
    nodes?: NodeShape;
}

/**
 * The windows the stack's resources set: a Karpenter v1 NodePool's `terminationGracePeriod`,
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
                const name = objectName(r.props, r.name);
                const nodeSpec = path(r.props, "spec", "template", "spec");
                const v1 = nodePoolVersion(r) === "v1";
                const grace = v1 ? karpenterDuration(field(nodeSpec, "terminationGracePeriod")) : undefined;
                if (grace !== undefined) {
                    windows.push({
                        seconds: grace,
                        source: `NodePool ${name} (terminationGracePeriod)`,
                        how: "Karpenter deletes remaining pods when the node's terminationGracePeriod ends",
                        nodes: nodePoolShape(name, field(r.props, "spec")),
                    });
                }
                if (capacityTypesAllowed(readNodeRequirements(field(nodeSpec, "requirements"))).includes("spot")) {
                    windows.push({
                        seconds: spotNoticeSeconds,
                        source: `NodePool ${name} (Spot)`,
                        how: "EC2 reclaims a Spot instance two minutes after its interruption notice",
                        nodes: nodePoolShape(name, field(r.props, "spec"), ["spot"]),
                    });
                }
            });
        }
    }
    return windows;
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
