/**
 * The registry of compute modes: a cluster whose compute the service runs itself, in place of (or
 * beside) the node groups and Karpenter this program installs. Each mode is one module
 * (`autoMode.ts`) that declares everything the program needs of it, and `COMPUTE_MODES` is the one
 * list that registers it: the stack config's section (its key is declared in Pulumi.yaml), its
 * checks against the rest of the stack, the platform parts it runs itself (the program then
 * installs none of them), and what it adds to the cluster, the add-ons and the pools. The config
 * loader, `Cluster`, `ComputeAddons` and index.ts read this list and the choice it yields instead
 * of naming a mode; test/components/compute/index.test.ts holds every registered mode to it.
 * A stack without an active mode is a standard cluster: node groups, optionally Karpenter.
 */
import type * as aws from "@pulumi/aws";
import type * as eks from "@pulumi/eks";
import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import type { CrossSectionIssue } from "../config/karpenter";
import type { Placement } from "../nodegroups/scheduling";
import { autoModeCompute } from "./autoMode";

/** The add-ons of `addons` in stack config a standard cluster installs and a mode may run itself. */
export const REPLACEABLE_ADDONS = ["ebsCsiDriver", "loadBalancerController"] as const;
export type ReplaceableAddon = (typeof REPLACEABLE_ADDONS)[number];

/**
 * What a mode may run itself: the replaceable add-ons, the cluster's pre-compute add-ons (VPC CNI,
 * kube-proxy, Pod Identity agent: components/cluster.ts `preComputeAddons`) and CoreDNS.
 */
export type PlatformPart = ReplaceableAddon | "clusterAddons" | "coreDns";

/** The rest of the validated stack, as a mode's checks see it. */
export interface ComputeStack {
    clusterName: string;
    cluster: { version: string };
    karpenter: { enabled: boolean };
    addons: Partial<Record<ReplaceableAddon, unknown>>;
    nodeGroups: Readonly<Record<string, { enabled: boolean }>>;
}

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

/** One compute mode: its config section, its checks, and the choice the components use. */
export interface ComputeMode<K extends string = string, S extends z.ZodType = z.ZodType> {
    /** Its section key in stack config (and Pulumi.yaml). */
    key: K;
    /** Its name in messages ("EKS Auto Mode"). */
    label: string;
    /** Its section, with the default that leaves it off. */
    schema: S;
    /** A config that turns it on (the registry test renders it). */
    example: z.input<S>;
    /** Whether the section turns the mode on. */
    active(section: z.output<S>): boolean;
    /**
     * The replaceable add-ons it runs itself, each as a message says it (`its own EBS CSI driver
     * (…)`); one it does not list, the stack installs beside it.
     */
    replacesAddons: Readonly<Partial<Record<ReplaceableAddon, string>>>;
    /** Its own checks against the rest of the stack, while it is active. */
    problems(section: z.output<S>, stack: ComputeStack): CrossSectionIssue[];
    /**
     * Whether one of its pools runs a pod that tolerates no taint, and the edit that adds one (the
     * config check names it when no pool of the stack can run such a pod).
     */
    workloadPools(section: z.output<S>): { runsWorkloads: boolean; fix: string };
    /** The choice the components use, while it is active. */
    choice(section: z.output<S>, stack: ComputeChoiceStack): ComputeChoice;
}

/** The modes. Adding a mode is one module, one entry here and its key in Pulumi.yaml. */
export const COMPUTE_MODES = [autoModeCompute] as const;

type Registered = (typeof COMPUTE_MODES)[number];

/** The sections of every mode, keyed as stack config holds them. */
export type ComputeSections = { [M in Registered as M["key"]]: z.output<M["schema"]> };

/** The schemas of every mode's section, to spread into the stack config's object. */
export function computeModeSchemas(): { [M in Registered as M["key"]]: M["schema"] } {
    return Object.fromEntries(COMPUTE_MODES.map((m) => [m.key, m.schema])) as { [M in Registered as M["key"]]: M["schema"] };
}

/** The modes `stack` turns on. */
function activeModes(stack: ComputeSections, modes: readonly ComputeMode[]): { mode: ComputeMode; section: unknown }[] {
    return modes
        .map((mode) => ({ mode, section: (stack as Record<string, unknown>)[mode.key] }))
        .filter(({ mode, section }) => mode.active(section as never));
}

/**
 * The compute modes against the rest of the stack. Pure. At most one mode is on; an add-on a
 * standard cluster installs is required unless the active mode runs it, and refused beside a mode
 * that does (two drivers, or two controllers of one IngressClass, would fight over the same
 * objects); then the active mode's own checks.
 */
export function computeCrossSectionProblems(
    stack: ComputeStack & ComputeSections,
    modes: readonly ComputeMode[] = COMPUTE_MODES,
): CrossSectionIssue[] {
    const active = activeModes(stack, modes);
    const issues: CrossSectionIssue[] = [];
    for (const { mode } of active.slice(1)) {
        issues.push({ path: [mode.key], message: `turns ${mode.label} on beside ${active[0].mode.key}: a cluster runs one compute mode` });
    }
    const [on] = active;
    for (const key of REPLACEABLE_ADDONS) {
        const replaced = on?.mode.replacesAddons[key];
        if (replaced === undefined && stack.addons[key] === undefined) {
            const runners = modes.filter((m) => m.replacesAddons[key] !== undefined).map((m) => m.label);
            issues.push({
                path: ["addons", key],
                message: `is required: ${on ? `${on.mode.label} does not run its own` : "a standard cluster installs it"}${runners.length > 0 ? ` (only ${runners.join(" or ")} runs its own)` : ""}`,
            });
        }
        if (replaced !== undefined && on && stack.addons[key] !== undefined) {
            issues.push({
                path: ["addons", key],
                message: `is set beside ${on.mode.key}: ${on.mode.label} runs ${replaced}; remove it`,
            });
        }
    }
    return on ? [...issues, ...on.mode.problems(on.section, stack)] : issues;
}

/**
 * Whether the active mode's own pools run a pod that tolerates no taint, and the edit that adds
 * one; `undefined` for a standard cluster (its node groups and Karpenter pools are all it has). Pure.
 */
export function modeWorkloadPools(
    stack: ComputeSections,
    modes: readonly ComputeMode[] = COMPUTE_MODES,
): { key: string; label: string; runsWorkloads: boolean; fix: string } | undefined {
    const [on] = activeModes(stack, modes);
    return on ? { key: on.mode.key, label: on.mode.label, ...on.mode.workloadPools(on.section) } : undefined;
}

/** The stack's active mode as the components use it; `undefined` for a standard cluster. */
export function computeChoice(
    stack: ComputeChoiceStack & ComputeSections,
    modes: readonly ComputeMode[] = COMPUTE_MODES,
): ComputeChoice | undefined {
    const [on] = activeModes(stack, modes);
    if (!on) {
        return undefined;
    }
    const choice = on.mode.choice(on.section, stack);
    // What it runs of the add-ons is what its config check refuses beside it: one declaration.
    const replaced = REPLACEABLE_ADDONS.filter((key) => on.mode.replacesAddons[key] !== undefined);
    return { ...choice, runs: new Set<PlatformPart>([...replaced, ...choice.runs]) };
}
