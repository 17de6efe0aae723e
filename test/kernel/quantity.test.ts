import { expect } from "chai";
import { compareQuantities, isQuantity, parseQuantity } from "eks-platform-kernel";

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

describe("policy lib: exact quantity comparison", () => {
    it("compares equal quantities as equal whatever their notation, where floats fail", () => {
        expect(0.001 * 1001 === 1.001, "the float trap this avoids").to.equal(false);
        for (const [a, b] of [
            ["1001m", "1.001"],
            ["1000m", "1"],
            ["1024Mi", "1Gi"],
            ["1.5Gi", "1536Mi"],
            ["1e3", "1k"],
            [0.5, "500m"],
            ["0", "0m"],
            [".5", "0.5"],
        ] as const) {
            expect(compareQuantities(a, b), `${a} vs ${b}`).to.equal(0);
        }
    });

    it("orders different quantities", () => {
        expect(compareQuantities("1002m", "1.001")).to.equal(1);
        expect(compareQuantities("1.001", "1002m")).to.equal(-1);
        expect(compareQuantities("1Gi", "1G")).to.equal(1);
        expect(compareQuantities(2, "1")).to.equal(1);
        expect(compareQuantities("-1", "1")).to.equal(-1);
        expect(compareQuantities("-2", "-1")).to.equal(-1);
        expect(compareQuantities("1e999", "1")).to.equal(1);
        expect(compareQuantities("1n", "1e-10")).to.equal(1);
    });

    it("returns undefined for anything that is not a quantity", () => {
        for (const bad of ["512MB", "", "x", null, undefined, {}, [], NaN, Infinity]) {
            expect(compareQuantities(bad, "1"), JSON.stringify(bad) ?? "undefined").to.equal(undefined);
        }
    });
});
