/**
 * The rules the program, the policy pack and the tools share, in one place. Everything outside
 * `policies/` imports them by package name, `import { parseQuantity } from
 * "eks-platform-policies/lib"` (npm links the workspace into node_modules), so the pack stays
 * self-contained for `pulumi policy publish` and nobody reaches into it by relative path.
 *
 * Only modules free of the policy SDK belong here: the program loads this index too.
 */
export type { Cidr } from "./cidr";
export { ALL_IPV4, blockSize, coveredAddresses, formatCidr, parseCidr } from "./cidr";
export type { ConfigSchemaLike } from "./config";
export { configDefaults, configProblems, PolicyConfigError, readConfig } from "./config";
export { POD_GRACE_SECONDS, SPOT_NOTICE_SECONDS } from "./drain";
export { BUILT_IN_GROUPS, isBuiltInGroup } from "./groups";
export { formatSeconds, KARPENTER_DURATION, karpenterDuration, parseDuration } from "./duration";
export type { Architecture, InstanceTypeInfo } from "./instanceTypes";
export {
    amiTypeArchitecture,
    architectureFromName,
    instanceTypeInfo,
    isInstanceFamily,
    isInstanceType,
    kubernetesArch,
} from "./instanceTypes";
export {
    isAwsReservedTagKey,
    KARPENTER_RESTRICTED_TAG_KEYS,
    KARPENTER_RESTRICTED_TAG_PREFIX,
    karpenterRestrictedTag,
} from "./nodeClassTags";
export { DNS_SUBDOMAIN, namespaceNameProblem, objectNameProblem } from "./names";
export { count, isUndecided, listOf, undecided, UNDECIDED_PREFIX, violation } from "./messages";
export type { NodeRolePolicy } from "./nodeRole";
export { managedPolicyArn, managedPolicyName, NODE_ROLE_POLICIES } from "./nodeRole";
export { ENFORCE_LABEL, ENFORCE_VERSION_LABEL, POD_SECURITY_LEVELS, podSecurityLevel } from "./podSecurityLevels";
export type { PodSecurityLevel } from "./podSecurityLevels";
export { compareQuantities, isQuantity, parseQuantity } from "./quantity";
export { IDENTITY_ONLY_KINDS, INPUT_TAG, inputScope, MANIFEST_INPUT } from "./scope";
export type { CapacityType, NodeOperator, NodePlacement, NodeRequirement, Taint, TaintEffect, Toleration } from "./scheduling";
export {
    capacityTypesAllowed,
    formatTaint,
    NODE_TEMPLATE_LABEL_TAG,
    NODE_TEMPLATE_TAINT_TAG,
    nodeRequirementMatches,
    nodeTemplateTags,
    readNodeTemplateTags,
    tolerates,
    untoleratedTaint,
} from "./scheduling";
export { formatLabels, formatSelector, labelKeyProblem, labelValueProblem, mapSelector, readSelector, selectorMatches } from "./selector";
export type { LabelSelector } from "./selector";
export { isUnknownSentinel, UNKNOWN, UNKNOWN_SENTINELS } from "./unknown";
