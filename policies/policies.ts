import type { Policies } from "@pulumi/policy";
import { accessLeastPrivilege } from "./accessLeastPrivilege";
import { apiVersionsServed } from "./apiVersionsServed";
import { appRoleLeastPrivilege } from "./appRoleLeastPrivilege";
import { clusterHardening } from "./clusterHardening";
import { drainRehearsal } from "./drainRehearsal";
import { drainWindow } from "./drainWindow";
import { karpenterNodeClass } from "./karpenterNodeClass";
import { karpenterNodePool } from "./karpenterNodePool";
import { namespaceIsolation } from "./namespaceIsolation";
import { namespaceQuotaRequired } from "./namespaceQuotaRequired";
import { nodegroupUpdateConfig } from "./nodegroupUpdateConfig";
import { nodeLaunchHardening } from "./nodeLaunchHardening";
import { nodeRolePolicies } from "./nodeRolePolicies";
import { pdbAllowsDisruption } from "./pdbAllowsDisruption";
import { podSecurityStandard } from "./podSecurityStandard";
import { subnetEksTags } from "./subnetEksTags";
import { vpcDns } from "./vpcDns";
import { workloadPdbRequired } from "./workloadPdbRequired";
import { workloadPrestopHook } from "./workloadPrestopHook";
import { workloadResources } from "./workloadResources";
import { workloadServiceReplicas } from "./workloadServiceReplicas";
import { workloadTerminationGrace } from "./workloadTerminationGrace";

// Each policy and the helpers its tests and the tools read, by the package's one entry point.
export * from "./accessLeastPrivilege";
export * from "./apiVersionsServed";
export * from "./appRoleLeastPrivilege";
export * from "./clusterHardening";
export * from "./drainRehearsal";
export * from "./drainWindow";
export * from "./karpenterNodeClass";
export * from "./karpenterNodePool";
export * from "./namespaceIsolation";
export * from "./namespaceQuotaRequired";
export * from "./nodegroupUpdateConfig";
export * from "./nodeLaunchHardening";
export * from "./nodeRolePolicies";
export * from "./pdbAllowsDisruption";
export * from "./podSecurityStandard";
export * from "./subnetEksTags";
export * from "./vpcDns";
export * from "./workloadPdbRequired";
export * from "./workloadPrestopHook";
export * from "./workloadResources";
export * from "./workloadServiceReplicas";
export * from "./workloadTerminationGrace";

/** Every policy of the pack, in the order the CLI reports them. */
export const policies: Policies = [
    // Workloads and safe drains
    workloadResources,
    workloadTerminationGrace,
    workloadPrestopHook,
    workloadServiceReplicas,
    workloadPdbRequired,
    pdbAllowsDisruption,
    namespaceQuotaRequired,
    drainWindow,
    drainRehearsal,
    apiVersionsServed,
    // Karpenter
    karpenterNodePool,
    karpenterNodeClass,
    // Network, nodes and control plane
    subnetEksTags,
    vpcDns,
    nodeRolePolicies,
    nodeLaunchHardening,
    nodegroupUpdateConfig,
    clusterHardening,
    // Tenancy and access
    namespaceIsolation,
    podSecurityStandard,
    accessLeastPrivilege,
    appRoleLeastPrivilege,
];
