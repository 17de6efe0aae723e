/**
 * Durations, once: Go's `time.ParseDuration` (the parser Karpenter and Kubernetes read every
 * duration with) and, on top of it, the narrower patterns Karpenter v1's CRDs admit. Pure; never
 * throws.
 */

// time.ParseDuration (Go 1.24 src/time/format.go): `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with at
// least one digit around each dot, the units below (µs as U+00B5 or U+03BC), and "0" alone.
const GO_DURATION = /^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const GO_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;
const NANOSECONDS: Record<string, bigint> = {
    ns: 1n,
    us: 1_000n,
    µs: 1_000n,
    μs: 1_000n,
    ms: 1_000_000n,
    s: 1_000_000_000n,
    m: 60_000_000_000n,
    h: 3_600_000_000_000n,
};
// A Go Duration is an int64 of nanoseconds; longer strings fail to parse ("invalid duration").
const MAX_NANOSECONDS = 2n ** 63n - 1n;

/**
 * Seconds in a Go duration string (`30s`, `1h30m`, `1.5h`, `300ms`, `-5m`, `0`), exactly as
 * `time.ParseDuration` reads it; `undefined` for anything it refuses (`""`, `"Never"`, `"10"`,
 * `"1d"`, numbers, a value beyond the int64 nanoseconds Go can hold).
 */
export function parseDuration(value: unknown): number | undefined {
    if (typeof value !== "string") {
        return undefined;
    }
    const unsigned = value.startsWith("-") || value.startsWith("+") ? value.slice(1) : value;
    if (unsigned === "0") {
        return 0;
    }
    if (!GO_DURATION.test(value)) {
        return undefined;
    }
    let total = 0n;
    for (const [, amount, unit] of unsigned.matchAll(GO_PART)) {
        const [whole, fraction = ""] = amount.split(".");
        const scale = NANOSECONDS[unit];
        // Go truncates the fraction to whole nanoseconds of the unit, as done here.
        const digits = BigInt(10 ** Math.min(fraction.length, 15));
        total += BigInt(whole || "0") * scale + (BigInt(fraction.slice(0, 15) || "0") * scale) / digits;
        if (total > MAX_NANOSECONDS) {
            return undefined;
        }
    }
    const seconds = Number(total) / 1e9;
    return value.startsWith("-") && seconds !== 0 ? -seconds : seconds;
}

/**
 * The duration patterns of Karpenter v1's NodePool CRD (karpenter `pkg/apis/v1/nodepool.go`,
 * v1.0–v1.14): stricter than Go's grammar, and what the API server admits.
 */
export const KARPENTER_DURATION = {
    /** `spec.template.spec.terminationGracePeriod`: whole s/m/h parts, e.g. `30m`, `1h30m`. */
    plain: /^([0-9]+(s|m|h))+$/,
    /** `expireAfter`, `disruption.consolidateAfter`: the same, or `Never`. */
    orNever: /^(([0-9]+(s|m|h))+|Never)$/,
    /** `disruption.budgets[].duration`: hours and/or minutes, e.g. `10h`, `1h30m`. */
    budget: /^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$/,
} as const;

/**
 * Seconds in a NodePool duration as Karpenter v1 reads it: `undefined` when the CRD would refuse
 * the value (`1.5h`, `-5m`, `30d`), `Infinity` for `Never` where the field allows it.
 */
export function karpenterDuration(value: unknown, pattern: keyof typeof KARPENTER_DURATION = "plain"): number | undefined {
    if (typeof value !== "string" || !KARPENTER_DURATION[pattern].test(value)) {
        return undefined;
    }
    return value === "Never" ? Infinity : parseDuration(value);
}

/**
 * Seconds as a short human string, the one duration format of every report and message: `45s`,
 * `3m 30s`, `15m`, `1h 30m`, `48h` (rounded to whole seconds).
 */
export function formatSeconds(seconds: number): string {
    const s = Math.round(seconds);
    if (s < 60) {
        return `${s}s`;
    }
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const rest = s % 60;
    return [h ? `${h}h` : "", m ? `${m}m` : "", rest ? `${rest}s` : ""].filter(Boolean).join(" ");
}
