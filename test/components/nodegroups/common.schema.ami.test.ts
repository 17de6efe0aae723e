/**
 * The public SSM parameters of pinned EKS AMI releases (components/nodegroups/common.schema.ts), the
 * parameters `npm run preflight` asks SSM for through each kind's `releaseParameter`. The paths
 * are the EKS AMI repository's layout, written out here rather than derived from the code.
 */
import { expect } from "chai";
import { amiTypeReleaseParameter } from "../../../components/nodegroups/common.schema";

describe("EKS AMI release parameters (components/nodegroups/common.schema.ts)", () => {
    it("names the public parameter of each AL2023 and AL2 managed AMI type, and none for others", () => {
        expect(amiTypeReleaseParameter("AL2023_ARM_64_STANDARD", "1.34.7-20260512")).to.equal(
            "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/arm64/standard/amazon-eks-node-al2023-arm64-standard-1.34-v20260512/image_id",
        );
        expect(amiTypeReleaseParameter("AL2023_x86_64_NVIDIA", "1.34.7-20260512")).to.equal(
            "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/nvidia/amazon-eks-node-al2023-x86_64-nvidia-1.34-v20260512/image_id",
        );
        expect(amiTypeReleaseParameter("AL2_x86_64", "1.30.4-20240917")).to.equal(
            "/aws/service/eks/optimized-ami/1.30/amazon-linux-2/amazon-eks-node-1.30-v20240917/image_id",
        );
        expect(amiTypeReleaseParameter("AL2_ARM_64", "1.30.4-20240917")).to.equal(
            "/aws/service/eks/optimized-ami/1.30/amazon-linux-2-arm64/amazon-eks-arm64-node-1.30-v20240917/image_id",
        );
        expect(amiTypeReleaseParameter("XAL2023_x86_64_STANDARD", "1.34.7-20260512")).to.equal(undefined);
        expect(amiTypeReleaseParameter("AL2023_x86_64_STANDARD_X", "1.34.7-20260512")).to.equal(undefined);
        expect(amiTypeReleaseParameter("BOTTLEROCKET_x86_64", "1.34.7-20260512")).to.equal(undefined);
        expect(amiTypeReleaseParameter("AL2023_x86_64_STANDARD", "latest")).to.equal(undefined);
    });
});
