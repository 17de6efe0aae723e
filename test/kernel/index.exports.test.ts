// kernel/index.ts as a package's entry point (issue 50): every name it exports, types included,
// is imported by name by some file outside kernel/ (the program, the evaluation library, the
// rehearsal, the pack, the tools, the tests); a name only the kernel itself uses stays unexported.
import { expect } from "chai";
import { exportedNames, importedNames, importsFromOutside, unimported, workspacePackage } from "../packageExports";

describe("kernel/index.ts: exports only what other packages import", () => {
    const kernel = workspacePackage("kernel");
    let exported: string[];
    let importers: Map<string, string[]>;
    before(() => {
        exported = exportedNames(kernel);
        importers = importsFromOutside(kernel);
    });

    it("exports no name that no file outside kernel/ imports", () => {
        expect(unimported(exported, importers)).to.deep.equal([]);
    });

    it("reads the real exports and imports (an empty side would pass vacuously)", () => {
        expect(exported.length).to.be.greaterThan(100);
        expect(exported).to.include.members(["parseQuantity", "violation", "Taint", "Cidr"]);
        expect(importers.get("parseCidr")).to.include("components/network.schema.ts");
        expect(importers.get("Taint")).to.include("components/nodegroups/common.schema.ts");
        // Another package is outside: the evaluation library builds on the kernel.
        expect(importers.get("asArray")).to.include("evaluation/stack.ts");
    });

    it("the check can fail: an exported name whose importers are gone is named", () => {
        const gone = new Map(importers);
        gone.delete("parseCidr");
        expect(unimported(exported, gone)).to.deep.equal(["parseCidr"]);
    });

    it("counts no file of the package itself", () => {
        // Taken as if evaluation/ were the package's folder, evaluation/stack.ts's imports of the kernel do not count.
        const inside = importsFromOutside({ ...kernel, dir: "evaluation" }, ["evaluation/stack.ts", "components/network.schema.ts"]);
        expect(inside.get("asArray")).to.equal(undefined);
        expect(inside.get("parseCidr")).to.deep.equal(["components/network.schema.ts"]);
    });

    it("counts every static form of import: named, type-only, renamed, re-exported, a namespace's members, import types", () => {
        const source = [
            'import { a, type B, c as d } from "eks-platform-kernel";',
            'import type { E } from "eks-platform-kernel";',
            'export { f } from "eks-platform-kernel";',
            'import * as k from "eks-platform-kernel";',
            'import { z } from "eks-platform-kernel-other";',
            "const g = k.g;",
            "let h: k.H;",
            'let i: import("eks-platform-kernel").I.J;',
            'const y = require("eks-platform-kernel").y;',
        ].join("\n");
        // `require` is not counted: a name used only that way is reported, never hidden.
        expect(importedNames(source, "eks-platform-kernel")).to.deep.equal(["B", "E", "H", "I", "a", "c", "f", "g"]);
    });
});
