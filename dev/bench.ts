/**
 * Benchmarks of the offline plan and the policy gate on the machine it runs on. Prints figures;
 * nothing here asserts (timing belongs in a report, not in a test).
 *
 *   npm run bench -- [--runs <n>] [--sizes 1000,10000]
 *   npm run bench -- load [--bytes <n>] [--violations <n>] [--namespaces <n>] [--burners <n>]
 *
 * - `plan` per stack (wall time of the CLI as `npm run plan` runs it, policy gate included) next to
 *   the floor: a Node process, without ts-node, that only loads the Pulumi SDKs the program uses.
 * - The drain rehearsal (`benchDrain`) on the prod stack with the same corpora.
 * - The manifest gate on generated corpora (each workload: Deployment, Service, PDB; every ten
 *   workloads share a namespace with ResourceQuota, LimitRange and a default-deny NetworkPolicy)
 *   next to merely parsing the same YAML: the command as `npm run policy:check` runs it, its wall
 *   time and peak memory; corpora are written to a temporary directory and removed afterwards.
 * - `load` (alone): the two large inputs a loaded machine must still pass, each through its real
 *   command while `--burners` processes keep every core busy (`runLoad`): one YAML file of
 *   `--bytes` through `policy:check`, with `--violations` planted workloads, and a stack onboarding
 *   `--namespaces` namespaces through `plan`; it prints verdicts, wall time and peak memory, and
 *   exits 1 when a verdict is not the expected one.
 */
import { ChildProcess, execFileSync, spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parseCommandLine, runMain, toolFile } from "../tools/cli/cli";
import { generateCorpus, ManifestFile, onboardedNamespace, onboardNamespaces, PLANTED_POLICY, writeManifestFile } from "./corpus";
import { InputError } from "../tools/cli/errors";
import { PolicyPackProcess } from "../tools/gate/analyzer";
import { runGate } from "../tools/gate/gate";
import { collectFiles, MANIFEST_PROJECT, readManifests, toResources } from "../tools/manifests/manifests";
import { stackNames } from "../tools/render/offline";
import { buildStackRequest, GateResource } from "../tools/gate/requests";
import { manifestResources, stackResources } from "../tools/manifests/drainInput";
import { rehearse } from "eks-platform-rehearsal";
import { unknownCheckingProxy } from "eks-platform-evaluation";

const ROOT = path.resolve(__dirname, "..");
/** How `npm run` starts a tool (package.json): the launcher with its compile cache, no ts-node. */
const LAUNCHER = path.join(ROOT, "tools", "cli", "run.js");

function median(xs: number[]): number {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)];
}

function timeProcess(args: string[], runs: number): number {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
        const t0 = process.hrtime.bigint();
        // The plan exits 1 when the gate blocks; its time still counts.
        try {
            execFileSync(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "ignore", "ignore"], maxBuffer: 256 * 2 ** 20 });
        } catch (err) {
            if ((err as { status?: number }).status !== 1) {
                throw err;
            }
        }
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    return median(times);
}

async function timeAsync(fn: () => unknown, runs: number): Promise<number> {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
        const t0 = process.hrtime.bigint();
        await fn();
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    return median(times);
}

const USAGE =
    "usage: npm run bench -- [--runs <n>] [--sizes 1000,10000]\n       npm run bench -- load [--bytes <n>] [--violations <n>] [--namespaces <n>] [--burners <n>]";

/** The scenarios `npm run bench -- <scenario>` selects; none: the plan, gate and drain benchmarks. */
export const SCENARIOS = ["load"] as const;

const fmt = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);

