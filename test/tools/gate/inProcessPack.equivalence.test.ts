import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { PolicyPack, PolicyPackProcess } from "../../../tools/gate/analyzer";
import { generateCorpus } from "../../../dev/corpus";
import { GateOptions, GateReport, runGate } from "../../../tools/gate/gate";
import { InProcessPack } from "../../../tools/gate/inProcessPack";
import { checkManifests } from "../../../tools/manifests/manifestCheck";
import { readStackFiles, stackNames } from "../../../tools/render/offline";
import { environmentConfig } from "../../../tools/gate/policyConfig";
import { API_SERVER_VALIDATION } from "../../../tools/gate/schema";
import { gatePlan, planToGateResources } from "../../../tools/render/stackPlan";
import { VERIFIED_RELEASES } from "eks-platform-policies/runtime";
import { planOf } from "../../mocks";

const ROOT = path.join(__dirname, "..", "..", "..");
const PACK = path.join(ROOT, "policies");
const STOCK_SDK_VARIABLE = VERIFIED_RELEASES["@pulumi/policy"].stockVariable;

/**
 * What a run reports, or the error it ends with: the two paths must agree on both. The analyzer's
 * reads its files on this thread; the in-process one as the command does (on threads of their own
 * for a large input: tools/manifests/manifestReader.ts), or with `threads` on them whatever the size.
 */
async function outcome(paths: string[], env: string, analyzer: boolean, configFile?: string, threads?: true): Promise<unknown> {
    try {
        const parallel = analyzer ? false : threads;
        const r = await checkManifests({ paths, env, packDir: PACK, analyzer, parallel, ...(configFile ? { configFile } : {}) });
        return { report: r.report, violations: r.violations, unvalidated: r.unvalidated };
    } catch (err) {
        return { error: (err as Error).message };
    }
}

/** A gate's report with `pack` started for it, closed after. */
async function gateWith(opts: Omit<GateOptions, "pack">, started: Promise<PolicyPack>): Promise<GateReport> {
    const pack = await started;
    try {
        return await runGate({ ...opts, pack: Promise.resolve(pack) });
    } finally {
        pack.close();
    }
}

/** A corpus of `workloads` generated workloads plus one that breaks several policies, in a temporary directory. */
function corpusWithPlanted(workloads: number): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "inproc-eq-"));
    generateCorpus(dir, workloads);
    // A workload with no PDB, no requests and a single replica: verdicts to compare.
    fs.writeFileSync(
        path.join(dir, "planted.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: bare, namespace: team-0}\nspec:\n  selector: {matchLabels: {app: bare}}\n  template:\n    metadata: {labels: {app: bare}}\n    spec: {containers: [{name: c, image: nginx}]}\n",
    );
    return dir;
}

// Every directory of manifests the repository holds, each alone.
function manifestDirs(): string[] {
    const fixtures = path.join(ROOT, "test", "fixtures");
    const dirs = fs
        .readdirSync(fixtures)
        .map((d) => path.join(fixtures, d))
        .filter((d) => fs.statSync(d).isDirectory() && fs.readdirSync(d).some((f) => /\.ya?ml$/.test(f)));
    return [path.join(ROOT, "examples"), ...dirs];
}

