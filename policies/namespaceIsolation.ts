import type { PolicyConfigSchema, StackValidationPolicy } from "@pulumi/policy";
import { readConfig } from "./lib/config";
import { isKind, namespaceOf, objectName } from "./lib/kubernetes";
import { UndecidedNamespaces } from "./lib/stack";
import { asArray, asRecord, field, path } from "./lib/values";
import { Verdicts, violation } from "./lib/verdicts";
import { inputScope } from "./lib/scope";

/** Pod Security Standards levels, least to most restrictive. */
export const POD_SECURITY_LEVELS = ["privileged", "baseline", "restricted"] as const;
export type PodSecurityLevel = (typeof POD_SECURITY_LEVELS)[number];

/** Config of `namespace-isolation`. */
export interface NamespaceIsolationConfig {
    /** Namespaces that need no isolation. Defaults to the ones Kubernetes creates itself. */
    exemptNamespaces: string[];
    /** Lowest Pod Security level a namespace may enforce. Defaults to `baseline`. */
    minimumEnforceLevel: PodSecurityLevel;
}

const configSchema: PolicyConfigSchema = {
    properties: {
        exemptNamespaces: {
            type: "array",
            items: { type: "string" },
            default: ["kube-system", "kube-public", "kube-node-lease", "default"],
            description: "Namespaces that need no Pod Security label or default-deny NetworkPolicy.",
        },
        minimumEnforceLevel: {
            type: "string",
            enum: [...POD_SECURITY_LEVELS],
            default: "baseline",
            description: "Lowest pod-security.kubernetes.io/enforce level a namespace may set (privileged < baseline < restricted).",
        },
    },
};

const ENFORCE_LABEL = "pod-security.kubernetes.io/enforce";

/** `undefined` when `value` is not a level (the label is then ignored by Pod Security Admission). */
export function podSecurityLevel(value: unknown): PodSecurityLevel | undefined {
    return POD_SECURITY_LEVELS.find((l) => l === value);
}

/** True for `undefined`, `null`, an empty array, or an empty object (what a field left unset or emptied looks like). */
function isEmpty(value: unknown): boolean {
    if (value === undefined || value === null) {
        return true;
    }
    if (Array.isArray(value)) {
        return value.length === 0;
    }
    const rec = asRecord(value);
    return rec !== undefined && Object.keys(rec).length === 0;
}

/**
 * True when a NetworkPolicy spec denies all ingress to every pod of its namespace: an empty
 * `podSelector` (the field is required; `{}` selects every pod), `Ingress` among its policy types,
 * and no ingress rule (one empty rule `{}` would allow everything). Unset `policyTypes` always
 * includes Ingress: the API server defaults it to `["Ingress"]`, plus `"Egress"` when there is an
 * egress section. Unknown values throw (SDK proxy).
 */
export function deniesAllIngress(spec: unknown): boolean {
    const selector = asRecord(field(spec, "podSelector"));
    if (!selector || !isEmpty(field(selector, "matchLabels")) || !isEmpty(field(selector, "matchExpressions"))) {
        return false;
    }
    const types = asArray(field(spec, "policyTypes"));
    if (types.length > 0 && !types.includes("Ingress")) {
        return false;
    }
    const ingress = field(spec, "ingress");
    return ingress === undefined || ingress === null || (Array.isArray(ingress) && ingress.length === 0);
}

/**
 * Every Namespace (except the system ones) enforces a Pod Security level of at least
 * `minimumEnforceLevel` and has a NetworkPolicy denying all ingress by default.
 */
