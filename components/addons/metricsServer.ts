/**
 * Resource metrics (the `metrics.k8s.io` API behind HPAs and `kubectl top`): the Kubernetes
 * Metrics Server as an EKS community add-on, pinned per stack.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import type { PlatformAddon } from "./addon";
import type { AddonsConfig } from "./schema";
import type { Placement } from "../nodegroups/schema";

type MetricsServerConfig = AddonsConfig["metricsServer"];

/** The EKS community add-on's name. */
export const METRICS_SERVER_ADDON = "metrics-server";

/**
 * The add-on's `configurationValues`, in the upstream chart's terms: replicas on system nodes and
 * a PodDisruptionBudget letting a drain evict one at a time (with two replicas the Metrics API,
 * an aggregated API the API server calls, stays up through every drain). Pure.
 */
export function metricsServerConfigurationValues(config: MetricsServerConfig, placement: Placement): Record<string, unknown> {
    return {
        replicas: config.replicas,
        podDisruptionBudget: { enabled: true, maxUnavailable: 1 },
        resources: { requests: { ...config.resources.requests }, limits: { ...config.resources.limits } },
        nodeSelector: placement.nodeSelector,
        tolerations: placement.tolerations,
    };
}

/** Creates the add-on under `parent` as `<name>-metrics-server`. */
export function metricsServerAddon(
    name: string,
    args: { clusterName: string; config: MetricsServerConfig; placement: Placement },
    parent: pulumi.Resource,
): aws.eks.Addon {
    return new aws.eks.Addon(
        `${name}-metrics-server`,
        {
            clusterName: args.clusterName,
            addonName: METRICS_SERVER_ADDON,
            addonVersion: args.config.version,
            resolveConflictsOnCreate: "OVERWRITE",
            resolveConflictsOnUpdate: "PRESERVE",
            configurationValues: JSON.stringify(metricsServerConfigurationValues(args.config, args.placement)),
        },
        { parent },
    );
}

/** The add-on as the registry (registry.ts) knows it. */
export const metricsServer: PlatformAddon<"metricsServer", aws.eks.Addon> = {
    key: "metricsServer",
    label: "Metrics Server",
    source: { eksAddon: METRICS_SERVER_ADDON },
    replaceable: false,
    preflightConfigKeys: { [METRICS_SERVER_ADDON]: "addons.metricsServer.version" },
    provides: { metricsApi: true },
    resourceTypes: ["aws:eks/addon:Addon"],
    example: { version: "v0.8.0-eksbuild.2" },
    install: (ctx, config) => metricsServerAddon(ctx.name, { clusterName: ctx.clusterName, config, placement: ctx.placement }, ctx.parent),
};
