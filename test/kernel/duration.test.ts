import { expect } from "chai";
import { formatSeconds, karpenterDuration, parseDuration } from "eks-platform-kernel";

describe("policy lib: durations", () => {
    it("parses durations as Go's time.ParseDuration does", () => {
        const cases: [string, number][] = [
            ["30s", 30],
            ["10m", 600],
            ["1h30m", 5400],
            ["48h", 172_800],
            ["1.5h", 5400],
            [".5s", 0.5],
            ["1.s", 1],
            ["300ms", 0.3],
            ["1500us", 0.0015],
            ["1500µs", 0.0015],
            ["1500μs", 0.0015],
            ["2ns", 2e-9],
            ["1h0m0s", 3600],
            ["+5m", 300],
            ["-5m", -300],
            ["0", 0],
            ["-0", 0],
            ["2562047h", 9_223_369_200],
        ];
        for (const [text, seconds] of cases) {
            expect(parseDuration(text), text).to.be.closeTo(seconds, 1e-12);
        }
        // Go refuses: no unit, unknown units, a lone dot, spaces, a sign alone, more than int64 nanoseconds.
        for (const bad of ["", "Never", "10", "1d", "h", ".s", "5 m", "+", "1h 30m", "2562048h", 30, null]) {
            expect(parseDuration(bad), JSON.stringify(bad)).to.equal(undefined);
        }
        expect(formatSeconds(7200)).to.equal("2h");
        expect(formatSeconds(90)).to.equal("1m 30s");
        expect(formatSeconds(5400)).to.equal("1h 30m");
        expect(formatSeconds(3725)).to.equal("1h 2m 5s");
        expect(formatSeconds(45.4)).to.equal("45s");
        expect(formatSeconds(0)).to.equal("0s");
    });

    it("reads NodePool durations only as Karpenter v1's CRD admits them", () => {
        expect(karpenterDuration("1h30m")).to.equal(5400);
        expect(karpenterDuration("720h", "orNever")).to.equal(2_592_000);
        expect(karpenterDuration("Never", "orNever")).to.equal(Infinity);
        expect(karpenterDuration("10h", "budget")).to.equal(36_000);
        expect(karpenterDuration("1h30m", "budget")).to.equal(5400);
        // Valid Go, refused by the CRD patterns.
        for (const bad of ["1.5h", "-5m", "300ms", "+1h", "0", "Never"]) {
            expect(karpenterDuration(bad), bad).to.equal(undefined);
        }
        expect(karpenterDuration("30s", "budget")).to.equal(undefined);
    });
});
