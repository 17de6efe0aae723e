/**
 * The Karpenter controller, installed from the public OCI registry as two Helm releases: the CRDs
 * (`karpenter-crd`, which Helm upgrades like any template) and the controller itself.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { CONTROLLER_NAMESPACE, CONTROLLER_SERVICE_ACCOUNT } from "./aws";
import { controllerPlacement, type KarpenterControllerConfig } from "./schema";

export const CHART_REPOSITORY = "oci://public.ecr.aws/karpenter";

/** Seconds the controller gets to hand over leadership and finish in-flight work on shutdown. */
export const CONTROLLER_GRACE_SECONDS = 60;

export interface ControllerValuesArgs {
    clusterName: string;
    region: string;
    interruptionQueue: string;
    controller: KarpenterControllerConfig;
}

/**
 * Helm values of the `karpenter` chart. Pure.
 *
 * The controller must never run on a node it manages (it could consolidate itself away), so it is
 * pinned to the managed system group by label, kept off Karpenter nodes by affinity, and spread
 * over hosts and zones; its PodDisruptionBudget lets a drain evict one replica at a time.
 */
export function controllerValues(args: ControllerValuesArgs): Record<string, unknown> {
    const c = args.controller;
    const placement = controllerPlacement(c);
    return {
        settings: { clusterName: args.clusterName, interruptionQueue: args.interruptionQueue },
        serviceAccount: { create: true, name: CONTROLLER_SERVICE_ACCOUNT },
        replicas: c.replicas,
        podDisruptionBudget: { name: "karpenter", maxUnavailable: 1 },
        priorityClassName: "system-cluster-critical",
        terminationGracePeriodSeconds: CONTROLLER_GRACE_SECONDS,
        // Resolve through the node, not CoreDNS: CoreDNS may itself be waiting for a node.
        dnsPolicy: "Default",
        nodeSelector: { "kubernetes.io/os": "linux", ...placement.nodeSelector },
        tolerations: placement.tolerations.map((t) => ({ ...t })),
        affinity: {
            nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [{ matchExpressions: [{ key: "karpenter.sh/nodepool", operator: "DoesNotExist" }] }],
                },
            },
            podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "kubernetes.io/hostname" }] },
        },
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "ScheduleAnyway" }],
        controller: {
            resources: { requests: { ...c.resources.requests }, limits: { ...c.resources.limits } },
            // Nodes allow one IMDS hop, which a pod cannot use: give the SDK its region directly.
            env: [{ name: "AWS_REGION", value: args.region }],
        },
        logLevel: c.logLevel,
    };
}

export interface KarpenterControllerArgs extends ControllerValuesArgs {
    /** Pinned chart version of both `karpenter-crd` and `karpenter` (they must match). */
    chartVersion: string;
    /** Kubernetes provider of the target cluster. */
    provider: k8s.Provider;
    /**
     * What the controller needs before it starts: its IAM permissions, its Pod Identity
     * association and the managed nodes it runs on. Defaults to `[]`.
     */
    controllerDependsOn?: pulumi.Resource[];
}

/** The Karpenter CRDs and controller. Custom resources must depend on `crds` and `release`. */
export class KarpenterController extends pulumi.ComponentResource {
    /** Installs and upgrades the NodePool, NodeClaim and EC2NodeClass CRDs. */
    public readonly crds: k8s.helm.v3.Release;
    /** The controller Deployment, its PDB, RBAC and service account. */
    public readonly release: k8s.helm.v3.Release;

    constructor(name: string, args: KarpenterControllerArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:karpenter:KarpenterController", name, {}, opts);
        const common = {
            namespace: CONTROLLER_NAMESPACE,
            version: args.chartVersion,
            maxHistory: 10,
            cleanupOnFail: true,
            timeout: 600,
        };
        this.crds = new k8s.helm.v3.Release(
            `${name}-crds`,
            { ...common, name: "karpenter-crd", chart: `${CHART_REPOSITORY}/karpenter-crd` },
            { parent: this, provider: args.provider },
        );
        this.release = new k8s.helm.v3.Release(
            `${name}-release`,
            {
                ...common,
                name: "karpenter",
                chart: `${CHART_REPOSITORY}/karpenter`,
                // The karpenter-crd release owns the CRDs; Helm never upgrades a chart's crds/ directory.
                skipCrds: true,
                // Roll back a failed upgrade instead of leaving a half-updated controller.
                atomic: true,
                values: controllerValues(args),
            },
            { parent: this, provider: args.provider, dependsOn: [this.crds, ...(args.controllerDependsOn ?? [])] },
        );
        this.registerOutputs({ crds: this.crds.status, release: this.release.status });
    }
}
