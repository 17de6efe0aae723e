/**
 * `npm run drift`: the scheduled drift check's verdict from `pulumi preview --refresh --json`'s
 * digest (pulumi/pulumi pkg/display/json.go, `PreviewDigest`), on hand-built digests of that shape.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { driftCommand, drifted, driftReport, formatDrift } from "../../../tools/ci/drift";
import { FileError, InputError } from "../../../tools/cli/errors";
import { ROOT } from "../../mocks";
import { stacks } from "../../stackFiles";

const urn = (type: string, name: string, parents = "") => `urn:pulumi:prod::eks-platform::${parents}${type}::${name}`;
const STACK_URN = urn("pulumi:pulumi:Stack", "eks-platform-prod");
const SG = urn("aws:ec2/securityGroup:SecurityGroup", "platform-prod-nodes", "platform:network:Network$");
const GROUP = urn("aws:eks/nodeGroup:NodeGroup", "system", "platform:nodegroups:NodeGroups$platform:nodegroups:Managed$");
const QUEUE = urn("aws:sqs/queue:Queue", "interruptions");

/** A clean digest: everything the same, the refresh's reads, a data source read. */
const clean = {
    config: { "aws:region": "us-east-1" },
    steps: [
        { op: "same", urn: STACK_URN },
        { op: "refresh", urn: SG },
        { op: "read", urn: urn("aws:ec2/getAmi:getAmi", "ami") },
        { op: "same", urn: QUEUE, detailedDiff: null },
    ],
    duration: 61_000_000_000,
    changeSummary: { same: 412 },
};

function withSteps(...steps: Record<string, unknown>[]) {
    return { ...clean, steps: [...clean.steps, ...steps], changeSummary: { same: 410, update: 1, replace: 1 } };
}

function tmpFile(content: string): string {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "drift-")), "preview.json");
    fs.writeFileSync(file, content);
    return file;
}