async function main(): Promise<number> {
    const { values, positionals } = parseCommandLine(
        process.argv.slice(2),
        {
            runs: { type: "string", default: "3" },
            sizes: { type: "string", default: "1000,10000" },
            bytes: { type: "string", default: String(LOAD_DEFAULTS.bytes) },
            violations: { type: "string", default: String(LOAD_DEFAULTS.violations) },
            namespaces: { type: "string", default: String(LOAD_DEFAULTS.namespaces) },
            burners: { type: "string", default: String(LOAD_DEFAULTS.burners) },
        },
        USAGE,
    );
    const counts = (flag: string, text: string) => {
        const ns = text.split(",").map(Number);
        if (text === "" || ns.some((n) => !Number.isInteger(n) || n < 1)) {
            throw new InputError(`${flag} takes positive whole numbers, not "${text}"\n${USAGE}`);
        }
        return ns;
    };
    const whole = (flag: string, text: string) => {
        const n = Number(text);
        if (text === "" || !Number.isInteger(n) || n < 0) {
            throw new InputError(`${flag} takes a whole number, not "${text}"\n${USAGE}`);
        }
        return n;
    };
    if (positionals.length > 1 || (positionals.length === 1 && !(SCENARIOS as readonly string[]).includes(positionals[0]))) {
        throw new InputError(`unexpected argument ${positionals[positionals.length - 1]}\n${USAGE}`);
    }
    if (positionals[0] === "load") {
        const result = await runLoad({
            bytes: whole("--bytes", values.bytes),
            violations: whole("--violations", values.violations),
            namespaces: whole("--namespaces", values.namespaces),
            burners: whole("--burners", values.burners),
        });
        process.stdout.write(formatLoad(result));
        return result.problems.length === 0 ? 0 : 1;
    }
    const [runs] = counts("--runs", values.runs);
    const sizes = counts("--sizes", values.sizes);
    process.stdout.write(
        `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}, load average ${os.loadavg()[0].toFixed(2)}\n\n`,
    );

    // The floor: Node loading the four SDKs, nothing compiled (the plan itself runs without ts-node).
    const floor = timeProcess(
        ["-e", 'require("@pulumi/pulumi"); require("@pulumi/aws"); require("@pulumi/eks"); require("@pulumi/kubernetes");'],
        runs,
    );
    process.stdout.write(`| offline plan (gate included) | wall time | × SDK-load floor (${fmt(floor)}) |\n|---|---|---|\n`);
    for (const stack of stackNames(ROOT)) {
        // As `npm run plan` runs it: the launcher, with the compile cache as it stands.
        const t = timeProcess([LAUNCHER, path.join(ROOT, "tools", "render", "plan.ts"), stack, "--format", "json"], runs);
        // The same rendering without the policy pack: how much of the plan is the gate.
        const render = timeProcess(
            [
                "-e",
                `require(${JSON.stringify(path.join(ROOT, "tools", "cli", "swcCache.js"))}).register(); require(${JSON.stringify(path.join(ROOT, "tools", "render", "stackPlan.ts"))}).renderPlan(${JSON.stringify(stack)}).then(() => process.exit(0))`,
            ],
            runs,
        );
        process.stdout.write(`| \`plan ${stack}\` | ${fmt(t)} | ${(t / floor).toFixed(2)}× |\n`);
        process.stdout.write(`| rendering only, no policy pack (${stack}) | ${fmt(render)} | ${(render / floor).toFixed(2)}× |\n`);
    }

    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "gate-bench-"));
    try {
        process.stdout.write(
            `\n| manifest gate, prod config (\`npm run policy:check\`) | objects | parse only | gate | gate ÷ parse | peak RSS | AnalyzeStack message |\n|---|---|---|---|---|---|---|\n`,
        );
        const results: { size: number; parse: number; gate: number }[] = [];
        const breakdown: string[] = [];
        for (const size of sizes) {
            const dir = path.join(tmp, String(size));
            generateCorpus(dir, size);
            const files = collectFiles([dir]);
            let objects = 0;
            const parse = await timeAsync(
                () => {
                    objects = readManifests(files).length;
                },
                Math.min(runs, 2),
            );
            // The command as users run it, in its own process: wall time (median) and peak memory (the most of any run).
            const gateRuns: MeasuredRun[] = [];
            for (let i = 0; i < Math.min(runs, 3); i++) {
                const run = await measuredTool("policyCheck.ts", [dir, "--env", "prod", "--format", "json"], ROOT);
                if (run.code !== 0 && run.code !== 1) {
                    throw new Error(`policy:check on the ${size}-workload corpus exited ${run.code}: ${run.stderr}`);
                }
                gateRuns.push(run);
            }
            const gate = median(gateRuns.map((r) => r.ms));
            const peak = Math.max(...gateRuns.map((r) => r.peakTreeRss));
            const violations = (JSON.parse(gateRuns[0].stdout) as { violations: unknown[] }).violations.length;
            const resources = toResources(readManifests(files), "prod").map((r) => r.resource);
            const bytes = buildStackRequest(resources).serializeBinary().length;
            results.push({ size, parse, gate });
            process.stdout.write(
                `| ${size} workloads | ${objects} | ${fmt(parse)} | ${fmt(gate)}${violations ? ` (${violations} violations)` : ""} | ${(gate / parse).toFixed(2)}× | ${(peak / 2 ** 20).toFixed(0)} MiB | ${(bytes / 2 ** 20).toFixed(1)} MiB of 400 MiB |\n`,
            );
            breakdown.push(`${size} workloads: ${await gateBreakdown(resources)}`);
        }
        process.stdout.write(
            `\nWhere the time of the pack's own process goes (\`--analyzer\`, as \`pulumi preview --policy-pack\` runs it, not the in-process gate timed above):\n${breakdown.map((b) => `- ${b}\n`).join("")}`,
        );
        if (results.length >= 2) {
            const [a, b] = [results[0], results[results.length - 1]];
            process.stdout.write(
                `\nGrowth ${a.size} → ${b.size} workloads (${(b.size / a.size).toFixed(0)}× input): gate ${(b.gate / a.gate).toFixed(1)}× time, parse ${(b.parse / a.parse).toFixed(1)}× time.\n`,
            );
        }
    } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
    }
    await benchDrain(sizes, runs);
    return 0;
}

