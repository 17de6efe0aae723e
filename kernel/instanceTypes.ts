/**
 * EC2 instance type facts for config validation, drain rehearsals and policies. Pure: the data is
 * static imports, read once at module load; no call does I/O.
 *
 * Sources, each kept as data next to the version it was taken from:
 * - names: `@pulumi/aws`'s `ec2.InstanceType` enum (generated from the EC2 API, maintained with the
 *   provider and already a dependency; no dedicated npm package of instance types exists), joined
 *   with the names of the two tables below, which also come from the EC2 API;
 * - max pods: amazon-eks-ami `eni-max-pods.txt` (`data/eniMaxPods.json`);
 * - vCPU, memory, architecture, GPUs: Karpenter's generated instance-type reference
 *   (`data/instanceSpecs.json`), for the families listed there only. Outside them vCPU and memory
 *   are unknown (`undefined`), never estimated;
 * - architecture outside that table: EC2's naming convention (see `architectureFromName`), checked
 *   by the tests against every type the table knows;
 * - GPU manufacturer: the data's `gpuManufacturer` where it has one, else `GPU_FAMILY_MANUFACTURERS`
 *   below (the data lists GPU counts but not who makes the GPUs).
 */
import { InstanceType } from "@pulumi/aws/types/enums/ec2";
import eniMaxPods from "./data/eniMaxPods.json";
import instanceSpecs from "./data/instanceSpecs.json";

type Architecture = "x86_64" | "arm64";

export interface InstanceTypeInfo {
    /** The API name, e.g. `m7i.large`. */
    name: string;
    architecture: Architecture;
    /** Default vCPUs; `undefined` when the data does not know the type (unknown, never guessed). */
    vcpu?: number;
    /** Memory in MiB as EC2 lists it; `undefined` when unknown. */
    memoryMiB?: number;
    /** Pods with the VPC CNI without prefix delegation (amazon-eks-ami eni-max-pods.txt); `undefined` when unlisted. */
    maxPods?: number;
    /** GPUs (NVIDIA or other accelerators) when the data lists any. */
    gpus?: number;
    /**
     * Who makes the type's GPUs, spelled as Karpenter's `karpenter.k8s.aws/instance-gpu-manufacturer`
     * label (`nvidia`, `amd`): the data's, else the family table below; `undefined` without GPUs.
     */
    gpuManufacturer?: string;
    /** The GPU model as Karpenter labels it (`a10g`, `t4`), when the type has one kind of GPU. */
    gpuName?: string;
    /**
     * Extended resources Karpenter counts in the type's capacity (`nvidia.com/gpu`, `amd.com/gpu`,
     * `aws.amazon.com/neuron`, `vpc.amazonaws.com/efa`, `vpc.amazonaws.com/pod-eni`, …), which the
     * node's device plugins (or the VPC resource controller) then make allocatable.
     */
    extendedResources?: Readonly<Record<string, number>>;
}

interface Spec {
    vcpu: number;
    memoryMiB: number;
    architecture: string;
    gpus?: number;
    gpuManufacturer?: string;
    gpuName?: string;
    extendedResources?: Record<string, number>;
}

/**
 * GPU makers by instance family, for the types the data does not size (a type's own
 * `gpuManufacturer` in `data/instanceSpecs.json`, from Karpenter's reference, wins).
 * Source: the GPUs Amazon EC2's accelerated computing instance specifications list per family
 * (https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html), which EC2 DescribeInstanceTypes
 * returns as `GpuInfo.Gpus[].Manufacturer` and Karpenter lower-cases into the label value.
 * A family missing here reads as "no GPU maker known": a NodePool allowing only such a family is
 * not seen as one that may launch NVIDIA GPUs, so add a family here (or to the data) when EC2 adds one.
 */
export const GPU_FAMILY_MANUFACTURERS: Readonly<Record<string, string>> = {
    g4dn: "nvidia",
    g5: "nvidia",
    g5g: "nvidia",
    g6: "nvidia",
    g6e: "nvidia",
    gr6: "nvidia",
    p3: "nvidia",
    p3dn: "nvidia",
    p4d: "nvidia",
    p4de: "nvidia",
    p5: "nvidia",
    p5e: "nvidia",
    p5en: "nvidia",
    g4ad: "amd",
};

