/**
 * The namespaces every cluster has before anyone creates one. Pure: the stack config refuses to
 * manage them, and the pack's tenancy policies exempt them by default.
 */

/** The namespaces Kubernetes creates for its own objects (control plane, node leases, cluster info). */
export const SYSTEM_NAMESPACES = ["kube-system", "kube-public", "kube-node-lease"] as const;

/** The system namespaces and `default`: no team owns them. */
export const RESERVED_NAMESPACES = [...SYSTEM_NAMESPACES, "default"] as const;
