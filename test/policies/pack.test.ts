import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { EnforcementLevel } from "@pulumi/policy";
import { configProblems } from "../../policies/lib/config";
import { policies } from "../../policies/policies";
import { readStackFiles } from "../../tools/offline";
import type { Plan } from "../../tools/plan";
import { planOf, ROOT } from "../mocks";
import { Outcome, runResource, runStack, TestResource } from "./harness";

// The names users reference in config: stable, from the issue.
const NAMES = [
    "workload-resources",
    "workload-termination-grace",
    "workload-prestop-hook",
    "workload-service-replicas",
    "workload-pdb-required",
    "pdb-allows-disruption",
    "namespace-quota-required",
    "drain-window",
    "api-versions-served",
    "karpenter-nodepool",
    "karpenter-nodeclass",
    "subnet-eks-tags",
    "vpc-dns",
    "node-role-policies",
    "node-launch-hardening",
    "nodegroup-update-config",
    "cluster-hardening",
    "namespace-isolation",
    "access-least-privilege",
];
const STACK_POLICIES = [
    "workload-prestop-hook",
    "workload-service-replicas",
    "workload-pdb-required",
    "pdb-allows-disruption",
    "namespace-quota-required",
    "drain-window",
    "api-versions-served",
    "node-role-policies",
    "namespace-isolation",
    "access-least-privilege",
];
const LEVELS = ["advisory", "mandatory", "remediate", "disabled"];

interface Effective {
    level: EnforcementLevel;
    props: Record<string, unknown>;
}

/**
 * A `--policy-pack-config` file as the CLI reads it (pkg/resource/analyzer/config.go): each key a
 * policy name or `all`, each value an enforcement level or an object with `enforcementLevel` and
 * properties; `all` applies first, then each policy's own entry. Returns problems instead of throwing.
 */
function reconcile(file: string): { effective: Map<string, Effective>; problems: string[] } {
    const raw = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
    const problems: string[] = [];
    const effective = new Map<string, Effective>(policies.map((p) => [p.name, { level: p.enforcementLevel ?? "advisory", props: {} }]));
    const parse = (key: string, value: unknown): { level?: EnforcementLevel; props: Record<string, unknown> } => {
        if (typeof value === "string") {
            if (!LEVELS.includes(value)) problems.push(`${key}: "${value}" is not an enforcement level`);
            return { level: value as EnforcementLevel, props: {} };
        }
        if (value && typeof value === "object" && !Array.isArray(value)) {
            const { enforcementLevel, ...props } = value as Record<string, unknown>;
            if (enforcementLevel !== undefined && !LEVELS.includes(enforcementLevel as string))
                problems.push(`${key}.enforcementLevel is not an enforcement level`);
            return { level: enforcementLevel as EnforcementLevel | undefined, props };
        }
        problems.push(`${key}: must be a string or an object`);
        return { props: {} };
    };
    if (raw.all !== undefined) {
        const all = parse("all", raw.all);
        for (const e of effective.values()) {
            e.level = all.level ?? e.level;
        }
    }
    for (const [key, value] of Object.entries(raw)) {
        if (key === "all") continue;
        const policy = policies.find((p) => p.name === key);
        if (!policy) {
            problems.push(`${key}: no such policy in the pack`);
            continue;
        }
        const { level, props } = parse(key, value);
        problems.push(
            ...(policy.configSchema
                ? configProblems(key, policy.configSchema, props)
                : Object.keys(props).map((k) => `${key}.${k}: the policy takes no config`)),
        );
        const e = effective.get(key)!;
        e.level = level ?? e.level;
        e.props = props;
    }
    return { effective, problems };
}

describe("policy pack: catalogue", () => {
    it("has exactly the documented policies, each with a description and a default level", () => {
        expect(policies.map((p) => p.name)).to.deep.equal(NAMES);
        for (const p of policies) {
            expect(p.description, p.name).to.match(/^[A-Z].{20,}\.$/);
            expect(p.enforcementLevel, p.name).to.equal(p.name === "workload-prestop-hook" ? "advisory" : "mandatory");
            expect("validateStack" in p, p.name).to.equal(STACK_POLICIES.includes(p.name));
        }
    });

    it("gives every config knob a default and a description", () => {
        for (const p of policies) {
            for (const [key, schema] of Object.entries(p.configSchema?.properties ?? {})) {
                expect(schema, `${p.name}.${key}`).to.be.an("object").that.includes.keys("default", "description", "type");
            }
        }
    });

    it("is documented: docs/policies.md names every policy and knob", () => {
        const doc = fs.readFileSync(path.join(ROOT, "docs", "policies.md"), "utf8");
        for (const p of policies) {
            expect(doc, p.name).to.include(`\`${p.name}\``);
            for (const key of Object.keys(p.configSchema?.properties ?? {})) {
                expect(doc, `${p.name}.${key}`).to.include(`\`${key}\``);
            }
        }
        expect(doc).to.include("pulumi preview --policy-pack policies --policy-pack-config policies/config/prod.json");
    });
});

