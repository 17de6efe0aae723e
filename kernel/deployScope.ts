/**
 * What scopes a stack's deploy role to its own stack: the prefix of every IAM name the program
 * creates, the permissions boundary every role it creates carries, and the tag its KMS keys carry.
 * The program names its resources with them (components/), and `npm run deployer-policy`
 * (tools/roles/deployRole.ts) grants the deploy role IAM writes, role passing and key
 * administration only within them. Pure.
 *
 * The prefix is the cluster name and a dash: the deploy and preview roles themselves must not
 * match it (docs/roles.md names them `platform-deployer-<stack>` and `platform-preview-<stack>`), or
 * the deploy role could rewrite its own policy.
 */

/** The tag on every KMS key the program creates: the deploy role administers only keys with this tag set to its cluster's name. */
export const PLATFORM_CLUSTER_TAG = "platform/cluster";

/** The prefix of every IAM role and instance profile name the program creates for `clusterName`. */
export function stackNamePrefix(clusterName: string): string {
    return `${clusterName}-`;
}

/**
 * The name of the managed policy every role of the stack carries as its permissions boundary.
 * `npm run deployer-policy -- <stack> --boundary` prints it; docs/roles.md creates it before the first
 * `up`. IAM refuses a role whose boundary does not exist.
 */
export function permissionsBoundaryName(clusterName: string): string {
    return `${clusterName}-boundary`;
}
