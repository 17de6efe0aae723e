import { expect } from "chai";
import { parseIntOrPercent, readIntOrPercent, scaledValue } from "eks-platform-kernel";

describe("policy lib: int-or-percent", () => {
    it("parses integers and percentages, rejecting everything else", () => {
        expect(parseIntOrPercent(1)).to.deep.equal({ kind: "int", value: 1 });
        expect(parseIntOrPercent("25%")).to.deep.equal({ kind: "percent", value: 25 });
        expect(parseIntOrPercent("0%")).to.deep.equal({ kind: "percent", value: 0 });
        for (const bad of [-1, 1.5, "abc", "%", "-5%", "1.5%", "3", " 25%", "150%", null, {}, [], NaN]) {
            expect(parseIntOrPercent(bad), JSON.stringify(bad)).to.equal(undefined);
        }
        expect(readIntOrPercent("3")).to.deep.equal({
            problem: 'a number written as a string: a string must be a percentage such as "25%"',
        });
        expect(readIntOrPercent("150%")).to.deep.equal({ problem: "a percentage above 100%" });
    });

    it("scales percentages up, as the disruption controller rounds them", () => {
        expect(scaledValue({ kind: "percent", value: 90 }, 3)).to.equal(3); // 2.7 → 3
        expect(scaledValue({ kind: "percent", value: 50 }, 3)).to.equal(2); // 1.5 → 2
        expect(scaledValue({ kind: "percent", value: 10 }, 3)).to.equal(1); // 0.3 → 1
        expect(scaledValue({ kind: "int", value: 2 }, 3)).to.equal(2);
    });
});
