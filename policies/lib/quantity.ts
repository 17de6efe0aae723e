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
