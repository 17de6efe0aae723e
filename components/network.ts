import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { stackPermissionsBoundary, trustPolicy } from "./iam";
import { planSubnets } from "./network.schema";

export interface NetworkArgs {
    /** EKS cluster name; subnets are tagged `kubernetes.io/cluster/<name>` and `karpenter.sh/discovery`. */
    clusterName: string;
    /** AWS region of the VPC (names the S3 gateway endpoint service). */
    region: string;
    vpcCidr: string;
    /** At least two availability zones in any order; one private and one public subnet in each. */
    availabilityZones: string[];
    /** One NAT gateway for the VPC or one per AZ. */
    natGateways: "single" | "perAz";
    privateSubnetPrefixLength: number;
    publicSubnetPrefixLength: number;
    /** The private-sized block holding the public subnets (see `planSubnets`). Defaults to the highest AZ slot + 1. */
    publicSubnetsBlock?: number;
    /** VPC flow logs to CloudWatch Logs; none when absent (stack config defaults them on, 90 days: components/network.schema.ts). */
    flowLogs?: { enabled: boolean; retentionDays: number };
    /**
     * Attach the private subnets to this Transit Gateway and route `destinations` (the deployer's
     * networks) through it from every route table. Defaults to none.
     */
    transitGateway?: { id: string; destinations: string[] };
}

/** Routes of the deployer's networks through a Transit Gateway, for a route table's `routes`. Pure. */
export function transitGatewayRoutes(transitGateway: NetworkArgs["transitGateway"]): { cidrBlock: string; transitGatewayId: string }[] {
    if (!transitGateway) {
        return [];
    }
    return transitGateway.destinations.map((cidrBlock) => ({ cidrBlock, transitGatewayId: transitGateway.id }));
}

/** Tags every subnet carries for EKS, load balancers and Karpenter discovery. Pure, tested alone. */
export function subnetTags(clusterName: string, tier: "public" | "private"): Record<string, string> {
    const common = { [`kubernetes.io/cluster/${clusterName}`]: "shared", tier };
    return tier === "public"
        ? { ...common, "kubernetes.io/role/elb": "1" }
        : { ...common, "kubernetes.io/role/internal-elb": "1", "karpenter.sh/discovery": clusterName };
}

/**
 * Where the NAT gateways go and which one each AZ's private route table uses, keyed by AZ.
 * `zones` are in AZ-slot order (the subnet layout's): a single NAT gateway stays in the
 * lowest-lettered AZ whatever order the AZs are listed in. Pure.
 */
export function natLayout(
    zones: readonly string[],
    natGateways: NetworkArgs["natGateways"],
): { natZones: string[]; natFor: Record<string, string> } {
    const natZones = natGateways === "single" ? zones.slice(0, 1) : [...zones];
    return { natZones, natFor: Object.fromEntries(zones.map((z) => [z, natGateways === "single" ? zones[0] : z])) };
}

/**
 * The VPC of one cluster: public subnets (load balancers, NAT) and private subnets (nodes, pods),
 * one of each per AZ, with NAT egress, an S3 gateway endpoint and locked-down defaults.
 */
export class Network extends pulumi.ComponentResource {
    public readonly vpcId: pulumi.Output<string>;
    public readonly vpcCidr: string;
    public readonly publicSubnetIds: pulumi.Output<string>[];
    public readonly privateSubnetIds: pulumi.Output<string>[];
    /** Private subnet ids keyed by availability zone (stable keys for what spans the subnets). */
    public readonly privateSubnetIdsByAz: Record<string, pulumi.Output<string>>;
    public readonly natGatewayIds: pulumi.Output<string>[];
    /** The Transit Gateway attachment and the route tables carrying the deployer's networks (empty without one). */
    public readonly deployerRoute: pulumi.Resource[];

