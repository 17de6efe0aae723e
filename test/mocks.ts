/**
 * Shared test harness: the recording mock engine of tools/render/offline.ts installed in-process for
 * component tests, and whole-stack rendering through the real offline plan CLI.
 */
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { toolFile } from "../tools/cli/cli";
import type { Plan } from "../tools/render/plan";
import { MockMode, RecordedResource, RecordingMocks, runInStack, SAMPLE_ACCOUNT, settle } from "../tools/render/offline";

export const ROOT = path.resolve(__dirname, "..");

/** The account the mock engine answers with (`aws.getCallerIdentity`, ARNs it makes up). */
export const ACCOUNT = SAMPLE_ACCOUNT;

/** A property the mocks recorded as a JSON string (a policy document, add-on values), parsed. */
export const json = (value: unknown) => JSON.parse(String(value)) as Record<string, any>;

/**
 * Installs a fresh recording mock engine with a root stack (await it in `before`). Components
 * must be constructed after this so their registrations and options reach the new recorder.
 */
export async function useMocks(
    mode: MockMode = "up",
    config: Record<string, string> = { "aws:region": "us-east-1" },
): Promise<RecordingMocks> {
    const mocks = new RecordingMocks(mode);
    pulumi.runtime.setAllConfig(config);
    await pulumi.runtime.setMocks(mocks, "eks-platform", "test", mode !== "up");
    await runInStack(mocks, () => undefined);
    return mocks;
}

/** Waits for every pending registration to reach the recorder. */
export async function settled(): Promise<void> {
    await settle();
}

/** Resolves an Output's value (never assert inside `apply`). */
export function promiseOf<T>(output: pulumi.Output<T>): Promise<T> {
    return new Promise((resolve) => output.apply((v) => resolve(v)));
}

/** Recorded resources of one type token, possibly none: a test that needs some asserts the count (an `.every` over none passes). */
export function ofType(resources: readonly RecordedResource[], type: string): RecordedResource[] {
    return resources.filter((r) => r.type === type);
}

/** The one recorded resource with this type and logical name. */
export function named(resources: readonly RecordedResource[], type: string, name: string): RecordedResource {
    const found = resources.filter((r) => r.type === type && r.name === name);
    if (found.length !== 1) {
        throw new Error(
            `expected one ${type} named ${name}, found ${found.length} (have: ${resources
                .filter((r) => r.type === type)
                .map((r) => r.name)
                .join(", ")})`,
        );
    }
    return found[0];
}

export interface CliResult {
    code: number;
    stdout: string;
    stderr: string;
}

/** Runs a tools/ CLI the way `npm run` does, from the repository root. */
/** A command's file by its name: dev/<name> for the development tools, else the product's (tools/cli/cli.ts toolFile). */
function devOrTool(script: string): string {
    const dev = path.join(ROOT, "dev", script);
    return fs.existsSync(dev) ? dev : toolFile(script);
}

export function runTool(script: string, args: string[], cwd: string = ROOT): Promise<CliResult> {
    return new Promise((resolve) => {
        execFile(
            process.execPath,
            ["-r", "ts-node/register/transpile-only", devOrTool(script), ...args],
            { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, TS_NODE_PROJECT: path.join(ROOT, "tsconfig.json") } },
            (err, stdout, stderr) => {
                const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
                resolve({ code, stdout, stderr });
            },
        );
    });
}

const planCache = new Map<string, Promise<Plan>>();

/**
 * The JSON plan of a stack of `root` (this repository, or a fixture project), rendered once per
 * test run by the real CLI. A plan the gate blocks (exit 1) still renders; tests that need a
 * clean gate check `violations`.
 */
export function planOf(stack: string, root: string = ROOT): Promise<Plan> {
    const key = `${root}\u0000${stack}`;
    let cached = planCache.get(key);
    if (!cached) {
        cached = runTool("plan.ts", [stack, "--format", "json"], root).then((r) => {
            if (r.code !== 0 && r.code !== 1) {
                throw new Error(`plan ${stack} in ${root} exited ${r.code}: ${r.stderr}`);
            }
            return JSON.parse(r.stdout) as Plan;
        });
        planCache.set(key, cached);
    }
    return cached;
}
