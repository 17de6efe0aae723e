import { expect } from "chai";
import { blockSize, formatCidr, overlaps, parseCidr } from "eks-platform-kernel";
import { azSlot, planSubnets, SubnetLayoutRequest, subnetLayoutProblems } from "../../components/network.schema";
import { stackConfig, stacks } from "../stackFiles";

/**
 * The layout as the program computed it before AZ slots (private blocks in list order from the
 * start of the VPC, then the public blocks): what every live stack was created with.
 */
/**
 * The layout the positional code gave a stack created with the AZs `r` lists: private subnets in
 * order, the public ones packed after them — or, when the stack pins `publicSubnetsBlock` (where
 * its public subnets were created), in that block.
 */
function positionalLayout(r: SubnetLayoutRequest): Map<string, [string, string]> {
    const vpc = parseCidr(r.vpcCidr)!;
    const privateSize = blockSize(r.privatePrefixLength);
    const publicSize = blockSize(r.publicPrefixLength);
    const publicStart =
        r.publicSubnetsBlock !== undefined
            ? vpc.base + r.publicSubnetsBlock * privateSize
            : Math.ceil((vpc.base + privateSize * r.availabilityZones.length) / publicSize) * publicSize;
    return new Map(
        r.availabilityZones.map((az, i) => [
            az,
            [
                formatCidr({ base: vpc.base + i * privateSize, prefix: r.privatePrefixLength }),
                formatCidr({ base: publicStart + i * publicSize, prefix: r.publicPrefixLength }),
            ],
        ]),
    );
}

const cidrsByAz = (r: SubnetLayoutRequest) => new Map(planSubnets(r).map((p) => [p.availabilityZone, [p.privateCidr, p.publicCidr]]));

