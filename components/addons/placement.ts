/**
 * Where platform controllers run: the managed node group labelled for platform components, whose
 * taint (prod: `CriticalAddonsOnly`) they tolerate. Without a system group they run anywhere.
 */
import { CONTROLLER_TOLERATED_TAINT_KEYS } from "../config/karpenter";
import { SYSTEM_LABEL } from "../nodegroups";

export interface Placement {
    nodeSelector: Record<string, string>;
    tolerations: { key: string; operator: "Exists" }[];
}

/** The placement of a platform controller. Pure. */
export function systemPlacement(hasSystemNodes: boolean): Placement {
    return {
        nodeSelector: hasSystemNodes ? { [SYSTEM_LABEL.key]: SYSTEM_LABEL.value } : {},
        tolerations: CONTROLLER_TOLERATED_TAINT_KEYS.map((key) => ({ key, operator: "Exists" as const })),
    };
}
