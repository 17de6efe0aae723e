import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { types } from "util";
import type {
    Policies,
    PolicyResource,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
} from "@pulumi/policy";
import { asset } from "@pulumi/pulumi";
import { specialAssetSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { UNKNOWN_SENTINELS } from "eks-platform-kernel";
import { isUnknownValueError, unknownCheckingProxy } from "eks-platform-evaluation";
import {
    DeserializeModule,
    installedRelease,
    internalsVerified,
    knownProperties,
    memoizeStructConversion,
    runtimePolicies,
    VERIFIED_RELEASES,
    withKnownProperties,
    withStacklessNotApplicable,
} from "eks-platform-policies/runtime";

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

    describe("withKnownProperties", () => {
        /** What a validator was given: whether it was the SDK's proxy, and what it read. */
        const seen: { proxy: boolean; read: unknown }[] = [];
        const read = (props: Record<string, unknown>) => {
            seen.push({ proxy: types.isProxy(props), read: undefined });
            seen[seen.length - 1].read = JSON.parse(JSON.stringify(props)) as unknown;
        };
        const resourcePolicy: ResourceValidationPolicy = { name: "r", description: "d", validateResource: (args) => read(args.props) };
        const stackPolicy: StackValidationPolicy = {
            name: "s",
            description: "d",
            validateStack: (args) => args.resources.forEach((r) => read(r.props)),
        };
        const [resource, stack] = withKnownProperties([resourcePolicy, stackPolicy]) as [ResourceValidationPolicy, StackValidationPolicy];
        const runResource = (props: Record<string, unknown>) =>
            (resource.validateResource as (a: ResourceValidationArgs, r: () => void) => void)(
                { type: "kubernetes:apps/v1:Deployment", name: "web", urn: "u", props } as unknown as ResourceValidationArgs,
                () => undefined,
            );
        beforeEach(() => {
            seen.length = 0;
        });

        it("gives a validator the value behind the proxy when it is plain data with no unknown value", () => {
            runResource(unknownCheckingProxy(structuredClone(object)));
            expect(seen).to.deep.equal([{ proxy: false, read: object }]);
            // A value that is not the SDK's proxy is given as it is, even one with the proxy's own key.
            const plain = structuredClone(object);
            expect(knownProperties(plain)).to.equal(plain);
            for (const odd of [null, undefined, "text", 7]) {
                expect(knownProperties(odd)).to.equal(odd);
            }
            const lookalike = { __getSpecialProxyTarget: { a: 1 } };
            expect(knownProperties(lookalike)).to.equal(lookalike);
            // A value that refers to itself is walked once.
            const cyclic: Record<string, unknown> = { a: [1] };
            cyclic.self = cyclic;
            expect(knownProperties(unknownCheckingProxy(cyclic))).to.equal(cyclic);
        });

        const unknownAt = (sentinel: string) => ({
            ...object,
            spec: { ...object.spec, template: { spec: { containers: [{ name: "app", image: sentinel }] } } },
        });
        // Each value made afresh for each run: a value's verdict is kept for as long as the value lives.
        for (const [what, make] of [
            ...Object.entries(UNKNOWN_SENTINELS).map(([kind, sentinel]): [string, () => Record<string, unknown>] => [
                `an unknown ${kind} in a list`,
                () => unknownAt(sentinel),
            ]),
            ["an asset", () => ({ ...object, code: new asset.StringAsset("x") })],
            ["an accessor", () => Object.defineProperty({ ...object }, "lazy", { get: () => 1, enumerable: true })],
            ["a symbol key", () => ({ ...object, [Symbol("s")]: 1 })],
            ["a function", () => ({ ...object, f: () => 1 })],
            ["a list that is no Array", () => ({ ...object, spec: { items: Object.setPrototypeOf([1], Object.prototype) as unknown } })],
            ["a proxy", () => ({ ...object, spec: new Proxy({ a: 1 }, {}) })],
        ] as [string, () => Record<string, unknown>][]) {
            it(`keeps the SDK's proxy over a value holding ${what}`, () => {
                const proxied = unknownCheckingProxy(make());
                expect(knownProperties(proxied)).to.equal(proxied);
                let thrown: unknown;
                try {
                    runResource(proxied);
                } catch (err) {
                    thrown = err;
                }
                // Reading an unknown value through the proxy throws the SDK's error, as over gRPC.
                expect(thrown === undefined ? "read" : isUnknownValueError(thrown) ? "unknown" : (thrown as Error).message).to.equal(
                    what.startsWith("an unknown") ? "unknown" : "read",
                );
                expect(seen.map((s) => s.proxy)).to.deep.equal([true]);
            });
        }

        it("gives the SDK's copies of a plain Struct without the proxy, and keeps it over an asset's or an unknown's", () => {
            const mod = freshSdkDeserialize();
            memoizeStructConversion(mod);
            const copies = [0, 1].map(() => mod.deserializeProperties(Struct.fromJavaScript(object), false));
            for (const copy of copies) {
                expect(knownProperties(unknownCheckingProxy(copy))).to.equal(copy);
            }
            for (const special of [{ code: { [specialSigKey]: specialAssetSig, text: "x" } }, { image: UNKNOWN_SENTINELS.string }]) {
                const copy = mod.deserializeProperties(Struct.fromJavaScript({ ...object, spec: special }), false);
                const proxied = unknownCheckingProxy(copy);
                expect(knownProperties(proxied), JSON.stringify(special)).to.equal(proxied);
            }
        });

        it("keeps a null-prototype object plain, and an unknown anywhere under it proxied", () => {
            // Under a plain object: the SDK wraps only what is `instanceof Object`.
            const bare = { spec: Object.assign(Object.create(null) as Record<string, unknown>, { a: { b: [1, "x", null, true] } }) };
            expect(knownProperties(unknownCheckingProxy(bare))).to.equal(bare);
            const symbolValue = { spec: { s: Symbol("s") } };
            expect(types.isProxy(knownProperties(unknownCheckingProxy(symbolValue)))).to.equal(true);
            const deep = { a: [{ b: [{ c: { d: UNKNOWN_SENTINELS.number } }] }] };
            expect(types.isProxy(knownProperties(unknownCheckingProxy(deep)))).to.equal(true);
        });

        it("gives a stack validator each resource's value in place, the references between them kept", () => {
            const known = { ...object, metadata: { name: "known" } };
            const unknown = unknownAt(UNKNOWN_SENTINELS.string);
            const parent = {
                type: "t",
                name: "p",
                urn: "p",
                props: unknownCheckingProxy(known),
                dependencies: [],
            } as unknown as PolicyResource;
            const child = {
                type: "t",
                name: "c",
                urn: "c",
                props: unknownCheckingProxy(unknown),
                parent,
                dependencies: [parent],
            } as unknown as PolicyResource;
            const resources = [parent, child];
            let given: PolicyResource[] = [];
            const [wrapped] = withKnownProperties([
                { ...stackPolicy, validateStack: (args: StackValidationArgs) => void (given = args.resources) },
            ]) as StackValidationPolicy[];
            void wrapped.validateStack({ resources } as unknown as StackValidationArgs, () => undefined);
            expect(given).to.equal(resources);
            expect(types.isProxy(parent.props)).to.equal(false);
            expect(parent.props).to.deep.equal(known);
            expect(child.parent?.props).to.equal(parent.props);
            expect(types.isProxy(child.props)).to.equal(true);
            void stack.validateStack({ resources: [parent] } as unknown as StackValidationArgs, () => undefined);
            expect(seen).to.deep.equal([{ proxy: false, read: known }]);
        });

        it("keeps a validator bound to a type bound to it, and wraps a list of validators each", () => {
            const typed = Object.assign((args: ResourceValidationArgs) => read(args.props), { __pulumiType: "aws:ec2/vpc:Vpc" });
            const typedStack = Object.assign((args: StackValidationArgs) => args.resources.forEach((r) => read(r.props)), {
                __pulumiType: "aws:ec2/vpc:Vpc",
            });
            const out = withKnownProperties([
                { name: "t", description: "d", validateResource: typed },
                { name: "l", description: "d", validateResource: [typed, typed] },
                { name: "s", description: "d", validateStack: typedStack },
                { name: "n", description: "d", validateResource: Object.assign(() => undefined, { __pulumiType: 7 }) },
            ]) as (ResourceValidationPolicy & StackValidationPolicy)[];
            expect((out[0].validateResource as { __pulumiType?: string }).__pulumiType).to.equal("aws:ec2/vpc:Vpc");
            expect(out[0].validateResource).to.not.equal(typed);
            const list = out[1].validateResource as unknown as { __pulumiType?: string }[];
            expect(list.map((v) => v.__pulumiType)).to.deep.equal(["aws:ec2/vpc:Vpc", "aws:ec2/vpc:Vpc"]);
            expect((out[2].validateStack as { __pulumiType?: string }).__pulumiType).to.equal("aws:ec2/vpc:Vpc");
            expect(Object.keys(out[3].validateResource as object)).to.deep.equal([]);
            (out[0].validateResource as (a: ResourceValidationArgs, r: () => void) => void)(
                { props: unknownCheckingProxy({ cidrBlock: "10.0.0.0/16" }) } as unknown as ResourceValidationArgs,
                () => undefined,
            );
            expect(seen).to.deep.equal([{ proxy: false, read: { cidrBlock: "10.0.0.0/16" } }]);
        });

        it("leaves a policy with neither validator as it is", () => {
            const odd = { name: "x", description: "d" };
            expect(withKnownProperties([odd])[0]).to.equal(odd);
        });
    });
});

