/**
 * Policy config, read once for everyone: the CLI fills in each `configSchema` default and
 * validates the result with a JSON Schema validator before the pack runs (`pulumi preview
 * --policy-pack-config <file>`); the offline gate does the same for the CLI, and every policy
 * does it again for itself, so it behaves identically when run in-process (tests). One Ajv-based
 * reader serves all three, and a bad value fails with one error naming every bad key path,
 * e.g. `workload-termination-grace.max`.
 */
import type { default as Ajv, ErrorObject, ValidateFunction } from "ajv";
import { problemList } from "./messages";

/** The part of a policy's `configSchema` (`@pulumi/policy` PolicyConfigSchema) the reader needs. */
interface ConfigSchemaLike {
    properties?: Readonly<Record<string, unknown>>;
    required?: readonly string[];
}

/** Policy config that failed validation; `problems` holds one line per bad key. */
export class PolicyConfigError extends Error {
    constructor(
        readonly policy: string,
        readonly problems: string[],
    ) {
        super(problemList(`Invalid config for policy "${policy}"`, problems));
        this.name = "PolicyConfigError";
    }
}

let ajv: Ajv | undefined;
// Policies read their config on every resource: compile each schema once. By object first (no
// cost per read), then by content: the gate reaches a policy's schema through the pack's
// GetAnalyzerInfo answer (a protobuf Struct, keys sorted) and the policy through its own object,
// and every policy without knobs has an empty one.
const compiled = new WeakMap<object, ValidateFunction>();
const compiledText = new Map<string, ValidateFunction>();

/** JSON with every object's keys sorted: one text for one schema, whatever order it was built in. */
function sortedJson(value: unknown): string {
    return JSON.stringify(value, (_key, v: unknown) =>
        v !== null && typeof v === "object" && !Array.isArray(v)
            ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
            : v,
    );
}

// `strict: false`: a schema written for the CLI may carry keywords Ajv does not know (the CLI's
// validator ignores them too). `verbose` keeps the offending value for the message.
export const AJV_OPTIONS = { allErrors: true, strict: false, verbose: true } as const;

/** Ajv's validator of a schema (`text`, sorted JSON), compiled under `AJV_OPTIONS`. */
export function compileValidator(text: string): ValidateFunction {
    // Loaded on first use: the program imports this library for its other rules, and Ajv would
    // add a few hundred milliseconds to every plan that never reads a policy config.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    ajv ??= new (require("ajv") as typeof import("ajv")).default(AJV_OPTIONS);
    // The sorted form, whichever object came first: problems are listed in one order (by key)
    // from the gate and from the policy alike.
    return ajv.compile(JSON.parse(text) as object);
}

/** Where a schema's validator comes from the first time this process needs it (`setValidatorSource`). */
type ValidatorSource = (text: string) => ValidateFunction;

let validatorSource: ValidatorSource = compileValidator;

/**
 * Gives this process's validators another source than compiling each schema here: the tools keep
 * Ajv's compiled code between runs (tools/gate/validatorCache.ts). Whatever the source, a
 * schema's validator must be Ajv's for that schema under `AJV_OPTIONS`.
 */
export function setValidatorSource(source: ValidatorSource): void {
    validatorSource = source;
}

function validatorOf(schema: ConfigSchemaLike): ValidateFunction {
    let validate = compiled.get(schema);
    if (!validate) {
        const text = sortedJson({
            type: "object",
            properties: schema.properties ?? {},
            // A misspelt knob would otherwise silently keep its default.
            additionalProperties: false,
            ...(schema.required?.length ? { required: [...schema.required] } : {}),
        });
        validate = compiledText.get(text);
        if (!validate) {
            validate = validatorSource(text);
            compiledText.set(text, validate);
        }
        compiled.set(schema, validate);
    }
    return validate;
}

function show(value: unknown): string {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function article(type: string): string {
    return type === "integer" || type === "array" || type === "object" ? `an ${type}` : `a ${type}`;
}

/** `/list/0/name` → `.list[0].name`. */
function keyPath(instancePath: string): string {
    return instancePath
        .split("/")
        .slice(1)
        .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
        .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
        .join("");
}

function describe(policy: string, e: ErrorObject, known: string[]): string {
    const where = `${policy}${keyPath(e.instancePath)}`;
    const params = e.params as Record<string, unknown>;
    switch (e.keyword) {
        case "additionalProperties":
            return `${where}.${String(params.additionalProperty)}: unknown key (known: ${known.join(", ") || "none"})`;
        case "required":
            return `${where}.${String(params.missingProperty)}: is required`;
        case "type": {
            const types = ([] as unknown[]).concat(params.type).map(String);
            return `${where}: must be ${types.map(article).join(" or ")}, not ${show(e.data)}`;
        }
        case "enum":
            return `${where}: must be one of ${(params.allowedValues as unknown[]).map(show).join(", ")}, not ${show(e.data)}`;
        case "minimum":
        case "maximum":
        case "exclusiveMinimum":
        case "exclusiveMaximum":
            return `${where}: must be ${String(params.comparison).replace(">=", "≥").replace("<=", "≤")} ${String(params.limit)}, not ${show(e.data)}`;
        case "pattern":
            return `${where}: must match ${String(params.pattern)}, not ${show(e.data)}`;
        default:
            return `${where}: ${e.message ?? "is invalid"}`;
    }
}

/**
 * Problems of `given` (a policy's config properties) against its schema, one line per bad key,
 * each starting `<policy>.<key>`: wrong types, values out of range, unknown keys (a typo must not
 * silently keep a default) and missing required keys.
 */
export function configProblems(policy: string, schema: ConfigSchemaLike, given: Readonly<Record<string, unknown>>): string[] {
    const validate = validatorOf(schema);
    if (validate(given)) {
        return [];
    }
    const known = Object.keys(schema.properties ?? {});
    return (validate.errors ?? []).map((e) => describe(policy, e, known));
}

/** The schema's defaults, as the CLI applies them. */
export function configDefaults(schema: ConfigSchemaLike): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, prop] of Object.entries(schema.properties ?? {})) {
        if (prop !== null && typeof prop === "object" && "default" in prop && prop.default !== undefined) {
            out[key] = prop.default;
        }
    }
    return out;
}

/**
 * A policy's config: defaults, then what was given, validated. `check` adds rules that span
 * keys (e.g. `min ≤ max`). Throws `PolicyConfigError` listing every problem.
 */
export function readConfig<T extends object>(policy: string, schema: ConfigSchemaLike, given: object, check?: (config: T) => string[]): T {
    const raw = { ...(given as Record<string, unknown>) };
    delete raw.enforcementLevel;
    const config = { ...configDefaults(schema), ...raw };
    const problems = configProblems(policy, schema, config);
    if (problems.length === 0 && check) {
        problems.push(...check(config as T).map((p) => `${policy}.${p}`));
    }
    if (problems.length > 0) {
        throw new PolicyConfigError(policy, problems);
    }
    return config as T;
}
