/**
 * The well-known labels of a node of an EC2 instance type, and which instance types a Karpenter
 * NodePool's requirements may launch. Shared by the drain rehearsal (which models the nodes a pool
 * launches) and the program (which installs the NVIDIA device plugin wherever NVIDIA GPUs can
 * appear). Pure.
 *
 * The labels are those Karpenter's AWS provider derives per instance type
 * (aws/karpenter-provider-aws `pkg/providers/instancetype/types.go` `computeRequirements`):
 * category, generation, family and size from the name; vCPU, memory, GPU count and GPU
 * manufacturer from EC2 DescribeInstanceTypes, here the kernel's instance data.
 */
import { instanceTypeInfo, InstanceTypeInfo, instanceTypeNames, kubernetesArch } from "./instanceTypes";
import { NodePlacement, NodeRequirement, nodeRequirementMatches } from "./scheduling";

// `m6i.large` → category m, generation 6, family m6i, size large (Karpenter's label values).
const NAME = /^([a-z]+)(\d+)([a-z0-9-]*)\.(.+)$/;

/** Karpenter's label of a node's GPU count (only on types with GPUs). */
export const GPU_COUNT_LABEL = "karpenter.k8s.aws/instance-gpu-count";

/** Karpenter's label of who makes a node's GPUs, lower case (`nvidia`, `amd`; only on types with GPUs). */
export const GPU_MANUFACTURER_LABEL = "karpenter.k8s.aws/instance-gpu-manufacturer";

/** Karpenter's label of a node's GPU model (`a10g`, `t4`; only on types with one kind of GPU). */
export const GPU_NAME_LABEL = "karpenter.k8s.aws/instance-gpu-name";

/**
 * Beta label keys and the stable ones Karpenter reads them as (karpenter v1.14.1
 * `pkg/apis/v1/labels.go` `NormalizedLabels`, applied to pod and NodePool requirements alike by
 * `pkg/scheduling/requirement.go`). Nodes still carry both: kubelet sets `beta.kubernetes.io/os`
 * and `/arch`, the cloud provider the beta zone, region and instance type (kubernetes/cloud-provider
 * v0.34 `getNodeModifiersFromCloudProvider`), so a selector on either matches.
 */
const NORMALIZED_LABELS: Readonly<Record<string, string>> = {
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

/**
 * A pod's node placement with beta keys read as stable ones. Karpenter normalises pod
 * requirements so; kube-scheduler does not, but real nodes carry both labels with the same value,
 * so matching the normalised placement against the stable labels gives the scheduler's answer too.
 */
export function normalizedPlacement(placement: NodePlacement): NodePlacement {
    const betaKeys = Object.keys(placement.nodeSelector).some((k) => NORMALIZED_LABELS[k] !== undefined);
    const betaTerms = placement.terms?.some((t) => t.some((r) => NORMALIZED_LABELS[r.key] !== undefined)) ?? false;
    if (!betaKeys && !betaTerms) {
        return placement;
    }
    return {
        nodeSelector: Object.fromEntries(Object.entries(placement.nodeSelector).map(([k, v]) => [NORMALIZED_LABELS[k] ?? k, v])),
        terms: placement.terms?.map((t) => t.map(normalizedRequirement)),
    };
}

/** Label keys a node's instance type decides and this module models (the others come from the group, pool or zone). */
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
    GPU_COUNT_LABEL,
    GPU_MANUFACTURER_LABEL,
    GPU_NAME_LABEL,
]);

/** The keys among `INSTANCE_LABEL_KEYS` whose value the data knows only for the types it sizes. */
const SIZED_LABEL_KEYS: ReadonlySet<string> = new Set([
    "karpenter.k8s.aws/instance-cpu",
    "karpenter.k8s.aws/instance-memory",
    GPU_COUNT_LABEL,
    GPU_NAME_LABEL,
]);

/** The well-known labels of a node of this instance type, as far as the data knows them. */
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
        labels[GPU_COUNT_LABEL] = String(info.gpus);
    }
    if (info.gpuManufacturer !== undefined) {
        labels[GPU_MANUFACTURER_LABEL] = info.gpuManufacturer;
    }
    // Set only when the type has exactly one kind of GPU (karpenter-provider-aws v1.14.1 `computeRequirements`).
    if (info.gpuName !== undefined) {
        labels[GPU_NAME_LABEL] = info.gpuName;
    }
    return labels;
}

/**
 * Whether a node of `info` may satisfy `r` when the data cannot always tell. A requirement on a
 * key the instance type does not decide (zone, capacity type, the pool's own labels) or that this
 * module does not model (`instance-gpu-name`, `instance-hypervisor`, …) may hold; so may one on
 * vCPU, memory or GPU count for a type the data does not size, except that a type with a GPU
 * maker has a GPU count (`Exists` holds, `DoesNotExist` does not). Answering "may" when unsure
 * errs towards installing what GPU nodes need, which costs nothing where none appear.
 */
function mayMatch(r: NodeRequirement, info: InstanceTypeInfo, labels: Readonly<Record<string, string>>): boolean {
    if (!INSTANCE_LABEL_KEYS.has(r.key)) {
        return true;
    }
    if (SIZED_LABEL_KEYS.has(r.key) && info.vcpu === undefined) {
        if (r.key === GPU_COUNT_LABEL && info.gpuManufacturer !== undefined && (r.operator === "Exists" || r.operator === "DoesNotExist")) {
            return r.operator === "Exists";
        }
        return true;
    }
    return nodeRequirementMatches(r, labels);
}

/**
 * The real instance types with GPUs of `manufacturer` (`nvidia`, `amd`, as Karpenter's label spells
 * it) that a NodePool with these requirements may launch, sorted: every requirement may hold for
 * the type (see `mayMatch`). Types outside the sized families count by their name, so
 * `instance-family In [g6]` allows g6 although the data does not size it. Empty when the pool
 * can launch none, e.g. `instance-category In [c, m, r]`.
 */
export function gpuInstanceTypesAllowed(requirements: readonly NodeRequirement[], manufacturer: string): string[] {
    return instanceTypeNames().filter((name) => {
        const info = instanceTypeInfo(name);
        if (info?.gpuManufacturer !== manufacturer) {
            return false;
        }
        const labels = instanceLabels(info);
        return requirements.every((r) => mayMatch(r, info, labels));
    });
}
