/**
 * The parts of `@pulumi/policy` its type declarations leave out. The SDK wraps every resource's
 * properties in `unknownCheckingProxy`: reading a value that is unknown at preview throws an
 * `UnknownValueError`, which the analyzer turns into an advisory "can't run policy during
 * preview". Both are exported at runtime (index.js) but declared `@internal`, so they are typed here once.
 */
import * as policySdk from "@pulumi/policy";

/** The error the SDK's proxy throws when a policy reads a value unknown at preview. */
export interface UnknownValueErrorLike extends Error {
    /** The property path that was read, e.g. `["spec", "replicas"]`. */
    readonly props: (string | symbol)[];
}

interface PolicyRuntime {
    UnknownValueError: new (sentinel: string, props: (string | symbol)[]) => UnknownValueErrorLike;
    unknownCheckingProxy<T>(value: T): T;
}

const runtime = policySdk as unknown as PolicyRuntime;

/** The SDK's `UnknownValueError` class (the analyzer recognises only this class). */
export const UnknownValueError = runtime.UnknownValueError;

/** Wraps resource properties the way the analyzer does before it calls a policy. */
export const unknownCheckingProxy: <T>(value: T) => T = (value) => runtime.unknownCheckingProxy(value);

/** True when `err` is the SDK's unknown-value error. */
export function isUnknownValueError(err: unknown): err is UnknownValueErrorLike {
    return err instanceof runtime.UnknownValueError;
}

/** The engine's sentinel for a string unknown at preview (what the offline plan prints, too). */
export const UNKNOWN_STRING = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** What `reportViolation` accepts besides a message string (server.js `makeReportViolationFun`; not in the SDK's types). */
interface DiagnosticOverride {
    message: string;
    urn?: string;
    enforcementLevel: "advisory";
}

/**
 * Reports `message` at the advisory level whatever the policy's own level: the SDK takes an
 * object with its own `enforcementLevel` in place of a message string. The description is
 * prepended as the SDK does for strings, so every diagnostic of a policy reads alike.
 */
export function reportAdvisory(report: (message: string, urn?: string) => void, description: string, message: string, urn?: string): void {
    const override: DiagnosticOverride = { message: `${description}\n${message}`, ...(urn ? { urn } : {}), enforcementLevel: "advisory" };
    (report as unknown as (d: DiagnosticOverride) => void)(override);
}
