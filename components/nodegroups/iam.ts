import type * as pulumi from "@pulumi/pulumi";
import { createEc2NodeRole, type NodeRole, nodeRoleManagedPolicies } from "../iam";
import { nodeRoleName } from "./common.schema";

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
