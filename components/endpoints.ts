/**
 * Interface VPC endpoints: the services of `network.interfaceEndpoints.services` (by default ECR,
 * STS, EC2, SQS, EKS Auth and CloudWatch Logs; what still takes NAT, and what they cost:
 * components/network.schema.ts, `INTERFACE_ENDPOINT_SERVICES`) reached from the private subnets
 * without NAT (cost per GB, and one egress path fewer to lose).
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";

export interface InterfaceEndpointsArgs {
    clusterName: string;
    region: string;
    vpcId: pulumi.Input<string>;
    /** The VPC's CIDR: the only source the endpoints accept (HTTPS). */
    vpcCidr: string;
    /** Private subnets keyed by availability zone: one endpoint network interface in each. */
    privateSubnetIdsByAz: Record<string, pulumi.Input<string>>;
    /** Service names after `com.amazonaws.<region>.`, e.g. `ecr.api`. */
    services: readonly string[];
}

/** `ecr.api` in us-east-1 → `com.amazonaws.us-east-1.ecr.api`. Pure. */
export function endpointServiceName(region: string, service: string): string {
    return `com.amazonaws.${region}.${service}`;
}

/**
 * One endpoint per service, each in every private subnet (an ENI per AZ, so an AZ outage takes
 * only its own ENI), private DNS on so SDKs resolve the public names to them, behind a security
 * group of their own that admits HTTPS from the VPC only.
 */
export class InterfaceEndpoints extends pulumi.ComponentResource {
    public readonly securityGroupId: pulumi.Output<string>;
    /** Endpoint ids by service name. */
    public readonly endpointIds: Record<string, pulumi.Output<string>> = {};

    constructor(name: string, args: InterfaceEndpointsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:network:InterfaceEndpoints", name, {}, opts);
        const parent = { parent: this };
        const securityGroup = new aws.ec2.SecurityGroup(
            `${name}-sg`,
            {
                vpcId: args.vpcId,
                description: `Interface VPC endpoints of ${args.clusterName}: HTTPS from the VPC`,
                tags: { Name: `${args.clusterName}-vpc-endpoints` },
            },
            parent,
        );
        new aws.vpc.SecurityGroupIngressRule(
            `${name}-https-from-vpc`,
            {
                securityGroupId: securityGroup.id,
                cidrIpv4: args.vpcCidr,
                ipProtocol: "tcp",
                fromPort: 443,
                toPort: 443,
                description: "HTTPS from the VPC",
            },
            parent,
        );
        // Sorted by AZ so the subnet list, and hence the endpoint's inputs, never depends on map order.
        const subnetIds = Object.keys(args.privateSubnetIdsByAz)
            .sort()
            .map((az) => args.privateSubnetIdsByAz[az]);
        for (const service of args.services) {
            const endpoint = new aws.ec2.VpcEndpoint(
                `${name}-${service}`,
                {
                    vpcId: args.vpcId,
                    serviceName: endpointServiceName(args.region, service),
                    vpcEndpointType: "Interface",
                    privateDnsEnabled: true,
                    subnetIds,
                    securityGroupIds: [securityGroup.id],
                    tags: { Name: `${args.clusterName}-${service}` },
                },
                parent,
            );
            this.endpointIds[service] = endpoint.id;
        }
        this.securityGroupId = securityGroup.id;
        this.registerOutputs({ securityGroupId: this.securityGroupId, endpointIds: this.endpointIds });
    }
}
