/**
 * IAM documents and names of EKS Pod Identity roles. Pure: no SDK, so config validation, the
 * components and the tests share one definition of each rule.
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

const POLICY_ARN = /^arn:aws(?:-[a-z]+)*:iam::(aws|\d{12}):policy\/((?:[\w+=,.@-]+\/)*)([\w+=,.@-]+)$/;

/** True for a managed policy ARN, AWS's (`iam::aws:`) or an account's, with or without a path. */
export function isPolicyArn(arn: string): boolean {
    return POLICY_ARN.test(arn);
}

/**
 * A stable key for a managed policy ARN, from its account, path and name (never its position in
 * a list): `arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy` →
 * `aws-service-role-AmazonEBSCSIDriverPolicy`. Pure.
 */
export function policyArnKey(arn: string): string {
    const match = POLICY_ARN.exec(arn);
    if (!match) {
        throw new Error(`${arn} is not a managed policy ARN`);
    }
    const [, account, path, name] = match;
    return [account, ...path.split("/").filter(Boolean), name].join("-");
}

const asList = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/**
 * True for an `Allow` statement on every action of every resource (`Action: "*"` or `"*:*"` with
 * `Resource: "*"`): administrator access in all but name. Pure.
 */
export function allowsEverything(statement: Pick<PolicyStatement, "Effect" | "Action" | "Resource">): boolean {
    const actions = asList(statement.Action);
    const resources = asList(statement.Resource);
    return statement.Effect === "Allow" && actions.some((a) => a === "*" || a === "*:*") && resources.includes("*");
}
