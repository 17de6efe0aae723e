/**
 * Nodes from instance types: allocatable capacity (the shared instance data) and the NodePool
 * candidates sized by it, labelled as Karpenter labels them (the kernel's `instanceLabels`), which
 * Karpenter requirements and node affinity select on.
 */
import {
    allocatable,
    AUTO_MODE_EXCLUDED_SIZES,
    AUTO_MODE_INSTANCE_LABELS,
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

/** A Karpenter label of an instance type as an EKS Auto Mode node carries it (`eks.amazonaws.com/instance-*`), or `undefined` when it carries none. */
const AUTO_MODE_KEY_OF: ReadonlyMap<string, string> = new Map(Object.entries(AUTO_MODE_INSTANCE_LABELS).map(([auto, k]) => [k, auto]));

/**
 * The labels of an instance type as a node of the pool carries them: Karpenter's AWS provider's
 * (`karpenter.k8s.aws/*`), or on EKS Auto Mode its own `eks.amazonaws.com/instance-*` instead
 * (only those the kernel maps; the others are not modelled).
 */
export function poolInstanceLabels(labels: Readonly<Record<string, string>>, autoMode: boolean): Record<string, string> {
    if (!autoMode) {
        return { ...labels };
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(labels)) {
        if (!k.startsWith("karpenter.k8s.aws/")) {
            out[k] = v;
        } else if (AUTO_MODE_KEY_OF.has(k)) {
            out[AUTO_MODE_KEY_OF.get(k)!] = v;
        }
    }
    return out;
}

/**
 * The instance types a NodePool's requirements allow, smallest first (by vCPU, then memory, then
 * name). Requirements on keys the instance type does not decide (zone, capacity type, custom
 * labels) do not narrow the list; those on instance keys the data cannot tell are returned in
 * `unmodelled`. On EKS Auto Mode (`autoMode`) the instance keys are `eks.amazonaws.com/instance-*`
 * (the kernel's `AUTO_MODE_INSTANCE_LABELS` read as Karpenter's), a `karpenter.k8s.aws/*` key is
 * unmodelled (Auto Mode nodes do not carry it), and types Auto Mode never launches (nano, micro,
 * small, a single vCPU) are left out.
 */
export function poolCandidates(
    requirements: readonly NodeRequirement[],
    autoMode = false,
): { candidates: Candidate[]; unmodelled: string[] } {
    const unmodelled: string[] = [];
    const applicable: NodeRequirement[] = [];
    for (const r of requirements) {
        if (autoMode && r.key.startsWith("karpenter.k8s.aws/")) {
            unmodelled.push(r.key);
        } else if (autoMode && r.key.startsWith("eks.amazonaws.com/instance-")) {
            const key = AUTO_MODE_INSTANCE_LABELS[r.key];
            if (key === undefined) {
                unmodelled.push(r.key);
            } else {
                applicable.push({ ...r, key });
            }
        } else if (r.key.startsWith("karpenter.k8s.aws/instance-") && !INSTANCE_LABEL_KEYS.has(r.key)) {
            unmodelled.push(r.key);
        } else if (INSTANCE_LABEL_KEYS.has(r.key)) {
            applicable.push(r);
        }
    }
    const out: Candidate[] = [];
    for (const name of sizedInstanceTypes()) {
        const size = nodeSize(name);
        if (!size) {
            continue;
        }
        const labels = instanceLabels(size.info);
        if (autoMode && (AUTO_MODE_EXCLUDED_SIZES.has(labels["karpenter.k8s.aws/instance-size"] ?? "") || (size.info.vcpu ?? 0) <= 1)) {
            continue;
        }
        if (applicable.every((r) => nodeRequirementMatches(r, labels))) {
            out.push({
                instanceType: name,
                allocatable: size.allocatable,
                capacity: size.capacity,
                labels: poolInstanceLabels(labels, autoMode),
            });
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
