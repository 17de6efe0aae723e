/**
 * IAM documents and names of EKS Pod Identity roles. Pure: no SDK, so config validation, the
 * components and the tests share one definition of each rule.
 */
import { createHash } from "crypto";

/** One IAM policy statement, as the JSON policy language spells it. */
export interface PolicyStatement {
    Sid?: string;
    Effect: "Allow" | "Deny";
    Action?: string | string[];
    NotAction?: string | string[];
    /** Absent in trust policies, where the role itself is the resource. */
    Resource?: string | string[];
    Principal?: unknown;
    Condition?: Record<string, Record<string, string | string[] | boolean | number>>;
}

export interface PolicyDocument {
    Version: "2012-10-17";
    Id?: string;
    Statement: PolicyStatement[];
}

/** The service principal EKS Pod Identity assumes roles as. */
export const POD_IDENTITY_PRINCIPAL = "pods.eks.amazonaws.com";

/** IAM's longest role name. */
export const MAX_ROLE_NAME = 64;

/** Whose pods may assume a role: one service account of one namespace of one cluster. */
export interface PodIdentitySubject {
    partition: string;
    accountId: string;
    region: string;
    clusterName: string;
    namespace: string;
    serviceAccount: string;
}

/** `arn:<partition>:eks:<region>:<account>:cluster/<name>`. Pure. */
export function clusterArn(s: Pick<PodIdentitySubject, "partition" | "accountId" | "region" | "clusterName">): string {
    return `arn:${s.partition}:eks:${s.region}:${s.accountId}:cluster/${s.clusterName}`;
}

/**
 * Trust of a Pod Identity role, as AWS documents it for EKS Pod Identity: the EKS Auth service
 * assumes it (`sts:AssumeRole`) and tags the session (`sts:TagSession`); the conditions let only
 * this cluster (`aws:SourceArn`, `aws:SourceAccount` against confused deputies) do so, and only for
 * pods of this namespace and service account (the session tags Pod Identity sets). Without them any
 * association in the account could hand the role to any pod. Pure.
 */
export function podIdentityTrustPolicy(s: PodIdentitySubject): PolicyDocument {
    return {
        Version: "2012-10-17",
        Statement: [
            {
                Sid: "EksPodIdentity",
                Effect: "Allow",
                Principal: { Service: POD_IDENTITY_PRINCIPAL },
                Action: ["sts:AssumeRole", "sts:TagSession"],
                Condition: {
                    StringEquals: {
                        "aws:SourceAccount": s.accountId,
                        "aws:RequestTag/kubernetes-namespace": s.namespace,
                        "aws:RequestTag/kubernetes-service-account": s.serviceAccount,
                    },
                    ArnEquals: { "aws:SourceArn": clusterArn(s) },
                },
            },
        ],
    };
}

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
