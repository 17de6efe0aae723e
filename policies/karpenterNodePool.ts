import {
    asArray,
    AUTO_MODE_MAX_NODE_LIFETIME_SECONDS,
    enabledBuiltInPools,
    formatSeconds,
    asString,
    field,
    isAutoModeNodePool,
    karpenterDuration,
    nodePoolLifetime,
    parseQuantity,
    path,
} from "eks-platform-kernel";
import { karpenterVersion, karpenterVersionViolation, objectName, Verdicts, violation } from "eks-platform-evaluation";
import { declareResourcePolicy } from "./declare";

/**
 * Karpenter v1 NodePools reference their node class completely, cap what they may launch, and
 * bound how long a draining node may live. A NodePool of another API version (v1beta1) gets one
 * violation saying to migrate, instead of v1 field checks that do not fit it. NodePools EKS Auto
 * Mode runs (`nodeClassRef` group `eks.amazonaws.com`) are judged as Auto Mode runs them: its 24h
 * `terminationGracePeriod` applies when they set none, their nodes' lifetime (`expireAfter`, 336h
 * when unset, plus that grace period) fits Auto Mode's enforced 21 days, and their requirements use
 * Auto Mode's labels; a cluster's built-in pools (`computeConfig.nodePools`) are names EKS has.
 */
