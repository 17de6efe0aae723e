/**
 * Kubernetes label selectors (metav1.LabelSelector) and an index that finds the selectors that
 * may match a label set without comparing every pair. Pure; never throws.
 */
import { asArray, asRecord, asString, stringMap } from "./values";

export type Operator = "In" | "NotIn" | "Exists" | "DoesNotExist";

export interface Requirement {
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

/**
 * Reads a `LabelSelector` from resource properties. `undefined` for a missing (null) selector,
 * which selects nothing; `{}` selects everything.
 */
export function readSelector(value: unknown): LabelSelector | undefined {
    const rec = asRecord(value);
    if (!rec) {
        return undefined;
    }
    const selector: LabelSelector = { matchLabels: stringMap(rec.matchLabels), matchExpressions: [] };
    for (const raw of asArray(rec.matchExpressions)) {
        const expr = asRecord(raw);
        const key = asString(expr?.key);
        const operator = asString(expr?.operator);
        const values = asArray(expr?.values).filter((v): v is string => typeof v === "string");
        if (!key || !operator || !OPERATORS.has(operator)) {
            selector.invalid = `matchExpressions entry ${JSON.stringify({ key, operator })} has no key or an unknown operator`;
            continue;
        }
        selector.matchExpressions.push({ key, operator: operator as Operator, values });
    }
    return selector;
}

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