/**
 * The pack's share of the manifest gate, each part alone: booting it (process start to its
 * GetAnalyzerInfo answer), then Analyze on every object and AnalyzeStack over all of them on a
 * pack already running, with the objects already parsed.
 */
async function gateBreakdown(resources: readonly GateResource[]): Promise<string> {
    const packDir = path.join(ROOT, "policies");
    const env = { stack: "prod", project: MANIFEST_PROJECT };
    let pack: PolicyPackProcess | undefined;
    const boot = await timeAsync(async () => {
        pack = await PolicyPackProcess.start(packDir, env);
        await pack.info();
    }, 1);
    const running = pack as PolicyPackProcess;
    try {
        const judge = await timeAsync(
            () =>
                runGate({
                    packDir,
                    configFile: path.join(packDir, "config", "prod.json"),
                    ...env,
                    resources,
                    pack: Promise.resolve(running),
                }),
            1,
        );
        return `pack process boot ${fmt(boot)}; Analyze and AnalyzeStack over gRPC on parsed objects, pack running: ${fmt(judge)}`;
    } finally {
        running.close();
    }
}

/**
 * The drain rehearsal (rehearsal/) on the prod stack plus the generated corpora: reading
 * the manifests, then rehearsing every group's rollout. A NodePool without limits is added so
 * every pod is placed (prod's pools would leave most of 10 000 workloads Pending, a shorter path).
 * The stack is rendered once (the program runs once per process).
 */