export const karpenterNodePool = declareResourcePolicy({
    name: "karpenter-nodepool",
    description: "Karpenter NodePools use the v1 API and set a complete nodeClassRef, cpu and memory limits, and a terminationGracePeriod.",
    enforcementLevel: "mandatory",
    docs: {
        requires:
            "the v1 API; `nodeClassRef` group/kind/name, cpu and memory limits, `terminationGracePeriod` (EKS Auto Mode applies 24h when unset); on Auto Mode a node lifetime within its 21 days and its own labels; built-in pools EKS has",
        checks: "NodePool `nodeClassRef` has `group`, `kind`, `name`; `spec.limits` has cpu and memory; `spec.template.spec.terminationGracePeriod` is a duration (on an EKS Auto Mode NodePool, `nodeClassRef` group `eks.amazonaws.com`, it may be unset: Auto Mode applies 24h); on Auto Mode `expireAfter` (336h when unset; not `Never`) plus `terminationGracePeriod` is at most the 21 days Auto Mode lets a node live, and no requirement is on a `karpenter.k8s.aws/*` label (Auto Mode's nodes carry `eks.amazonaws.com/instance-*`); a cluster's `computeConfig.nodePools` (`eks:index:Cluster` `autoMode`, `aws:eks/cluster:Cluster`) names only `general-purpose` and `system`; a NodePool of another API version (`karpenter.sh/v1beta1`) gets one violation to migrate to v1 instead",
    },
    validateResource: (args, reportViolation) => {
        const version = args.type.startsWith("kubernetes:")
            ? karpenterVersion(args.type, args.props, "karpenter.sh", "NodePool")
            : undefined;
        if (version === undefined) {
            if (args.type === "eks:index:Cluster" || args.type === "aws:eks/cluster:Cluster") {
                judgeBuiltInPools(args, reportViolation);
                return;
            }
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
        const autoMode = verdicts.read(`${subject} nodeClassRef`, () => isAutoModeNodePool(args.props)) ?? false;
        verdicts.judge(`${subject} nodeClassRef`, () => {
            const ref = path(args.props, "spec", "template", "spec", "nodeClassRef");
            const missing = ["group", "kind", "name"].filter((k) => !asString(field(ref, k)));
            if (missing.length > 0) {
                reportViolation(
                    violation(
                        `${subject} spec.template.spec.nodeClassRef lacks ${missing.join(", ")}`,
                        "Karpenter v1 requires group, kind and name: the API server rejects the NodePool, so no node is ever launched for it",
                        autoMode
                            ? "set nodeClassRef: { group: eks.amazonaws.com, kind: NodeClass, name: <your NodeClass, or default> }"
                            : "set nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: <your EC2NodeClass> }",
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
            // EKS Auto Mode applies 24h to the NodeClaim when the NodePool sets none (create-node-pool.adoc).
            if (karpenterDuration(raw) === undefined && !(autoMode && (raw === undefined || raw === null))) {
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
        if (autoMode) {
            verdicts.judge(`${subject} node lifetime`, () => {
                const lifetime = nodePoolLifetime(args.props);
                const expire = lifetime.expireAfterSeconds;
                const grace = lifetime.terminationGraceSeconds ?? 0;
                if (expire === undefined || (expire !== Infinity && expire + grace <= AUTO_MODE_MAX_NODE_LIFETIME_SECONDS)) {
                    // A value the CRD refuses is the terminationGracePeriod check's, or the API server's.
                    return;
                }
                const raw = path(args.props, "spec", "template", "spec", "expireAfter");
                const max = Math.floor((AUTO_MODE_MAX_NODE_LIFETIME_SECONDS - grace) / 3600);
                reportViolation(
                    violation(
                        expire === Infinity
                            ? `${subject} sets expireAfter Never on EKS Auto Mode, which ends every node by ${formatSeconds(AUTO_MODE_MAX_NODE_LIFETIME_SECONDS)} (21 days) anyway`
                            : `${subject} lets its nodes live expireAfter ${asString(raw) ?? formatSeconds(expire)} plus terminationGracePeriod ${formatSeconds(grace)}, past the 21 days (${formatSeconds(AUTO_MODE_MAX_NODE_LIFETIME_SECONDS)}) EKS Auto Mode lets a node live`,
                        "Auto Mode replaces the nodes on its own schedule, not the pool's: the drain comes when AWS decides (EKS User Guide automode.adoc: intervention may be required before the 21 days if budgets block it)",
                        `set spec.template.spec.expireAfter to at most ${max}h, so expiry and its drain (PDBs respected until terminationGracePeriod, then pods deleted) happen on the pool's schedule`,
                    ),
                );
            });
            verdicts.judge(`${subject} requirements`, () => {
                const keys = asArray(path(args.props, "spec", "template", "spec", "requirements"))
                    .map((r) => asString(field(r, "key")))
                    .filter((k): k is string => k !== undefined && k.startsWith("karpenter.k8s.aws/"));
                if (keys.length > 0) {
                    reportViolation(
                        violation(
                            `${subject} runs on EKS Auto Mode but requires ${[...new Set(keys)].join(", ")}, a label of self-managed Karpenter`,
                            "EKS Auto Mode labels its nodes eks.amazonaws.com/instance-* instead (create-node-pool.adoc, Supported labels): the requirement does not select the instance types it names",
                            `use ${[...new Set(keys)].map((k) => k.replace("karpenter.k8s.aws/", "eks.amazonaws.com/")).join(", ")}`,
                        ),
                    );
                }
            });
        }
        verdicts.finish();
    },
});

/** A cluster's built-in pools of EKS Auto Mode are names EKS has (`general-purpose`, `system`): a typo is refused by the API. */
function judgeBuiltInPools(
    args: { name: string; type: string; props: unknown; urn: string; notApplicable: (reason: string) => never },
    reportViolation: (message: string) => void,
): void {
    const verdicts = new Verdicts();
    const found = verdicts.read(`cluster ${args.name} computeConfig.nodePools`, () => enabledBuiltInPools([args]));
    if (found && found.pools.length === 0 && found.invalid.length === 0 && found.unknown.length === 0) {
        verdicts.finish();
        args.notApplicable("a cluster without EKS Auto Mode's built-in NodePools");
    }
    verdicts.judge(`cluster ${args.name} computeConfig.nodePools`, () => {
        for (const { name } of found?.invalid ?? []) {
            reportViolation(
                violation(
                    `cluster ${args.name} enables EKS Auto Mode built-in NodePool ${JSON.stringify(name)}, which EKS does not have`,
                    "EKS accepts only general-purpose and system in computeConfig.nodePools: the cluster update is refused, and no pool of that name ever runs",
                    "name general-purpose and/or system, or run the capacity as a NodePool of your own",
                ),
            );
        }
    });
    verdicts.finish();
}
