/**
 * The pack's evaluation library: how resources are judged as the policy SDK hands them over:
 * verdicts (violation, undecided, not applicable), the SDK's unknown-value proxy, and the readers
 * of Kubernetes workloads, stacks, autoscalers, drain windows, request paths, removed API versions
 * and Pod Security. It loads `@pulumi/policy`, so only its users depend on it: the pack and the
 * drain rehearsal, and the offline tools and tests, as `eks-platform-evaluation`. The facts it
 * builds on (quantities, durations, selectors, scheduling, messages) are the kernel's
 * (`eks-platform-kernel`), imported by package name; the exports map admits only this entry point.
 *
 * A module is re-exported whole when everything it exports is the package's; one that also exports
 * to its sibling modules only is re-exported by name. test/evaluation/index.exports.test.ts fails on
 * an exported name no other package imports.
 */
export * from "./apiVersions";
export { combinedRange } from "./autoscaling";
export { type CustomWorkloadKind, customWorkloadKinds } from "./customWorkloads";
export * from "./drainWindows";
export {
    type ContainerRef,
    containersOf,
    describeWorkload,
    hasPreStop,
    isKind,
    karpenterVersion,
    karpenterVersionViolation,
    kubernetesKind,
    LONG_RUNNING,
    LONG_RUNNING_KINDS,
    namespaceOf,
    objectName,
    podSpecField,
    podTemplateOf,
    preStopSleep,
    readWorkload,
    REPLICATED,
    SINGLETON_ANNOTATION,
    singletonReason,
    type Workload,
    workloadKind,
    type WorkloadKind,
} from "./kubernetes";
export * from "./nodeHardening";
export * from "./podSecurity";
export * from "./requestPath";
export * from "./resourceType";
export { isUnknownValueError, unknownCheckingProxy } from "./sdk";
export {
    customResourcesByNamespace,
    describeReplicas,
    type Pdb,
    pdbRefusals,
    pdbRejected,
    pdbsByWorkload,
    type PodSource,
    readAutoscalers,
    readCustomWorkloads,
    readNamespace,
    readPdbs,
    readServices,
    readWorkloads,
    replicaBounds,
    servedWorkloads,
    serviceRoutes,
    servingContainers,
    servingServices,
    type StackNamespace,
    type StackResource,
    UndecidedNamespaces,
    withAutoscalers,
} from "./stack";
export * from "./verdicts";
