import { expect } from "chai";
import { InterfaceEndpoints } from "../../components/endpoints";
import { RecordingMocks } from "../../tools/render/offline";
import { ofType, settled, useMocks } from "../mocks";

describe("InterfaceEndpoints component", () => {
    let mocks: RecordingMocks;
    before(async () => {
        mocks = await useMocks("up");
        new InterfaceEndpoints("ep", {
            clusterName: "acme",
            region: "eu-west-1",
            vpcId: "vpc-1",
            vpcCidr: "10.30.0.0/16",
            // Out of order on purpose: subnets follow the AZ names, never map order.
            privateSubnetIdsByAz: { "eu-west-1b": "subnet-b", "eu-west-1a": "subnet-a" },
            services: ["ecr.api", "eks-auth"],
        });
        await settled();
    });

    it("creates one interface endpoint per service, named by the service, with private DNS in every private subnet", () => {
        const endpoints = ofType(mocks.resources, "aws:ec2/vpcEndpoint:VpcEndpoint");
        expect(endpoints.map((e) => e.name)).to.deep.equal(["ep-ecr.api", "ep-eks-auth"]);
        for (const e of endpoints) {
            expect(e.props).to.deep.include({
                vpcEndpointType: "Interface",
                privateDnsEnabled: true,
                subnetIds: ["subnet-a", "subnet-b"],
                vpcId: "vpc-1",
            });
            expect(e.props.securityGroupIds).to.deep.equal(["ep-sg-id"]);
        }
        expect(endpoints.map((e) => e.props.serviceName)).to.deep.equal([
            "com.amazonaws.eu-west-1.ecr.api",
            "com.amazonaws.eu-west-1.eks-auth",
        ]);
    });

    it("admits only HTTPS from the VPC to the endpoints' own security group", () => {
        const rules = ofType(mocks.resources, "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule");
        expect(rules.map((r) => r.props)).to.deep.equal([
            {
                securityGroupId: "ep-sg-id",
                cidrIpv4: "10.30.0.0/16",
                ipProtocol: "tcp",
                fromPort: 443,
                toPort: 443,
                description: "HTTPS from the VPC",
            },
        ]);
    });
});
