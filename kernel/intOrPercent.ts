/**
 * Kubernetes IntOrString values as PodDisruptionBudgets and rolling updates use them: an integer
 * count or a percentage string (`"25%"`). Pure; never throws.
 */

export type IntOrPercent = { kind: "int"; value: number } | { kind: "percent"; value: number };

/**
 * Reads an int-or-percent as the API server validates one (PDB `minAvailable`/`maxUnavailable`,
 * rolling-update `maxSurge`/`maxUnavailable`): a non-negative integer, or a string of digits
 * followed by `%`, at most 100%. Anything else comes back as `{ problem }`, saying why it is refused.
 */
export function readIntOrPercent(value: unknown): IntOrPercent | { problem: string } {
    if (typeof value === "number") {
        if (!Number.isInteger(value)) {
            return { problem: "which is not a whole number" };
        }
        return value < 0 ? { problem: "which is negative" } : { kind: "int", value };
    }
    const match = typeof value === "string" ? /^(\d{1,9})%$/.exec(value) : null;
    if (!match) {
        return typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value)
            ? { problem: 'a number written as a string: a string must be a percentage such as "25%"' }
            : { problem: "which is neither a non-negative integer nor a percentage" };
    }
    const n = Number(match[1]);
    return n > 100 ? { problem: "a percentage above 100%" } : { kind: "percent", value: n };
}

/** `readIntOrPercent` without the reason: `undefined` for anything the API server refuses. */
export function parseIntOrPercent(value: unknown): IntOrPercent | undefined {
    const read = readIntOrPercent(value);
    return "problem" in read ? undefined : read;
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