    constructor(name: string, args: NetworkArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:network:Network", name, {}, opts);
        const parent = { parent: this };
        const layout = planSubnets({
            vpcCidr: args.vpcCidr,
            availabilityZones: args.availabilityZones,
            privatePrefixLength: args.privateSubnetPrefixLength,
            publicPrefixLength: args.publicSubnetPrefixLength,
            publicSubnetsBlock: args.publicSubnetsBlock,
        });

        const vpc = new aws.ec2.Vpc(
            `${name}-vpc`,
            {
                cidrBlock: args.vpcCidr,
                // Nodes resolve the private API endpoint through the VPC resolver: both are required.
                enableDnsHostnames: true,
                enableDnsSupport: true,
                tags: { Name: `${args.clusterName}-vpc` },
            },
            parent,
        );

        // The default security group must not allow anything (CIS AWS 5.4): nothing here uses it.
        new aws.ec2.DefaultSecurityGroup(
            `${name}-default-sg`,
            { vpcId: vpc.id, tags: { Name: `${args.clusterName}-default-deny` } },
            parent,
        );

        const igw = new aws.ec2.InternetGateway(`${name}-igw`, { vpcId: vpc.id, tags: { Name: `${args.clusterName}-igw` } }, parent);

        const subnet = (tier: "public" | "private", availabilityZone: string, cidrBlock: string) =>
            new aws.ec2.Subnet(
                `${name}-${tier}-${availabilityZone}`,
                {
                    vpcId: vpc.id,
                    cidrBlock,
                    availabilityZone,
                    // Public subnets hold only NAT gateways (Elastic IPs) and load balancers: nothing gets a public IP by default.
                    mapPublicIpOnLaunch: false,
                    tags: { Name: `${args.clusterName}-${tier}-${availabilityZone}`, ...subnetTags(args.clusterName, tier) },
                },
                parent,
            );
        const publicSubnets = new Map(layout.map((s) => [s.availabilityZone, subnet("public", s.availabilityZone, s.publicCidr)]));
        const privateSubnets = new Map(layout.map((s) => [s.availabilityZone, subnet("private", s.availabilityZone, s.privateCidr)]));

        // The deployer's networks reach the private API endpoint through the Transit Gateway. The
        // control plane's ENIs may sit in any subnet of the cluster, public ones included, so every
        // route table carries the return routes; they wait for the attachment to exist.
        const attachment = args.transitGateway
            ? new aws.ec2transitgateway.VpcAttachment(
                  `${name}-tgw`,
                  {
                      transitGatewayId: args.transitGateway.id,
                      vpcId: vpc.id,
                      subnetIds: [...privateSubnets.values()].map((subnet) => subnet.id),
                      dnsSupport: "enable",
                      tags: { Name: `${args.clusterName}-tgw` },
                  },
                  parent,
              )
            : undefined;
        const tgwRoutes = transitGatewayRoutes(args.transitGateway);
        const routeTableOpts = { parent: this, dependsOn: attachment ? [attachment] : [] };

        const publicRouteTable = new aws.ec2.RouteTable(
            `${name}-public-rt`,
            {
                vpcId: vpc.id,
                routes: [{ cidrBlock: "0.0.0.0/0", gatewayId: igw.id }, ...tgwRoutes],
                tags: { Name: `${args.clusterName}-public` },
            },
            routeTableOpts,
        );
        for (const [zone, publicSubnet] of publicSubnets) {
            new aws.ec2.RouteTableAssociation(
                `${name}-public-${zone}`,
                { subnetId: publicSubnet.id, routeTableId: publicRouteTable.id },
                parent,
            );
        }

        const privateRouteTables = this.privateEgress(name, args, vpc, igw, publicSubnets, privateSubnets, {
            parent: this,
            dependsOn: routeTableOpts.dependsOn,
        });
        this.deployerRoute = attachment ? [attachment, publicRouteTable, ...privateRouteTables.routeTables] : [];

        // Image layers from ECR are served from S3: a gateway endpoint keeps that traffic off the NAT bill.
        new aws.ec2.VpcEndpoint(
            `${name}-s3`,
            {
                vpcId: vpc.id,
                serviceName: `com.amazonaws.${args.region}.s3`,
                vpcEndpointType: "Gateway",
                routeTableIds: privateRouteTables.routeTables.map((rt) => rt.id),
                tags: { Name: `${args.clusterName}-s3` },
            },
            parent,
        );

        if (args.flowLogs?.enabled) {
            this.createFlowLogs(name, args.clusterName, vpc, args.flowLogs.retentionDays);
        }

        this.vpcId = vpc.id;
        this.vpcCidr = args.vpcCidr;
        this.publicSubnetIds = [...publicSubnets.values()].map((s) => s.id);
        this.privateSubnetIds = [...privateSubnets.values()].map((s) => s.id);
        this.privateSubnetIdsByAz = Object.fromEntries([...privateSubnets].map(([zone, s]) => [zone, s.id]));
        this.natGatewayIds = privateRouteTables.natGateways.map((n) => n.id);
        this.registerOutputs({
            vpcId: this.vpcId,
            publicSubnetIds: this.publicSubnetIds,
            privateSubnetIds: this.privateSubnetIds,
            natGatewayIds: this.natGatewayIds,
        });
    }

