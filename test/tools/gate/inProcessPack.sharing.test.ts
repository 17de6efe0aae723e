import { strict as assert } from "assert";
import * as path from "path";
import { runGate, GateReport } from "../../../tools/gate/gate";
import { InProcessPack } from "../../../tools/gate/inProcessPack";
import { GateResource, urnOf } from "../../../tools/gate/requests";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { ROOT } from "../../mocks";

/** Policies that read properties in Analyze and AnalyzeStack, and one that writes to resources named write-*. */
const SHARING = path.join(ROOT, "test", "fixtures", "pack", "sharing");
// The SDK's sentinel of a string unknown during preview (@pulumi/policy proxy.js, unknownStringValue).
const UNKNOWN_STRING = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

const resource = (name: string, level: unknown = "written", item: unknown = "b"): GateResource => ({
    urn: urnOf("dev", "test", "kubernetes:apps/v1:Deployment", name),
    type: "kubernetes:apps/v1:Deployment",
    name,
    props: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name, namespace: "team", labels: { app: name } },
        spec: { items: ["a", item], nested: { level, deeper: { list: [{ x: 1 }, { x: 2 }] }, none: null } },
    },
});

// A secret as the engine sends one (@pulumi/pulumi runtime/rpc.js): the SDK gives policies its value.
const secret = (value: string) => ({ [specialSigKey]: specialSecretSig, value });

const overGrpc = (resources: GateResource[]) => runGate({ packDir: SHARING, stack: "dev", project: "test", resources });

async function inProcess(resources: GateResource[]): Promise<GateReport> {
    const pack = await InProcessPack.start(SHARING);
    try {
        return await runGate({ packDir: SHARING, stack: "dev", project: "test", resources, pack: Promise.resolve(pack) });
    } finally {
        pack.close();
    }
}

const messages = (report: GateReport, policy: string) =>
    report.diagnostics.filter((d) => d.policy === policy).map((d) => `${d.urn?.split("::").pop() ?? "(stack)"} ${d.message}`);

describe("in-process pack (tools/gate/inProcessPack.ts): one read-only copy of each resource's properties for all its policies", function () {
    this.timeout(120_000);

    it("reads, in Analyze and in AnalyzeStack, what the analyzer's fresh copies read", async () => {
        const resources = [resource("read-one"), resource("read-two", "other")];
        const [mine, theirs] = [await inProcess(resources), await overGrpc(resources)];
        assert.deepStrictEqual(mine, theirs);
        assert.deepStrictEqual(messages(mine, "reads-props"), [
            "read-one Reports what it reads of each resource's properties, nested values included.\nname=read-one keys=labels,name,namespace items=a,b level=written",
            "read-two Reports what it reads of each resource's properties, nested values included.\nname=read-two keys=labels,name,namespace items=a,b level=other",
        ]);
        // Both resources, whole, after every resource policy has read them (members in the order the
        // wire gives them, sorted).
        const stack = messages(mine, "reads-stack").map((m) => m.split("\n")[1]);
        assert.deepStrictEqual(
            stack.map((m) => [m.slice(0, m.indexOf(": ")), JSON.parse(m.slice(m.indexOf(": ") + 2)) as unknown]),
            resources.map((r) => [r.name, r.props]),
        );
    });

    it("still finds a value unknown at preview however deep a policy reads it, as the SDK's proxy does over gRPC", async () => {
        // Under a member holding an object: the copy must leave it to the SDK's proxy to wrap.
        const resources = [resource("unknown-nested", UNKNOWN_STRING)];
        const [mine, theirs] = [await inProcess(resources), await overGrpc(resources)];
        assert.deepStrictEqual(mine, theirs);
        const reads = mine.diagnostics.filter((d) => d.policy === "reads-props");
        assert.equal(reads.length, 1);
        assert.equal(reads[0].undeterminable, true);
        assert.match(reads[0].message, /string value at \.spec\.nested\.level can't be known during preview/);
        const stack = mine.diagnostics.filter((d) => d.policy === "reads-stack");
        assert.equal(stack.length, 1);
        assert.equal(stack[0].undeterminable, true, "JSON.stringify through the proxy meets the unknown value too");
    });

    it("finds an unknown value in a list, as over gRPC", async () => {
        const resources = [resource("unknown-listed", "written", UNKNOWN_STRING)];
        const [mine, theirs] = [await inProcess(resources), await overGrpc(resources)];
        assert.deepStrictEqual(mine, theirs);
        const reads = mine.diagnostics.filter((d) => d.policy === "reads-props");
        assert.equal(reads.length, 1);
        assert.match(reads[0].message, /string value at \.spec\.items\.1 can't be known during preview/);
    });

    it("gives policies a secret's value, beside an unknown one or not, as over gRPC", async () => {
        const beside = resource("signed-unknown", secret("hidden"));
        // Where Analyze's policy never reads (it lists the labels' keys only) and AnalyzeStack's does.
        (beside.props.metadata as { labels: Record<string, unknown> }).labels.zone = UNKNOWN_STRING;
        const resources = [resource("signed", secret("hidden")), beside];
        const [mine, theirs] = [await inProcess(resources), await overGrpc(resources)];
        assert.deepStrictEqual(mine, theirs);
        assert.deepStrictEqual(
            messages(mine, "reads-props").map((m) => m.split("\n")[1]),
            [
                "name=signed keys=labels,name,namespace items=a,b level=hidden",
                "name=signed-unknown keys=labels,name,namespace items=a,b level=hidden",
            ],
        );
        // AnalyzeStack's policy meets the unknown (its "can't run" verdict, naming no resource, sorts first).
        assert.deepStrictEqual(
            mine.diagnostics.filter((d) => d.policy === "reads-stack").map((d) => d.undeterminable),
            [true, false],
        );
    });

    for (const [name, write] of [
        ["write-assign", "assigns a member holding a string"],
        ["write-add", "adds a member"],
        ["write-nested", "assigns a member two objects down"],
        ["write-push", "pushes onto a list"],
        ["write-delete", "deletes a member holding a string"],
        // Refused since no value under it is unknown: the copy is frozen whole (a copy holding an
        // unknown keeps such members configurable for the SDK's proxy, and cannot refuse this).
        ["write-delete-object", "deletes a member holding an object"],
    ] as const) {
        it(`refuses a policy that ${write}, naming it, where over gRPC the write changes only that policy's copy`, async () => {
            await assert.rejects(inProcess([resource(name)]), (err: unknown) => {
                assert.ok(err instanceof Error);
                assert.match(err.message, /policy 'writes-props'/);
                assert.match(err.message, /TypeError: (Cannot (assign to read only|add property|delete property)|Cannot define property)/);
                return true;
            });
            const theirs = await overGrpc([resource(name)]);
            assert.deepStrictEqual(messages(theirs, "writes-props"), [
                `${name} Writes to the properties of resources named write-*, as a careless policy might.\nwrote to ${name}`,
            ]);
            // The next policy read its own copy, unchanged.
            assert.deepStrictEqual(messages(theirs, "reads-props"), [
                `${name} Reports what it reads of each resource's properties, nested values included.\nname=${name} keys=labels,name,namespace items=a,b level=written`,
            ]);
        });
    }
});
