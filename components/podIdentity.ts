/**
 * An IAM role for the pods of one Kubernetes service account, through EKS Pod Identity: the role
 * (trust scoped to cluster, namespace and service account), its managed and inline policies, and
 * the association that hands it to the pods.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { policyArnKey } from "eks-platform-kernel";
import { awsContext, clusterArn, permissionsBoundaryArn, podIdentityTrustPolicy, roleArn } from "./iam";
import { PolicyDocument } from "./podIdentityPolicy";

export interface PodIdentityRoleArgs {
    /** Static cluster name; the trust and the association name it. */
    clusterName: string;
    /** AWS region of the cluster (the trust pins the cluster's ARN). */
    region: string;
    namespace: string;
    serviceAccount: string;
    /** Static role name (policies link attachments to roles by name, known at preview). */
    roleName: string;
    description: string;
    /** Managed policy ARNs to attach. Defaults to `[]`. */
    policyArns?: string[];
    /** The role's inline policy. Defaults to none. */
    inlinePolicy?: pulumi.Input<PolicyDocument>;
    /**
     * Create the `aws.eks.PodIdentityAssociation` here. `false` when an EKS add-on declares the
     * association itself (`podIdentityAssociations`). Defaults to `true`.
     */
    associate?: boolean;
    /** The EKS control plane: the association needs the cluster to exist. */
    cluster: pulumi.Resource;
}

/**
 * One service account's role. `arn` is built from the static name, the account and the partition,
 * so it is known at preview (unlike `role.arn`); whoever uses it must also wait for `ready`.
 */
export class PodIdentityRole extends pulumi.ComponentResource {
    public readonly role: aws.iam.Role;
    public readonly arn: pulumi.Output<string>;
    public readonly roleName: string;
    public readonly association?: aws.eks.PodIdentityAssociation;
    /** The role, its policies and its association: what the pods' credentials need. */
    public readonly ready: pulumi.Resource[];

    constructor(name: string, args: PodIdentityRoleArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:iam:PodIdentityRole", name, {}, opts);
        const parent = { parent: this };
        const ctx = awsContext(args.region, parent);
        this.roleName = args.roleName;
        this.role = new aws.iam.Role(
            `${name}-role`,
            {
                name: args.roleName,
                description: args.description,
                // Only this service account of this cluster may assume it (session tags Pod Identity sets).
                assumeRolePolicy: ctx.apply((c) =>
                    JSON.stringify(
                        podIdentityTrustPolicy(args.clusterName, args.namespace, args.serviceAccount, {
                            clusterArn: clusterArn(c, args.clusterName),
                        }),
                    ),
                ),
                permissionsBoundary: ctx.apply((c) => permissionsBoundaryArn(c, args.clusterName)),
            },
            parent,
        );
        const policies: pulumi.Resource[] = (args.policyArns ?? []).map(
            (policyArn) =>
                new aws.iam.RolePolicyAttachment(`${name}-${policyArnKey(policyArn)}`, { role: this.role.name, policyArn }, parent),
        );
        if (args.inlinePolicy !== undefined) {
            policies.push(
                new aws.iam.RolePolicy(
                    `${name}-inline`,
                    { role: this.role.name, policy: pulumi.output(args.inlinePolicy).apply((d) => JSON.stringify(d)) },
                    parent,
                ),
            );
        }
        this.arn = ctx.apply((c) => roleArn(c, args.roleName));
        if (args.associate ?? true) {
            this.association = new aws.eks.PodIdentityAssociation(
                `${name}-association`,
                {
                    clusterName: args.clusterName,
                    namespace: args.namespace,
                    serviceAccount: args.serviceAccount,
                    roleArn: this.arn,
                },
                { parent: this, dependsOn: [args.cluster, this.role] },
            );
        }
        this.ready = [this.role, ...policies, ...(this.association ? [this.association] : [])];
        this.registerOutputs({ arn: this.arn, roleName: this.roleName });
    }
}
