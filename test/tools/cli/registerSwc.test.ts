import { expect } from "chai";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { ROOT } from "../../mocks";

describe("the offline pack's preload (tools/cli/registerSwc.js)", () => {
    const probe = (script: string) =>
        JSON.parse(
            execFileSync(process.execPath, ["-r", path.join(ROOT, "tools", "cli", "registerSwc.js"), "-e", script], {
                cwd: path.join(ROOT, "policies"),
                encoding: "utf8",
            }),
        ) as Record<string, unknown>;

    it("boots @pulumi/policy without the Automation API or the closure serializer, which still work when used", () => {
        const seen = probe(`
            require("@pulumi/policy");
            const loaded = (m) => Object.keys(require.cache).some((k) => k.includes(m));
            const atBoot = { arborist: loaded("@npmcli/arborist"), typescript: loaded("/typescript/lib/typescript.js") };
            const p = require("@pulumi/pulumi");
            const workspace = p.automation.LocalWorkspace;
            console.log(JSON.stringify({
                ...atBoot,
                workspaceIsClass: typeof workspace === "function" && /^class /.test(String(workspace)),
                codePaths: typeof p.runtime.computeCodePaths,
                automationAfterUse: loaded("automation/localWorkspace"),
            }));
        `);
        expect(seen).to.deep.equal({
            arborist: false,
            typescript: false,
            workspaceIsClass: true,
            codePaths: "function",
            automationAfterUse: true,
        });
    });

    it("compiles the pack's TypeScript and maps stack traces to .ts lines", () => {
        const seen = probe(`
            const { memoizeStructConversion } = require("./runtime/packRuntime.ts");
            let line;
            try { memoizeStructConversion({ deserializeProperties: undefined }); } catch (err) { line = parseInt(err.stack.split("packRuntime.ts:")[1], 10); }
            console.log(JSON.stringify({ installed: typeof memoizeStructConversion, line: Number(line) }));
        `);
        expect(seen.installed).to.equal("function");
        // The line of the TypeScript source that reads the undefined member, not of swc's output.
        const source = fs.readFileSync(path.join(ROOT, "policies", "runtime", "packRuntime.ts"), "utf8").split("\n");
        expect(seen.line).to.equal(source.findIndex((l) => l.includes("if (deserialize[MEMOIZED])")) + 1);
    });
});
