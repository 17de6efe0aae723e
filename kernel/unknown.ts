/**
 * The engine's markers for values unknown at preview, as `@pulumi/policy` 1.21 (proxy.js) and
 * the engine's gRPC marshalling write them. The offline plan prints `UNKNOWN` where a real
 * preview would not know a value yet; the policy SDK turns each marker into an
 * `UnknownValueError` when a policy reads it. Pure; shared by the program's tools, the pack and
 * the tests.
 */
import { types } from "util";
import { specialSigKey } from "@pulumi/pulumi/runtime/rpc";

/** One sentinel per kind of value, keyed as the SDK names them. */
export const UNKNOWN_SENTINELS = {
    string: "04da6b54-80e4-46f7-96ec-b56ff0331ba9",
    number: "3eeb2bf0-c639-47a8-9e75-3b44932eb421",
    boolean: "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7",
    array: "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2",
    asset: "030794c1-ac77-496b-92df-f27374a8bd58",
    archive: "e48ece36-62e2-4504-bad9-02848725956a",
    object: "dd056dcd-154b-4c76-9bd3-c8f88648b5ff",
} as const;

/** The marker of a value unknown at preview: what the engine sends for a computed string (an id, an ARN). */
export const UNKNOWN = UNKNOWN_SENTINELS.string;

const ALL = new Set<unknown>(Object.values(UNKNOWN_SENTINELS));

/** True for one of the engine's unknown-at-preview sentinels. */
export function isUnknownSentinel(value: unknown): boolean {
    return typeof value === "string" && ALL.has(value);
}

/**
 * True when `value` is plain data (what a policy may be given as it is, without the SDK's
 * unknown-checking proxy: no read of it can throw, and every read gives the same value) with no unknown sentinel: objects whose prototype is
 * `Object.prototype` or none, arrays, and primitives, down to the leaves, and no object carrying
 * the SDK's signature key (`specialSigKey`, @pulumi/pulumi runtime/rpc.js: what deserialize.js
 * turns into an asset, an archive or a secret's value). Iterative, so no depth overflows it.
 */
export function isPlainAndKnown(value: unknown): boolean {
    const pending: unknown[] = [value];
    const seen = new Set<object>();
    while (pending.length > 0) {
        const v = pending.pop();
        if (typeof v !== "object" || v === null) {
            if (typeof v === "function" || typeof v === "symbol" || isUnknownSentinel(v)) {
                return false;
            }
            continue;
        }
        if (seen.has(v)) {
            continue;
        }
        seen.add(v);
        const proto = Object.getPrototypeOf(v) as unknown;
        if (Array.isArray(v) ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) {
            return false;
        }
        if (types.isProxy(v) || Object.getOwnPropertySymbols(v).length > 0 || Object.prototype.hasOwnProperty.call(v, specialSigKey)) {
            return false;
        }
        for (const key of Object.getOwnPropertyNames(v)) {
            const d = Object.getOwnPropertyDescriptor(v, key) as PropertyDescriptor;
            if (!("value" in d)) {
                return false; // an accessor: reading it runs code
            }
            pending.push(d.value);
        }
    }
    return true;
}
