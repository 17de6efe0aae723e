/**
 * The shape of rehearsal/ (issue 50): organised by mechanism, with no function over 100 lines. A
 * long function is split by meaning (a step of a drain, a phase of an update, a section of a
 * report), never by cutting. The check walks every module of rehearsal/ with the TypeScript
 * compiler API, and is shown to fail on synthetic sources.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { tsFiles } from "./importGraph";
import { ROOT } from "./mocks";

/** The most lines a function of rehearsal/ may take, from its first line (not its doc comment) to its last. */
const MAX_LINES = 100;

interface FunctionSpan {
    /** As declared or assigned: `drain`, `Cluster.clone`, `managedUpdate.replay`, `(anonymous)`. */
    name: string;
    line: number;
    lines: number;
}

/** `Class.` or `object.` for a member of a named class or of an object literal assigned to a name. */
function holderOf(member: ts.Node): string {
    const container = member.parent;
    if (ts.isClassLike(container) && container.name) {
        return `${container.name.text}.`;
    }
    if (ts.isObjectLiteralExpression(container) && ts.isVariableDeclaration(container.parent)) {
        return `${container.parent.name.getText()}.`;
    }
    return "";
}

/** The name a function-like node is declared with, or the name it is assigned to. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
    if (ts.isConstructorDeclaration(node)) {
        return `${holderOf(node)}constructor`;
    }
    if (node.name) {
        return `${holderOf(node)}${node.name.getText()}`;
    }
    const parent = node.parent;
    if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
        return `${ts.isVariableDeclaration(parent) ? "" : holderOf(parent)}${parent.name.getText()}`;
    }
    if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
        return parent.left.getText();
    }
    return "(anonymous)";
}

/**
 * Every function of a source with a body: declarations, methods, constructors, accessors, arrow
 * functions and function expressions (assigned to a name or not), with the lines each spans.
 */
function functionSpans(source: string, file: string): FunctionSpan[] {
    const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
    const out: FunctionSpan[] = [];
    const visit = (node: ts.Node) => {
        if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
            const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
            const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
            out.push({ name: nameOf(node), line: first + 1, lines: last - first + 1 });
        }
        ts.forEachChild(node, visit);
    };
    visit(sf);
    return out;
}

/** Each function of `source` over `limit` lines, as `file:line name (N lines)`. */
function overLimit(source: string, file: string, limit = MAX_LINES): string[] {
    return functionSpans(source, file)
        .filter((f) => f.lines > limit)
        .map((f) => `${file}:${f.line} ${f.name} (${f.lines} lines)`);
}

/** Every .ts file under rehearsal/, relative to the repository root, sorted. */
const rehearsalModules = (): string[] => tsFiles(ROOT, "rehearsal");

/** `function <name>() {…}` of `lines` lines in all. */
const fn = (name: string, lines: number) => `function ${name}() {\n${"    n++;\n".repeat(lines - 2)}}\n`;
const body = (lines: number) => `{\n${"        n++;\n".repeat(lines - 2)}    }`;

describe("rehearsal/: no function over 100 lines (issue 50)", () => {
    it("walks every module of rehearsal/, its rollout methods included, and every function in them", () => {
        const modules = rehearsalModules();
        // A walk that found nothing would pass vacuously.
        expect(modules).to.include.members([
            "rehearsal/index.ts",
            "rehearsal/drain.ts",
            "rehearsal/eviction.ts",
            "rehearsal/placement.ts",
            "rehearsal/rollouts/managedUpdate.ts",
            "rehearsal/rollouts/asgRefresh.ts",
            "rehearsal/rollouts/karpenterDrift.ts",
            "rehearsal/rollouts/autoModeExpiry.ts",
        ]);
        const spans = modules.flatMap((m) => functionSpans(fs.readFileSync(path.join(ROOT, m), "utf8"), m));
        expect(spans.length).to.be.greaterThan(150);
        expect(spans.map((s) => s.name)).to.include.members(["rehearse", "readCluster", "Rollout.closeWave", "managedUpdate.appliesTo"]);
    });

    it("finds no function over 100 lines in rehearsal/", () => {
        const over = rehearsalModules().flatMap((m) => overLimit(fs.readFileSync(path.join(ROOT, m), "utf8"), m));
        expect(over, `split by meaning:\n${over.join("\n")}`).to.deep.equal([]);
    });

    it("fails naming each function over 100 lines, whatever its form; 100 lines pass (so the check above can fail)", () => {
        const source = [
            fn("fits", 100),
            "/** A doc comment is not counted. */",
            fn("declared", 101),
            `const arrow = () => ${body(101)};`,
            `const table = { method() ${body(101)}, assigned: function () ${body(101)} };`,
            `class Drain {\n    constructor() ${body(101)}\n    get slowest() ${body(101)}\n    run() ${body(100)}\n}`,
            `exported.handler = (x: number) => ${body(102)};`,
            `[1].map((x) => ${body(101)});`,
        ].join("\n");
        const over = overLimit(source, "x.ts");
        expect(over.map((o) => o.replace(/^x\.ts:\d+ /, ""))).to.deep.equal([
            "declared (101 lines)",
            "arrow (101 lines)",
            "table.method (101 lines)",
            "table.assigned (101 lines)",
            "Drain.constructor (101 lines)",
            "Drain.slowest (101 lines)",
            "exported.handler (102 lines)",
            "(anonymous) (101 lines)",
        ]);
        // Each is named at its first line: `declared` comes after the 100 lines of `fits`, an empty line and its doc comment.
        expect(over[0]).to.equal("x.ts:103 declared (101 lines)");
        expect(overLimit(fn("long", 150), "y.ts", 149)).to.deep.equal(["y.ts:1 long (150 lines)"]);
        expect(overLimit(fn("long", 150), "y.ts", 150)).to.deep.equal([]);
    });
});