const specs: Readonly<Record<string, Spec>> = instanceSpecs.types;
const maxPodsTable: Readonly<Record<string, number>> = eniMaxPods.maxPods;

const knownNames: ReadonlySet<string> = new Set([...Object.values(InstanceType), ...Object.keys(maxPodsTable), ...Object.keys(specs)]);

/**
 * Every instance type whose vCPU and memory the data knows, sorted: the types a NodePool's
 * requirements can be matched against when what it may launch has to be sized.
 */
export function sizedInstanceTypes(): string[] {
    return Object.keys(specs).sort();
}

/**
 * The extended resources some instance type of the data advertises. A pod requesting another one
 * (`example.com/fpga`) depends on a device plugin the data knows nothing of.
 */
export const ADVERTISED_EXTENDED_RESOURCES: ReadonlySet<string> = new Set(
    Object.values(specs).flatMap((s) => Object.keys(s.extendedResources ?? {})),
);

/** Every real EC2 instance type name, sorted (sized or not). */
export function instanceTypeNames(): string[] {
    return [...knownNames].sort();
}

/** True for a real EC2 instance type name (`m5.large`); false for `m5.huge` or a family alone. */
export function isInstanceType(name: string): boolean {
    return knownNames.has(name);
}

const knownFamilies: ReadonlySet<string> = new Set([...knownNames].map((n) => n.split(".")[0]));

/** True for the family of a real instance type (`m7g` of `m7g.large`), as Karpenter's `instance-family` label holds it. */
export function isInstanceFamily(family: string): boolean {
    return knownFamilies.has(family);
}

/**
 * The processor architecture EC2's naming convention implies: a `g` among the attribute letters
 * after the generation digit means AWS Graviton (`m7g`, `c6gn`, `x2gd`, `im4gn`, `is4gen`, `g5g`);
 * `a1` is the first Graviton; `mac2`/`mac-m*` are Apple silicon; a `-gb…` suffix is NVIDIA Grace
 * (`p6e-gb200`). Everything else is x86_64. Exported for the test that holds it against the data.
 */
export function architectureFromName(name: string): Architecture {
    const [family = ""] = name.split(".");
    if (family === "a1" || /^mac(2|-m)/.test(family) || /-gb\d/.test(family)) {
        return "arm64";
    }
    const parts = /^([a-z]+)(\d+)([a-z]*)/.exec(family);
    return parts !== null && parts[3].includes("g") ? "arm64" : "x86_64";
}

/** The `kubernetes.io/arch` node label value of an architecture: `amd64` for x86_64, `arm64` for arm64. */
export function kubernetesArch(architecture: Architecture): "amd64" | "arm64" {
    return architecture === "arm64" ? "arm64" : "amd64";
}

/** Info for a real type; `undefined` for a name that is not a real instance type. */
export function instanceTypeInfo(name: string): InstanceTypeInfo | undefined {
    if (!isInstanceType(name)) {
        return undefined;
    }
    const spec = specs[name];
    const info: InstanceTypeInfo = {
        name,
        architecture: spec ? (spec.architecture as Architecture) : architectureFromName(name),
    };
    if (spec) {
        info.vcpu = spec.vcpu;
        info.memoryMiB = spec.memoryMiB;
        if (spec.gpus !== undefined) {
            info.gpus = spec.gpus;
        }
        if (spec.gpuName !== undefined) {
            info.gpuName = spec.gpuName;
        }
        if (spec.extendedResources !== undefined) {
            info.extendedResources = spec.extendedResources;
        }
    }
    const family = name.split(".")[0];
    const gpuManufacturer =
        spec?.gpuManufacturer ??
        (Object.prototype.hasOwnProperty.call(GPU_FAMILY_MANUFACTURERS, family) ? GPU_FAMILY_MANUFACTURERS[family] : undefined);
    if (gpuManufacturer !== undefined) {
        info.gpuManufacturer = gpuManufacturer;
    }
    const pods = maxPodsTable[name];
    if (pods !== undefined) {
        info.maxPods = pods;
    }
    return info;
}

