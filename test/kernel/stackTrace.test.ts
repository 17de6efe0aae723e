import { expect } from "chai";
import { withoutStackTrace } from "eks-platform-kernel";

describe("kernel: errors made without a stack trace", () => {
    it("captures no frame inside, and every frame again after", () => {
        const limit = Error.stackTraceLimit;
        const inside = withoutStackTrace(() => new Error("inside"));
        expect(inside.stack).to.equal("Error: inside");
        expect(Error.stackTraceLimit).to.equal(limit);
        expect((new Error("after").stack ?? "").split("\n").length).to.be.greaterThan(1);
    });

    it("restores the limit when the function throws, and lets the error through", () => {
        const limit = Error.stackTraceLimit;
        let thrown: unknown;
        try {
            withoutStackTrace(() => {
                throw new Error("thrown");
            });
        } catch (err) {
            thrown = err;
        }
        expect((thrown as Error).message).to.equal("thrown");
        expect((thrown as Error).stack).to.equal("Error: thrown");
        expect(Error.stackTraceLimit).to.equal(limit);
    });

    it("returns what the function returns", () => {
        expect(withoutStackTrace(() => 42)).to.equal(42);
    });
});
