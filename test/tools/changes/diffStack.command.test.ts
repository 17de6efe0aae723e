/**
 * `npm run plan -- <stack> --diff <ref>` in process (`diffCommand`): its command line, exit codes
 * and messages, on a two-side repository of its own whose renderer reads each side's recorded
 * resources from a file of that side's tree. The real renders, in child processes, are in
 * diffStack.test.ts and diffStack.refused.test.ts.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { diffCommand, DiffReport, Render, RenderError, renderInChild } from "../../../tools/changes/diffStack";
import { InputError } from "../../../tools/cli/errors";
import { RecordedResource, runProgram } from "../../../tools/render/offline";
import { RefError } from "../../../tools/cli/refTree";
import { ROOT } from "../../mocks";
import { git } from "../../stackFiles";

const KEY = "aws:kms/key:Key";
/** A KMS key; `keyUsage` is ForceNew upstream (terraform-provider-aws aws_kms_key), `description` is updated in place. */
const key = (props: Record<string, unknown>, protect: boolean): RecordedResource => ({
    type: KEY,
    name: "secrets",
    urn: `urn:pulumi:dev::eks-platform::${KEY}::secrets`,
    props,
    options: protect ? { protect: true } : {},
});
const BASE = key({ keyUsage: "ENCRYPT_DECRYPT", description: "secrets" }, true);

/** The error `run` fails with (undefined if it does not fail). */
async function failure(run: () => Promise<unknown>): Promise<Error | undefined> {
    return run().then(
        () => undefined,
        (err: unknown) => err as Error,
    );
}

