/**
 * Policy config: the CLI fills in each `configSchema` default and validates the result before
 * the pack runs (`pulumi preview --policy-pack-config <file>`). The pack does the same itself, so
 * a policy behaves identically when run in-process (tests, the offline gate), and a bad value
 * fails with one error naming every bad key path, e.g. `workload-termination-grace.max`.
 */
import type { PolicyConfigSchema } from "@pulumi/policy";
import type { PolicyConfigJSONSchema } from "@pulumi/policy/schema";

/** Policy config that failed validation; `problems` holds one line per bad key. */
export class PolicyConfigError extends Error {
    constructor(
        readonly policy: string,
        readonly problems: string[],
    ) {
        super(
            `Invalid config for policy "${policy}" (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n` +
                problems.map((p) => `  - ${p}`).join("\n"),
        );
        this.name = "PolicyConfigError";
    }
}

function typeProblem(schema: PolicyConfigJSONSchema, value: unknown): string | undefined {
    const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
    const ok = (t: string): boolean => {
        switch (t) {
            case "integer":
                return typeof value === "number" && Number.isInteger(value);
            case "number":
                return typeof value === "number" && Number.isFinite(value);
            case "boolean":
                return typeof value === "boolean";
            case "string":
                return typeof value === "string";
            case "array":
                return Array.isArray(value);
            case "object":
                return value !== null && typeof value === "object" && !Array.isArray(value);
            case "null":
                return value === null;
            default:
                return false;
        }
    };
    if (types.length > 0 && !types.some(ok)) {
        return `must be ${types.map((t) => (t === "integer" ? "an integer" : t === "array" ? "an array" : `a ${t}`)).join(" or ")}, not ${JSON.stringify(value)}`;
    }
    if (schema.enum && !schema.enum.some((e) => e === value)) {
        return `must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`;
    }
    if (typeof value === "number") {
        if (schema.minimum !== undefined && value < schema.minimum) {
            return `must be ≥ ${schema.minimum}, not ${value}`;
        }
        if (schema.maximum !== undefined && value > schema.maximum) {
            return `must be ≤ ${schema.maximum}, not ${value}`;
        }
    }
    if (typeof value === "string" && schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) {
        return `must match ${schema.pattern}, not ${JSON.stringify(value)}`;
    }
    return undefined;
}

function validateValue(keyPath: string, schema: PolicyConfigJSONSchema, value: unknown, problems: string[]): void {
    const problem = typeProblem(schema, value);
    if (problem) {
        problems.push(`${keyPath}: ${problem}`);
        return;
    }
    if (Array.isArray(value) && schema.items && typeof schema.items === "object" && !Array.isArray(schema.items)) {
        const items = schema.items;
        value.forEach((item, i) => validateValue(`${keyPath}[${i}]`, items, item, problems));
    }
}

/** Problems of `given` against `schema` (unknown keys included: a typo must not silently keep a default). */
export function configProblems(policy: string, schema: PolicyConfigSchema, given: Record<string, unknown>): string[] {
    const problems: string[] = [];
    for (const key of Object.keys(given)) {
        const prop = schema.properties[key];
        if (prop === undefined) {
            problems.push(`${policy}.${key}: unknown key (known: ${Object.keys(schema.properties).join(", ") || "none"})`);
        } else if (typeof prop === "object") {
            validateValue(`${policy}.${key}`, prop, given[key], problems);
        }
    }
    for (const key of schema.required ?? []) {
        if (given[key] === undefined) {
            problems.push(`${policy}.${key}: required`);
        }
    }
    return problems;
}

/** The schema's defaults, as the CLI applies them. */
export function configDefaults(schema: PolicyConfigSchema): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, prop] of Object.entries(schema.properties)) {
        if (typeof prop === "object" && prop.default !== undefined) {
            out[key] = prop.default;
        }
    }
    return out;
}

/**
 * A policy's config: defaults, then what was given, validated. `check` adds rules that span
 * keys (e.g. `min ≤ max`). Throws `PolicyConfigError` listing every problem.
 */
export function readConfig<T extends object>(
    policy: string,
    schema: PolicyConfigSchema,
    given: object,
    check?: (config: T) => string[],
): T {
    const raw = { ...(given as Record<string, unknown>) };
    delete raw.enforcementLevel;
    const problems = configProblems(policy, schema, raw);
    const config = { ...configDefaults(schema), ...raw } as T;
    if (problems.length === 0 && check) {
        problems.push(...check(config).map((p) => `${policy}.${p}`));
    }
    if (problems.length > 0) {
        throw new PolicyConfigError(policy, problems);
    }
    return config;
}
