/**
 * Kubernetes label selectors (metav1.LabelSelector) and an index that finds the selectors that
 * may match a label set without comparing every pair. Pure; never throws.
 */
import { DNS_SUBDOMAIN } from "./names";
import { asArray, asRecord, describeShape } from "./values";

type Operator = "In" | "NotIn" | "Exists" | "DoesNotExist";

interface Requirement {
    key: string;
    operator: Operator;
    values: string[];
}

/** A selector read into plain data. `invalid` selectors (the API server would reject them) match nothing. */
export interface LabelSelector {
    matchLabels: Record<string, string>;
    matchExpressions: Requirement[];
    invalid?: string;
}

const OPERATORS = new Set<string>(["In", "NotIn", "Exists", "DoesNotExist"]);

// apimachinery's label syntax: a name part of up to 63 characters, optionally prefixed by a DNS subdomain.
const NAME_PART = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Why the API server refuses `key` as a label key, or `undefined`. */
export function labelKeyProblem(key: string): string | undefined {
    const slash = key.indexOf("/");
    const prefix = slash < 0 ? undefined : key.slice(0, slash);
    const name = slash < 0 ? key : key.slice(slash + 1);
    if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
        return `label key ${JSON.stringify(key)} has an invalid prefix (a lowercase DNS subdomain)`;
    }
    if (name.length === 0 || name.length > 63 || !NAME_PART.test(name)) {
        return `${JSON.stringify(key)} is not a valid label key (up to 63 letters, digits, "-", "_", ".", starting and ending with a letter or digit)`;
    }
    return undefined;
}

/** Why the API server refuses `value` as a label value, or `undefined`. */
export function labelValueProblem(value: string): string | undefined {
    return value === "" || (value.length <= 63 && NAME_PART.test(value))
        ? undefined
        : `${JSON.stringify(value)} is not a valid label value (up to 63 letters, digits, "-", "_", ".", starting and ending with a letter or digit)`;
}

/**
 * Reads a `LabelSelector` from resource properties. `undefined` for a missing (null) selector,
 * which selects nothing; `{}` selects everything. A selector the API server would refuse — a
 * `matchLabels` that is not a map of strings, a `matchExpressions` that is not a list of
 * `{key, operator, values}`, an unknown operator, values that do not fit the operator, invalid
 * label keys or values — comes back with `invalid` set (the first problem) and matches nothing,
 * never reads as the empty selector that matches everything.
 */
export function readSelector(value: unknown): LabelSelector | undefined {
    const rec = asRecord(value);
    if (!rec) {
        return undefined;
    }
    const problems: string[] = [];
    const selector: LabelSelector = { matchLabels: {}, matchExpressions: [] };
    const labels = rec.matchLabels;
    if (labels !== undefined && labels !== null) {
        const map = asRecord(labels);
        if (!map) {
            problems.push(`matchLabels is ${describeShape(labels)}, not a map of labels`);
        } else {
            for (const key of Object.keys(map)) {
                const v = map[key];
                if (typeof v !== "string") {
                    problems.push(`matchLabels.${key} is ${describeShape(v)}, not a string`);
                    continue;
                }
                const problem = labelKeyProblem(key) ?? labelValueProblem(v);
                if (problem) {
                    problems.push(`matchLabels: ${problem}`);
                }
                selector.matchLabels[key] = v;
            }
        }
    }
    const expressions = rec.matchExpressions;
    if (expressions !== undefined && expressions !== null && !Array.isArray(expressions)) {
        problems.push(`matchExpressions is ${describeShape(expressions)}, not a list`);
    }
    const items = asArray(expressions);
    for (let i = 0; i < items.length; i++) {
        const where = `matchExpressions[${i}]`;
        const expr = asRecord(items[i]);
        if (!expr) {
            problems.push(`${where} is ${describeShape(items[i])}, not {key, operator, values}`);
            continue;
        }
        const key = expr.key;
        const operator = expr.operator;
        const rawValues = expr.values;
        if (typeof key !== "string") {
            problems.push(`${where}.key is ${describeShape(key)}, not a label key`);
            continue;
        }
        const keyProblem = labelKeyProblem(key);
        if (keyProblem) {
            problems.push(`${where}: ${keyProblem}`);
        }
        if (typeof operator !== "string" || !OPERATORS.has(operator)) {
            problems.push(`${where}.operator is ${describeShape(operator)}, not one of In, NotIn, Exists, DoesNotExist`);
            continue;
        }
        if (rawValues !== undefined && rawValues !== null && !Array.isArray(rawValues)) {
            problems.push(`${where}.values is ${describeShape(rawValues)}, not a list of strings`);
            continue;
        }
        const values: string[] = [];
        for (const v of asArray(rawValues)) {
            if (typeof v !== "string") {
                problems.push(`${where}.values holds ${describeShape(v)}, not a string`);
            } else {
                const problem = labelValueProblem(v);
                if (problem) {
                    problems.push(`${where}: ${problem}`);
                }
                values.push(v);
            }
        }
        const requirement: Requirement = { key, operator: operator as Operator, values };
        const problem = requirementProblem(requirement);
        if (problem) {
            problems.push(`${where}: ${problem}`);
        }
        selector.matchExpressions.push(requirement);
    }
    if (problems.length > 0) {
        selector.invalid = problems.join("; ");
    }
    return selector;
}

