/**
 * The Pod Security Standards levels and the namespace labels Pod Security Admission reads them
 * from. Pure: the stack config (which labels the platform's namespaces) and the pack share them.
 */

/** Pod Security Standards levels, least to most restrictive. */
export const POD_SECURITY_LEVELS = ["privileged", "baseline", "restricted"] as const;
export type PodSecurityLevel = (typeof POD_SECURITY_LEVELS)[number];

/** `undefined` when `value` is not a level. */
export function podSecurityLevel(value: unknown): PodSecurityLevel | undefined {
    return POD_SECURITY_LEVELS.find((l) => l === value);
}

/** The label of a namespace's enforced level, and of the policy version it is pinned to. */
export const ENFORCE_LABEL = "pod-security.kubernetes.io/enforce";
export const ENFORCE_VERSION_LABEL = "pod-security.kubernetes.io/enforce-version";
