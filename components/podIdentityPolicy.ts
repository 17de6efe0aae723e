/**
 * IAM documents and names of EKS Pod Identity roles. Pure: no SDK. The rules the stack config
 * checks as well (managed policy ARNs, their keys, administrator statements) are the kernel's
 * (kernel/iamPolicy.ts).
 */
import { createHash } from "crypto";

import type { PolicyDocument, PolicyStatement } from "./iam";

export type { PolicyDocument, PolicyStatement };

/** The service principal EKS Pod Identity assumes roles as. */
export const POD_IDENTITY_PRINCIPAL = "pods.eks.amazonaws.com";

/** IAM's longest role name. */
export const MAX_ROLE_NAME = 64;

/**
 * A role name `<cluster>-<purpose>` that fits IAM's 64 characters: when longer, it is cut and ends
 * with 8 hex digits of the full name's hash, so it stays unique and stable for the same keys. Pure.
 */
export function podIdentityRoleName(clusterName: string, purpose: string): string {
    const full = `${clusterName}-${purpose}`;
    if (full.length <= MAX_ROLE_NAME) {
        return full;
    }
    const hash = createHash("sha256").update(full).digest("hex").slice(0, 8);
    return `${full.slice(0, MAX_ROLE_NAME - hash.length - 1)}-${hash}`;
}
