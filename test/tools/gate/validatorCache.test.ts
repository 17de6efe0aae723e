import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { compileValidator, configProblems, setValidatorSource } from "eks-platform-kernel";
import { runGate } from "../../../tools/gate/gate";
import { InProcessPack } from "../../../tools/gate/inProcessPack";
import { cachedValidator, validatorCacheDir } from "../../../tools/gate/validatorCache";
import { ROOT } from "../../mocks";

/** A pack whose policies take no config (test/tools/gate/inProcessPack.test.ts). */
const PRINTING = path.join(ROOT, "test", "fixtures", "pack", "printing");

describe("policy config validators kept between runs (tools/gate/validatorCache.ts)", () => {
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
    it("is where the gate's process gets every validator it has not compiled yet, once a gate opens", async () => {
        setValidatorSource(compileValidator);
        const tag = `${process.pid}-${Date.now()}-gate`;
        const entry = () =>
            fs
                .readdirSync(validatorCacheDir())
                .filter((f) => fs.readFileSync(path.join(validatorCacheDir(), f), "utf8").includes(`knob-${tag}`));
        const schema = JSON.parse(schemaText(tag)) as { properties: Record<string, object>; required: string[] };
        configProblems("before", schema, bad(tag));
        expect(fs.existsSync(validatorCacheDir()) ? entry() : []).to.deep.equal([]);
        const pack = await InProcessPack.start(PRINTING);
        try {
            await runGate({ packDir: PRINTING, stack: "dev", project: "test", resources: [], pack: Promise.resolve(pack) });
        } finally {
            pack.close();
        }
        // The same rule as a new schema object, with a knob more: not compiled in this process yet.
        const after = { ...schema, properties: { ...schema.properties, more: { type: "string" } } };
        expect(configProblems("after", after, bad(tag))).to.include("after.names[1]: must be a string, not 3");
        const written = entry();
        fs.rmSync(path.join(validatorCacheDir(), written[0] ?? "none"), { force: true });
        expect(written).to.have.length(1);
    });
});
