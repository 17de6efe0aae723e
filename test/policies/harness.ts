/**
 * Runs policies the way the analyzer in `@pulumi/policy` (server.js) does, without a gRPC
 * server: properties wrapped in the SDK's own `unknownCheckingProxy`, args with `stackTags`,
 * `notApplicable`, `getConfig` (schema defaults, then the given config, as the CLI reconciles
 * them), the single-type fast path of `validateResourceOfType`, and the same handling of
 * unknown values (advisory "can't run") and not-applicable verdicts.
 */
import type {
    PolicyResource,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
} from "@pulumi/policy";
import { configDefaults, INPUT_TAG, MANIFEST_INPUT, UNKNOWN_SENTINELS } from "eks-platform-kernel";
import { isUndecided, isUnknownValueError, unknownCheckingProxy } from "eks-platform-evaluation";
import { readOnly } from "../../tools/gate/inProcessPack";

/** The engine's unknown sentinels (`@pulumi/policy` proxy.js). */
export const UNKNOWN = UNKNOWN_SENTINELS;

export interface TestResource {
    type: string;
    name: string;
    props: Record<string, unknown>;
}

export interface Outcome {
    violations: { message: string; urn?: string }[];
    /** Undecided verdicts (advisory diagnostics built by `undecided`): neither a pass nor a violation. */
    undecided: { message: string; urn?: string }[];
    /** The reason given to `notApplicable`, when the policy declared itself not applicable. */
    notApplicable?: string;
    /** The analyzer's advisory "can't run … during preview" message, when a value was unknown. */
    cantRun?: string;
}

class NotApplicableError extends Error {
    constructor(readonly reason?: string) {
        super(reason ?? "Policy does not apply");
    }
}

const emptyTags: ReadonlyMap<string, string> = Object.freeze(new Map<string, string>());

export function urnOf(r: TestResource): string {
    return `urn:pulumi:test::eks-platform::${r.type}::${r.name}`;
}

function typeOf(cls: unknown): string | undefined {
    const t = (cls as { __pulumiType?: unknown } | undefined)?.__pulumiType;
    return typeof t === "string" && t.length > 0 ? t : undefined;
}

function getConfigFor(policy: ResourceValidationPolicy | StackValidationPolicy, config: object) {
    const merged = { ...(policy.configSchema ? configDefaults(policy.configSchema) : {}), ...config };
    return <T extends object>() => merged as T;
}

function settle(policy: { name: string }, err: unknown, outcome: Outcome): void {
    if (isUnknownValueError(err)) {
        outcome.cantRun = `can't run policy '${policy.name}' from policy pack 'eks-platform@v0.1.0' during preview: ${err.message}`;
    } else if (err instanceof NotApplicableError) {
        outcome.notApplicable = err.reason ?? "Policy does not apply";
    } else {
        throw err;
    }
}

/**
 * `reportViolation` as the analyzer's `makeReportViolationFun` builds it: a message string, or a
 * diagnostic object with its own message, URN and enforcement level. Undecided verdicts (advisory
 * objects built by `undecided`) go to `outcome.undecided`, everything else to `violations`.
 */
function reporter(outcome: Outcome, defaultUrn?: string) {
    return (message: unknown, urn?: string): void => {
        if (message !== null && typeof message === "object") {
            const d = message as { message: string; urn?: string; enforcementLevel?: string };
            const entry = { message: d.message, ...(d.urn ? { urn: d.urn } : defaultUrn ? { urn: defaultUrn } : {}) };
            (d.enforcementLevel === "advisory" && isUndecided(d.message) ? outcome.undecided : outcome.violations).push(entry);
            return;
        }
        const u = urn ?? defaultUrn;
        outcome.violations.push({ message: message as string, ...(u ? { urn: u } : {}) });
    };
}

/**
 * Copies props (the engine deserializes a fresh object per call), read-only as `policy:check` gives
 * them (tools/gate/inProcessPack.ts), so a policy that writes to its input fails here first.
 */
function fresh(props: Record<string, unknown>): Record<string, unknown> {
    const copy = JSON.parse(JSON.stringify(props)) as Record<string, unknown>;
    readOnly(copy);
    return copy;
}