/**
 * kube-reserved CPU in millicores as nodeadm computes it: 6% of the first core, 1% of the second,
 * 0.5% of the third and fourth, 0.25% of every core above four, each range rounded down.
 * Source: amazon-eks-ami nodeadm/internal/kubelet/config.go `getCPUMillicoresToReserve` and
 * `getResourceToReserveInRange` (ranges 0/1000/2000/4000 m, per-ten-thousand 600/100/50/25).
 */
export function kubeReservedCpuMillis(vcpu: number): number {
    const total = vcpu * 1000;
    const ranges: [number, number, number][] = [
        [0, 1000, 600],
        [1000, 2000, 100],
        [2000, 4000, 50],
        [4000, Math.max(total, 4000), 25],
    ];
    let reserved = 0;
    for (const [start, end, perTenThousand] of ranges) {
        if (total > start) {
            reserved += Math.floor(((Math.min(total, end) - start) * perTenThousand) / 10000);
        }
    }
    return reserved;
}

/** kube-reserved memory in MiB: `11 * maxPods + 255` (nodeadm `getMemoryMebibytesToReserve`). */
export function kubeReservedMemoryMiB(maxPods: number): number {
    return 11 * maxPods + 255;
}

/** The kubelet hard eviction threshold nodeadm sets: `memory.available: 100Mi` (config.go `evictionHard`). */
const EVICTION_HARD_MEMORY_MIB = 100;

/**
 * The share of an instance's listed memory the kernel and hypervisor keep, so the node reports
 * less capacity than EC2 lists. Karpenter estimates it at 7.5% (`vmMemoryOverheadPercent`
 * default) and schedules against that; using the same keeps a rehearsal from overpacking nodes.
 * (Karpenter's published arm64 figures sit a further 59Mi lower; its reference does not say why,
 * so this module does not model it.)
 */
const DEFAULT_VM_MEMORY_OVERHEAD_PERCENT = 7.5;

/**
 * Allocatable resources of a node of this type as the EKS AL2023 AMI (nodeadm) sets them:
 * capacity minus kube-reserved (formula above; nodeadm sets no system-reserved) minus the
 * 100Mi hard eviction threshold. `maxPods` overrides the table (prefix delegation, a kubelet
 * `maxPods` setting). Memory capacity is the listed memory less the VM overhead estimate
 * (`vmMemoryOverheadPercent`, default 7.5 like Karpenter; pass 0 for the listed memory).
 * `undefined` when vCPU, memory or max pods is unknown.
 */
export function allocatable(
    info: InstanceTypeInfo,
    maxPods?: number,
    options: { vmMemoryOverheadPercent?: number } = {},
): { cpuMillis: number; memoryMiB: number; pods: number } | undefined {
    const pods = maxPods ?? info.maxPods;
    if (info.vcpu === undefined || info.memoryMiB === undefined || pods === undefined) {
        return undefined;
    }
    const overheadPercent = options.vmMemoryOverheadPercent ?? DEFAULT_VM_MEMORY_OVERHEAD_PERCENT;
    const capacityMiB = info.memoryMiB - Math.ceil((info.memoryMiB * overheadPercent) / 100);
    return {
        cpuMillis: info.vcpu * 1000 - kubeReservedCpuMillis(info.vcpu),
        memoryMiB: capacityMiB - kubeReservedMemoryMiB(pods) - EVICTION_HARD_MEMORY_MIB,
        pods,
    };
}

/**
 * The architecture of an EKS AMI type (node group `amiType`): the EKS API spells it in the name
 * (`AL2023_x86_64_STANDARD`, `AL2023_ARM_64_NVIDIA`, `BOTTLEROCKET_ARM_64`, `WINDOWS_CORE_2022_x86_64`).
 * `undefined` for `CUSTOM` or anything else, whose AMI decides.
 */
export function amiTypeArchitecture(amiType: string): Architecture | undefined {
    const match = /^(AL2|AL2023|BOTTLEROCKET|WINDOWS_(CORE|FULL)_\d{4})_(x86_64|ARM_64)(_[A-Z0-9_]+)?$/.exec(amiType);
    if (match === null) {
        return undefined;
    }
    return match[3] === "ARM_64" ? "arm64" : "x86_64";
}
