/**
 * zod issues as one line per bad key, saying what is wrong: the expected type and the value
 * received (quoted and cut short), "is required" for a missing key, the allowed values of an
 * enum (with the new name of a value Karpenter v1 renamed). zod 4 leaves the value out of an
 * issue unless parsing asks for it (`reportInput: true`), and its default messages ("Invalid
 * input") say neither. Pure.
 */
import type { z } from "zod";

/** Values older Karpenter APIs accepted and v1 renamed: the hint a refusal of the old name carries. */
export const RENAMED_VALUES: Readonly<Record<string, string>> = {
    // karpenter.sh/v1beta1 NodePool disruption.consolidationPolicy (Karpenter v1 upgrade guide).
    WhenUnderutilized: "WhenEmptyOrUnderutilized",
};

const NAMES: Record<string, string> = { array: "list", object: "map", record: "map", int: "whole number", nan: "number" };

/** How a value reads in a message: `string "two"`, `number 1.5`, `.inf`, `null`, `map`. */
export function describeValue(value: unknown): string {
    if (typeof value === "string") {
        const cut = value.length > 40 ? `${value.slice(0, 40)}…` : value;
        return `string ${JSON.stringify(cut)}`;
    }
    if (typeof value === "number") {
        if (Number.isNaN(value)) {
            return ".nan (not a number)";
        }
        if (!Number.isFinite(value)) {
            return `${value < 0 ? "-" : ""}.inf (infinity)`;
        }
        return `number ${value}`;
    }
    if (typeof value === "boolean") {
        return `boolean ${value}`;
    }
    if (value === null) {
        return "null";
    }
    if (Array.isArray(value)) {
        return "list";
    }
    return typeof value === "object" ? "map" : typeof value;
}

function literal(value: unknown): string {
    return typeof value === "string" ? JSON.stringify(value) : String(value);
}

function oneOf(values: readonly unknown[], given: unknown): string {
    const hint = typeof given === "string" && RENAMED_VALUES[given];
    const renamed = hint && values.includes(hint) ? ` (${given} was renamed ${hint} in Karpenter v1)` : "";
    return `must be one of ${values.map(literal).join(", ")}, not ${describeValue(given)}${renamed}`;
}

/** zod's own wording, which says less than the issue holds: replaced; a schema's custom message is kept. */
function isDefaultMessage(message: string): boolean {
    return /^(Invalid (input|option|discriminator value|string|element|key)|Too (small|big))/.test(message);
}

/** What is wrong with one value, without its key path. */
export function describeIssue(issue: z.core.$ZodIssue): string {
    // A discriminated union reports the whole object at the discriminator's path.
    const discriminator = issue.code === "invalid_union" && "discriminator" in issue ? String(issue.discriminator) : undefined;
    const input: unknown =
        discriminator !== undefined && issue.input !== null && typeof issue.input === "object"
            ? (issue.input as Record<string, unknown>)[discriminator]
            : issue.input;
    if (issue.code === "custom") {
        return issue.message;
    }
    if (input === undefined && (issue.code === "invalid_type" || issue.code === "invalid_union" || issue.code === "invalid_value")) {
        return "is required";
    }
    if (!isDefaultMessage(issue.message)) {
        return issue.message;
    }
    switch (issue.code) {
        case "invalid_type":
            return `expected ${NAMES[issue.expected] ?? issue.expected}, received ${describeValue(input)}`;
        case "invalid_value":
            return oneOf(issue.values, input);
        case "invalid_union": {
            if (discriminator !== undefined) {
                return oneOf((issue as { options?: unknown[] }).options ?? [], input);
            }
            const expected = issue.errors
                .map((alternative) => alternative.find((i) => i.code === "invalid_type" && i.path.length === 0))
                .map((i) => (i?.code === "invalid_type" ? (NAMES[i.expected] ?? i.expected) : undefined));
            return expected.every((e) => e !== undefined)
                ? `expected ${expected.join(" or ")}, received ${describeValue(input)}`
                : `${issue.message}: received ${describeValue(input)}`;
        }
        case "too_small":
        case "too_big": {
            const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
            const sign = issue.code === "too_small" ? (issue.inclusive ? "≥" : ">") : issue.inclusive ? "≤" : "<";
            const what = issue.origin === "array" ? " items" : issue.origin === "string" ? " characters" : "";
            const length = Array.isArray(input) || typeof input === "string" ? input.length : undefined;
            return `must be ${sign} ${String(bound)}${what}, not ${length !== undefined ? `${length}${what}` : describeValue(input)}`;
        }
        default:
            return `${issue.message}: received ${describeValue(input)}`;
    }
}
