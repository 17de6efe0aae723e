/**
 * The kernel's rules that judge resources as the policy SDK hands them over: verdicts (violation,
 * undecided, not applicable), the SDK's unknown-value proxy, and the readers of Kubernetes
 * workloads, stacks and Pod Security. They load `@pulumi/policy`, so the program never imports
 * this entry point; the pack, the drain rehearsal and the offline tools do, as
 * `eks-platform-kernel/policy`.
 */
export * from "./apiVersions";
export * from "./autoscaling";
export * from "./customWorkloads";
export * from "./drainWindows";
export * from "./kubernetes";
export * from "./nodeHardening";
export * from "./podSecurity";
export * from "./requestPath";
export * from "./resourceType";
export * from "./sdk";
export * from "./stack";
export * from "./verdicts";
