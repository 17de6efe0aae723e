import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { PolicyPackProcess } from "../../tools/analyzer";
import { GateInputError } from "../../tools/errors";
import { GateReport, runGate, summarize } from "../../tools/gate";
import { UNKNOWN } from "eks-platform-kernel";
import { PackPolicy, parsePolicyPackConfig, reconcilePolicyConfig } from "../../tools/policyConfig";
import { formatGateText, Locate } from "../../tools/report";
import * as fc from "fast-check";
import * as analyzerpb from "@pulumi/pulumi/proto/analyzer_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { buildAnalyzeRequest, buildStackRequest, encodeProperties, GateResource, urnOf } from "../../tools/requests";
import { Plan, planToGateResources } from "../../tools/stackPlan";
import { ROOT } from "../mocks";

const FIXTURE_PACK = path.join(ROOT, "test", "fixtures", "pack");
// Names resources by URN, so assertions on text see exactly what the gate reported.
const byUrn: Locate = (urn) => ({ resource: { type: "t", name: urn ?? "stack" }, label: urn ?? "stack" });

function thrown(fn: () => unknown): Error {
    try {
        fn();
    } catch (err) {
        return err as Error;
    }
    throw new Error("expected an error");
}

describe("gate: policy pack config, as --policy-pack-config reads it", () => {
    it("accepts a level per policy, or an object with a level and properties", () => {
        const config = parsePolicyPackConfig(
            JSON.stringify({ all: "advisory", a: "mandatory", b: { enforcementLevel: "disabled", limit: 3 }, c: { limit: 4 } }),
            "x.json",
        );
        expect(config).to.deep.equal({
            all: { enforcementLevel: "advisory" },
            a: { enforcementLevel: "mandatory" },
            b: { enforcementLevel: "disabled", properties: { limit: 3 } },
            c: { properties: { limit: 4 } },
        });
        expect(parsePolicyPackConfig("  \n", "empty.json")).to.deep.equal({});
    });

    it("names every bad key in one error", () => {
        const err = thrown(() =>
            parsePolicyPackConfig(JSON.stringify({ a: "blocking", b: { enforcementLevel: 1 }, c: 7 }), "policies/config/dev.json"),
        );
        expect(err).to.be.instanceOf(GateInputError);
        expect(err.message).to.include("policies/config/dev.json (3 problems)");
        expect(err.message).to.match(/- a: "blocking" is not an enforcement level/);
        expect(err.message).to.match(/- b\.enforcementLevel: 1 is not an enforcement level/);
        expect(err.message).to.match(/- c: must be an enforcement level or an object/);
    });

    it("names the file and line of invalid JSON", () => {
        const err = thrown(() => parsePolicyPackConfig('{\n  "a": "mandatory",\n  "b": oops\n}', "bad.json"));
        expect(err.message).to.match(/^bad\.json:3: not valid JSON/);
    });

    const policies: PackPolicy[] = [
        {
            name: "replicas",
            description: "",
            kind: "resource",
            enforcementLevel: "mandatory",
            configSchema: { properties: { min: { type: "integer", minimum: 1, default: 2 }, label: { type: "string" } } },
        },
        {
            name: "quota",
            description: "",
            kind: "stack",
            enforcementLevel: "advisory",
            configSchema: { properties: { names: { type: "array", items: { type: "string" } } }, required: ["names"] },
        },
    ];

    it("fills schema defaults, applies `all`, then per-policy entries, merging properties", () => {
        const { config, warnings } = reconcilePolicyConfig(
            policies,
            {},
            {
                all: { enforcementLevel: "advisory" },
                replicas: { properties: { label: "x" } },
                quota: { enforcementLevel: "mandatory", properties: { names: ["a"] } },
            },
            "c.json",
        );
        expect(config.replicas).to.deep.equal({ enforcementLevel: "advisory", properties: { min: 2, label: "x" } });
        expect(config.quota).to.deep.equal({ enforcementLevel: "mandatory", properties: { names: ["a"] } });
        expect(warnings).to.deep.equal([]);
    });

    it("keeps each policy's own level when the file says nothing about it", () => {
        const { config } = reconcilePolicyConfig(policies, {}, { quota: { properties: { names: [] } } }, "c.json");
        expect(config.replicas.enforcementLevel).to.equal("mandatory");
        expect(config.quota.enforcementLevel).to.equal("advisory");
    });

    it("validates properties against each configSchema and names policy and key", () => {
        const err = thrown(() =>
            reconcilePolicyConfig(policies, {}, { replicas: { properties: { min: 0, label: 5 } } }, "policies/config/prod.json"),
        );
        expect(err).to.be.instanceOf(GateInputError);
        expect(err.message).to.include("policies/config/prod.json (3 problems)");
        expect(err.message).to.include("replicas.min: must be ≥ 1, not 0");
        expect(err.message).to.include("replicas.label: must be a string, not 5");
        expect(err.message).to.include("quota.names: is required");
    });

    it("warns about a key that names no policy, since it configures nothing", () => {
        const { warnings } = reconcilePolicyConfig(
            policies,
            {},
            { quota: { properties: { names: [] } }, replicaz: "disabled" as never },
            "c.json",
        );
        expect(warnings).to.have.length(1);
        expect(warnings[0]).to.include('"replicaz" names no policy');
    });
});