export const namespaceIsolation: StackValidationPolicy = {
    name: "namespace-isolation",
    description: "Every namespace enforces a Pod Security level and has a default-deny ingress NetworkPolicy.",
    enforcementLevel: "mandatory",
    configSchema,
    validateStack: (args, reportViolation) => {
        const config = readConfig<NamespaceIsolationConfig>("namespace-isolation", configSchema, args.getConfig());
        const exempt = new Set(config.exemptNamespaces);
        const minimum = POD_SECURITY_LEVELS.indexOf(config.minimumEnforceLevel);
        const verdicts = new Verdicts();
        const namespaces: { name: string; urn: string; props: unknown }[] = [];
        const denied = new Set<string>();
        const undecided = new UndecidedNamespaces();
        for (const r of args.resources) {
            if (!r.type.startsWith("kubernetes:")) {
                continue;
            }
            if (isKind(r.type, r.props, "", "Namespace")) {
                const name = verdicts.read(`Namespace ${r.name}`, () => objectName(r.props, r.name));
                if (name !== undefined && !exempt.has(name)) {
                    namespaces.push({ name, urn: r.urn, props: r.props });
                }
            } else if (isKind(r.type, r.props, "networking.k8s.io", "NetworkPolicy")) {
                const ok = verdicts.read(`NetworkPolicy ${r.name}`, () => {
                    if (deniesAllIngress(field(r.props, "spec"))) {
                        denied.add(namespaceOf(r.props));
                    }
                    return true;
                });
                if (!ok) {
                    undecided.add(r.props);
                }
            }
        }
        for (const ns of namespaces) {
            verdicts.judge(`Namespace ${ns.name} pod security`, () => {
                const raw = path(ns.props, "metadata", "labels", ENFORCE_LABEL);
                const level = podSecurityLevel(raw);
                const why =
                    "pods there may then run privileged, with host namespaces or hostPath mounts: one compromised or careless pod can take over its node and every workload scheduled on it";
                const fix = `label the namespace ${ENFORCE_LABEL}: ${POD_SECURITY_LEVELS[Math.max(minimum, 1)]} (or restricted), pinned with ${ENFORCE_LABEL}-version`;
                if (raw === undefined || raw === null) {
                    reportViolation(violation(`Namespace ${ns.name} has no ${ENFORCE_LABEL} label`, why, fix), ns.urn);
                } else if (level === undefined) {
                    reportViolation(
                        violation(
                            `Namespace ${ns.name} has ${ENFORCE_LABEL}: ${JSON.stringify(raw)}, which is not a Pod Security level (privileged, baseline, restricted)`,
                            "Pod Security Admission refuses a namespace labelled with an unknown level, so creating or updating the namespace fails, and until the label is valid nothing stops privileged pods there",
                            fix,
                        ),
                        ns.urn,
                    );
                } else if (POD_SECURITY_LEVELS.indexOf(level) < minimum) {
                    reportViolation(
                        violation(
                            `Namespace ${ns.name} enforces Pod Security level ${level}, below the required ${config.minimumEnforceLevel}`,
                            why,
                            `set ${ENFORCE_LABEL}: ${config.minimumEnforceLevel} (or stricter) and fix the pods the warn/audit labels report`,
                        ),
                        ns.urn,
                    );
                }
            });
            verdicts.judge(`Namespace ${ns.name} network`, () => {
                if (denied.has(ns.name)) {
                    return;
                }
                if (undecided.has(ns.name)) {
                    // A NetworkPolicy unreadable at preview may be the default-deny one.
                    verdicts.leaveUndecided(`Namespace ${ns.name} network`, ["NetworkPolicy", ns.name, "spec"]);
                    return;
                }
                reportViolation(
                    violation(
                        `Namespace ${ns.name} has no default-deny ingress NetworkPolicy`,
                        "without one any pod in the cluster, in any namespace, can reach these pods: one compromised workload anywhere can call every service here",
                        `add a NetworkPolicy in ${ns.name} with spec.podSelector: {}, policyTypes: ["Ingress"] and no ingress rules, then allow what must reach it with further NetworkPolicies`,
                    ),
                    ns.urn,
                );
            });
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable(`no Namespace outside the exempt ones ${inputScope(args.stackTags)}: nothing was checked`);
        }
    },
};
