/**
 * Kubernetes IntOrString values as PodDisruptionBudgets and rolling updates use them: an integer
 * count or a percentage string (`"25%"`). Pure; never throws.
 */

export type IntOrPercent = { kind: "int"; value: number } | { kind: "percent"; value: number };

/** Parses `3`, `"3"`, `"25%"`; `undefined` for anything else (negative, fractional, junk). */
export function parseIntOrPercent(value: unknown): IntOrPercent | undefined {
    if (typeof value === "number") {
        return Number.isInteger(value) && value >= 0 ? { kind: "int", value } : undefined;
    }
    if (typeof value !== "string") {
        return undefined;
    }
    const match = /^\s*(\d{1,9})(%?)\s*$/.exec(value);
    if (!match) {
        return undefined;
    }
    const n = Number(match[1]);
    return match[2] === "%" ? { kind: "percent", value: n } : { kind: "int", value: n };
}

/**
 * The number of pods a value stands for out of `total`, rounding percentages up as the
 * disruption controller does for both `minAvailable` and `maxUnavailable`.
 */
export function scaledValue(value: IntOrPercent, total: number): number {
    return value.kind === "int" ? value.value : Math.ceil((value.value * total) / 100);
}

/** The value as a display string: `3` or `"25%"`. */
export function formatIntOrPercent(value: IntOrPercent): string {
    return value.kind === "int" ? String(value.value) : `"${value.value}%"`;
}
