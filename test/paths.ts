/** Every path into a value, the value's own (`[]`) first, then each member's, depth first. */
export function pathsOf(value: unknown, at: (string | number)[] = []): (string | number)[][] {
    const out = [at];
    if (Array.isArray(value)) {
        value.forEach((v, i) => out.push(...pathsOf(v, [...at, i])));
    } else if (value && typeof value === "object") {
        for (const [k, v] of Object.entries(value)) {
            out.push(...pathsOf(v, [...at, k]));
        }
    }
    return out;
}
