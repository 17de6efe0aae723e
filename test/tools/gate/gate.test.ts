import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { PolicyPackProcess } from "../../../tools/gate/analyzer";
import { GateInputError } from "../../../tools/cli/errors";
import { runGate, summarize } from "../../../tools/gate/gate";
import { UNKNOWN } from "eks-platform-kernel";
import { formatGateText } from "../../../tools/gate/report";
import { GateResource, urnOf } from "../../../tools/gate/requests";
import { ROOT } from "../../mocks";
import { byUrn } from "../locate";

const FIXTURE_PACK = path.join(ROOT, "test", "fixtures", "pack");

const resource = (type: string, name: string, props: Record<string, unknown>): GateResource => ({
    urn: urnOf("prod", "test", type, name),
    type,
    name,
    props,
});
const deployment = (name: string, replicas: unknown) =>
    resource("kubernetes:apps/v1:Deployment", name, {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name, namespace: "team" },
        spec: { replicas },
    });
const namespace = (name: string) =>
    resource("kubernetes:core/v1:Namespace", name, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
const quota = (ns: string) =>
    resource("kubernetes:core/v1:ResourceQuota", `${ns}-quota`, {
        apiVersion: "v1",
        kind: "ResourceQuota",
        metadata: { name: "q", namespace: ns },
        spec: { hard: { pods: "10" } },
    });

describe("gate: a policy pack served over the analyzer protocol (fixture pack)", function () {
    this.timeout(120_000);
    let pack: Promise<PolicyPackProcess>;
    let dir: string;
    before(() => {
        pack = PolicyPackProcess.start(FIXTURE_PACK, { stack: "prod", project: "test" });
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "gate-config-"));
    });
    after(async () => {
        (await pack).close();
        fs.rmSync(dir, { recursive: true, force: true });
    });

    let configs = 0;
    const gate = (resources: GateResource[], config: Record<string, unknown> = {}) => {
        const file = path.join(dir, `config-${configs++}.json`);
        fs.writeFileSync(file, JSON.stringify(config));
        return runGate({ packDir: FIXTURE_PACK, configFile: file, stack: "prod", project: "test", resources, pack });
    };

    it("reports the pack's policies, kinds and levels", async () => {
        const info = await (await pack).info();
        expect(info.name).to.equal("fixture-pack");
        expect(info.policies.map((p) => [p.name, p.kind, p.enforcementLevel])).to.deep.equal([
            ["deployment-min-replicas", "resource", "mandatory"],
            ["namespace-has-quota", "stack", "mandatory"],
            ["subnet-no-public-ip", "resource", "advisory"],
        ]);
    });

    it("passes compliant resources and counts what each policy evaluated", async () => {
        const report = await gate([deployment("web", 3), namespace("team"), quota("team")]);
        expect(report.diagnostics).to.deep.equal([]);
        expect(report.resources).to.equal(3);
        expect(Object.fromEntries(report.policies.map((p) => [p.name, p.evaluated]))).to.deep.equal({
            "deployment-min-replicas": 1,
            "namespace-has-quota": 3,
            "subnet-no-public-ip": 0,
        });
        const text = formatGateText(report, byUrn).split("\n");
        expect(text[0]).to.equal("0 mandatory, 0 advisory, 3 policies evaluated over 3 resources");
        expect(text[1]).to.equal("not applicable to this input (1 of 3 policies evaluated 0 resources): subnet-no-public-ip");
        expect(text).to.have.length(2);
    });

    it("reports a resource violation with level, resource and the SDK's message", async () => {
        const report = await gate([deployment("web", 1), namespace("team"), quota("team")]);
        expect(report.diagnostics).to.have.length(1);
        const [d] = report.diagnostics;
        expect(d).to.deep.include({
            policy: "deployment-min-replicas",
            level: "mandatory",
            urn: "urn:pulumi:prod::test::kubernetes:apps/v1:Deployment::web",
            undeterminable: false,
        });
        expect(d.message).to.equal(
            "Deployments run enough replicas to survive a node drain.\nhas 1 replica(s); at least 2 are needed so a drain never takes all of them.",
        );
        expect(summarize(report)).to.deep.equal({ mandatory: 1, advisory: 0, undeterminable: 0, undecided: 0, waived: 0 });
    });

    it("reports a stack violation on the resource the policy names", async () => {
        const report = await gate([namespace("team"), namespace("other"), quota("team")]);
        expect(report.diagnostics.map((d) => [d.policy, d.urn])).to.deep.equal([
            ["namespace-has-quota", "urn:pulumi:prod::test::kubernetes:core/v1:Namespace::other"],
        ]);
    });

    it("hands config properties to the policy", async () => {
        const report = await gate([deployment("web", 1)], { "deployment-min-replicas": { minReplicas: 1 } });
        expect(report.diagnostics).to.deep.equal([]);
        expect(report.policies.find((p) => p.name === "deployment-min-replicas")?.evaluated).to.equal(1);
    });

    it("applies enforcement levels from config: `all`, and `disabled` removes a policy", async () => {
        const advisory = await gate([deployment("web", 1)], { all: "advisory" });
        expect(advisory.diagnostics.map((d) => d.level)).to.deep.equal(["advisory"]);
        expect(summarize(advisory).mandatory).to.equal(0);
        const disabled = await gate([deployment("web", 1)], { "deployment-min-replicas": "disabled" });
        expect(disabled.diagnostics).to.deep.equal([]);
        expect(disabled.policies.map((p) => p.name)).to.not.include("deployment-min-replicas");
    });

    it("shows a value unknown at preview as undeterminable at the configured level, never as a pass", async () => {
        const report = await gate([deployment("web", UNKNOWN)]);
        expect(report.diagnostics).to.have.length(1);
        expect(report.diagnostics[0]).to.deep.include({ policy: "deployment-min-replicas", level: "mandatory", undeterminable: true });
        expect(report.diagnostics[0].message).to.match(/^can't run policy 'deployment-min-replicas' .* during preview/);
        const text = formatGateText(report, byUrn);
        expect(text.split("\n")[0]).to.equal(
            "1 mandatory, 0 advisory, 3 policies evaluated over 1 resources (1 undeterminable at preview)",
        );
        expect(text).to.include("undeterminable at preview, counted as mandatory (not a pass): can't run policy 'deployment-min-replicas'");
    });

    it("counts an undecided `remediate` policy as mandatory, as the SDK reports a violation remediation left", async () => {
        const config = { "deployment-min-replicas": "remediate" };
        const undecided = await gate([deployment("web", UNKNOWN)], config);
        expect(undecided.diagnostics).to.have.length(1);
        expect(undecided.diagnostics[0]).to.deep.include({ policy: "deployment-min-replicas", level: "mandatory", undeterminable: true });
        expect(summarize(undecided).mandatory, "an undecided remediate policy fails the gate").to.equal(1);
        const text = formatGateText(undecided, byUrn);
        expect(text).to.include("deployment-min-replicas [remediate, counted as mandatory]: 1 violation on 1 resource");
        expect(text).to.include("undeterminable at preview, counted as mandatory (not a pass)");
        // Decided, the same policy's violation is the SDK's own mandatory one.
        const decided = await gate([deployment("web", 1)], config);
        expect(decided.diagnostics.map((d) => [d.level, d.undeterminable])).to.deep.equal([["mandatory", false]]);
    });

    it("shows an undecided verdict as undecided, with its reason: advisory, neither a violation nor a pass", async () => {
        const report = await gate([deployment("web", undefined)]);
        expect(report.diagnostics).to.have.length(1);
        const [d] = report.diagnostics;
        expect(d).to.deep.include({ policy: "deployment-min-replicas", level: "advisory", undeterminable: false });
        expect(d.undecided).to.match(/^Deployment web sets no replicas\. Why: .+ To decide it: .+\.$/);
        expect(summarize(report)).to.deep.equal({ mandatory: 0, advisory: 0, undeterminable: 0, undecided: 1, waived: 0 });
        const text = formatGateText(report, byUrn).split("\n");
        expect(text[0]).to.equal("0 mandatory, 0 advisory, 1 undecided, 3 policies evaluated over 1 resources");
        const block = text.indexOf("deployment-min-replicas: 1 undecided on 1 resource");
        expect(block, text.join("\n")).to.be.greaterThan(0);
        expect(text[block + 2]).to.equal("  - urn:pulumi:prod::test::kubernetes:apps/v1:Deployment::web");
        expect(text[block + 3]).to.match(/^ {6}undecided \(not a pass, not a violation\): Deployment web sets no replicas\. Why: /);
    });

    it("rejects config that breaks a policy's schema before analysing anything", async () => {
        const err = await gate([deployment("web", 3)], { "deployment-min-replicas": { minReplicas: "two" } }).then(
            () => undefined,
            (e: Error) => e,
        );
        expect(err).to.be.instanceOf(GateInputError);
        expect(err?.message).to.include('deployment-min-replicas.minReplicas: must be an integer, not "two"');
    });

    it("sends a stack larger than gRPC's default 4 MiB message in one AnalyzeStack", async () => {
        const filler = "x".repeat(2048);
        const many = Array.from({ length: 3000 }, (_, i) =>
            resource("kubernetes:core/v1:ConfigMap", `cm-${i}`, { metadata: { name: `cm-${i}` }, data: { filler } }),
        );
        const report = await gate([...many, namespace("team")]);
        expect(report.resources).to.equal(3001);
        expect(report.diagnostics.map((d) => d.urn)).to.deep.equal(["urn:pulumi:prod::test::kubernetes:core/v1:Namespace::team"]);
    });
});
