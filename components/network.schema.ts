/**
 * `network` in stack config (the VPC and its subnets), and the subnet layout its keys describe:
 * `planSubnets` lays the subnets out for components/network.ts, and `subnetLayoutProblems` gives
 * the same reasons a layout does not fit to the config check. Pure functions: no Pulumi, no AWS.
 */
import { blockSize, type Cidr, formatCidr, parseCidr } from "eks-platform-kernel";
import { z } from "zod";
import { cidr, logRetentionDays } from "./schema";

/**
 * The Amazon-provided DNS server of a VPC: the VPC range's base address plus two (Amazon VPC User
 * Guide, "Amazon DNS server"). Undefined for a malformed CIDR. Pure.
 */
export function vpcResolverAddress(vpcCidr: string): string | undefined {
    const vpc = parseCidr(vpcCidr);
    return vpc ? formatCidr({ base: vpc.base + 2, prefix: 32 }).split("/")[0] : undefined;
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

/**
 * Interface endpoints that keep the platform's busiest AWS calls off NAT in a private cluster: ECR
 * (API and image manifests; layers come through the S3 gateway endpoint), STS, EC2 (Karpenter, the
 * LB controller, EBS CSI, the VPC CNI), SQS (interruption queues), EKS Auth (Pod Identity
 * credentials) and CloudWatch Logs. Still through NAT with this list: Elastic Load Balancing (the
 * LB controller), Auto Scaling (NTH), KMS, the Pricing API (Karpenter), EKS's own API, SSM and
 * Session Manager (`ssm`, `ssmmessages`, `ec2messages`), and every public registry (public.ecr.aws,
 * registry.k8s.io, Docker Hub, Helm repositories): add a service name to
 * `network.interfaceEndpoints.services` to take it off NAT. Each endpoint costs an hourly fee per
 * zone plus a fee per GB (Amazon VPC pricing, "AWS PrivateLink": USD 0.01 per hour per zone and
 * 0.01 per GB in us-east-1 at the time of writing), so seven endpoints in three zones cost about
 * USD 150 a month before traffic; NAT charges per GB processed as well.
 */
export const INTERFACE_ENDPOINT_SERVICES = ["ecr.api", "ecr.dkr", "sts", "ec2", "sqs", "eks-auth", "logs"] as const;

/** `network` in stack config: the VPC and its subnets. */
export const networkSchema = z
    .strictObject({
        /** The VPC's IPv4 block. */
        vpcCidr: cidr,
        /**
         * Availability zones, at least two, in any order; one private and one public subnet in each.
         * An AZ's addresses follow from its letter (its slot), so adding, removing or reordering
         * AZs leaves every other subnet where it is.
         */
        availabilityZones: z
            .array(z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d[a-z]$/, { message: "must be an AZ name such as us-east-1a" }))
            .min(2, {
                message:
                    "needs at least 2 availability zones: EKS requires subnets in two AZs and a single AZ is a single point of failure",
            }),
        /** `single`: one NAT gateway for the VPC (cheap, one AZ outage cuts egress); `perAz`: one per AZ. Defaults to `perAz`. */
        natGateways: z.enum(["single", "perAz"]).default("perAz"),
        /** Prefix length of each private (node and pod) subnet. Defaults to the VPC prefix + 3 (a /19 in a /16). */
        privateSubnetPrefixLength: z.number().int().optional(),
        /** Prefix length of each public (load balancer, NAT) subnet. Defaults to the VPC prefix + 8 (a /24 in a /16). */
        publicSubnetPrefixLength: z.number().int().optional(),
        /**
         * Which private-sized block of the VPC (0 = the first) holds the public subnets. Pin it
         * before adding an AZ with a later letter: unset, it is the block after the highest AZ's,
         * so such an AZ would move (replace) every public subnet and NAT gateway. Defaults to the
         * highest AZ slot + 1.
         */
        publicSubnetsBlock: z.number().int().min(0).optional(),
        /**
         * A Transit Gateway (shared with this account) to attach the VPC to. The private subnets
         * are attached and every route table sends `cluster.endpoint.privateAccessCidrs` through
         * it, so the deployer's network reaches the private API endpoint during the first `up`
         * already (docs/bootstrap.md, step 4). Defaults to none.
         */
        transitGatewayId: z
            .string()
            .regex(/^tgw-([0-9a-f]{8}|[0-9a-f]{17})$/, { message: "must be a Transit Gateway id such as tgw-0123456789abcdef0" })
            .optional(),
        /** VPC flow logs to CloudWatch Logs. Defaults to `{ enabled: true, retentionDays: 90 }`. */
        flowLogs: z
            .strictObject({
                /** Defaults to `true`. */
                enabled: z.boolean().default(true),
                /** Days CloudWatch Logs accepts (1, 3, 5, 7, 14, 30, …). Defaults to `90`. */
                retentionDays: logRetentionDays.default(90),
            })
            .default({ enabled: true, retentionDays: 90 }),
        /**
         * Interface VPC endpoints in the private subnets, so nodes and pods reach these AWS APIs
         * without NAT. Defaults to on for stacks whose API endpoint is private (off for public
         * ones), for the services in `INTERFACE_ENDPOINT_SERVICES`.
         */
        interfaceEndpoints: z
            .strictObject({
                /** Defaults to `true` when `cluster.endpoint.publicAccess` is false. */
                enabled: z.boolean().optional(),
                /** Service names after `com.amazonaws.<region>.`. Defaults to `INTERFACE_ENDPOINT_SERVICES`. */
                services: z
                    .array(z.string().regex(/^[a-z0-9-]+(\.[a-z0-9-]+)*$/, { message: "must be a service name such as ecr.api or sts" }))
                    .min(1)
                    .default([...INTERFACE_ENDPOINT_SERVICES]),
            })
            .default({ services: [...INTERFACE_ENDPOINT_SERVICES] }),
    })
    .transform((n) => {
        const vpcPrefix = parseCidr(n.vpcCidr)?.prefix ?? 16;
        return {
            ...n,
            privateSubnetPrefixLength: n.privateSubnetPrefixLength ?? vpcPrefix + 3,
            publicSubnetPrefixLength: n.publicSubnetPrefixLength ?? vpcPrefix + 8,
        };
    })
    .superRefine((n, ctx) => {
        const azs = new Set<string>();
        n.availabilityZones.forEach((az, i) => {
            if (azs.has(az)) {
                ctx.addIssue({ code: "custom", path: ["availabilityZones", i], message: `"${az}" is listed twice` });
            }
            azs.add(az);
        });
        n.interfaceEndpoints.services.forEach((service, i) => {
            if (n.interfaceEndpoints.services.indexOf(service) !== i) {
                ctx.addIssue({ code: "custom", path: ["interfaceEndpoints", "services", i], message: `"${service}" is listed twice` });
            }
            if (service === "s3") {
                ctx.addIssue({
                    code: "custom",
                    path: ["interfaceEndpoints", "services", i],
                    message: "is already reached through the VPC's S3 gateway endpoint (free); remove it",
                });
            }
        });
        for (const problem of subnetLayoutProblems({
            vpcCidr: n.vpcCidr,
            availabilityZones: n.availabilityZones,
            privatePrefixLength: n.privateSubnetPrefixLength,
            publicPrefixLength: n.publicSubnetPrefixLength,
            publicSubnetsBlock: n.publicSubnetsBlock,
        })) {
            ctx.addIssue({ code: "custom", path: ["vpcCidr"], message: `subnets do not fit the VPC: ${problem}` });
        }
    });

export type NetworkConfig = z.output<typeof networkSchema>;
