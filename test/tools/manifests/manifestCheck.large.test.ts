// One manifest file holding more objects than a function call takes arguments: a 50 MB manifest
// holds about 130 000 objects, and `push(...objects)` overflowed the call stack ("Maximum call
// stack size exceeded", exit 2) past about 125 000 on Node's default stack. The command runs here
// with a smaller stack (`--stack-size`), so a file of 14 000 small objects crosses the same line
// in seconds instead of minutes.
import { expect } from "chai";
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ROOT } from "../../mocks";

const STACK_KB = 100;
const OBJECTS = 14_000;

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
        execFile(
            process.execPath,
            args,
            { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, TS_NODE_PROJECT: path.join(ROOT, "tsconfig.json") } },
            (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
        );
    });
}

describe("manifest check: one file with more objects than a call takes arguments", function () {
    this.timeout(240_000);
    let dir: string;
    before(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "large-manifest-"));
        const docs: string[] = [];
        for (let i = 0; i < OBJECTS; i++) {
            docs.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\n  namespace: apps\ndata:\n  key: value\n`);
        }
        fs.writeFileSync(path.join(dir, "many.yaml"), docs.join("---\n"));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it(`the stack of --stack-size=${STACK_KB} cannot take ${OBJECTS} arguments (what makes the check below bite)`, async () => {
        const r = await run([`--stack-size=${STACK_KB}`, "-e", `[].push(...new Array(${OBJECTS}).fill(0))`]);
        expect(r.code).to.not.equal(0);
        expect(r.stderr).to.include("Maximum call stack size exceeded");
    });

    it("policy:check reads, validates and judges them all and exits 0", async () => {
        const file = path.join(dir, "many.yaml");
        const r = await run([
            `--stack-size=${STACK_KB}`,
            "-r",
            "ts-node/register/transpile-only",
            path.join(ROOT, "tools", "manifests", "policyCheck.ts"),
            "--format",
            "json",
            file,
        ]);
        expect(r.code, r.stderr).to.equal(0);
        expect(JSON.parse(r.stdout)).to.deep.equal({ formatVersion: 1, violations: [], unvalidated: [] });
    });
});
