import { expect } from "chai";
import * as fs from "fs";
import { leaveSdkStacksUnmapped, MADE_UP_VALUE, RecordingMocks } from "../../tools/offline";

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

    it("still records a readable stack on every promise the SDK tracks", function () {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const debuggable = require("@pulumi/pulumi/runtime/debuggable") as {
            debuggablePromise: (p: Promise<unknown>, ctx: string) => Promise<unknown>;
        };
        const tracked = Promise.resolve(1);
        void debuggable.debuggablePromise(tracked, "test");
        const recorded = (tracked as unknown as { _debugStackTrace: unknown })._debugStackTrace;
        expect(recorded).to.be.a("string");
        const lines = (recorded as string).split("\n");
        expect(lines[0]).to.equal("Error");
        expect(lines[1]).to.match(/^ {4}at debuggablePromise \(.*runtime[\\/]debuggable\.js:\d+:\d+\)$/);
        expect(lines.some((l) => l.includes("offline.test.ts"))).to.equal(true);
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
