import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GPU_LABELS, GPU_TAINT } from "./scheduling";

/**
 * Chart of the NVIDIA device plugin, pinned. Bump deliberately: read the release notes at
 * https://github.com/NVIDIA/k8s-device-plugin/releases, then `helm show values
 * nvdp/nvidia-device-plugin --version <new>` and check the values below still exist.
 */
export const DEVICE_PLUGIN_CHART = { repo: "https://nvidia.github.io/k8s-device-plugin", chart: "nvidia-device-plugin", version: "0.19.3" };

/**
 * Helm values of the device plugin: a DaemonSet on GPU nodes only. The chart's default affinity
 * (node-feature-discovery labels this platform does not install) is replaced by one on our label,
 * and its default tolerations (which include CriticalAddonsOnly) by the GPU taint alone. Pure.
 */
export function devicePluginValues(): Record<string, unknown> {
    const [[labelKey, labelValue]] = Object.entries(GPU_LABELS);
    return {
        nodeSelector: { ...GPU_LABELS },
        affinity: {
            nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [{ matchExpressions: [{ key: labelKey, operator: "In", values: [labelValue] }] }],
                },
            },
        },
        tolerations: [{ key: GPU_TAINT.key, operator: "Exists", effect: GPU_TAINT.effect }],
        priorityClassName: "system-node-critical",
        resources: { requests: { cpu: "50m", memory: "64Mi" }, limits: { memory: "256Mi" } },
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
        gfd: { enabled: false },
        nfd: { enabled: false },
    };
}

export interface GpuDevicePluginArgs {
    provider: k8s.Provider;
    /** Defaults to `kube-system`. */
    namespace?: string;
}

/**
 * The NVIDIA device plugin: advertises `nvidia.com/gpu` on GPU nodes so pods requesting it are
 * scheduled there. AL2023 NVIDIA AMIs ship the driver and container toolkit, not the plugin.
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
                values: devicePluginValues(),
            },
            { parent: this, provider: args.provider },
        );
        this.registerOutputs({ release: this.release.name });
    }
}