describe("npm run plan -- <stack> --diff <ref>, in process (diffCommand)", () => {
    let repo: string;
    let base: string;
    /** The labels each render was called with. */
    let rendered: string[];
    /** Reads the side's resources from `resources.json` at the root of its tree. */
    const render: Render = (root, _stack, label) => {
        rendered.push(label);
        return Promise.resolve(JSON.parse(fs.readFileSync(path.join(root, "resources.json"), "utf8")) as RecordedResource[]);
    };
    /** The working tree's resources. */
    const workingTree = (resources: RecordedResource[]) => fs.writeFileSync(path.join(repo, "resources.json"), JSON.stringify(resources));

    before(() => {
        repo = fs.mkdtempSync(path.join(os.tmpdir(), "diff-stack-command-"));
        git(repo, "init", "--quiet", "--initial-branch=main");
        workingTree([BASE]);
        fs.writeFileSync(path.join(repo, "Pulumi.yaml"), "name: eks-platform\nruntime: nodejs\n");
        fs.writeFileSync(path.join(repo, "Pulumi.dev.yaml"), "config: {}\n");
        git(repo, "add", "resources.json", "Pulumi.yaml", "Pulumi.dev.yaml");
        git(repo, "commit", "--quiet", "-m", "base");
        base = git(repo, "rev-parse", "HEAD").trim();
        fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(repo, "node_modules"), "dir");
    });
    beforeEach(() => {
        rendered = [];
        workingTree([BASE]);
    });
    after(() => fs.rmSync(repo, { recursive: true, force: true }));

    it("exits 2 on a change the engine refuses, a protected key's ForceNew keyUsage (pulumi protect), naming it in each format", async () => {
        workingTree([key({ keyUsage: "SIGN_VERIFY", description: "secrets" }, true)]);
        const refusal = /aws:kms\/key:Key secrets: protected, but keyUsage forces a replacement .*the engine refuses/;
        const text = await diffCommand(["dev", "--diff", "HEAD"], { root: repo, render });
        expect(text.code).to.equal(2);
        expect(text.stdout).to.match(new RegExp(`^Diff of stack "dev": HEAD \\(${base.slice(0, 12)}\\) → working tree\n`));
        expect(text.stdout).to.match(/\nDISRUPTIVE: 1 KMS key replacement refused — /);
        expect(text.stdout).to.match(refusal);
        const json = await diffCommand(["dev", "--diff", "HEAD", "--format", "json"], { root: repo, render });
        expect(json.code).to.equal(2);
        expect(json.stdout.endsWith("}\n")).to.equal(true);
        const report = JSON.parse(json.stdout) as DiffReport;
        expect(report.disruptions.map((d) => d.kind)).to.deep.equal(["refused"]);
        expect(report.disruptions[0].message).to.match(refusal);
        const md = await diffCommand(["dev", "--diff", "HEAD", "--format", "markdown"], { root: repo, render });
        expect(md.code).to.equal(2);
        expect(md.stdout.split("\n")[0]).to.equal("### Stack `dev`");
        expect(md.stdout).to.match(/\n- \*\*refused\*\* aws:kms\/key:Key secrets: protected, but keyUsage forces a replacement/);
        expect(md.stdout).to.match(/```\nDiff of stack "dev": HEAD /);
    });

    it("exits 0 on a disruptive change the engine carries out (an unprotected key replaced: destroyed, not refused)", async () => {
        fs.writeFileSync(
            path.join(repo, "resources.json"),
            JSON.stringify([key({ keyUsage: "ENCRYPT_DECRYPT", description: "secrets" }, false)]),
        );
        git(repo, "commit", "--quiet", "--all", "-m", "unprotected");
        try {
            workingTree([key({ keyUsage: "SIGN_VERIFY", description: "secrets" }, false)]);
            const { code, stdout } = await diffCommand(["dev", "--diff", "HEAD", "--format", "json"], { root: repo, render });
            expect(code).to.equal(0);
            const report = JSON.parse(stdout) as DiffReport;
            expect(report.counts).to.deep.equal({ create: 0, update: 0, replace: 1, delete: 0 });
            expect(report.disruptions.map((d) => d.kind)).to.deep.equal(["destroyed"]);
            expect(report.summary).to.match(/^DISRUPTIVE: /);
        } finally {
            git(repo, "reset", "--quiet", "--hard", base);
        }
    });

    it("exits 0 on an update in place (a KMS key's description), printing it with nothing disruptive", async () => {
        workingTree([key({ keyUsage: "ENCRYPT_DECRYPT", description: "the platform's secrets" }, true)]);
        const { code, stdout } = await diffCommand(["dev", "--diff", "HEAD"], { root: repo, render });
        expect(code).to.equal(0);
        expect(stdout.split("\n")[1]).to.equal("0 to create, 1 to update, 0 to replace, 0 to delete; nothing disruptive");
        expect(stdout).to.match(/description: "secrets" → "the platform's secrets"/);
        expect(stdout.endsWith("\n")).to.equal(true);
    });

    it("writes the job summary's Markdown: the counts' table, the disruptions as a list with <, > and | escaped (GitHub Markdown would read HTML), then the text report folded in a details block", async () => {
        const name = "secrets<a|b>";
        const urn = `urn:pulumi:dev::eks-platform::${KEY}::${name}`;
        fs.writeFileSync(path.join(repo, "resources.json"), JSON.stringify([{ ...BASE, name, urn }]));
        git(repo, "commit", "--quiet", "--all", "-m", "an odd name");
        try {
            workingTree([{ ...key({ keyUsage: "SIGN_VERIFY", description: "secrets" }, true), name, urn }]);
            const md = await diffCommand(["dev", "--diff", "HEAD", "--format", "markdown"], { root: repo, render });
            const text = await diffCommand(["dev", "--diff", "HEAD"], { root: repo, render });
            expect(md.code).to.equal(2);
            const lines = md.stdout.split("\n");
            expect(lines.slice(0, 6)).to.deep.equal([
                "### Stack `dev`",
                "",
                "| create | update | replace | delete | disruptive |",
                "|---:|---:|---:|---:|---|",
                "| 0 | 0 | 1 | 0 | **1 KMS key replacement refused** |",
                "",
            ]);
            expect(lines[6]).to.match(
                /^- \*\*refused\*\* aws:kms\/key:Key secrets\\<a\\\|b\\>: protected, but keyUsage forces a replacement/,
            );
            expect(lines[6]).to.not.match(/[^\\][<>|]/);
            expect(lines.slice(7)).to.deep.equal([
                "",
                "<details><summary>every change</summary>",
                "",
                "```",
                ...text.stdout.split("\n").slice(0, -1),
                "```",
                "",
                "</details>",
                "",
            ]);
        } finally {
            git(repo, "reset", "--quiet", "--hard", base);
        }
    });

    it("writes Markdown without a list when nothing is disruptive, saying so in the table unbolded", async () => {
        workingTree([key({ keyUsage: "ENCRYPT_DECRYPT", description: "the platform's secrets" }, true)]);
        const md = await diffCommand(["dev", "--diff", "HEAD", "--format", "markdown"], { root: repo, render });
        const text = await diffCommand(["dev", "--diff", "HEAD"], { root: repo, render });
        expect(md.code).to.equal(0);
        expect(md.stdout.split("\n")).to.deep.equal([
            "### Stack `dev`",
            "",
            "| create | update | replace | delete | disruptive |",
            "|---:|---:|---:|---:|---|",
            "| 0 | 1 | 0 | 0 | nothing disruptive |",
            "",
            "<details><summary>every change</summary>",
            "",
            "```",
            ...text.stdout.split("\n").slice(0, -1),
            "```",
            "",
            "</details>",
            "",
        ]);
    });

    it("renders the working directory's tree when no root is given (npm runs scripts from the package root)", async () => {
        workingTree([key({ keyUsage: "SIGN_VERIFY", description: "secrets" }, true)]);
        const cwd = process.cwd();
        process.chdir(repo);
        try {
            const { code } = await diffCommand(["dev", "--diff", "HEAD"], { render });
            expect(code).to.equal(2);
            expect(rendered).to.deep.equal([`HEAD (${base.slice(0, 12)})`, "the working tree"]);
        } finally {
            process.chdir(cwd);
        }
    });

    it("refuses an unknown ref, naming it and saying to fetch it, before rendering anything", async () => {
        const err = await failure(() => diffCommand(["dev", "--diff", "no-such-ref"], { root: repo, render }));
        expect(err).to.be.instanceOf(RefError);
        expect(err?.message).to.match(/no-such-ref is not a commit here: fetch it first/);
        expect(rendered).to.deep.equal([]);
    });

    it("refuses an unknown stack with the stacks there (the stack file is read first: tools/render/offline.ts runProgram)", async () => {
        // The base has no Pulumi.nosuch.yaml, so only the working tree renders, and fails.
        const real: Render = (root, stack, label) => {
            rendered.push(label);
            return runProgram(root, stack, path.join(root, "index.ts"), "diff").then((r) => r.resources);
        };
        const err = await failure(() => diffCommand(["nosuch", "--diff", "HEAD"], { root: repo, render: real }));
        expect(rendered).to.deep.equal(["the working tree"]);
        expect(err?.message).to.match(/unknown stack "nosuch" \(stacks here: dev\)/);
    });

    it("reads its command line as the plan does: one stack, a non-empty ref, a known format (exit 2 with the usage)", async () => {
        const usage = /(^|\n)usage: npm run plan -- <stack> \[--format text\|json\|markdown\] \[--analyzer\] \[--diff <git-ref>\]$/;
        const cases: [string[], RegExp][] = [
            [["--diff", "HEAD"], /^usage: npm run plan -- /],
            [["dev", "prod", "--diff", "HEAD"], /^one stack at a time, not dev, prod\n/],
            [["dev", "--diff", ""], /^--diff needs a git ref, e.g. --diff origin\/main\n/],
            [["dev", "--diff", "HEAD", "--format", "yaml"], /^--format must be text, json or markdown, not "yaml"$/],
            [["dev", "--diff", "HEAD", "--formt", "json"], /^Unknown option '--formt'\n/],
            [["dev", "--diff", "HEAD", "--analyzer"], /^--analyzer chooses how the policy gate runs, and --diff runs no gate\n/],
        ];
        for (const [argv, message] of cases) {
            const err = await failure(() => diffCommand(argv, { root: repo, render }));
            expect(err, argv.join(" ")).to.be.instanceOf(InputError);
            expect(err?.message, argv.join(" ")).to.match(message);
            if (!message.source.startsWith("^--format")) {
                expect(err?.message, argv.join(" ")).to.match(usage);
            }
        }
        // The format is read before the stacks, as the plan reads it.
        const both = await failure(() => diffCommand(["dev", "prod", "--diff", "HEAD", "--format", "yaml"], { root: repo, render }));
        expect(both?.message).to.match(/^--format must be /);
        expect(rendered).to.deep.equal([]);
    });
});

