/**
 * The rules the program, the policy pack, the drain rehearsal and the tools share, in one place:
 * quantities, extended resource names, durations, CIDRs, Kubernetes versions, label syntax and selectors, scheduling, Karpenter's restricted
 * tags, node-role policies, EC2 instance data and node labels, the unknown marker, the policy-config reader.
 * Everything outside `kernel/` imports them by package name, `import { parseQuantity } from
 * "eks-platform-kernel"`; the exports map admits only this entry point and the data files.
 *
 * Only shared facts belong here, free of the policy SDK: the program loads this index too. How the
 * pack judges resources is the evaluation library's (`evaluation/`, `eks-platform-evaluation`).
 *
 * A module is re-exported whole when everything it exports is the package's; one that also exports
 * to its sibling modules only is re-exported by name. test/kernel/index.exports.test.ts fails on
 * an exported name no other package imports.
 */
export * from "./autoMode";
export * from "./autoModeComponents";
export * from "./cidr";
export * from "./config";
export * from "./deployScope";
export * from "./drain";
export * from "./duration";
export * from "./groups";
export * from "./iamPolicy";
export * from "./instanceLabels";
export * from "./instanceTypes";
export * from "./intOrPercent";
export * from "./kubernetesVersion";
export * from "./loadBalancers";
export * from "./messages";
export * from "./names";
export * from "./namespaces";
export * from "./nodeClassTags";
export * from "./nodeRole";
export * from "./podSecurityLevels";
export * from "./quantity";
export * from "./replacement";
export * from "./resourceNames";
export * from "./scheduling";
export * from "./scope";
export {
    formatLabels,
    formatSelector,
    labelKeyProblem,
    type LabelSelector,
    labelValueProblem,
    mapSelector,
    readSelector,
    SelectorIndex,
    selectorMatches,
} from "./selector";
export * from "./stackTrace";
export * from "./unknown";
export * from "./values";
