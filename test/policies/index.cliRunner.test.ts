import { expect } from "chai";
import { spawn } from "child_process";
import * as path from "path";
import { ROOT } from "../mocks";

/**
 * Starts the pack the way `pulumi preview --policy-pack policies` does: the SDK's policy-pack
 * runner, which registers ts-node with `typeCheck: true` and the pack's own tsconfig. Resolves
 * with the first line it prints (the analyzer's port) or rejects with what it wrote to stderr.
 */
function startWithCliRunner(packDir: string): Promise<string> {
    const runner = path.join(ROOT, "node_modules", "@pulumi", "pulumi", "cmd", "run-policy-pack");
    return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [runner, "127.0.0.1:0", "."], { cwd: packDir, stdio: ["ignore", "pipe", "pipe"] });
        let out = "";
        let err = "";
        child.stdout.on("data", (d: Buffer) => {
            out += d.toString();
            if (out.includes("\n")) {
                child.kill();
                resolve(out.split("\n")[0].trim());
            }
        });
        child.stderr.on("data", (d: Buffer) => (err += d.toString()));
        child.on("exit", (code) => reject(new Error(`the runner exited (code ${code}) before serving:\n${err}`)));
    });
}

describe("policy pack under the Pulumi CLI's own policy runner", function () {
    this.timeout(120_000);

    it("type-checks, loads and serves (ts-node with typeCheck: true; swc stays off for the pack)", async () => {
        const first = await startWithCliRunner(path.join(ROOT, "policies"));
        expect(first).to.match(/^\d+$/);
    });
});
