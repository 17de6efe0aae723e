/**
 * What a compute mode is to the stack config (its config half: its section and its checks), and
 * what those checks see of the rest of the stack. Each mode's `<mode>.schema.ts` declares one and
 * schema.ts registers it; its `<mode>.ts` adds the choice the components use (`ComputeMode`,
 * mode.ts). Pure.
 */
import type { z } from "zod";
import type { CrossSectionIssue } from "../schema";

/** The add-ons of `addons` in stack config a standard cluster installs and a mode may run itself. */
export const REPLACEABLE_ADDONS = ["ebsCsiDriver", "loadBalancerController"] as const;
export type ReplaceableAddon = (typeof REPLACEABLE_ADDONS)[number];

/** The rest of the validated stack, as a mode's checks see it. */
export interface ComputeStack {
    clusterName: string;
    cluster: { version: string };
    karpenter: { enabled: boolean };
    addons: Partial<Record<ReplaceableAddon, unknown>>;
    nodeGroups: Readonly<Record<string, { enabled: boolean }>>;
}

/** One compute mode as the stack config knows it: its config section and its checks. */
export interface ComputeModeSchema<K extends string = string, S extends z.ZodType = z.ZodType> {
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
}
