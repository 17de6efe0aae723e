import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { policies } from "eks-platform-policies";
import {
    EffectivePolicyConfig,
    PackPolicy,
    parsePolicyPackConfig,
    reconcilePolicyConfig,
    stackDerivedConfig,
} from "../../tools/gate/policyConfig";
import { policyAnchor } from "../../tools/docs/policyTables";
import type { Plan } from "../../tools/render/stackPlan";
import { planOf, ROOT } from "../mocks";
import { stackConfig, stacks } from "../stackFiles";
import { Outcome, runResource, runStack, TestResource } from "./harness";

const CONFIG_DIR = path.join(ROOT, "policies", "config");
const kindOf = (p: (typeof policies)[number]) => ("validateStack" in p ? "stack" : "resource");

/** The pack's policies as the analyzer describes them to the engine (GetAnalyzerInfo). */
const PACK: PackPolicy[] = policies.map((p) => ({
    name: p.name,
    description: p.description,
    kind: kindOf(p),
    enforcementLevel: p.enforcementLevel ?? "advisory",
    ...(p.configSchema ? { configSchema: p.configSchema as PackPolicy["configSchema"] } : {}),
}));

/** A `--policy-pack-config` file read and reconciled with the pack as the CLI (and the offline gate) does. */
function effectiveConfig(file: string): { config: Record<string, EffectivePolicyConfig>; warnings: string[] } {
    return reconcilePolicyConfig(PACK, {}, parsePolicyPackConfig(fs.readFileSync(file, "utf8"), file), file);
}

/** The first column of the markdown table whose header's first cell is `header`, in order. */
function tableColumn(markdown: string, header: string): string[][] {
    const lines = markdown.split("\n");
    const start = lines.findIndex((l) => new RegExp(`^\\|\\s*${header}\\s*\\|`).test(l));
    expect(start, `a table headed "${header}"`).to.be.greaterThan(-1);
    const rows: string[][] = [];
    for (const line of lines.slice(start + 2)) {
        if (!line.startsWith("|")) {
            break;
        }
        rows.push(
            line
                .split("|")
                .slice(1, -1)
                .map((c) => c.trim()),
        );
    }
    return rows;
}

describe("policy pack: catalogue", () => {
    it("names every policy once, in kebab-case, with a description and a default level", () => {
        const names = policies.map((p) => p.name);
        expect(new Set(names).size).to.equal(names.length);
        for (const p of policies) {
            expect(p.name).to.match(/^[a-z][a-z0-9]*(-[a-z0-9]+)+$/);
            expect(p.description, p.name).to.match(/^[A-Z].{20,}\.$/);
            expect(p.enforcementLevel, p.name).to.be.oneOf(["advisory", "mandatory"]);
        }
    });

    it("gives every config knob a default and a description", () => {
        for (const p of policies) {
            for (const [key, schema] of Object.entries(p.configSchema?.properties ?? {})) {
                expect(schema, `${p.name}.${key}`).to.be.an("object").that.includes.keys("default", "description", "type");
            }
        }
    });

    it("is documented: the tables of README.md and docs/policies.md list exactly the pack's policies, with their kind and knobs", () => {
        const names = policies.map((p) => `\`${p.name}\``);
        const readme = tableColumn(fs.readFileSync(path.join(ROOT, "README.md"), "utf8"), "policy");
        expect(readme.map((r) => r[0])).to.deep.equal(names);
        const doc = fs.readFileSync(path.join(ROOT, "docs", "policies.md"), "utf8");
        const rows = tableColumn(doc, "policy");
        // Each row carries its anchor: SARIF's helpUri links to it.
        expect(rows.map((r) => r[0])).to.deep.equal(policies.map((p) => `<a id="${policyAnchor(p.name)}"></a>\`${p.name}\``));
        for (const [i, p] of policies.entries()) {
            expect(rows[i][1], p.name).to.equal(kindOf(p));
            for (const key of Object.keys(p.configSchema?.properties ?? {})) {
                expect(rows[i].at(-1), `${p.name}.${key}`).to.include(`\`${key}\``);
            }
        }
        expect(doc).to.include("pulumi preview --policy-pack policies --policy-pack-config policies/config/prod.json");
    });

    it("the table reader fails on a table that misses a policy (so the check above can fail)", () => {
        const table = "| policy | kind |\n| --- | --- |\n| `vpc-dns` | resource |\n";
        expect(tableColumn(table, "policy").map((r) => r[0])).to.not.deep.equal(policies.map((p) => `\`${p.name}\``));
    });
});

