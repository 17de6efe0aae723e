/**
 * IPv4 CIDR arithmetic and the subnet layout of the VPC. Pure functions: no Pulumi, no AWS.
 */

import { blockSize, Cidr, formatCidr, parseCidr } from "eks-platform-kernel";

// The CIDR parser is the pack's (one parser for program, config and policies).
export { blockSize, formatCidr, parseCidr } from "eks-platform-kernel";
export type { Cidr } from "eks-platform-kernel";

/**
 * The Amazon-provided DNS server of a VPC: the VPC range's base address plus two (Amazon VPC User
 * Guide, "Amazon DNS server"). Undefined for a malformed CIDR. Pure.
 */
export function vpcResolverAddress(vpcCidr: string): string | undefined {
    const vpc = parseCidr(vpcCidr);
    return vpc ? formatCidr({ base: vpc.base + 2, prefix: 32 }).split("/")[0] : undefined;
}

/** True when the two blocks share at least one address. */
export function overlaps(a: Cidr, b: Cidr): boolean {
    return a.base < b.base + blockSize(b.prefix) && b.base < a.base + blockSize(a.prefix);
}

export interface SubnetLayoutRequest {
    vpcCidr: string;
    /** Availability zones in any order: each one's addresses follow from its slot, not its position. */
    availabilityZones: readonly string[];
    /** Prefix length of each private (node) subnet. */
    privatePrefixLength: number;
    /** Prefix length of each public (load balancer, NAT) subnet. */
    publicPrefixLength: number;
    /**
     * Index of the private-sized block of the VPC that holds the public subnets. Defaults to the
     * block after the highest slot's, where the layout has always put them; pin it before adding
     * an AZ with a later letter, or the public subnets move.
     */
    publicSubnetsBlock?: number;
}

export interface SubnetPlan {
    availabilityZone: string;
    /** The AZ's address slot (see `azSlot`). */
    slot: number;
    privateCidr: string;
    publicCidr: string;
}

/**
 * The address slot of an availability zone: its letter, `a` = 0, `b` = 1, … An AZ keeps its slot
 * (and so its subnets' addresses) whatever other AZs are added, removed or reordered.
 */
export function azSlot(availabilityZone: string): number {
    return availabilityZone.charCodeAt(availabilityZone.length - 1) - "a".charCodeAt(0);
}

interface Layout {
    vpc: Cidr;
    publicBlock: number;
    /** Private-sized block index of each slot: slots count up from 0, stepping over the public block. */
    privateBlock: (slot: number) => number;
}

function layoutOf(request: SubnetLayoutRequest, vpc: Cidr): Layout {
    const slots = request.availabilityZones.map(azSlot);
    const publicBlock = request.publicSubnetsBlock ?? Math.max(-1, ...slots) + 1;
    return { vpc, publicBlock, privateBlock: (slot) => (slot < publicBlock ? slot : slot + 1) };
}

/**
 * Lays out one private and one public subnet per availability zone, by slot: slot `s` gets the
 * `s`-th private-sized block of the VPC (stepping over the public block) and the `s`-th public
 * block inside the public block. For AZs `a`, `b`, `c`… listed in order this is the layout the
 * program always produced (private blocks first, then the public ones), so no live subnet moves.
 * The result is sorted by slot. Throws with a readable message when the layout does not fit;
 * `subnetLayoutProblems` gives the same reasons without throwing, for config validation.
 */
export function planSubnets(request: SubnetLayoutRequest): SubnetPlan[] {
    const problems = subnetLayoutProblems(request);
    if (problems.length > 0) {
        throw new Error(problems.join("; "));
    }
    const layout = layoutOf(request, parseCidr(request.vpcCidr) as Cidr);
    const privateSize = blockSize(request.privatePrefixLength);
    const publicSize = blockSize(request.publicPrefixLength);
    const publicStart = layout.vpc.base + layout.publicBlock * privateSize;
    return request.availabilityZones
        .map((availabilityZone) => {
            const slot = azSlot(availabilityZone);
            return {
                availabilityZone,
                slot,
                privateCidr: formatCidr({
                    base: layout.vpc.base + layout.privateBlock(slot) * privateSize,
                    prefix: request.privatePrefixLength,
                }),
                publicCidr: formatCidr({ base: publicStart + slot * publicSize, prefix: request.publicPrefixLength }),
            };
        })
        .sort((x, y) => x.slot - y.slot);
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
    const slots = request.availabilityZones.map(azSlot);
    if (slots.some((s) => s < 0 || s > 25)) {
        return [`every availability zone must end in a letter a–z (its address slot)`];
    }
    const layout = layoutOf(request, vpc);
    const blocks = blockSize(vpc.prefix) / blockSize(request.privatePrefixLength);
    const publicPerBlock = blockSize(request.privatePrefixLength) / blockSize(request.publicPrefixLength);
    const highest = Math.max(...slots);
    if (!Number.isInteger(layout.publicBlock) || layout.publicBlock < 0 || layout.publicBlock >= blocks) {
        problems.push(
            `publicSubnetsBlock ${layout.publicBlock} is not one of the VPC's ${blocks} /${request.privatePrefixLength} blocks (0–${blocks - 1})`,
        );
    }
    const needed = Math.max(...slots.map(layout.privateBlock), layout.publicBlock) + 1;
    if (needed > blocks) {
        problems.push(
            `slots up to ${highest} (AZ letter ${String.fromCharCode(97 + highest)}) and the public block need ${needed} ` +
                `/${request.privatePrefixLength} blocks but ${request.vpcCidr} has ${blocks}`,
        );
    }
    if (highest + 1 > publicPerBlock) {
        problems.push(
            `public /${request.publicPrefixLength} subnets for slots up to ${highest} do not fit in one /${request.privatePrefixLength} block ` +
                `(room for ${Math.floor(publicPerBlock)}); lengthen the public prefix`,
        );
    }
    return problems;
}
