/**
 * Where platform controllers run: the managed node group labelled for platform components, whose
 * taint (prod: `CriticalAddonsOnly`) they tolerate. Without a system group they run anywhere.
 */
import { CRITICAL_ADDONS_ONLY, Placement, SYSTEM_NODE_LABELS } from "../nodegroups/scheduling";

export type { Placement };

/** The placement of a platform controller. Pure. */
export function systemPlacement(hasSystemNodes: boolean): Placement {
    return {
        nodeSelector: hasSystemNodes ? { ...SYSTEM_NODE_LABELS } : {},
        tolerations: [CRITICAL_ADDONS_ONLY],
    };
}