describe("in-process pack (tools/gate/inProcessPack.ts): the analyzer's verdicts, without its process", function () {
    this.timeout(600_000);

    for (const env of ["dev", "prod"]) {
        it(`gives the same report as the pack's own process on every manifest fixture and examples/ (${env} config)`, async () => {
            const dirs = manifestDirs();
            assert.ok(dirs.length >= 3, `found ${dirs.length} manifest directories`);
            for (const dir of dirs) {
                const remote = await outcome([dir], env, true);
                assert.deepStrictEqual(await outcome([dir], env, false), remote, `${path.relative(ROOT, dir)} (${env})`);
                // Read on threads, each file's objects (or its error) come back as they were read here.
                assert.deepStrictEqual(
                    await outcome([dir], env, false, undefined, true),
                    remote,
                    `${path.relative(ROOT, dir)} (${env}, threads)`,
                );
            }
        });
    }

    it("the pack's process on the SDK's stock path (no reach into its internals) gives the same report as with them, on every manifest fixture and examples/", async () => {
        const stock = async (dir: string) => {
            process.env[STOCK_SDK_VARIABLE] = "1";
            try {
                return await outcome([dir], "prod", true);
            } finally {
                delete process.env[STOCK_SDK_VARIABLE];
            }
        };
        for (const dir of manifestDirs()) {
            assert.deepStrictEqual(await stock(dir), await outcome([dir], "prod", true), path.relative(ROOT, dir));
        }
        // The corpus with a planted workload: verdicts to compare, not only passes.
        const corpus = corpusWithPlanted(200);
        try {
            const planted = (await stock(corpus)) as { violations: unknown[] };
            assert.ok(planted.violations.length > 0, "the planted workload is reported on the stock path");
            assert.deepStrictEqual(planted, await outcome([corpus], "prod", true));
        } finally {
            fs.rmSync(corpus, { recursive: true, force: true });
        }
    });

    for (const workloads of [1000, 10_000]) {
        it(`gives the same report on a generated ${workloads.toLocaleString("en")}-workload corpus, violations included`, async () => {
            const dir = corpusWithPlanted(workloads);
            try {
                const local = (await outcome([dir], "prod", false)) as { violations: unknown[]; report: { resources: number } };
                const remote = await outcome([dir], "prod", true);
                assert.ok(local.violations.length > 0, "the planted workload is reported");
                assert.ok(local.report.resources > workloads, `${local.report.resources} objects judged`);
                assert.deepStrictEqual(local, remote);
            } finally {
                fs.rmSync(dir, { recursive: true, force: true });
            }
        });
    }

    // Each stack as the offline plan gates it (tools/render/plan.ts, gatePlan in tools/render/stackPlan.ts): the
    // plan's resources, the stack file's project, policies/config/<stack>.json, no stack tags and
    // no derived knobs; the pack's process started with that stack and project.
    for (const stack of stackNames(ROOT)) {
        it(`gives the same report on stack ${stack}'s rendered plan as the pack's own process (policies/config/${stack}.json)`, async () => {
            const { project } = readStackFiles(ROOT, stack);
            const plan = await planOf(stack);
            const config = environmentConfig(PACK, stack);
            const opts = {
                packDir: PACK,
                configFile: config.file,
                warnings: config.warnings,
                stack,
                project,
                resources: planToGateResources(plan, project),
            };
            assert.ok(opts.resources.length > 0, `${stack} renders resources`);
            const local = await gateWith(opts, InProcessPack.start(PACK));
            const remote = await gateWith(opts, PolicyPackProcess.start(PACK, { stack, project }));
            assert.equal(local.resources, opts.resources.length);
            assert.ok(
                local.policies.some((p) => p.evaluated > 0),
                "the pack evaluated the stack",
            );
            assert.deepStrictEqual(local, remote, stack);
            // The options above are the plan's own: gatePlan, its pack started for it, reports the same.
            assert.deepStrictEqual((await gatePlan(structuredClone(plan), project, PACK)).report, remote, `${stack}: as gatePlan gates it`);
        });
    }

    it("gives the same report under a config that disables some policies and makes others advisory, and the config takes effect", async () => {
        // Manifests that break several mandatory policies under prod's own config.
        const broken = path.join(ROOT, "test", "fixtures", "manifests", "broken");
        const prod = JSON.parse(fs.readFileSync(path.join(PACK, "config", "prod.json"), "utf8")) as Record<string, unknown>;
        const base = (await outcome([broken], "prod", false)) as { report: GateReport };
        const failing = [
            ...new Set(
                base.report.diagnostics.filter((d) => d.level === "mandatory" && d.policy !== API_SERVER_VALIDATION).map((d) => d.policy),
            ),
        ].sort();
        assert.ok(failing.length >= 5, `the fixture breaks several mandatory policies: ${failing.join(", ")}`);
        const [disabled, advisory, kept] = [failing.slice(0, 2), failing.slice(2, 4), failing.slice(4)];
        // prod's own config, those levels changed (a policy's knobs kept).
        const level = (name: string, enforcementLevel: string) => {
            const entry = prod[name];
            return typeof entry === "object" && entry !== null ? { ...entry, enforcementLevel } : enforcementLevel;
        };
        const edited = {
            ...prod,
            ...Object.fromEntries(disabled.map((p) => [p, level(p, "disabled")])),
            ...Object.fromEntries(advisory.map((p) => [p, level(p, "advisory")])),
        };
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "inproc-eq-config-"));
        const configFile = path.join(dir, "edited.json");
        fs.writeFileSync(configFile, JSON.stringify(edited, null, 2));
        try {
            const local = (await outcome([broken], "prod", false, configFile)) as { report: GateReport };
            const remote = await outcome([broken], "prod", true, configFile);
            assert.deepStrictEqual(local, remote);
            const { report } = local;
            assert.equal(report.configFile, configFile);
            for (const p of disabled) {
                assert.ok(!report.policies.some((o) => o.name === p), `${p} is disabled: not among the policies run`);
                assert.ok(!report.diagnostics.some((d) => d.policy === p), `${p} is disabled: no diagnostics`);
            }
            for (const p of advisory) {
                assert.equal(report.policies.find((o) => o.name === p)?.level, "advisory", `${p} runs advisory`);
                const said = report.diagnostics.filter((d) => d.policy === p);
                assert.ok(said.length > 0, `${p} still reports the fixture`);
                assert.ok(
                    said.every((d) => d.level === "advisory"),
                    `${p}'s diagnostics are advisory: ${JSON.stringify(said)}`,
                );
            }
            for (const p of kept) {
                assert.ok(
                    report.diagnostics.some((d) => d.policy === p && d.level === "mandatory"),
                    `${p}, untouched, stays mandatory`,
                );
            }
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
