/**
 * Go durations (`time.ParseDuration`) as Karpenter writes them: `30s`, `10m`, `1h30m`, `48h`.
 * Pure; never throws.
 */

const UNIT_SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;

/** Seconds in a Go duration string; `undefined` for anything else (`"Never"`, `""`, numbers). */
export function parseDuration(value: unknown): number | undefined {
    if (typeof value !== "string" || value === "0") {
        return value === "0" ? 0 : undefined;
    }
    if (!DURATION.test(value)) {
        return undefined;
    }
    let total = 0;
    for (const match of value.matchAll(PART)) {
        total += Number(match[1]) * UNIT_SECONDS[match[2]];
    }
    return Number.isFinite(total) ? total : undefined;
}

/** Seconds as a short human string: `90s`, `5m`, `48h`. */
export function formatSeconds(seconds: number): string {
    if (seconds >= 3600 && seconds % 3600 === 0) {
        return `${seconds / 3600}h`;
    }
    if (seconds >= 60 && seconds % 60 === 0) {
        return `${seconds / 60}m`;
    }
    return `${seconds}s`;
}
