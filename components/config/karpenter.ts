import { z } from "zod";

/**
 * `karpenter` in stack config. The controller, NodePools and EC2NodeClasses are defined by the
 * Karpenter issue; until then the section can only be switched off.
 */
export const karpenterSchema = z.strictObject({
    /** Install Karpenter. Defaults to `false`. */
    enabled: z.literal(false).default(false),
});

export type KarpenterConfig = z.output<typeof karpenterSchema>;
