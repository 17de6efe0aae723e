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
 */
import * as path from "path";
import type { Policies, ResourceValidation, ResourceValidationArgs, ResourceValidationPolicy } from "@pulumi/policy";

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
    const memoized: DeserializeModule["deserializeProperties"] = (outputs, proxySecrets) =>
        deserialize({ toJavaScript: () => toJavaScript(outputs) }, proxySecrets);
    memoized[MEMOIZED] = true;
    mod.deserializeProperties = memoized;
    return true;
}

/** `args` whose `notApplicable` throws the SDK's own error, without capturing a stack for it. */
function stacklessArgs(args: ResourceValidationArgs): ResourceValidationArgs {
    return {
        ...args,
        notApplicable: (reason?: string): never => {
            const limit = Error.stackTraceLimit;
            Error.stackTraceLimit = 0;
            try {
                return args.notApplicable(reason);
            } finally {
                Error.stackTraceLimit = limit;
            }
        },
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
