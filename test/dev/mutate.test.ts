import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { ROOT } from "../mocks";
import { matchesGlob, MUTATION_MODULES, parseMutateArgs, strykerOptions } from "../../dev/mutate";

/** The files a module glob names. */
function expand(glob: string): string[] {
    const dir = path.posix.dirname(glob);
    if (!fs.existsSync(path.join(ROOT, dir))) {
        return [];
    }
    return fs
        .readdirSync(path.join(ROOT, dir))
        .map((f) => `${dir}/${f}`)
        .filter((f) => matchesGlob(f, glob));
}

describe("dev/mutate.ts: mutation testing per module", () => {
    for (const [name, m] of Object.entries(MUTATION_MODULES)) {
        it(`${name}: every source glob and test glob names files that exist`, () => {
            for (const glob of [...m.mutate, ...m.tests]) {
                expect(expand(glob), `${name}: ${glob}`).to.not.be.empty;
            }
            for (const glob of m.tests) {
                expect(
                    expand(glob).every((f) => f.endsWith(".test.ts")),
                    `${name}: ${glob} names test files only`,
                ).to.equal(true);
            }
        });
    }

    it("mutates in place (the workspace packages are symlinks a sandbox copy would bypass), incrementally unless --full", () => {
        const incremental = strykerOptions("rehearsal", parseMutateArgs(["rehearsal"]));
        expect(incremental).to.include({
            inPlace: true,
            incremental: true,
            incrementalFile: "reports/mutation/rehearsal.json",
            concurrency: 1,
        });
        const full = strykerOptions("diff", parseMutateArgs(["diff", "--full", "--concurrency", "2"]));
        expect(full).to.include({ incremental: false, concurrency: 2 });
        expect((full.mochaOptions as { spec: string[] }).spec).to.deep.equal(MUTATION_MODULES.diff.tests);
        expect(full.mutate).to.deep.equal(MUTATION_MODULES.diff.mutate);
    });

    it("--check adds the TypeScript checker; --only mutates one file of the module, with its line range", () => {
        expect(strykerOptions("diff", parseMutateArgs(["diff"])).checkers).to.deep.equal([]);
        expect(strykerOptions("diff", parseMutateArgs(["diff", "--check"])).checkers).to.deep.equal(["typescript"]);
        const only = strykerOptions("rehearsal", parseMutateArgs(["rehearsal", "--only", "rehearsal/rollout.ts:10-40"]));
        expect(only.mutate).to.deep.equal(["rehearsal/rollout.ts:10-40"]);
        expect(() => parseMutateArgs(["rehearsal", "--only", "tools/changes/diff.ts"])).to.throw(/not a file of module rehearsal/);
        expect(() => parseMutateArgs(["rehearsal", "--only", "rehearsal/sub/x.ts"])).to.throw(/not a file of module rehearsal/);
        // The rollout methods are files of the module too (rehearsal/rollouts/), nothing deeper.
        expect(parseMutateArgs(["rehearsal", "--only", "rehearsal/rollouts/karpenterDrift.ts:5-9"]).only).to.equal(
            "rehearsal/rollouts/karpenterDrift.ts:5-9",
        );
        expect(() => parseMutateArgs(["rehearsal", "--only", "rehearsal/rollouts/sub/x.ts"])).to.throw(/not a file of module rehearsal/);
    });

    it("refuses an unknown module, no module, two modules and a bad concurrency, naming the modules", () => {
        expect(() => parseMutateArgs(["rehersal"])).to.throw(/unknown module "rehersal"[\s\S]*rehearsal /);
        expect(() => parseMutateArgs([])).to.throw(/name one module/);
        expect(() => parseMutateArgs(["diff", "rehearsal"])).to.throw(/name one module/);
        expect(() => parseMutateArgs(["diff", "--concurrency", "0"])).to.throw(/at least 1, not "0"/);
        expect(() => parseMutateArgs(["diff", "--concurrency", "1.5"])).to.throw(/at least 1/);
    });
});
