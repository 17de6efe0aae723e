import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";

export interface ComputeAddonsArgs {
    clusterName: string;
    /** Pinned CoreDNS add-on version. */
    coreDnsVersion: string;
    /**
     * CoreDNS replicas. Two keep DNS up while one node drains; the add-on's PodDisruptionBudget
     * then allows one eviction at a time. Defaults to `2`.
     */
    coreDnsReplicas?: number;
}

/**
 * Add-ons whose pods need nodes to become healthy. Created after the node groups (pass them in
 * `dependsOn`); created earlier, CoreDNS stays DEGRADED and the add-on times out.
 */
export class ComputeAddons extends pulumi.ComponentResource {
    public readonly coreDns: aws.eks.Addon;

    constructor(name: string, args: ComputeAddonsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:cluster:ComputeAddons", name, {}, opts);
        this.coreDns = new aws.eks.Addon(
            `${name}-coredns`,
            {
                clusterName: args.clusterName,
                addonName: "coredns",
                addonVersion: args.coreDnsVersion,
                resolveConflictsOnCreate: "OVERWRITE",
                resolveConflictsOnUpdate: "PRESERVE",
                configurationValues: JSON.stringify({
                    replicaCount: args.coreDnsReplicas ?? 2,
                    podDisruptionBudget: { enabled: true, maxUnavailable: 1 },
                }),
            },
            { parent: this },
        );
        this.registerOutputs({ coreDns: this.coreDns.id });
    }
}
