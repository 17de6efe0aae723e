import { expect } from "chai";
import { GateReport } from "../../tools/gate";
import { formatGateText } from "../../tools/report";
import { byUrn } from "./locate";

describe("gate: the text report, readable at any size", () => {
    const description = "Deployments run enough replicas to survive a node drain.";
    const policy = (name: string, level: "mandatory" | "advisory", evaluated: number, desc = description) => ({
        name,
        description: desc,
        kind: "resource" as const,
        level,
        evaluated,
    });
    const report: GateReport = {
        pack: "p@1",
        resources: 5,
        warnings: ['config.json: "typo" names no policy of this pack; its config has no effect'],
        policies: [
            policy("a-advisory", "advisory", 5, "Advisory things."),
            policy("b-mandatory", "mandatory", 5),
            policy("idle-one", "mandatory", 0),
            policy("idle-two", "advisory", 0),
        ],
        diagnostics: [
            { policy: "a-advisory", level: "advisory", urn: "u1", message: "Advisory things.\nu1 could be better.", undeterminable: false },
            {
                policy: "b-mandatory",
                level: "mandatory",
                urn: "u1",
                message: `${description}\nu1 container "a" is short.`,
                undeterminable: false,
            },
            {
                policy: "b-mandatory",
                level: "mandatory",
                urn: "u1",
                message: `${description}\nu1 container "b" is short.`,
                undeterminable: false,
            },
            {
                policy: "b-mandatory",
                level: "mandatory",
                urn: "u2",
                message: `${description}\nu2 is short.\nsecond line`,
                undeterminable: false,
            },
        ],
    };
    const lines = formatGateText(report, byUrn).split("\n");

    it("puts the totals first, then one line naming the policies that applied to nothing", () => {
        expect(lines[0]).to.equal("3 mandatory, 1 advisory, 4 policies evaluated over 5 resources");
        expect(lines[1]).to.equal("not applicable to this input (2 of 4 policies evaluated 0 resources): idle-one, idle-two");
        expect(lines[2]).to.match(/^warning: config\.json: "typo" names no policy/);
        expect(lines.filter((l) => l.includes("idle-"))).to.have.length(1);
    });

    it("groups by policy, mandatory first, with the description once, then by resource", () => {
        const text = lines.join("\n");
        expect(text.split(description)).to.have.length(2);
        expect(text.indexOf("b-mandatory [mandatory]: 3 violations on 2 resources")).to.be.lessThan(
            text.indexOf("a-advisory [advisory]: 1 violation on 1 resource"),
        );
        const block = lines.slice(lines.indexOf("b-mandatory [mandatory]: 3 violations on 2 resources"));
        expect(block.slice(0, 8)).to.deep.equal([
            "b-mandatory [mandatory]: 3 violations on 2 resources",
            `  ${description}`,
            "  - u1",
            '      u1 container "a" is short.',
            '      u1 container "b" is short.',
            "  - u2",
            "      u2 is short.",
            "        second line",
        ]);
    });

    it("says when no policy is enabled", () => {
        const none = formatGateText({ ...report, policies: [], diagnostics: [], warnings: [] }, byUrn);
        expect(none.split("\n")).to.deep.equal([
            "0 mandatory, 0 advisory, 0 policies evaluated over 5 resources",
            "no policy is enabled: this gate checked nothing",
        ]);
    });
});
