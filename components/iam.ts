/**
 * IAM documents every component builds the same way: who may assume a role (its trust policy)
 * and which AWS managed policies a node role carries. Pure.
 */
import { managedPolicyArn, NODE_ROLE_POLICIES } from "eks-platform-policies/lib";

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

/**
 * Services that pass session tags when they assume a role: their trust must also allow
 * `sts:TagSession` or the call fails. EKS Pod Identity always tags the session (cluster,
 * namespace, service account); the EKS cluster role's documented trust allows it too.
 */
const TAGGING_SERVICES: readonly string[] = ["pods.eks.amazonaws.com", "eks.amazonaws.com"];

/**
 * The trust policy that lets one AWS service assume a role, optionally only under `condition`.
 * Every role of the platform is trusted through this function. Pure.
 */
export function trustPolicy(service: string, options: { sid?: string; condition?: PolicyStatement["Condition"] } = {}): PolicyDocument {
    return {
        Version: "2012-10-17",
        Statement: [
            {
                ...(options.sid ? { Sid: options.sid } : {}),
                Effect: "Allow",
                Principal: { Service: service },
                Action: TAGGING_SERVICES.includes(service) ? ["sts:AssumeRole", "sts:TagSession"] : "sts:AssumeRole",
                ...(options.condition ? { Condition: options.condition } : {}),
            },
        ],
    };
}

/**
 * Trust for EKS Pod Identity, limited to one service account of one cluster (the agent passes
 * these as session tags), so another cluster's association cannot borrow the role. Pure.
 */
export function podIdentityTrustPolicy(clusterName: string, namespace: string, serviceAccount: string, sid?: string): PolicyDocument {
    return trustPolicy("pods.eks.amazonaws.com", {
        sid,
        condition: {
            StringEquals: {
                "aws:RequestTag/eks-cluster-name": clusterName,
                "aws:RequestTag/kubernetes-namespace": namespace,
                "aws:RequestTag/kubernetes-service-account": serviceAccount,
            },
        },
    });
}

/**
 * The managed policies of a node role keyed by a short name (the suffix of each attachment's
 * resource name): what every node needs to join and run pods, plus AmazonSSMManagedInstanceCore
 * when `ssm` (shell access through Session Manager, no SSH keys or open ports). Pure.
 */
export function nodeRoleManagedPolicies(ssm: boolean, partition = "aws"): Record<string, string> {
    return {
        ...Object.fromEntries(NODE_ROLE_POLICIES.map((p) => [p.key, managedPolicyArn(p.policy, partition)])),
        ...(ssm ? { ssm: managedPolicyArn("AmazonSSMManagedInstanceCore", partition) } : {}),
    };
}
