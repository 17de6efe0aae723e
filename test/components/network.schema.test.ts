import { expect } from "chai";
import { PROJECT } from "../../components/config";
import { INTERFACE_ENDPOINT_SERVICES } from "../../components/network.schema";
import { stacks } from "../stackFiles";
import { fixture, parse, problems, valuesOf } from "./config/fixtures";

const STACKS = stacks();

describe("stack config: interface endpoints", () => {
    it("are on by default for a private API endpoint and off for a public one, for the seven services", () => {
        // Private-only, reached by the deployer from its own network (a private endpoint needs a route).
        const privateStack = parse(fixture((v) => (v.cluster.endpoint = { publicAccess: false, privateAccessCidrs: ["10.99.0.0/16"] })));
        expect(privateStack.network.interfaceEndpoints).to.deep.equal({ enabled: true, services: [...INTERFACE_ENDPOINT_SERVICES] });
        expect(INTERFACE_ENDPOINT_SERVICES).to.have.members(["ecr.api", "ecr.dkr", "sts", "ec2", "sqs", "eks-auth", "logs"]);
        const publicStack = parse(fixture((v) => (v.cluster.endpoint = { publicAccess: true, publicAccessCidrs: ["203.0.113.0/24"] })));
        expect(publicStack.network.interfaceEndpoints.enabled).to.equal(false);
    });

    it("follow an explicit choice either way", () => {
        const on = parse(fixture((v) => (v.network.interfaceEndpoints = { enabled: true, services: ["sts"] })));
        expect(on.network.interfaceEndpoints).to.deep.equal({ enabled: true, services: ["sts"] });
        const off = parse(
            fixture((v) => {
                v.cluster.endpoint = { publicAccess: false, privateAccessCidrs: ["10.99.0.0/16"] };
                v.network.interfaceEndpoints = { enabled: false };
            }),
        );
        expect(off.network.interfaceEndpoints.enabled).to.equal(false);
    });

    it("refuse repeated services and S3 (the gateway endpoint serves it)", () => {
        expect(problems(fixture((v) => (v.network.interfaceEndpoints = { services: ["sts", "s3", "sts", "Bad Name"] })))).to.deep.equal([
            `${PROJECT}:network.interfaceEndpoints.services[3]: must be a service name such as ecr.api or sts`,
        ]);
        expect(problems(fixture((v) => (v.network.interfaceEndpoints = { services: ["sts", "s3", "sts"] })))).to.deep.equal([
            `${PROJECT}:network.interfaceEndpoints.services[1]: is already reached through the VPC's S3 gateway endpoint (free); remove it`,
            `${PROJECT}:network.interfaceEndpoints.services[2]: "sts" is listed twice`,
        ]);
    });

    for (const stack of STACKS) {
        it(`stack ${stack}: endpoints follow the API endpoint unless the stack file says otherwise`, () => {
            const values = valuesOf(stack);
            const config = parse(values);
            const explicit = values.network.interfaceEndpoints?.enabled;
            expect(config.network.interfaceEndpoints.enabled).to.equal(explicit ?? !config.cluster.endpoint.publicAccess);
        });
    }
});