describe("drift: the verdict of pulumi preview --refresh --json", () => {
    it("finds no drift where every step is same, a read or the refresh's own read, and the summary counts no change", () => {
        const report = driftReport("prod", clean);
        expect(report.changes).to.deep.equal([]);
        expect(report.summary).to.deep.equal({});
        expect(drifted(report)).to.equal(false);
        expect(formatDrift(report)).to.match(/^### Drift of stack `prod`: none\n/);
    });

    it("lists each change with its type, name and the inputs that differ, deletions and replacements first", () => {
        const report = driftReport(
            "prod",
            withSteps(
                {
                    op: "update",
                    urn: SG,
                    diffReasons: ["ingress", "tags"],
                    detailedDiff: { "ingress[0].cidrBlocks[1]": { kind: "add" }, tags: { kind: "update" } },
                },
                { op: "replace", urn: GROUP, diffReasons: ["scalingConfig", "amiType"], replaceReasons: ["amiType"] },
                { op: "create", urn: QUEUE },
            ),
        );
        expect(report.changes.map((c) => [c.op, c.type, c.name])).to.deep.equal([
            ["replace", "aws:eks/nodeGroup:NodeGroup", "system"],
            ["create", "aws:sqs/queue:Queue", "interruptions"],
            ["update", "aws:ec2/securityGroup:SecurityGroup", "platform-prod-nodes"],
        ]);
        // The detailed diff's paths where there is one, else the top-level keys.
        expect(report.changes[2].keys).to.deep.equal(["ingress[0].cidrBlocks[1]", "tags"]);
        expect(report.changes[0]).to.deep.include({ keys: ["amiType", "scalingConfig"], replaceKeys: ["amiType"] });
        expect(report.summary).to.deep.equal({ update: 1, replace: 1 });
        expect(drifted(report)).to.equal(true);
        const text = formatDrift(report);
        expect(text).to.match(/^### Drift of stack `prod`: 3 resources differ from main\n/);
        expect(text).to.include("**1 would be deleted or replaced** by the next `up`");
        expect(text).to.include("| replace | `aws:eks/nodeGroup:NodeGroup` | `system` | `amiType` (forces replacement), `scalingConfig` |");
        expect(text).to.include("| create | `aws:sqs/queue:Queue` | `interruptions` | — |");
        expect(text).to.include("Operations counted: 1 update, 1 replace.");
        // It says what it cannot tell apart.
        expect(text).to.include("a commit of main is not deployed yet");
        expect(text.indexOf("| replace |")).to.be.lessThan(text.indexOf("| create |"));
    });

    it("counts an operation it does not know as a change, and a change the summary counts but no step shows", () => {
        const unknownOp = driftReport("prod", { steps: [{ op: "teleport", urn: QUEUE }] });
        expect(unknownOp.changes.map((c) => c.op)).to.deep.equal(["teleport"]);
        expect(drifted(unknownOp)).to.equal(true);
        const summaryOnly = driftReport("prod", { changeSummary: { same: 3, delete: 2 } });
        expect(summaryOnly.changes).to.deep.equal([]);
        expect(drifted(summaryOnly)).to.equal(true);
        expect(formatDrift(summaryOnly)).to.include("0 resources differ from main").and.include("Operations counted: 2 delete.");
        // One resource reads as one.
        expect(formatDrift(driftReport("prod", { steps: [{ op: "delete", urn: QUEUE }] }))).to.match(/: 1 resource differs from main\n/);
    });

    it("orders the forcing inputs a replacement does not list among its differences after them, and escapes a pipe in a name", () => {
        const text = formatDrift(
            driftReport("prod", { steps: [{ op: "replace", urn: urn("aws:x/y:Y", "a|b"), diffReasons: ["b"], replaceReasons: ["a"] }] }),
        );
        expect(text).to.include("| replace | `aws:x/y:Y` | `a\\|b` | `b`, `a` (forces replacement) |");
    });

    it("refuses what is no preview digest, naming the file", () => {
        for (const [digest, message] of [
            [[], /preview\.json: is not a preview digest/],
            [{ steps: {} }, /steps is not a list/],
            [{ config: {} }, /has neither steps nor changeSummary/],
            [{ steps: [{ urn: QUEUE }] }, /a step without op and urn/],
            [{ steps: [{ op: "update" }] }, /a step without op and urn: {"op":"update"}/],
            [{ steps: [{ op: "update", urn: 3 }] }, /a step without op and urn/],
            [null, /preview\.json: is not a preview digest .*: expected a JSON object/],
            [{ steps: [null] }, /a step without op and urn: null/],
        ] as const) {
            expect(() => driftReport("prod", digest), JSON.stringify(digest)).to.throw(FileError, message);
        }
    });

    it("knows each operation Pulumi's engine has: the ones that change nothing live, the ones that take a resource away first", () => {
        for (const op of ["same", "read", "refresh", "read-replacement", "discard", "discard-replaced"]) {
            expect(driftReport("prod", { steps: [{ op, urn: QUEUE }], changeSummary: { [op]: 2 } }), op).to.deep.include({
                changes: [],
                summary: {},
            });
        }
        const removing = ["delete", "replace", "create-replacement", "delete-replaced", "import-replacement"];
        for (const op of [...removing, "create", "update", "import"]) {
            const report = driftReport("prod", {
                steps: [
                    { op: "update", urn: SG },
                    { op, urn: GROUP },
                ],
            });
            const first = report.changes[0].op;
            // Resources taken away come before the others; the rest by URN (the security group's sorts before the node group's).
            expect(first, op).to.equal(removing.includes(op) ? op : "update");
            expect(formatDrift(report).includes("would be deleted or replaced"), op).to.equal(removing.includes(op));
        }
    });

    it("reads the type and name from any URN: nested type paths, a name holding ::, and a URN of no known shape", () => {
        const [nested, odd, bare] = driftReport("prod", {
            steps: [
                { op: "update", urn: "urn:pulumi:prod::p::a:b:C$d:e:F$aws:sqs/queue:Queue::q" },
                { op: "update", urn: "urn:pulumi:prod::p::aws:x/y:Y::name::with::colons" },
                { op: "update", urn: "not-a-urn" },
            ],
        }).changes.sort((x, y) => x.name.localeCompare(y.name));
        expect([nested, odd, bare].map((c) => [c.type, c.name])).to.deep.equal([
            ["aws:x/y:Y", "name::with::colons"],
            ["", "not-a-urn"],
            ["aws:sqs/queue:Queue", "q"],
        ]);
    });

    it("refuses a step that is no object, dedupes and sorts the inputs, and counts only changing operations with a positive count", () => {
        expect(() => driftReport("prod", { steps: ["update"] })).to.throw(FileError, /a step without op and urn: "update"/);
        const [c] = driftReport("prod", {
            steps: [{ op: "replace", urn: GROUP, diffReasons: ["b", "a", "b"], replaceReasons: ["z", "y", "z"] }],
        }).changes;
        expect([c.keys, c.replaceKeys]).to.deep.equal([
            ["a", "b"],
            ["y", "z"],
        ]);
        expect(driftReport("prod", { changeSummary: { same: 5, update: 0, delete: "2", create: 1, refresh: 4 } }).summary).to.deep.equal({
            create: 1,
        });
    });

    it("reads only the text entries of diffReasons and replaceReasons: a number or null names no input", () => {
        const [c] = driftReport("prod", {
            steps: [{ op: "replace", urn: GROUP, diffReasons: ["tags", 3, null], replaceReasons: [{ k: 1 }, "amiType"] }],
        }).changes;
        expect([c.keys, c.replaceKeys], "rule: an input is named by text").to.deep.equal([["tags"], ["amiType"]]);
    });

    it("separates the report's blocks by a blank line: heading, explanation, counts, removals, table (the issue body is Markdown)", () => {
        const text = formatDrift(driftReport("prod", withSteps({ op: "delete", urn: QUEUE })));
        const blocks = text.trimEnd().split("\n\n");
        expect(
            blocks.map((b) => b.split("\n")[0].slice(0, 24)),
            "rule: each block of the issue body stands apart",
        ).to.deep.equal([
            "### Drift of stack `prod",
            "`pulumi preview --refres",
            "Operations counted: 1 up",
            "**1 would be deleted or ",
            "| operation | type | nam",
        ]);
    });

    it("says nothing about counts or removals it does not have, and what the reader should check first", () => {
        const text = formatDrift(driftReport("prod", { steps: [{ op: "update", urn: SG, diffReasons: ["tags"] }] }));
        expect(text).to.not.include("Operations counted").and.not.include("would be deleted or replaced");
        expect(text).to.include(
            "`pulumi preview --refresh` read every live resource and would change these to make the stack what main's program says. Either something changed them outside Pulumi (the console, another tool, a controller), or a commit of main is not deployed yet (an `up` that failed, or one waiting for its reviewers): check the deploy workflow's last run first. The next `up` reverts a drift; to keep a change made outside, put it into the program or its stack file.\n\n| operation | type | name | inputs that differ |\n|---|---|---|---|\n| update | `aws:ec2/securityGroup:SecurityGroup` | `platform-prod-nodes` | `tags` |\n",
        );
        const removing = formatDrift(driftReport("prod", { steps: [{ op: "delete", urn: QUEUE }] }));
        expect(removing).to.include(
            "**1 would be deleted or replaced** by the next `up`: a replaced node group or launch template rolls its nodes (`npm run plan -- prod --diff` says what each drains).\n\n",
        );
        expect(formatDrift(driftReport("prod", clean))).to.equal(
            "### Drift of stack `prod`: none\n\nThe live stack is what main's program makes it: `pulumi preview --refresh` proposes no change.\n",
        );
    });

    describe("driftCommand", () => {
        const stack = stacks()[0];

        it("exits 0 on a clean digest and 1 on drift, printing the report", () => {
            expect(driftCommand([stack, tmpFile(JSON.stringify(clean))], ROOT)).to.deep.equal({
                code: 0,
                stdout: formatDrift(driftReport(stack, clean)),
            });
            const out = driftCommand([stack, tmpFile(JSON.stringify(withSteps({ op: "delete", urn: QUEUE })))], ROOT);
            expect(out.code).to.equal(1);
            expect(out.stdout).to.include(`### Drift of stack \`${stack}\``).and.include("| delete | `aws:sqs/queue:Queue`");
        });

        it("exits 1 on a drift counted only in the change summary (no step shows it): the scheduled check never stays green on a reported drift", () => {
            const summaryOnly = { ...clean, changeSummary: { same: 410, delete: 2 } };
            const out = driftCommand([stack, tmpFile(JSON.stringify(summaryOnly))], ROOT);
            expect(out.stdout, "the report says it drifted").to.include("Operations counted: 2 delete.");
            expect(out.code, "rule: a drift the summary counts exits 1, as one a step shows").to.equal(1);
            // And a summary that counts only what changes nothing live exits 0.
            const unchanged = { ...clean, changeSummary: { same: 410, refresh: 2, read: 1 } };
            expect(driftCommand([stack, tmpFile(JSON.stringify(unchanged))], ROOT).code, "rule: no change counted, exit 0").to.equal(0);
        });

        it("refuses bad arguments, an unknown stack, a missing file and a file that is not JSON, each named", () => {
            expect(() => driftCommand([stack], ROOT)).to.throw(InputError, "usage: npm run drift -- <stack> <preview.json>");
            expect(() => driftCommand(["nope", "x.json"], ROOT)).to.throw(
                InputError,
                `unknown stack nope: the stacks are ${stacks().join(", ")}`,
            );
            expect(() => driftCommand([stack, "/nonexistent/preview.json"], ROOT)).to.throw(
                FileError,
                "/nonexistent/preview.json: cannot be read (ENOENT)",
            );
            const notJson = tmpFile("error: no stack named 'prod' found\n");
            expect(() => driftCommand([stack, notJson], ROOT)).to.throw(FileError, /is not JSON .*: run pulumi preview with --json/);
        });
    });
});
