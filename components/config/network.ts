import { z } from "zod";
import { parseCidr, subnetLayoutProblems } from "../subnets";
import { cidr } from "./common";

/**
 * Interface endpoints a private cluster needs so image pulls and AWS calls skip NAT: ECR (API and
 * image layers' manifests; layers come through the S3 gateway endpoint), STS, EC2 (Karpenter,
 * load balancer controller, EBS CSI), SQS (interruption queues), EKS Auth (Pod Identity
 * credentials) and CloudWatch Logs.
 */
export const INTERFACE_ENDPOINT_SERVICES = ["ecr.api", "ecr.dkr", "sts", "ec2", "sqs", "eks-auth", "logs"] as const;

/** `network` in stack config: the VPC and its subnets. */
export const networkSchema = z
    .strictObject({
        /** The VPC's IPv4 block. */
        vpcCidr: cidr,
        /** Availability zones, at least two; one private and one public subnet in each. */
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
         * A Transit Gateway (shared with this account) to attach the VPC to. The private subnets
         * are attached and every route table sends `cluster.endpoint.privateAccessCidrs` through
         * it, so the deployer's network reaches the private API endpoint during the first `up`
         * already (docs/ci.md, "A private cluster's first up"). Defaults to none.
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
                /** Defaults to `90`. */
                retentionDays: z.number().int().positive().default(90),
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
        })) {
            ctx.addIssue({ code: "custom", path: ["vpcCidr"], message: `subnets do not fit the VPC: ${problem}` });
        }
    });

export type NetworkConfig = z.output<typeof networkSchema>;
