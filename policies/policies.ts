/**
 * The pack's policies: one line per policy, in the order the CLI reports them. Each module
 * declares its policy (`declare.ts`) as it loads, so these lines are both the package's named
 * exports (each policy's const and the helpers its tests and the tools read) and the registry
 * `policies` below; test/policies/policies.catalogue.test.ts holds the two to the same order.
 */
import type { Policies } from "@pulumi/policy";
import { declaredPolicies } from "./declare";

// Workloads and safe drains
export * from "./workloadResources";
export * from "./workloadTerminationGrace";
export * from "./workloadPrestopHook";
export * from "./workloadRequestPath";
export * from "./workloadServiceReplicas";
export * from "./workloadPdbRequired";
export * from "./pdbAllowsDisruption";
export * from "./namespaceQuotaRequired";
export * from "./drainWindow";
export * from "./drainRehearsal";
export * from "./apiVersionsServed";
// Karpenter
export * from "./karpenterNodePool";
export * from "./karpenterNodeClass";
// Network, nodes and control plane
export * from "./subnetEksTags";
export * from "./vpcDns";
export * from "./nodeRolePolicies";
export * from "./nodeLaunchHardening";
export * from "./nodegroupUpdateConfig";
export * from "./clusterHardening";
// Tenancy and access
export * from "./namespaceIsolation";
export * from "./podSecurityStandard";
export * from "./accessLeastPrivilege";
export * from "./appRoleLeastPrivilege";

export { declarationOf, declareResourcePolicy, declareStackPolicy } from "./declare";
export type { Knob, Knobs, PolicyDeclaration, PolicyDocs } from "./declare";
// Each policy's level per environment (the table `npm run docs` writes config/<stack>.json from).
export { POLICY_LEVELS, STACK_TIERS, TIERS } from "./config/levels";
export type { Tier, TierSetting } from "./config/levels";

/** Every policy of the pack, in the order the CLI reports them: the lines above. */
export const policies: Policies = declaredPolicies();