export async function benchDrain(sizes: readonly number[], runs: number): Promise<void> {
    const stack = await stackResources(ROOT, "prod");
    const unlimited = {
        type: "kubernetes:karpenter.sh/v1:NodePool",
        name: "bench-unlimited",
        urn: "urn:pulumi:prod::bench::kubernetes:karpenter.sh/v1:NodePool::bench-unlimited",
        props: unknownCheckingProxy({
            apiVersion: "karpenter.sh/v1",
            kind: "NodePool",
            metadata: { name: "bench-unlimited" },
            spec: { template: { spec: { requirements: [{ key: "kubernetes.io/arch", operator: "In", values: ["amd64"] }] } } },
        }),
    };
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "drain-bench-"));
    try {
        process.stdout.write(
            `\n| drain rehearsal, prod stack | evictions rehearsed | nodes | read manifests | rehearse | verdict |\n|---|---|---|---|---|---|\n`,
        );
        const results: { size: number; rehearse: number }[] = [];
        for (const size of sizes) {
            const dir = path.join(tmp, String(size));
            generateCorpus(dir, size);
            let manifests: ReturnType<typeof manifestResources> = [];
            const read = await timeAsync(() => {
                manifests = manifestResources([dir], "prod");
            }, 1);
            let report: ReturnType<typeof rehearse> | undefined;
            const time = await timeAsync(
                () => {
                    report = rehearse([...stack, ...manifests, unlimited]);
                },
                Math.min(runs, 2),
            );
            const r = report as ReturnType<typeof rehearse>;
            const pods = r.groups.reduce((sum, g) => sum + g.waves.reduce((n, w) => n + w.evictions, 0), 0);
            const nodes = r.groups.reduce((sum, g) => sum + g.nodes, 0);
            results.push({ size, rehearse: time });
            process.stdout.write(`| ${size} workloads | ${pods} | ${nodes} | ${fmt(read)} | ${fmt(time)} | ${r.verdict} |\n`);
        }
        if (results.length >= 2) {
            const [a, b] = [results[0], results[results.length - 1]];
            process.stdout.write(`\nGrowth ${a.size} → ${b.size} workloads: rehearsal ${(b.rehearse / a.rehearse).toFixed(1)}× time.\n`);
        }
    } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
    }
}

/** The `load` scenario's sizes when not given: the issue's 50 MB manifest and 2,000-namespace stack on a machine's two cores kept busy. */
export const LOAD_DEFAULTS = { bytes: 50_000_000, violations: 25, namespaces: 2000, burners: 2 } as const;

export interface LoadOptions {
    /** Size of the one manifest file (at least). */
    bytes: number;
    /** Workloads of that file planted to fail `PLANTED_POLICY`. */
    violations: number;
    /** Namespaces onboarded on top of the fixture dev stack's. */
    namespaces: number;
    /** CPU-burning processes kept running for the duration (0: a quiet machine). */
    burners: number;
    /** Where the inputs are written (a temporary directory, removed afterwards, when not given). */
    dir?: string;
}

/** One command run: exit code, wall time, and memory sampled from /proc (0 where there is none). */
export interface MeasuredRun {
    code: number;
    ms: number;
    /** The most the command's processes (it and its children: the pack) held at once. */
    peakTreeRss: number;
    /** The most any one of them held (its high-water mark). */
    peakProcessRss: number;
    stdout: string;
    stderr: string;
}

export interface LoadResult {
    options: LoadOptions;
    manifest: { input: ManifestFile; run: MeasuredRun; verdicts: Record<string, number> };
    stack: { namespaces: number; resources: number; run: MeasuredRun; guarded: number };
    /** What was not as expected; empty when the scenario passed. */
    problems: string[];
}

/** The processes under `root` (itself included), from /proc; [] where there is no /proc. */
function processTree(root: number): number[] {
    let entries: string[];
    try {
        entries = fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e));
    } catch {
        return [];
    }
    const children = new Map<number, number[]>();
    for (const e of entries) {
        try {
            // Field 4 of /proc/<pid>/stat, after the command name in parentheses, is the parent.
            const stat = fs.readFileSync(`/proc/${e}/stat`, "utf8");
            const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
            children.set(ppid, [...(children.get(ppid) ?? []), Number(e)]);
        } catch {
            // gone meanwhile
        }
    }
    const out: number[] = [];
    const walk = (pid: number) => {
        out.push(pid);
        (children.get(pid) ?? []).forEach(walk);
    };
    walk(root);
    return out;
}

/** VmRSS and VmHWM of a process, in bytes (0 when it is gone). */
function memoryOf(pid: number): { rss: number; hwm: number } {
    try {
        const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
        const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
        return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
    } catch {
        return { rss: 0, hwm: 0 };
    }
}

