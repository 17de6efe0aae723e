import { expect } from "chai";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { leaveSdkStacksUnmapped, MADE_UP_VALUE, RecordingMocks } from "../../../tools/render/offline";
import { ROOT } from "../../mocks";

describe("offline rendering: SDK promise stacks left unmapped", function () {
    before(function () {
        leaveSdkStacksUnmapped();
    });

    it("keeps source-mapped stacks (TypeScript lines) for errors the program throws", function () {
        const markerLine =
            fs
                .readFileSync(__filename, "utf8")
                .split("\n")
                .findIndex((l) => l.includes(["throw new Error(", '"mapped-marker")'].join(""))) + 1;
        expect(markerLine).to.be.greaterThan(0);
        let stack = "";
        try {
            throw new Error("mapped-marker");
        } catch (err) {
            stack = (err as Error).stack ?? "";
        }
        expect(stack.split("\n")[1]).to.contain(`offline.test.ts:${markerLine}:`);
    });

    // What the SDK keeps on tracked promises, in a fresh process: `debugPromiseLeaks` is read
    // when debuggable.js loads. One promise settles, one never does (a leak).
    const tracked = (env: NodeJS.ProcessEnv): { stack: string; limitAfter: number; leaked: string[]; laterFrames: number } => {
        const script = [
            `require(${JSON.stringify(path.join(ROOT, "tools", "cli", "swcCache.js"))}).register();`,
            `require(${JSON.stringify(path.join(ROOT, "tools", "render", "offline.ts"))}).leaveSdkStacksUnmapped();`,
            'const debuggable = require("@pulumi/pulumi/runtime/debuggable");',
            "function trackedHere(p, ctx) { void debuggable.debuggablePromise(p, ctx); return p; }",
            "const settled = trackedHere(Promise.resolve(1), 'settles');",
            "trackedHere(new Promise(() => undefined), 'never');",
            "const limitAfter = Error.stackTraceLimit;",
            "const laterFrames = new Error('later').stack.split('\\n').length - 1;",
            "setImmediate(() => {",
            "    const [leaks] = debuggable.leakedPromises();",
            "    const leaked = [...leaks].map((p) => p._debugCtx);",
            "    process.stdout.write(JSON.stringify({ stack: settled._debugStackTrace, limitAfter, leaked, laterFrames }));",
            "});",
        ].join("\n");
        const out = execFileSync(process.execPath, ["-e", script], {
            cwd: ROOT,
            env: { ...process.env, ...env },
            encoding: "utf8",
            stdio: ["ignore", "pipe", "pipe"],
        });
        return JSON.parse(out) as { stack: string; limitAfter: number; leaked: string[]; laterFrames: number };
    };

    it("records a readable stack on every promise the SDK tracks when PULUMI_DEBUG_PROMISE_LEAKS asks for the leak report's stacks", function () {
        this.timeout(60000);
        const seen = tracked({ PULUMI_DEBUG_PROMISE_LEAKS: "1" });
        const lines = seen.stack.split("\n");
        expect(lines[0]).to.equal("Error");
        expect(lines[1]).to.match(/^ {4}at debuggablePromise \(.*runtime[\\/]debuggable\.js:\d+:\d+\)$/);
        expect(lines[2]).to.match(/^ {4}at trackedHere \(.*:\d+:\d+\)$/);
        expect(seen.leaked).to.deep.equal(["never"]);
    });

    it("captures no frame of a tracked promise's stack when nothing can print it, and keeps the SDK's leak tracking", function () {
        this.timeout(60000);
        // An empty value is off for the SDK (`!!process.env.PULUMI_DEBUG_PROMISE_LEAKS`).
        const seen = tracked({ PULUMI_DEBUG_PROMISE_LEAKS: "" });
        expect(seen.stack).to.equal("Error");
        // The SDK still reports the promise that never settled, and only that one.
        expect(seen.leaked).to.deep.equal(["never"]);
        // Every other error captures its frames as before.
        expect(seen.limitAfter).to.equal(10);
        expect(seen.laterFrames).to.be.greaterThan(0);
    });

    it("does the same in this process (where mutation testing can switch the code under test)", async function () {
        if (process.env.PULUMI_DEBUG_PROMISE_LEAKS) {
            this.skip();
        }
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const debuggable = require("@pulumi/pulumi/runtime/debuggable") as {
            debuggablePromise: (p: Promise<unknown>, ctx: string) => Promise<unknown>;
            leakedPromises: () => [Set<Promise<unknown> & { _debugCtx?: string }>, string];
        };
        const limit = Error.stackTraceLimit;
        const settles = Promise.resolve(1);
        void debuggable.debuggablePromise(settles, "settles-here");
        void debuggable.debuggablePromise(new Promise(() => undefined), "never-here");
        expect(Error.stackTraceLimit).to.equal(limit);
        expect((settles as unknown as { _debugStackTrace: unknown })._debugStackTrace).to.equal("Error");
        expect((new Error("later").stack ?? "").split("\n").length).to.be.greaterThan(1);
        await new Promise((resolve) => setImmediate(resolve));
        // Also takes the never-settling promise off the list the SDK checks when this process exits.
        const [leaks] = debuggable.leakedPromises();
        const contexts = [...leaks].map((l) => l._debugCtx);
        expect(contexts).to.include("never-here").and.not.include("settles-here");
    });
});

describe("offline rendering: resource source positions", function () {
    before(function () {
        leaveSdkStacksUnmapped();
    });

    it("still gives the SDK a file, line and column for every frame of a resource's call stack", function () {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { Resource } = require("@pulumi/pulumi/resource") as {
            Resource: { callsites(): { file?: string; line?: number; column?: number }[] };
        };
        const sites = Resource.callsites();
        expect(sites[0].file).to.match(/resource\.js$/);
        expect(sites[0].line).to.be.a("number");
        expect(sites.some((s) => s.file?.endsWith("offline.test.ts"))).to.equal(true);
    });
});

describe("offline rendering: values made up where only the cloud knows them", () => {
    const ami = (mode: "diff" | "preview", name: string) =>
        new RecordingMocks(mode).call({ token: "aws:ssm/getParameter:getParameter", inputs: { name }, provider: "" }).value as string;

    it("in diff mode, an SSM parameter's value follows its name: a newly pinned AMI release is a new AMI, recognisable as made up", () => {
        const [a, b] = [
            "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.34-v20260512/image_id",
            "/aws/service/eks/optimized-ami/1.35/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.35-v20260601/image_id",
        ].map((n) => ami("diff", n));
        expect(a).to.match(/^ami-[0-9a-f]{17}$/);
        expect(a).to.not.equal(b);
        expect(ami("diff", "x")).to.equal(ami("diff", "x"));
        expect(a.replace(MADE_UP_VALUE, "[unknown]")).to.equal("[unknown]");
        // A preview render keeps one fixed AMI.
        expect(ami("preview", "x")).to.equal(ami("preview", "y"));
    });
});
