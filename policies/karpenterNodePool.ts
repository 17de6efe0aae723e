import { asString, field, karpenterDuration, parseQuantity, path } from "eks-platform-kernel";
import { karpenterVersion, karpenterVersionViolation, objectName, Verdicts, violation } from "eks-platform-kernel/policy";
import { declareResourcePolicy } from "./declare";

/**
 * Karpenter v1 NodePools reference their node class completely, cap what they may launch, and
 * bound how long a draining node may live. A NodePool of another API version (v1beta1) gets one
 * violation saying to migrate, instead of v1 field checks that do not fit it.
 */
export const karpenterNodePool = declareResourcePolicy({
    name: "karpenter-nodepool",
    description: "Karpenter NodePools use the v1 API and set a complete nodeClassRef, cpu and memory limits, and a terminationGracePeriod.",
    enforcementLevel: "mandatory",
    docs: {
        requires: "the v1 API; `nodeClassRef` group/kind/name, cpu and memory limits, `terminationGracePeriod`",
        checks: "NodePool `nodeClassRef` has `group`, `kind`, `name`; `spec.limits` has cpu and memory; `spec.template.spec.terminationGracePeriod` is a duration; a NodePool of another API version (`karpenter.sh/v1beta1`) gets one violation to migrate to v1 instead",
    },
    validateResource: (args, reportViolation) => {
        const version = args.type.startsWith("kubernetes:")
            ? karpenterVersion(args.type, args.props, "karpenter.sh", "NodePool")
            : undefined;
        if (version === undefined) {
            args.notApplicable("not a Karpenter NodePool");
        }
        const verdicts = new Verdicts();
        const name = verdicts.read(args.name, () => objectName(args.props, args.name)) ?? args.name;
        const subject = `NodePool ${name}`;
        if (version !== "v1") {
            // v1beta1 has other fields (no nodeClassRef group, no terminationGracePeriod): one clear verdict instead of v1 noise.
            reportViolation(
                karpenterVersionViolation(
                    subject,
                    "karpenter.sh",
                    version as string,
                    "nodeClassRef with group, kind and name; expireAfter and terminationGracePeriod under spec.template.spec",
                ),
            );
            verdicts.finish();
            return;
        }
        verdicts.judge(`${subject} nodeClassRef`, () => {
            const ref = path(args.props, "spec", "template", "spec", "nodeClassRef");
            const missing = ["group", "kind", "name"].filter((k) => !asString(field(ref, k)));
            if (missing.length > 0) {
                reportViolation(
                    violation(
                        `${subject} spec.template.spec.nodeClassRef lacks ${missing.join(", ")}`,
                        "Karpenter v1 requires group, kind and name: the API server rejects the NodePool, so no node is ever launched for it",
                        "set nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: <your EC2NodeClass> }",
                    ),
                );
            }
        });
        verdicts.judge(`${subject} limits`, () => {
            const limits = path(args.props, "spec", "limits");
            const missing = ["cpu", "memory"].filter((k) => {
                const q = parseQuantity(field(limits, k));
                return q === undefined || q < 0;
            });
            if (missing.length > 0) {
                reportViolation(
                    violation(
                        `${subject} sets no valid spec.limits.${missing.join(" or spec.limits.")}`,
                        "a runaway deployment or a pod that never schedules makes Karpenter launch instances without bound, until cost alarms or EC2 quotas stop it",
                        `set spec.limits.cpu and spec.limits.memory to the most this pool may ever hold (e.g. cpu: "256", memory: 1024Gi)`,
                    ),
                );
            }
        });
        verdicts.judge(`${subject} terminationGracePeriod`, () => {
            const raw = path(args.props, "spec", "template", "spec", "terminationGracePeriod");
            if (karpenterDuration(raw) === undefined) {
                reportViolation(
                    violation(
                        raw === undefined || raw === null
                            ? `${subject} sets no spec.template.spec.terminationGracePeriod`
                            : `${subject} sets spec.template.spec.terminationGracePeriod to ${JSON.stringify(raw)}, which is not a duration the NodePool CRD accepts (whole s, m or h parts such as 90s, 30m, 1h30m; the API server refuses the NodePool)`,
                        "a node whose pods are held by a PodDisruptionBudget that allows no disruption is never reclaimed: drift replacement, expiry and consolidation stall and the node runs (and costs) forever",
                        'set spec.template.spec.terminationGracePeriod (e.g. "1h"), longer than the longest pod grace period it must honour',
                    ),
                );
            }
        });
        verdicts.finish();
    },
});
