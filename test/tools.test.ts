import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { ROOT } from "./mocks";

const TOOLS = path.join(ROOT, "tools");

/** Each tools/ module and the tools/ modules it imports (type-only imports and re-exports included). */
function importGraph(dir: string): Map<string, string[]> {
    const modules = fs.readdirSync(dir).filter((f) => f.endsWith(".ts"));
    const graph = new Map<string, string[]>();
    for (const file of modules) {
        const { importedFiles } = ts.preProcessFile(fs.readFileSync(path.join(dir, file), "utf8"), true, true);
        const local = importedFiles
            .map((i) => i.fileName)
            .filter((name) => name.startsWith("./"))
            .map((name) => `${path.basename(name, ".ts")}.ts`)
            .filter((name) => modules.includes(name));
        graph.set(file, [...new Set(local)]);
    }
    return graph;
}

/** A cycle of the graph as the path that closes it (`a → b → a`), or undefined. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
    const done = new Set<string>();
    const visit = (node: string, trail: string[]): string[] | undefined => {
        if (trail.includes(node)) {
            return [...trail.slice(trail.indexOf(node)), node];
        }
        if (done.has(node)) {
            return undefined;
        }
        for (const next of graph.get(node) ?? []) {
            const cycle = visit(next, [...trail, node]);
            if (cycle) {
                return cycle;
            }
        }
        done.add(node);
        return undefined;
    };
    for (const node of graph.keys()) {
        const cycle = visit(node, []);
        if (cycle) {
            return cycle;
        }
    }
    return undefined;
}

describe("tools/: one concern per module, no import cycle", () => {
    const graph = importGraph(TOOLS);

    it("finds a cycle where there is one (the checker can fail)", () => {
        const cyclic = new Map([
            ["a.ts", ["b.ts"]],
            ["b.ts", ["c.ts"]],
            ["c.ts", ["a.ts", "d.ts"]],
            ["d.ts", []],
        ]);
        expect(findCycle(cyclic)).to.deep.equal(["a.ts", "b.ts", "c.ts", "a.ts"]);
        expect(findCycle(new Map([...cyclic, ["c.ts", ["d.ts"]]]))).to.equal(undefined);
    });

    it("reads the real imports of tools/", () => {
        // The commands import their modules; a graph with no edge would pass the cycle check vacuously.
        expect(graph.get("plan.ts")).to.include("stackPlan.ts");
        expect(graph.get("policyCheck.ts")).to.include("manifestCheck.ts");
    });

    it("has no import cycle", () => {
        const cycle = findCycle(graph);
        expect(cycle, cycle?.join(" → ")).to.equal(undefined);
    });

    it("imports no command: the commands (modules with a `require.main` entry) only parse arguments and call", () => {
        const commands = [...graph.keys()].filter((f) => fs.readFileSync(path.join(TOOLS, f), "utf8").includes("require.main === module"));
        expect(commands).to.include.members(["plan.ts", "policyCheck.ts", "bench.ts"]);
        for (const [file, imports] of graph) {
            expect(
                imports.filter((i) => commands.includes(i)),
                `${file} imports a command`,
            ).to.deep.equal([]);
        }
    });
});
