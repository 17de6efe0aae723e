/**
 * The API groups the Kubernetes API server serves itself (Kubernetes 1.34; `""` is the core group):
 * any other group belongs to a custom resource (a CRD, or an aggregated API such as
 * `metrics.k8s.io`), even one under `k8s.io` (`gateway.networking.k8s.io`,
 * `snapshot.storage.k8s.io` are CRDs). Pure; read by the pack and by the manifest gate's validation.
 */
const BUILT_IN_GROUPS: ReadonlySet<string> = new Set([
    "",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "apiregistration.k8s.io",
    "apps",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "coordination.k8s.io",
    "discovery.k8s.io",
    "events.k8s.io",
    // Removed in 1.16–1.22, but the API server's own: a kind there is refused, never a custom resource.
    "extensions",
    "flowcontrol.apiserver.k8s.io",
    "internal.apiserver.k8s.io",
    "networking.k8s.io",
    "node.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "resource.k8s.io",
    "scheduling.k8s.io",
    "storage.k8s.io",
    "storagemigration.k8s.io",
]);

/** True for a group the API server serves itself (`""` or `core` for the core group); anything else is a custom resource's. */
export function isBuiltInGroup(group: string): boolean {
    return BUILT_IN_GROUPS.has(group === "core" ? "" : group);
}
