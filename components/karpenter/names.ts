/**
 * Names and constants Karpenter's components own, kept free of SDK imports so the stack config
 * can validate against them before any resource exists. Pure.
 */
import { CRITICAL_ADDONS_ONLY, type Placement, type Toleration } from "../nodegroups/scheduling";

/** The only `nodeClassRef` group and kind of Karpenter v1 on AWS. */
export const NODE_CLASS_GROUP = "karpenter.k8s.aws";
export const NODE_CLASS_KIND = "EC2NodeClass";

/** The static names of a cluster's Karpenter resources. */
export interface KarpenterNames {
    nodeRole: string;
    /** The controller's Pod Identity role; under the stack's IAM prefix like every role (kernel/deployScope.ts). */
    controllerRole: string;
    interruptionQueue: string;
}

/** Static AWS names derived from the cluster name (policies and Helm values read them at preview). */
export function karpenterNames(clusterName: string): KarpenterNames {
    return {
        nodeRole: `${clusterName}-karpenter-node`,
        controllerRole: `${clusterName}-karpenter-controller`,
        interruptionQueue: `${clusterName}-karpenter`,
    };
}

/** Taints the controller's pods tolerate: system nodes may keep workloads off with CriticalAddonsOnly. */
export const CONTROLLER_TOLERATIONS: readonly Toleration[] = [CRITICAL_ADDONS_ONLY];

/**
 * Where the controller's pods may run: the configured `nodeSelector` and its tolerations. The
 * Helm values, the stack config's check and the release's wait on node groups all read this. Pure.
 */
export function controllerPlacement(controller: { nodeSelector: Readonly<Record<string, string>> }): Placement {
    return { nodeSelector: controller.nodeSelector, tolerations: CONTROLLER_TOLERATIONS };
}
