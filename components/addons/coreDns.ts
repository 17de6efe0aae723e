import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";

export interface CoreDnsArgs {
    clusterName: string;
    /** Pinned CoreDNS add-on version. */
    version: string;
    /**
     * CoreDNS replicas. Two keep DNS up while one node drains; the add-on's PodDisruptionBudget
     * then allows one eviction at a time. Defaults to `2`.
     */
    replicas?: number;
}

/**
 * The CoreDNS EKS add-on, registered directly under `parent` with the name `<name>-coredns` (its
 * address since before the add-ons had modules of their own: moving it would replace it).
 */
export function coreDnsAddon(name: string, args: CoreDnsArgs, parent: pulumi.Resource): aws.eks.Addon {
    return new aws.eks.Addon(
        `${name}-coredns`,
        {
            clusterName: args.clusterName,
            addonName: "coredns",
            addonVersion: args.version,
            resolveConflictsOnCreate: "OVERWRITE",
            resolveConflictsOnUpdate: "PRESERVE",
            configurationValues: JSON.stringify({
                replicaCount: args.replicas ?? 2,
                podDisruptionBudget: { enabled: true, maxUnavailable: 1 },
            }),
        },
        { parent },
    );
}
