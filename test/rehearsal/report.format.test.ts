/**
 * The rehearsal's report as text and Markdown (rehearsal/report.ts `formatRehearsal`,
 * `formatRehearsalMarkdown`), one rule at a time on hand-built reports (./reportScenario.ts): the
 * verdict lines, the order of sections, a group's summary, each problem's what, why and fix, the
 * waves, windows and waits of a timeline, the Mermaid gantt chart, escaping, plurals and times.
 * Expected times are the chosen seconds in `formatSeconds` units (120 → 2m, 250 → 4m 10s).
 */
import { expect } from "chai";
import { formatRehearsal, formatRehearsalMarkdown, GroupReport, Rehearsal, RequestPathReport } from "eks-platform-rehearsal";
import { EKS_LIMIT, group, rehearsal, SPOT, wave } from "./reportScenario";

const lines = (text: string) => text.split("\n");
/** The lines of `text` from the one equal to `heading` up to the next empty line. */
function block(text: string, heading: string): string[] {
    const all = lines(text);
    const start = all.indexOf(heading);
    expect(start, heading).to.be.greaterThan(-1);
    const end = all.indexOf("", start + 1);
    return all.slice(start + 1, end === -1 ? undefined : end);
}
/** The timeline of the group whose header line starts with `header`, up to the next empty line. */
function timeline(text: string, header: string): string[] {
    const all = lines(text);
    const start = all.findIndex((l, i) => i > all.indexOf("Timelines:") && l.startsWith(header));
    expect(start, header).to.be.greaterThan(-1);
    const end = all.indexOf("", start);
    return all.slice(start, end === -1 ? undefined : end);
}

const blocked = (name: string, kind: GroupReport["kind"] = "managed"): GroupReport =>
    group({ name, kind, urn: `urn:${name}`, verdict: "blocked", stalled: "never", estimatedSeconds: 1020 });

describe("drain rehearsal text: the verdict", () => {
    it("heads the report with the stack, the groups (plural), the zones and the verdict in capitals", () => {
        expect(lines(formatRehearsal(rehearsal({ groups: [group()] }), "prod"))[0]).to.equal(
            'Drain rehearsal of stack "prod": 1 group, zones a, b — OK',
        );
        expect(lines(formatRehearsal(rehearsal({ verdict: "undecided", zones: ["a"] })))[0]).to.equal(
            "Drain rehearsal: 0 groups, zones a — UNDECIDED",
        );
        expect(lines(formatRehearsal(rehearsal({ groups: [group(), group({ name: "b", urn: "urn:b" })] })))[0]).to.match(/: 2 groups, /);
    });

    it("ends with the verdict: problems counted, the blocked groups named; undecided is not a pass; OK says what passed", () => {
        const last = (r: Rehearsal) => lines(formatRehearsal(r)).slice(-2);
        const problem = (groupUrn?: string) => ({ ...(groupUrn ? { groupUrn } : {}), message: "m" });
        expect(
            last(
                rehearsal({
                    verdict: "blocked",
                    groups: [blocked("a"), group({ name: "b", urn: "urn:b" }), blocked("c", "nodePool")],
                    problems: [problem("urn:a"), problem("urn:c")],
                }),
            ),
        ).to.deep.equal(["", "BLOCKED: 2 problems in managed node group a and NodePool c, listed first above."]);
        // A pod that fits nowhere blocks with no group blocked.
        expect(last(rehearsal({ verdict: "blocked", groups: [group()], problems: [problem()] }))[1]).to.equal(
            "BLOCKED: 1 problem, listed first above.",
        );
        expect(last(rehearsal({ verdict: "undecided" }))[1]).to.match(/^UNDECIDED: no blocker found in what is known, .*\(not a pass\)\.$/);
        expect(last(rehearsal())[1]).to.match(
            /^OK: every rollout completes without a blocked eviction, a pod with nowhere to run or a workload at zero ready replicas\.$/,
        );
    });
});

describe("drain rehearsal text: problems", () => {
    const r = () =>
        rehearsal({
            verdict: "blocked",
            groups: [group({ name: "first", urn: "urn:first" }), blocked("second", "selfManaged"), blocked("third", "nodePool")],
            problems: [
                // Out of group order on purpose: the report lists them by group.
                { groupUrn: "urn:third", message: "Third one. Why: because. Fix: do it." },
                { groupUrn: "urn:second", message: "Second one. Why: w2. Fix: f2." },
                { message: "Pod p fits nowhere. Why: w0. Fix: f0." },
                { groupUrn: "urn:second", message: "A message without parts." },
            ],
        });

    it("lists pods that fit nowhere first, then each group's problems in the order of the groups, numbered throughout", () => {
        const text = formatRehearsal(r());
        const all = lines(text);
        const at = all.indexOf("Problems (4):");
        expect(at).to.equal(2);
        expect(all.slice(at + 1, at + 17)).to.deep.equal([
            "",
            "Before any rollout:",
            "  1. Pod p fits nowhere.",
            "     Why: w0.",
            "     Fix: f0.",
            "",
            "self-managed node group second: 2 nodes (m6i.large), BLOCKED, 17m until it stalls",
            "  2. Second one.",
            "     Why: w2.",
            "     Fix: f2.",
            // A message that is not in the house style is shown whole, with no why or fix line.
            "  3. A message without parts.",
            "",
            "NodePool third: 2 nodes (m6i.large), BLOCKED, 17m until it stalls",
            "  4. Third one.",
            "     Why: because.",
            "     Fix: do it.",
        ]);
        // The group without problems has no heading among them.
        expect(text.slice(0, text.indexOf("Passing groups:"))).not.to.include("first:");
    });

    it("has no Problems section without problems, and none for problems of no group shown", () => {
        expect(formatRehearsal(rehearsal({ groups: [group()] }))).not.to.include("Problems");
        expect(formatRehearsal(rehearsal({ groups: [group()], problems: [{ groupUrn: "urn:other", message: "m" }] }))).not.to.match(
            /\nProblems|\n {2}1\. /,
        );
    });
});

