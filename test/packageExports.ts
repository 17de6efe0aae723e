/**
 * What a workspace package exports and who imports it (issue 50: a package exports only what
 * another package uses), read with the TypeScript compiler API: the names its entry point exports,
 * as the checker resolves `export *` chains and re-exports (types included), and the names each
 * file of the repository outside the package imports from it by package name.
 *
 * An import is counted when it is static: `import { a, type B }`, `export { a } from`, a namespace
 * import's `ns.a`, and `import("…").A` in a type. Anything else (`require`, a dynamic `import()`)
 * is not counted, so a name used only that way is reported unused: the check errs towards failing.
 */
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { ROOT } from "./mocks";

/** A workspace package: its folder, its name and its entry point (the exports map's "."), from its package.json. */
export interface WorkspacePackage {
    readonly dir: string;
    readonly name: string;
    readonly entry: string;
}

/** The workspace package in `dir`, as its package.json names it. */
export function workspacePackage(dir: string): WorkspacePackage {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, dir, "package.json"), "utf8")) as {
        name: string;
        exports: Record<string, string>;
    };
    return { dir, name: manifest.name, entry: path.posix.join(dir, manifest.exports["."]) };
}

/** The workspace packages of the repository, as the root package.json lists them. */
function workspacePackages(): WorkspacePackage[] {
    const root = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { workspaces: string[] };
    return root.workspaces.map(workspacePackage);
}

let compiled: { program: ts.Program; checker: ts.TypeChecker } | undefined;

/**
 * The names `pkg`'s entry point exports, values and types, sorted. One program holds the modules
 * of every workspace package and nothing else (`noResolve`): an entry's exports never come from
 * a dependency's declarations, and leaving those out keeps this about a second instead of six.
 * An `export *` the program cannot follow throws rather than hiding the names behind it.
 */
export function exportedNames(pkg: WorkspacePackage): string[] {
    if (!compiled) {
        const { config } = ts.readConfigFile(path.join(ROOT, "tsconfig.json"), (f) => ts.sys.readFile(f));
        const { options } = ts.convertCompilerOptionsFromJson((config as { compilerOptions: object }).compilerOptions, ROOT);
        const modules = workspacePackages().flatMap((p) => sourceFiles(p.dir).filter((f) => f.endsWith(".ts")));
        const program = ts.createProgram(
            modules.map((f) => path.join(ROOT, f)),
            { ...options, types: [], noLib: true, noResolve: true, noEmit: true },
        );
        compiled = { program, checker: program.getTypeChecker() };
    }
    const { program, checker } = compiled;
    const source = program.getSourceFile(path.join(ROOT, pkg.entry));
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) {
        throw new Error(`${pkg.entry}: not a module the compiler can read`);
    }
    for (const file of program.getSourceFiles().filter((f) => f.fileName.startsWith(path.join(ROOT, pkg.dir) + path.sep))) {
        for (const statement of file.statements) {
            if (ts.isExportDeclaration(statement) && !statement.exportClause && statement.moduleSpecifier) {
                if (!checker.getSymbolAtLocation(statement.moduleSpecifier)) {
                    throw new Error(`${file.fileName}: cannot follow ${statement.getText()}`);
                }
            }
        }
    }
    return checker
        .getExportsOfModule(module)
        .map((s) => s.name)
        .sort();
}

/** The names `source` (a module's text) imports from the module `specifier`: named imports and re-exports, a namespace import's members. */
export function importedNames(source: string, specifier: string, fileName = "file.ts"): string[] {
    const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true);
    const names = new Set<string>();
    const namespaces = new Set<string>();
    const named = (elements: readonly (ts.ImportSpecifier | ts.ExportSpecifier)[]) =>
        elements.forEach((e) => names.add((e.propertyName ?? e.name).text));
    const visit = (node: ts.Node): void => {
        if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
            if (ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text === specifier) {
                const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
                if (bindings && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings))) {
                    named(bindings.elements);
                } else if (bindings && ts.isNamespaceImport(bindings)) {
                    namespaces.add(bindings.name.text);
                }
            }
        } else if (ts.isImportTypeNode(node) && node.qualifier) {
            const arg = node.argument;
            if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal) && arg.literal.text === specifier) {
                names.add(ts.isIdentifier(node.qualifier) ? node.qualifier.text : leftmost(node.qualifier));
            }
        } else if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && namespaces.has(node.expression.text)) {
            names.add(node.name.text);
        } else if (ts.isQualifiedName(node) && ts.isIdentifier(node.left) && namespaces.has(node.left.text)) {
            names.add(node.right.text);
        }
        ts.forEachChild(node, visit);
    };
    visit(file);
    return [...names].sort();
}

/** The first name of `a.b.c`: `a`. */
function leftmost(name: ts.EntityName): string {
    return ts.isIdentifier(name) ? name.text : leftmost(name.left);
}

/** Text files of the repository a module may be written in, outside node_modules/, bin/ and dot-folders. */
function sourceFiles(dir = ""): string[] {
    const found: string[] = [];
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const rel = dir ? `${dir}/${entry.name}` : entry.name;
        if (entry.isDirectory() && !["node_modules", "bin"].includes(entry.name) && !entry.name.startsWith(".")) {
            found.push(...sourceFiles(rel));
        } else if (entry.isFile() && /\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name)) {
            found.push(rel);
        }
    }
    return found;
}

/** Each name imported from `pkg` by package name, and the files outside `pkg.dir` that import it. */
export function importsFromOutside(pkg: WorkspacePackage, files: readonly string[] = sourceFiles()): Map<string, string[]> {
    const importers = new Map<string, string[]>();
    for (const file of files.filter((f) => !f.startsWith(`${pkg.dir}/`))) {
        const text = fs.readFileSync(path.join(ROOT, file), "utf8");
        if (!text.includes(pkg.name)) {
            continue; // most files: no need to parse
        }
        for (const name of importedNames(text, pkg.name, file)) {
            importers.set(name, [...(importers.get(name) ?? []), file]);
        }
    }
    return importers;
}

/** The names `exported` that no file imports (`importers` as importsFromOutside returns them). */
export function unimported(exported: readonly string[], importers: ReadonlyMap<string, readonly string[]>): string[] {
    return exported.filter((name) => (importers.get(name) ?? []).length === 0);
}
