/**
 * `validateResourceOfType` wants a resource class; the pack judges any program and does not load
 * provider SDKs, so a class is stood in by its type token (the SDK reads only `__pulumiType`).
 */
import type { Resource } from "@pulumi/pulumi";

type ResourceClass = new (name: string, args: Record<string, unknown>) => Resource;

/** A stand-in resource class for `validateResourceOfType` / `args.isType`. */
export function resourceType(token: string): ResourceClass {
    return { __pulumiType: token } as unknown as ResourceClass;
}

/**
 * The resource types of an EKS cluster: the `@pulumi/eks` component (judged on its inputs) and the
 * AWS resource. Both carry the cluster's `name` and Kubernetes `version`.
 */
export const EKS_CLUSTER_TYPES: ReadonlySet<string> = new Set(["eks:index:Cluster", "aws:eks/cluster:Cluster"]);
