import { asArray, asRecord, field, inputScope, keysOf, path, RESERVED_NAMESPACES } from "eks-platform-kernel";
import {
    isKind,
    namespaceOf,
    objectName,
    readNamespace,
    StackNamespace,
    UndecidedNamespaces,
    Verdicts,
    violation,
} from "eks-platform-evaluation";
import { declareStackPolicy, Knobs } from "./declare";

/** Config of `namespace-quota-required`. */
export interface NamespaceQuotaRequiredConfig {
    /** Namespaces that need no quota. Defaults to the ones Kubernetes creates itself. */
    exemptNamespaces: string[];
}

const knobs: Knobs<NamespaceQuotaRequiredConfig> = {
    exemptNamespaces: {
        type: "array",
        items: { type: "string" },
        default: [...RESERVED_NAMESPACES],
        description: "Namespaces that need no ResourceQuota or LimitRange.",
    },
};

// Each limited dimension and the quota keys that bound it.
const DIMENSIONS: [string, string[]][] = [
    ["cpu", ["requests.cpu", "limits.cpu", "cpu"]],
    ["memory", ["requests.memory", "limits.memory", "memory"]],
    ["pods", ["pods"]],
];

const RESOURCES = ["cpu", "memory"];

/** The resources a namespace's LimitRanges give containers defaults for. */
interface ContainerDefaults {
    default: Set<string>;
    defaultRequest: Set<string>;
}

/**
 * Why a quota is scoped (bounds only the pods its scope matches), or `undefined` for one that
 * bounds the whole namespace. Anything but an absent or empty `scopes` and `scopeSelector`
 * counts as scoped (a malformed scope does not bound the namespace either).
 */
function quotaScope(spec: unknown): string | undefined {
    const scopes = field(spec, "scopes");
    if (scopes !== undefined && scopes !== null && !(Array.isArray(scopes) && scopes.length === 0)) {
        const names = asArray(scopes).filter((v): v is string => typeof v === "string");
        return `scopes ${names.length > 0 ? names.join(", ") : JSON.stringify(scopes)}`;
    }
    const selector = field(spec, "scopeSelector");
    if (selector === undefined || selector === null) {
        return undefined;
    }
    const expressions = field(selector, "matchExpressions");
    if (
        asRecord(selector) &&
        (expressions === undefined || expressions === null || (Array.isArray(expressions) && expressions.length === 0))
    ) {
        return undefined; // an empty scopeSelector matches every pod
    }
    return "scopeSelector";
}

/**
 * Adds what the `type: Container` items of a LimitRange's `spec.limits` give containers by
 * default, after the API server's defaulting: `default` falls back to `max`, `defaultRequest`
 * to `default`, then to `min`.
 */
function addContainerDefaults(limits: unknown, into: ContainerDefaults): void {
    for (const raw of asArray(limits)) {
        if (field(raw, "type") !== "Container") {
            continue;
        }
        const defaults = new Set([...keysOf(field(raw, "default")), ...keysOf(field(raw, "max"))]);
        const requests = new Set([...keysOf(field(raw, "defaultRequest")), ...defaults, ...keysOf(field(raw, "min"))]);
        defaults.forEach((k) => into.default.add(k));
        requests.forEach((k) => into.defaultRequest.add(k));
    }
}

/**
 * Every Namespace (except the system ones) has ResourceQuotas without scopes that together limit
 * cpu, memory and pods (a scoped quota bounds only the pods its scope matches, so it does not
 * count), and LimitRanges whose `type: Container` items give default cpu and memory limits and
 * requests.
 */