/** Runs a resource policy on one resource. */
export async function runResource(policy: ResourceValidationPolicy, resource: TestResource, config: object = {}): Promise<Outcome> {
    const outcome: Outcome = { violations: [], undecided: [] };
    const validations = Array.isArray(policy.validateResource)
        ? policy.validateResource
        : policy.validateResource
          ? [policy.validateResource]
          : [];
    if (!Array.isArray(policy.validateResource)) {
        const only = typeOf(policy.validateResource);
        if (only && only !== resource.type) {
            outcome.notApplicable = `Policy only applies to resources of type '${only}'`;
            return outcome;
        }
    }
    const urn = urnOf(resource);
    for (const validate of validations) {
        try {
            const props = unknownCheckingProxy(fresh(resource.props));
            const args: ResourceValidationArgs = {
                type: resource.type,
                props,
                urn,
                name: resource.name,
                opts: {
                    protect: false,
                    ignoreChanges: [],
                    aliases: [],
                    customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 },
                    additionalSecretOutputs: [],
                },
                stackTags: emptyTags,
                isType: (cls) => typeOf(cls) === resource.type,
                asType: ((cls: unknown) => (typeOf(cls) === resource.type ? props : undefined)) as ResourceValidationArgs["asType"],
                getConfig: getConfigFor(policy, config),
                notApplicable: (reason?: string): never => {
                    throw new NotApplicableError(reason);
                },
            };
            await Promise.resolve(validate(args, reporter(outcome, urn)));
        } catch (err) {
            settle(policy, err, outcome);
        }
    }
    return outcome;
}

/** Counts the property reads of a resource's properties, at any depth (a measure of the work a policy does, not of time). */
export interface ReadCounter {
    count: number;
}

/** `value` with every property read, at any depth, counted in `counter`. */
function counting<T>(value: T, counter: ReadCounter): T {
    if (value === null || typeof value !== "object") {
        return value;
    }
    return new Proxy(value, {
        get(target, key, receiver) {
            counter.count++;
            return counting(Reflect.get(target, key, receiver) as unknown, counter);
        },
    });
}

/** Runs a stack policy on a set of resources; with `reads`, every read of their properties is counted there. */
export async function runStack(
    policy: StackValidationPolicy,
    resources: readonly TestResource[],
    config: object = {},
    stackTags: ReadonlyMap<string, string> = emptyTags,
    reads?: ReadCounter,
): Promise<Outcome> {
    const outcome: Outcome = { violations: [], undecided: [] };
    try {
        const policyResources: PolicyResource[] = resources.map((r) => {
            const copy = fresh(r.props);
            const props = unknownCheckingProxy(reads ? counting(copy, reads) : copy);
            return {
                type: r.type,
                props,
                urn: urnOf(r),
                name: r.name,
                opts: {
                    protect: false,
                    ignoreChanges: [],
                    aliases: [],
                    customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 },
                    additionalSecretOutputs: [],
                },
                dependencies: [],
                propertyDependencies: {},
                isType: (cls) => typeOf(cls) === r.type,
                asType: ((cls: unknown) => (typeOf(cls) === r.type ? props : undefined)) as PolicyResource["asType"],
            };
        });
        const args: StackValidationArgs = {
            resources: policyResources,
            stackTags,
            getConfig: getConfigFor(policy, config),
            notApplicable: (reason?: string): never => {
                throw new NotApplicableError(reason);
            },
        };
        await Promise.resolve(policy.validateStack(args, reporter(outcome)));
    } catch (err) {
        settle(policy, err, outcome);
    }
    return outcome;
}

/** The stack tags the manifest gate sends: the input is plain manifests. */
export const MANIFEST_TAGS: ReadonlyMap<string, string> = new Map([[INPUT_TAG, MANIFEST_INPUT]]);

/** A deep copy of `obj` with the value at a dotted path (`spec.containers.0.name`) replaced; `undefined` deletes it. */
export function withField<T extends object>(obj: T, dotted: string, value: unknown): T {
    const copy = JSON.parse(JSON.stringify(obj)) as Record<string, unknown>;
    const keys = dotted.split(".");
    let node: Record<string, unknown> = copy;
    for (const key of keys.slice(0, -1)) {
        if (node[key] === undefined || node[key] === null || typeof node[key] !== "object") {
            node[key] = {};
        }
        node = node[key] as Record<string, unknown>;
    }
    const last = keys[keys.length - 1];
    if (value === undefined) {
        delete node[last];
    } else {
        node[last] = value;
    }
    return copy as T;
}

/** A resource with one prop changed. */
export function changed(r: TestResource, dotted: string, value: unknown): TestResource {
    return { ...r, props: withField(r.props, dotted, value) };
}