describe("subnet math", () => {
    it("parses and formats CIDRs, rejecting host bits and out-of-range octets", () => {
        expect(formatCidr(parseCidr("10.20.0.0/16")!)).to.equal("10.20.0.0/16");
        expect(parseCidr("10.20.0.1/16")).to.equal(undefined);
        expect(parseCidr("256.0.0.0/8")).to.equal(undefined);
        expect(parseCidr("10.0.0.0/33")).to.equal(undefined);
        expect(parseCidr("not-a-cidr")).to.equal(undefined);
    });

    it("lays out private /19s then public /24s in a /16 over three AZs", () => {
        const plan = planSubnets({
            vpcCidr: "10.20.0.0/16",
            availabilityZones: ["us-east-1a", "us-east-1b", "us-east-1c"],
            privatePrefixLength: 19,
            publicPrefixLength: 24,
        });
        expect(plan.map((p) => p.privateCidr)).to.deep.equal(["10.20.0.0/19", "10.20.32.0/19", "10.20.64.0/19"]);
        expect(plan.map((p) => p.publicCidr)).to.deep.equal(["10.20.96.0/24", "10.20.97.0/24", "10.20.98.0/24"]);
    });

    it("never overlaps and stays inside the VPC for every AZ count and prefix combination", () => {
        const vpc = parseCidr("10.0.0.0/16")!;
        let layouts = 0;
        for (let azs = 2; azs <= 6; azs++) {
            for (let priv = 17; priv <= 24; priv++) {
                for (let pub = 17; pub <= 28; pub++) {
                    const request = {
                        vpcCidr: "10.0.0.0/16",
                        availabilityZones: Array.from({ length: azs }, (_, i) => `us-east-1${"abcdef"[i]}`),
                        privatePrefixLength: priv,
                        publicPrefixLength: pub,
                    };
                    if (subnetLayoutProblems(request).length > 0) {
                        expect(() => planSubnets(request)).to.throw(/need \d+ |do not fit/);
                        continue;
                    }
                    layouts++;
                    const blocks = planSubnets(request).flatMap((p) => [parseCidr(p.privateCidr)!, parseCidr(p.publicCidr)!]);
                    for (const [i, a] of blocks.entries()) {
                        expect(a.base).to.be.at.least(vpc.base);
                        expect(a.base + blockSize(a.prefix)).to.be.at.most(vpc.base + blockSize(vpc.prefix));
                        for (const b of blocks.slice(i + 1)) {
                            expect(overlaps(a, b), `${formatCidr(a)} vs ${formatCidr(b)}`).to.equal(false);
                        }
                    }
                }
            }
        }
        expect(layouts).to.be.greaterThan(100);
    });

    it("explains why a layout does not fit", () => {
        const problems = subnetLayoutProblems({
            vpcCidr: "10.0.0.0/24",
            availabilityZones: ["a", "b", "c"],
            privatePrefixLength: 25,
            publicPrefixLength: 28,
        });
        expect(problems).to.have.length(2);
        expect(problems[0]).to.match(/publicSubnetsBlock 3 is not one of the VPC's 2 \/25 blocks/);
        expect(problems[1]).to.match(/slots up to 2 \(AZ letter c\) and the public block need 4 \/25 blocks but 10\.0\.0\.0\/24 has 2/);
        expect(
            subnetLayoutProblems({
                vpcCidr: "10.0.0.0/16",
                availabilityZones: ["a", "b"],
                privatePrefixLength: 16,
                publicPrefixLength: 29,
            }),
        ).to.have.length(2);
    });

    it("gives each AZ the slot of its letter", () => {
        expect(["us-east-1a", "us-east-1b", "eu-west-3c", "us-west-2f"].map(azSlot)).to.deep.equal([0, 1, 2, 5]);
    });

    it("steps private blocks over the public block and refuses a public block that cannot hold every slot", () => {
        const plan = planSubnets({
            vpcCidr: "10.10.0.0/16",
            availabilityZones: ["us-east-1c", "us-east-1a", "us-east-1b"],
            privatePrefixLength: 19,
            publicPrefixLength: 24,
            publicSubnetsBlock: 2,
        });
        expect(plan.map((p) => [p.availabilityZone, p.privateCidr, p.publicCidr])).to.deep.equal([
            ["us-east-1a", "10.10.0.0/19", "10.10.64.0/24"],
            ["us-east-1b", "10.10.32.0/19", "10.10.65.0/24"],
            ["us-east-1c", "10.10.96.0/19", "10.10.66.0/24"],
        ]);
        const crowded = {
            vpcCidr: "10.0.0.0/16",
            availabilityZones: ["us-east-1a", "us-east-1f"],
            privatePrefixLength: 19,
            publicPrefixLength: 20,
        };
        expect(subnetLayoutProblems(crowded).join()).to.match(/public \/20 subnets for slots up to 5 do not fit in one \/19 block/);
    });
});

describe("subnet addresses of every stack survive AZ edits", () => {
    for (const stack of stacks()) {
        describe(stack, () => {
            const network = stackConfig(stack).network;
            const request: SubnetLayoutRequest = {
                vpcCidr: network.vpcCidr,
                availabilityZones: network.availabilityZones,
                privatePrefixLength: network.privateSubnetPrefixLength,
                publicPrefixLength: network.publicSubnetPrefixLength,
                publicSubnetsBlock: network.publicSubnetsBlock,
            };
            const today = cidrsByAz(request);
            const region = network.availabilityZones[0].slice(0, -1);
            const nextLetter = String.fromCharCode(97 + Math.max(...network.availabilityZones.map(azSlot)) + 1);

            // The migration promise covers AZ lists written as the run a, b, c… in order (both
            // sample stacks): for them the slot layout is the positional one, address for address.
            // With the public block pinned, the AZs the stack was created with are those below
            // that block; an AZ appended later lies beyond it (the test after this one covers it).
            const created = network.availabilityZones.filter(
                (az) => network.publicSubnetsBlock === undefined || azSlot(az) < network.publicSubnetsBlock,
            );
            if (created.every((az, i) => azSlot(az) === i)) {
                it("keeps the addresses the positional layout gave the live subnets", () => {
                    const positional = positionalLayout({ ...request, availabilityZones: created });
                    expect(new Map([...today].filter(([az]) => created.includes(az)))).to.deep.equal(positional);
                });
            }

            it(`appending ${region}${nextLetter} moves no existing subnet and overlaps nothing`, () => {
                const grown = cidrsByAz({ ...request, availabilityZones: [...network.availabilityZones, `${region}${nextLetter}`] });
                for (const [az, cidrs] of today) {
                    expect(grown.get(az), az).to.deep.equal(cidrs);
                }
                const blocks = [...grown.values()].flat().map((c) => parseCidr(c)!);
                blocks.forEach((a, i) =>
                    blocks.slice(i + 1).forEach((b) => expect(overlaps(a, b), `${formatCidr(a)} ${formatCidr(b)}`).to.equal(false)),
                );
            });

            it("reordering or removing AZs moves no remaining subnet", () => {
                const reversed = cidrsByAz({ ...request, availabilityZones: [...network.availabilityZones].reverse() });
                expect(reversed).to.deep.equal(today);
                const shrunk = cidrsByAz({ ...request, availabilityZones: network.availabilityZones.slice(1) });
                for (const [az, cidrs] of shrunk) {
                    expect(cidrs, az).to.deep.equal(today.get(az));
                }
            });
        });
    }
});