describe("policy pack: enforcement per environment (policies/config/<env>.json)", () => {
    const configFile = (env: string) => path.join(ROOT, "policies", "config", `${env}.json`);

    for (const env of ["dev", "prod"]) {
        it(`${env}.json is a valid --policy-pack-config for this pack`, () => {
            const { problems, effective } = reconcile(configFile(env));
            expect(problems).to.deep.equal([]);
            expect([...effective.keys()]).to.deep.equal(NAMES);
        });
    }

    it("dev is mostly advisory; prod is mandatory; the preStop hook stays advisory in both", () => {
        const dev = reconcile(configFile("dev")).effective;
        const prod = reconcile(configFile("prod")).effective;
        const count = (m: Map<string, Effective>, level: string) => [...m.values()].filter((e) => e.level === level).length;
        expect(count(dev, "advisory")).to.be.greaterThan(count(dev, "mandatory"));
        expect(dev.get("workload-prestop-hook")!.level).to.equal("advisory");
        expect(prod.get("workload-prestop-hook")!.level).to.equal("advisory");
        for (const [name, e] of prod) {
            if (name !== "workload-prestop-hook") expect(e.level, name).to.equal("mandatory");
        }
    });

    it("the reconciler used here catches a bad file (so the checks above can fail)", () => {
        const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pack-")), "bad.json");
        fs.writeFileSync(
            tmp,
            JSON.stringify({
                all: "loud",
                "workload-pdb-required": { minReplicas: "2" },
                "no-such-policy": "mandatory",
                "vpc-dns": { x: 1 },
            }),
        );
        expect(reconcile(tmp).problems).to.have.members([
            'all: "loud" is not an enforcement level',
            'workload-pdb-required.minReplicas: must be an integer, not "2"',
            "no-such-policy: no such policy in the pack",
            "vpc-dns.x: the policy takes no config",
        ]);
    });
});

type PlanResource = Plan["resources"][number];

/** Runs the whole pack on a plan with an environment's config, as `pulumi preview --policy-pack` would. */
async function runPack(plan: Plan, env: string): Promise<Map<string, Outcome[]>> {
    const { effective } = reconcile(path.join(ROOT, "policies", "config", `${env}.json`));
    const resources: TestResource[] = plan.resources.map((r: PlanResource) => ({ type: r.type, name: r.name, props: r.props }));
    const out = new Map<string, Outcome[]>();
    for (const p of policies) {
        const { props } = effective.get(p.name)!;
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

for (const env of ["dev", "prod"]) {
    describe(`policy pack on the ${env} stack's plan`, function () {
        this.timeout(180_000);
        let results: Map<string, Outcome[]>;
        before(async () => {
            results = await runPack(await planOf(env), env);
        });

        it("reports no mandatory violation", () => {
            const { effective } = reconcile(path.join(ROOT, "policies", "config", `${env}.json`));
            const mandatory = [...results]
                .filter(([name]) => effective.get(name)!.level === "mandatory")
                .flatMap(([name, outcomes]) => outcomes.flatMap((o) => o.violations.map((v) => `${name}: ${v.message}`)));
            expect(mandatory).to.deep.equal([]);
        });

        it("decides at preview: no policy is left to 'can't run', and the platform policies evaluate real resources", () => {
            for (const [name, outcomes] of results) {
                expect(outcomes.map((o) => o.cantRun).filter(Boolean), name).to.deep.equal([]);
            }
            for (const name of [
                "subnet-eks-tags",
                "vpc-dns",
                "cluster-hardening",
                "node-launch-hardening",
                "namespace-quota-required",
                "namespace-isolation",
                "access-least-privilege",
            ]) {
                const evaluated = results.get(name)!.filter((o) => o.notApplicable === undefined);
                expect(evaluated.length, `${name} evaluated something`).to.be.greaterThan(0);
            }
        });
    });
}

describe("policy pack: api-versions-served follows each stack's Kubernetes version", () => {
    const stacks = fs
        .readdirSync(ROOT)
        .map((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1])
        .filter((s): s is string => !!s && fs.existsSync(path.join(ROOT, "policies", "config", `${s}.json`)));

    it("finds the stacks with a policy config", () => {
        expect(stacks.length).to.be.greaterThan(0);
    });

    for (const stack of stacks) {
        it(`${stack}: kubernetesVersion (what plain manifests are judged against) is the stack's cluster.version`, () => {
            const files = readStackFiles(ROOT, stack);
            const cluster = JSON.parse(files.config[`${files.project}:cluster`]) as { version: string };
            const { effective } = reconcile(path.join(ROOT, "policies", "config", `${stack}.json`));
            expect(effective.get("api-versions-served")!.props.kubernetesVersion).to.equal(cluster.version);
        });
    }
});
