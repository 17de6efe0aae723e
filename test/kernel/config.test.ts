import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import {
    cachedValidator,
    configDefaults,
    configProblems,
    PolicyConfigError,
    problemList,
    readConfig,
    validatorCacheDir,
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

describe("policy lib: config validators kept between runs", () => {
    // A schema no policy has, so no earlier test or run compiled it.
    const schemaText = (tag: string) =>
        JSON.stringify({
            additionalProperties: false,
            properties: { [`knob-${tag}`]: { minimum: 1, type: "integer" }, names: { items: { type: "string" }, type: "array" } },
            required: [`knob-${tag}`],
            type: "object",
        });
    const bad = (tag: string) => ({ [`knob-${tag}`]: 0, names: ["a", 3], extra: true });
    const errorsOf = (validate: ReturnType<typeof cachedValidator>, data: unknown) => {
        expect(validate(data)).to.equal(false);
        return JSON.stringify(validate.errors);
    };
    let dir: string;
    beforeEach(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "ajv-cache-"));
    });
    afterEach(() => {
        fs.rmSync(dir, { recursive: true, force: true });
    });

    it("writes one entry on the first compile and reads it back with the same verdicts", () => {
        const tag = `${process.pid}-${Date.now()}-a`;
        const compiled = cachedValidator(schemaText(tag), dir);
        const entries = fs.readdirSync(dir);
        expect(entries).to.have.length(1);
        expect(entries[0]).to.match(/^[0-9a-f]{64}\.js$/);
        const stored = cachedValidator(schemaText(tag), dir);
        // The entry's own export (Ajv's standalone code), not a compile of this run.
        expect(stored).to.not.equal(compiled);
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        expect(stored).to.equal(require(path.join(dir, entries[0])));
        expect(fs.readdirSync(dir)).to.deep.equal(entries);
        expect(errorsOf(stored, bad(tag))).to.equal(errorsOf(compiled, bad(tag)));
        expect(errorsOf(stored, bad(tag)))
            .to.include("minimum")
            .and.include("additionalProperties")
            .and.include('"/names/1"');
        expect(stored({ [`knob-${tag}`]: 2, names: [] })).to.equal(true);
    });

    it("keeps one entry per schema: a changed schema is compiled, not served the old validator", () => {
        const [a, b] = [`${process.pid}-${Date.now()}-b`, `${process.pid}-${Date.now()}-c`];
        cachedValidator(schemaText(a), dir);
        const other = cachedValidator(schemaText(b), dir);
        expect(fs.readdirSync(dir)).to.have.length(2);
        // The second schema requires its own key: data for the first fails it.
        expect(other({ [`knob-${a}`]: 2, names: [] })).to.equal(false);
        expect(other({ [`knob-${b}`]: 2, names: [] })).to.equal(true);
    });

    for (const [what, broken] of [
        ["exports no function", "module.exports = 42;"],
        ["is not JavaScript", "this is not JavaScript {"],
    ]) {
        it(`compiles again over an entry that ${what}, and replaces it`, () => {
            const tag = `${process.pid}-${Date.now()}-${what.length}`;
            // Written by an earlier run (its own process): this one has never loaded it.
            const compiled = cachedValidator(schemaText(tag), dir);
            const [entry] = fs.readdirSync(dir);
            const later = fs.mkdtempSync(path.join(os.tmpdir(), "ajv-cache-"));
            try {
                fs.writeFileSync(path.join(later, entry), broken);
                const again = cachedValidator(schemaText(tag), later);
                expect(errorsOf(again, bad(tag))).to.equal(errorsOf(compiled, bad(tag)));
                // Ajv's standalone code for the schema (its function numbers differ from compile to compile).
                expect(fs.readFileSync(path.join(later, entry), "utf8"))
                    .to.match(/^"use strict";module\.exports = validate\d+;/)
                    .and.include(`knob-${tag}`);
                // Read back from the replaced entry, not from a module cached while it was broken.
                const reread = cachedValidator(schemaText(tag), later);
                expect(errorsOf(reread, bad(tag))).to.equal(errorsOf(compiled, bad(tag)));
                expect(fs.readdirSync(later)).to.deep.equal([entry]);
            } finally {
                fs.rmSync(later, { recursive: true, force: true });
            }
        });
    }

    it("still validates where the cache cannot be written (a read-only install)", () => {
        const tag = `${process.pid}-${Date.now()}-e`;
        const file = path.join(dir, "a-file");
        fs.writeFileSync(file, "");
        const validate = cachedValidator(schemaText(tag), path.join(file, "cache"));
        expect(errorsOf(validate, bad(tag))).to.include("minimum");
        expect(fs.readdirSync(dir)).to.deep.equal(["a-file"]);
    });

    it("keeps its entries beside Ajv, in the node_modules/.cache the launcher's swc cache uses", () => {
        expect(validatorCacheDir()).to.equal(
            path.join(path.dirname(require.resolve("ajv/package.json")), "..", ".cache", "eks-platform", "ajv"),
        );
        expect(path.basename(path.resolve(validatorCacheDir(), "..", "..", ".."))).to.equal("node_modules");
    });
});
