import { expect } from "chai";
import fc from "fast-check";
import { isUnknownSentinel } from "eks-platform-kernel";
import { policies } from "eks-platform-policies";
import { expectClean } from "./expect";
import { TestResource, UNKNOWN } from "./harness";
import { suites } from "./suites";
import { pathsOf } from "../paths";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path to a value in `value` (leaves and containers), as key lists, but its own. */
function paths(value: unknown): (string | number)[][] {
    return pathsOf(value).slice(1);
}

function replaceAt<T>(value: T, at: (string | number)[], replacement: unknown): T {
    const copy = JSON.parse(JSON.stringify(value)) as Record<string | number, unknown>;
    let node = copy;
    for (const key of at.slice(0, -1)) {
        node = node[key] as Record<string | number, unknown>;
    }
    node[at[at.length - 1]] = replacement;
    return copy as T;
}

function sentinelFor(value: unknown): string {
    if (Array.isArray(value)) return UNKNOWN.array;
    if (value && typeof value === "object") return UNKNOWN.object;
    if (typeof value === "number") return UNKNOWN.number;
    if (typeof value === "boolean") return UNKNOWN.boolean;
    return UNKNOWN.string;
}

function valueAt(value: unknown, at: (string | number)[]): unknown {
    return at.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], value);
}

describe("policies: every policy is covered by the robustness suites", () => {
    it("has a suite per policy of the pack", () => {
        expect(suites.map((s) => s.name).sort()).to.deep.equal(policies.map((p) => p.name).sort());
        for (const s of suites) {
            expect(s.compliant.length, s.name).to.be.greaterThan(0);
        }
    });

    it("the compliant sets really are compliant (the sweeps below start from a pass)", async () => {
        for (const s of suites) {
            for (const set of s.compliant) {
                expectClean(await s.run(set));
            }
        }
    });
});

describe("policies: values unknown at preview (the SDK's unknownCheckingProxy)", function () {
    this.timeout(120_000);

    it("never invent a violation, never throw, and hand every undecided value to the analyzer", async () => {
        let cases = 0;
        let undecided = 0;
        for (const s of suites) {
            for (const set of s.compliant) {
                for (let i = 0; i < set.length; i++) {
                    for (const at of paths(set[i].props)) {
                        const original = valueAt(set[i].props, at);
                        if (isUnknownSentinel(original)) {
                            continue;
                        }
                        const mutated = set.map((r, j): TestResource =>
                            j === i ? { ...r, props: replaceAt(r.props, at, sentinelFor(original)) } : r,
                        );
                        const outcome = await s.run(mutated);
                        const where = `${s.name}: ${set[i].type} ${at.join(".")}`;
                        expect(
                            outcome.violations.map((v) => v.message),
                            where,
                        ).to.deep.equal([]);
                        // A value unknown at preview is known at apply: "can't run" now, never "undecided".
                        expect(
                            outcome.undecided.map((v) => v.message),
                            where,
                        ).to.deep.equal([]);
                        if (outcome.cantRun) {
                            undecided++;
                            expect(outcome.cantRun, where).to.match(
                                /^can't run policy '.+' from policy pack .* during preview: .+ can't be known during preview/,
                            );
                        }
                        cases++;
                    }
                }
            }
        }
        // Both outcomes must occur: values the verdict depends on, and values it does not.
        expect(cases).to.be.greaterThan(300);
        expect(undecided).to.be.greaterThan(50);
        expect(undecided).to.be.lessThan(cases);
    });
});

describe("policies: never throw on odd input (fast-check)", function () {
    this.timeout(120_000);

    const json: fc.Arbitrary<Json> = fc.jsonValue() as fc.Arbitrary<Json>;

    it("any value at any path of a compliant resource", async () => {
        for (const s of suites) {
            for (const set of s.compliant) {
                const targets = set.flatMap((r, i) => paths(r.props).map((at) => ({ i, at })));
                await fc.assert(
                    fc.asyncProperty(fc.constantFrom(...targets), json, async ({ i, at }, value) => {
                        const mutated = set.map((r, j): TestResource => (j === i ? { ...r, props: replaceAt(r.props, at, value) } : r));
                        const outcome = await s.run(mutated);
                        for (const v of outcome.violations) {
                            expect(v.message).to.match(/^.+\. Why: .+\. Fix: .+\.$/s);
                        }
                        for (const v of outcome.undecided) {
                            expect(v.message).to.match(/^Undecided: .+\. Why: .+\. To decide it: .+\.$/s);
                        }
                    }),
                    { numRuns: 150 },
                );
            }
        }
    });

    it("arbitrary props on every resource type the pack judges", async () => {
        const types = [...new Set(suites.flatMap((s) => s.compliant.flat().map((r) => r.type)))];
        const resource = fc.record({
            type: fc.constantFrom(...types),
            name: fc.string({ maxLength: 8 }),
            props: fc.dictionary(fc.string({ maxLength: 12 }), json),
        });
        await fc.assert(
            fc.asyncProperty(fc.array(resource, { maxLength: 6 }), async (resources) => {
                for (const s of suites) {
                    await s.run(resources.length > 0 ? resources : [{ type: types[0], name: "x", props: {} }]);
                }
            }),
            { numRuns: 200 },
        );
    });
});
