import { expect } from "chai";
import { allowsEverything, isPolicyArn, podIdentityRoleName, policyArnKey } from "../../components/podIdentityPolicy";

describe("Pod Identity documents and names (pure)", () => {
    it("names roles <cluster>-<purpose>, cut to IAM's 64 characters with a hash that keeps them apart", () => {
        expect(podIdentityRoleName("acme", "shop-reports")).to.equal("acme-shop-reports");
        const cluster = "c".repeat(50);
        const a = podIdentityRoleName(cluster, "payments-settlement-exporter");
        const b = podIdentityRoleName(cluster, "payments-settlement-importer");
        expect(a)
            .to.have.length(64)
            .and.match(/-[0-9a-f]{8}$/);
        expect(b).to.have.length(64);
        expect(a).to.not.equal(b);
        expect(podIdentityRoleName(cluster, "payments-settlement-exporter")).to.equal(a);
        expect(podIdentityRoleName("a", "b".repeat(62)))
            .to.have.length(64)
            .and.not.match(/-[0-9a-f]{8}$/);
    });

    it("keys managed policy ARNs by account, path and name", () => {
        expect(policyArnKey("arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy")).to.equal(
            "aws-service-role-AmazonEBSCSIDriverPolicy",
        );
        expect(policyArnKey("arn:aws:iam::111122223333:policy/teams/shop/reports-read")).to.equal("111122223333-teams-shop-reports-read");
        expect(isPolicyArn("arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess")).to.equal(true);
        expect(isPolicyArn("arn:aws:iam::111122223333:role/admin")).to.equal(false);
        expect(isPolicyArn("AmazonS3ReadOnlyAccess")).to.equal(false);
    });

    it("calls Allow of * or *:* on Resource * administrator access, and nothing narrower", () => {
        expect(allowsEverything({ Effect: "Allow", Action: "*", Resource: "*" })).to.equal(true);
        expect(allowsEverything({ Effect: "Allow", Action: ["s3:GetObject", "*:*"], Resource: ["arn:aws:s3:::b/*", "*"] })).to.equal(true);
        expect(allowsEverything({ Effect: "Deny", Action: "*", Resource: "*" })).to.equal(false);
        expect(allowsEverything({ Effect: "Allow", Action: "*", Resource: "arn:aws:s3:::b/*" })).to.equal(false);
        expect(allowsEverything({ Effect: "Allow", Action: "s3:*", Resource: "*" })).to.equal(false);
    });
});
