/**
 * What an add-on of the registry (registry.ts) declares: everything the program, the tools and the
 * rehearsal need of it, in its own module, so that none of them names an add-on. Its config section
 * is its entry in `addons` (schema.ts, the config half the loader reads without importing
 * components); the rest is here. test/components/addons/registry.test.ts fails naming each part a
 * registered add-on lacks.
 */
import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import type { AddonsConfig, addonsSchema } from "./schema";
import type { Placement } from "../nodegroups/schema";

/** A section of `addons` in stack config: the key an add-on is registered by. */
export type AddonKey = keyof AddonsConfig;

/**
 * Where an add-on comes from: an EKS add-on (by its EKS name) or a Helm chart (the last path part
 * of the release's `chart`). It is also the key of the add-on's pods model in the rehearsal
 * (`ADDON_SPECS` in rehearsal/addons.ts, matched on `eksAddon` or `helmChart`), which lives in the
 * rehearsal because the pack runs it and can never import components/ (eslint.boundaries.mjs).
 */
export type AddonSource = { eksAddon: string } | { helmChart: string };

/**
 * What a stack with the add-on offers workloads, as `npm run manifests -- fit`
 * (tools/manifests/platformFit.ts) reads it: the StorageClass provisioners it serves, the
 * IngressClass controllers, the `spec.loadBalancerClass` it serves on Services (and whose
 * annotations it reads), the resource metrics API.
 */
export interface AddonProvisions {
    storageProvisioners?: readonly string[];
    ingressControllers?: readonly string[];
    loadBalancerClass?: string;
    metricsApi?: boolean;
}

/** What `ComputeAddons` hands each add-on it installs. */
export interface AddonContext {
    /** The `ComputeAddons` name: children are named `${name}-<role>`. */
    name: string;
    parent: pulumi.Resource;
    clusterName: string;
    region: string;
    vpcId: pulumi.Input<string>;
    kubernetesVersion: string;
    provider: k8s.Provider;
    /** The EKS control plane (Pod Identity associations need it). */
    cluster: pulumi.Resource;
    /** Where the platform's controllers run (`addonPlacement`). */
    placement: Placement;
    /** Protect what must survive a mistaken delete (keys). Defaults to `false`. */
    protect?: boolean;
    /** The deploy role, administrator of the platform's keys (components/iam.ts, stackKeyPolicy). */
    keyAdministrator: string;
    /** CoreDNS, when the program installs it: what calls AWS APIs by name starts after it. */
    coreDns?: pulumi.Resource;
}

/** One add-on of the registry. */
export interface PlatformAddon<K extends AddonKey = AddonKey, R extends pulumi.Resource = pulumi.Resource> {
    /** Its section in `addons` (schema.ts, Pulumi.yaml, each stack file). */
    key: K;
    /** Its name in messages and docs ("AWS Load Balancer Controller"). */
    label: string;
    source: AddonSource;
    /**
     * Whether a compute mode may run it itself (`REPLACEABLE_ADDONS`, components/compute/mode.schema.ts):
     * its section is then optional, and required only when no active mode runs it.
     */
    replaceable: boolean;
    /**
     * The config key that pins each EKS add-on it installs, by EKS add-on name: `npm run preflight`
     * (tools/preflight/preflightChecks.ts) names it when EKS offers no such build.
     */
    preflightConfigKeys: Readonly<Record<string, string>>;
    provides: AddonProvisions;
    /**
     * Every resource type its `install` registers: each needs the deploy role's actions
     * (`DEPLOYER_ACTIONS`, tools/roles/deployerActions.ts) unless it makes no AWS call.
     */
    resourceTypes: readonly string[];
    /** A section that installs it (the registry test renders it). */
    example: NonNullable<z.input<typeof addonsSchema>[K]>;
    /** Creates it under `ctx.parent`. */
    install(ctx: AddonContext, config: NonNullable<AddonsConfig[K]>): R;
}