describe("gate: resources as the engine sends them", () => {
    it("builds URNs with the parent chain, like the engine", () => {
        const plan: Plan = {
            stack: "dev",
            violations: [],
            resources: [
                { type: "platform:network:Network", name: "network", props: {} },
                // Same logical name, different type: the parent is the component.
                { type: "aws:iam/role:Role", name: "network", props: {}, options: { parent: "network" } },
                {
                    type: "aws:ec2/vpc:Vpc",
                    name: "network-vpc",
                    props: { cidrBlock: "10.0.0.0/16" },
                    options: { parent: "network", protect: true },
                },
                { type: "aws:ec2/subnet:Subnet", name: "network-a", props: {}, options: { parent: "network", dependsOn: ["network-vpc"] } },
            ],
        };
        const rs = planToGateResources(plan, "eks-platform");
        expect(rs[0].urn).to.equal("urn:pulumi:dev::eks-platform::platform:network:Network::network");
        expect(rs[0].parent).to.equal(undefined);
        expect(rs[1].urn).to.equal("urn:pulumi:dev::eks-platform::platform:network:Network$aws:iam/role:Role::network");
        expect(rs[2]).to.deep.include({
            urn: "urn:pulumi:dev::eks-platform::platform:network:Network$aws:ec2/vpc:Vpc::network-vpc",
            parent: rs[0].urn,
            protect: true,
        });
        expect(rs[3].dependencies).to.deep.equal([rs[2].urn]);
    });

    const decode = (props: Record<string, unknown>) => Struct.deserializeBinary(encodeProperties(props)).toJavaScript();

    it("marshals values the way the engine does: holes dropped, odd numbers null, dates as text", () => {
        expect(
            decode({
                a: undefined,
                b: [1, undefined, Number.NaN, -Infinity],
                c: { d: true, e: null, f: undefined },
                t: new Date(0),
                n: 5n,
                fn: () => 1,
            }),
        ).to.deep.equal({
            b: [1, null, null, null],
            c: { d: true, e: null },
            t: "1970-01-01T00:00:00.000Z",
            n: 5,
            fn: null,
        });
    });

    it("writes the same Struct message as google-protobuf's own Struct.fromJavaScript, for any JSON value", () => {
        fc.assert(
            fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 8 }), (props) => {
                const reference = Struct.fromJavaScript(props).toJavaScript();
                expect(decode(props)).to.deep.equal(reference);
            }),
            { numRuns: 300 },
        );
    });

    it("sends Analyze and AnalyzeStack requests the pack decodes to the same resource and properties", () => {
        const r: GateResource = {
            urn: urnOf("prod", "p", "kubernetes:apps/v1:Deployment", "team/web"),
            type: "kubernetes:apps/v1:Deployment",
            name: "team/web",
            props: { metadata: { name: "web", labels: { a: "b" } }, spec: { replicas: 3, paused: false, x: [1, "two", null] } },
            parent: "urn:pulumi:prod::p::pulumi:pulumi:Stack::p-prod",
            protect: true,
            dependencies: ["urn:a", "urn:b"],
        };
        const analyze = analyzerpb.AnalyzeRequest.deserializeBinary(buildAnalyzeRequest(r).serializeBinary());
        expect([analyze.getUrn(), analyze.getType(), analyze.getName()]).to.deep.equal([r.urn, r.type, r.name]);
        expect(analyze.getProperties()?.toJavaScript()).to.deep.equal(r.props);
        expect(analyze.getOptions()?.getProtect()).to.equal(true);
        const stack = analyzerpb.AnalyzeStackRequest.deserializeBinary(
            buildStackRequest([r, { ...r, urn: "urn:second" }]).serializeBinary(),
        );
        const [first, second] = stack.getResourcesList();
        expect(stack.getResourcesList()).to.have.length(2);
        expect([first.getUrn(), first.getParent(), first.getDependenciesList()]).to.deep.equal([r.urn, r.parent, r.dependencies]);
        expect(first.getProperties()?.toJavaScript()).to.deep.equal(r.props);
        expect(second.getUrn()).to.equal("urn:second");
    });
});

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
        expect(summarize(report)).to.deep.equal({ mandatory: 1, advisory: 0, undeterminable: 0, undecided: 0 });
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
        expect(summarize(report)).to.deep.equal({ mandatory: 0, advisory: 0, undeterminable: 0, undecided: 1 });
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

describe("gate: a pack that cannot start", function () {
    this.timeout(60_000);
    it("is bad input naming the directory", async () => {
        const err = await PolicyPackProcess.start(path.join(ROOT, "test"), { stack: "dev", project: "x" }).then(
            (p) => {
                p.close();
                return undefined;
            },
            (e: Error) => e,
        );
        expect(err).to.be.instanceOf(GateInputError);
        expect(err?.message).to.include("not a policy pack (no PulumiPolicy.yaml)");
    });
});

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
