/**
 * What the pack's process changes about how `@pulumi/policy` (1.21.0, server.js) runs its
 * policies, for speed only: every verdict stays the SDK's own.
 *
 * 1. One protobuf conversion per resource instead of one per policy. The SDK reads a resource's
 *    properties with `deserializeProperties` (deserialize.js) once for every resource policy in
 *    `Analyze` and once for every stack policy per resource in `AnalyzeStack`: with 19 policies,
 *    each object is converted up to 17 times. The costly half is `Struct.toJavaScript`
 *    (google-protobuf walking its maps). That half is pure: a request is never changed after it
 *    arrives, and the SDK's own `deserializeProperty` then copies every object and array it reads,
 *    so each policy still gets properties of its own. The plain value is kept per `Struct` message
 *    in a WeakMap, so nothing outlives its request.
 * 2. No stack trace for "not applicable". A resource policy that does not apply to a resource
 *    says so through `args.notApplicable`, which throws an error the SDK catches and keeps only
 *    the reason of; capturing that error's stack for every resource and policy cost more than
 *    the checks on a large manifest set.
 * 3. No unknown-checking proxy over properties that hold no unknown value. The SDK hands every
 *    policy a resource's properties wrapped in `unknownCheckingProxy` (proxy.js), whose `get`
 *    builds a new proxy and a new path array for every object it returns, and throws an
 *    `UnknownValueError` only when the value read is one of the engine's unknown sentinels. When
 *    the wrapped value is plain data (objects and arrays down to primitives) with no sentinel
 *    anywhere, no read can throw and every read gives the same value, so the policy is given the
 *    value itself. Properties with a sentinel, or holding anything but plain data (an asset, a
 *    secret), keep the proxy. At 10,000 workloads the proxies and their garbage were about a
 *    third of AnalyzeStack (docs/benchmarks.md).
 */
import * as path from "path";
import { types } from "util";
import type {
    Policies,
    PolicyResource,
    ResourceValidation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidation,
    StackValidationPolicy,
} from "@pulumi/policy";
import { isPlainAndKnown, withoutStackTrace } from "eks-platform-kernel";

/**
 * Each dependency whose internals this repository reaches into: the release the reaches were read
 * in and are tested against, and the variable that, set to `1`, runs its stock path whatever the
 * release (how the tests compare the two paths). On any other release the stock path runs:
 * Renovate bumping a dependency never runs a reach unverified. Bumping a release here means
 * reading the reaches again in the new one and running their equivalence tests.
 */
export const VERIFIED_RELEASES = {
    // server.js, deserialize.js, proxy.js: this module's reaches (`runtimePolicies`), and the pack
    // run in the tools' own process (tools/gate/inProcessPack.ts), whose stock path is the pack's own process.
    "@pulumi/policy": { release: "1.21.0", stockVariable: "EKS_PLATFORM_STOCK_POLICY_SDK" },
} as const;

/** A dependency whose internals are reached into (`VERIFIED_RELEASES`). */
export type VerifiedDependency = keyof typeof VERIFIED_RELEASES;

/** The installed release of `dependency`, as its package.json gives it (without a leading `v`). */
export function installedRelease(dependency: VerifiedDependency): string {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { version } = require(`${dependency}/package.json`) as { version: string };
    return version.replace(/^v/, "");
}

/** Whether the reaches into `dependency`'s internals may run: on the release they were verified on, unless its stock path is asked for. */
export function internalsVerified(
    dependency: VerifiedDependency,
    installed: string = installedRelease(dependency),
    env: NodeJS.ProcessEnv = process.env,
): boolean {
    const { release, stockVariable } = VERIFIED_RELEASES[dependency];
    return installed === release && env[stockVariable] !== "1";
}

/**
 * The policies as the pack serves them: "not applicable" without a stack trace always (public
 * API only), and, on the verified SDK release only, one conversion per resource and properties
 * without the proxy where it could never throw. Returns whether the SDK's internals are used.
 */
export function runtimePolicies(
    policies: Policies,
    version: string = installedRelease("@pulumi/policy"),
): { policies: Policies; internals: boolean } {
    const stackless = withStacklessNotApplicable(policies);
    if (!internalsVerified("@pulumi/policy", version)) {
        return { policies: stackless, internals: false };
    }
    memoizeStructConversion();
    return { policies: withKnownProperties(stackless), internals: true };
}

interface StructLike {
    toJavaScript(): Record<string, unknown>;
}
type Deserialize = (outputs: StructLike, proxySecrets: boolean) => Record<string, unknown>;
export interface DeserializeModule {
    deserializeProperties: Deserialize & { [MEMOIZED]?: true };
}

const MEMOIZED = Symbol.for("eks-platform-policies.structMemo");

/** The SDK's deserialize module, the very one its server calls (`deserialize_1.deserializeProperties`). */
function sdkDeserializeModule(): DeserializeModule {
    const sdk = path.dirname(require.resolve("@pulumi/policy"));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(path.join(sdk, "deserialize.js")) as DeserializeModule;
}