    /** NAT gateways (with their Elastic IPs) in the public subnets, and each AZ's private route table through one. */
    private privateEgress(
        name: string,
        args: NetworkArgs,
        vpc: aws.ec2.Vpc,
        igw: aws.ec2.InternetGateway,
        publicSubnets: ReadonlyMap<string, aws.ec2.Subnet>,
        privateSubnets: ReadonlyMap<string, aws.ec2.Subnet>,
        routeTableOpts: pulumi.CustomResourceOptions,
    ): { natGateways: aws.ec2.NatGateway[]; routeTables: aws.ec2.RouteTable[] } {
        const parent = { parent: this };
        const { natZones, natFor } = natLayout([...privateSubnets.keys()], args.natGateways);
        const tgwRoutes = transitGatewayRoutes(args.transitGateway);
        const natGateways = new Map(
            natZones.map((zone) => {
                const eip = new aws.ec2.Eip(
                    `${name}-nat-${zone}`,
                    { domain: "vpc", tags: { Name: `${args.clusterName}-nat-${zone}` } },
                    { parent: this, dependsOn: [igw] },
                );
                const nat = new aws.ec2.NatGateway(
                    `${name}-nat-${zone}`,
                    { allocationId: eip.id, subnetId: publicSubnets.get(zone)!.id, tags: { Name: `${args.clusterName}-nat-${zone}` } },
                    parent,
                );
                return [zone, nat] as const;
            }),
        );
        const routeTables = [...privateSubnets].map(([zone, privateSubnet]) => {
            const routeTable = new aws.ec2.RouteTable(
                `${name}-private-${zone}`,
                {
                    vpcId: vpc.id,
                    routes: [{ cidrBlock: "0.0.0.0/0", natGatewayId: natGateways.get(natFor[zone])!.id }, ...tgwRoutes],
                    tags: { Name: `${args.clusterName}-private-${zone}` },
                },
                routeTableOpts,
            );
            new aws.ec2.RouteTableAssociation(
                `${name}-private-${zone}`,
                { subnetId: privateSubnet.id, routeTableId: routeTable.id },
                parent,
            );
            return routeTable;
        });
        return { natGateways: [...natGateways.values()], routeTables };
    }

    private createFlowLogs(name: string, clusterName: string, vpc: aws.ec2.Vpc, retentionDays: number): void {
        const parent = { parent: this };
        const logGroup = new aws.cloudwatch.LogGroup(
            `${name}-flow-logs`,
            { name: `/aws/vpc/${clusterName}/flow-logs`, retentionInDays: retentionDays },
            parent,
        );
        const role = new aws.iam.Role(
            `${name}-flow-logs`,
            {
                name: `${clusterName}-vpc-flow-logs`,
                assumeRolePolicy: JSON.stringify(trustPolicy("vpc-flow-logs.amazonaws.com")),
                permissionsBoundary: stackPermissionsBoundary(clusterName, parent),
            },
            parent,
        );
        new aws.iam.RolePolicy(
            `${name}-flow-logs`,
            {
                // The name (the role's id in IAM) is known at preview, so policies can link the two.
                role: role.name,
                policy: logGroup.arn.apply((arn) =>
                    JSON.stringify({
                        Version: "2012-10-17",
                        Statement: [
                            {
                                Effect: "Allow",
                                Action: ["logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams"],
                                Resource: [arn, `${arn}:*`],
                            },
                        ],
                    }),
                ),
            },
            parent,
        );
        new aws.ec2.FlowLog(
            `${name}-flow-logs`,
            {
                vpcId: vpc.id,
                trafficType: "ALL",
                logDestinationType: "cloud-watch-logs",
                logDestination: logGroup.arn,
                iamRoleArn: role.arn,
            },
            parent,
        );
    }
}
