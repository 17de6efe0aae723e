import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { NamespaceConfig } from "./namespaces.schema";
import { LOAD_BALANCER_CONTROLLER } from "./addons/loadBalancerController";

export interface NamespacesArgs {
    /** Namespaces keyed by name, as validated by the config module. */
    namespaces: Record<string, NamespaceConfig>;
    /** Kubernetes minor version (e.g. `1.34`): Pod Security levels are pinned to it. */
    kubernetesVersion: string;
    /** Kubernetes provider of the target cluster. */
    provider: k8s.Provider;
}

/**
 * Pod Security Admission labels. Each level is pinned to the cluster's version so a control-plane
 * upgrade never tightens the rules under running workloads. Pure.
 */
export function podSecurityLabels(psa: NamespaceConfig["podSecurity"], kubernetesVersion: string): Record<string, string> {
    const labels: Record<string, string> = {};
    for (const mode of ["enforce", "warn", "audit"] as const) {
        labels[`pod-security.kubernetes.io/${mode}`] = psa[mode];
        labels[`pod-security.kubernetes.io/${mode}-version`] = `v${kubernetesVersion}`;
    }
    return labels;
}

export interface NamedNetworkPolicy {
    name: string;
    spec: k8s.types.input.networking.v1.NetworkPolicySpec;
}

const allPods = {};
const sameNamespace = [{ podSelector: allPods }];

/**
 * The NetworkPolicies of one namespace: deny all ingress by default, then allow its own pods and
 * the namespaces it opens to. With `egress: restricted` egress is denied too, except DNS and the
 * namespace itself. Pure.
 */
export function networkPolicies(network: NamespaceConfig["network"]): NamedNetworkPolicy[] {
    const restricted = network.egress === "restricted";
    const policies: NamedNetworkPolicy[] = [
        { name: "default-deny", spec: { podSelector: allPods, policyTypes: restricted ? ["Ingress", "Egress"] : ["Ingress"] } },
        { name: "allow-same-namespace", spec: { podSelector: allPods, policyTypes: ["Ingress"], ingress: [{ from: sameNamespace }] } },
    ];
    for (const other of network.allowFrom) {
        policies.push({
            name: `allow-from-${other}`,
            spec: {
                podSelector: allPods,
                policyTypes: ["Ingress"],
                ingress: [{ from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": other } } }] }],
            },
        });
    }
    if (restricted) {
        policies.push(
            {
                name: "allow-dns",
                spec: {
                    podSelector: allPods,
                    policyTypes: ["Egress"],
                    egress: [
                        {
                            to: [
                                {
                                    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } },
                                    podSelector: { matchLabels: { "k8s-app": "kube-dns" } },
                                },
                            ],
                            ports: [
                                { protocol: "UDP", port: 53 },
                                { protocol: "TCP", port: 53 },
                            ],
                        },
                    ],
                },
            },
            {
                name: "allow-same-namespace-egress",
                spec: { podSelector: allPods, policyTypes: ["Egress"], egress: [{ to: sameNamespace }] },
            },
        );
    }
    return policies;
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
 * Team namespaces, each with a ResourceQuota (it cannot eat the cluster), a LimitRange (pods
 * that omit requests or limits still get them, so the quota admits them and the scheduler can
 * place them), Pod Security Admission labels and default-deny NetworkPolicies. Namespaces hold
 * other teams' workloads: every one is `retainOnDelete`, so removing it from config stops
 * managing it but never deletes it or what runs in it; its guards (quota, LimitRange,
 * NetworkPolicies) are retained with it, so those workloads never run unguarded.
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
                {
                    metadata: {
                        name: ns,
                        labels: {
                            ...config.labels,
                            ...podSecurityLabels(config.podSecurity, args.kubernetesVersion),
                            ...(config.readinessGates ? { [LOAD_BALANCER_CONTROLLER.readinessGateLabel]: "enabled" } : {}),
                            "app.kubernetes.io/managed-by": "pulumi",
                        },
                    },
                },
                { parent: this, provider: args.provider, retainOnDelete: true },
            );
            // The guards go (or stay) with the namespace: deleting them while its workloads keep
            // running would lift the quota and open default-deny networking.
            const child = { parent: this, provider: args.provider, dependsOn: [namespace], retainOnDelete: true };
            new k8s.core.v1.ResourceQuota(
                `${name}-${ns}-quota`,
                { metadata: { name: "compute", namespace: ns }, spec: { hard: quotaHard(config.quota) } },
                child,
            );
            new k8s.core.v1.LimitRange(
                `${name}-${ns}-defaults`,
                {
                    metadata: { name: "container-defaults", namespace: ns },
                    spec: { limits: [containerLimitRange(config.containerDefaults)] },
                },
                child,
            );
            for (const policy of networkPolicies(config.network)) {
                new k8s.networking.v1.NetworkPolicy(
                    `${name}-${ns}-${policy.name}`,
                    { metadata: { name: policy.name, namespace: ns }, spec: policy.spec },
                    child,
                );
            }
            this.names.push(ns);
        }
        this.registerOutputs({ names: this.names });
    }
}
