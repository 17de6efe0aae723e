/**
 * IPv4 CIDR arithmetic and the subnet layout of the VPC. Pure functions: no Pulumi, no AWS.
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

/**
 * The Amazon-provided DNS server of a VPC: the VPC range's base address plus two (Amazon VPC User
 * Guide, "Amazon DNS server"). Undefined for a malformed CIDR. Pure.
 */
export function vpcResolverAddress(vpcCidr: string): string | undefined {
    const vpc = parseCidr(vpcCidr);
    return vpc ? formatCidr({ base: vpc.base + 2, prefix: 32 }).split("/")[0] : undefined;
}

/** Number of addresses in a block of the given prefix length. */
export function blockSize(prefix: number): number {
    return 2 ** (32 - prefix);
}

/** True when the two blocks share at least one address. */
export function overlaps(a: Cidr, b: Cidr): boolean {
    return a.base < b.base + blockSize(b.prefix) && b.base < a.base + blockSize(a.prefix);
}

export interface SubnetLayoutRequest {
    vpcCidr: string;
    availabilityZones: readonly string[];
    /** Prefix length of each private (node) subnet. */
    privatePrefixLength: number;
    /** Prefix length of each public (load balancer, NAT) subnet. */
    publicPrefixLength: number;
}

export interface SubnetPlan {
    availabilityZone: string;
    privateCidr: string;
    publicCidr: string;
}

/**
 * Lays out one private and one public subnet per availability zone: the private (large) blocks
 * first from the start of the VPC, then the public blocks, each aligned to its own size.
 * Throws with a readable message when the layout does not fit; `subnetLayoutProblems` gives the
 * same reasons without throwing, for config validation.
 */
export function planSubnets(request: SubnetLayoutRequest): SubnetPlan[] {
    const problems = subnetLayoutProblems(request);
    if (problems.length > 0) {
        throw new Error(problems.join("; "));
    }
    const vpc = parseCidr(request.vpcCidr) as Cidr;
    const privateSize = blockSize(request.privatePrefixLength);
    const publicSize = blockSize(request.publicPrefixLength);
    const azs = request.availabilityZones;
    const privateEnd = vpc.base + privateSize * azs.length;
    const publicStart = Math.ceil(privateEnd / publicSize) * publicSize;
    return azs.map((availabilityZone, i) => ({
        availabilityZone,
        privateCidr: formatCidr({ base: vpc.base + i * privateSize, prefix: request.privatePrefixLength }),
        publicCidr: formatCidr({ base: publicStart + i * publicSize, prefix: request.publicPrefixLength }),
    }));
}

/** Every reason the layout cannot be built; empty when it fits. */
export function subnetLayoutProblems(request: SubnetLayoutRequest): string[] {
    const vpc = parseCidr(request.vpcCidr);
    if (!vpc) {
        return [`"${request.vpcCidr}" is not an IPv4 CIDR with zero host bits (e.g. 10.0.0.0/16)`];
    }
    const problems: string[] = [];
    // AWS accepts VPC and subnet blocks between /16 and /28.
    if (vpc.prefix < 16 || vpc.prefix > 28) {
        problems.push(`VPC prefix /${vpc.prefix} is outside the /16–/28 range AWS accepts`);
    }
    for (const [label, prefix] of [
        ["private", request.privatePrefixLength],
        ["public", request.publicPrefixLength],
    ] as const) {
        if (!Number.isInteger(prefix) || prefix > 28 || prefix <= vpc.prefix) {
            problems.push(`${label} subnet prefix /${prefix} must be longer than the VPC's /${vpc.prefix} and at most /28`);
        }
    }
    if (problems.length > 0) {
        return problems;
    }
    const n = request.availabilityZones.length;
    const privateSize = blockSize(request.privatePrefixLength);
    const publicSize = blockSize(request.publicPrefixLength);
    const publicStart = Math.ceil((vpc.base + privateSize * n) / publicSize) * publicSize;
    const end = publicStart + publicSize * n;
    const vpcEnd = vpc.base + blockSize(vpc.prefix);
    if (end > vpcEnd) {
        problems.push(
            `${n} private /${request.privatePrefixLength} and ${n} public /${request.publicPrefixLength} subnets ` +
                `need ${end - vpc.base} addresses but ${request.vpcCidr} has ${blockSize(vpc.prefix)}`,
        );
    }
    return problems;
}
