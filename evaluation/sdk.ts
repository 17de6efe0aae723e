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

/**
 * `reportViolation` as the analyzer builds it (`makeReportViolationFun` in server.js): besides a
 * message string it takes a diagnostic object whose own `enforcementLevel` overrides the policy's.
 * The type declarations list only the string form; the object form is how one policy reports an
 * advisory finding beside its mandatory ones (an undecided verdict, see verdicts.ts).
 */
export type ReportDiagnostic = (diagnostic: { message: string; urn?: string; enforcementLevel: "advisory" }) => void;
