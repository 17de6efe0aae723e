/**
 * Defensive readers for resource properties. Policies judge any program in the organisation, so
 * a property may hold anything: these never throw on odd shapes (only the SDK's unknown-value
 * proxy may throw, and callers route that through `Verdicts`).
 */

export type Rec = Record<string, unknown>;

/** The value if it is a plain object (not an array), else `undefined`. */
export function asRecord(value: unknown): Rec | undefined {
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Rec) : undefined;
}

/** What a value is, for messages about values of the wrong type: `a list`, `the string "x"`, `number 1`, `a map`. */
export function describeShape(value: unknown): string {
    if (value === undefined) {
        return "missing";
    }
    if (typeof value === "string") {
        return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    }
    if (Array.isArray(value)) {
        return "a list";
    }
    if (value === null) {
        return "null";
    }
    if (typeof value === "number" || typeof value === "boolean") {
        return `${typeof value} ${value}`;
    }
    return "a map";
}

/** The value if it is an array, else an empty array. */
export function asArray(value: unknown): unknown[] {
    if (!Array.isArray(value)) {
        return [];
    }
    // Index access instead of iterators: the SDK's proxy wraps every property, methods included.
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
        out.push(value[i]);
    }
    return out;
}

/** The value if it is a string, else `undefined`. */
export function asString(value: unknown): string | undefined {
    return typeof value === "string" ? value : undefined;
}

/** The value if it is a finite number, else `undefined`. */
export function asNumber(value: unknown): number | undefined {
    return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A number, or a string holding only a decimal number (the AWS provider types many as strings). */
export function asNumeric(value: unknown): number | undefined {
    if (typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) {
        return Number(value);
    }
    return asNumber(value);
}

/** True for `true` and for the string `"true"` (the AWS provider types some booleans as strings). */
export function isTrue(value: unknown): boolean {
    return value === true || (typeof value === "string" && value.trim().toLowerCase() === "true");
}

/** True for `false` and for the string `"false"`. */
export function isFalse(value: unknown): boolean {
    return value === false || (typeof value === "string" && value.trim().toLowerCase() === "false");
}

/** Own property `key` of `obj`, or `undefined`. Goes through the SDK proxy (unknown values throw). */
export function field(obj: unknown, key: string): unknown {
    const rec = asRecord(obj);
    return rec !== undefined && Object.prototype.hasOwnProperty.call(rec, key) ? rec[key] : undefined;
}

/** Follows a path of own properties; `undefined` as soon as a step is missing or not an object. */
export function path(obj: unknown, ...keys: string[]): unknown {
    let current = obj;
    for (const key of keys) {
        current = field(current, key);
        if (current === undefined) {
            return undefined;
        }
    }
    return current;
}

/**
 * True when `obj` has own property `key`, without reading its value: presence of a value the
 * engine only knows after apply (a KMS key ARN) is still known at preview.
 */
export function has(obj: unknown, key: string): boolean {
    const rec = asRecord(obj);
    return rec !== undefined && Object.prototype.hasOwnProperty.call(rec, key);
}

/** A string-to-string map (labels, tags, selectors), dropping non-string values. */
export function stringMap(value: unknown): Record<string, string> {
    const rec = asRecord(value);
    const out: Record<string, string> = {};
    if (!rec) {
        return out;
    }
    for (const key of Object.keys(rec)) {
        const v = rec[key];
        if (typeof v === "string") {
            out[key] = v;
        }
    }
    return out;
}

/** The own keys of an object (never reads values, so unknown values do not throw). */
export function keysOf(value: unknown): string[] {
    const rec = asRecord(value);
    return rec ? Object.keys(rec) : [];
}

/**
 * Own property `key` read past the SDK's proxy (a property descriptor is not intercepted): the
 * raw value, which may be an unknown sentinel. For decisions that need only "is it set", such
 * as a KMS key ARN or a role ARN that only exists after apply.
 */
export function peek(obj: unknown, key: string): unknown {
    const rec = asRecord(obj);
    if (!rec) {
        return undefined;
    }
    const descriptor = Object.getOwnPropertyDescriptor(rec, key);
    return descriptor && "value" in descriptor ? (descriptor.value as unknown) : undefined;
}
