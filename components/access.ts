import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import type { AccessConfig, NamespaceConfig } from "./config";

export interface AccessArgs {
    clusterName: string;
    access: AccessConfig;
    /** Namespaces with their `editors` and `viewers`. */
    namespaces: Record<string, Pick<NamespaceConfig, "editors" | "viewers">>;
}

type AccessPolicy = "AmazonEKSClusterAdminPolicy" | "AmazonEKSEditPolicy" | "AmazonEKSViewPolicy";

/** The ARN of an EKS access policy in the partition of `principalArn`. Pure. */
export function accessPolicyArn(policy: AccessPolicy, principalArn: string): string {
    const partition = principalArn.split(":")[1] ?? "aws";
    return `arn:${partition}:eks::aws:cluster-access-policy/${policy}`;
}

export interface Grant {
    principalArn: string;
    policy: AccessPolicy;
    /** Namespaces the grant is scoped to; `undefined` for cluster-wide. */
    namespaces?: string[];
}

/**
 * Every access grant the config asks for, one per principal and policy: admins cluster-wide,
 * editors and viewers scoped to the namespaces that list them. Pure.
 */
export function accessGrants(access: AccessConfig, namespaces: AccessArgs["namespaces"]): Grant[] {
    const grants: Grant[] = access.admins.map((principalArn) => ({ principalArn, policy: "AmazonEKSClusterAdminPolicy" }));
    const scoped = new Map<string, Grant>();
    for (const [ns, config] of Object.entries(namespaces)) {
        for (const [list, policy] of [
            [config.editors, "AmazonEKSEditPolicy"],
            [config.viewers, "AmazonEKSViewPolicy"],
        ] as const) {
            for (const principalArn of list) {
                const key = `${principalArn} ${policy}`;
                const grant = scoped.get(key) ?? { principalArn, policy, namespaces: [] };
                grant.namespaces?.push(ns);
                scoped.set(key, grant);
            }
        }
    }
    return [...grants, ...scoped.values()];
}

/** The role behind an STS caller ARN: `…:assumed-role/<role>/<session>` → `…:role/<role>`. Pure. */
export function roleOfCaller(callerArn: string): string {
    const match = /^arn:([^:]+):sts::(\d{12}):assumed-role\/([^/]+)\/.+$/.exec(callerArn);
    return match ? `arn:${match[1]}:iam::${match[2]}:role/${match[3]}` : callerArn;
}

/**
 * Stable suffix for a principal's child resources: account, path and name (`111111111111-team`,
 * `111111111111-eng/team`), so two roles named alike in other accounts or paths never share a
 * name. Role names cannot contain `/`, so the path stays unambiguous. Pure.
 */
export function principalKey(arn: string): string {
    const match = /^arn:[^:]+:iam::(\d{12}):role\/(.+)$/.exec(arn);
    return match ? `${match[1]}-${match[2]}` : arn;
}

/** The name a principal's resources had before keys carried account and path (kept as an alias). */
function legacyPrincipalKey(arn: string): string {
    return arn.split("/").pop() ?? arn;
}

/**
 * Who can reach the cluster (API authentication mode, no aws-auth ConfigMap): cluster admins,
 * and namespace teams whose edit/view rights stop at their namespaces. The deployer keeps the
 * admin entry EKS created for the cluster creator; `pulumi up` refuses to run as a role that
 * would not be able to reach the cluster after the change.
 */
export class Access extends pulumi.ComponentResource {
    /** The role running this deployment, checked against `deployer` and `admins` on `up`. */
    public readonly runner: pulumi.Output<string>;
    public readonly principals: string[];

    constructor(name: string, args: AccessArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:access:Access", name, {}, opts);
        const allowed = new Set([args.access.deployer, ...args.access.admins]);
        const caller = aws.getCallerIdentityOutput({}, { parent: this });
        this.runner = caller.arn.apply((arn) => {
            const role = roleOfCaller(arn);
            // Checked on `up` only: PR previews often run under a read-only role.
            if (!pulumi.runtime.isDryRun() && !allowed.has(role)) {
                throw new Error(
                    `${role} runs this update but is neither access.deployer nor in access.admins: after it, ` +
                        "it could not reach the cluster. Run as the deployer role or add this role to access.admins.",
                );
            }
            return role;
        });
        // Entries wait for the check, so a refused runner changes nothing.
        const clusterName = this.runner.apply(() => args.clusterName);

        const grants = accessGrants(args.access, args.namespaces);
        // Resources created under the old role-name-only keys keep their state through an alias,
        // unless two principals shared that old key (they could not have been deployed).
        const legacyKeys = grants.map((g) => legacyPrincipalKey(g.principalArn));
        const legacyAlias = (arn: string, suffix = "") => {
            const key = legacyPrincipalKey(arn);
            const owners = new Set(grants.filter((_, i) => legacyKeys[i] === key).map((g) => g.principalArn));
            return owners.size === 1 ? { aliases: [{ name: `${name}-${key}${suffix}` }] } : {};
        };
        const entries = new Map<string, aws.eks.AccessEntry>();
        for (const grant of grants) {
            let entry = entries.get(grant.principalArn);
            if (!entry) {
                const clusterWide = grant.namespaces === undefined;
                entry = new aws.eks.AccessEntry(
                    `${name}-${principalKey(grant.principalArn)}`,
                    {
                        clusterName,
                        principalArn: grant.principalArn,
                        type: "STANDARD",
                        tags: { "platform/access-scope": clusterWide ? "cluster" : "namespace" },
                    },
                    // AWS keys an entry by principal: a replacement must delete before it creates.
                    { parent: this, deleteBeforeReplace: true, ...legacyAlias(grant.principalArn) },
                );
                entries.set(grant.principalArn, entry);
            }
            const policySuffix = `-${grant.policy.replace(/^AmazonEKS|Policy$/g, "").toLowerCase()}`;
            new aws.eks.AccessPolicyAssociation(
                `${name}-${principalKey(grant.principalArn)}${policySuffix}`,
                {
                    clusterName,
                    principalArn: entry.principalArn,
                    policyArn: accessPolicyArn(grant.policy, grant.principalArn),
                    accessScope: grant.namespaces ? { type: "namespace", namespaces: grant.namespaces } : { type: "cluster" },
                },
                // AWS keys an association by principal and policy (associating again only rewrites
                // the scope): created first, the replacement's deletion of the old one would remove
                // the access it just granted. A namespace list change replaces it (no update exists).
                { parent: this, deleteBeforeReplace: true, ...legacyAlias(grant.principalArn, policySuffix) },
            );
        }
        this.principals = [...entries.keys()];
        this.registerOutputs({ runner: this.runner, principals: this.principals });
    }
}
