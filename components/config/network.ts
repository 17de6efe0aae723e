import { z } from "zod";
import { parseCidr, subnetLayoutProblems } from "../subnets";
import { cidr, logRetentionDays } from "./common";

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