/** Runs a tools/ command as `npm run` would (from `cwd`), sampling its processes' memory every 100 ms. */
export function measuredTool(script: string, args: readonly string[], cwd: string): Promise<MeasuredRun> {
    return new Promise((resolve, reject) => {
        const t0 = process.hrtime.bigint();
        const child = spawn(process.execPath, [LAUNCHER, toolFile(script), ...args], {
            cwd,
            env: process.env,
            stdio: ["ignore", "pipe", "pipe"],
        });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on("data", (d: Buffer) => out.push(d));
        child.stderr.on("data", (d: Buffer) => err.push(d));
        let peakTreeRss = 0;
        const hwm = new Map<number, number>();
        const sample = () => {
            if (child.pid === undefined) {
                return;
            }
            let tree = 0;
            for (const pid of processTree(child.pid)) {
                const m = memoryOf(pid);
                tree += m.rss;
                hwm.set(pid, Math.max(hwm.get(pid) ?? 0, m.hwm));
            }
            peakTreeRss = Math.max(peakTreeRss, tree);
        };
        const sampler = setInterval(sample, 100);
        child.once("error", (e) => {
            clearInterval(sampler);
            reject(e);
        });
        child.once("close", (code, signal) => {
            clearInterval(sampler);
            resolve({
                code: code ?? (signal ? 128 : 1),
                ms: Number(process.hrtime.bigint() - t0) / 1e6,
                peakTreeRss,
                peakProcessRss: Math.max(0, ...hwm.values()),
                stdout: Buffer.concat(out).toString(),
                stderr: Buffer.concat(err).toString(),
            });
        });
    });
}

