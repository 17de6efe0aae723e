import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { Cluster } from "./cluster";
import type { AccessConfig } from "./access.schema";
import type { NamespaceConfig } from "./namespaces.schema";

export interface AccessArgs {
    clusterName: string;
    access: AccessConfig;
    /** Namespaces with their `editors` and `viewers`. */
    namespaces: Record<string, Pick<NamespaceConfig, "editors" | "viewers">>;
    /** The control plane: its kubeconfig, and the add-ons Kubernetes resources wait for. */
    cluster: Pick<Cluster, "kubeconfig" | "addons">;
    /**
     * The deployer's network path to the API server (security group rules, Transit Gateway
     * routes): the Kubernetes provider waits for it. Defaults to `[]`.
     */
    apiRoute?: pulumi.Resource[];
    /**
     * Where the Kubernetes provider was registered before it moved to this component (the
     * Cluster component's `cluster-k8s`): an alias, so every Kubernetes resource keeps its
     * provider instead of being replaced. Defaults to none.
     */
    formerProvider?: pulumi.Alias;
}

type AccessPolicy = "AmazonEKSClusterAdminPolicy" | "AmazonEKSAdminViewPolicy" | "AmazonEKSEditPolicy" | "AmazonEKSViewPolicy";

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
 * Every access grant the config asks for, one per principal and policy: the deployer and admins
 * cluster-wide, the drift check's role read-only cluster-wide (AmazonEKSAdminViewPolicy: get, list
 * and watch on every kind, Secrets included, which a refresh of Helm releases reads; EKS User
 * Guide, "Review access policy permissions"), editors and viewers scoped to the namespaces that
 * list them. Pure.
 */
export function accessGrants(access: AccessConfig, namespaces: AccessArgs["namespaces"]): Grant[] {
    const grants: Grant[] = [access.deployer, ...access.admins].map((principalArn) => ({
        principalArn,
        policy: "AmazonEKSClusterAdminPolicy",
    }));
    if (access.drift !== undefined) {
        grants.push({ principalArn: access.drift, policy: "AmazonEKSAdminViewPolicy" });
    }
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
 * Whether the caller (`sts:GetCallerIdentity`'s ARN) is the role `roleArn`. An assumed-role ARN
 * carries the role's name but never its path (IAM User Guide, "IAM identifiers": an SSO role
 * `role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Admin_…` is assumed as
 * `assumed-role/AWSReservedSSO_Admin_…/<session>`), and role names are unique in an account
 * whatever their path: partition, account and name decide. Pure.
 */
export function callerIsRole(callerArn: string, roleArn: string): boolean {
    const role = /^arn:([^:]+):iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/.exec(roleArn);
    const caller = /^arn:([^:]+):iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/.exec(roleOfCaller(callerArn));
    return role !== null && caller !== null && role[1] === caller[1] && role[2] === caller[2] && role[3] === caller[3];
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
 * Who can reach the cluster (API authentication mode, no aws-auth ConfigMap), every entry in
 * Pulumi's state: the deployer and admins cluster-wide, namespace teams whose edit/view rights stop
 * at their namespaces, CI's preview role, authenticated but granted nothing, and the drift
 * check's role, which reads everything and writes nothing. `pulumi up`
 * refuses to run as a role that would not be able to reach the cluster after the change. The
 * Kubernetes provider this deployment talks to the cluster with waits for the cluster-admin
 * entries, so the first `up` works whether the deployer or an admin runs it.
 */
export class Access extends pulumi.ComponentResource {
    /** The role running this deployment, checked against `deployer` and `admins` on `up`. */
    public readonly runner: pulumi.Output<string>;
    public readonly principals: string[];
    /** Kubernetes provider of the cluster, usable once the runner's admin entry and network path exist. */
    public readonly provider: k8s.Provider;

    constructor(name: string, args: AccessArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:access:Access", name, {}, opts);
        const allowed = [args.access.deployer, ...args.access.admins];
        const caller = aws.getCallerIdentityOutput({}, { parent: this });
        this.runner = caller.arn.apply((arn) => {
            const role = roleOfCaller(arn);
            // Checked on `up` only: PR previews run under the read-only preview role. By name, not
            // ARN: an assumed role's ARN drops the role's path (an SSO admin role has one).
            if (!pulumi.runtime.isDryRun() && !allowed.some((r) => callerIsRole(arn, r))) {
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
        // unless two principals shared that old key (they could not have been deployed). The
        // deployer's and the preview role's entries never existed under those keys (the deployer
        // had EKS's creator entry, outside state), so they neither get nor claim an old key.
        const legacyOwners = new Map<string, Set<string>>();
        for (const { principalArn } of grants) {
            if (![args.access.deployer, args.access.preview, args.access.drift].includes(principalArn)) {
                const key = legacyPrincipalKey(principalArn);
                legacyOwners.set(key, (legacyOwners.get(key) ?? new Set()).add(principalArn));
            }
        }
        const legacyAlias = (arn: string, suffix = "") => {
            const key = legacyPrincipalKey(arn);
            const owners = legacyOwners.get(key);
            return owners?.size === 1 && owners.has(arn) ? { aliases: [{ name: `${name}-${key}${suffix}` }] } : {};
        };
        const entryFor = (principalArn: string, scope: string) =>
            new aws.eks.AccessEntry(
                `${name}-${principalKey(principalArn)}`,
                { clusterName, principalArn, type: "STANDARD", tags: { "platform/access-scope": scope } },
                // AWS keys an entry by principal: a replacement must delete before it creates.
                { parent: this, deleteBeforeReplace: true, ...legacyAlias(principalArn) },
            );

        const entries = new Map<string, aws.eks.AccessEntry>();
        const clusterAdmin: pulumi.Resource[] = [];
        for (const grant of grants) {
            const clusterWide = grant.namespaces === undefined;
            let entry = entries.get(grant.principalArn);
            if (!entry) {
                const scope = grant.principalArn === args.access.drift ? "drift" : clusterWide ? "cluster" : "namespace";
                entry = entryFor(grant.principalArn, scope);
                entries.set(grant.principalArn, entry);
            }
            const policySuffix = `-${grant.policy.replace(/^AmazonEKS|Policy$/g, "").toLowerCase()}`;
            const association = new aws.eks.AccessPolicyAssociation(
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
            if (grant.policy === "AmazonEKSClusterAdminPolicy") {
                clusterAdmin.push(entry, association);
            }
        }
        // Previews need authentication and API discovery only, which every authenticated identity
        // has (the default system:discovery binding): no access policy, no group (docs/ci.md).
        if (args.access.preview) {
            entries.set(args.access.preview, entryFor(args.access.preview, "preview"));
        }
        this.principals = [...entries.keys()];

        this.provider = new k8s.Provider(
            `${name}-k8s`,
            { kubeconfig: args.cluster.kubeconfig, enableServerSideApply: true, deleteUnreachable: false },
            {
                parent: this,
                dependsOn: [...args.cluster.addons, ...(args.apiRoute ?? []), ...clusterAdmin],
                ...(args.formerProvider ? { aliases: [args.formerProvider] } : {}),
            },
        );
        this.registerOutputs({ runner: this.runner, principals: this.principals });
    }
}
