/**
 * Benchmarks of the offline plan and the policy gate on the machine it runs on. Prints figures;
 * nothing here asserts (timing belongs in a report, not in a test).
 *
 *   npm run bench -- [--runs <n>] [--sizes 1000,10000]
 *
 * - `plan` per stack (wall time of the CLI, policy gate included) next to the floor: a Node process
 *   that only loads the Pulumi SDKs the program uses.
 * - The drain rehearsal (`benchDrain`) on the prod stack with the same corpora.
 * - The manifest gate on generated corpora (each workload: Deployment, Service, PDB; every ten
 *   workloads share a namespace with ResourceQuota, LimitRange and a default-deny NetworkPolicy)
 *   next to merely parsing the same YAML; corpora are written to a temporary directory and
 *   removed afterwards.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parseCommandLine, runMain } from "./cli";
import { generateCorpus } from "./corpus";
import { InputError } from "./errors";
import { checkManifests } from "./manifestCheck";
import { PolicyPackProcess } from "./analyzer";
import { runGate } from "./gate";
import { collectFiles, MANIFEST_PROJECT, readManifests, toResources } from "./manifests";
import { stackNames } from "./offline";
import { buildStackRequest, GateResource } from "./requests";
import { manifestResources, stackResources } from "./drainInput";
import { rehearse } from "eks-platform-rehearsal";
import { unknownCheckingProxy } from "eks-platform-kernel/policy";

const ROOT = path.resolve(__dirname, "..");
const TS_NODE = require.resolve("ts-node/register/transpile-only");

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

const USAGE = "usage: npm run bench -- [--runs <n>] [--sizes 1000,10000]";

const fmt = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);

async function main(): Promise<number> {
    const { values, positionals } = parseCommandLine(
        process.argv.slice(2),
        { runs: { type: "string", default: "3" }, sizes: { type: "string", default: "1000,10000" } },
        USAGE,
    );
    const counts = (flag: string, text: string) => {
        const ns = text.split(",").map(Number);
        if (text === "" || ns.some((n) => !Number.isInteger(n) || n < 1)) {
            throw new InputError(`${flag} takes positive whole numbers, not "${text}"\n${USAGE}`);
        }
        return ns;
    };
    if (positionals.length > 0) {
        throw new InputError(`unexpected argument ${positionals[0]}\n${USAGE}`);
    }
    const [runs] = counts("--runs", values.runs);
    const sizes = counts("--sizes", values.sizes);
    process.stdout.write(
        `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}, load average ${os.loadavg()[0].toFixed(2)}\n\n`,
    );

    const floor = timeProcess(
        ["-r", TS_NODE, "-e", 'require("@pulumi/pulumi"); require("@pulumi/aws"); require("@pulumi/eks"); require("@pulumi/kubernetes");'],
        runs,
    );
    process.stdout.write(`| offline plan (gate included) | wall time | × SDK-load floor (${fmt(floor)}) |\n|---|---|---|\n`);
    for (const stack of stackNames(ROOT)) {
        const t = timeProcess(["-r", TS_NODE, path.join(ROOT, "tools", "plan.ts"), stack, "--format", "json"], runs);
        // The same rendering without the policy pack: how much of the plan is the gate.
        const render = timeProcess(
            [
                "-r",
                TS_NODE,
                "-e",
                `require(${JSON.stringify(path.join(ROOT, "tools", "stackPlan.ts"))}).renderPlan(${JSON.stringify(stack)}).then(() => process.exit(0))`,
            ],
            runs,
        );
        process.stdout.write(`| \`plan ${stack}\` | ${fmt(t)} | ${(t / floor).toFixed(2)}× |\n`);
        process.stdout.write(`| rendering only, no policy pack (${stack}) | ${fmt(render)} | ${(render / floor).toFixed(2)}× |\n`);
    }

    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "gate-bench-"));
    try {
        process.stdout.write(
            `\n| manifest gate, prod config | objects | parse only | gate | gate ÷ parse | AnalyzeStack message |\n|---|---|---|---|---|---|\n`,
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
            let violations = 0;
            const gate = await timeAsync(async () => {
                violations = (await checkManifests({ paths: [dir], env: "prod", packDir: path.join(ROOT, "policies") })).violations.length;
            }, 1);
            const resources = toResources(readManifests(files), "prod").map((r) => r.resource);
            const bytes = buildStackRequest(resources).serializeBinary().length;
            results.push({ size, parse, gate });
            process.stdout.write(
                `| ${size} workloads | ${objects} | ${fmt(parse)} | ${fmt(gate)}${violations ? ` (${violations} violations)` : ""} | ${(gate / parse).toFixed(2)}× | ${(bytes / 2 ** 20).toFixed(1)} MiB of 400 MiB |\n`,
            );
            breakdown.push(`${size} workloads: ${await gateBreakdown(resources)}`);
        }
        process.stdout.write(
            `\nWhere the gate's time goes (parsing overlaps the pack's boot and its Analyze calls):\n${breakdown.map((b) => `- ${b}\n`).join("")}`,
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
        return `pack boot ${fmt(boot)}; Analyze and AnalyzeStack on parsed objects, pack running: ${fmt(judge)}`;
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

if (require.main === module) {
    runMain(main);
}
