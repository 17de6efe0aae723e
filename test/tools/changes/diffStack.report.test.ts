/**
 * tools/changes/diffStack.ts in process, on a two-commit repository of its own and a stand-in renderer:
 * which tree each side renders, the report, the exit code. The real renders, in child processes,
 * are in diffStack.test.ts and diffStack.refused.test.ts.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import {
    diffCommand,
    DiffReport,
    diffStack,
    formatDiffMarkdown,
    formatDiffReport,
    Render,
    RenderError,
} from "../../../tools/changes/diffStack";
import { RecordedResource } from "../../../tools/render/offline";
import { ROOT } from "../../mocks";
import { git } from "../../stackFiles";

const KEY = "aws:kms/key:Key";
const key = (keyUsage: string): RecordedResource => ({
    type: KEY,
    name: "secrets",
    urn: `urn:pulumi:dev::eks-platform::${KEY}::secrets`,
    props: { keyUsage },
    options: { protect: true },
});

describe("tools/changes/diffStack.ts: the diff of a stack between a ref and the working tree", () => {
    let repo: string;
    let base: string;
    /** Each side's tree root and label, as the renderer saw them. */
    let calls: { root: string; stack: string; label: string; existed: boolean }[];
    /** Renders a tree by the `usage` file it holds: the key's usage at that side. */
    const render: Render = (root, stack, label) => {
        calls.push({ root, stack, label, existed: fs.existsSync(root) });
        return Promise.resolve([key(fs.readFileSync(path.join(root, "usage"), "utf8").trim())]);
    };
    /** `npm run plan -- <stack> --diff <ref> [--format <format>]` in process, on `repo` and the stand-in renderer. */
    const run = (stack: string, ref: string, format: string) =>
        diffCommand([stack, "--diff", ref, "--format", format], { root: repo, render });

    before(() => {
        repo = fs.mkdtempSync(path.join(os.tmpdir(), "diff-stack-report-"));
        git(repo, "init", "--quiet", "--initial-branch=main");
        fs.writeFileSync(path.join(repo, "usage"), "ENCRYPT_DECRYPT\n");
        fs.writeFileSync(path.join(repo, "Pulumi.dev.yaml"), "config: {}\n");
        git(repo, "add", "usage", "Pulumi.dev.yaml");
        git(repo, "commit", "--quiet", "-m", "base");
        base = git(repo, "rev-parse", "HEAD").trim();
        // What `npm ci` leaves: dependencies, untracked, linked into the base tree.
        fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(repo, "node_modules"), "dir");
    });
    beforeEach(() => {
        calls = [];
        fs.writeFileSync(path.join(repo, "usage"), "ENCRYPT_DECRYPT\n");
    });
    after(() => fs.rmSync(repo, { recursive: true, force: true }));

    it("renders the ref's own tree, labelled with the ref and its short commit, and the working tree, then removes the ref's tree", async () => {
        fs.writeFileSync(path.join(repo, "usage"), "SIGN_VERIFY\n");
        const report = await diffStack(repo, "dev", "HEAD", render);
        expect(calls.map((c) => [c.stack, c.label, c.existed])).to.deep.equal([
            ["dev", `HEAD (${base.slice(0, 12)})`, true],
            ["dev", "the working tree", true],
        ]);
        expect(calls[0].root).to.not.equal(repo);
        expect(calls[1].root).to.equal(repo);
        expect(fs.existsSync(calls[0].root), "the ref's tree is removed").to.equal(false);
        expect(report).to.deep.include({ stack: "dev", base: { ref: "HEAD", commit: base } });
        expect(report.summary).to.equal("DISRUPTIVE: 1 KMS key replacement refused — 0 to create, 0 to update, 1 to replace, 0 to delete");
        expect(report.counts).to.deep.equal({ create: 0, update: 0, replace: 1, delete: 0 });
        expect(report.disruptions.map((d) => d.kind)).to.deep.equal(["refused"]);
        expect(report.changes.map((c) => [c.kind, c.name, c.forcedBy])).to.deep.equal([["replace", "secrets", ["keyUsage"]]]);
    });

    it("removes the ref's tree when a side fails to render too", async () => {
        const failing: Render = (root, stack, label) => {
            calls.push({ root, stack, label, existed: true });
            return Promise.reject(new RenderError(`stack "${stack}" at ${label} does not render:\nboom`));
        };
        const failure = await diffStack(repo, "dev", "HEAD", failing).catch((err: unknown) => err);
        expect(failure).to.be.instanceOf(RenderError);
        expect(fs.existsSync(calls[0].root)).to.equal(false);
    });

    it("exits 2 for a refused change and 0 otherwise, printing the text or the JSON report (docs/changes.md exit codes)", async () => {
        fs.writeFileSync(path.join(repo, "usage"), "SIGN_VERIFY\n");
        const json = await run("dev", "HEAD", "json");
        expect(json.code).to.equal(2);
        const report = JSON.parse(json.stdout) as DiffReport;
        expect(Object.keys(report)).to.deep.equal(["stack", "base", "summary", "counts", "disruptions", "changes"]);
        expect(report.disruptions[0].message).to.equal(
            `${KEY} secrets: protected, but keyUsage forces a replacement (the KMS key would be replaced): the engine refuses the update`,
        );
        const text = await run("dev", "HEAD", "text");
        expect(text.code).to.equal(2);
        expect(text.stdout).to.equal(`${formatDiffReport(report)}\n`);
        fs.writeFileSync(path.join(repo, "usage"), "ENCRYPT_DECRYPT\n");
        const clean = await run("dev", "HEAD", "text");
        expect(clean.code).to.equal(0);
        expect(clean.stdout).to.equal(
            `Diff of stack "dev": HEAD (${base.slice(0, 12)}) → working tree\n0 to create, 0 to update, 0 to replace, 0 to delete; nothing disruptive\n\n  no changes\n`,
        );
    });

    it("diffs a stack the change adds as all creates: its base has no stack file, so only the working tree renders (exit 0)", async () => {
        fs.writeFileSync(path.join(repo, "Pulumi.staging.yaml"), "config: {}\n");
        try {
            const { code, stdout } = await run("staging", "HEAD", "text");
            expect(code).to.equal(0);
            expect(calls.map((c) => c.label)).to.deep.equal(["the working tree"]);
            expect(stdout).to.include(`(the stack is new: HEAD has no Pulumi.staging.yaml)`);
            const report = await diffStack(repo, "staging", "HEAD", render);
            expect(report.base.absent).to.equal(true);
            expect(report.counts).to.deep.equal({ create: 1, update: 0, replace: 0, delete: 0 });
            expect(report.changes[0].properties).to.deep.equal([{ path: "keyUsage", before: undefined, after: "ENCRYPT_DECRYPT" }]);
        } finally {
            fs.rmSync(path.join(repo, "Pulumi.staging.yaml"));
        }
    });

    it("writes Markdown for the job summary: the counts and what is disruptive in a table first, each disruption, then the text report", async () => {
        fs.writeFileSync(path.join(repo, "usage"), "SIGN_VERIFY\n");
        const md = formatDiffMarkdown(await diffStack(repo, "dev", "HEAD", render)).split("\n");
        expect(md.slice(0, 6)).to.deep.equal([
            "### Stack `dev`",
            "",
            "| create | update | replace | delete | disruptive |",
            "|---:|---:|---:|---:|---|",
            "| 0 | 0 | 1 | 0 | **1 KMS key replacement refused** |",
            "",
        ]);
        expect(md[6]).to.match(/^- \*\*refused\*\* aws:kms\/key:Key secrets: protected, but keyUsage forces a replacement/);
        expect(md).to.include("<details><summary>every change</summary>");
        expect(md.join("\n")).to.include("+- aws:kms/key:Key  secrets");
    });
});
