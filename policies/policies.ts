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
