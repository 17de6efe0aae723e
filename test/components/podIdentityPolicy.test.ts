import { expect } from "chai";
import { podIdentityRoleName } from "../../components/podIdentityPolicy";

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
});
