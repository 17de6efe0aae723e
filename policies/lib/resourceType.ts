/**
 * `validateResourceOfType` wants a resource class; the pack judges any program and does not load
 * provider SDKs, so a class is stood in by its type token (the SDK reads only `__pulumiType`).
 */
import type { Resource } from "@pulumi/pulumi";

export type ResourceClass = new (name: string, args: Record<string, unknown>) => Resource;

/** A stand-in resource class for `validateResourceOfType` / `args.isType`. */
export function resourceType(token: string): ResourceClass {
    return { __pulumiType: token } as unknown as ResourceClass;
}
