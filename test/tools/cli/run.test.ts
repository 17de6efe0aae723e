import { expect } from "chai";
import { execFile, execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ROOT, runTool } from "../../mocks";

const RUN = path.join(ROOT, "tools", "cli", "run.js");

// eslint-disable-next-line @typescript-eslint/no-require-imports
const swcCache = require("../../../tools/cli/swcCache.js") as {
    createCompiler(options: { cacheDir: string; tsconfig?: string }): {
        compile(filename: string, source: string): string;
        stats: { hits: number; compiled: number };
    };
};

interface Run {
    code: number;
    stdout: string;
    stderr: string;
}

/** `node tools/cli/run.js <args>` with its cache in `cacheDir`. */
function launch(args: string[], cacheDir: string, cwd: string = ROOT): Promise<Run> {
    return new Promise((resolve) => {
        execFile(
            process.execPath,
            [RUN, ...args],
            { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, EKS_PLATFORM_CACHE_DIR: cacheDir } },
            (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
        );
    });
}

describe("tools/cli/run.js: the tools compiled by swc into a cache, without ts-node", function () {
    this.timeout(240_000);
    let dir: string;
    let cache: string;
    beforeEach(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "run-fixture-"));
        cache = path.join(dir, "cache");
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);

    it("runs a changed file's new code, and compiles again only the file that changed", async () => {
        write("value.ts", 'export const value: string = "one";\n');
        write("main.ts", 'import { value } from "./value";\nconst extra: number = 1;\nprocess.stdout.write(`${value} ${extra}\\n`);\n');
        expect(await launch([path.join(dir, "main.ts")], cache)).to.deep.equal({ code: 0, stdout: "one 1\n", stderr: "" });
        write("value.ts", 'export const value: string = "two";\n');
        expect(await launch([path.join(dir, "main.ts")], cache)).to.deep.equal({ code: 0, stdout: "two 1\n", stderr: "" });

        // The same cache, in this process: main.ts is a hit, the edited value.ts a compile.
        const compiler = swcCache.createCompiler({ cacheDir: cache });
        compiler.compile(path.join(dir, "main.ts"), fs.readFileSync(path.join(dir, "main.ts"), "utf8"));
        expect(compiler.stats).to.deep.equal({ hits: 1, compiled: 0 });
        compiler.compile(path.join(dir, "value.ts"), 'export const value: string = "three";\n');
        expect(compiler.stats).to.deep.equal({ hits: 1, compiled: 1 });
        compiler.compile(path.join(dir, "value.ts"), 'export const value: string = "three";\n');
        expect(compiler.stats).to.deep.equal({ hits: 2, compiled: 1 });
    });

    it("compiles everything again when tsconfig.json changes", () => {
        write("tsconfig.json", "{}\n");
        const source = "export const x: number = 1;\n";
        const file = path.join(dir, "x.ts");
        swcCache.createCompiler({ cacheDir: cache, tsconfig: path.join(dir, "tsconfig.json") }).compile(file, source);
        const same = swcCache.createCompiler({ cacheDir: cache, tsconfig: path.join(dir, "tsconfig.json") });
        same.compile(file, source);
        expect(same.stats).to.deep.equal({ hits: 1, compiled: 0 });
        write("tsconfig.json", '{ "compilerOptions": { "strict": true } }\n');
        const changed = swcCache.createCompiler({ cacheDir: cache, tsconfig: path.join(dir, "tsconfig.json") });
        changed.compile(file, source);
        expect(changed.stats).to.deep.equal({ hits: 0, compiled: 1 });
    });

    it("names the .ts file and line of a thrown error, cold cache and warm", async () => {
        // Type-only lines swc removes: the compiled line of the throw is not the source's.
        write(
            "thrower.ts",
            [
                "export interface Shape {",
                "    a: string;",
                "    b: number;",
                "}",
                "export type Alias = Shape | undefined;",
                "export function fail(shape: Shape): never {",
                "    throw new Error(`bad ${shape.a}`);",
                "}",
                "",
            ].join("\n"),
        );
        write(
            "main.ts",
            [
                'import { fail } from "./thrower";',
                "type Unused = { c: boolean };",
                "try {",
                '    fail({ a: "x", b: 1 });',
                "} catch (err) {",
                "    process.stdout.write(`${(err as Error).stack}\\n`);",
                "}",
                "",
            ].join("\n"),
        );
        for (const state of ["cold", "warm"]) {
            const r = await launch([path.join(dir, "main.ts")], cache);
            expect(r.code, state).to.equal(0);
            const lines = r.stdout.split("\n");
            expect(lines[0], state).to.equal("Error: bad x");
            expect(lines[1], state).to.match(
                new RegExp(`^    at fail \\(${path.join(dir, "thrower.ts").replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:7:11\\)$`),
            );
            expect(lines[2], state).to.include(`${path.join(dir, "main.ts")}:4:`);
        }
        // The compiled code really does put the throw elsewhere: the mapping is what names line 7.
        const compiled = swcCache
            .createCompiler({ cacheDir: cache })
            .compile(path.join(dir, "thrower.ts"), fs.readFileSync(path.join(dir, "thrower.ts"), "utf8"));
        expect(compiled.split("\n").findIndex((l) => l.includes("throw new Error")) + 1).to.not.equal(7);
    });

    it("survives processes compiling the same files at once: every one runs, every entry is whole", async () => {
        // Large files, so that writes take long enough to overlap.
        for (let i = 0; i < 8; i++) {
            const body = Array.from({ length: 20000 }, (_, j) => `export const v${j}: number = ${i * j};`).join("\n");
            write(`m${i}.ts`, `${body}\nexport const name: string = "m${i}";\n`);
        }
        write(
            "main.ts",
            `${Array.from({ length: 8 }, (_, i) => `import * as m${i} from "./m${i}";`).join("\n")}\nprocess.stdout.write([${Array.from({ length: 8 }, (_, i) => `m${i}.name`).join(", ")}].join(",") + "\\n");\n`,
        );
        // Started a few milliseconds apart, so that some read entries while others write them.
        const runs = await Promise.all(
            Array.from(
                { length: 10 },
                (_, i) => new Promise<Run>((resolve) => setTimeout(() => resolve(launch([path.join(dir, "main.ts")], cache)), i * 40)),
            ),
        );
        const expected = `${Array.from({ length: 8 }, (_, i) => `m${i}`).join(",")}\n`;
        for (const r of runs) {
            expect(r).to.deep.equal({ code: 0, stdout: expected, stderr: "" });
        }
        const entries = fs.readdirSync(cache);
        expect(
            entries.filter((e) => !/^[0-9a-f]{64}\.(js|map)$/.test(e)),
            "temporary files left",
        ).to.deep.equal([]);
        expect(entries).to.have.length(18);
        // Every entry is what a compile of its file gives, and a later run reads them all.
        const fresh = swcCache.createCompiler({ cacheDir: fs.mkdtempSync(path.join(dir, "fresh-")) });
        const reread = swcCache.createCompiler({ cacheDir: cache });
        for (const f of ["main.ts", ...Array.from({ length: 8 }, (_, i) => `m${i}.ts`)]) {
            const source = fs.readFileSync(path.join(dir, f), "utf8");
            expect(reread.compile(path.join(dir, f), source), f).to.equal(fresh.compile(path.join(dir, f), source));
        }
        expect(reread.stats).to.deep.equal({ hits: 9, compiled: 0 });
        expect(
            execFileSync(process.execPath, [RUN, path.join(dir, "main.ts")], {
                env: { ...process.env, EKS_PLATFORM_CACHE_DIR: cache },
            }).toString(),
        ).to.equal(expected);
    });

    it("gives the offline plan of dev (JSON) exactly as ts-node does: stdout, stderr, exit code", async () => {
        const [viaTsNode, cold] = await Promise.all([
            runTool("plan.ts", ["dev", "--format", "json"]),
            launch([path.join("tools", "render", "plan.ts"), "dev", "--format", "json"], cache),
        ]);
        const warm = await launch([path.join("tools", "render", "plan.ts"), "dev", "--format", "json"], cache);
        expect(viaTsNode.code).to.equal(0);
        expect(JSON.parse(viaTsNode.stdout)).to.have.property("resources").with.length.above(50);
        for (const [state, r] of [
            ["cold", cold],
            ["warm", warm],
        ] as const) {
            expect(r.stdout, state).to.equal(viaTsNode.stdout);
            expect(r.stderr, state).to.equal(viaTsNode.stderr);
            expect(r.code, state).to.equal(viaTsNode.code);
        }
    });

    it("exits as the tool does on bad input: the same message and code as under ts-node", async () => {
        const [viaTsNode, launched] = await Promise.all([
            runTool("plan.ts", ["nosuch"]),
            launch([path.join("tools", "render", "plan.ts"), "nosuch"], cache),
        ]);
        expect(viaTsNode.code).to.equal(2);
        expect(launched).to.deep.equal(viaTsNode);
    });
});
