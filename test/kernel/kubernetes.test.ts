import { expect } from "chai";
import {
    compareQuantities,
    configDefaults,
    formatSeconds,
    karpenterDuration,
    LabelSelector,
    parseDuration,
    parseIntOrPercent,
    PolicyConfigError,
    problemList,
    readConfig,
    readIntOrPercent,
    readSelector,
    scaledValue,
    SelectorIndex,
    selectorMatches,
} from "eks-platform-kernel";
import { kubernetesKind, preStopSleep, workloadKind } from "eks-platform-kernel/policy";

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

describe("policy lib: exact quantity comparison", () => {
    it("compares equal quantities as equal whatever their notation, where floats fail", () => {
        expect(0.001 * 1001 === 1.001, "the float trap this avoids").to.equal(false);
        for (const [a, b] of [
            ["1001m", "1.001"],
            ["1000m", "1"],
            ["1024Mi", "1Gi"],
            ["1.5Gi", "1536Mi"],
            ["1e3", "1k"],
            [0.5, "500m"],
            ["0", "0m"],
            [".5", "0.5"],
        ] as const) {
            expect(compareQuantities(a, b), `${a} vs ${b}`).to.equal(0);
        }
    });

    it("orders different quantities", () => {
        expect(compareQuantities("1002m", "1.001")).to.equal(1);
        expect(compareQuantities("1.001", "1002m")).to.equal(-1);
        expect(compareQuantities("1Gi", "1G")).to.equal(1);
        expect(compareQuantities(2, "1")).to.equal(1);
        expect(compareQuantities("-1", "1")).to.equal(-1);
        expect(compareQuantities("-2", "-1")).to.equal(-1);
        expect(compareQuantities("1e999", "1")).to.equal(1);
        expect(compareQuantities("1n", "1e-10")).to.equal(1);
    });

    it("returns undefined for anything that is not a quantity", () => {
        for (const bad of ["512MB", "", "x", null, undefined, {}, [], NaN, Infinity]) {
            expect(compareQuantities(bad, "1"), JSON.stringify(bad) ?? "undefined").to.equal(undefined);
        }
    });
});