export const namespaceQuotaRequired = declareStackPolicy<NamespaceQuotaRequiredConfig>({
    name: "namespace-quota-required",
    description: "Every namespace has an unscoped ResourceQuota limiting cpu, memory and pods, and a LimitRange with container defaults.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires:
            "an unscoped ResourceQuota (cpu, memory, pods) and a LimitRange giving containers the defaults that quota needs, in every namespace",
        checks: "every Namespace except the exempt ones has ResourceQuotas without `scopes`/`scopeSelector` bounding cpu, memory and pods (over all its unscoped quotas; a scoped quota bounds only the pods it matches and does not count), and LimitRanges whose `type: Container` items give the defaults those quotas need — a default limit for each resource a quota bounds by `limits.*`, a default request for each it bounds by `requests.*` (so a namespace without CPU limits needs no default CPU limit) — after the API server's defaulting (`default` from `max`, `defaultRequest` from `default` or `min`)",
    },
    validateStack: (args, reportViolation, config) => {
        const exempt = new Set(config.exemptNamespaces);
        const verdicts = new Verdicts();
        const namespaces: StackNamespace[] = [];
        // Keys of the namespace's unscoped quotas' spec.hard; scoped quotas, named for messages.
        const quotaKeys = new Map<string, Set<string>>();
        const scoped = new Map<string, string[]>();
        const limitRanges = new Map<string, ContainerDefaults>();
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
            } else if (isKind(r.type, r.props, "", "ResourceQuota")) {
                const ok = verdicts.read(`ResourceQuota ${r.name}`, () => {
                    const ns = namespaceOf(r.props);
                    const scope = quotaScope(field(r.props, "spec"));
                    if (scope) {
                        // It bounds only the pods its scope matches: the namespace as a whole stays open.
                        const list = scoped.get(ns) ?? [];
                        list.push(`${objectName(r.props, r.name)} (${scope})`);
                        scoped.set(ns, list);
                        return true;
                    }
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
                const ok = verdicts.read(`LimitRange ${r.name}`, () => {
                    const ns = namespaceOf(r.props);
                    const found = limitRanges.get(ns) ?? { default: new Set<string>(), defaultRequest: new Set<string>() };
                    addContainerDefaults(path(r.props, "spec", "limits"), found);
                    limitRanges.set(ns, found);
                    return true;
                });
                if (!ok) {
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
                const scopedHere = scoped.get(ns.name) ?? [];
                if (!keys) {
                    reportViolation(
                        violation(
                            scopedHere.length > 0
                                ? `Namespace ${ns.name} has only scoped ResourceQuotas (${scopedHere.join(", ")}), none for all its pods`
                                : `Namespace ${ns.name} has no ResourceQuota`,
                            scopedHere.length > 0
                                ? "a quota with spec.scopes or spec.scopeSelector bounds only the pods its scope matches, so every other pod can still take every node's CPU, memory and pod slots, starving the other namespaces and making Karpenter scale without bound"
                                : "one team's runaway rollout or leak can take every node's CPU, memory and pod slots, starving the other namespaces and making Karpenter scale without bound",
                            `add a ResourceQuota without scopes or scopeSelector in ${ns.name} with spec.hard requests.cpu, requests.memory, limits.cpu, limits.memory and pods`,
                        ),
                        ns.urn,
                    );
                } else {
                    const missing = DIMENSIONS.filter(([, accepted]) => !accepted.some((k) => keys.has(k))).map(([d]) => d);
                    if (missing.length > 0) {
                        reportViolation(
                            violation(
                                `The unscoped ResourceQuotas of namespace ${ns.name} do not limit ${missing.join(", ")}`,
                                "what the quota leaves unbounded one workload can still take from the whole cluster (a scoped quota bounds only the pods its scope matches)",
                                `add ${missing.map((d) => (d === "pods" ? "pods" : `requests.${d} and limits.${d}`)).join(", ")} to spec.hard of a quota without scopes or scopeSelector`,
                            ),
                            ns.urn,
                        );
                    }
                }
                const defaults = limitRanges.get(ns.name);
                if (!defaults) {
                    reportViolation(
                        violation(
                            `Namespace ${ns.name} has no LimitRange`,
                            "with a quota on requests and limits, any pod that omits them is rejected at admission, and pods that do get no default sizes",
                            `add a LimitRange in ${ns.name} with type Container default and defaultRequest for cpu and memory`,
                        ),
                        ns.urn,
                    );
                } else {
                    // The defaults a container needs to be admitted: a limit wherever an unscoped quota
                    // bounds limits, a request wherever it bounds requests (namespaces that run without
                    // CPU limits, `requireCpuLimit: false`, need no default CPU limit). Without such a
                    // quota (reported above) containers should get both.
                    const needs = (section: "default" | "defaultRequest", res: string) =>
                        !keys || (section === "default" ? keys.has(`limits.${res}`) : keys.has(`requests.${res}`) || keys.has(res));
                    const gaps = (["default", "defaultRequest"] as const).flatMap((section) =>
                        RESOURCES.filter((res) => needs(section, res) && !defaults[section].has(res)).map((res) => `${section}.${res}`),
                    );
                    if (gaps.length > 0) {
                        reportViolation(
                            violation(
                                `The LimitRanges of namespace ${ns.name} give containers no ${gaps.join(", ")} (no type: Container item sets ${gaps.length > 1 ? "them" : "it"})`,
                                "a container that omits its requests or limits gets no default for them: with a quota on requests and limits it is rejected at admission, without one it runs unbounded",
                                `add to a LimitRange in ${ns.name} an item { type: Container, default: {cpu, memory}, defaultRequest: {cpu, memory} }`,
                            ),
                            ns.urn,
                        );
                    }
                }
            });
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable(`no Namespace outside the exempt ones ${inputScope(args.stackTags)}: nothing was checked`);
        }
    },
});
