/**
 * What a compute mode is to the program: its config half (`ComputeModeSchema`, mode.schema.ts)
 * and the choice the components use. Each mode's module (`autoMode.ts`) declares one; index.ts
 * registers it.
 */
import type * as aws from "@pulumi/aws";
import type * as eks from "@pulumi/eks";
import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import type { Placement } from "../nodegroups/schema";
import type { ComputeModeSchema, ComputeStack, ReplaceableAddon } from "./mode.schema";

/**
 * What a mode may run itself: the replaceable add-ons, the cluster's pre-compute add-ons (VPC CNI,
 * kube-proxy, Pod Identity agent: components/cluster.ts `preComputeAddons`) and CoreDNS.
 */
export type PlatformPart = ReplaceableAddon | "clusterAddons" | "coreDns";

/** What a mode's choice is made of besides its section: the stack's name, region and node groups. */
export type ComputeChoiceStack = Pick<ComputeStack, "clusterName" | "nodeGroups"> & { region: string };

/** What a mode adds to the control plane (created by `Cluster`, under it). */
export interface ComputeClusterParts {
    /** What the control plane waits on: policies on its role, the mode's node role. */
    dependsOn: pulumi.Resource[];
    /** The `eks.Cluster` options the mode sets. */
    options: Partial<eks.ClusterOptions>;
    /** The mode's node role name (stack output `autoModeNodeRoleName`). */
    nodeRoleName?: pulumi.Output<string>;
}

/** A stack's active mode, as the components use it. */
export interface ComputeChoice {
    /** The mode's key in stack config. */
    mode: string;
    /** Whether an enabled node group runs beside it. */
    nodeGroups: boolean;
    /**
     * The parts it runs itself: the program installs none of these. The replaceable add-ons among
     * them are the mode's `replacesAddons` (the registry adds them); the mode's own `choice` names
     * only the cluster's add-ons and CoreDNS.
     */
    runs: ReadonlySet<PlatformPart>;
    /** Where the platform's controllers run when it decides (else the system node group's placement). */
    placement(hasSystemNodes: boolean): Placement | undefined;
    /** Its parts of the control plane, created under `parent` (the `Cluster`) with the cluster's `role`. */
    withCluster(a: {
        name: string;
        clusterName: string;
        role: aws.iam.Role;
        /** The nodes' security group (components/cluster.ts), whose ingress a mode's load balancers may need to open. */
        nodeSecurityGroupArn?: pulumi.Input<string>;
        parent: pulumi.Resource;
    }): ComputeClusterParts;
    /**
     * Its parts of the add-ons (storage and ingress classes, a volume key), under `parent` (the
     * `ComputeAddons`); `keyAdministrator` and `protect` as for the EBS CSI driver's key.
     */
    withAddons(a: {
        name: string;
        clusterName: string;
        provider: k8s.Provider;
        keyAdministrator: string;
        protect?: boolean;
        parent: pulumi.Resource;
    }): pulumi.Resource | undefined;
    /** Its own pools, created after the node groups; the add-ons wait on them. */
    pools(a: { clusterName: string; cluster: pulumi.Resource; provider: k8s.Provider }): pulumi.Resource | undefined;
}

/** One compute mode: its config half, and the choice the components use. */
export interface ComputeMode<K extends string = string, S extends z.ZodType = z.ZodType> extends ComputeModeSchema<K, S> {
    /** The choice the components use, while it is active. */
    choice(section: z.output<S>, stack: ComputeChoiceStack): ComputeChoice;
}