describe("drain rehearsal text: passing, advisory, undecided and not-modelled sections", () => {
    const groups = () => [
        group({ name: "a", nodes: 1, estimatedSeconds: 0 }),
        group({ name: "longname", urn: "urn:long", kind: "nodePool", nodes: 12, estimatedSeconds: 3665 }),
        group({ name: "u", urn: "urn:u", kind: "selfManaged", nodes: 3, verdict: "undecided", estimatedSeconds: 90 }),
        group({ name: "undecided-too", urn: "urn:u2", verdict: "undecided", estimatedSeconds: 30 }),
    ];
    /** Each row's cells, and the column each cell starts at. */
    const table = (rows: string[]) => rows.map((row) => [...row.matchAll(/\S+(?: \S+)*/g)].map((m) => [m[0], m.index]));

    it("a table of the passing groups: name, kind, nodes (plural), estimated time, verdict, in aligned columns", () => {
        const rows = block(formatRehearsal(rehearsal({ groups: groups() })), "Passing groups:");
        const cells = table(rows);
        expect(cells.map((row) => row.map(([cell]) => cell))).to.deep.equal([
            ["a", "managed node group", "1 node", "0s", "ok"],
            ["longname", "NodePool", "12 nodes", "1h 1m 5s", "ok"],
        ]);
        // Two spaces of indent; each column starts two spaces after the widest cell of the one before.
        const starts = [2, 2 + 8 + 2, 2 + 8 + 2 + 18 + 2, 2 + 8 + 2 + 18 + 2 + 8 + 2, 2 + 8 + 2 + 18 + 2 + 8 + 2 + 8 + 2];
        for (const row of cells) {
            expect(row.map(([, at]) => at)).to.deep.equal(starts);
        }
        expect(rows.every((row) => !row.endsWith(" "))).to.equal(true);
    });

    it("undecided groups in a table of their own under Undecided, then the undecided items", () => {
        const text = formatRehearsal(rehearsal({ verdict: "undecided", groups: groups(), undecided: ["x: unknown until apply", "y"] }));
        const rows = block(text, "Undecided (values unknown until apply, or not in the data):");
        expect(rows.slice(2)).to.deep.equal(["  - x: unknown until apply", "  - y"]);
        expect(table(rows.slice(0, 2)).map((row) => row.map(([cell]) => cell))).to.deep.equal([
            ["u", "self-managed node group", "3 nodes", "1m 30s", "undecided"],
            ["undecided-too", "managed node group", "2 nodes", "30s", "undecided"],
        ]);
        expect(block(text, "Passing groups:")).to.have.length(2);
        // Undecided items alone still get the section; no groups and no items, none.
        expect(
            block(formatRehearsal(rehearsal({ undecided: ["y"] })), "Undecided (values unknown until apply, or not in the data):"),
        ).to.deep.equal(["  - y"]);
        expect(formatRehearsal(rehearsal({ groups: [group()] }))).not.to.include("Undecided");
        // Undecided groups alone too: their table and no items.
        const only = formatRehearsal(rehearsal({ verdict: "undecided", groups: groups().slice(2) }));
        expect(block(only, "Undecided (values unknown until apply, or not in the data):")).to.have.length(2);
    });

    it("advisories one per line; not-modelled items counted, the first 8 shown, then an ellipsis", () => {
        const text = formatRehearsal(rehearsal({ advisories: [{ message: "A one." }, { message: "A two." }] }));
        expect(block(text, "Advisory (work interrupted, no request dropped):")).to.deep.equal(["  - A one.", "  - A two."]);
        expect(formatRehearsal(rehearsal())).not.to.match(
            /Problems|Advisory|Undecided|Not modelled|Passing groups|Timelines|Request paths/,
        );
        const items = (n: number) => Array.from({ length: n }, (_, i) => `n${i + 1}`);
        expect(lines(formatRehearsal(rehearsal({ notModelled: items(9) })))).to.include(
            "Not modelled (9): n1; n2; n3; n4; n5; n6; n7; n8; …",
        );
        expect(lines(formatRehearsal(rehearsal({ notModelled: items(8) })))).to.include("Not modelled (8): n1; n2; n3; n4; n5; n6; n7; n8");
    });

    it("orders the sections: problems, passing, advisory, undecided, not modelled, timelines, request paths, verdict", () => {
        const r = rehearsal({
            verdict: "blocked",
            groups: groups(),
            problems: [{ message: "P." }],
            advisories: [{ message: "A." }],
            undecided: ["U"],
            notModelled: ["N"],
            requestPaths: [{ workload: "W", path: "ALB", container: "c", phases: [{ at: 0, what: "deleted" }], gaps: [] }],
        });
        const text = formatRehearsal(r);
        const order = [
            "\nProblems (1):",
            "\nPassing groups:",
            "\nAdvisory",
            "\nUndecided",
            "\nNot modelled (1): N",
            "\nTimelines:",
            "\nRequest paths",
            "\nBLOCKED:",
        ].map((s) => text.indexOf(s));
        expect(order.every((at) => at > -1)).to.equal(true);
        expect([...order].sort((x, y) => x - y)).to.deep.equal(order);
    });
});

