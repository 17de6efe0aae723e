/**
 * Kubernetes resource quantities (`500m`, `2Gi`, `1.5`, `1e3`) as numbers of base units.
 * Pure and dependency-free: shared by the policy pack and the program's config validation.
 */

const BINARY: Record<string, number> = {
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    Pi: 2 ** 50,
    Ei: 2 ** 60,
};

const DECIMAL: Record<string, number> = {
    n: 1e-9,
    u: 1e-6,
    m: 1e-3,
    "": 1,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    P: 1e15,
    E: 1e18,
};

// The grammar of k8s.io/apimachinery resource.Quantity: a signed decimal number followed by a
// binary suffix, a decimal suffix, or a decimal exponent.
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

/** Parses a quantity; returns `undefined` for anything that is not one (never throws). */
export function parseQuantity(value: unknown): number | undefined {
    if (typeof value === "number") {
        return Number.isFinite(value) ? value : undefined;
    }
    if (typeof value !== "string") {
        return undefined;
    }
    const match = QUANTITY.exec(value.trim());
    if (!match) {
        return undefined;
    }
    const base = Number(match[1]);
    const suffix = match[2] ?? "";
    let factor: number;
    if (suffix in BINARY) {
        factor = BINARY[suffix];
    } else if (suffix in DECIMAL) {
        factor = DECIMAL[suffix];
    } else {
        factor = 10 ** Number(suffix.slice(1));
    }
    const result = base * factor;
    return Number.isFinite(result) ? result : undefined;
}

/** True when `value` is a valid, non-negative quantity. */
export function isQuantity(value: unknown): boolean {
    const parsed = parseQuantity(value);
    return parsed !== undefined && parsed >= 0;
}

/** A quantity as an exact value: `mantissa × 10^decimal × 2^binary`. */
interface ExactQuantity {
    mantissa: bigint;
    decimal: number;
    binary: number;
}

const BINARY_EXPONENT: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_EXPONENT: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** Reads a quantity without rounding (`1.001` and `1001m` are equal); `undefined` when it is not one. */
function exactQuantity(value: unknown): ExactQuantity | undefined {
    let text: string;
    if (typeof value === "number") {
        if (!Number.isFinite(value)) {
            return undefined;
        }
        text = String(value); // the shortest decimal that reads back as this number: what was written
    } else if (typeof value === "string") {
        text = value.trim();
    } else {
        return undefined;
    }
    const match = QUANTITY.exec(text);
    if (!match) {
        return undefined;
    }
    const [whole, fraction = ""] = match[1].replace(/^[+-]/, "").split(".");
    const sign = match[1].startsWith("-") ? -1n : 1n;
    const mantissa = sign * BigInt(`${whole}${fraction}` || "0");
    const suffix = match[2] ?? "";
    let decimal = -fraction.length;
    let binary = 0;
    if (suffix in BINARY_EXPONENT) {
        binary = BINARY_EXPONENT[suffix];
    } else if (suffix in DECIMAL_EXPONENT) {
        decimal += DECIMAL_EXPONENT[suffix];
    } else {
        const exponent = Number(suffix.slice(1));
        if (!Number.isSafeInteger(exponent)) {
            return undefined;
        }
        decimal += exponent;
    }
    return { mantissa, decimal, binary };
}

/** Rough decimal magnitude of a non-zero mantissa × 10^decimal × 2^binary. */
function magnitude(q: ExactQuantity): number {
    const digits = (q.mantissa < 0n ? -q.mantissa : q.mantissa).toString().length;
    return digits + q.decimal + q.binary * Math.log10(2);
}

/**
 * Compares two quantities exactly, without floating point: `-1` when `a < b`, `0` when equal,
 * `1` when `a > b`; `undefined` when either is not a quantity. `1001m` equals `"1.001"`, which
 * `parseQuantity`'s float arithmetic cannot promise.
 */
export function compareQuantities(a: unknown, b: unknown): -1 | 0 | 1 | undefined {
    const x = exactQuantity(a);
    const y = exactQuantity(b);
    if (!x || !y) {
        return undefined;
    }
    const signOf = (q: ExactQuantity) => (q.mantissa > 0n ? 1 : q.mantissa < 0n ? -1 : 0);
    const sx = signOf(x);
    const sy = signOf(y);
    if (sx !== sy || sx === 0) {
        return sx < sy ? -1 : sx > sy ? 1 : 0;
    }
    // Far apart in size: no need (and no memory) to scale to a common exponent.
    const gap = magnitude(x) - magnitude(y);
    if (Math.abs(gap) > 2) {
        return gap > 0 === sx > 0 ? 1 : -1;
    }
    // Close in size, so the exponents differ by about the digits written: scale both exactly.
    const decimal = Math.min(x.decimal, y.decimal);
    const binary = Math.min(x.binary, y.binary);
    const scale = (q: ExactQuantity) => q.mantissa * 10n ** BigInt(q.decimal - decimal) * 2n ** BigInt(q.binary - binary);
    const sa = scale(x);
    const sb = scale(y);
    return sa < sb ? -1 : sa > sb ? 1 : 0;
}