/** Starts `n` processes that each keep a core busy; `stop` ends them, each by its id, and resolves once they are gone. */
export function burnCpu(n: number): { pids: number[]; stop: () => Promise<void> } {
    const burners: ChildProcess[] = [];
    for (let i = 0; i < n; i++) {
        burners.push(spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
    }
    const alive = (b: ChildProcess) => b.exitCode === null && b.signalCode === null;
    const kill = () => burners.filter(alive).forEach((b) => b.kill("SIGKILL"));
    process.once("exit", kill);
    return {
        pids: burners.map((b) => b.pid as number),
        stop: async () => {
            process.off("exit", kill);
            const gone = burners.filter(alive).map((b) => new Promise((resolve) => b.once("exit", resolve)));
            kill();
            await Promise.all(gone);
        },
    };
}

/**
 * The `load` scenario: a manifest file of `bytes` through `policy:check --env prod` and the
 * fixture dev stack with `namespaces` more namespaces through `plan`, each while `burners`
 * processes keep the cores busy. Checks the verdicts (exactly the planted violations; a clean
 * plan holding every namespace with its ResourceQuota and LimitRange); times are reported, not checked.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
    const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "load-bench-"));
    const problems: string[] = [];
    // The fixture project is test scaffolding; loaded here only, so the other benchmarks never need it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { FIXTURE_STACKS, projectCopy } = require("../test/stackFiles") as typeof import("../test/stackFiles");
    let project: string | undefined;
    try {
        const input = writeManifestFile(path.join(dir, "manifest.yaml"), options.bytes, options.violations);
        project = projectCopy(FIXTURE_STACKS, (file, text) =>
            file === "Pulumi.dev.yaml" ? onboardNamespaces(text, options.namespaces) : text,
        );
        const burners = burnCpu(options.burners);
        let gate: MeasuredRun;
        let plan: MeasuredRun;
        try {
            gate = await measuredTool("policyCheck.ts", ["--env", "prod", "--format", "json", input.file], ROOT);
            plan = await measuredTool("plan.ts", ["dev", "--format", "json"], project);
        } finally {
            await burners.stop();
        }

        const verdicts: Record<string, number> = {};
        const expectedCode = input.violating.length > 0 ? 1 : 0;
        if (gate.code !== expectedCode) {
            problems.push(`policy:check exited ${gate.code}, not ${expectedCode}: ${gate.stderr.trim().slice(0, 2000)}`);
        }
        try {
            const { violations } = JSON.parse(gate.stdout) as {
                violations: { policy: string; resource: { name: string; namespace?: string } }[];
            };
            for (const v of violations) {
                verdicts[v.policy] = (verdicts[v.policy] ?? 0) + 1;
            }
            const found = violations
                .filter((v) => v.policy === PLANTED_POLICY)
                .map((v) => `${v.resource.namespace}/${v.resource.name}`)
                .sort();
            if (violations.length !== input.violating.length || found.join() !== [...input.violating].sort().join()) {
                problems.push(
                    `policy:check found ${JSON.stringify(verdicts)}, not ${input.violating.length} ${PLANTED_POLICY} on the planted workloads`,
                );
            }
        } catch {
            if (gate.code === expectedCode) {
                problems.push(`policy:check printed no JSON: ${gate.stderr.trim().slice(0, 2000)}`);
            }
        }

        let resources = 0;
        let guarded = 0;
        if (plan.code !== 0) {
            problems.push(`plan exited ${plan.code}, not 0: ${plan.stderr.trim().slice(0, 2000)}`);
        }
        try {
            const parsed = JSON.parse(plan.stdout) as {
                resources: { type: string; props: { metadata?: { name?: string; namespace?: string } } }[];
                violations: unknown[];
            };
            resources = parsed.resources.length;
            const has = (type: string) =>
                new Set(
                    parsed.resources
                        .filter((r) => r.type === type)
                        .map((r) => (type === "kubernetes:core/v1:Namespace" ? r.props.metadata?.name : r.props.metadata?.namespace)),
                );
            const [namespaces, quotas, limits] = [
                has("kubernetes:core/v1:Namespace"),
                has("kubernetes:core/v1:ResourceQuota"),
                has("kubernetes:core/v1:LimitRange"),
            ];
            const missing: string[] = [];
            for (let i = 0; i < options.namespaces; i++) {
                const ns = onboardedNamespace(i);
                if (namespaces.has(ns) && quotas.has(ns) && limits.has(ns)) {
                    guarded++;
                } else {
                    missing.push(ns);
                }
            }
            if (missing.length > 0) {
                problems.push(
                    `the plan lacks the Namespace, ResourceQuota or LimitRange of ${missing.length} namespaces: ${missing.slice(0, 5).join(", ")}`,
                );
            }
            if (parsed.violations.length > 0) {
                problems.push(
                    `the plan has ${parsed.violations.length} policy violations: ${JSON.stringify(parsed.violations.slice(0, 3))}`,
                );
            }
        } catch {
            if (plan.code === 0) {
                problems.push(`plan printed no JSON: ${plan.stderr.trim().slice(0, 2000)}`);
            }
        }
        return {
            options,
            manifest: { input, run: gate, verdicts },
            stack: { namespaces: options.namespaces, resources, run: plan, guarded },
            problems,
        };
    } finally {
        if (project) {
            fs.rmSync(project, { recursive: true, force: true });
        }
        if (!options.dir) {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    }
}

const mib = (bytes: number) => (bytes > 0 ? `${(bytes / 2 ** 20).toFixed(0)} MiB` : "n/a");

/** The `load` scenario's report: one table row per input, then what went wrong, if anything. */
export function formatLoad(r: LoadResult): string {
    const { manifest: m, stack: s } = r;
    const verdicts = Object.entries(m.verdicts)
        .map(([p, n]) => `${n} ${p}`)
        .join(", ");
    return [
        `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}, ${r.options.burners} CPU burners, load average ${os.loadavg()[0].toFixed(2)}`,
        "",
        "| load scenario | input | exit | verdicts | wall time | peak RSS, command + pack | peak RSS, largest process |",
        "|---|---|---|---|---|---|---|",
        `| \`policy:check --env prod\`, one file | ${(m.input.bytes / 1e6).toFixed(1)} MB, ${m.input.objects} objects, ${m.input.violating.length} planted | ${m.run.code} | ${verdicts || "none"} | ${fmt(m.run.ms)} | ${mib(m.run.peakTreeRss)} | ${mib(m.run.peakProcessRss)} |`,
        `| \`plan dev\`, fixture stack | ${s.namespaces} namespaces onboarded, ${s.resources} resources | ${s.run.code} | ${s.guarded} of ${s.namespaces} namespaces with ResourceQuota and LimitRange | ${fmt(s.run.ms)} | ${mib(s.run.peakTreeRss)} | ${mib(s.run.peakProcessRss)} |`,
        "",
        r.problems.length === 0 ? "All verdicts as expected." : `Not as expected:\n${r.problems.map((p) => `- ${p}`).join("\n")}`,
        "",
    ].join("\n");
}

if (require.main === module) {
    runMain(main);
}
