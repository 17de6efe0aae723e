import {
    asArray,
    asRecord,
    asString,
    field,
    formatLabels,
    inputScope,
    LabelSelector,
    path,
    readSelector,
    RESERVED_NAMESPACES,
    SelectorIndex,
} from "eks-platform-kernel";
import {
    describeWorkload,
    ENFORCE_LABEL,
    isKind,
    namespaceOf,
    POD_SECURITY_LEVELS,
    PodSecurityLevel,
    podSecurityLevel,
    readNamespace,
    readWorkloads,
    StackNamespace,
    UndecidedNamespaces,
    Verdicts,
    violation,
    Workload,
} from "eks-platform-evaluation";
import { declareStackPolicy, Knobs } from "./declare";

/** Config of `namespace-isolation`. */
export interface NamespaceIsolationConfig {
    /** Namespaces that need no isolation. Defaults to the ones Kubernetes creates itself. */
    exemptNamespaces: string[];
    /** Lowest Pod Security level a namespace may enforce. Defaults to `baseline`. */
    minimumEnforceLevel: PodSecurityLevel;
    /**
     * Lowest Pod Security level per namespace, in place of `minimumEnforceLevel` (e.g.
     * `{"monitoring": "privileged"}` for node exporters' host access); their NetworkPolicies are
     * still judged. Defaults to `{}`.
     */
    namespaceEnforceLevels: Record<string, PodSecurityLevel>;
}

const knobs: Knobs<NamespaceIsolationConfig> = {
    exemptNamespaces: {
        type: "array",
        items: { type: "string" },
        default: [...RESERVED_NAMESPACES],
        description: "Namespaces that need no Pod Security label or NetworkPolicy.",
    },
    minimumEnforceLevel: {
        type: "string",
        enum: [...POD_SECURITY_LEVELS],
        default: "baseline",
        description: "Lowest pod-security.kubernetes.io/enforce level a namespace may set (privileged < baseline < restricted).",
    },
    // Its enum refuses a per-namespace level that is not a Pod Security level: the validator need not.
    namespaceEnforceLevels: {
        type: "object",
        additionalProperties: { type: "string", enum: [...POD_SECURITY_LEVELS] },
        default: {},
        description:
            'Lowest enforce level per namespace in place of minimumEnforceLevel, e.g. {"monitoring": "privileged"} for a namespace whose own pods need host access (node exporters, CNI agents); its NetworkPolicies are still judged.',
    },
};

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

/** True for a peer that matches every pod of the cluster, or every address: `{namespaceSelector: {}}`, `ipBlock` 0.0.0.0/0 or ::/0 with no `except`. */
function everyone(peer: unknown): boolean {
    const ns = field(peer, "namespaceSelector");
    if (ns !== undefined && ns !== null && isEmpty(field(ns, "matchLabels")) && isEmpty(field(ns, "matchExpressions"))) {
        const pods = field(peer, "podSelector");
        return pods === undefined || pods === null || (isEmpty(field(pods, "matchLabels")) && isEmpty(field(pods, "matchExpressions")));
    }
    const block = field(peer, "ipBlock");
    const cidr = asString(field(block, "cidr"));
    return (cidr === "0.0.0.0/0" || cidr === "::/0") && isEmpty(field(block, "except"));
}

/**
 * The pods whose ingress a NetworkPolicy spec restricts: its `podSelector`, when the policy
 * affects Ingress (`policyTypes` contains it, or is unset or empty: the API server then always
 * includes Ingress) and none of its ingress rules admits every source on every port (a rule with
 * no `from` and no `ports`, such as `{}`, or one whose `from` names every namespace or every
 * address). `undefined` when it restricts nothing: a missing or malformed `podSelector` (the API
 * requires one), egress only, or an open rule. An empty selector restricts every pod of the
 * namespace (a default deny, when it has no rules). Unknown values throw (SDK proxy).
 */
export function restrictedPods(spec: unknown): LabelSelector | undefined {
    const selector = readSelector(field(spec, "podSelector"));
    if (!selector || selector.invalid) {
        return undefined;
    }
    const types = asArray(field(spec, "policyTypes"));
    if (types.length > 0 && !types.includes("Ingress")) {
        return undefined;
    }
    for (const rule of asArray(field(spec, "ingress"))) {
        const from = asArray(field(rule, "from"));
        if (isEmpty(field(rule, "ports")) && (from.length === 0 || from.some(everyone))) {
            return undefined;
        }
    }
    return selector;
}

/** True for a selector that selects every pod (`{}`, or empty `matchLabels`/`matchExpressions`). */
function selectsAll(selector: LabelSelector): boolean {
    return Object.keys(selector.matchLabels).length === 0 && selector.matchExpressions.length === 0;
}

/**
 * Every Namespace (except the system ones) enforces a Pod Security level of at least its minimum
 * (`namespaceEnforceLevels`, else `minimumEnforceLevel`), and the pods there are isolated for
 * ingress: a NetworkPolicy restricting every pod (a default deny), or, where the input shows the
 * namespace's workloads, NetworkPolicies that between them restrict every one of those workloads'
 * pods (per-component policies, as kube-prometheus ships). Pods no policy restricts are named.
 */
