/**
 * The replacement table against what the sample stacks register: every resource type in the
 * offline plan of each stack (`npm run plan -- <stack> --format json`) has a rule in
 * tools/render/replacements.ts (or a node-group kind's) or a reason it needs none. A type with neither
 * would be diffed as update-only: a replacement it forces would show as a harmless update.
 * (The plans render in child processes; test/tools/render/replacements.test.ts checks the source's
 * `new` calls in-process, for the mutation run.)
 */
import { expect } from "chai";
import * as fs from "fs";
import { noRuleNeeded, replacementRule } from "../../../tools/render/replacements";
import { planOf, ROOT } from "../../mocks";

const STACKS = fs
    .readdirSync(ROOT)
    .map((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1])
    .filter((s): s is string => s !== undefined)
    .sort();

describe("tools/render/replacements.ts against the sample stacks' plans", function () {
    this.timeout(240_000);

    it("finds the sample stacks", () => {
        expect(STACKS).to.include.members(["dev", "prod"]);
    });

    for (const stack of STACKS) {
        it(`${stack}: every type the plan registers has a replacement rule or a reason it needs none`, async () => {
            const types = [...new Set((await planOf(stack)).resources.map((r) => r.type))].sort();
            expect(types.length, stack).to.be.above(20);
            const missing = types.filter((type) => replacementRule(type) === undefined && noRuleNeeded(type) === undefined);
            expect(missing, `${stack}: types diffed as update-only with no rule in tools/render/replacements.ts`).to.deep.equal([]);
        });
    }

    it("prod: the Transit Gateway attachment is replaced on a new transit gateway or VPC, not on new subnets (aws_ec2_transit_gateway_vpc_attachment: ForceNew on transit_gateway_id, vpc_id)", async () => {
        const types = (await planOf("prod")).resources.map((r) => r.type);
        expect(types).to.include("aws:ec2transitgateway/vpcAttachment:VpcAttachment");
        expect(replacementRule("aws:ec2transitgateway/vpcAttachment:VpcAttachment")?.replaceOn).to.deep.equal([
            "transitGatewayId",
            "vpcId",
        ]);
    });
});
