/**
 * Benchmarks of the offline plan and the policy gate on the machine it runs on. Prints figures;
 * nothing here asserts (timing belongs in a report, not in a test).
 *
 *   npm run bench [-- --runs <n>] [-- --sizes 1000,10000]
 *
 * - `plan` per stack (wall time of the CLI, policy gate included) next to the floor: a Node process
 *   that only loads the Pulumi SDKs the program uses.
 * - The manifest gate on generated corpora (each workload: Deployment, Service, PDB; every ten
 *   workloads share a namespace with ResourceQuota, LimitRange and a default-deny NetworkPolicy)
 *   next to merely parsing the same YAML; corpora are written to a temporary directory and
 *   removed afterwards.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { buildStackRequest } from "./gate";
import { checkManifests, collectFiles, parseManifests, toResources } from "./policyCheck";
import { runMain } from "./cli";

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

/** A drain-safe workload: what the pack should pass, so the bench measures the common path. */
function workload(ns: string, i: number): object[] {
    const name = `app-${i}`;
    const labels = { "app.kubernetes.io/name": name };
    return [
        {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name, namespace: ns, labels },
            spec: {
                replicas: 3,
                selector: { matchLabels: labels },
                template: {
                    metadata: { labels },
                    spec: {
                        terminationGracePeriodSeconds: 45,
                        containers: [
                            {
                                name: "app",
                                image: "nginx:1.27.5",
                                ports: [{ name: "http", containerPort: 80 }],
                                resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
                                readinessProbe: { httpGet: { path: "/", port: "http" } },
                                lifecycle: { preStop: { exec: { command: ["/bin/sh", "-c", "sleep 5"] } } },
                            },
                        ],
                    },
                },
            },
        },
        {
            apiVersion: "v1",
            kind: "Service",
            metadata: { name, namespace: ns },
            spec: { selector: labels, ports: [{ name: "http", port: 80, targetPort: "http" }] },
        },
        {
            apiVersion: "policy/v1",
            kind: "PodDisruptionBudget",
            metadata: { name, namespace: ns },
            spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
        },
    ];
}

function namespaceObjects(ns: string): object[] {
    return [
        {
            apiVersion: "v1",
            kind: "Namespace",
            metadata: {
                name: ns,
                labels: { "pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.34" },
            },
        },
        {
            apiVersion: "networking.k8s.io/v1",
            kind: "NetworkPolicy",
            metadata: { name: "default-deny-ingress", namespace: ns },
            spec: { podSelector: {}, policyTypes: ["Ingress"] },
        },
        {
            apiVersion: "v1",
            kind: "ResourceQuota",
            metadata: { name: "compute", namespace: ns },
            spec: { hard: { "requests.cpu": "8", "requests.memory": "16Gi", "limits.cpu": "16", "limits.memory": "32Gi", pods: "50" } },
        },
        {
            apiVersion: "v1",
            kind: "LimitRange",
            metadata: { name: "container-defaults", namespace: ns },
            spec: {
                limits: [
                    { type: "Container", default: { cpu: "500m", memory: "512Mi" }, defaultRequest: { cpu: "100m", memory: "128Mi" } },
                ],
            },
        },
    ];
}

/** Writes `workloads` workloads, ten per namespace and file, under `dir`. */
export function generateCorpus(dir: string, workloads: number): void {
    fs.mkdirSync(dir, { recursive: true });
    for (let n = 0; n * 10 < workloads; n++) {
        const ns = `team-${n}`;
        const docs = [...namespaceObjects(ns)];
        for (let i = n * 10; i < Math.min(workloads, n * 10 + 10); i++) {
            docs.push(...workload(ns, i));
        }
        fs.writeFileSync(path.join(dir, `${ns}.yaml`), docs.map((d) => YAML.stringify(d)).join("---\n"));
    }
}

const fmt = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);

async function main(): Promise<number> {
    const argv = process.argv.slice(2);
    const opt = (name: string, dflt: string) => {
        const i = argv.indexOf(name);
        return i >= 0 && argv[i + 1] ? argv[i + 1] : dflt;
    };
    const runs = Number(opt("--runs", "3"));
    const sizes = opt("--sizes", "1000,10000").split(",").map(Number);
    process.stdout.write(
        `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}, load average ${os.loadavg()[0].toFixed(2)}\n\n`,
    );

    const floor = timeProcess(
        ["-r", TS_NODE, "-e", 'require("@pulumi/pulumi"); require("@pulumi/aws"); require("@pulumi/eks"); require("@pulumi/kubernetes");'],
        runs,
    );
    process.stdout.write(`| offline plan (gate included) | wall time | × SDK-load floor (${fmt(floor)}) |\n|---|---|---|\n`);
    for (const stack of fs
        .readdirSync(ROOT)
        .map((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1])
        .filter((s): s is string => !!s)) {
        const t = timeProcess(["-r", TS_NODE, path.join(ROOT, "tools", "plan.ts"), stack, "--format", "json"], runs);
        // The same rendering without the policy pack: how much of the plan is the gate.
        const render = timeProcess(
            [
                "-r",
                TS_NODE,
                "-e",
                `require(${JSON.stringify(path.join(ROOT, "tools", "plan.ts"))}).renderPlan(${JSON.stringify(stack)}).then(() => process.exit(0))`,
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
        for (const size of sizes) {
            const dir = path.join(tmp, String(size));
            generateCorpus(dir, size);
            const files = collectFiles([dir]);
            let objects = 0;
            const parse = await timeAsync(
                () => {
                    objects = files.flatMap((f) => parseManifests(fs.readFileSync(f, "utf8"), f)).length;
                },
                Math.min(runs, 2),
            );
            let violations = 0;
            const gate = await timeAsync(async () => {
                violations = (await checkManifests({ paths: [dir], env: "prod", packDir: path.join(ROOT, "policies") })).violations.length;
            }, 1);
            const resources = toResources(
                files.flatMap((f) => parseManifests(fs.readFileSync(f, "utf8"), f)),
                "prod",
            ).map((r) => r.resource);
            const bytes = buildStackRequest(resources).serializeBinary().length;
            results.push({ size, parse, gate });
            process.stdout.write(
                `| ${size} workloads | ${objects} | ${fmt(parse)} | ${fmt(gate)}${violations ? ` (${violations} violations)` : ""} | ${(gate / parse).toFixed(2)}× | ${(bytes / 2 ** 20).toFixed(1)} MiB of 400 MiB |\n`,
            );
        }
        if (results.length >= 2) {
            const [a, b] = [results[0], results[results.length - 1]];
            process.stdout.write(
                `\nGrowth ${a.size} → ${b.size} workloads (${(b.size / a.size).toFixed(0)}× input): gate ${(b.gate / a.gate).toFixed(1)}× time, parse ${(b.parse / a.parse).toFixed(1)}× time.\n`,
            );
        }
    } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
    }
    return 0;
}

if (require.main === module) {
    runMain(main);
}
