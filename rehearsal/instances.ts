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

/**
 * Beta label keys and the stable ones Karpenter reads them as (karpenter v1.14.1
 * `pkg/apis/v1/labels.go` `NormalizedLabels`, applied to pod and NodePool requirements alike by
 * `pkg/scheduling/requirement.go`). Nodes still carry both: kubelet sets `beta.kubernetes.io/os`
 * and `/arch`, the cloud provider the beta zone, region and instance type (kubernetes/cloud-provider
 * v0.34 `getNodeModifiersFromCloudProvider`), so a selector on either matches.
 */
export const NORMALIZED_LABELS: Readonly<Record<string, string>> = {
    "failure-domain.beta.kubernetes.io/zone": "topology.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region": "topology.kubernetes.io/region",
    "beta.kubernetes.io/arch": "kubernetes.io/arch",
    "beta.kubernetes.io/os": "kubernetes.io/os",
    "beta.kubernetes.io/instance-type": "node.kubernetes.io/instance-type",
};

/** A requirement's key as Karpenter reads it: a beta key as its stable one. */
export function normalizedRequirement(r: NodeRequirement): NodeRequirement {
    const key = NORMALIZED_LABELS[r.key];
    return key === undefined ? r : { ...r, key };
}

/** `labels` with the beta twin of every stable label that has one, as a real node carries them. */
export function withBetaLabels(labels: Record<string, string>): Record<string, string> {
    const out = { ...labels };
    for (const [beta, stable] of Object.entries(NORMALIZED_LABELS)) {
        if (labels[stable] !== undefined && out[beta] === undefined) {
            out[beta] = labels[stable];
        }
    }
    return out;
}

/** Label keys a node's instance type decides (the others come from the group, pool or zone). */
export const INSTANCE_LABEL_KEYS: ReadonlySet<string> = new Set([
    "node.kubernetes.io/instance-type",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "karpenter.k8s.aws/instance-gpu-name",
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
    // Karpenter sets the GPU labels only when the type has exactly one kind of GPU
    // (karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go `computeRequirements`).
    if (info.gpuManufacturer !== undefined) {
        labels["karpenter.k8s.aws/instance-gpu-manufacturer"] = info.gpuManufacturer;
    }
    if (info.gpuName !== undefined) {
        labels["karpenter.k8s.aws/instance-gpu-name"] = info.gpuName;
    }
    return withBetaLabels(labels);
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
