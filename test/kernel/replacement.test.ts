import { expect } from "chai";
import { terraformForceNew } from "eks-platform-kernel";

describe("kernel/replacement.ts", () => {
    it("names a rule's source as the Terraform AWS provider's ForceNew attributes of one resource (the bridged provider replaces exactly there)", () => {
        expect(terraformForceNew("aws_eks_node_group", "ami_type, subnet_ids")).to.equal(
            "terraform-provider-aws aws_eks_node_group schema: ForceNew on ami_type, subnet_ids",
        );
    });
});
