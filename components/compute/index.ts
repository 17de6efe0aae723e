/**
 * The registry of compute modes: a cluster whose compute the service runs itself, in place of (or
 * beside) the node groups and Karpenter this program installs. Each mode is two modules that
 * declare everything the program needs of it: its config half (`autoMode.schema.ts`: the stack
 * config's section, its key declared in Pulumi.yaml, and its checks against the rest of the
 * stack), registered in `COMPUTE_MODE_SCHEMAS` (schema.ts), and the rest (`autoMode.ts`: the
 * platform parts it runs itself, which the program then installs none of, and what it adds to the
 * cluster, the add-ons and the pools), registered in `COMPUTE_MODES` here. The config loader reads `COMPUTE_MODE_SCHEMAS`; `Cluster`,
 * `ComputeAddons` and index.ts read this list and the choice it yields; none of them names a
 * mode. The compiler holds the two lists together, mode for mode, and
 * test/components/compute/index.test.ts holds every registered mode to its parts.
 * A stack without an active mode is a standard cluster: node groups, optionally Karpenter.
 */
import { autoModeCompute } from "./autoMode";
import type { ComputeChoice, ComputeChoiceStack, ComputeMode, PlatformPart } from "./mode";
import { type ComputeModeSchema, REPLACEABLE_ADDONS } from "./mode.schema";
import { activeModes, type COMPUTE_MODE_SCHEMAS, type ComputeSections } from "./schema";

/** A mode for each config half of `T`, in its order. */
type ModesOf<T extends readonly ComputeModeSchema[]> = {
    readonly [I in keyof T]: T[I] extends ComputeModeSchema<infer K, infer S> ? ComputeMode<K, S> : never;
};

/** The modes, each with its config half, in the order of `COMPUTE_MODE_SCHEMAS`. */
export const COMPUTE_MODES = [autoModeCompute] as const satisfies ModesOf<typeof COMPUTE_MODE_SCHEMAS>;

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
