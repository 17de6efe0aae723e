import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { NamespaceConfig } from "./config";

export interface NamespacesArgs {
    /** Namespaces keyed by name, as validated by the config module. */
    namespaces: Record<string, NamespaceConfig>;
    /** Kubernetes provider of the target cluster. */
    provider: k8s.Provider;
}

/** The ResourceQuota `hard` map of one namespace. Pure. */
export function quotaHard(quota: NamespaceConfig["quota"]): Record<string, string> {
    return {
        "requests.cpu": quota.requestsCpu,
        "requests.memory": quota.requestsMemory,
        "limits.cpu": quota.limitsCpu,
        "limits.memory": quota.limitsMemory,
        pods: String(quota.pods),
    };
}

/** The LimitRange item giving containers default requests and limits. Pure. */
export function containerLimitRange(defaults: NamespaceConfig["containerDefaults"]): k8s.types.input.core.v1.LimitRangeItem {
    return {
        type: "Container",
        defaultRequest: { cpu: defaults.request.cpu, memory: defaults.request.memory },
        default: { cpu: defaults.limit.cpu, memory: defaults.limit.memory },
    };
}

/**
 * Team namespaces, each with a ResourceQuota (it cannot eat the cluster) and a LimitRange (pods
 * that omit requests or limits still get them, so the quota admits them and the scheduler can
 * place them). Namespaces hold other teams' workloads: every one is `retainOnDelete`, so removing
 * it from config stops managing it but never deletes it or what runs in it.
 */
export class Namespaces extends pulumi.ComponentResource {
    /** Namespace names, in config order. */
    public readonly names: string[];

    constructor(name: string, args: NamespacesArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:namespaces:Namespaces", name, {}, opts);
        this.names = [];
        for (const [ns, config] of Object.entries(args.namespaces)) {
            const namespace = new k8s.core.v1.Namespace(
                `${name}-${ns}`,
                { metadata: { name: ns, labels: { ...config.labels, "app.kubernetes.io/managed-by": "pulumi" } } },
                { parent: this, provider: args.provider, retainOnDelete: true },
            );
            const child = { parent: this, provider: args.provider, dependsOn: [namespace] };
            new k8s.core.v1.ResourceQuota(
                `${name}-${ns}-quota`,
                { metadata: { name: "compute", namespace: ns }, spec: { hard: quotaHard(config.quota) } },
                child,
            );
            new k8s.core.v1.LimitRange(
                `${name}-${ns}-defaults`,
                { metadata: { name: "container-defaults", namespace: ns }, spec: { limits: [containerLimitRange(config.containerDefaults)] } },
                child,
            );
            this.names.push(ns);
        }
        this.registerOutputs({ names: this.names });
    }
}
