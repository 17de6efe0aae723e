import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { trustPolicy } from "./iam";
import { planSubnets } from "./subnets";

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
    /** VPC flow logs to CloudWatch Logs. Defaults to `{ enabled: false }`. */
    flowLogs?: { enabled: boolean; retentionDays: number };
}

/** Tags every subnet carries for EKS, load balancers and Karpenter discovery. Pure, tested alone. */
export function subnetTags(clusterName: string, tier: "public" | "private"): Record<string, string> {
    const common = { [`kubernetes.io/cluster/${clusterName}`]: "shared", tier };
    return tier === "public"
        ? { ...common, "kubernetes.io/role/elb": "1" }
        : { ...common, "kubernetes.io/role/internal-elb": "1", "karpenter.sh/discovery": clusterName };
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

        const publicRouteTable = new aws.ec2.RouteTable(
            `${name}-public-rt`,
            { vpcId: vpc.id, routes: [{ cidrBlock: "0.0.0.0/0", gatewayId: igw.id }], tags: { Name: `${args.clusterName}-public` } },
            parent,
        );

        const publicSubnets = layout.map((s) => {
            const subnet = new aws.ec2.Subnet(
                `${name}-public-${s.availabilityZone}`,
                {
                    vpcId: vpc.id,
                    cidrBlock: s.publicCidr,
                    availabilityZone: s.availabilityZone,
                    // Only NAT gateways (Elastic IPs) and load balancers live here; nothing gets a public IP by default.
                    mapPublicIpOnLaunch: false,
                    tags: { Name: `${args.clusterName}-public-${s.availabilityZone}`, ...subnetTags(args.clusterName, "public") },
                },
                parent,
            );
            new aws.ec2.RouteTableAssociation(
                `${name}-public-${s.availabilityZone}`,
                { subnetId: subnet.id, routeTableId: publicRouteTable.id },
                parent,
            );
            return subnet;
        });

        // The layout is sorted by AZ slot: a single NAT gateway stays in the lowest-lettered AZ
        // whatever order the AZs are listed in.
        const natCount = args.natGateways === "single" ? 1 : layout.length;
        const natGateways = layout.slice(0, natCount).map((s, i) => {
            const eip = new aws.ec2.Eip(
                `${name}-nat-${s.availabilityZone}`,
                { domain: "vpc", tags: { Name: `${args.clusterName}-nat-${s.availabilityZone}` } },
                { parent: this, dependsOn: [igw] },
            );
            return new aws.ec2.NatGateway(
                `${name}-nat-${s.availabilityZone}`,
                { allocationId: eip.id, subnetId: publicSubnets[i].id, tags: { Name: `${args.clusterName}-nat-${s.availabilityZone}` } },
                parent,
            );
        });

        const privateRouteTables: aws.ec2.RouteTable[] = [];
        const privateSubnets = layout.map((s, i) => {
            const nat = natGateways[args.natGateways === "single" ? 0 : i];
            const routeTable = new aws.ec2.RouteTable(
                `${name}-private-${s.availabilityZone}`,
                {
                    vpcId: vpc.id,
                    routes: [{ cidrBlock: "0.0.0.0/0", natGatewayId: nat.id }],
                    tags: { Name: `${args.clusterName}-private-${s.availabilityZone}` },
                },
                parent,
            );
            privateRouteTables.push(routeTable);
            const subnet = new aws.ec2.Subnet(
                `${name}-private-${s.availabilityZone}`,
                {
                    vpcId: vpc.id,
                    cidrBlock: s.privateCidr,
                    availabilityZone: s.availabilityZone,
                    mapPublicIpOnLaunch: false,
                    tags: { Name: `${args.clusterName}-private-${s.availabilityZone}`, ...subnetTags(args.clusterName, "private") },
                },
                parent,
            );
            new aws.ec2.RouteTableAssociation(
                `${name}-private-${s.availabilityZone}`,
                { subnetId: subnet.id, routeTableId: routeTable.id },
                parent,
            );
            return subnet;
        });

        // Image layers from ECR are served from S3: a gateway endpoint keeps that traffic off the NAT bill.
        new aws.ec2.VpcEndpoint(
            `${name}-s3`,
            {
                vpcId: vpc.id,
                serviceName: `com.amazonaws.${args.region}.s3`,
                vpcEndpointType: "Gateway",
                routeTableIds: privateRouteTables.map((rt) => rt.id),
                tags: { Name: `${args.clusterName}-s3` },
            },
            parent,
        );

        if (args.flowLogs?.enabled) {
            this.createFlowLogs(name, args.clusterName, vpc, args.flowLogs.retentionDays);
        }

        this.vpcId = vpc.id;
        this.vpcCidr = args.vpcCidr;
        this.publicSubnetIds = publicSubnets.map((s) => s.id);
        this.privateSubnetIds = privateSubnets.map((s) => s.id);
        this.privateSubnetIdsByAz = Object.fromEntries(layout.map((s, i) => [s.availabilityZone, privateSubnets[i].id]));
        this.natGatewayIds = natGateways.map((n) => n.id);
        this.registerOutputs({
            vpcId: this.vpcId,
            publicSubnetIds: this.publicSubnetIds,
            privateSubnetIds: this.privateSubnetIds,
            natGatewayIds: this.natGatewayIds,
        });
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
