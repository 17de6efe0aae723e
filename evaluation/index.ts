/**
 * The pack's evaluation library: how resources are judged as the policy SDK hands them over:
 * verdicts (violation, undecided, not applicable), the SDK's unknown-value proxy, and the readers
 * of Kubernetes workloads, stacks, autoscalers, drain windows, request paths, removed API versions
 * and Pod Security. It loads `@pulumi/policy`, so only its users depend on it: the pack and the
 * drain rehearsal, and the offline tools and tests, as `eks-platform-evaluation`. The facts it
 * builds on (quantities, durations, selectors, scheduling, messages) are the kernel's
 * (`eks-platform-kernel`), imported by package name; the exports map admits only this entry point.
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