/** A value for messages: `"app=api"`, `a number (3)`, `a list`. */
/** Why a requirement is malformed (the API server's validation), or `undefined`. */
function requirementProblem(r: Requirement): string | undefined {
    if ((r.operator === "In" || r.operator === "NotIn") && r.values.length === 0) {
        return `operator ${r.operator} on "${r.key}" needs at least one value`;
    }
    if ((r.operator === "Exists" || r.operator === "DoesNotExist") && r.values.length > 0) {
        return `operator ${r.operator} on "${r.key}" takes no values`;
    }
    return undefined;
}

/** True when `labels` satisfy one requirement, with Kubernetes semantics (NotIn matches a missing key). */
export function requirementMatches(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
    const present = Object.prototype.hasOwnProperty.call(labels, r.key);
    switch (r.operator) {
        case "In":
            return present && r.values.includes(labels[r.key]);
        case "NotIn":
            return !present || !r.values.includes(labels[r.key]);
        case "Exists":
            return present;
        case "DoesNotExist":
            return !present;
    }
}

/**
 * True when `selector` selects a pod with `labels`. A missing selector selects nothing, an empty
 * one everything, and a malformed one nothing (the API server would refuse it).
 */
export function selectorMatches(selector: LabelSelector | undefined, labels: Readonly<Record<string, string>>): boolean {
    if (!selector || selector.invalid) {
        return false;
    }
    for (const key of Object.keys(selector.matchLabels)) {
        if (!Object.prototype.hasOwnProperty.call(labels, key) || labels[key] !== selector.matchLabels[key]) {
            return false;
        }
    }
    for (const r of selector.matchExpressions) {
        if (requirementProblem(r) || !requirementMatches(r, labels)) {
            return false;
        }
    }
    return true;
}

/** A plain `key: value` map as a selector (Service `spec.selector`). An empty map selects nothing there. */
export function mapSelector(map: Record<string, string>): LabelSelector | undefined {
    return Object.keys(map).length === 0 ? undefined : { matchLabels: map, matchExpressions: [] };
}

/** `{app: api, tier: web}` → `app=api,tier=web`, for messages. */
export function formatLabels(labels: Readonly<Record<string, string>>): string {
    const keys = Object.keys(labels).sort();
    return keys.length === 0 ? "(none)" : keys.map((k) => `${k}=${labels[k]}`).join(",");
}

/** A selector for messages: `app=api,tier in (a,b)`. */
export function formatSelector(selector: LabelSelector | undefined): string {
    if (!selector) {
        return "(no selector)";
    }
    const parts = Object.keys(selector.matchLabels)
        .sort()
        .map((k) => `${k}=${selector.matchLabels[k]}`);
    for (const r of selector.matchExpressions) {
        parts.push(
            r.values.length > 0 ? `${r.key} ${r.operator} (${r.values.join(",")})` : `${r.operator === "Exists" ? "" : "!"}${r.key}`,
        );
    }
    return parts.length === 0 ? "(everything)" : parts.join(",");
}

/**
 * Selectors grouped by namespace so that finding the ones matching a label set costs the number
 * of labels plus the candidates, not the number of selectors: a selector with `matchLabels` is
 * filed under one of its pairs (any match must carry that pair); the others are scanned per namespace.
 */
export class SelectorIndex<T> {
    private readonly byPair = new Map<string, { selector: LabelSelector; item: T }[]>();
    private readonly scan = new Map<string, { selector: LabelSelector; item: T }[]>();

    add(namespace: string, selector: LabelSelector | undefined, item: T): void {
        if (!selector || selector.invalid) {
            return; // selects nothing
        }
        const keys = Object.keys(selector.matchLabels).sort();
        const bucketKey = keys.length > 0 ? pairKey(namespace, keys[0], selector.matchLabels[keys[0]]) : undefined;
        const map = bucketKey !== undefined ? this.byPair : this.scan;
        const key = bucketKey ?? namespace;
        const bucket = map.get(key);
        if (bucket) {
            bucket.push({ selector, item });
        } else {
            map.set(key, [{ selector, item }]);
        }
    }

    /** The items whose selector matches `labels` in `namespace`, in insertion order per bucket. */
    matching(namespace: string, labels: Readonly<Record<string, string>>): T[] {
        const out: T[] = [];
        const consider = (entries: { selector: LabelSelector; item: T }[] | undefined) => {
            for (const e of entries ?? []) {
                if (selectorMatches(e.selector, labels)) {
                    out.push(e.item);
                }
            }
        };
        for (const key of Object.keys(labels)) {
            consider(this.byPair.get(pairKey(namespace, key, labels[key])));
        }
        consider(this.scan.get(namespace));
        return out;
    }
}

function pairKey(namespace: string, key: string, value: string): string {
    // NUL cannot occur in namespaces, label keys or values.
    return `${namespace}\u0000${key}\u0000${value}`;
}
