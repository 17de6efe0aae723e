import { expect } from "chai";
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { PROJECT } from "../../../components/config";
import type { DiffReport } from "../../../tools/changes/diffStack";
import { CliResult, ROOT } from "../../mocks";
import { git, stackConfig, stacks, workingTreeCopy } from "../../stackFiles";

/** The first stack whose Karpenter section defines a NodePool. */
function stackWithPools(): string {
    const stack = stacks().find((s) => {
        const { karpenter } = stackConfig(s);
        return karpenter.enabled && Object.keys(karpenter.nodePools).length > 0;
    });
    if (stack === undefined) {
        throw new Error("no stack defines a Karpenter NodePool");
    }
    return stack;
}

/** Runs the repository's own plan CLI inside `cwd`, as `npm run plan` does there. */
function plan(cwd: string, args: string[]): Promise<CliResult> {
    return new Promise((resolve) => {
        execFile(
            process.execPath,
            ["-r", "ts-node/register/transpile-only", path.join(cwd, "tools", "render", "plan.ts"), ...args],
            { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, TS_NODE_PROJECT: path.join(cwd, "tsconfig.json") } },
            (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
        );
    });
}

describe("npm run plan -- <stack> --diff <ref>, in a fresh repository", function () {
    this.timeout(600_000);
    const stack = stackWithPools();
    const file = `Pulumi.${stack}.yaml`;
    let repo: string;
    let original: string;

    before(() => {
        repo = workingTreeCopy("plan-diff-repo-");
        original = fs.readFileSync(path.join(repo, file), "utf8");
        // The base commit runs one more NodePool, a copy of the first under another name.
        const doc = YAML.parseDocument(original);
        const pools = doc.getIn(["config", `${PROJECT}:karpenter`, "nodePools"]) as YAML.YAMLMap;
        const first = pools.items[0].value as YAML.Node;
        pools.set("retiring", first.clone());
        fs.writeFileSync(path.join(repo, file), doc.toString());
        git(repo, "init", "--quiet", "--initial-branch=main");
        git(repo, "add", "--all");
        git(repo, "commit", "--quiet", "-m", "base: two pools");
        fs.writeFileSync(path.join(repo, file), original);
        git(repo, "commit", "--quiet", "--all", "-m", "retire a NodePool");
        // What `npm ci` leaves in a clone: the installed dependencies, untracked.
        fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(repo, "node_modules"), "dir");
    });

    after(() => fs.rmSync(repo, { recursive: true, force: true }));

    it("flags the deleted NodePool as a drain of all its nodes at once", async () => {
        const result = await plan(repo, [stack, "--diff", "HEAD~1"]);
        expect(result.code, result.stderr).to.equal(0);
        const lines = result.stdout.split("\n");
        expect(lines[0]).to.match(new RegExp(`^Diff of stack "${stack}": HEAD~1 \\([0-9a-f]{12}\\) → working tree$`));
        expect(lines[1]).to.match(/^DISRUPTIVE: 1 node drains — 0 to create, 0 to update, 0 to replace, 1 to delete$/);
        expect(result.stdout).to.match(
            /! \[drain\] kubernetes:karpenter\.sh\/v1:NodePool \S*retiring: deleted: drains every node of the pool/,
        );
        expect(result.stdout).to.include("docs/karpenter.md#removing-or-renaming-a-nodepool");
    });

    it("shows only creates for a commit that onboards a namespace, the same as JSON", async () => {
        const doc = YAML.parseDocument(original);
        const namespaces = doc.getIn(["config", `${PROJECT}:namespaces`]) as YAML.YAMLMap;
        const team = (namespaces.items[0].value as YAML.YAMLMap).clone() as YAML.YAMLMap;
        const deployer = String(doc.getIn(["config", `${PROJECT}:access`, "deployer"]));
        team.set("editors", [deployer.replace(/role\/.+$/, "role/onboarded-editors")]);
        team.set("viewers", []);
        namespaces.set("onboarded", team);
        fs.writeFileSync(path.join(repo, file), doc.toString());
        git(repo, "commit", "--quiet", "--all", "-m", "onboard a namespace");
        const result = await plan(repo, [stack, "--diff", "HEAD~1", "--format", "json"]);
        expect(result.code, result.stderr).to.equal(0);
        const report = JSON.parse(result.stdout) as DiffReport;
        expect(report.counts.create).to.be.greaterThan(0);
        expect(report.counts).to.deep.include({ update: 0, replace: 0, delete: 0 });
        expect(report.disruptions).to.deep.equal([]);
        expect(report.changes.map((c) => c.type)).to.include.members(["kubernetes:core/v1:Namespace", "aws:eks/accessEntry:AccessEntry"]);
    });

    it("exits 2 naming the ref when it does not exist", async () => {
        const result = await plan(repo, [stack, "--diff", "no-such-ref"]);
        expect(result.code).to.equal(2);
        expect(result.stderr).to.match(/no-such-ref is not a commit here: fetch it first/);
    });
});