describe("pack runtime: a dependency's internals only on the release they were verified on", () => {
    const { release, stockVariable } = VERIFIED_RELEASES["@pulumi/policy"];

    it("reads the installed release from the dependency's package.json, without its leading v", () => {
        // @pulumi/policy's package.json says "v1.21.0".
        const { version } = JSON.parse(fs.readFileSync(require.resolve("@pulumi/policy/package.json"), "utf8")) as { version: string };
        expect(installedRelease("@pulumi/policy")).to.match(/^\d+\.\d+\.\d+/);
        expect(version.endsWith(installedRelease("@pulumi/policy"))).to.equal(true);
    });

    it("uses the internals on the verified release only, and never when the stock path is asked for", () => {
        expect(internalsVerified("@pulumi/policy", release, {})).to.equal(true);
        // The next patch release, and the same release spelt as npm never gives it.
        const next = release.replace(/\d+$/, (patch) => String(Number(patch) + 1));
        expect(internalsVerified("@pulumi/policy", next, {})).to.equal(false);
        expect(internalsVerified("@pulumi/policy", `v${release}`, {})).to.equal(false);
        expect(internalsVerified("@pulumi/policy", release, { [stockVariable]: "1" })).to.equal(false);
        expect(internalsVerified("@pulumi/policy", release, { [stockVariable]: "0" })).to.equal(true);
    });

    it("on another release: the policies keep their validators' proxy (the stock path), only notApplicable is stackless", () => {
        const seen: unknown[] = [];
        const policy: ResourceValidationPolicy = {
            name: "p",
            description: "d",
            enforcementLevel: "mandatory",
            validateResource: (args) => {
                seen.push(args.props);
            },
        };
        const stock = runtimePolicies([policy], "9.9.9");
        expect(stock.internals).to.equal(false);
        const proxied = unknownCheckingProxy({ a: 1 });
        const validate = (stock.policies[0] as ResourceValidationPolicy).validateResource as (
            a: ResourceValidationArgs,
            r: () => void,
        ) => void;
        validate({ props: proxied } as unknown as ResourceValidationArgs, () => undefined);
        expect(types.isProxy(seen[0]), "the SDK's proxy is handed on as is").to.equal(true);
    });
});
