/**
 * IPv4 CIDR arithmetic, shared by the stack config (components/network.schema.ts,
 * components/cluster.schema.ts, components/config) and the pack: parsing, overlap, and what a list
 * of blocks covers together. Pure; never throws.
 */

export interface Cidr {
    /** Network address as an unsigned 32-bit integer. */
    readonly base: number;
    readonly prefix: number;
}

const CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

/** Parses `a.b.c.d/n`; returns `undefined` unless it is a valid CIDR whose host bits are zero. */
export function parseCidr(text: string): Cidr | undefined {
    const match = CIDR.exec(text.trim());
    if (!match) {
        return undefined;
    }
    const octets = match.slice(1, 5).map(Number);
    const prefix = Number(match[5]);
    if (octets.some((o) => o > 255) || prefix > 32) {
        return undefined;
    }
    const base = octets.reduce((acc, o) => acc * 256 + o, 0);
    if (base % blockSize(prefix) !== 0) {
        return undefined;
    }
    return { base, prefix };
}

export function formatCidr(cidr: Cidr): string {
    const octets = [24, 16, 8, 0].map((shift) => Math.floor(cidr.base / 2 ** shift) % 256);
    return `${octets.join(".")}/${cidr.prefix}`;
}

/** Number of addresses in a block of the given prefix length. */
export function blockSize(prefix: number): number {
    return 2 ** (32 - prefix);
}

/** True when the two blocks share at least one address. */
export function overlaps(a: Cidr, b: Cidr): boolean {
    return a.base < b.base + blockSize(b.prefix) && b.base < a.base + blockSize(a.prefix);
}

/** Every IPv4 address: 2^32. */
export const ALL_IPV4 = blockSize(0);

/**
 * How many IPv4 addresses the blocks cover together, overlaps counted once: what an allow-list
 * lets in, whatever its spelling (`0.0.0.0/1` and `128.0.0.0/1` are all of `0.0.0.0/0`).
 */
export function coveredAddresses(blocks: readonly Cidr[]): number {
    const ranges = blocks.map((b) => [b.base, b.base + blockSize(b.prefix)] as const).sort((a, b) => a[0] - b[0]);
    let total = 0;
    let end = -1;
    for (const [start, stop] of ranges) {
        if (stop <= end) {
            continue;
        }
        total += stop - Math.max(start, end);
        end = stop;
    }
    return total;
}
