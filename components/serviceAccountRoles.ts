/**
 * AWS roles of application service accounts, from `namespaces.<ns>.serviceAccounts.<name>`: one
 * Pod Identity role and association per service account, named from the two keys.
 */
import * as pulumi from "@pulumi/pulumi";
import type { NamespaceConfig } from "./namespaces.schema";
import { PodIdentityRole } from "./podIdentity";
import { PolicyDocument, podIdentityRoleName } from "./podIdentityPolicy";

type ServiceAccountConfig = NamespaceConfig["serviceAccounts"][string];

/** The inline policy of a service account, or none when it lists no statements. Pure. */
export function inlinePolicyOf(sa: ServiceAccountConfig): PolicyDocument | undefined {
    return sa.statements.length === 0 ? undefined : { Version: "2012-10-17", Statement: sa.statements };
}

export interface ServiceAccountRolesArgs {
    clusterName: string;
    region: string;
    /** Namespaces keyed by name, as validated by the config module. */
    namespaces: Record<string, Pick<NamespaceConfig, "serviceAccounts">>;
    /** The EKS control plane (associations need it). */
    cluster: pulumi.Resource;
}

export class ServiceAccountRoles extends pulumi.ComponentResource {
    /** Role ARNs by `<namespace>/<service account>`. */
    public readonly roleArns: Record<string, pulumi.Output<string>> = {};
    public readonly roles: Record<string, PodIdentityRole> = {};

    constructor(name: string, args: ServiceAccountRolesArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:iam:ServiceAccountRoles", name, {}, opts);
        for (const [namespace, ns] of Object.entries(args.namespaces)) {
            for (const [serviceAccount, sa] of Object.entries(ns.serviceAccounts)) {
                const key = `${namespace}/${serviceAccount}`;
                this.roles[key] = new PodIdentityRole(
                    `${name}-${namespace}-${serviceAccount}`,
                    {
                        clusterName: args.clusterName,
                        region: args.region,
                        namespace,
                        serviceAccount,
                        roleName: podIdentityRoleName(args.clusterName, `${namespace}-${serviceAccount}`),
                        description: `Pods of service account ${serviceAccount} in namespace ${namespace} of EKS cluster ${args.clusterName}`,
                        policyArns: sa.policyArns,
                        inlinePolicy: inlinePolicyOf(sa),
                        cluster: args.cluster,
                    },
                    { parent: this },
                );
                this.roleArns[key] = this.roles[key].arn;
            }
        }
        this.registerOutputs({ roleArns: this.roleArns });
    }
}
