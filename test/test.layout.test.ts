// The test tree mirrors the source tree: test/<path>.test.ts tests <path>.ts (or <path>.js, <path>.mjs, or the
// folder <path>/), and a module with several test files names the aspect before .test.ts:
// test/<path>.<aspect>.test.ts. So the whole-stack tests, which test index.ts over every stack file,
// are test/index.test.ts and test/index.<aspect>.test.ts, and this file is the layout aspect of the
// folder test/. Helpers (mocks.ts, stackFiles.ts, fixtures/, test/policies/harness.ts, …) are not
// test files and are not checked.
//
// Two named exceptions: test/workflows.test.ts tests .github/workflows/, a path it cannot mirror,
// since mocha's spec glob skips dot-folders and test/.github/workflows.test.ts would never run; and
// test/renovate.test.ts tests renovate.json, which has no module to name.
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { tsFiles } from "./importGraph";
import { ROOT } from "./mocks";

/** Test files whose path cannot name what they test, and what they test instead. */
const EXCEPTIONS: Readonly<Record<string, string>> = {
    "test/workflows.test.ts": ".github/workflows/",
    "test/renovate.test.ts": "renovate.json",
};

/** Every *.test.ts under test/, relative to the repository root, sorted. */
const testFiles = (): string[] => tsFiles(ROOT, "test").filter((f) => f.endsWith(".test.ts"));

/** Whether a repository path exists: a folder when it ends with `/`, otherwise a file. */
function exists(rel: string): boolean {
    const full = path.join(ROOT, rel);
    return rel.endsWith("/") ? fs.statSync(full, { throwIfNoEntry: false })?.isDirectory() === true : fs.existsSync(full);
}

/**
 * The problem with a test file's path, or undefined when it names what it tests: the paths it
 * could name are <path>.ts, <path>.js, <path>.mjs and <path>/, for <path> with and without one `.<aspect>`.
 */
function layoutProblem(file: string, exceptions: Readonly<Record<string, string>> = EXCEPTIONS): string | undefined {
    if (file in exceptions) {
        return undefined;
    }
    const stem = file.replace(/^test\//, "").replace(/\.test\.ts$/, "");
    if (stem.split("/").some((segment) => segment.startsWith("."))) {
        return `${file}: is in a dot-folder, which mocha's spec glob (test/**/*.test.ts) skips: it never runs`;
    }
    const dot = stem.lastIndexOf(".");
    const paths = dot > stem.lastIndexOf("/") ? [stem, stem.slice(0, dot)] : [stem];
    const tried = paths.flatMap((p) => [`${p}.ts`, `${p}.js`, `${p}.mjs`, `${p}/`]);
    return tried.some(exists)
        ? undefined
        : `${file}: names no source file or folder (none of ${tried.join(", ")}); test/<path>.test.ts tests <path>.ts, <path>.js, <path>.mjs or <path>/, and test/<path>.<aspect>.test.ts one aspect of it`;
}

describe("test/: every test file's path names what it tests (test/<path>[.<aspect>].test.ts)", () => {
    it("names a source file or folder for every test file under test/", () => {
        const files = testFiles();
        // A walk that found nothing would pass vacuously.
        expect(files.length).to.be.greaterThan(50);
        expect(files).to.include.members(["test/test.layout.test.ts", "test/components/karpenter/aws.test.ts"]);
        expect(files.map((f) => layoutProblem(f)).filter(Boolean)).to.deep.equal([]);
    });

    it("keeps its exception current: the test file exists and so does the folder it tests", () => {
        for (const [file, subject] of Object.entries(EXCEPTIONS)) {
            expect(exists(file), file).to.equal(true);
            expect(exists(subject), subject).to.equal(true);
            // Without the exception, the check would name it.
            expect(layoutProblem(file, {}), file).to.match(/names no source file or folder/);
        }
    });

    it("admits each form: a module, a .js, an .mjs, a folder, an index, one aspect", () => {
        for (const file of [
            "test/components/karpenter/aws.test.ts",
            "test/tools/cli/run.test.ts",
            "test/kernel/quantity.test.ts",
            "test/eslint.boundaries.test.ts",
            "test/tools.test.ts",
            "test/rehearsal/index.test.ts",
            "test/index.addons.test.ts",
            "test/policies/policies.scale.test.ts",
            "test/policies/index.cliRunner.test.ts",
            "test/test.layout.test.ts",
        ]) {
            expect(layoutProblem(file), file).to.equal(undefined);
        }
    });

    it("fails naming each test file whose path names nothing (so the first check can fail)", () => {
        const fakes = [
            "test/karpenterAws.test.ts", // a flat name of old: components/karpenter/aws.ts lives elsewhere
            "test/components/nothing.test.ts", // no such module
            "test/kernel/quantity.exact.more.test.ts", // one aspect only
            "test/policies/lib.test.ts", // a module that does not exist
            "test/.github/workflows.test.ts", // mocha never runs it
        ];
        const problems = fakes.map((f) => layoutProblem(f));
        expect(problems.every(Boolean), problems.join("\n")).to.equal(true);
        expect(problems[0]).to.equal(
            "test/karpenterAws.test.ts: names no source file or folder (none of karpenterAws.ts, karpenterAws.js, karpenterAws.mjs, karpenterAws/); test/<path>.test.ts tests <path>.ts, <path>.js, <path>.mjs or <path>/, and test/<path>.<aspect>.test.ts one aspect of it",
        );
        expect(problems[2]).to.include("kernel/quantity.exact.more.ts").and.include("kernel/quantity.exact.ts");
        expect(problems[4]).to.match(/dot-folder.*never runs/);
    });
});
