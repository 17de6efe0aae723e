/**
 * Nodes from instance types: allocatable capacity (the shared instance data) and the well-known
 * labels a node of the type carries, which Karpenter requirements and node affinity select on.
 */
import {
    allocatable,
    instanceTypeInfo,
    InstanceTypeInfo,
    kubernetesArch,
    NodeRequirement,
    nodeRequirementMatches,
    sizedInstanceTypes,
} from "eks-platform-kernel";
import type { Candidate, Capacity, Requests } from "./model";

// `m6i.large` → category m, generation 6, family m6i, size large (Karpenter's label values).
const NAME = /^([a-z]+)(\d+)([a-z0-9-]*)\.(.+)$/;

/** Label keys a node's instance type decides (the others come from the group, pool or zone). */
export const INSTANCE_LABEL_KEYS: ReadonlySet<string> = new Set([
    "node.kubernetes.io/instance-type",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    "karpenter.k8s.aws/instance-category",
    "karpenter.k8s.aws/instance-generation",
    "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-size",
    "karpenter.k8s.aws/instance-cpu",
    "karpenter.k8s.aws/instance-memory",
    "karpenter.k8s.aws/instance-gpu-count",
]);

/** The well-known labels of a node of this instance type. */
export function instanceLabels(info: InstanceTypeInfo): Record<string, string> {
    const labels: Record<string, string> = {
        "node.kubernetes.io/instance-type": info.name,
        "kubernetes.io/arch": kubernetesArch(info.architecture),
        "kubernetes.io/os": "linux",
    };
    const match = NAME.exec(info.name);
    if (match) {
        labels["karpenter.k8s.aws/instance-category"] = match[1];
        labels["karpenter.k8s.aws/instance-generation"] = match[2];
        labels["karpenter.k8s.aws/instance-family"] = `${match[1]}${match[2]}${match[3]}`;
        labels["karpenter.k8s.aws/instance-size"] = match[4];
    }
    if (info.vcpu !== undefined) {
        labels["karpenter.k8s.aws/instance-cpu"] = String(info.vcpu);
    }
    if (info.memoryMiB !== undefined) {
        labels["karpenter.k8s.aws/instance-memory"] = String(info.memoryMiB);
    }
    if (info.gpus !== undefined) {
        labels["karpenter.k8s.aws/instance-gpu-count"] = String(info.gpus);
    }
    return labels;
}

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
    return { allocatable: alloc, capacity: { cpuMillis: info.vcpu * 1000, memoryMiB: info.memoryMiB }, info };
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
