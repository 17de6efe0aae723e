/**
 * `npm run drift`: the scheduled drift check's verdict from `pulumi preview --refresh --json`'s
 * digest (pulumi/pulumi pkg/display/json.go, `PreviewDigest`), on hand-built digests of that shape.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { driftCommand, drifted, driftReport, formatDrift } from "../../tools/drift";
import { FileError, InputError } from "../../tools/errors";
import { ROOT } from "../mocks";
import { stacks } from "../stackFiles";

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
        ] as const) {
            expect(() => driftReport("prod", digest), JSON.stringify(digest)).to.throw(FileError, message);
        }
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
