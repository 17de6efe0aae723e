import { expect } from "chai";
import { LabelSelector, readSelector, SelectorIndex, selectorMatches } from "eks-platform-kernel";

const labels = { app: "api", tier: "web" };
const sel = (s: unknown) => readSelector(s) as LabelSelector;

describe("policy lib: label selectors", () => {
    it("matches matchLabels as a subset of the pod labels", () => {
        expect(selectorMatches(sel({ matchLabels: { app: "api" } }), labels)).to.equal(true);
        expect(selectorMatches(sel({ matchLabels: { app: "api", tier: "web" } }), labels)).to.equal(true);
        expect(selectorMatches(sel({ matchLabels: { app: "web" } }), labels)).to.equal(false);
        expect(selectorMatches(sel({ matchLabels: { app: "api", zone: "a" } }), labels)).to.equal(false);
    });

    it("applies In, NotIn, Exists and DoesNotExist like the API server", () => {
        const m = (key: string, operator: string, values?: string[]) =>
            selectorMatches(sel({ matchExpressions: [{ key, operator, values }] }), labels);
        expect(m("tier", "In", ["web", "db"])).to.equal(true);
        expect(m("tier", "In", ["db"])).to.equal(false);
        expect(m("zone", "In", ["a"])).to.equal(false);
        expect(m("tier", "NotIn", ["db"])).to.equal(true);
        expect(m("tier", "NotIn", ["web"])).to.equal(false);
        expect(m("zone", "NotIn", ["a"]), "NotIn matches a missing key").to.equal(true);
        expect(m("app", "Exists")).to.equal(true);
        expect(m("zone", "Exists")).to.equal(false);
        expect(m("zone", "DoesNotExist")).to.equal(true);
        expect(m("app", "DoesNotExist")).to.equal(false);
    });

    it("ANDs matchLabels and every expression", () => {
        expect(
            selectorMatches(
                sel({ matchLabels: { app: "api" }, matchExpressions: [{ key: "tier", operator: "In", values: ["db"] }] }),
                labels,
            ),
        ).to.equal(false);
        expect(
            selectorMatches(sel({ matchLabels: { app: "api" }, matchExpressions: [{ key: "tier", operator: "Exists" }] }), labels),
        ).to.equal(true);
    });

    it("selects everything with an empty selector and nothing with a missing or malformed one", () => {
        expect(selectorMatches(sel({}), labels)).to.equal(true);
        expect(selectorMatches(readSelector(undefined), labels)).to.equal(false);
        expect(selectorMatches(readSelector(null), labels)).to.equal(false);
        expect(selectorMatches(sel({ matchExpressions: [{ key: "app", operator: "Near", values: ["api"] }] }), labels)).to.equal(false);
        expect(selectorMatches(sel({ matchExpressions: [{ key: "app", operator: "In", values: [] }] }), labels)).to.equal(false);
        expect(selectorMatches(sel({ matchExpressions: [{ key: "app", operator: "Exists", values: ["x"] }] }), labels)).to.equal(false);
    });

    it("marks selectors the API server refuses as invalid, never as the empty selector that matches everything", () => {
        for (const bad of [
            { matchLabels: "app=api" },
            { matchLabels: ["app", "api"] },
            { matchLabels: { app: 3 } },
            { matchLabels: { app: "api/v1" } },
            { matchLabels: { "-app": "api" } },
            { matchExpressions: { key: "app", operator: "In", values: ["api"] } },
            { matchExpressions: "app in (api)" },
            { matchExpressions: ["app"] },
            { matchExpressions: [{ operator: "Exists" }] },
            { matchExpressions: [{ key: "app", operator: "in", values: ["api"] }] },
            { matchExpressions: [{ key: "app", operator: "In", values: "api" }] },
            { matchExpressions: [{ key: "app", operator: "In", values: [3] }] },
            { matchExpressions: [{ key: "app", operator: "In" }] },
            { matchExpressions: [{ key: "app", operator: "DoesNotExist", values: ["x"] }] },
        ]) {
            const s = readSelector(bad);
            expect(s?.invalid, JSON.stringify(bad)).to.be.a("string");
            expect(selectorMatches(s, labels), JSON.stringify(bad)).to.equal(false);
            const index = new SelectorIndex<string>();
            index.add("prod", s, "bad");
            expect(index.matching("prod", labels), JSON.stringify(bad)).to.deep.equal([]);
        }
        expect(readSelector({ matchLabels: "app=api" })?.invalid).to.match(/matchLabels is the string "app=api", not a map of labels/);
        expect(readSelector({ matchExpressions: [{ key: "app", operator: "Near" }] })?.invalid).to.match(
            /matchExpressions\[0\]\.operator is the string "Near", not one of In, NotIn, Exists, DoesNotExist/,
        );
        // null fields are the same as absent ones; valid prefixed keys are fine.
        expect(readSelector({ matchLabels: null, matchExpressions: null })?.invalid).to.equal(undefined);
        expect(readSelector({ matchLabels: { "app.kubernetes.io/name": "api" } })?.invalid).to.equal(undefined);
    });

    it("indexes selectors by namespace and finds exactly the matching ones", () => {
        const index = new SelectorIndex<string>();
        index.add("prod", sel({ matchLabels: { app: "api" } }), "api-pdb");
        index.add("prod", sel({ matchExpressions: [{ key: "tier", operator: "In", values: ["web"] }] }), "web-pdb");
        index.add("prod", sel({ matchLabels: { app: "worker" } }), "worker-pdb");
        index.add("web", sel({ matchLabels: { app: "api" } }), "web-pdb");
        index.add("prod", readSelector(undefined), "null-pdb");
        expect(index.matching("prod", labels)).to.have.members(["api-pdb", "web-pdb"]);
        expect(index.matching("web", labels)).to.deep.equal(["web-pdb"]);
        expect(index.matching("dev", labels)).to.deep.equal([]);
    });

    it("stays linear: 10k label sets against 10k selectors each test about one selector, not all of their namespace's", () => {
        // Work, not time: each selector the index tests reads its matchLabels once (counted here).
        let tested = 0;
        const counted = (s: LabelSelector) =>
            new Proxy(s, {
                get(target, key, receiver) {
                    if (key === "matchLabels") {
                        tested++;
                    }
                    return Reflect.get(target, key, receiver) as unknown;
                },
            });
        const probe = new SelectorIndex<number>();
        const selectors = Array.from({ length: 10_000 }, (_, i) => sel({ matchLabels: { app: `app${i}` } }));
        selectors.forEach((s, i) => probe.add(`ns${i % 100}`, counted(s), i));
        tested = 0; // only the queries count, not the indexing
        let found = 0;
        for (let i = 0; i < 10_000; i++) {
            found += probe.matching(`ns${i % 100}`, { app: `app${i}`, tier: "web" }).length;
        }
        expect(found).to.equal(10_000);
        // A scan of the namespace would test 100 selectors per query (1,000,000 in all).
        expect(tested, "selectors tested").to.be.at.most(2 * 10_000);
    });
});
