import { expect } from "chai";
import type { ValidateFunction } from "ajv";
import {
    compileValidator,
    configDefaults,
    configProblems,
    PolicyConfigError,
    problemList,
    readConfig,
    setValidatorSource,
} from "eks-platform-kernel";

describe("policy lib: config", () => {
    // A new object for every test: the reader keeps a validator per schema object, and a runner
    // that stays up between test runs (Stryker's) would otherwise keep the first run's.
    let schema = freshSchema();
    beforeEach(() => {
        schema = freshSchema();
    });
    function freshSchema() {
        return {
            properties: {
                min: { type: "integer" as const, minimum: 0, default: 30 },
                max: { type: "integer" as const, minimum: 1, default: 120 },
                names: { type: "array" as const, items: { type: "string" as const }, default: ["a"] },
            },
        };
    }

    it("applies the schema defaults under what is given, ignoring enforcementLevel", () => {
        expect(configDefaults(schema)).to.deep.equal({ min: 30, max: 120, names: ["a"] });
        expect(readConfig("p", schema, { max: 60, enforcementLevel: "mandatory" })).to.deep.equal({ min: 30, max: 60, names: ["a"] });
    });

    it("names every bad key path in one error", () => {
        try {
            readConfig("p", schema, { min: -1, max: "2", names: ["ok", 3], mni: 1 });
            expect.fail("expected a PolicyConfigError");
        } catch (err) {
            expect(err).to.be.instanceOf(PolicyConfigError);
            const message = (err as Error).message;
            expect(message).to.include('Invalid config for policy "p" (4 problems)');
            expect(message).to.include("p.min: must be ≥ 0");
            expect(message).to.include("p.max: must be an integer");
            expect(message).to.include("p.names[1]: must be a string");
            expect(message).to.include("p.mni: unknown key");
        }
    });

    it("says a missing required key is required and lists an enum's values", () => {
        const strict = {
            properties: { level: { type: "string" as const, enum: ["baseline", "restricted"] } },
            required: ["level"],
        };
        expect(() => readConfig("p", strict, {})).to.throw(/p\.level: is required/);
        expect(() => readConfig("p", strict, { level: "strict" })).to.throw(
            /p\.level: must be one of "baseline", "restricted", not "strict"/,
        );
        expect(readConfig("p", strict, { level: "baseline" })).to.deep.equal({ level: "baseline" });
    });

    it("lists problems one a line under a count in the singular or plural (program, pack and tools alike)", () => {
        expect(problemList("Invalid x", ["a: bad"])).to.equal("Invalid x (1 problem):\n  - a: bad");
        expect(problemList("Invalid x", ["a: bad", "b: worse"])).to.equal("Invalid x (2 problems):\n  - a: bad\n  - b: worse");
    });

    it("runs cross-key checks after the per-key ones", () => {
        expect(() =>
            readConfig<{ min: number; max: number }>("p", schema, { min: 200 }, (c) => (c.min > c.max ? ["min: above max"] : [])),
        ).to.throw(/p\.min: above max/);
    });

    // The gate's copy of a schema arrives with its keys sorted, the policy's in the order written.
    it("lists problems in key order, whatever order the schema was built in", () => {
        const declared = { properties: { zeta: { type: "integer" as const }, alpha: { type: "string" as const } } };
        const sorted = { properties: { alpha: { type: "string" as const }, zeta: { type: "integer" as const } } };
        const bad = { zeta: "x", alpha: 1 };
        const problems = configProblems("p", declared, bad);
        expect(problems).to.deep.equal(["p.alpha: must be a string, not 1", 'p.zeta: must be an integer, not "x"']);
        expect(configProblems("p", sorted, bad)).to.deep.equal(problems);
    });
});

describe("policy lib: config validators from the source a tool gives", () => {
    afterEach(() => setValidatorSource(compileValidator));

    it("asks the source once per schema this process has not compiled yet, and validates with what it gives", () => {
        const asked: string[] = [];
        let used = 0;
        setValidatorSource((text): ValidateFunction => {
            asked.push(text);
            const compiled = compileValidator(text);
            const given = ((data: unknown) => {
                used++;
                return compiled(data);
            }) as ValidateFunction;
            return Object.defineProperty(given, "errors", { get: () => compiled.errors });
        });
        // A knob no policy has, so no earlier test compiled this schema.
        const knob = `knob-${process.pid}-${Date.now()}`;
        const schema = { properties: { [knob]: { type: "integer" as const, minimum: 1 } } };
        expect(configProblems("p", schema, { [knob]: 0 })).to.deep.equal([`p.${knob}: must be ≥ 1, not 0`]);
        expect(configProblems("p", { ...schema }, { [knob]: 2 })).to.deep.equal([]);
        expect(asked).to.have.length(1);
        expect(used).to.equal(2);
        expect(JSON.parse(asked[0])).to.deep.equal({ additionalProperties: false, properties: schema.properties, type: "object" });
    });
});
