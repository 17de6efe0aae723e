import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GPU_MANUFACTURER_LABEL, gpuInstanceTypesAllowed, type NodeRequirement, type TaintEffect } from "eks-platform-kernel";
import { GPU_LABELS, isGpuGroup, nodeTaints, type SchedulingConfig } from "./schema";

/**
 * Chart of the NVIDIA device plugin, pinned. Bump deliberately: read the release notes at
 * https://github.com/NVIDIA/k8s-device-plugin/releases, then `helm show values
 * nvdp/nvidia-device-plugin --version <new>` and check the values below still exist.
 */
export const DEVICE_PLUGIN_CHART = { repo: "https://nvidia.github.io/k8s-device-plugin", chart: "nvidia-device-plugin", version: "0.19.3" };

/** Karpenter's value of `GPU_MANUFACTURER_LABEL` on a node with NVIDIA GPUs. */
export const NVIDIA = "nvidia";

/** A taint as node groups and NodePools declare it (a NodePool's may have no value). */
export interface GpuNodeTaint {
    key: string;
    value?: string;
    effect: TaintEffect;
}

/** The part of a NodePool's config that decides whether it may launch NVIDIA GPUs, and with which taints. */
export interface GpuPoolCandidate {
    requirements: readonly NodeRequirement[];
    taints: readonly GpuNodeTaint[];
}

/**
 * The nodes that may have NVIDIA GPUs, by where they come from, with the taints each carries: the
 * device plugin must run on all of them, or the kubelet never advertises `nvidia.com/gpu` there
 * and a GPU pod never schedules.
 */
export interface GpuNodes {
    /** Enabled GPU node groups (an NVIDIA AMI type) and their nodes' taints, the NVIDIA taint included. */
    groups: Record<string, GpuNodeTaint[]>;
    /** Karpenter NodePools whose requirements allow an NVIDIA GPU instance type, and their taints. */
    pools: Record<string, GpuNodeTaint[]>;
}

/**
 * Where NVIDIA GPUs can appear: every enabled GPU group, and every NodePool whose requirements may
 * launch an NVIDIA instance type (the kernel's `gpuInstanceTypesAllowed`, which counts a type as
 * allowed when the data cannot rule it out). Pure.
 */
export function gpuNodes(
    groups: Readonly<Record<string, SchedulingConfig>>,
    pools: Readonly<Record<string, GpuPoolCandidate>> = {},
): GpuNodes {
    const nodes: GpuNodes = { groups: {}, pools: {} };
    for (const [name, group] of Object.entries(groups)) {
        if (group.enabled && isGpuGroup(group)) {
            nodes.groups[name] = nodeTaints(group);
        }
    }
    for (const [name, pool] of Object.entries(pools)) {
        if (gpuInstanceTypesAllowed(pool.requirements, NVIDIA).length > 0) {
            nodes.pools[name] = pool.taints.map((t) => ({ ...t }));
        }
    }
    return nodes;
}

/** True when some node group or NodePool may have NVIDIA GPUs, so the device plugin is needed. Pure. */
export function hasGpuNodes(nodes: GpuNodes): boolean {
    return Object.keys(nodes.groups).length > 0 || Object.keys(nodes.pools).length > 0;
}

/**
 * Tolerations of the device plugin: one per taint key and effect of the GPU nodes it serves, any
 * value (`Exists`), groups first, then pools, in config order. Its node affinity keeps it on GPU
 * nodes, so tolerating their taints never lets it land anywhere else. Pure.
 */
export function devicePluginTolerations(nodes: GpuNodes): { key: string; operator: "Exists"; effect: TaintEffect }[] {
    const seen = new Set<string>();
    const tolerations: { key: string; operator: "Exists"; effect: TaintEffect }[] = [];
    for (const taint of [...Object.values(nodes.groups).flat(), ...Object.values(nodes.pools).flat()]) {
        const id = `${taint.key}:${taint.effect}`;
        if (!seen.has(id)) {
            seen.add(id);
            tolerations.push({ key: taint.key, operator: "Exists", effect: taint.effect });
        }
    }
    return tolerations;
}

/**
 * Helm values of the device plugin: a DaemonSet on GPU nodes only. The chart's default affinity
 * (node-feature-discovery labels this platform does not install) is replaced by required node
 * affinity with one term per source of GPU nodes, ORed: our `accelerator: nvidia` label on GPU
 * group nodes, which EKS managed nodes carry only because the group sets it; and Karpenter's
 * `karpenter.k8s.aws/instance-gpu-manufacturer: nvidia`, which Karpenter puts on every node of an
 * NVIDIA instance type from EC2's GPU info (aws/karpenter-provider-aws
 * `pkg/providers/instancetype/types.go`, "GPU Labels") and which a pool cannot set itself (the
 * domain is Karpenter's). The chart's default tolerations (which include CriticalAddonsOnly) are
 * replaced by the GPU nodes' taints (`devicePluginTolerations`). Pure.
 */
export function devicePluginValues(nodes: GpuNodes): Record<string, unknown> {
    const [[labelKey, labelValue]] = Object.entries(GPU_LABELS);
    const groups = Object.keys(nodes.groups).length > 0;
    const pools = Object.keys(nodes.pools).length > 0;
    if (!groups && !pools) {
        throw new Error("the NVIDIA device plugin has no GPU node group or NodePool to serve");
    }
    const terms = [
        ...(groups ? [{ matchExpressions: [{ key: labelKey, operator: "In", values: [labelValue] }] }] : []),
        ...(pools ? [{ matchExpressions: [{ key: GPU_MANUFACTURER_LABEL, operator: "In", values: [NVIDIA] }] }] : []),
    ];
    return {
        // A nodeSelector is ANDed with the affinity: it stays only while every GPU node is a group
        // node carrying the label (so an existing release does not change), and goes once Karpenter
        // nodes, which lack the label, must be served too.
        ...(pools ? {} : { nodeSelector: { ...GPU_LABELS } }),
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } },
        tolerations: devicePluginTolerations(nodes),
        priorityClassName: "system-node-critical",
        resources: { requests: { cpu: "50m", memory: "64Mi" }, limits: { memory: "256Mi" } },
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
        gfd: { enabled: false },
        nfd: { enabled: false },
    };
}

export interface GpuDevicePluginArgs {
    provider: k8s.Provider;
    /** The GPU node groups and NodePools it serves (`gpuNodes`); at least one. */
    nodes: GpuNodes;
    /** Defaults to `kube-system`. */
    namespace?: string;
}

/**
 * The NVIDIA device plugin: advertises `nvidia.com/gpu` on GPU nodes so pods requesting it are
 * scheduled there. AL2023 NVIDIA AMIs ship the driver and container toolkit, not the plugin; that
 * holds for the NVIDIA variant Karpenter picks for an NVIDIA instance type as for a GPU group's.
 */
export class GpuDevicePlugin extends pulumi.ComponentResource {
    public readonly release: k8s.helm.v3.Release;

    constructor(name: string, args: GpuDevicePluginArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:nodegroups:GpuDevicePlugin", name, {}, opts);
        this.release = new k8s.helm.v3.Release(
            `${name}-release`,
            {
                name: "nvidia-device-plugin",
                chart: DEVICE_PLUGIN_CHART.chart,
                version: DEVICE_PLUGIN_CHART.version,
                repositoryOpts: { repo: DEVICE_PLUGIN_CHART.repo },
                namespace: args.namespace ?? "kube-system",
                values: devicePluginValues(args.nodes),
            },
            { parent: this, provider: args.provider },
        );
        this.registerOutputs({ release: this.release.name });
    }
}
