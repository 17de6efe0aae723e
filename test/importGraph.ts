/**
 * The import graph of a set of TypeScript modules, for the tests that hold a folder's layering
 * (test/tools.test.ts, test/components.layering.test.ts). Imports are read with TypeScript's own
 * scanner (`ts.preProcessFile`), so type-only imports, `export … from` and `import("…")` types count
 * as edges: a cycle through types alone still ties the modules together. Not a test file.
 */
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

/** What one module imports: modules by repository path (resolved), and packages by name. */
export interface ModuleImports {
    /** Relative imports, as `/`-separated paths from the root: `<p>.ts` or `<p>/index.ts` when that module is in the set, else the path as written (a JSON file). */
    local: string[];
    /** Every other specifier: a package (`zod`, `@pulumi/aws`), a subpath of one, or a Node built-in. */
    packages: string[];
}

/** Every `.ts` file under `dir` (a `/`-separated path from `root`, node_modules/ aside), as paths from `root`, sorted. */
export function tsFiles(root: string, dir: string): string[] {
    const found: string[] = [];
    const walk = (rel: string) => {
        for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
            const child = `${rel}/${entry.name}`;
            if (entry.isDirectory() && entry.name !== "node_modules") {
                walk(child);
            } else if (entry.name.endsWith(".ts")) {
                found.push(child);
            }
        }
    };
    walk(dir);
    return found.sort();
}

/** The imports of each of `files` (paths from the root), each read by `read`; duplicates dropped, order kept. */
export function readImports(files: readonly string[], read: (file: string) => string): Map<string, ModuleImports> {
    const set = new Set(files);
    const imports = new Map<string, ModuleImports>();
    for (const file of files) {
        const local: string[] = [];
        const packages: string[] = [];
        for (const { fileName } of ts.preProcessFile(read(file), true, true).importedFiles) {
            if (!fileName.startsWith(".")) {
                packages.push(fileName);
                continue;
            }
            const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), fileName));
            local.push([`${target}.ts`, `${target}/index.ts`].find((candidate) => set.has(candidate)) ?? target);
        }
        imports.set(file, { local: [...new Set(local)], packages: [...new Set(packages)] });
    }
    return imports;
}

/** The modules of `files` under `root`, each with the modules of the set it imports. */
export function importGraph(root: string, files: readonly string[]): Map<string, string[]> {
    const set = new Set(files);
    const imports = readImports(files, (file) => fs.readFileSync(path.join(root, file), "utf8"));
    return new Map([...imports].map(([file, { local }]) => [file, local.filter((target) => set.has(target))]));
}

/** A cycle of the graph as the path that closes it (`a → b → a`), or undefined. */
export function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
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
