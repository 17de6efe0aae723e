import type { PolicyConfigSchema, StackValidationPolicy } from "@pulumi/policy";
import { readConfig } from "./lib/config";
import { isKind, namespaceOf, objectName } from "./lib/kubernetes";
import { UndecidedNamespaces } from "./lib/stack";
import { keysOf, path } from "./lib/values";
import { Verdicts, violation } from "./lib/verdicts";

/** Config of `namespace-quota-required`. */
export interface NamespaceQuotaRequiredConfig {
    /** Namespaces that need no quota. Defaults to the ones Kubernetes creates itself. */
    exemptNamespaces: string[];
}

const configSchema: PolicyConfigSchema = {
    properties: {
        exemptNamespaces: {
            type: "array",
            items: { type: "string" },
            default: ["kube-system", "kube-public", "kube-node-lease", "default"],
            description: "Namespaces that need no ResourceQuota or LimitRange.",
        },
    },
};

// Each limited dimension and the quota keys that bound it.
const DIMENSIONS: [string, string[]][] = [
    ["cpu", ["requests.cpu", "limits.cpu", "cpu"]],
    ["memory", ["requests.memory", "limits.memory", "memory"]],
    ["pods", ["pods"]],
];

/** Every Namespace (except the system ones) has a ResourceQuota limiting cpu, memory and pods, and a LimitRange. */
export const namespaceQuotaRequired: StackValidationPolicy = {
    name: "namespace-quota-required",
    description: "Every namespace has a ResourceQuota limiting cpu, memory and pods, and a LimitRange.",
    enforcementLevel: "mandatory",
    configSchema,
    validateStack: (args, reportViolation) => {
        const config = readConfig<NamespaceQuotaRequiredConfig>("namespace-quota-required", configSchema, args.getConfig());
        const exempt = new Set(config.exemptNamespaces);
        const verdicts = new Verdicts();
        const namespaces: { name: string; urn: string }[] = [];
        const quotaKeys = new Map<string, Set<string>>();
        const limitRanges = new Set<string>();
        const undecided = new UndecidedNamespaces();
        for (const r of args.resources) {
            if (!r.type.startsWith("kubernetes:")) {
                continue;
            }
            if (isKind(r.type, r.props, "", "Namespace")) {
                const name = verdicts.read(`Namespace ${r.name}`, () => objectName(r.props, r.name));
                if (name !== undefined && !exempt.has(name)) {
                    namespaces.push({ name, urn: r.urn });
                }
            } else if (isKind(r.type, r.props, "", "ResourceQuota")) {
                const ok = verdicts.read(`ResourceQuota ${r.name}`, () => {
                    const ns = namespaceOf(r.props);
                    const keys = quotaKeys.get(ns) ?? new Set<string>();
                    for (const key of keysOf(path(r.props, "spec", "hard"))) {
                        keys.add(key);
                    }
                    quotaKeys.set(ns, keys);
                    return true;
                });
                if (!ok) {
                    undecided.add(r.props);
                }
            } else if (isKind(r.type, r.props, "", "LimitRange")) {
                if (!verdicts.read(`LimitRange ${r.name}`, () => limitRanges.add(namespaceOf(r.props)))) {
                    undecided.add(r.props);
                }
            }
        }
        for (const ns of namespaces) {
            verdicts.judge(`Namespace ${ns.name}`, () => {
                if (undecided.has(ns.name)) {
                    // A quota or LimitRange unreadable at preview may belong here.
                    verdicts.leaveUndecided(`Namespace ${ns.name}`, ["ResourceQuota", ns.name, "spec"]);
                    return;
                }
                const keys = quotaKeys.get(ns.name);
                if (!keys) {
                    reportViolation(
                        violation(
                            `Namespace ${ns.name} has no ResourceQuota`,
                            "one team's runaway rollout or leak can take every node's CPU, memory and pod slots, starving the other namespaces and making Karpenter scale without bound",
                            `add a ResourceQuota in ${ns.name} with spec.hard requests.cpu, requests.memory, limits.cpu, limits.memory and pods`,
                        ),
                        ns.urn,
                    );
                } else {
                    const missing = DIMENSIONS.filter(([, accepted]) => !accepted.some((k) => keys.has(k))).map(([d]) => d);
                    if (missing.length > 0) {
                        reportViolation(
                            violation(
                                `The ResourceQuota of namespace ${ns.name} does not limit ${missing.join(", ")}`,
                                "what the quota leaves unbounded one workload can still take from the whole cluster",
                                `add ${missing.map((d) => (d === "pods" ? "pods" : `requests.${d} and limits.${d}`)).join(", ")} to spec.hard`,
                            ),
                            ns.urn,
                        );
                    }
                }
                if (!limitRanges.has(ns.name)) {
                    reportViolation(
                        violation(
                            `Namespace ${ns.name} has no LimitRange`,
                            "with a quota on requests and limits, any pod that omits them is rejected at admission, and pods that do get no default sizes",
                            `add a LimitRange in ${ns.name} with type Container default and defaultRequest for cpu and memory`,
                        ),
                        ns.urn,
                    );
                }
            });
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable("no Namespace outside the exempt ones in this stack: nothing was checked");
        }
    },
};
