import { asNumeric, DEFAULT_TERMINATION_GRACE_SECONDS, field, formatSeconds, inputScope } from "eks-platform-kernel";
import {
    describeWorkload,
    LONG_RUNNING,
    readDrainWindows,
    readWorkloads,
    tightestWindow,
    Verdicts,
    violation,
} from "eks-platform-evaluation";
import { declareStackPolicy, Knobs } from "./declare";
import { SPOT_NOTICE_KNOB } from "./knobs";

/** Config of `drain-window`. */
export interface DrainWindowConfig {
    /** Seconds of notice before EC2 reclaims a Spot instance. Defaults to `120`. */
    spotNoticeSeconds: number;
}

const knobs: Knobs<DrainWindowConfig> = { spotNoticeSeconds: SPOT_NOTICE_KNOB };

/**
 * No workload's grace period exceeds the drain window of a node it may be scheduled on: a
 * Karpenter NodePool's `terminationGracePeriod` (and the Spot notice for its Spot nodes), judged
 * only where the pod's `nodeSelector`, required node affinity and tolerations let it land on the
 * pool; or the heartbeat of a self-managed node group's termination lifecycle hook, whose nodes
 * the input does not describe, so it applies to every pod.
 */
export const drainWindow = declareStackPolicy<DrainWindowConfig>({
    name: "drain-window",
    description: "No workload's termination grace period exceeds the drain window of the nodes it may run on.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires:
            "no grace period longer than the window of a node the pod can be scheduled on (node selector, required affinity, tolerations vs a NodePool's labels, requirements and taints): `terminationGracePeriod`, the Spot notice, a lifecycle-hook heartbeat",
        checks: "no long-running workload's grace period (30 s when unset) exceeds the tightest drain window of the nodes it can be scheduled on (see \"Where a pod can run\"): a Karpenter v1 NodePool's `terminationGracePeriod` (on an EKS Auto Mode NodePool, `nodeClassRef` group `eks.amazonaws.com`, 24h when unset, as Auto Mode applies it; the built-in `system` and `general-purpose` pools a cluster's `computeConfig.nodePools` enables, as the kernel holds them), `spotNoticeSeconds` for NodePools that may launch Spot (v1beta1 ones too), the `heartbeatTimeout` of an `EC2_INSTANCE_TERMINATING` lifecycle hook (3600 s when unset, the AWS default)",
    },
    validateStack: (args, reportViolation, config) => {
        const verdicts = new Verdicts();
        const windows = readDrainWindows(args.resources, verdicts, config.spotNoticeSeconds);
        if (windows.length === 0) {
            verdicts.finish();
            args.notApplicable(
                `no drain window ${inputScope(args.stackTags)} (no Karpenter NodePool with terminationGracePeriod or Spot, no EKS Auto Mode NodePool or built-in pool, no EC2_INSTANCE_TERMINATING lifecycle hook): nothing was checked`,
            );
        }
        for (const w of readWorkloads(args.resources, verdicts)) {
            if (!LONG_RUNNING.has(w.kind)) {
                continue;
            }
            verdicts.judge(describeWorkload(w), () => {
                const raw = field(w.podSpec, "terminationGracePeriodSeconds");
                const grace = raw === undefined || raw === null ? DEFAULT_TERMINATION_GRACE_SECONDS : asNumeric(raw);
                // Only the windows of nodes the pod can be scheduled on: a pod pinned to on-demand never sees the Spot notice.
                const tightest = tightestWindow(w.podSpec, windows);
                if (grace === undefined || tightest === undefined) {
                    return;
                }
                if (grace > tightest.seconds) {
                    reportViolation(
                        violation(
                            `${describeWorkload(w)} has a termination grace period of ${grace} s, longer than the ${formatSeconds(tightest.seconds)} drain window of ${tightest.source}${tightest.nodes ? ", whose nodes its pods may be scheduled on" : ""}`,
                            `${tightest.how}, so the pod is killed mid-shutdown and its in-flight work is lost`,
                            `lower terminationGracePeriodSeconds to at most ${tightest.seconds}, or lengthen the node's window`,
                        ),
                        w.urn,
                    );
                }
            });
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable(`no long-running workload ${inputScope(args.stackTags)}: nothing was checked against the drain windows`);
        }
    },
});
