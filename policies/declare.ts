/**
 * A policy declared once. Each module hands `declareResourcePolicy` or `declareStackPolicy` its
 * name, description, default level, knobs, docs text and validator, and gets back the object the
 * SDK runs: exactly `name`, `description`, `enforcementLevel`, `configSchema` (only when it has
 * knobs) and the validator, as a hand-written policy would have them. The validator receives its
 * config already read (schema defaults, then the environment's values, validated by the kernel's
 * `readConfig`), so no policy spells its own name twice. What the SDK never sees (the docs text)
 * stays beside the object, for `npm run docs` and the catalogue test to read with `declarationOf`.
 *
 * Declaring also registers: `policies.ts` loads the modules in the order the CLI reports them and
 * takes `declaredPolicies()`, so adding a policy is its module and one `export *` line there.
 */
import type {
    Policies,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidation,
    StackValidationArgs,
    StackValidationPolicy,
} from "@pulumi/policy";
import { readConfig } from "eks-platform-kernel";

type JsonSchema = PolicyConfigSchema["properties"][string];

/** A config knob: its JSON Schema, the default the CLI fills in, and the description it shows. */
export type Knob<T> = JsonSchema & { default: T; description: string };

/** One knob for every key of the config interface `C`, none for anything else. */
export type Knobs<C> = { [K in keyof C]-?: Knob<C[K]> };

/** What the docs tables say of a policy, besides what the schema and the environment files hold. */
export interface PolicyDocs<C = Record<string, unknown>> {
    /** README.md's "requires" column: the rule in one line. */
    requires: string;
    /** docs/policies.md's "checks" column: the rule in full, with its edge cases. */
    checks: string;
    /** docs/policies.md: a note after a knob's default and per-environment values (what a value means, when to change it). */
    knobs?: { [K in keyof C]?: string };
}

/** Enforcement levels a policy may declare as its default (the CLI's own default is advisory). */
export type DefaultLevel = "advisory" | "mandatory";

interface Declared<C> {
    /** kebab-case and stable: environment files and users' `--policy-pack-config` name it. */
    name: string;
    /** One sentence: the CLI prints it above every violation. */
    description: string;
    /** The level without a config file; each environment's is in the table policies/config/levels.ts. */
    enforcementLevel: DefaultLevel;
    docs: PolicyDocs<C>;
}

interface Configured<C extends object> {
    config: Knobs<C>;
    /** Rules across knobs (`min ≤ max`), as `<key>: <what is wrong>`; run after the schema's. */
    checkConfig?: (config: C) => string[];
}

/** A resource policy without knobs: its validator is the SDK's own (`validateResourceOfType` included). */
export interface ResourcePolicyDeclaration extends Declared<Record<never, never>> {
    validateResource: ResourceValidation;
}

/** A resource policy with knobs. */
export interface ConfiguredResourcePolicyDeclaration<C extends object, S> extends Declared<C>, Configured<C> {
    /**
     * What the policy judges in the resource, or `args.notApplicable(…)`. The config is read
     * after it, so a bad config fails on the resources the policy judges, not on every resource
     * of the stack.
     */
    select?: (args: ResourceValidationArgs) => S;
    validateResource: (args: ResourceValidationArgs, reportViolation: ReportViolation, config: C, selected: S) => Promise<void> | void;
}

/** A stack policy without knobs. */
export interface StackPolicyDeclaration extends Declared<Record<never, never>> {
    validateStack: StackValidation;
}

/** A stack policy with knobs. */
export interface ConfiguredStackPolicyDeclaration<C extends object> extends Declared<C>, Configured<C> {
    validateStack: (args: StackValidationArgs, reportViolation: ReportViolation, config: C) => Promise<void> | void;
}

/** A policy's declaration as the docs and the catalogue test read it back. */
export interface PolicyDeclaration {
    name: string;
    description: string;
    enforcementLevel: DefaultLevel;
    kind: "resource" | "stack";
    /** The knobs in schema order (empty for a policy without config). */
    knobs: Readonly<Record<string, Knob<unknown>>>;
    docs: PolicyDocs;
}

type DeclaredPolicy = ResourceValidationPolicy | StackValidationPolicy;

const declarations = new WeakMap<object, PolicyDeclaration>();
const registered: DeclaredPolicy[] = [];

function record<P extends DeclaredPolicy>(
    policy: P,
    kind: PolicyDeclaration["kind"],
    d: Declared<object>,
    knobs: PolicyDeclaration["knobs"] = {},
): P {
    declarations.set(policy, {
        name: d.name,
        description: d.description,
        enforcementLevel: d.enforcementLevel,
        kind,
        knobs,
        docs: d.docs,
    });
    registered.push(policy);
    return policy;
}

/** The schema the SDK receives, and the reader every validation starts with. */
function configOf<C extends object>(name: string, d: Configured<C>): { configSchema: PolicyConfigSchema; read: (given: object) => C } {
    const configSchema: PolicyConfigSchema = { properties: d.config };
    return { configSchema, read: (given) => readConfig<C>(name, configSchema, given, d.checkConfig) };
}

/** A resource policy; the validator runs once per resource, with the config read for it. */
export function declareResourcePolicy(d: ResourcePolicyDeclaration): ResourceValidationPolicy;
export function declareResourcePolicy<C extends object, S = undefined>(
    d: ConfiguredResourcePolicyDeclaration<C, S>,
): ResourceValidationPolicy;
export function declareResourcePolicy<C extends object, S>(
    d: ResourcePolicyDeclaration | ConfiguredResourcePolicyDeclaration<C, S>,
): ResourceValidationPolicy {
    const base = { name: d.name, description: d.description, enforcementLevel: d.enforcementLevel };
    if (!("config" in d)) {
        // Passed through as is: the SDK skips a `validateResourceOfType` validator by its type.
        return record({ ...base, validateResource: d.validateResource }, "resource", d);
    }
    const { configSchema, read } = configOf(d.name, d);
    const { select, validateResource } = d;
    return record(
        {
            ...base,
            configSchema,
            validateResource: (args, reportViolation) => {
                const selected = select ? select(args) : (undefined as S);
                return validateResource(args, reportViolation, read(args.getConfig()), selected);
            },
        },
        "resource",
        d,
        d.config,
    );
}

/** A stack policy; the validator runs once per stack, with the config read for it. */
export function declareStackPolicy(d: StackPolicyDeclaration): StackValidationPolicy;
export function declareStackPolicy<C extends object>(d: ConfiguredStackPolicyDeclaration<C>): StackValidationPolicy;
export function declareStackPolicy<C extends object>(
    d: StackPolicyDeclaration | ConfiguredStackPolicyDeclaration<C>,
): StackValidationPolicy {
    const base = { name: d.name, description: d.description, enforcementLevel: d.enforcementLevel };
    if (!("config" in d)) {
        return record({ ...base, validateStack: d.validateStack }, "stack", d);
    }
    const { configSchema, read } = configOf(d.name, d);
    const { validateStack } = d;
    return record(
        { ...base, configSchema, validateStack: (args, reportViolation) => validateStack(args, reportViolation, read(args.getConfig())) },
        "stack",
        d,
        d.config,
    );
}

/** The declaration behind a policy object, or `undefined` for one not made by the functions above. */
export function declarationOf(policy: object): PolicyDeclaration | undefined {
    return declarations.get(policy);
}

/** Every policy declared so far, in the order their modules loaded. */
export function declaredPolicies(): Policies {
    return [...registered];
}