/** A rehearsal with every section: problems of no group and of a group, each kind of group, advisories, undecided and not-modelled items, a request path. */
function everything(): Rehearsal {
    return rehearsal({
        verdict: "blocked",
        groups: [
            group({
                waves: [wave(60, { drained: ["apps-1"], drainSeconds: 30 })],
                windows: [EKS_LIMIT],
                longestDrain: { node: "apps-1", seconds: 30 },
                notes: ["n"],
            }),
            blocked("held", "nodePool"),
            group({ name: "u", urn: "urn:u", kind: "selfManaged", verdict: "undecided" }),
        ],
        problems: [{ message: "Before. Why: w. Fix: f." }, { groupUrn: "urn:held", message: "Held. Why: w. Fix: f." }],
        advisories: [{ message: "A." }],
        undecided: ["U"],
        notModelled: ["N"],
        requestPaths: [{ workload: "W", path: "ALB", container: "c", phases: [{ at: 0, what: "deleted" }], gaps: [] }],
    });
}

describe("drain rehearsal report: blocks apart", () => {
    it("in the text, every unindented line but the first (a section, a group, a request path, the verdict) follows an empty line", () => {
        const all = lines(formatRehearsal(everything()));
        const heads = all.map((l, i) => [l, i] as const).filter(([l, i]) => i > 0 && /^\S/.test(l));
        // Problems, Before any rollout, the held group, Passing, Advisory, Undecided, Not modelled, Timelines, 3 timelines, Request paths, its path, the verdict.
        expect(heads).to.have.length(14);
        for (const [l, i] of heads) {
            expect(all[i - 1], l).to.equal("");
        }
    });

    it("in the Markdown, every heading, table, list, chart, folded block and verdict starts after an empty line, and a heading is followed by one", () => {
        const all = lines(formatRehearsalMarkdown(everything()));
        const item = /^(- |\d+\. | {3}- )/;
        const starts = all
            .map((l, i) => [l, i] as const)
            .filter(
                ([l, i]) =>
                    i > 0 &&
                    (/^(#|```mermaid|<details>|\*\*)/.test(l) ||
                        (l.startsWith("|") && !all[i - 1].startsWith("|")) ||
                        (item.test(l) && !item.test(all[i - 1]))),
            );
        expect(starts.filter(([l]) => l.startsWith("#"))).to.have.length(10);
        // Not modelled, the timelines and the request paths are folded, each block closed after an empty line.
        expect(starts.filter(([l]) => l.startsWith("<details>")).map(([l]) => l.replace(/ \(.*$/, ""))).to.deep.equal([
            "<details><summary>Not modelled",
            "<details><summary>Timelines",
            "<details><summary>Request paths",
        ]);
        const closes = all.map((l, i) => [l, i] as const).filter(([l]) => l === "</details>");
        expect(closes).to.have.length(3);
        for (const [, i] of closes) {
            expect(all[i - 1], `line ${i}`).to.equal("");
        }
        expect(starts.filter(([l]) => l.startsWith("|"))).to.have.length(3);
        expect(starts.filter(([l]) => l === "```mermaid")).to.have.length(1);
        for (const [l, i] of starts) {
            expect(all[i - 1], l).to.equal("");
            if (l.startsWith("#")) {
                expect(all[i + 1], l).to.equal("");
            }
        }
    });
});

describe("drain rehearsal text: a group's timeline", () => {
    const evicted = { pod: "web-0", workload: "Deployment prod/web", node: "apps-1", left: "evicted" as const, at: 30, graceSeconds: 60 };

    it("its header and mechanism, then each wave's range on the rollout's clock, padded to the widest", () => {
        const g = group({
            estimatedSeconds: 1000,
            windows: [EKS_LIMIT],
            longestDrain: { node: "apps-1", seconds: 250 },
            waves: [
                wave(120, { phase: "scale-up", launched: ["apps-3", "apps-4"] }),
                wave(300, { drained: ["apps-1", "apps-2"], evictions: 4, drainSeconds: 250, slowest: { ...evicted, pdb: "prod/web" } }),
                wave(90, { phase: "scale-down", drained: ["apps-5", "apps-6"] }),
            ],
        });
        expect(timeline(formatRehearsal(rehearsal({ groups: [g] })), "managed node group apps:")).to.deep.equal([
            "managed node group apps: 2 nodes (m6i.large), OK, 16m 40s",
            "  rollout: EKS managed rolling update: 1 node at a time",
            // Padded to the widest range, "7m → 8m 30s", then two spaces.
            "  0s → 2m      wave 1 scale-up: launch apps-3, apps-4",
            "  2m → 7m      wave 2 upgrade: drain apps-1, apps-2 from 2m to 6m 10s (4m 10s, 4 evictions; last out web-0 of Deployment prod/web, held by PodDisruptionBudget prod/web until it is evicted at 30s, then takes its 1m grace period)",
            "  7m → 8m 30s  wave 3 scale-down: drain apps-5, apps-6 at 7m (no pods to evict)",
            // Past the last wave: the pods rescheduled last get Ready.
            "  16m 40s: the last rescheduled pod is Ready",
            "  window: 15m EKS eviction limit (PodEvictionFailure): longest drain 4m 10s (apps-1), fits",
        ]);
    });

    it("a drain's evictions in the singular or plural, or none; replacements launched first come first", () => {
        const describe = (w: GroupReport["waves"][number]) =>
            timeline(formatRehearsal(rehearsal({ groups: [group({ waves: [w] })] })), "managed")[2];
        expect(describe(wave(60, { drained: ["n-1"], evictions: 1, drainSeconds: 40 }))).to.match(
            /: drain n-1 from 0s to 40s \(40s, 1 eviction\)$/,
        );
        // Evictions of pods that leave at once: a drain of no time, its evictions counted.
        expect(describe(wave(60, { drained: ["n-1"], evictions: 2 }))).to.match(/: drain n-1 at 0s \(2 evictions\)$/);
        // A drain that takes time with no eviction (a held pod): 0 evictions, not "no pods".
        expect(describe(wave(60, { drained: ["n-1"], drainSeconds: 40 }))).to.match(/: drain n-1 from 0s to 40s \(40s, 0 evictions\)$/);
        expect(describe(wave(60, { drained: ["n-1"], launched: ["n-2"], drainStart: 30, evictions: 1, drainSeconds: 20 }))).to.match(
            /: launch n-2; drain n-1 from 30s to 50s \(20s, 1 eviction\)$/,
        );
        expect(describe(wave(60, { drained: ["n-1"], launched: ["n-2"], drainStart: 0 }))).to.match(
            /: drain n-1 at 0s \(no pods to evict\); launch n-2$/,
        );
        expect(describe(wave(60))).to.match(/^ {2}0s → 1m {2}wave 1 upgrade: nothing to move$/);
    });

    it("how the last pod left: evicted, deleted past its budget or its annotation, terminated with its instance, held", () => {
        const last = (slowest: NonNullable<GroupReport["waves"][number]["slowest"]>) =>
            timeline(
                formatRehearsal(
                    rehearsal({ groups: [group({ waves: [wave(600, { drained: ["n-1"], evictions: 1, drainSeconds: 300, slowest })] })] }),
                ),
                "managed",
            )[2].replace(/^.*; last out web-0 of Deployment prod\/web, (.*)\)$/, "$1");
        expect(last(evicted)).to.equal("evicted at 30s, then takes its 1m grace period");
        expect(last({ ...evicted, at: undefined })).to.equal("evicted at 0s, then takes its 1m grace period");
        expect(last({ ...evicted, left: "deleted", pdb: "prod/web", at: 240 })).to.equal(
            "held by PodDisruptionBudget prod/web until Karpenter deletes it at 4m, then takes its 1m grace period",
        );
        expect(last({ ...evicted, left: "deleted" })).to.equal(
            "held by its budget until Karpenter deletes it at 30s, then takes its 1m grace period",
        );
        expect(last({ ...evicted, left: "deleted", doNotDisrupt: true, pdb: "prod/web" })).to.equal(
            "held by its karpenter.sh/do-not-disrupt annotation until Karpenter deletes it at 30s, then takes its 1m grace period",
        );
        expect(last({ ...evicted, left: "terminated", pdb: "prod/web" })).to.equal(
            "held by PodDisruptionBudget prod/web and still running when the window ends: terminated with its instance",
        );
        expect(last({ ...evicted, left: "terminated" })).to.equal("still running when the window ends: terminated with its instance");
        expect(last({ ...evicted, left: "held", pdb: "prod/web" })).to.equal("held by PodDisruptionBudget prod/web: never evicted");
    });

    it("flags a wave over a window by how much, and the wave the rollout stalls in; the stall is said after the waves", () => {
        const g = group({
            verdict: "blocked",
            stalled: "apps-1 never drains",
            estimatedSeconds: 2000,
            windows: [SPOT, { seconds: 600, source: "heartbeat of lifecycle hook h" }, EKS_LIMIT],
            longestDrain: { node: "apps-1", seconds: 900 },
            waves: [
                // At the Spot notice, not over it.
                wave(200, { drained: ["apps-2"], evictions: 1, drainSeconds: 120 }),
                wave(900, { drained: ["apps-1"], drainSeconds: 900 }),
            ],
        });
        const t = timeline(formatRehearsal(rehearsal({ groups: [g] })), "managed");
        expect(t[0]).to.equal("managed node group apps: 2 nodes (m6i.large), BLOCKED, 33m 20s until it stalls");
        expect(t[2]).to.match(/ \(2m, 1 eviction\)$/);
        expect(t[3]).to.match(
            /^ {2}3m 20s → 18m 20s {2}wave 2 upgrade: drain apps-1 from 3m 20s to 18m 20s \(15m, 0 evictions\) — over the 2m Spot interruption notice by 13m; over the 10m heartbeat of lifecycle hook h by 5m; STALLS here$/,
        );
        // Stalled: no "last rescheduled pod" line even though the estimate is past the last wave.
        expect(t.slice(4)).to.deep.equal([
            "  stalls: apps-1 never drains",
            "  window: 2m Spot interruption notice: longest drain 15m (apps-1), over by 13m",
            "  window: 10m heartbeat of lifecycle hook h: longest drain 15m (apps-1), over by 5m",
            "  window: 15m EKS eviction limit (PodEvictionFailure): longest drain 15m (apps-1), reaches it",
        ]);
    });

    it("a group with no nodes has no waves; one that stalls before its first says why; waits and notes close the timeline", () => {
        const text = formatRehearsal(
            rehearsal({
                groups: [
                    group({ name: "empty", nodes: 0, windows: [EKS_LIMIT] }),
                    group({
                        name: "held",
                        urn: "urn:held",
                        verdict: "blocked",
                        stalled: "its budgets allow 0 nodes",
                        windows: [EKS_LIMIT],
                    }),
                    group({
                        name: "idle",
                        urn: "urn:idle",
                        windows: [EKS_LIMIT],
                        longestDrain: { node: "idle-1", seconds: 0 },
                        estimatedSeconds: 60,
                    }),
                    group({
                        name: "waits",
                        urn: "urn:waits",
                        waves: [wave(60)],
                        estimatedSeconds: 60,
                        waits: [{ pod: "web-1", workload: "Deployment prod/web", pdb: "prod/web", wave: 1, seconds: 45 }],
                        notes: ["first note", "second note"],
                    }),
                ],
            }),
        );
        // No windows for a group with no nodes to drain.
        expect(timeline(text, "managed node group empty:").slice(2)).to.deep.equal(["  no waves: the group has no nodes to replace"]);
        expect(timeline(text, "managed node group held:")).to.deep.equal([
            "managed node group held: 2 nodes (m6i.large), BLOCKED, stalls before its first wave",
            "  rollout: EKS managed rolling update: 1 node at a time",
            "  no wave starts: its budgets allow 0 nodes",
            "  window: 15m EKS eviction limit (PodEvictionFailure): no drain (the rollout stops before one)",
        ]);
        expect(timeline(text, "managed node group idle:").slice(2)).to.deep.equal([
            "  no wave starts: nothing to replace",
            "  1m: the last rescheduled pod is Ready",
            "  window: 15m EKS eviction limit (PodEvictionFailure): no node has pods to drain",
        ]);
        // The estimate at the end of the last wave: no extra line.
        expect(timeline(text, "managed node group waits:").slice(3)).to.deep.equal([
            "  wait: web-1 (Deployment prod/web) waits 45s in wave 1 for PDB prod/web until rescheduled pods are Ready",
            "  note: first note",
            "  note: second note",
        ]);
    });

    it("a group without an instance type, or of one node, says so in its summary", () => {
        const text = formatRehearsal(rehearsal({ groups: [group({ nodes: 1, instanceType: undefined })] }));
        expect(timeline(text, "managed")[0]).to.equal("managed node group apps: 1 node, OK, 0s");
    });
});

describe("drain rehearsal text: request paths", () => {
    const path = (gaps: RequestPathReport["gaps"]): RequestPathReport => ({
        workload: "Deployment prod/web",
        path: "ALB of Ingress web (Service web), ip targets",
        container: "app",
        phases: [
            { at: 0, what: "deleted" },
            { at: 15, what: "preStop ends" },
            { at: 3600, what: "the node goes" },
        ],
        gaps,
    });

    it("each path's phases, times right-aligned, then where requests fail or that none does", () => {
        const text = formatRehearsal(
            rehearsal({
                requestPaths: [
                    path([]),
                    path([
                        { kind: "preStop", from: 0, to: 15, why: "still routed" },
                        { kind: "window", from: 60, to: 90, why: "the node goes" },
                    ]),
                ],
            }),
        );
        const all = lines(text);
        const at = all.indexOf("Request paths (one pod's exit, seconds after its deletion; workload-request-path judges them):");
        expect(at).to.be.greaterThan(-1);
        expect(all.slice(at + 1, at + 7)).to.deep.equal([
            "",
            'Deployment prod/web, container "app" — ALB of Ingress web (Service web), ip targets:',
            // Padded to "15s", the widest time.
            "   0s  deleted",
            "  15s  preStop ends",
            "   1h  the node goes",
            "  OK: routing stops before the app does, the target drains before the pod dies, and the node outlives both",
        ]);
        expect(all[at + 12]).to.equal("  DROPS REQUESTS: 0s → 15s, still routed; 1m → 1m 30s, the node goes");
    });
});

/** A gantt task line: `    <name> :<tags, >start, <n>s`. */
const TASK = /^ {4}([^:;#]+?) :((?:\w+, )*)(\d+), (\d+)s$/;
interface Task {
    name: string;
    tags: string[];
    start: number;
    seconds: number;
}
/** Each Mermaid block of the Markdown: its header lines and its sections' tasks; every other line fails. */
function gantts(markdown: string): { header: string[]; sections: { name: string; tasks: Task[] }[] }[] {
    const out: { header: string[]; sections: { name: string; tasks: Task[] }[] }[] = [];
    const all = lines(markdown);
    for (let i = all.indexOf("```mermaid"); i !== -1; i = all.indexOf("```mermaid", i)) {
        const b = { header: [] as string[], sections: [] as { name: string; tasks: Task[] }[] };
        for (i++; all[i] !== "```"; i++) {
            expect(i, "an unterminated block").to.be.lessThan(all.length);
            const section = /^ {4}section ([^:;#]+)$/.exec(all[i]);
            const task = TASK.exec(all[i]);
            if (section) {
                b.sections.push({ name: section[1], tasks: [] });
            } else if (task && b.sections.length > 0) {
                b.sections[b.sections.length - 1].tasks.push({
                    name: task[1],
                    tags: task[2].split(", ").filter(Boolean),
                    start: Number(task[3]),
                    seconds: Number(task[4]),
                });
            } else {
                expect(b.sections, `a line the gantt syntax refuses here: ${all[i]}`).to.deep.equal([]);
                b.header.push(all[i]);
            }
        }
        out.push(b);
    }
    return out;
}
const gantt = (g: GroupReport) => {
    const blocks = gantts(formatRehearsalMarkdown(rehearsal({ groups: [g] })));
    expect(blocks).to.have.length(1);
    return blocks[0];
};

describe("drain rehearsal Markdown: the gantt chart", () => {
    it("a header: the group and its time as title, seconds as dates, minutes and seconds on the axis below an hour", () => {
        const b = gantt(group({ name: "a:b", verdict: "blocked", stalled: "x", estimatedSeconds: 3599, waves: [wave(60)] }));
        expect(b.header).to.deep.equal([
            "gantt",
            "    title managed node group a b, 59m 59s until it stalls",
            "    dateFormat X",
            "    axisFormat %M:%S",
            "    todayMarker off",
        ]);
    });

    it("hours and minutes on the axis from an hour: the estimate's, a wave's or a drain's end", () => {
        const axis = (g: GroupReport) => gantt(g).header.find((l) => l.startsWith("    axisFormat"));
        expect(axis(group({ estimatedSeconds: 3600, waves: [wave(60)] }))).to.equal("    axisFormat %H:%M");
        expect(axis(group({ waves: [wave(3000), wave(600)] }))).to.equal("    axisFormat %H:%M");
        expect(axis(group({ waves: [wave(60, { drained: ["n-1"], drainStart: 600, drainSeconds: 3000 })] }))).to.equal(
            "    axisFormat %H:%M",
        );
        expect(axis(group({ waves: [wave(60, { drained: ["n-1"], drainStart: 600, drainSeconds: 2999 })] }))).to.equal(
            "    axisFormat %M:%S",
        );
    });

    it("a section per wave with its bar on the rollout's clock, rounded to whole seconds; the stalled wave's bar is crit", () => {
        const b = gantt(
            group({
                stalled: "never",
                estimatedSeconds: 200,
                waves: [
                    wave(90.4, { phase: "scale-up", launched: ["n-3"] }),
                    wave(59.8, { drained: ["n-1"], launched: ["n-4", "n-6"], drainStart: 20 }),
                    wave(50, { phase: "drift", drained: ["n-2"], launched: ["n-5"] }),
                ],
            }),
        );
        expect(b.sections.map((s) => s.name)).to.deep.equal(["wave 1 scale-up", "wave 2 upgrade", "wave 3 drift"]);
        expect(b.sections.map((s) => s.tasks[0])).to.deep.equal([
            { name: "wave 1, launch n-3", tags: [], start: 90 - 90, seconds: 90 },
            { name: "wave 2, launch n-4, n-6, then drain n-1", tags: [], start: 90, seconds: 60 },
            { name: "wave 3, drain n-2, then launch n-5", tags: ["crit"], start: 150, seconds: 50 },
        ]);
        // A drain of no time gets no bar.
        expect(b.sections.every((s) => s.tasks.length === 1)).to.equal(true);
        expect(gantt(group({ waves: [wave(60)] })).sections[0].tasks[0].name).to.equal("wave 1, nothing to move");
    });

    it("a drain as an active bar up to the first window it runs past, the rest crit, and each window a milestone inside the chart", () => {
        // Drain of 700 s from 100 s into a 100 s + 800 s wave; chart ends at 900 s.
        const windows = [
            SPOT,
            { seconds: 600, source: "heartbeat of lifecycle hook h" },
            { seconds: 800, source: "terminationGracePeriod of NodePool p" },
            { seconds: 801, source: "past the end" },
        ];
        const b = gantt(
            group({
                windows,
                estimatedSeconds: 900,
                waves: [wave(100, { phase: "scale-up" }), wave(800, { drained: ["n-1", "n-2"], drainSeconds: 700, evictions: 3 })],
            }),
        );
        expect(b.sections[1].tasks.slice(1)).to.deep.equal([
            { name: "drain n-1, n-2, 11m 40s", tags: ["active"], start: 100, seconds: 120 },
            { name: "past the 2m window", tags: ["crit"], start: 220, seconds: 580 },
            { name: "2m Spot interruption notice", tags: ["milestone"], start: 220, seconds: 0 },
            { name: "10m heartbeat of lifecycle hook h", tags: ["milestone"], start: 700, seconds: 0 },
            // At the chart's very end: still inside it. One second past: left out.
            { name: "13m 20s terminationGracePeriod of NodePool p", tags: ["milestone"], start: 900, seconds: 0 },
        ]);
        // Within every window: one active bar, no crit part.
        const within = gantt(
            group({ windows: [EKS_LIMIT], estimatedSeconds: 1000, waves: [wave(1000, { drained: ["n-1"], drainSeconds: 900 })] }),
        );
        expect(within.sections[0].tasks.slice(1)).to.deep.equal([
            { name: "drain n-1, 15m", tags: ["active"], start: 0, seconds: 900 },
            { name: "15m EKS eviction limit (PodEvictionFailure)", tags: ["milestone"], start: 900, seconds: 0 },
        ]);
    });

    it("keeps the characters the gantt syntax reserves, and runs of blanks, out of section and task names", () => {
        const b = gantt(
            group({
                windows: [{ seconds: 30, source: "hook #1; a:b;" }],
                waves: [wave(60, { drained: [" x:y ", "z;#w"], drainSeconds: 40 })],
            }),
        );
        expect(b.sections[0].tasks.map((t) => t.name)).to.deep.equal([
            "wave 1, drain x y , z w",
            "drain x y , z w, 40s",
            "past the 30s window",
            // The source's trailing ";" leaves no trailing blank.
            "30s hook 1 a b",
        ]);
        expect(gantt(group({ name: " : ", waves: [wave(1)] })).header[1]).to.equal("    title managed node group , 0s");
    });
});

describe("drain rehearsal Markdown: the report", () => {
    const r = () =>
        rehearsal({
            verdict: "blocked",
            groups: [
                group({
                    name: "first",
                    urn: "urn:first",
                    estimatedSeconds: 60,
                    waves: [wave(60)],
                    notes: ["a <b> note"],
                    waits: [{ pod: "p", workload: "W", pdb: "x|y", wave: 1, seconds: 30 }],
                }),
                blocked("second", "nodePool"),
                group({ name: "und", urn: "urn:und", verdict: "undecided", nodes: 0 }),
            ],
            problems: [
                { groupUrn: "urn:second", message: "A <pod> & a | pipe. Why: x > y. Fix: a & b." },
                { message: "Before. Why: w. Fix: f." },
                { groupUrn: "urn:second", message: "Whole." },
            ],
            advisories: [{ message: "Adv <a>." }],
            undecided: ["u & v"],
            notModelled: ["n|1", "n2"],
        });

    it("heads with the stack and verdict, then the groups and zones", () => {
        expect(lines(formatRehearsalMarkdown(r(), "prod")).slice(0, 3)).to.deep.equal([
            "## Drain rehearsal of stack `prod`: BLOCKED",
            "",
            "3 groups, zones a, b.",
        ]);
        expect(lines(formatRehearsalMarkdown(rehearsal({ groups: [group()] })))[0]).to.equal("## Drain rehearsal: OK");
        expect(lines(formatRehearsalMarkdown(rehearsal({ groups: [group()] })))[2]).to.equal("1 group, zones a, b.");
    });

    it("problems first under their group's heading, numbered, why and fix as sub-items, escaped", () => {
        const all = lines(formatRehearsalMarkdown(r()));
        const at = all.indexOf("### Problems (3)");
        expect(at).to.equal(4);
        expect(all.slice(at + 1, at + 14)).to.deep.equal([
            "",
            "#### Before any rollout",
            "",
            "1. Before.",
            "   - **Why:** w.",
            "   - **Fix:** f.",
            "",
            "#### NodePool `second`: BLOCKED, 2 nodes (m6i.large), 17m until it stalls",
            "",
            "2. A &lt;pod&gt; &amp; a \\| pipe.",
            "   - **Why:** x &gt; y.",
            "   - **Fix:** a &amp; b.",
            "3. Whole.",
        ]);
        expect(all[at + 14]).to.equal("");
    });

    it("then passing and undecided groups as tables, advisories and undecided items escaped, not-modelled items folded", () => {
        const all = lines(formatRehearsalMarkdown(r()));
        const from = (heading: string, n: number) => {
            const at = all.indexOf(heading);
            expect(at, heading).to.be.greaterThan(-1);
            return all.slice(at + 1, at + 1 + n);
        };
        const head = ["| group | kind | nodes | estimated time | verdict |", "|---|---|---|---|---|"];
        // Only the passing group: the table ends after its row.
        expect(from("### Passing groups", 5)).to.deep.equal(["", ...head, "| `first` | managed node group | 2 | 1m | ok |", ""]);
        expect(from("### Advisory (work interrupted, no request dropped)", 2)).to.deep.equal(["", "- Adv &lt;a&gt;."]);
        expect(from("### Undecided", 6)).to.deep.equal([
            "",
            ...head,
            "| `und` | managed node group | 0 | 0s | undecided |",
            "",
            "- u &amp; v",
        ]);
        expect(from("<details><summary>Not modelled (2)</summary>", 5)).to.deep.equal(["", "- n\\|1", "- n2", "", "</details>"]);
        // Undecided items alone: no table.
        const alone = lines(formatRehearsalMarkdown(rehearsal({ undecided: ["u"] })));
        expect(alone.slice(alone.indexOf("### Undecided") + 1, alone.indexOf("### Undecided") + 3)).to.deep.equal(["", "- u"]);
        // Undecided groups alone: the table, no items.
        const only = lines(formatRehearsalMarkdown(rehearsal({ verdict: "undecided", groups: [group({ verdict: "undecided" })] })));
        expect(only.slice(only.indexOf("### Undecided") + 1, only.indexOf("### Undecided") + 6)).to.deep.equal([
            "",
            ...head,
            "| `apps` | managed node group | 2 | 0s | undecided |",
            "",
        ]);
        expect(formatRehearsalMarkdown(rehearsal())).not.to.match(
            /### (Problems|Passing|Advisory|Undecided|Timelines|Request paths)|<details>/,
        );
    });

    it("each group's timeline: heading, mechanism, chart or a sentence, then stalls, windows, waits and notes as a list", () => {
        const md = formatRehearsalMarkdown(r());
        const all = lines(md);
        const at = all.findIndex((l) => /^<details><summary>Timelines \(\d+ groups?\)<\/summary>$/.test(l));
        expect(at).to.be.greaterThan(all.indexOf("</details>", all.indexOf("<details><summary>Not modelled (2)</summary>")));
        expect(all.slice(at + 1, at + 5)).to.deep.equal([
            "",
            "#### managed node group `first`: 2 nodes (m6i.large), OK, 1m",
            "",
            "EKS managed rolling update: 1 node at a time",
        ]);
        const close = all.indexOf("```", all.indexOf("```mermaid"));
        expect(all.slice(close + 1, close + 4)).to.deep.equal([
            "",
            "- wait: p (W) waits 30s in wave 1 for PDB x\\|y",
            "- note: a &lt;b&gt; note",
        ]);
        const second = all.indexOf("#### NodePool `second`: 2 nodes (m6i.large), BLOCKED, 17m until it stalls");
        expect(all.slice(second + 1, second + 7)).to.deep.equal([
            "",
            "EKS managed rolling update: 1 node at a time",
            "",
            "No wave starts: never.",
            // Said once: no "stalls:" item repeats the sentence.
            "",
            "#### managed node group `und`: 0 nodes (m6i.large), UNDECIDED, 0s",
        ]);
        // A group that stalls in a wave: under its chart.
        const inWave = lines(
            formatRehearsalMarkdown(
                rehearsal({ groups: [group({ verdict: "blocked", stalled: "apps-1 never drains", waves: [wave(60)] })] }),
            ),
        );
        expect(inWave.slice(inWave.lastIndexOf("```") + 1, inWave.lastIndexOf("```") + 3)).to.deep.equal([
            "",
            "- stalls: apps-1 never drains",
        ]);
        expect(inWave.filter((l) => l.includes("apps-1 never drains"))).to.have.length(1);
        const und = all.indexOf("#### managed node group `und`: 0 nodes (m6i.large), UNDECIDED, 0s");
        // Nothing to list under it: the folded timelines close, then the verdict, each after one empty line.
        expect(all.slice(und + 3, und + 9)).to.deep.equal([
            "",
            "No waves: the group has no nodes to replace.",
            "",
            "</details>",
            "",
            "**BLOCKED:** 3 problems in NodePool second, listed first above.",
        ]);
        // The chart of a group with waves is there, and only one: the others have none.
        expect(gantts(md)).to.have.length(1);
        const nothing = formatRehearsalMarkdown(
            rehearsal({ groups: [group({ windows: [EKS_LIMIT], longestDrain: { node: "apps-1", seconds: 0 } })] }),
        );
        expect(lines(nothing)).to.include("No wave starts: nothing to replace.");
        expect(lines(nothing)).to.include("- window: 15m EKS eviction limit (PodEvictionFailure): no node has pods to drain");
    });

    it("request paths as tables, the verdicts in bold, and a closing newline", () => {
        const md = formatRehearsalMarkdown(
            rehearsal({
                verdict: "blocked",
                problems: [{ message: "P." }],
                requestPaths: [
                    { workload: "Deployment prod/<w>", path: "NLB | ip", container: "app", phases: [{ at: 75, what: "a < b" }], gaps: [] },
                    { workload: "W", path: "p", container: "c", phases: [], gaps: [{ kind: "window", from: 0, to: 5, why: "x" }] },
                ],
            }),
        );
        const all = lines(md);
        const at = all.indexOf(
            "<details><summary>Request paths (one pod's exit, seconds after its deletion; workload-request-path judges them) (2)</summary>",
        );
        expect(at).to.be.greaterThan(-1);
        expect(all.slice(at + 1, at + 9)).to.deep.equal([
            "",
            "#### Deployment prod/&lt;w&gt;, container `app`: NLB \\| ip",
            "",
            "| at | what |",
            "|---|---|",
            "| 1m 15s | a &lt; b |",
            "",
            "**OK:** routing stops before the app does, the target drains before the pod dies, and the node outlives both",
        ]);
        expect(all).to.include("**DROPS REQUESTS:** 0s → 5s, x");
        expect(md.endsWith("\n\n**BLOCKED:** 1 problem, listed first above.\n")).to.equal(true);
        expect(
            formatRehearsalMarkdown(rehearsal()).endsWith(
                "\n\n**OK:** every rollout completes without a blocked eviction, a pod with nowhere to run or a workload at zero ready replicas.\n",
            ),
        ).to.equal(true);
    });
});
