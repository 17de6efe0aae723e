import { z } from "zod";
import { parseCidr, subnetLayoutProblems } from "../subnets";
import { cidr, logRetentionDays } from "./common";

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
        /** VPC flow logs to CloudWatch Logs. Defaults to `{ enabled: true, retentionDays: 90 }`. */
        flowLogs: z
            .strictObject({
                /** Defaults to `true`. */
                enabled: z.boolean().default(true),
                /** Days CloudWatch Logs accepts (1, 3, 5, 7, 14, 30, …). Defaults to `90`. */
                retentionDays: logRetentionDays.default(90),
            })
            .default({ enabled: true, retentionDays: 90 }),
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