describe("policy pack: enforcement per environment (policies/config/<env>.json)", () => {
    const files = fs.readdirSync(CONFIG_DIR).filter((f) => f.endsWith(".json"));

    it("has a policy config for every stack (the plan and `pulumi preview --policy-pack-config` need it)", () => {
        for (const stack of stacks()) {
            expect(files, `policies/config/${stack}.json`).to.include(`${stack}.json`);
        }
    });

    for (const file of files) {
        it(`${file} is a valid --policy-pack-config that sets the level of exactly the pack's policies`, () => {
            const { config, warnings } = effectiveConfig(path.join(CONFIG_DIR, file));
            expect(warnings).to.deep.equal([]);
            const raw = JSON.parse(fs.readFileSync(path.join(CONFIG_DIR, file), "utf8")) as Record<string, unknown>;
            expect(Object.keys(raw).filter((k) => k !== "all")).to.have.members(policies.map((p) => p.name));
            expect(Object.keys(config).filter((k) => k !== "all")).to.have.members(policies.map((p) => p.name));
        });
    }

    it("the reader used here catches a bad file (so the checks above can fail)", () => {
        const file = "bad.json";
        const parse = () =>
            reconcilePolicyConfig(
                PACK,
                {},
                parsePolicyPackConfig(JSON.stringify({ "workload-pdb-required": { minReplicas: "2" }, "vpc-dns": { x: 1 } }), file),
                file,
            );
        expect(parse).to.throw(/workload-pdb-required\.minReplicas: must be an integer, not "2"/);
        expect(parse).to.throw(/vpc-dns\.x: unknown key \(known: none\)/);
        expect(() => parsePolicyPackConfig(JSON.stringify({ all: "loud" }), file)).to.throw(/all: "loud" is not an enforcement level/);
        expect(reconcilePolicyConfig(PACK, {}, { "no-such-policy": { enforcementLevel: "mandatory" } }, file).warnings).to.have.length(1);
    });
});

type PlanResource = Plan["resources"][number];

/** Runs the whole pack on a plan with an environment's config, as `pulumi preview --policy-pack` would. */
async function runPack(plan: Plan, config: Record<string, EffectivePolicyConfig>): Promise<Map<string, Outcome[]>> {
    const resources: TestResource[] = plan.resources.map((r: PlanResource) => ({ type: r.type, name: r.name, props: r.props }));
    const out = new Map<string, Outcome[]>();
    for (const p of policies) {
        const props = config[p.name].properties;
        const outcomes: Outcome[] = [];
        if ("validateStack" in p) {
            outcomes.push(await runStack(p, resources, props));
        } else {
            for (const r of resources) {
                outcomes.push(await runResource(p, r, props));
            }
        }
        out.set(p.name, outcomes);
    }
    return out;
}

for (const stack of stacks()) {
    describe(`policy pack on the ${stack} stack's plan`, function () {
        this.timeout(180_000);
        let results: Map<string, Outcome[]>;
        let config: Record<string, EffectivePolicyConfig>;
        before(async () => {
            config = effectiveConfig(path.join(CONFIG_DIR, `${stack}.json`)).config;
            results = await runPack(await planOf(stack), config);
        });

        it("reports no mandatory violation", () => {
            const mandatory = [...results]
                .filter(([name]) => config[name].enforcementLevel === "mandatory")
                .flatMap(([name, outcomes]) => outcomes.flatMap((o) => o.violations.map((v) => `${name}: ${v.message}`)));
            expect(mandatory).to.deep.equal([]);
        });

        it("decides at preview: no policy is left to 'can't run', and the platform policies evaluate real resources", () => {
            for (const [name, outcomes] of results) {
                expect(outcomes.map((o) => o.cantRun).filter(Boolean), name).to.deep.equal([]);
            }
            const stackConfigured = stackConfig(stack);
            const hasNamespaces = Object.keys(stackConfigured.namespaces).length > 0;
            const hasNodeGroups = Object.values(stackConfigured.nodeGroups).some((g) => g.enabled);
            for (const name of [
                "subnet-eks-tags",
                "vpc-dns",
                "cluster-hardening",
                "access-least-privilege",
                ...(hasNodeGroups ? ["node-launch-hardening"] : []),
                ...(hasNamespaces ? ["namespace-quota-required", "namespace-isolation"] : []),
            ]) {
                const evaluated = results.get(name)!.filter((o) => o.notApplicable === undefined);
                expect(evaluated.length, `${name} evaluated something`).to.be.greaterThan(0);
            }
        });
    });
}

describe("policy pack: api-versions-served follows each stack's Kubernetes version", () => {
    for (const stack of stacks()) {
        it(`${stack}: the version has one home, the stack's cluster.version: the environment file pins none, the manifest gate derives it`, () => {
            const { config } = effectiveConfig(path.join(CONFIG_DIR, `${stack}.json`));
            expect(config["api-versions-served"].properties.kubernetesVersion).to.equal("");
            expect(config["pod-security-standard"].properties.defaultVersion).to.equal("latest");
            expect(stackDerivedConfig(path.join(ROOT, "policies"), stack)).to.deep.equal({
                "api-versions-served": { kubernetesVersion: stackConfig(stack).cluster.version },
            });
        });
    }

    it("derives nothing for a pack outside a platform repository, or a stack it does not have", () => {
        expect(stackDerivedConfig(path.join(ROOT, "test", "fixtures", "pack"), "prod")).to.deep.equal({});
        expect(stackDerivedConfig(path.join(ROOT, "policies"), "no-such-stack")).to.deep.equal({});
    });
});
