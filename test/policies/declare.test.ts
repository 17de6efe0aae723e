import { expect } from "chai";
import { validateResourceOfType } from "@pulumi/policy";
import { PolicyConfigError } from "eks-platform-kernel";
import { declarationOf, declareResourcePolicy, declareStackPolicy, Knobs } from "eks-platform-policies";
import { runResource, runStack, TestResource } from "./harness";

interface Bounds {
    min: number;
    max: number;
}

const knobs: Knobs<Bounds> = {
    min: { type: "integer", minimum: 0, default: 30, description: "Lowest." },
    max: { type: "integer", minimum: 1, default: 120, description: "Highest." },
};

const docs = { requires: "bounds", checks: "bounds, in full", knobs: { max: "the top" } };
const vpc: TestResource = { type: "aws:ec2/vpc:Vpc", name: "main", props: {} };
const subnet: TestResource = { type: "aws:ec2/subnet:Subnet", name: "a", props: {} };

/** A stack policy with the `Bounds` knobs that judges nothing. */
const boundsPolicy = () =>
    declareStackPolicy<Bounds>({
        name: "test-bounds",
        description: "Bounds hold for every test resource of the stack.",
        enforcementLevel: "advisory",
        config: knobs,
        docs,
        validateStack: () => undefined,
    });

describe("declaring a policy (policies/declare.ts)", () => {
    it("hands the SDK exactly a hand-written policy's fields, in house-style order", () => {
        const stack = boundsPolicy();
        expect(Object.keys(stack)).to.deep.equal(["name", "description", "enforcementLevel", "configSchema", "validateStack"]);
        expect(stack.configSchema).to.deep.equal({ properties: knobs });
        const bare = declareStackPolicy({
            name: "test-bare",
            description: "A policy without knobs has no configSchema at all.",
            enforcementLevel: "mandatory",
            docs,
            validateStack: () => undefined,
        });
        expect(Object.keys(bare)).to.deep.equal(["name", "description", "enforcementLevel", "validateStack"]);
    });

    it("passes a knob-less resource validator through untouched (validateResourceOfType keeps its type filter)", () => {
        const typed = validateResourceOfType(Object.assign(function Vpc() {}, { __pulumiType: vpc.type }) as never, () => undefined);
        const policy = declareResourcePolicy({
            name: "test-typed",
            description: "A validator bound to one type stays bound to it.",
            enforcementLevel: "mandatory",
            docs,
            validateResource: typed,
        });
        expect(policy.validateResource).to.equal(typed);
        expect("configSchema" in policy).to.equal(false);
    });

    it("gives the validator its config read: defaults under what is given, cross-key checks named by the policy", async () => {
        const seen: Bounds[] = [];
        const policy = declareStackPolicy<Bounds>({
            name: "test-bounds",
            description: "Bounds hold for every test resource of the stack.",
            enforcementLevel: "advisory",
            config: knobs,
            checkConfig: (c) => (c.min > c.max ? [`min: ${c.min} is above max ${c.max}`] : []),
            docs,
            validateStack: (_args, _report, config) => {
                seen.push(config);
            },
        });
        await runStack(policy, [vpc], { max: 60 });
        expect(seen).to.deep.equal([{ min: 30, max: 60 }]);
        let err: unknown;
        await runStack(policy, [vpc], { min: 90, max: 60 }).catch((e: unknown) => (err = e));
        expect(err).to.be.instanceOf(PolicyConfigError);
        expect((err as Error).message).to.include("test-bounds.min: 90 is above max 60");
    });

    it("reads a resource policy's config only past `select`: a bad config fails where the policy judges, not elsewhere", async () => {
        const selected: string[] = [];
        const policy = declareResourcePolicy<Bounds, string>({
            name: "test-vpc-bounds",
            description: "Bounds hold for every VPC of the stack.",
            enforcementLevel: "mandatory",
            config: knobs,
            docs,
            select: (args) => (args.type === vpc.type ? args.name : args.notApplicable("not a VPC")),
            validateResource: (_args, report, config, name) => {
                selected.push(name);
                report(`${name} ${config.min}`);
            },
        });
        expect((await runResource(policy, subnet, { min: "x" })).notApplicable).to.equal("not a VPC");
        let err: unknown;
        await runResource(policy, vpc, { min: "x" }).catch((e: unknown) => (err = e));
        expect(err).to.be.instanceOf(PolicyConfigError);
        expect((await runResource(policy, vpc)).violations.map((v) => v.message)).to.deep.equal(["main 30"]);
        expect(selected).to.deep.equal(["main"]);
    });

    it("keeps what the SDK never sees beside the policy, for the docs and the catalogue test", () => {
        const policy = boundsPolicy();
        expect(declarationOf(policy)).to.deep.equal({
            name: "test-bounds",
            description: "Bounds hold for every test resource of the stack.",
            enforcementLevel: "advisory",
            kind: "stack",
            knobs,
            docs,
        });
        expect(declarationOf({ ...policy })).to.equal(undefined);
    });
});
