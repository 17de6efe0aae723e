/**
 * Nodes from instance types: allocatable capacity (the shared instance data) and the NodePool
 * candidates sized by it, labelled as Karpenter labels them (the kernel's `instanceLabels`), which
 * Karpenter requirements and node affinity select on.
 */
import {
    allocatable,
    INSTANCE_LABEL_KEYS,
    instanceLabels,
    instanceTypeInfo,
    InstanceTypeInfo,
    NodeRequirement,
    nodeRequirementMatches,
    sizedInstanceTypes,
} from "eks-platform-kernel";
import type { Candidate, Capacity, Requests } from "./model";

/** Allocatable capacity and instance size of a type; `undefined` when the data does not know its size. */
export function nodeSize(
    instanceType: string,
    maxPods?: number,
): { allocatable: Capacity; capacity: Requests; info: InstanceTypeInfo } | undefined {
    const info = instanceTypeInfo(instanceType);
    const alloc = info ? allocatable(info, maxPods) : undefined;
    if (!info || !alloc || info.vcpu === undefined || info.memoryMiB === undefined) {
        return undefined;
    }
    // Extended resources are capacity and allocatable alike: no overhead is reserved from them
    // (karpenter-provider-aws v1.14.1 `computeCapacity`; the node's device plugins advertise them).
    const extended = info.extendedResources;
    return {
        allocatable: extended ? { ...alloc, extended } : alloc,
        capacity: { cpuMillis: info.vcpu * 1000, memoryMiB: info.memoryMiB, ...(extended ? { extended } : {}) },
        info,
    };
}

/**
 * The instance types a NodePool's requirements allow, smallest first (by vCPU, then memory, then
 * name). Requirements on keys the instance type does not decide (zone, capacity type, custom
 * labels) do not narrow the list; those on instance keys the data cannot tell are returned in
 * `unmodelled`.
 */
export function poolCandidates(requirements: readonly NodeRequirement[]): { candidates: Candidate[]; unmodelled: string[] } {
    const unmodelled = requirements
        .filter((r) => r.key.startsWith("karpenter.k8s.aws/instance-") && !INSTANCE_LABEL_KEYS.has(r.key))
        .map((r) => r.key);
    const applicable = requirements.filter((r) => INSTANCE_LABEL_KEYS.has(r.key));
    const out: Candidate[] = [];
    for (const name of sizedInstanceTypes()) {
        const size = nodeSize(name);
        if (!size) {
            continue;
        }
        const labels = instanceLabels(size.info);
        if (applicable.every((r) => nodeRequirementMatches(r, labels))) {
            out.push({ instanceType: name, allocatable: size.allocatable, capacity: size.capacity, labels });
        }
    }
    out.sort(
        (a, b) =>
            a.capacity.cpuMillis - b.capacity.cpuMillis ||
            a.capacity.memoryMiB - b.capacity.memoryMiB ||
            (a.instanceType < b.instanceType ? -1 : 1),
    );
    return { candidates: out, unmodelled };
}
