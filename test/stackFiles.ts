/**
 * The stacks tests run on, two kinds:
 *
 * - every `Pulumi.<stack>.yaml` of the repository (`stacks()`): tests check invariants there,
 *   with expectations derived from that stack's own config, so a fork that renames the cluster,
 *   onboards a namespace, adds a pool or adds a stack edits no test;
 * - the frozen copies in test/fixtures/stacks (`fixtureProject()`): tests with exact
 *   expectations (this group is t3.large, that pool is Spot) render those, never the samples.
 */
import { expect } from "chai";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ConfigError, parseRawConfig, PROJECT, StackConfig } from "../components/config";
import { readStackFiles, stackNames } from "../tools/render/offline";
import { ROOT } from "./mocks";

/** The frozen stack files (and their policy config in `policies/`) that exact tests render. */
export const FIXTURE_STACKS = path.join(ROOT, "test", "fixtures", "stacks");

/** The stack names of `root`: one per `Pulumi.<stack>.yaml`, sorted. */
export function stacks(root: string = ROOT): string[] {
    return stackNames(root);
}

/** A stack's validated config, defaults applied. */
export function stackConfig(stack: string, root: string = ROOT): StackConfig {
    return parseRawConfig(readStackFiles(root, stack).config, stack);
}

/**
 * A copy of this project in a temporary directory that the offline plan can render: the
 * program, tools and packages linked, the pack linked file by file except its `config/`, and the
 * stack files and policy config taken from `stackDir`. `edit` may change a stack file's text.
 */
export function projectCopy(stackDir: string, edit: (file: string, text: string) => string = (_f, t) => t): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "project-"));
    for (const f of ["Pulumi.yaml", "index.ts", "tsconfig.json"]) {
        fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
    }
    for (const d of ["components", "tools", "node_modules"]) {
        fs.symlinkSync(path.join(ROOT, d), path.join(dir, d));
    }
    const pack = path.join(dir, "policies");
    fs.mkdirSync(pack);
    for (const entry of fs.readdirSync(path.join(ROOT, "policies")).filter((e) => e !== "config")) {
        fs.symlinkSync(path.join(ROOT, "policies", entry), path.join(pack, entry));
    }
    fs.mkdirSync(path.join(pack, "config"));
    const policyConfig = path.join(stackDir, "policies");
    for (const f of fs.existsSync(policyConfig) ? fs.readdirSync(policyConfig) : []) {
        fs.copyFileSync(path.join(policyConfig, f), path.join(pack, "config", f));
    }
    for (const stack of stacks(stackDir)) {
        const file = `Pulumi.${stack}.yaml`;
        fs.writeFileSync(path.join(dir, file), edit(file, fs.readFileSync(path.join(stackDir, file), "utf8")));
    }
    return dir;
}

/** Runs git in `cwd` as a test author (tests make throwaway repositories). */
export function git(cwd: string, ...args: string[]): string {
    return execFileSync("git", ["-c", "user.name=test", "-c", "user.email=test@example.com", ...args], { cwd }).toString();
}

/** A temporary directory holding this working tree's files (committed or not), as a clone would have them before `npm ci`. */
export function workingTreeCopy(prefix: string): string {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: ROOT })
        .toString()
        .split("\n")
        .filter((f) => f && fs.existsSync(path.join(ROOT, f)));
    for (const f of files) {
        fs.mkdirSync(path.dirname(path.join(repo, f)), { recursive: true });
        fs.copyFileSync(path.join(ROOT, f), path.join(repo, f));
    }
    return repo;
}

let fixture: string | undefined;

/** The project rendering the fixture stacks (created once per test run). */
export function fixtureProject(): string {
    fixture ??= projectCopy(FIXTURE_STACKS);
    return fixture;
}

/** The fixture project with one stack file changed by `edit` (which must change it). */
export function editedFixture(stack: string, edit: (text: string) => string): string {
    const file = `Pulumi.${stack}.yaml`;
    return projectCopy(FIXTURE_STACKS, (f, text) => {
        if (f !== file) {
            return text;
        }
        const edited = edit(text);
        expect(edited, `the edit changed ${file}`).to.not.equal(text);
        return edited;
    });
}

/** A fixture stack's config, decoded (`eks-platform:network` → its object), ready to edit. */
export function fixtureValues(stack: string): Record<string, any> {
    const values: Record<string, any> = {};
    for (const [k, v] of Object.entries(readStackFiles(fixtureProject(), stack).config)) {
        values[k] = k.startsWith(`${PROJECT}:`) && /^[[{]/.test(v) ? JSON.parse(v) : v;
    }
    return values;
}

/** Validates decoded values as the program would. */
export function parseValues(values: Record<string, unknown>, stack: string): StackConfig {
    const encoded = Object.fromEntries(
        Object.entries(values)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
    );
    return parseRawConfig(encoded, stack);
}

/** The problems of a fixture stack after `edit` changed its values; [] when it still parses. */
export function problemsAfter(edit: (values: Record<string, any>) => void, stack = "dev"): string[] {
    const values = fixtureValues(stack);
    edit(values);
    try {
        parseValues(values, stack);
    } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        return (err as ConfigError).problems;
    }
    return [];
}
