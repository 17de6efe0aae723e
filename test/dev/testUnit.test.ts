/**
 * dev/testUnit.js (`npm run test:unit -- <path>`): the inner loop runs only the tests of the paths
 * given, with the suite's settings; without a path, the whole suite. Mocha's `--dry-run` lists
 * what would run without running it.
 */
import { expect } from "chai";
import { execFileSync, spawnSync } from "child_process";
import * as path from "path";
import { ROOT } from "../mocks";

const SCRIPT = path.join(ROOT, "dev", "testUnit.js");

/** The test files `npm run test:unit -- <args>` would run, each once, sorted. */
function filesOf(...args: string[]): string[] {
    const out = execFileSync(process.execPath, [SCRIPT, ...args, "--dry-run", "--reporter", "json"], {
        cwd: ROOT,
        maxBuffer: 256 * 1024 * 1024,
    }).toString();
    const report = JSON.parse(out) as { tests: { file: string }[] };
    return [...new Set(report.tests.map((t) => path.relative(ROOT, t.file)))].sort();
}

describe("npm run test:unit -- <path>: the inner loop (dev/testUnit.js)", function () {
    this.timeout(120_000);

    it("a test file: that file only", () => {
        expect(filesOf("test/kernel/selector.test.ts")).to.deep.equal(["test/kernel/selector.test.ts"]);
    });

    it("a folder: every test file under it, and nothing else", () => {
        const files = filesOf("test/tools/ci");
        expect(files.length).to.be.greaterThan(1);
        expect(files.every((f) => f.startsWith("test/tools/ci/"))).to.equal(true);
    });

    it("a source file: its test and its aspects' tests", () => {
        expect(filesOf("tools/ci/runners.ts")).to.deep.equal(["test/tools/ci/runners.command.test.ts", "test/tools/ci/runners.test.ts"]);
    });

    it("a source file without a test: exit 2, naming the test files it looked for", () => {
        const r = spawnSync(process.execPath, [SCRIPT, "tools/ci/ciNames.ts"], { cwd: ROOT });
        expect(r.status).to.equal(2);
        expect(r.stderr.toString()).to.include("expected test/tools/ci/ciNames.test.ts or test/tools/ci/ciNames.<aspect>.test.ts");
    });

    it("no path: the whole suite, as .mocharc.json lists it", () => {
        const files = filesOf();
        expect(files.length).to.be.greaterThan(100);
        expect(files).to.include.members(["test/kernel/selector.test.ts", "test/tools.test.ts"]);
    });
});
