/**
 * The compute modes' sections of the stack config: the registry of their config halves
 * (`COMPUTE_MODE_SCHEMAS`), the schemas the stack config spreads into its object, and the checks
 * of the modes against the rest of the stack (at most one on, the add-ons each one runs itself,
 * the mode's own). components/config reads these; the choice the components use is index.ts's.
 * Pure.
 */
import type { z } from "zod";
import type { CrossSectionIssue } from "../schema";
import { autoModeComputeSchema } from "./autoMode.schema";
import { type ComputeModeSchema, type ComputeStack, REPLACEABLE_ADDONS } from "./mode.schema";

/**
 * The modes' config halves. Adding a mode is its two modules (`<mode>.schema.ts`, `<mode>.ts`),
 * one entry here, one in `COMPUTE_MODES` (index.ts) and its key in Pulumi.yaml.
 */
export const COMPUTE_MODE_SCHEMAS = [autoModeComputeSchema] as const;

type Registered = (typeof COMPUTE_MODE_SCHEMAS)[number];

/** The sections of every mode, keyed as stack config holds them. */
export type ComputeSections = { [M in Registered as M["key"]]: z.output<M["schema"]> };

/** The schemas of every mode's section, to spread into the stack config's object. */
export function computeModeSchemas(): { [M in Registered as M["key"]]: M["schema"] } {
    return Object.fromEntries(COMPUTE_MODE_SCHEMAS.map((m) => [m.key, m.schema])) as { [M in Registered as M["key"]]: M["schema"] };
}

/** The modes `stack` turns on. */
export function activeModes<M extends ComputeModeSchema>(stack: ComputeSections, modes: readonly M[]): { mode: M; section: unknown }[] {
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
    modes: readonly ComputeModeSchema[] = COMPUTE_MODE_SCHEMAS,
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
    modes: readonly ComputeModeSchema[] = COMPUTE_MODE_SCHEMAS,
): { key: string; label: string; runsWorkloads: boolean; fix: string } | undefined {
    const [on] = activeModes(stack, modes);
    return on ? { key: on.mode.key, label: on.mode.label, ...on.mode.workloadPools(on.section) } : undefined;
}
