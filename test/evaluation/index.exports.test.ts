// evaluation/index.ts as a package's entry point (issue 50): every name it exports, types
// included, is imported by name by some file outside evaluation/ (the pack, the rehearsal, the
// tools, the tests); a name only the library itself uses stays unexported. How imports are
// counted is tested with the kernel's entry (test/kernel/index.exports.test.ts).
import { expect } from "chai";
import { exportedNames, importsFromOutside, unimported, workspacePackage } from "../packageExports";

describe("evaluation/index.ts: exports only what other packages import", () => {
    const evaluation = workspacePackage("evaluation");
    let exported: string[];
    let importers: Map<string, string[]>;
    before(() => {
        exported = exportedNames(evaluation);
        importers = importsFromOutside(evaluation);
    });

    it("exports no name that no file outside evaluation/ imports", () => {
        expect(unimported(exported, importers)).to.deep.equal([]);
    });

    it("reads the real exports and imports (an empty side would pass vacuously)", () => {
        expect(exported.length).to.be.greaterThan(50);
        // Its own names, a type, and a name it re-exports from the kernel.
        expect(exported).to.include.members(["readPdbs", "Verdicts", "Pdb", "violation"]);
        expect(importers.get("Verdicts")).to.include("policies/drainWindow.ts");
        expect(importers.get("Pdb")).to.include("policies/pdbAllowsDisruption.ts");
    });

    it("the check can fail: an exported name whose importers are gone is named", () => {
        const gone = new Map(importers);
        gone.delete("readPdbs");
        expect(unimported(exported, gone)).to.deep.equal(["readPdbs"]);
    });
});
