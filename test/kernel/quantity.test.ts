import { expect } from "chai";
import { isQuantity, parseQuantity } from "eks-platform-kernel";

describe("Kubernetes quantities", () => {
    it("parses decimal, binary and exponent suffixes", () => {
        expect(parseQuantity("500m")).to.be.closeTo(0.5, 1e-12);
        expect(parseQuantity("2")).to.equal(2);
        expect(parseQuantity(3)).to.equal(3);
        expect(parseQuantity("8Gi")).to.equal(8 * 1024 ** 3);
        expect(parseQuantity("1.5G")).to.equal(1.5e9);
        expect(parseQuantity("128Mi")).to.equal(128 * 1024 ** 2);
        expect(parseQuantity("1e3")).to.equal(1000);
        expect(parseQuantity(".5")).to.equal(0.5);
    });

    it("orders mixed units the way the API server does", () => {
        expect(parseQuantity("1Gi")!).to.be.greaterThan(parseQuantity("1G")!);
        expect(parseQuantity("1000m")).to.equal(parseQuantity("1"));
    });

    it("rejects anything else without throwing", () => {
        for (const bad of ["", "4x", "Gi", "1.2.3", "1 Gi", "1gi", null, undefined, {}, [], NaN, Infinity, "1e400"]) {
            expect(parseQuantity(bad), JSON.stringify(bad)).to.equal(undefined);
        }
        expect(isQuantity("-1")).to.equal(false);
        expect(isQuantity("0")).to.equal(true);
    });
});
