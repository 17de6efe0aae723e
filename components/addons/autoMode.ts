/**
 * What a stack on EKS Auto Mode still creates for storage and load balancing: EKS runs the EBS CSI
 * driver and the load balancer controller itself but creates no StorageClass and no IngressClass
 * ("EKS Auto Mode does not create a StorageClass for you", create-storage-class.adoc; the
 * IngressClass and its IngressClassParams, auto-configure-alb.adoc). Same names as a standard
 * stack's (`gp3`, `alb`), so a workload's manifests do not change when a stack moves to Auto Mode;
 * Services of type LoadBalancer get Auto Mode's `eks.amazonaws.com/nlb` as the cluster default.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { AUTO_MODE_COMPONENTS, LOAD_BALANCER_CONTROLLER_API } from "eks-platform-kernel";
import { DEFAULT_CLASS_ANNOTATION, DEFAULT_STORAGE_CLASS } from "./ebsCsi";

/** The names EKS Auto Mode's components answer to: the kernel's, which the tools read too. */
export { AUTO_MODE_COMPONENTS };

/** The default StorageClass on Auto Mode: gp3, encrypted, bound where the pod lands, expandable. Pure. */
export function autoModeStorageClass(reclaimPolicy: "Delete" | "Retain" = "Delete"): k8s.storage.v1.StorageClassArgs {
    return {
        metadata: { name: DEFAULT_STORAGE_CLASS, annotations: { [DEFAULT_CLASS_ANNOTATION]: "true" } },
        provisioner: AUTO_MODE_COMPONENTS.provisioner,
        // The account's EBS key: a customer-managed key would need a policy on the cluster role
        // (create-storage-class.adoc), which this program does not grant yet.
        parameters: { type: "gp3", encrypted: "true" },
        reclaimPolicy,
        volumeBindingMode: "WaitForFirstConsumer",
        allowVolumeExpansion: true,
    };
}

/** The `alb` IngressClassParams and IngressClass on Auto Mode. Pure. */
export function autoModeIngressClass(): { params: Record<string, unknown>; ingressClass: k8s.networking.v1.IngressClassArgs } {
    const name = LOAD_BALANCER_CONTROLLER_API.ingressClass;
    return {
        // Internal unless an Ingress asks otherwise is the controller's default; no setting here
        // overrides a team's annotations.
        params: { apiVersion: AUTO_MODE_COMPONENTS.paramsApiVersion, kind: "IngressClassParams", metadata: { name }, spec: {} },
        ingressClass: {
            metadata: { name },
            spec: {
                controller: AUTO_MODE_COMPONENTS.ingressController,
                parameters: { apiGroup: "eks.amazonaws.com", kind: "IngressClassParams", name },
            },
        },
    };
}

/**
 * The ConfigMap that turns on Auto Mode's network policy controller: until it exists,
 * NetworkPolicy objects "are accepted but not enforced" (EKS User Guide, auto-net-pol.adoc, step 1),
 * and every namespace's default-deny here would be a silent no-op. Where node groups run beside
 * Auto Mode, the VPC CNI add-on owns this ConfigMap (its `enableNetworkPolicy`), so it is not
 * created then. Pure.
 */
export function networkPolicyControllerConfigMap(): k8s.core.v1.ConfigMapArgs {
    return {
        metadata: { name: "amazon-vpc-cni", namespace: "kube-system" },
        data: { "enable-network-policy-controller": "true" },
    };
}

export interface AutoModeAddonsArgs {
    provider: k8s.Provider;
    /** Create the network policy controller's ConfigMap (no VPC CNI add-on owns it). Defaults to `true`. */
    networkPolicyController?: boolean;
}

/** The StorageClass and IngressClass of a stack on EKS Auto Mode. */
export class AutoModeAddons extends pulumi.ComponentResource {
    public readonly storageClass: k8s.storage.v1.StorageClass;
    public readonly ingressClass: k8s.networking.v1.IngressClass;
    public readonly networkPolicyController?: k8s.core.v1.ConfigMap;

    constructor(name: string, args: AutoModeAddonsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:addons:AutoModeAddons", name, {}, opts);
        const k8sOpts = { parent: this, provider: args.provider };
        this.storageClass = new k8s.storage.v1.StorageClass(`${name}-${DEFAULT_STORAGE_CLASS}`, autoModeStorageClass(), k8sOpts);
        const { params, ingressClass } = autoModeIngressClass();
        const ingressParams = new k8s.apiextensions.CustomResource(
            `${name}-ingress-params`,
            params as k8s.apiextensions.CustomResourceArgs,
            k8sOpts,
        );
        this.ingressClass = new k8s.networking.v1.IngressClass(`${name}-ingress-class`, ingressClass, {
            ...k8sOpts,
            dependsOn: [ingressParams],
        });
        if (args.networkPolicyController ?? true) {
            this.networkPolicyController = new k8s.core.v1.ConfigMap(`${name}-network-policy`, networkPolicyControllerConfigMap(), k8sOpts);
        }
        this.registerOutputs({});
    }
}
