// tools/ by product: one folder per thing the repository does, layered, no cycle, and dev/ (the
// development tools: bench, corpus, mutate) outside the product.
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { findCycle, importGraph, tsFiles } from "./importGraph";
import { ROOT } from "./mocks";

const TOOLS = path.join(ROOT, "tools");

/**
 * The product folders of tools/, lowest first: a module imports modules of its own folder or of
 * folders before it; a command (a module with a `require.main` entry) sits above them all and may
 * import any module, never another command.
 */
export const LAYERS = [
    "cli", // shared command plumbing: arguments, errors, input files, git trees, the launcher
    "gate", // the policy pack's process and in-process runner, requests, policy config, reports
    "render", // the offline engine, the plan
    "manifests", // reading and validating manifests, platform fit, the profile, waivers, the drain input
    "changes", // the diff against a ref, the Kubernetes upgrade planner
    "ci", // the names CI gives a stack, the runner matrix, the drift check
    "roles", // the deploy, preview and drift roles, the boundary, the bootstrap script
    "preflight", // what only the account can answer
    "docs", // the generated parts of the documentation
] as const;

/** Each module of `root` (`folder/file.ts`) and the modules of `root` it imports (type-only imports and re-exports included). */
function toolsGraph(root: string): Map<string, string[]> {
    const folders = fs.readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory());
    return importGraph(
        root,
        folders.flatMap((folder) => tsFiles(root, folder.name)),
    );
}

/** Each import that breaks the layering: a module importing a folder above its own, or anything importing a command. */
function layeringProblems(graph: ReadonlyMap<string, readonly string[]>, commands: ReadonlySet<string>): string[] {
    const layer = (file: string) => LAYERS.indexOf(file.split("/")[0] as (typeof LAYERS)[number]);
    const problems: string[] = [];
    for (const [file, imports] of graph) {
        for (const target of imports) {
            if (commands.has(target)) {
                problems.push(`${file} imports the command ${target}: a command only parses arguments and calls`);
            } else if (!commands.has(file) && layer(target) > layer(file)) {
                problems.push(
                    `${file} imports ${target}: ${file.split("/")[0]}/ is below ${target.split("/")[0]}/ (test/tools.test.ts, LAYERS)`,
                );
            }
        }
    }
    return problems;
}

describe("tools/: folders by product, layered, no import cycle", () => {
    const graph = toolsGraph(TOOLS);
    const commands = new Set(
        [...graph.keys()].filter((f) => fs.readFileSync(path.join(TOOLS, f), "utf8").includes("require.main === module")),
    );

    it("holds no flat list: every module is in a product folder of LAYERS", () => {
        const top = fs.readdirSync(TOOLS, { withFileTypes: true });
        expect(top.filter((d) => !d.isDirectory()).map((d) => d.name)).to.deep.equal([]);
        expect(top.map((d) => d.name).sort()).to.deep.equal([...LAYERS].sort());
    });

    it("names each module once across the folders (tools/cli/cli.ts toolFile finds a command by its name)", () => {
        const names = [...graph.keys()].map((f) => path.basename(f));
        expect(names.filter((n, i) => names.indexOf(n) !== i)).to.deep.equal([]);
    });

    it("reads the real imports (a graph with no edge would pass vacuously)", () => {
        expect(graph.get("render/plan.ts")).to.include("render/stackPlan.ts");
        expect(graph.get("manifests/policyCheck.ts")).to.include("manifests/manifestCheck.ts");
        expect(graph.get("roles/deployRole.ts")).to.include("render/offline.ts");
        expect([...commands]).to.include.members(["render/plan.ts", "manifests/policyCheck.ts", "roles/bootstrap.ts"]);
    });

    it("has no import cycle", () => {
        const cycle = findCycle(graph);
        expect(cycle, cycle?.join(" → ")).to.equal(undefined);
    });

    it("keeps the layering: a module imports its own folder or a lower one, and nothing imports a command", () => {
        expect(layeringProblems(graph, commands)).to.deep.equal([]);
    });

    it("the checks can fail: a cycle, an import upwards, an imported command", () => {
        const cyclic = new Map([
            ["a.ts", ["b.ts"]],
            ["b.ts", ["c.ts"]],
            ["c.ts", ["a.ts", "d.ts"]],
            ["d.ts", []],
        ]);
        expect(findCycle(cyclic)).to.deep.equal(["a.ts", "b.ts", "c.ts", "a.ts"]);
        expect(findCycle(new Map([...cyclic, ["c.ts", ["d.ts"]]]))).to.equal(undefined);
        const upward = new Map([
            ["gate/report.ts", ["render/offline.ts"]],
            ["render/offline.ts", ["gate/report.ts"]],
            ["docs/docs.ts", ["render/plan.ts", "gate/report.ts"]],
        ]);
        expect(layeringProblems(upward, new Set(["render/plan.ts", "docs/docs.ts"]))).to.deep.equal([
            "gate/report.ts imports render/offline.ts: gate/ is below render/ (test/tools.test.ts, LAYERS)",
            "docs/docs.ts imports the command render/plan.ts: a command only parses arguments and calls",
        ]);
    });

    it("never imports dev/ (the development tools use the product, not the other way)", () => {
        const reachesDev = [...graph.keys()].filter((f) =>
            ts
                .preProcessFile(fs.readFileSync(path.join(TOOLS, f), "utf8"), true, true)
                .importedFiles.some((i) =>
                    /(^|\/)dev\//.test(path.posix.normalize(path.posix.join("tools", path.posix.dirname(f), i.fileName))),
                ),
        );
        expect(reachesDev).to.deep.equal([]);
    });
});
