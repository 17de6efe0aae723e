import { expect } from "chai";
import { configDefaults, PolicyConfigError, readConfig } from "../../policies/lib/config";
import { formatSeconds, parseDuration } from "../../policies/lib/duration";
import { parseIntOrPercent, scaledValue } from "../../policies/lib/intOrPercent";
import { kubernetesKind, preStopSleepSeconds, workloadKind } from "../../policies/lib/kubernetes";
import { LabelSelector, readSelector, SelectorIndex, selectorMatches } from "../../policies/lib/selector";

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

    it("indexes selectors by namespace and finds exactly the matching ones", () => {
        const index = new SelectorIndex<string>();
        index.add("prod", sel({ matchLabels: { app: "api" } }), "api-pdb");
        index.add("prod", sel({ matchExpressions: [{ key: "tier", operator: "In", values: ["web"] }] }), "web-pdb");
        index.add("prod", sel({ matchLabels: { app: "worker" } }), "worker-pdb");
        index.add("staging", sel({ matchLabels: { app: "api" } }), "staging-pdb");
        index.add("prod", readSelector(undefined), "null-pdb");
        expect(index.matching("prod", labels)).to.have.members(["api-pdb", "web-pdb"]);
        expect(index.matching("staging", labels)).to.deep.equal(["staging-pdb"]);
        expect(index.matching("dev", labels)).to.deep.equal([]);
    });

    it("stays linear: 10k selectors and 10k label sets index and match in well under a second", () => {
        const index = new SelectorIndex<number>();
        for (let i = 0; i < 10_000; i++) {
            index.add(`ns${i % 100}`, sel({ matchLabels: { app: `app${i}` } }), i);
        }
        const start = Date.now();
        let found = 0;
        for (let i = 0; i < 10_000; i++) {
            found += index.matching(`ns${i % 100}`, { app: `app${i}`, tier: "web" }).length;
        }
        expect(found).to.equal(10_000);
        expect(Date.now() - start).to.be.lessThan(1000);
    });
});

describe("policy lib: int-or-percent and durations", () => {
    it("parses integers and percentages, rejecting everything else", () => {
        expect(parseIntOrPercent(1)).to.deep.equal({ kind: "int", value: 1 });
        expect(parseIntOrPercent("25%")).to.deep.equal({ kind: "percent", value: 25 });
        expect(parseIntOrPercent("0%")).to.deep.equal({ kind: "percent", value: 0 });
        for (const bad of [-1, 1.5, "abc", "%", "-5%", "1.5%", null, {}, [], NaN]) {
            expect(parseIntOrPercent(bad), JSON.stringify(bad)).to.equal(undefined);
        }
    });

    it("scales percentages up, as the disruption controller rounds them", () => {
        expect(scaledValue({ kind: "percent", value: 90 }, 3)).to.equal(3); // 2.7 → 3
        expect(scaledValue({ kind: "percent", value: 50 }, 3)).to.equal(2); // 1.5 → 2
        expect(scaledValue({ kind: "percent", value: 10 }, 3)).to.equal(1); // 0.3 → 1
        expect(scaledValue({ kind: "int", value: 2 }, 3)).to.equal(2);
    });

    it("parses Go durations to seconds", () => {
        expect(parseDuration("30s")).to.equal(30);
        expect(parseDuration("10m")).to.equal(600);
        expect(parseDuration("1h30m")).to.equal(5400);
        expect(parseDuration("48h")).to.equal(172_800);
        expect(parseDuration("1.5h")).to.equal(5400);
        expect(parseDuration("0")).to.equal(0);
        for (const bad of ["", "Never", "10", "1d", "h", 30, null, "5 m"]) {
            expect(parseDuration(bad), JSON.stringify(bad)).to.equal(undefined);
        }
        expect(formatSeconds(7200)).to.equal("2h");
        expect(formatSeconds(90)).to.equal("90s");
    });
});

describe("policy lib: Kubernetes kinds", () => {
    it("reads built-in kinds from the type token and custom resources from apiVersion/kind", () => {
        expect(kubernetesKind("kubernetes:apps/v1:Deployment", {})).to.deep.equal({ group: "apps", version: "v1", kind: "Deployment" });
        expect(kubernetesKind("kubernetes:core/v1:Pod", {})).to.deep.equal({ group: "", version: "v1", kind: "Pod" });
        expect(kubernetesKind("kubernetes:karpenter.sh/v1:NodePool", { apiVersion: "karpenter.sh/v1", kind: "NodePool" })).to.deep.equal({
            group: "karpenter.sh",
            version: "v1",
            kind: "NodePool",
        });
        expect(
            kubernetesKind("kubernetes:apiextensions.k8s.io:CustomResource", { apiVersion: "karpenter.sh/v1", kind: "NodePool" }),
        ).to.deep.equal({ group: "karpenter.sh", version: "v1", kind: "NodePool" });
        expect(kubernetesKind("aws:ec2/vpc:Vpc", {})).to.equal(undefined);
        expect(workloadKind("kubernetes:apps/v1:DeploymentPatch", {})).to.equal(undefined);
        expect(workloadKind("kubernetes:batch/v1:CronJob", {})).to.equal("CronJob");
    });

    it("reads preStop sleeps from the sleep action and from exec commands", () => {
        expect(preStopSleepSeconds({ lifecycle: { preStop: { sleep: { seconds: 7 } } } })).to.equal(7);
        expect(preStopSleepSeconds({ lifecycle: { preStop: { exec: { command: ["sleep", "5"] } } } })).to.equal(5);
        expect(
            preStopSleepSeconds({ lifecycle: { preStop: { exec: { command: ["/bin/sh", "-c", "sleep 10 && nginx -s quit; sleep 2"] } } } }),
        ).to.equal(12);
        expect(preStopSleepSeconds({ lifecycle: { preStop: { httpGet: { path: "/drain", port: 8080 } } } })).to.equal(0);
        expect(preStopSleepSeconds({})).to.equal(0);
    });
});

describe("policy lib: config", () => {
    const schema = {
        properties: {
            min: { type: "integer" as const, minimum: 0, default: 30 },
            max: { type: "integer" as const, minimum: 1, default: 120 },
            names: { type: "array" as const, items: { type: "string" as const }, default: ["a"] },
        },
    };

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

    it("runs cross-key checks after the per-key ones", () => {
        expect(() =>
            readConfig<{ min: number; max: number }>("p", schema, { min: 200 }, (c) => (c.min > c.max ? ["min: above max"] : [])),
        ).to.throw(/p\.min: above max/);
    });
});
