import { expect } from "chai";
import { GateReport } from "../../../tools/gate/gate";
import { formatCompact, formatGateText, messageParts } from "../../../tools/gate/report";
import { byUrn } from "../locate";

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

describe("gate: reports at scale (the Why and Fix once per policy, one line per finding)", () => {
    const policy = { name: "p", description: "Pods are fine.", kind: "resource" as const, level: "mandatory" as const, evaluated: 3 };
    const finding = (urn: string, what: string, fix = "do the thing.") => ({
        policy: "p",
        level: "mandatory" as const,
        urn,
        message: `Pods are fine.\n${what} Why: it breaks drains. Fix: ${fix}`,
        undeterminable: false,
    });
    const report = (diagnostics: GateReport["diagnostics"]): GateReport => ({
        pack: "p@1",
        resources: 3,
        warnings: [],
        policies: [policy],
        diagnostics,
    });

    it("splits a house-style message into what, why and fix (a violation's Fix, an undecided verdict's To decide it)", () => {
        expect(messageParts("a is b. Why: c. Fix: d.")).to.deep.equal({ what: "a is b.", why: "c.", fix: "d." });
        expect(messageParts("Undecided: a. Why: c. To decide it: d.")).to.deep.equal({ what: "Undecided: a.", why: "c.", fix: "d." });
        expect(messageParts("no parts here")).to.deep.equal({ what: "no parts here" });
    });

    it("prints a Why (and a Fix) every finding of a policy shares once, under the description; a finding's own fix stays with it", () => {
        const shared = formatGateText(report([finding("u1", "u1 is off."), finding("u2", "u2 is off.")]), byUrn).split("\n");
        expect(shared.filter((l) => l.includes("it breaks drains"))).to.deep.equal(["  Why: it breaks drains."]);
        expect(shared.filter((l) => l.includes("do the thing"))).to.deep.equal(["  Fix: do the thing."]);
        expect(shared).to.include("      u1 is off.");
        const own = formatGateText(report([finding("u1", "u1 is off.", "fix one."), finding("u2", "u2 is off.", "fix two.")]), byUrn).split(
            "\n",
        );
        expect(own).to.include("  Why: it breaks drains.");
        expect(own).to.include("      u1 is off. Fix: fix one.");
        // One finding alone keeps its whole message.
        const single = formatGateText(report([finding("u1", "u1 is off.")]), byUrn);
        expect(single).to.include("      u1 is off. Why: it breaks drains. Fix: do the thing.");
    });

    it("--format compact: one line per finding (file:line, object, policy, status, what), then the totals", () => {
        const violations = [
            {
                policy: "p",
                level: "mandatory" as const,
                resource: { type: "kubernetes:apps/v1:Deployment", name: "web", kind: "Deployment", namespace: "shop" },
                message: "Pods are fine.\nDeployment shop/web is off. Why: it breaks drains. Fix: do the thing.",
                location: { file: "k8s/web.yaml", line: 4 },
            },
            {
                policy: "p",
                level: "mandatory" as const,
                resource: { type: "kubernetes:apps/v1:Deployment", name: "api", kind: "Deployment", namespace: "shop" },
                message: `Pods are fine.\nDeployment shop/api ${"x".repeat(300)}. Why: w. Fix: f.`,
                waived: "accepted",
            },
        ];
        const lines = formatCompact(report([finding("u1", "a"), { ...finding("u2", "b"), waived: "accepted" }]), violations).split("\n");
        expect(lines[0]).to.equal("k8s/web.yaml:4: Deployment shop/web: p [mandatory]: Deployment shop/web is off.");
        expect(lines[1]).to.match(/^Deployment shop\/api: p \[waived\]: Deployment shop\/api x+…$/);
        expect(lines[1].length).to.be.lessThan(260);
        expect(lines[2]).to.equal("1 mandatory, 0 advisory, 1 waived, 1 policies evaluated over 3 resources");
    });
});
