/**
 * Tag keys an EC2NodeClass may not carry in `spec.tags`. Pure; read by the stack config's
 * validation (before `pulumi up`) and by the `karpenter-nodeclass` policy (any program).
 */

/**
 * Exact keys the Karpenter v1 EC2NodeClass CRD refuses (its CEL rules on `spec.tags`,
 * karpenter-provider-aws `pkg/apis/v1/ec2nodeclass.go`, v1.0–v1.14): Karpenter sets them on
 * every instance itself to find, count and clean up what it launched.
 */
export const KARPENTER_RESTRICTED_TAG_KEYS: readonly string[] = [
    "eks:eks-cluster-name",
    "karpenter.sh/nodepool",
    "karpenter.sh/nodeclaim",
    "karpenter.k8s.aws/ec2nodeclass",
];

/** The CRD refuses every key starting with this (no trailing slash in its rule). */
export const KARPENTER_RESTRICTED_TAG_PREFIX = "kubernetes.io/cluster";

/**
 * Why the EC2NodeClass CRD refuses `key` in `spec.tags` (`"an empty key"`, the key itself, or
 * the key with the prefix rule), or `undefined`. Other `karpenter.sh/` keys, such as
 * `karpenter.sh/discovery`, are allowed.
 */
export function karpenterRestrictedTag(key: string): string | undefined {
    if (key === "") {
        return "an empty key";
    }
    if (key.startsWith(KARPENTER_RESTRICTED_TAG_PREFIX)) {
        return `${key} (keys starting with ${KARPENTER_RESTRICTED_TAG_PREFIX})`;
    }
    return KARPENTER_RESTRICTED_TAG_KEYS.includes(key) ? key : undefined;
}

/** True for a key under `aws:` (any letter case): EC2 reserves them and refuses the launch. */
export function isAwsReservedTagKey(key: string): boolean {
    return key.toLowerCase().startsWith("aws:");
}