describe("policy lib: int-or-percent and durations", () => {
    it("parses integers and percentages, rejecting everything else", () => {
        expect(parseIntOrPercent(1)).to.deep.equal({ kind: "int", value: 1 });
        expect(parseIntOrPercent("25%")).to.deep.equal({ kind: "percent", value: 25 });
        expect(parseIntOrPercent("0%")).to.deep.equal({ kind: "percent", value: 0 });
        for (const bad of [-1, 1.5, "abc", "%", "-5%", "1.5%", "3", " 25%", "150%", null, {}, [], NaN]) {
            expect(parseIntOrPercent(bad), JSON.stringify(bad)).to.equal(undefined);
        }
        expect(readIntOrPercent("3")).to.deep.equal({
            problem: 'a number written as a string: a string must be a percentage such as "25%"',
        });
        expect(readIntOrPercent("150%")).to.deep.equal({ problem: "a percentage above 100%" });
    });

    it("scales percentages up, as the disruption controller rounds them", () => {
        expect(scaledValue({ kind: "percent", value: 90 }, 3)).to.equal(3); // 2.7 → 3
        expect(scaledValue({ kind: "percent", value: 50 }, 3)).to.equal(2); // 1.5 → 2
        expect(scaledValue({ kind: "percent", value: 10 }, 3)).to.equal(1); // 0.3 → 1
        expect(scaledValue({ kind: "int", value: 2 }, 3)).to.equal(2);
    });

    it("parses durations as Go's time.ParseDuration does", () => {
        const cases: [string, number][] = [
            ["30s", 30],
            ["10m", 600],
            ["1h30m", 5400],
            ["48h", 172_800],
            ["1.5h", 5400],
            [".5s", 0.5],
            ["1.s", 1],
            ["300ms", 0.3],
            ["1500us", 0.0015],
            ["1500µs", 0.0015],
            ["1500μs", 0.0015],
            ["2ns", 2e-9],
            ["1h0m0s", 3600],
            ["+5m", 300],
            ["-5m", -300],
            ["0", 0],
            ["-0", 0],
            ["2562047h", 9_223_369_200],
        ];
        for (const [text, seconds] of cases) {
            expect(parseDuration(text), text).to.be.closeTo(seconds, 1e-12);
        }
        // Go refuses: no unit, unknown units, a lone dot, spaces, a sign alone, more than int64 nanoseconds.
        for (const bad of ["", "Never", "10", "1d", "h", ".s", "5 m", "+", "1h 30m", "2562048h", 30, null]) {
            expect(parseDuration(bad), JSON.stringify(bad)).to.equal(undefined);
        }
        expect(formatSeconds(7200)).to.equal("2h");
        expect(formatSeconds(90)).to.equal("90s");
    });

    it("reads NodePool durations only as Karpenter v1's CRD admits them", () => {
        expect(karpenterDuration("1h30m")).to.equal(5400);
        expect(karpenterDuration("720h", "orNever")).to.equal(2_592_000);
        expect(karpenterDuration("Never", "orNever")).to.equal(Infinity);
        expect(karpenterDuration("10h", "budget")).to.equal(36_000);
        expect(karpenterDuration("1h30m", "budget")).to.equal(5400);
        // Valid Go, refused by the CRD patterns.
        for (const bad of ["1.5h", "-5m", "300ms", "+1h", "0", "Never"]) {
            expect(karpenterDuration(bad), bad).to.equal(undefined);
        }
        expect(karpenterDuration("30s", "budget")).to.equal(undefined);
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
        expect(preStopSleep({ lifecycle: { preStop: { sleep: { seconds: 7 } } } }).seconds).to.equal(7);
        expect(preStopSleep({ lifecycle: { preStop: { exec: { command: ["sleep", "5"] } } } }).seconds).to.equal(5);
        expect(
            preStopSleep({ lifecycle: { preStop: { exec: { command: ["/bin/sh", "-c", "sleep 10 && nginx -s quit; sleep 2"] } } } })
                .seconds,
        ).to.equal(12);
        expect(preStopSleep({ lifecycle: { preStop: { httpGet: { path: "/drain", port: 8080 } } } }).seconds).to.equal(0);
        expect(preStopSleep({}).seconds).to.equal(0);
    });

    const execSleep = (command: unknown[], env?: unknown[]) => preStopSleep({ env, lifecycle: { preStop: { exec: { command } } } });

    it("reads the sleep action's seconds as the API server does: a non-negative integer, never a string", () => {
        expect(preStopSleep({ lifecycle: { preStop: { sleep: { seconds: 5 } } } })).to.deep.equal({
            seconds: 5,
            unreadable: [],
            runtime: [],
        });
        expect(preStopSleep({ lifecycle: { preStop: { sleep: { seconds: "5" } } } }).unreadable).to.deep.equal([
            'sleep.seconds "5" (a string: the API server requires an integer)',
        ]);
        expect(preStopSleep({ lifecycle: { preStop: { sleep: { seconds: "soon" } } } }).unreadable).to.have.length(1);
        expect(preStopSleep({ lifecycle: { preStop: { sleep: { seconds: 2.5 } } } }).unreadable).to.have.length(1);
        expect(preStopSleep({ lifecycle: { preStop: { sleep: {} } } }).unreadable).to.have.length(1);
    });

    it("reads sleep run directly by any path, summing its operands with GNU units", () => {
        expect(execSleep(["/bin/sleep", "60"]).seconds).to.equal(60);
        expect(execSleep(["/usr/bin/sleep", "60"]).seconds).to.equal(60);
        expect(execSleep(["sleep", "1m", "30s"]).seconds).to.equal(90);
        expect(execSleep(["sleep", "0.5"]).seconds).to.equal(0.5);
        expect(execSleep(["sleep", "1h"]).seconds).to.equal(3600);
        expect(execSleep(["sleep", "1d"]).seconds).to.equal(86_400);
        expect(execSleep(["busybox", "sleep", "3"]).seconds).to.equal(3);
        expect(execSleep(["sleep", "infinity"]).seconds).to.equal(Infinity);
        expect(execSleep(["nginx", "-s", "quit"])).to.deep.equal({ seconds: 0, unreadable: [], runtime: [] });
    });

    it("finds sleep calls in shell -c scripts, by any shell and path", () => {
        expect(execSleep(["sh", "-c", "sleep 1m"]).seconds).to.equal(60);
        expect(execSleep(["/bin/sh", "-c", "/bin/sleep 5 && nginx -s quit"]).seconds).to.equal(5);
        expect(execSleep(["/bin/bash", "-ec", "sleep 0.5; /usr/bin/sleep 2 1s"]).seconds).to.equal(3.5);
        expect(execSleep(["bash", "-o", "pipefail", "-c", "exec sleep '10'"]).seconds).to.equal(10);
        expect(execSleep(["sh", "-c", 'if true; then sleep "4"; fi # sleep 100']).seconds).to.equal(4);
        expect(execSleep(["sh", "-c", "sleep 5 >/dev/null 2>&1\nkill -TERM 1"]).seconds).to.equal(5);
        expect(execSleep(["sh", "-c", "sh -c 'sleep 3'"]).seconds).to.equal(3);
        expect(execSleep(["sh", "-c", "echo 'sleep 100'"]).seconds, "quoted text is not a command").to.equal(0);
        expect(execSleep(["sh", "/drain.sh"]).seconds, "a script file cannot be read").to.equal(0);
    });

    it("tells operands sleep refuses (unreadable) from values only known at run time (runtime), never counting either as 0", () => {
        expect(execSleep(["sh", "-c", "sleep $DELAY"])).to.deep.equal({ seconds: 0, unreadable: [], runtime: ["$DELAY"] });
        expect(execSleep(["sh", "-c", "sleep $(cat /etc/delay)"]).runtime).to.deep.equal(["$(cat /etc/delay)"]);
        expect(execSleep(["sleep", "5x"])).to.deep.equal({ seconds: 0, unreadable: ["5x"], runtime: [] });
        expect(execSleep(["sleep", "$DELAY"], [{ name: "DELAY", value: "9" }]).unreadable, "no shell: nothing expands").to.deep.equal([
            "$DELAY",
        ]);
        expect(
            execSleep(["sh", "-c", "sleep $DELAY"], [{ name: "DELAY", valueFrom: { configMapKeyRef: { name: "x", key: "y" } } }]),
        ).to.deep.equal({ seconds: 0, unreadable: [], runtime: ["$DELAY"] });
        expect(execSleep(["sh", "-c", "D=5x; sleep $D"]).unreadable, "a literal sleep refuses").to.deep.equal(["$D"]);
    });

    it("expands variables in shell scripts from literal env values and ${VAR:-default}", () => {
        expect(execSleep(["sh", "-c", 'sleep "$DELAY"'], [{ name: "DELAY", value: "9" }])).to.deep.equal({
            seconds: 9,
            unreadable: [],
            runtime: [],
        });
        expect(execSleep(["sh", "-c", "sleep ${DELAY:-7}"]).seconds).to.equal(7);
        expect(execSleep(["sh", "-c", "sleep ${DELAY:-7}"], [{ name: "DELAY", value: "2m" }]).seconds).to.equal(120);
    });

    it("reads variables the script sets itself, from the next command on", () => {
        expect(execSleep(["sh", "-c", "D=5; sleep $D"])).to.deep.equal({ seconds: 5, unreadable: [], runtime: [] });
        expect(execSleep(["sh", "-c", 'export D=2m\nsleep "$D"'])).to.deep.equal({ seconds: 120, unreadable: [], runtime: [] });
        expect(execSleep(["sh", "-c", "D=$(cat /x); sleep $D"]).runtime, "a value only known at run time").to.deep.equal(["$D"]);
    });

    it("reads operands as GNU sleep does (a leading + and an exponent)", () => {
        expect(execSleep(["sleep", "+5"]).seconds).to.equal(5);
        expect(execSleep(["sleep", "1e1"]).seconds).to.equal(10);
        expect(execSleep(["sleep", "1.5e1s"]).seconds).to.equal(15);
    });

    it("does not take here-document bodies for commands", () => {
        expect(execSleep(["sh", "-c", "cat <<EOF > /tmp/x\nsleep 99\nEOF\nsleep 1"]).seconds).to.equal(1);
        expect(execSleep(["bash", "-c", "cat <<- 'END'\n\tsleep 99\n\tEND\nsleep 2"]).seconds).to.equal(2);
        expect(execSleep(["sh", "-c", "cat << EOF\nsleep 99\n"]).seconds, "an unterminated body runs to the end").to.equal(0);
    });

    it("never throws on odd shapes", () => {
        for (const odd of [null, "sleep 5", 5, [], {}, { exec: null }, { exec: { command: "sleep 5" } }, { exec: { command: [5, "x"] } }]) {
            expect(preStopSleep({ lifecycle: { preStop: odd } }).seconds, JSON.stringify(odd)).to.equal(0);
        }
        expect(execSleep(["sh", "-c", "sleep 'unterminated"]).unreadable).to.deep.equal(["unterminated"]);
        expect(execSleep(["sh", "-c", 'sleep "$(a (b) c'])).to.have.property("seconds", 0);
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
});
