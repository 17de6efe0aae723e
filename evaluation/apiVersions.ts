/**
 * API versions Kubernetes no longer serves, as data: the release that stopped serving each
 * group/version of a kind, and the version to use instead. An object written against one is
 * refused by the API server of that release and later ("no matches for kind ... in version ...").
 *
 * Source: the Kubernetes Deprecated API Migration Guide,
 * https://kubernetes.io/docs/reference/using-api/deprecation-guide/ ("Removed APIs by release",
 * v1.16 to v1.32; no API was removed in v1.33 or v1.34). Kinds the guide lists for a removed
 * group/version are listed here; a kind with no served replacement (PodSecurityPolicy) says so.
 */
import type { KubernetesKind } from "./kubernetes";
import { KubernetesRelease, parseRelease } from "eks-platform-kernel";

// Releases are read by the kernel's one version parser; the pack imports them with the removals.
export { parseRelease, type KubernetesRelease } from "eks-platform-kernel";

/** One group/version of a kind, and the release that stopped serving it. */
export interface RemovedApi {
    /** `policy/v1beta1`. */
    apiVersion: string;
    kind: string;
    /** The first release that no longer serves it, e.g. `1.25`. */
    removedIn: string;
    /** The group/version to migrate to, or why there is none. */
    replacement: string;
}

const R = (apiVersion: string, kinds: string[], removedIn: string, replacement: string): RemovedApi[] =>
    kinds.map((kind) => ({ apiVersion, kind, removedIn, replacement }));

/** The newest release the guide was read through for this table: a later one's removals are not in it. */
export const REMOVED_APIS_READ_THROUGH = "1.34";

export const REMOVED_APIS: readonly RemovedApi[] = [
    // v1.32
    ...R("flowcontrol.apiserver.k8s.io/v1beta3", ["FlowSchema", "PriorityLevelConfiguration"], "1.32", "flowcontrol.apiserver.k8s.io/v1"),
    // v1.29
    ...R("flowcontrol.apiserver.k8s.io/v1beta2", ["FlowSchema", "PriorityLevelConfiguration"], "1.29", "flowcontrol.apiserver.k8s.io/v1"),
    // v1.27
    ...R("storage.k8s.io/v1beta1", ["CSIStorageCapacity"], "1.27", "storage.k8s.io/v1"),
    // v1.26
    ...R("flowcontrol.apiserver.k8s.io/v1beta1", ["FlowSchema", "PriorityLevelConfiguration"], "1.26", "flowcontrol.apiserver.k8s.io/v1"),
    ...R("autoscaling/v2beta2", ["HorizontalPodAutoscaler"], "1.26", "autoscaling/v2"),
    // v1.25
    ...R("batch/v1beta1", ["CronJob"], "1.25", "batch/v1"),
    ...R("discovery.k8s.io/v1beta1", ["EndpointSlice"], "1.25", "discovery.k8s.io/v1"),
    ...R("events.k8s.io/v1beta1", ["Event"], "1.25", "events.k8s.io/v1"),
    ...R("autoscaling/v2beta1", ["HorizontalPodAutoscaler"], "1.25", "autoscaling/v2"),
    ...R("policy/v1beta1", ["PodDisruptionBudget"], "1.25", "policy/v1"),
    ...R(
        "policy/v1beta1",
        ["PodSecurityPolicy"],
        "1.25",
        "none: PodSecurityPolicy was removed; use Pod Security Admission namespace labels",
    ),
    ...R("node.k8s.io/v1beta1", ["RuntimeClass"], "1.25", "node.k8s.io/v1"),
    // v1.22
    ...R(
        "admissionregistration.k8s.io/v1beta1",
        ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"],
        "1.22",
        "admissionregistration.k8s.io/v1",
    ),
    ...R("apiextensions.k8s.io/v1beta1", ["CustomResourceDefinition"], "1.22", "apiextensions.k8s.io/v1"),
    ...R("apiregistration.k8s.io/v1beta1", ["APIService"], "1.22", "apiregistration.k8s.io/v1"),
    ...R("authentication.k8s.io/v1beta1", ["TokenReview"], "1.22", "authentication.k8s.io/v1"),
    ...R(
        "authorization.k8s.io/v1beta1",
        ["SubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectAccessReview"],
        "1.22",
        "authorization.k8s.io/v1",
    ),
    ...R("certificates.k8s.io/v1beta1", ["CertificateSigningRequest"], "1.22", "certificates.k8s.io/v1"),
    ...R("coordination.k8s.io/v1beta1", ["Lease"], "1.22", "coordination.k8s.io/v1"),
    ...R("extensions/v1beta1", ["Ingress"], "1.22", "networking.k8s.io/v1"),
    ...R("networking.k8s.io/v1beta1", ["Ingress", "IngressClass"], "1.22", "networking.k8s.io/v1"),
    ...R(
        "rbac.authorization.k8s.io/v1beta1",
        ["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"],
        "1.22",
        "rbac.authorization.k8s.io/v1",
    ),
    ...R("scheduling.k8s.io/v1beta1", ["PriorityClass"], "1.22", "scheduling.k8s.io/v1"),
    ...R("storage.k8s.io/v1beta1", ["CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"], "1.22", "storage.k8s.io/v1"),
    // v1.16
    ...R("extensions/v1beta1", ["NetworkPolicy"], "1.16", "networking.k8s.io/v1"),
    ...R(
        "extensions/v1beta1",
        ["PodSecurityPolicy"],
        "1.16",
        "none: PodSecurityPolicy was removed; use Pod Security Admission namespace labels",
    ),
    ...R("extensions/v1beta1", ["DaemonSet", "Deployment", "ReplicaSet"], "1.16", "apps/v1"),
    ...R("apps/v1beta1", ["Deployment", "StatefulSet", "ReplicaSet"], "1.16", "apps/v1"),
    ...R("apps/v1beta2", ["DaemonSet", "Deployment", "StatefulSet", "ReplicaSet"], "1.16", "apps/v1"),
];

const BY_KEY = new Map(REMOVED_APIS.map((r) => [`${r.apiVersion}|${r.kind}`, r]));

/** The removal of this group/version of the kind, or `undefined` when Kubernetes still serves it (or never did: not this table's concern). */
export function removedApi(kind: KubernetesKind): RemovedApi | undefined {
    const apiVersion = kind.group === "" ? kind.version : `${kind.group}/${kind.version}`;
    return BY_KEY.get(`${apiVersion}|${kind.kind}`);
}

/** True when `release` no longer serves the removed API. */
export function removedBy(removed: RemovedApi, release: KubernetesRelease): boolean {
    const at = parseRelease(removed.removedIn) as KubernetesRelease;
    return release.major > at.major || (release.major === at.major && release.minor >= at.minor);
}
