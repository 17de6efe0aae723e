import { expect } from "chai";
import { blockSize, formatCidr, overlaps, parseCidr, planSubnets, subnetLayoutProblems } from "../components/subnets";

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
                        expect(() => planSubnets(request)).to.throw(/need \d+ addresses/);
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
        expect(problems).to.have.length(1);
        expect(problems[0]).to.match(/3 private \/25 and 3 public \/28 subnets need 432 addresses but 10\.0\.0\.0\/24 has 256/);
        expect(
            subnetLayoutProblems({
                vpcCidr: "10.0.0.0/16",
                availabilityZones: ["a", "b"],
                privatePrefixLength: 16,
                publicPrefixLength: 29,
            }),
        ).to.have.length(2);
    });
});