/**
 * Makes the SDK convert each properties `Struct` once. Idempotent: returns false when it was
 * already installed.
 */
export function memoizeStructConversion(mod: DeserializeModule = sdkDeserializeModule()): boolean {
    const deserialize = mod.deserializeProperties;
    if (deserialize[MEMOIZED]) {
        return false;
    }
    const plain = new WeakMap<StructLike, Record<string, unknown>>();
    const toJavaScript = (struct: StructLike): Record<string, unknown> => {
        let value = plain.get(struct);
        if (value === undefined) {
            value = struct.toJavaScript();
            plain.set(struct, value);
        }
        return value;
    };
    // Whether each Struct's value is plain and known (3. below), walked once for all its copies.
    const known = new WeakMap<StructLike, boolean>();
    const memoized: DeserializeModule["deserializeProperties"] = (outputs, proxySecrets) => {
        const copy = deserialize({ toJavaScript: () => toJavaScript(outputs) }, proxySecrets);
        if (!proxySecrets) {
            let plainValue = known.get(outputs);
            if (plainValue === undefined) {
                plainValue = isPlainAndKnown(toJavaScript(outputs));
                known.set(outputs, plainValue);
            }
            if (plainValue) {
                // Without a signature, the SDK's copy is the same members in new objects and arrays.
                verdictOf.set(copy, true);
            }
        }
        return copy;
    };
    memoized[MEMOIZED] = true;
    mod.deserializeProperties = memoized;
    return true;
}

/** What the SDK's proxy (proxy.js) returns for this key: the value it wraps. */
const PROXY_TARGET = "__getSpecialProxyTarget";

const verdictOf = new WeakMap<object, boolean>();

/**
 * The value behind the SDK's proxy when it is plain and holds no unknown (see 3. above), else
 * `props` as given. Each wrapped value is walked once, however many policies read it.
 */
export function knownProperties<T>(props: T): T {
    if (typeof props !== "object" || props === null || !types.isProxy(props)) {
        return props;
    }
    const target = (props as Record<string, unknown>)[PROXY_TARGET];
    if (typeof target !== "object" || target === null) {
        return props;
    }
    let plain = verdictOf.get(target);
    if (plain === undefined) {
        plain = isPlainAndKnown(target);
        verdictOf.set(target, plain);
    }
    return plain ? (target as T) : props;
}

/** `args` whose `notApplicable` throws the SDK's own error, without capturing a stack for it. */
function stacklessArgs(args: ResourceValidationArgs): ResourceValidationArgs {
    return {
        ...args,
        notApplicable: (reason?: string): never => withoutStackTrace(() => args.notApplicable(reason)),
    };
}

function stackless(validate: ResourceValidation): ResourceValidation {
    // A validator bound to one type (validateResourceOfType) is skipped by the SDK before it runs.
    if ((validate as { __pulumiType?: string }).__pulumiType) {
        return validate;
    }
    return (args, reportViolation) => validate(stacklessArgs(args), reportViolation);
}

/** The policies, with resource validators whose "not applicable" captures no stack. */
export function withStacklessNotApplicable(policies: Policies): Policies {
    return policies.map((p) => {
        const validate = (p as ResourceValidationPolicy).validateResource;
        if (!validate) {
            return p;
        }
        return {
            ...p,
            validateResource: Array.isArray(validate) ? validate.map((v) => stackless(v)) : stackless(validate),
        };
    });
}

/** A resource validator given the value behind the proxy (3. above); one bound to a type stays bound to it. */
function knownResource(validate: ResourceValidation): ResourceValidation {
    const wrapped: ResourceValidation = (args, reportViolation) =>
        validate({ ...args, props: knownProperties(args.props) }, reportViolation);
    return Object.assign(wrapped, pick(validate));
}

/**
 * A stack validator whose resources hold the value behind the proxy (3. above). The SDK builds
 * these resources for this one call (their `parent` and `dependencies` point at each other), so
 * each is given its value in place.
 */
function knownStack(validate: StackValidation): StackValidation {
    const wrapped: StackValidation = (args, reportViolation) => {
        for (const r of args.resources) {
            (r as { props: PolicyResource["props"] }).props = knownProperties(r.props);
        }
        return validate(args, reportViolation);
    };
    return Object.assign(wrapped, pick(validate));
}

/** The SDK's mark of a validator bound to one type (policy.js `getPulumiType`), when it has one. */
function pick(validate: object): { __pulumiType?: string } {
    const type = (validate as { __pulumiType?: unknown }).__pulumiType;
    return typeof type === "string" ? { __pulumiType: type } : {};
}

/** The policies, their validators given properties without the SDK's proxy where it could never throw. */
export function withKnownProperties(policies: Policies): Policies {
    return policies.map((p) => {
        const resource = (p as ResourceValidationPolicy).validateResource;
        if (resource) {
            return { ...p, validateResource: Array.isArray(resource) ? resource.map((v) => knownResource(v)) : knownResource(resource) };
        }
        const stack = (p as StackValidationPolicy).validateStack;
        return stack ? { ...p, validateStack: knownStack(stack) } : p;
    });
}
