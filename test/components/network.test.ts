import { expect } from "chai";
import { natLayout, Network, subnetTags, transitGatewayRoutes } from "../../components/network";
import { RecordingMocks } from "../../tools/render/offline";
import { ofType, settled, useMocks } from "../mocks";

async function build(
    natGateways: "single" | "perAz",
    azs: string[],
    { publicSubnetsBlock, transitGateway }: { publicSubnetsBlock?: number; transitGateway?: { id: string; destinations: string[] } } = {},
): Promise<RecordingMocks> {
    const mocks = await useMocks("up");
    new Network("net", {
        transitGateway,
        clusterName: "demo",
        region: "us-east-1",
        vpcCidr: "10.0.0.0/16",
        availabilityZones: azs,
        natGateways,
        privateSubnetPrefixLength: 19,
        publicSubnetPrefixLength: 24,
        publicSubnetsBlock,
        flowLogs: { enabled: true, retentionDays: 30 },
    });
    return mocks;
}

describe("Network component", () => {
    it("tags subnets for EKS, load balancers and Karpenter discovery", () => {
        expect(subnetTags("demo", "public")).to.deep.equal({
            "kubernetes.io/cluster/demo": "shared",
            tier: "public",
            "kubernetes.io/role/elb": "1",
        });
        expect(subnetTags("demo", "private")).to.deep.equal({
            "kubernetes.io/cluster/demo": "shared",
            tier: "private",
            "kubernetes.io/role/internal-elb": "1",
            "karpenter.sh/discovery": "demo",
        });
    });

    describe("three AZs, a NAT gateway per AZ", () => {
        let mocks: RecordingMocks;
        before(async () => {
            mocks = await build("perAz", ["us-east-1a", "us-east-1b", "us-east-1c"]);
            await settled();
        });

        it("creates a VPC with DNS hostnames and DNS support", () => {
            const [vpc] = ofType(mocks.resources, "aws:ec2/vpc:Vpc");
            expect(vpc.props).to.include({ cidrBlock: "10.0.0.0/16", enableDnsHostnames: true, enableDnsSupport: true });
        });

        it("creates one public and one private subnet per AZ with the right tags and no public IPs", () => {
            const subnets = ofType(mocks.resources, "aws:ec2/subnet:Subnet");
            expect(subnets).to.have.length(6);
            const tagged = (role: string) => subnets.filter((s) => (s.props.tags as Record<string, string>)[role] === "1");
            expect(tagged("kubernetes.io/role/elb").map((s) => s.props.availabilityZone)).to.have.members([
                "us-east-1a",
                "us-east-1b",
                "us-east-1c",
            ]);
            expect(tagged("kubernetes.io/role/internal-elb").map((s) => s.props.availabilityZone)).to.have.members([
                "us-east-1a",
                "us-east-1b",
                "us-east-1c",
            ]);
            for (const s of subnets) {
                const tags = s.props.tags as Record<string, string>;
                expect(tags["kubernetes.io/cluster/demo"], s.name).to.equal("shared");
                expect(s.props.mapPublicIpOnLaunch, s.name).to.equal(false);
            }
            for (const s of tagged("kubernetes.io/role/internal-elb")) {
                expect((s.props.tags as Record<string, string>)["karpenter.sh/discovery"]).to.equal("demo");
            }
            for (const s of tagged("kubernetes.io/role/elb")) {
                expect(s.props.tags).to.not.have.property("karpenter.sh/discovery");
            }
        });

        it("puts a NAT gateway in each AZ and routes each private subnet through its own", () => {
            const nats = ofType(mocks.resources, "aws:ec2/natGateway:NatGateway");
            expect(nats).to.have.length(3);
            const privateRoutes = ofType(mocks.resources, "aws:ec2/routeTable:RouteTable").filter((r) => r.name.startsWith("net-private-"));
            const natIds = privateRoutes.map((r) => (r.props.routes as { natGatewayId: string }[])[0].natGatewayId);
            expect(new Set(natIds).size).to.equal(3);
            const eips = ofType(mocks.resources, "aws:ec2/eip:Eip");
            expect(eips, "one address per NAT gateway").to.have.length(3);
            expect(eips.map((e) => e.props.domain)).to.deep.equal(["vpc", "vpc", "vpc"]);
        });

        it("locks down the default security group and ships flow logs", () => {
            const [sg] = ofType(mocks.resources, "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup");
            expect(sg.props.ingress ?? []).to.deep.equal([]);
            expect(sg.props.egress ?? []).to.deep.equal([]);
            const [flow] = ofType(mocks.resources, "aws:ec2/flowLog:FlowLog");
            expect(flow.props.trafficType).to.equal("ALL");
            const [group] = ofType(mocks.resources, "aws:cloudwatch/logGroup:LogGroup");
            expect(group.props.retentionInDays).to.equal(30);
        });
    });

    it("shares one NAT gateway when asked to", async () => {
        const mocks = await build("single", ["us-east-1a", "us-east-1b"]);
        await settled();
        expect(ofType(mocks.resources, "aws:ec2/natGateway:NatGateway")).to.have.length(1);
        const privateRoutes = ofType(mocks.resources, "aws:ec2/routeTable:RouteTable").filter((r) => r.name.startsWith("net-private-"));
        expect(privateRoutes).to.have.length(2);
        const natIds = new Set(privateRoutes.map((r) => (r.props.routes as { natGatewayId: string }[])[0].natGatewayId));
        expect(natIds.size).to.equal(1);
    });

    it("names and addresses every subnet by its AZ: appending or reordering AZs leaves the others alone", async () => {
        const shape = async (azs: string[]) => {
            const mocks = await build("single", azs, { publicSubnetsBlock: 2 });
            await settled();
            return {
                subnets: new Map(ofType(mocks.resources, "aws:ec2/subnet:Subnet").map((s) => [s.name, s.props.cidrBlock])),
                nat: ofType(mocks.resources, "aws:ec2/natGateway:NatGateway").map((n) => n.name),
            };
        };
        const before = await shape(["us-east-1a", "us-east-1b"]);
        expect([...before.subnets.keys()]).to.have.members([
            "net-public-us-east-1a",
            "net-public-us-east-1b",
            "net-private-us-east-1a",
            "net-private-us-east-1b",
        ]);
        for (const azs of [
            ["us-east-1a", "us-east-1b", "us-east-1c"],
            ["us-east-1b", "us-east-1a"],
            ["us-east-1c", "us-east-1b", "us-east-1a"],
        ]) {
            const after = await shape(azs);
            for (const [name, cidr] of before.subnets) {
                expect(after.subnets.get(name), `${name} with ${azs.join(",")}`).to.equal(cidr);
            }
            expect(after.nat, azs.join(",")).to.deep.equal(before.nat);
        }
    });

    describe("attached to a Transit Gateway for the deployer's networks", () => {
        const tgw = { id: "tgw-0123456789abcdef0", destinations: ["10.99.0.0/16", "192.168.10.0/24"] };
        let mocks: RecordingMocks;
        before(async () => {
            mocks = await build("perAz", ["us-east-1a", "us-east-1b"], { transitGateway: tgw });
            await settled();
        });

        it("attaches the private subnets, one per AZ", () => {
            const [attachment] = ofType(mocks.resources, "aws:ec2transitgateway/vpcAttachment:VpcAttachment");
            expect(attachment.props).to.include({ transitGatewayId: tgw.id, vpcId: "net-vpc-id", dnsSupport: "enable" });
            expect(attachment.props.subnetIds).to.deep.equal(["net-private-us-east-1a-id", "net-private-us-east-1b-id"]);
        });

        it("routes the deployer's networks through it from every route table, public ones included, once attached", () => {
            const tables = ofType(mocks.resources, "aws:ec2/routeTable:RouteTable");
            expect(tables).to.have.length(3);
            for (const table of tables) {
                const routes = table.props.routes as { cidrBlock: string; transitGatewayId?: string }[];
                expect(
                    routes.filter((r) => r.transitGatewayId === tgw.id).map((r) => r.cidrBlock),
                    table.name,
                ).to.deep.equal(tgw.destinations);
                expect(
                    routes.some((r) => r.cidrBlock === "0.0.0.0/0"),
                    table.name,
                ).to.equal(true);
                expect(table.options.dependsOn, table.name).to.include("net-tgw");
            }
        });
    });

    it("adds no Transit Gateway route or attachment without one", async () => {
        expect(transitGatewayRoutes(undefined)).to.deep.equal([]);
        const mocks = await build("single", ["us-east-1a", "us-east-1b"]);
        await settled();
        expect(ofType(mocks.resources, "aws:ec2transitgateway/vpcAttachment:VpcAttachment")).to.deep.equal([]);
        for (const table of ofType(mocks.resources, "aws:ec2/routeTable:RouteTable")) {
            expect(table.props.routes, table.name).to.have.length(1);
        }
    });
});

describe("natLayout (pure)", () => {
    const zones = ["us-east-1a", "us-east-1b", "us-east-1c"];

    it("single: one NAT gateway in the first AZ of the layout, used by every private route table", () => {
        expect(natLayout(zones, "single")).to.deep.equal({
            natZones: ["us-east-1a"],
            natFor: { "us-east-1a": "us-east-1a", "us-east-1b": "us-east-1a", "us-east-1c": "us-east-1a" },
        });
    });

    it("perAz: a NAT gateway in every AZ, each private route table through its own AZ's", () => {
        const { natZones, natFor } = natLayout(zones, "perAz");
        expect(natZones).to.deep.equal(zones);
        for (const zone of zones) {
            expect(natFor[zone]).to.equal(zone);
        }
    });
});
