/**
 * What the rehearsal's report says (rehearsal/report.ts): each problem names the workload, its
 * group, the cause, the time against the window and a fix for that cause — one scenario per
 * finding that used to point at the wrong thing. Builders and sizes: ./scenario.ts.
 */
import { expect } from "chai";
import { formatSeconds } from "eks-platform-kernel";
import { formatRehearsal, formatRehearsalMarkdown, Rehearsal } from "eks-platform-rehearsal";
import { service } from "../policies/fixtures";
import { changed, TestResource, urnOf } from "../policies/harness";
import { app, asg, hook, managed, nodePool, pdb, run } from "./scenario";

/** A NodePool that launches only Spot m6i.large. */
function spotPool(name: string, spec: Record<string, unknown> = {}): TestResource {
    return nodePool(name, {
        requirements: [
            { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] },
            { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.large"] },
        ],
        ...spec,
    });
}

const messages = (r: Rehearsal) => r.problems.map((p) => p.message);

describe("drain rehearsal report: findings name the workload, the cause and the time", () => {
    it("a drain past the Spot notice names the workload whose grace period makes it long, not the simulated node", () => {
        // Two spread replicas with a 5-minute grace period on a Spot pool: each drain takes 5m.
        const worker = app("worker", { replicas: 2, grace: 300, spreadHost: true });
        const r = run([spotPool("batch-spot", { terminationGracePeriod: "15m" }), worker, pdb("worker", { maxUnavailable: 1 })]);
        // One problem per workload, at its worst wave.
        expect(r.problems).to.have.length(1);
        const [first] = r.problems;
        expect(first.message).to.match(
            /^Deployment prod\/worker keeps node batch-spot-1 of NodePool batch-spot draining for 5m in wave 1 \(0s–7m into the rollout\), longer than the 2m Spot interruption notice: its pod worker-0 is evicted at 0s, then takes its 5m grace period\./,
        );
        expect(first.message).to.match(/Fix: shorten the grace period of Deployment prod\/worker \(terminationGracePeriodSeconds 5m/);
        // On the workload to change, not the pool.
        expect(first.urn).to.equal(urnOf(worker));
        expect(messages(r).every((m) => !m.startsWith("Node "))).to.equal(true);
    });

    it("a grace period past EKS's 15 minutes names the workload, not a budget, and the stall 17m in (2m scale-up + 15m)", () => {
        const slow = app("slow", { grace: 17 * 60 });
        const r = run([managed("apps", 3), slow, pdb("slow", { maxUnavailable: 1 })]);
        const g = r.groups[0];
        expect(g.estimatedSeconds).to.equal(120 + 900);
        expect(g.waves.map((w) => w.seconds)).to.deep.equal([120, 900]);
        expect(r.problems).to.have.length(1);
        const [p] = r.problems;
        expect(p.message).to.match(/^The rollout of managed node group apps stalls 17m after it starts: /);
        expect(p.message).to.include(
            "Deployment prod/slow is the cause: on node apps-1, its pod slow-0 is evicted at 0s, then takes its 17m grace period, so it terminates 17m into the drain, past EKS's 15m limit",
        );
        expect(p.message).to.match(/Fix: shorten the grace period of Deployment prod\/slow \(terminationGracePeriodSeconds 17m/);
        expect(p.message).not.to.match(/PodDisruptionBudget/);
        expect(p.urn).to.equal(urnOf(slow));
    });

    it("a budget that never lets go holds its node for the whole 15 minutes: that is the longest drain, not 0s", () => {
        const budget = pdb("web", { minAvailable: 3 });
        const r = run([managed("apps", 3), app("web", { spreadHost: true }), budget]);
        const g = r.groups[0];
        expect(g.longestDrain).to.deep.equal({ node: "apps-1", seconds: 900 });
        expect(g.waves[1].slowest).to.include({ pod: "web-0", workload: "Deployment prod/web", left: "held", pdb: "prod/web" });
        const stall = r.problems[0];
        expect(stall.message).to.match(/stalls 17m after it starts: .*; PodDisruptionBudget prod\/web holds Deployment prod\/web\./);
        expect(stall.message).to.match(/Fix: let PodDisruptionBudget prod\/web allow a disruption/);
        expect(stall.urn).to.equal(urnOf(budget));
    });

    it("a pod Karpenter deletes past its budget in time for its grace period is deleted, not cut short", () => {
        const budget = pdb("web", { minAvailable: "100%" });
        const r = run([nodePool("general", { terminationGracePeriod: "10m" }), app("web", { spreadHost: true }), budget]);
        const g = r.groups[0];
        expect(g.killed).to.deep.equal([]);
        // Deleted at 10m − 60 s grace: 9m into each drain.
        expect(g.deleted.map((d) => [d.pod, d.at, d.graceSeconds, d.pdb])).to.deep.equal([
            ["web-0", 540, 60, "prod/web"],
            ["web-1", 540, 60, "prod/web"],
            ["web-2", 540, 60, "prod/web"],
        ]);
        expect(messages(r).join("\n")).not.to.match(/cut short/i);
        expect(r.problems[0].message).to.match(
            /^PodDisruptionBudget prod\/web still holds pod web-0 of Deployment prod\/web on node general-1 of NodePool general 9m into the drain \(wave 1\): Karpenter deletes it past the budget, in time for its 1m grace period to end by the 10m terminationGracePeriod of NodePool general\./,
        );
        expect(r.problems[0].urn).to.equal(urnOf(budget));
    });

    it("a pod whose grace period is longer than the pool's terminationGracePeriod is still cut short, and the fix is its grace period", () => {
        const r = run([nodePool("general", { terminationGracePeriod: "5m" }), app("long", { grace: 600, spreadHost: true })]);
        const g = r.groups[0];
        expect(g.deleted).to.deep.equal([]);
        expect(g.killed.length).to.be.greaterThan(0);
        expect(messages(r).join("\n")).to.match(
            /Pod long-\d of Deployment prod\/long is cut short .*Fix: shorten the grace period of Deployment prod\/long \(terminationGracePeriodSeconds 10m/,
        );
    });

    it("a pod cut short because its budget held it names the budget in the fix, not the grace period that alone would fit", () => {
        // 120 s grace in a 120 s heartbeat fits only if evicted at once; the budget holds trio-2 for 30 s.
        const r = run([
            asg("batch", 2, { minHealthy: 50 }),
            hook(120),
            app("trio", { replicas: 3, grace: 120 }),
            pdb("trio", { maxUnavailable: 1 }),
        ]);
        const cut = r.problems.find((p) => p.message.startsWith("Pod trio-2 "));
        expect(cut?.message).to.match(/it needs until 2m 30s into the drain \(evicted at 30s, grace period 2m\)/);
        expect(cut?.message).to.match(/Fix: let PodDisruptionBudget prod\/trio allow more disruptions at once/);
    });

    it("an Auto Scaling group without a termination hook is told to add one", () => {
        const r = run([asg("batch", 2), app("web", { replicas: 2 })]);
        expect(messages(r).join("\n")).to.match(/Fix: add an EC2_INSTANCE_TERMINATING lifecycle hook to the group/);
    });

    it("writes every duration one way: no `150s` beside `2m 30s`", () => {
        const r = run([asg("batch", 1), hook(150), app("trio", { replicas: 3, grace: 120 }), pdb("trio", { maxUnavailable: 1 })]);
        const all = [...messages(r), ...r.groups.flatMap((g) => g.killed.map((k) => k.how))].join("\n");
        expect(all).to.include("2m 30s");
        const seconds = [...all.matchAll(/\b(\d+)s\b/g)].map((m) => Number(m[1]));
        expect(seconds.length).to.be.greaterThan(0);
        expect(seconds.filter((s) => s >= 60)).to.deep.equal([]);
        expect(formatSeconds(150)).to.equal("2m 30s");
    });
});

describe("drain rehearsal report: each problem's why is the controller's rule (EKS's 15-minute eviction limit, Karpenter's terminationGracePeriod)", () => {
    const held = [app("web", { spreadHost: true }), pdb("web", { minAvailable: 3 })];

    it("a budget that never allows an eviction: EKS fails the update after 15 minutes; the rollout stalls on the budget, not on a shutdown", () => {
        const m = messages(run([managed("apps", 3), ...held]));
        expect(m).to.include(
            "PodDisruptionBudget prod/web blocks the eviction of web-0 (Deployment prod/web) from node apps-1 of managed node group apps, for good, in wave 2 (2m–17m into the rollout): minAvailable: 3 requires 3 healthy of 3 pods, so it allows no disruption even at full strength. Why: EKS gives up after 15 minutes with PodEvictionFailure and the node group update fails. Fix: let the budget allow one disruption (maxUnavailable: 1, or minAvailable below the replica count) and give the workload room to reschedule.",
        );
        expect(m[0]).to.match(
            /^The rollout of managed node group apps stalls 17m after it starts: .*; PodDisruptionBudget prod\/web holds Deployment prod\/web\. Why: the update fails part-way/,
        );
    });

    it("the same budget on a NodePool without terminationGracePeriod: Karpenter never finishes the drain, so drift stalls before its first wave", () => {
        const m = messages(run([nodePool("general"), ...held]));
        expect(m[0]).to.match(/^The rollout of NodePool general stalls before its first wave: Karpenter never disrupts node general-1: /);
        expect(m[0]).to.include(
            "Fix: let PodDisruptionBudget prod/web allow a disruption and make sure evicted pods fit elsewhere, or set the NodePool's terminationGracePeriod so Karpenter deletes held pods in the end; then retry the update.",
        );
        expect(m[1]).to.include(
            "Why: Karpenter cannot finish the node's drain until its terminationGracePeriod (if any) deletes the pod anyway.",
        );
    });

    it("an evicted pod with nowhere to run says how long it waits for a later node; a workload behind two Services says both have no endpoint", () => {
        const minimal = managed("apps", 2, { zones: 1, update: { maxUnavailable: 1, updateStrategy: "MINIMAL" } });
        expect(messages(run([minimal, app("big", { replicas: 2, cpu: "1500m" })]))[0]).to.include(
            "(wave 1): 0/2 nodes are available: 1 cordoned, 1 insufficient cpu; it waits 4m for a node launched later. Why:",
        );
        const twice = run([
            managed("apps", 3),
            app("solo", { replicas: 1 }),
            service("solo", "prod", { app: "solo" }),
            service("solo2", "prod", { app: "solo" }),
        ]);
        expect(messages(twice).join("\n")).to.include("; Service prod/solo, Service prod/solo2 have no ready endpoint left. Why:");
    });
});

describe("drain rehearsal report: the text", () => {
    // One group blocked (a budget that never lets go), one that passes, one with no nodes.
    const blocked = () => [
        managed("apps", 3),
        managed("spare", 2, { zones: 1 }),
        managed("empty", 0),
        app("web", { spreadHost: true }),
        pdb("web", { minAvailable: 3 }),
    ];

    it("puts problems first, then each passing group on one line, then the timelines", () => {
        const r = run(blocked());
        const text = formatRehearsal(r, "test");
        const at = (s: string) => {
            const i = text.indexOf(s);
            expect(i, s).to.be.greaterThan(-1);
            return i;
        };
        expect(r.groups.map((g) => [g.name, g.verdict])).to.deep.equal([
            ["apps", "blocked"],
            ["spare", "ok"],
            ["empty", "ok"],
        ]);
        expect(at("\nProblems (2):")).to.be.lessThan(at("\nPassing groups:"));
        expect(at("\nPassing groups:")).to.be.lessThan(at("\nTimelines:"));
        expect(at("\nTimelines:")).to.be.lessThan(at("\nBLOCKED: 2 problems in managed node group apps"));
        // Each problem under its group, numbered, with its why and fix on lines of their own.
        const problems = text.slice(at("\nProblems"), at("\nPassing groups:"));
        expect(problems).to.match(
            /\nmanaged node group apps: 3 nodes \(m6i\.large\), BLOCKED, 17m until it stalls\n {2}1\. The rollout of managed node group apps stalls/,
        );
        expect(problems).to.match(/\n {2}2\. PodDisruptionBudget prod\/web blocks the eviction of web-0 \(Deployment prod\/web\)/);
        expect(problems.match(/\n {5}Fix: /g)).to.have.length(2);
        // Passing groups: name, kind, nodes, estimated time, ok — one line each, and nothing else of them.
        const passing = text.slice(at("\nPassing groups:"), at("\nTimelines:")).trim().split("\n").slice(1);
        expect(passing.map((l) => l.trim().split(/ {2,}/))).to.deep.equal([
            ["spare", "managed node group", "2 nodes", formatSeconds(r.groups[1].estimatedSeconds), "ok"],
            ["empty", "managed node group", "0 nodes", "0s", "ok"],
        ]);
        expect(problems).not.to.include("spare");
    });

    it("gives each wave its start and end on the rollout's clock, and each window the drain measured against it", () => {
        const r = run(blocked());
        const text = formatRehearsal(r);
        const apps = text.slice(text.indexOf("\nmanaged node group apps: ", text.indexOf("\nTimelines:")));
        expect(apps).to.match(/\n {2}0s → 2m {3}wave 1 scale-up: launch apps-4, apps-5, apps-6\n/);
        expect(apps).to.match(
            /\n {2}2m → 17m {2}wave 2 upgrade: drain apps-1 from 2m to 17m \(15m, 0 evictions; last out web-0 of Deployment prod\/web, held by PodDisruptionBudget prod\/web: never evicted\) — STALLS here\n/,
        );
        expect(apps).to.include("window: 15m EKS eviction limit (PodEvictionFailure): longest drain 15m (apps-1), reaches it");
        expect(apps).not.to.match(/longest drain 0s/);
        // The passing group's waves follow one another: each starts where the one before ends.
        const spare = r.groups[1];
        let t = 0;
        for (const [i, w] of spare.waves.entries()) {
            expect(text).to.match(new RegExp(`${formatSeconds(t)} → ${formatSeconds(t + w.seconds)} +wave ${i + 1} ${w.phase}: `));
            t += w.seconds;
        }
        expect(spare.waves.length).to.be.greaterThan(0);
    });

    it("says a group that stalls before its first wave stalls, never that it has no waves to run", () => {
        const pool = nodePool("general");
        (pool.props.spec as Record<string, unknown>).disruption = { budgets: [{ nodes: "0", reasons: ["Drifted"] }] };
        const text = formatRehearsal(run([pool, app("web", { spreadHost: true })]));
        expect(text).to.include("NodePool general: 3 nodes (m6i.large), BLOCKED, stalls before its first wave");
        expect(text).to.include("  no wave starts: its disruption budgets allow 0 nodes for Drifted at all times");
        expect(text).not.to.match(/no waves/);
        // A group with no nodes does say so.
        expect(formatRehearsal(run(blocked()))).to.match(
            /\nmanaged node group empty: 0 nodes, OK, 0s\n.*\n {2}no waves: the group has no nodes to replace\n/,
        );
    });

    it("lists a pod that fits nowhere before any rollout once, first, under no group", () => {
        // One m6i.large (2 vCPU) uses the pool's whole limit; the second 1500m replica fits nowhere.
        const pool = changed(nodePool("general"), "spec.limits", { cpu: "2" });
        const text = formatRehearsal(run([pool, app("big", { cpu: "1500m" })]));
        expect(text).to.match(
            /\nProblems \(\d+\):\n\nBefore any rollout:\n {2}1\. Pod big-\d of Deployment prod\/big fits on no node of the stack/,
        );
        expect(text.match(/Pod big-1 of Deployment prod\/big fits on no node|big-1 \(Deployment prod\/big\)/g)).to.have.length(1);
    });

    it("lists a pod deleted past its budget as a problem, never as cut short", () => {
        const r = run([
            nodePool("general", { terminationGracePeriod: "10m" }),
            app("web", { spreadHost: true }),
            pdb("web", { minAvailable: "100%" }),
        ]);
        const text = formatRehearsal(r);
        expect(text).to.match(/held by PodDisruptionBudget prod\/web until Karpenter deletes it at 9m, then takes its 1m grace period/);
        expect(text).not.to.match(/cut short/i);
    });
});

/** A gantt task as the report writes it: `name :tags, start, 120s`. */
interface Task {
    name: string;
    tags: string[];
    start: number;
    seconds: number;
}

/** The Mermaid blocks of a Markdown text, each with the heading above it and its sections' tasks. */
function mermaidBlocks(markdown: string): { heading: string; header: string[]; sections: { name: string; tasks: Task[] }[] }[] {
    const out: { heading: string; header: string[]; sections: { name: string; tasks: Task[] }[] }[] = [];
    const lines = markdown.split("\n");
    let heading = "";
    for (let i = 0; i < lines.length; i++) {
        if (lines[i].startsWith("#### ")) {
            heading = lines[i];
        }
        if (lines[i] !== "```mermaid") {
            continue;
        }
        const block = { heading, header: [] as string[], sections: [] as { name: string; tasks: Task[] }[] };
        for (i++; lines[i] !== "```"; i++) {
            expect(i, "an unterminated mermaid block").to.be.lessThan(lines.length);
            const section = /^ {4}section (.+)$/.exec(lines[i]);
            const task = /^ {4}([^:;#]+?) :((?:\w+, )*)(\d+), (\d+)s$/.exec(lines[i]);
            if (section) {
                block.sections.push({ name: section[1], tasks: [] });
            } else if (task && block.sections.length > 0) {
                const tags = task[2] ? task[2].split(", ").filter(Boolean) : [];
                block.sections[block.sections.length - 1].tasks.push({
                    name: task[1],
                    tags,
                    start: Number(task[3]),
                    seconds: Number(task[4]),
                });
            } else {
                expect(block.sections, `a task before any section, or a line the gantt syntax would refuse: ${lines[i]}`).to.deep.equal([]);
                block.header.push(lines[i]);
            }
        }
        out.push(block);
    }
    return out;
}

describe("drain rehearsal report: Markdown", () => {
    const stack = () => [
        managed("apps", 3),
        managed("spare", 2, { zones: 1 }),
        managed("empty", 0),
        app("slow", { grace: 17 * 60 }),
        pdb("slow", { maxUnavailable: 1 }),
    ];

    it("draws a Mermaid gantt chart per group with waves, one section per wave, on the rollout's clock", () => {
        const r = run(stack());
        const markdown = formatRehearsalMarkdown(r, "test");
        const blocks = mermaidBlocks(markdown);
        const withWaves = r.groups.filter((g) => g.waves.length > 0);
        expect(withWaves.map((g) => g.name)).to.deep.equal(["apps", "spare"]);
        expect(blocks).to.have.length(withWaves.length);
        withWaves.forEach((g, n) => {
            const block = blocks[n];
            expect(block.heading, g.name).to.include(`\`${g.name}\``);
            expect(block.header[0]).to.equal("gantt");
            expect(block.header).to.include("    dateFormat X");
            expect(block.header.some((l) => /^ {4}axisFormat %M:%S$/.test(l))).to.equal(true);
            expect(block.sections.map((sec) => sec.name)).to.deep.equal(g.waves.map((w, i) => `wave ${i + 1} ${w.phase}`));
            // Each wave's bar starts where the waves before it end, and lasts its seconds.
            let t = 0;
            block.sections.forEach((sec, i) => {
                expect(sec.tasks[0], `${g.name} wave ${i + 1}`).to.include({ start: t, seconds: g.waves[i].seconds });
                t += g.waves[i].seconds;
            });
        });
        // The stalled wave of apps: its drain up to EKS's 15 minutes, the 2 minutes past it as a crit
        // bar, and the limit as a milestone 15m after the drain starts (2m in).
        const stalled = blocks[0].sections[1].tasks;
        expect(stalled.find((x) => x.tags.includes("active"))).to.include({ start: 120, seconds: 900 });
        expect(stalled.find((x) => x.name.startsWith("past the 15m window"))).to.deep.include({
            tags: ["crit"],
            start: 1020,
            seconds: 120,
        });
        expect(stalled.find((x) => x.tags.includes("milestone"))).to.deep.include({
            name: "15m EKS eviction limit (PodEvictionFailure)",
            start: 1020,
            seconds: 0,
        });
        // A group without waves gets a sentence, not an empty chart.
        expect(markdown).to.match(
            /#### managed node group `empty`: 0 nodes, OK, 0s\n\n.*\n\nNo waves: the group has no nodes to replace\./,
        );
    });

    it("is the same report as the text: problems first, then passing groups, then timelines", () => {
        const r = run(stack());
        const markdown = formatRehearsalMarkdown(r);
        const at = (s: string) => {
            const i = markdown.indexOf(s);
            expect(i, s).to.be.greaterThan(-1);
            return i;
        };
        expect(r.problems).to.have.length(1);
        expect(at(`\n### Problems (1)\n`)).to.be.lessThan(at("\n### Passing groups\n"));
        expect(at("\n### Passing groups\n")).to.be.lessThan(at("\n<details><summary>Timelines ("));
        expect(markdown).to.include("1. The rollout of managed node group apps stalls 17m after it starts");
        expect(markdown).to.include("   - **Fix:** shorten the grace period of Deployment prod/slow");
        expect(markdown).to.include("| `spare` | managed node group | 2 | ");
        expect(markdown).to.match(/\n\*\*BLOCKED:\*\* 1 problem in managed node group apps, listed first above\.\n$/);
    });

    it("keeps names the gantt syntax reserves characters in out of its tasks", () => {
        const r = run(stack());
        r.groups[0].waves[0].launched = ["a:b;c#d"];
        const [block] = mermaidBlocks(formatRehearsalMarkdown(r));
        expect(block.sections[0].tasks[0].name).to.equal("wave 1, launch a b c d");
    });
});
