import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { accountContext, nodeRoleManagedPolicies, roleArn, stackPermissionsBoundary, trustPolicy } from "../iam";

/** The static node role name `<cluster>-<group>-node` (policies and Karpenter link through names). Pure. */
export function nodeRoleName(clusterName: string, group: string): string {
    return `${clusterName}-${group}-node`;
}

export interface NodeRole {
    role: aws.iam.Role;
    /**
     * The role's ARN built from its static name, the account and the partition: known at preview
     * (unlike `role.arn`), so policies can link node groups and access entries to the role by name.
     * Whoever uses it must also depend on `role`.
     */
    arn: pulumi.Output<string>;
    /** The policy attachments; nodes need them before they can join. */
    attachments: aws.iam.RolePolicyAttachment[];
}

/** Creates a node role with a static name and its managed policy attachments under `parent`. */
export function createNodeRole(
    name: string,
    args: { clusterName: string; group: string; ssm: boolean; tags?: Record<string, string> },
    parent: pulumi.Resource,
): NodeRole {
    const role = new aws.iam.Role(
        `${name}-node`,
        {
            name: nodeRoleName(args.clusterName, args.group),
            description: `EKS ${args.clusterName} nodes of group ${args.group}`,
            assumeRolePolicy: JSON.stringify(trustPolicy("ec2.amazonaws.com")),
            permissionsBoundary: stackPermissionsBoundary(args.clusterName, { parent }),
            tags: args.tags,
        },
        { parent },
    );
    const attachments = Object.entries(nodeRoleManagedPolicies(args.ssm)).map(
        ([short, policyArn]) => new aws.iam.RolePolicyAttachment(`${name}-node-${short}`, { role: role.name, policyArn }, { parent }),
    );
    const arn = accountContext({ parent }).apply((c) => roleArn(c, nodeRoleName(args.clusterName, args.group)));
    return { role, arn, attachments };
}