describe("renderInChild: each side rendered in a child process of its own (tools/render/renderStack.ts)", function () {
    // A render of this tree takes a second or two; a child that never answers (`node ""` reads its
    // script from stdin) fails here, well before the mutation runner's own timeout.
    this.timeout(20_000);
    let tree: string;
    /** A long input, so the child's output is over execFile's default maxBuffer (1 MiB). */
    const note = "n".repeat(1_100_000);

    before(() => {
        // The smallest program tree: a project, one stack, an index.ts registering one resource, the
        // repository's compiler settings, and the installed dependencies linked in.
        tree = fs.mkdtempSync(path.join(os.tmpdir(), "diff-stack-child-"));
        fs.writeFileSync(path.join(tree, "Pulumi.yaml"), "name: tiny\nruntime: nodejs\n");
        fs.writeFileSync(path.join(tree, "Pulumi.dev.yaml"), "config: {}\n");
        fs.writeFileSync(
            path.join(tree, "index.ts"),
            `import * as pulumi from "@pulumi/pulumi";\nnew pulumi.CustomResource("tiny:index:Thing", "thing", { size: 1, note: "${note}" });\n`,
        );
        fs.copyFileSync(path.join(ROOT, "tsconfig.json"), path.join(tree, "tsconfig.json"));
        fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(tree, "node_modules"), "dir");
    });
    after(() => fs.rmSync(tree, { recursive: true, force: true }));

    it("returns the resources the tree's program registers for the stack, however long its output (over execFile's default 1 MiB)", async () => {
        const resources = await renderInChild(tree, "dev", "the working tree");
        expect(resources).to.deep.equal([
            {
                type: "tiny:index:Thing",
                name: "thing",
                urn: "urn:pulumi:dev::tiny::tiny:index:Thing::thing",
                props: { size: 1, note },
                options: {},
            },
        ]);
    });

    it("fails with a RenderError naming the stack, the side and the renderer's own message (exit 2: bad input)", async () => {
        const err = await failure(() => renderInChild(tree, "nosuch", "the working tree"));
        expect(err).to.be.instanceOf(RenderError);
        expect(err?.message).to.equal(
            `stack "nosuch" at the working tree does not render:\n${path.join(tree, "Pulumi.nosuch.yaml")}: unknown stack "nosuch" (stacks here: dev)`,
        );
    });
});
