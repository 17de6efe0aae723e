import { expect } from "chai";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import type { Policies, ResourceValidationArgs, ResourceValidationPolicy } from "@pulumi/policy";
import { DeserializeModule, memoizeStructConversion, withStacklessNotApplicable } from "eks-platform-policies/runtime";
import { ROOT } from "../../mocks";

// The SDK's own deserializer, loaded fresh (not the pack process's copy) so patching it here is local.
function freshSdkDeserialize(): DeserializeModule {
    const file = path.join(path.dirname(require.resolve("@pulumi/policy")), "deserialize.js");
    delete require.cache[require.resolve(file)];
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(file) as DeserializeModule;
    delete require.cache[require.resolve(file)];
    return mod;
}

const object = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", labels: { app: "web" } },
    spec: { replicas: 3, template: { spec: { containers: [{ name: "app", ports: [{ containerPort: 80 }] }] } } },
};

describe("pack runtime (speed only, verdicts unchanged)", () => {
    describe("memoizeStructConversion", () => {
        it("converts each Struct once however many policies read it, each getting its own copy equal to the SDK's", () => {
            const reference = freshSdkDeserialize().deserializeProperties;
            const mod = freshSdkDeserialize();
            expect(memoizeStructConversion(mod)).to.equal(true);
            const struct = Struct.fromJavaScript(object);
            let conversions = 0;
            const convert = struct.toJavaScript.bind(struct);
            struct.toJavaScript = () => {
                conversions++;
                return convert();
            };
            const reads = Array.from({ length: 5 }, () => mod.deserializeProperties(struct, false));
            expect(conversions).to.equal(1);
            for (const r of reads) {
                expect(r).to.deep.equal(reference(Struct.fromJavaScript(object), false));
            }
            // A policy changing what it was given does not change what the next policy reads.
            (reads[0].metadata as { name: string }).name = "changed";
            expect((mod.deserializeProperties(struct, false).metadata as { name: string }).name).to.equal("web");
        });

        it("keeps separate messages apart and installs once", () => {
            const mod = freshSdkDeserialize();
            memoizeStructConversion(mod);
            const patched = mod.deserializeProperties;
            expect(memoizeStructConversion(mod)).to.equal(false);
            expect(mod.deserializeProperties).to.equal(patched);
            const a = mod.deserializeProperties(Struct.fromJavaScript({ n: 1 }), false);
            const b = mod.deserializeProperties(Struct.fromJavaScript({ n: 2 }), false);
            expect([a.n, b.n]).to.deep.equal([1, 2]);
        });
    });

    describe("withStacklessNotApplicable", () => {
        class SdkNotApplicable extends Error {}
        const argsFor = (seen: number[]): ResourceValidationArgs =>
            ({
                type: "kubernetes:core/v1:ConfigMap",
                props: {},
                urn: "urn:pulumi:dev::p::kubernetes:core/v1:ConfigMap::c",
                name: "c",
                notApplicable: (reason?: string) => {
                    seen.push(Error.stackTraceLimit);
                    throw new SdkNotApplicable(reason);
                },
            }) as unknown as ResourceValidationArgs;
        const policy: ResourceValidationPolicy = {
            name: "p",
            description: "d",
            validateResource: (args) => {
                if (args.type !== "kubernetes:apps/v1:Deployment") {
                    args.notApplicable("not a Deployment");
                }
            },
        };

        it("throws the SDK's own error with its reason, captures no stack for it, and restores the limit", () => {
            const [wrapped] = withStacklessNotApplicable([policy]) as ResourceValidationPolicy[];
            const seen: number[] = [];
            const before = Error.stackTraceLimit;
            let thrown: unknown;
            try {
                void (wrapped.validateResource as (a: ResourceValidationArgs, r: () => void) => void)(argsFor(seen), () => undefined);
            } catch (err) {
                thrown = err;
            }
            expect(thrown).to.be.instanceOf(SdkNotApplicable);
            expect((thrown as Error).message).to.equal("not a Deployment");
            expect(seen).to.deep.equal([0]);
            expect(Error.stackTraceLimit).to.equal(before);
        });

        it("leaves stack policies and type-bound validators as they are", () => {
            const stack = { name: "s", description: "d", validateStack: () => undefined };
            const typed = Object.assign(() => undefined, { __pulumiType: "aws:ec2/vpc:Vpc" });
            const bound: ResourceValidationPolicy = { name: "t", description: "d", validateResource: typed };
            const out = withStacklessNotApplicable([stack, bound] as Policies);
            expect(out[0]).to.equal(stack);
            expect((out[1] as ResourceValidationPolicy).validateResource).to.equal(typed);
        });
    });

    describe("the offline pack's preload (tools/registerSwc.js)", () => {
        const probe = (script: string) =>
            JSON.parse(
                execFileSync(process.execPath, ["-r", path.join(ROOT, "tools", "registerSwc.js"), "-e", script], {
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
});