export const namespaceIsolation = declareStackPolicy<NamespaceIsolationConfig>({
    name: "namespace-isolation",
    description: "Every namespace enforces a Pod Security level, and NetworkPolicies restrict ingress to every pod in it.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires:
            "PSA enforce label (≥ baseline, or a per-namespace level) and ingress NetworkPolicies restricting every pod (a default deny, or per-component policies covering every workload)",
        checks: "every Namespace except the exempt ones has a `pod-security.kubernetes.io/enforce` label with a valid level at least its minimum (`namespaceEnforceLevels`, else `minimumEnforceLevel`; `privileged` < `baseline` < `restricted`), and NetworkPolicies restricting ingress to its pods: one selecting every pod, or ones that between them select every workload of the namespace in the input; pods no policy restricts are named (see below)",
    },
    validateStack: (args, reportViolation, config) => {
        const exempt = new Set(config.exemptNamespaces);
        const minimumOf = (ns: string): PodSecurityLevel => config.namespaceEnforceLevels[ns] ?? config.minimumEnforceLevel;
        const verdicts = new Verdicts();
        const namespaces: StackNamespace[] = [];
        const restricting = new SelectorIndex<true>();
        const denied = new Set<string>();
        const undecided = new UndecidedNamespaces();
        for (const r of args.resources) {
            if (!r.type.startsWith("kubernetes:")) {
                continue;
            }
            if (isKind(r.type, r.props, "", "Namespace")) {
                const ns = readNamespace(r, verdicts);
                if (ns && !exempt.has(ns.name)) {
                    namespaces.push(ns);
                }
            } else if (isKind(r.type, r.props, "networking.k8s.io", "NetworkPolicy")) {
                const ok = verdicts.read(`NetworkPolicy ${r.name}`, () => {
                    const selector = restrictedPods(field(r.props, "spec"));
                    if (selector) {
                        const ns = namespaceOf(r.props);
                        restricting.add(ns, selector, true);
                        if (selectsAll(selector)) {
                            denied.add(ns);
                        }
                    }
                    return true;
                });
                if (!ok) {
                    undecided.add(r.props);
                }
            }
        }
        const workloads = new Map<string, Workload[]>();
        for (const w of readWorkloads(args.resources, verdicts, undecided)) {
            workloads.set(w.namespace, [...(workloads.get(w.namespace) ?? []), w]);
        }
        for (const ns of namespaces) {
            verdicts.judge(`Namespace ${ns.name} pod security`, () => {
                const raw = path(ns.props, "metadata", "labels", ENFORCE_LABEL);
                const level = podSecurityLevel(raw);
                const minimum = minimumOf(ns.name);
                const why =
                    "pods there may then run privileged, with host namespaces or hostPath mounts: one compromised or careless pod can take over its node and every workload scheduled on it";
                const perNamespace = `a namespace whose own pods need host access (node exporters, CNI agents) may enforce a lower level once listed in namespace-isolation's namespaceEnforceLevels, e.g. {"${ns.name}": "privileged"}`;
                const fix = `label the namespace ${ENFORCE_LABEL}: ${minimum === "privileged" ? "privileged (or stricter)" : `${minimum} (or stricter)`}, pinned with ${ENFORCE_LABEL}-version; ${perNamespace}`;
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
                } else if (POD_SECURITY_LEVELS.indexOf(level) < POD_SECURITY_LEVELS.indexOf(minimum)) {
                    reportViolation(
                        violation(
                            `Namespace ${ns.name} enforces Pod Security level ${level}, below the required ${minimum}`,
                            why,
                            `set ${ENFORCE_LABEL}: ${minimum} (or stricter) and fix the pods the warn/audit labels report; ${perNamespace}`,
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
                    // A NetworkPolicy or workload unreadable at preview may change the verdict.
                    verdicts.leaveUndecided(`Namespace ${ns.name} network`, ["NetworkPolicy", ns.name, "spec"]);
                    return;
                }
                const here = workloads.get(ns.name) ?? [];
                const open = here.filter((w) => restricting.matching(ns.name, w.podLabels).length === 0);
                if (here.length > 0 && open.length === 0) {
                    return;
                }
                const reach =
                    "any pod in the cluster, in any namespace, can reach them: one compromised workload anywhere can call every service there";
                const denyAll = `a NetworkPolicy in ${ns.name} with spec.podSelector: {}, policyTypes: ["Ingress"] and no ingress rules (then allow what must reach it with further NetworkPolicies)`;
                if (here.length === 0) {
                    reportViolation(
                        violation(
                            `Namespace ${ns.name} has no NetworkPolicy restricting ingress to all its pods, and none of its workloads is ${inputScope(args.stackTags)}`,
                            `without one ${reach}`,
                            `add ${denyAll}`,
                        ),
                        ns.urn,
                    );
                    return;
                }
                const shown = open.slice(0, 5).map((w) => `${describeWorkload(w)} (${formatLabels(w.podLabels)})`);
                reportViolation(
                    violation(
                        `Namespace ${ns.name}: the pods of ${shown.join(", ")}${open.length > 5 ? ` and ${open.length - 5} more workloads` : ""} are selected by no NetworkPolicy restricting ingress`,
                        reach,
                        `add ${denyAll}, or a NetworkPolicy selecting those pods' labels with the ingress they need`,
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
});
