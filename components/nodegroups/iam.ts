import type * as pulumi from "@pulumi/pulumi";
import { createEc2NodeRole, type NodeRole, nodeRoleManagedPolicies } from "../iam";

/** The static node role name `<cluster>-<group>-node` (policies and Karpenter link through names). Pure. */
export function nodeRoleName(clusterName: string, group: string): string {
    return `${clusterName}-${group}-node`;
}

export type { NodeRole } from "../iam";

/** Creates a node role with a static name and its managed policy attachments under `parent`. */
export function createNodeRole(
    name: string,
    args: { clusterName: string; group: string; ssm: boolean; tags?: Record<string, string> },
    parent: pulumi.Resource,
): NodeRole {
    return createEc2NodeRole(
        `${name}-node`,
        {
            roleName: nodeRoleName(args.clusterName, args.group),
            clusterName: args.clusterName,
            description: `EKS ${args.clusterName} nodes of group ${args.group}`,
            policies: nodeRoleManagedPolicies(args.ssm),
            tags: args.tags,
        },
        parent,
    );
}
