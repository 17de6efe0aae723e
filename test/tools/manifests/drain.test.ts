/**
 * `npm run drain` as users run it, on every stack of the repository: with examples/ every
 * rollout completes (exit 0) and each group shows its waves and estimated time; with workloads
 * no rollout can move (test/fixtures/drain) it exits 1 naming the budget and the group, problems
 * first; bad input exits 2. Exact outcomes of small scenarios are in test/rehearsal/index.test.ts,
 * the report's wording in test/rehearsal/report.test.ts.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { formatSeconds } from "eks-platform-kernel";
import type { Rehearsal } from "eks-platform-rehearsal";
import { groupTitle, kindName } from "eks-platform-rehearsal";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
import { CliResult, runTool } from "../../mocks";
import { stackConfig, stacks } from "../../stackFiles";

const STACKS = stacks();
const BLOCKERS = path.join("test", "fixtures", "drain");

describe("npm run drain", function () {
    this.timeout(240_000);

    it("finds stacks to rehearse", () => {
        expect(STACKS.length).to.be.greaterThan(0);
    });

    for (const stack of STACKS) {
        // EKS Auto Mode replays each pool's forced expiry too (budgets ignored, every node at once,
        // PDBs overridden at terminationGracePeriod): there a workload that cannot survive it is reported.
        const auto = stackConfig(stack).autoMode.enabled;
        describe(`on the ${stack} stack`, () => {
            let examplesJson: CliResult;
            let examplesText: CliResult;
            let blockers: CliResult;
            let blockersText: CliResult;
            let examplesMarkdown: CliResult;
            before(async () => {
                [examplesJson, examplesText, blockers, blockersText, examplesMarkdown] = await Promise.all([
                    runTool("drain.ts", [stack, "examples/", "--format", "json"]),
                    runTool("drain.ts", [stack, "examples"]),
                    runTool("drain.ts", [stack, BLOCKERS, "--format=json"]),
                    runTool("drain.ts", [stack, BLOCKERS]),
                    runTool("drain.ts", [stack, "examples/", "--format", "markdown"]),
                ]);
            });

            it("with examples/, exits 0: every rollout completes (on Auto Mode, every rollout but a pool's forced expiry, whose problems name the workload)", () => {
                const r = JSON.parse(examplesJson.stdout) as Rehearsal & { stack: string };
                expect(r.stack).to.equal(stack);
                if (auto) {
                    // Its forced expiry is replayed as the worst case (every node at once): what it finds is
                    // reported, undecided (the nodes' ages are not in the input), never a failure by itself.
                    expect(examplesJson.code, examplesJson.stderr || examplesJson.stdout.slice(0, 2000)).to.equal(0);
                    expect(r.problems).to.deep.equal([]);
                    expect(
                        r.groups.some((g) => g.change === "expiry"),
                        "the forced expiry is rehearsed",
                    ).to.equal(true);
                    expect(r.groups.filter((g) => g.change !== "expiry").every((g) => g.verdict !== "blocked")).to.equal(true);
                    expect(
                        r.undecided.some((u) =>
                            /StatefulSet redis\/redis-cluster .*\(forced expiry\).* if every node of the pool expires at once/.test(u),
                        ),
                        "the example that cannot survive the forced expiry is reported",
                    ).to.equal(true);
                } else {
                    expect(examplesJson.code, examplesJson.stderr || examplesJson.stdout.slice(0, 2000)).to.equal(0);
                    expect(r.problems).to.deep.equal([]);
                    expect(r.verdict).to.not.equal("blocked");
                }
                expect(r.groups.length).to.be.greaterThan(0);
                for (const g of r.groups) {
                    if (g.nodes > 0) {
                        expect(g.waves.length, g.name).to.be.greaterThan(0);
                        expect(g.estimatedSeconds, g.name).to.be.greaterThan(0);
                    }
                }
                // The examples' workloads were placed and moved, not silently left out.
                expect(r.groups.some((g) => g.waves.some((w) => w.evictions > 0))).to.equal(true);
            });

            it("with examples/, shows the web example's exit on its ALB's request path after the timelines, with no gap (not on Auto Mode, whose load balancing is not modelled)", () => {
                const r = JSON.parse(examplesJson.stdout) as Rehearsal;
                const web = r.requestPaths.find((p) => p.workload === "Deployment web/web");
                if (auto) {
                    // The pack's workload-request-path says it is undecided; the rehearsal draws no path it cannot time.
                    expect(web).to.equal(undefined);
                    return;
                }
                expect(web?.path).to.equal("ALB of Ingress web (Service web), ip targets");
                expect(web?.gaps).to.deep.equal([]);
                const text = examplesText.stdout;
                expect(text.indexOf("\nRequest paths")).to.be.greaterThan(text.indexOf("\nTimelines:\n"));
                expect(text).to.match(
                    /Deployment web\/web, container "nginx" — ALB of Ingress web \(Service web\), ip targets:\n.*\n.*the ALB sends it no more new requests/,
                );
                expect(examplesMarkdown.stdout).to.include("<details><summary>Request paths");
            });

            it("prints each passing group on one line, then each group's timeline: its waves on the rollout's clock", () => {
                expect(examplesText.code, examplesText.stderr).to.equal(examplesJson.code);
                const r = JSON.parse(examplesJson.stdout) as Rehearsal;
                const text = examplesText.stdout;
                const timelines = text.indexOf("\nTimelines:\n");
                expect(timelines).to.be.greaterThan(-1);
                for (const g of r.groups) {
                    const nodes = `${g.nodes} node${g.nodes === 1 ? "" : "s"}`;
                    if (g.verdict === "ok") {
                        expect(text.slice(0, timelines), g.name).to.match(
                            new RegExp(
                                `\n {2}${escapeRegExp(groupTitle(g).slice(kindName(g.kind).length + 1))} +${kindName(g.kind)} +${nodes} +${formatSeconds(g.estimatedSeconds)} +ok\n`,
                            ),
                        );
                    }
                    const section =
                        text
                            .slice(timelines)
                            .split(`\n${groupTitle(g)}: `)[1]
                            ?.split("\n\n")[0] ?? "";
                    expect(section, g.name).to.match(
                        new RegExp(`^${nodes}.*, ${g.verdict.toUpperCase()}, ${formatSeconds(g.estimatedSeconds)}\n`),
                    );
                    if (g.nodes > 0) {
                        expect(section, g.name).to.match(
                            new RegExp(`\n {2}0s → ${formatSeconds(g.waves[0].seconds)} +wave 1 ${g.waves[0].phase}: `),
                        );
                    }
                }
                if (examplesJson.code === 0) {
                    expect(text).not.to.include("\nProblems");
                    expect(text).to.match(/\n(OK|UNDECIDED): [^\n]*\n$/);
                }
            });

            it("with --format markdown, prints the report with a Mermaid gantt chart per group that has waves", () => {
                expect(examplesMarkdown.code, examplesMarkdown.stderr).to.equal(examplesJson.code);
                const r = JSON.parse(examplesJson.stdout) as Rehearsal;
                const md = examplesMarkdown.stdout;
                expect(md).to.match(new RegExp(`^## Drain rehearsal of stack \`${stack}\`: ${r.verdict.toUpperCase()}\n`));
                const charts = md
                    .split("\n```mermaid\n")
                    .slice(1)
                    .map((c) => c.slice(0, c.indexOf("\n```")));
                const withWaves = r.groups.filter((g) => g.waves.length > 0);
                expect(charts).to.have.length(withWaves.length);
                withWaves.forEach((g, i) => {
                    expect(charts[i].split("\n")[0]).to.equal("gantt");
                    expect(charts[i], g.name).to.include(`    title ${groupTitle(g)}, `);
                    expect(charts[i].match(/^ {4}section /gm), g.name).to.have.length(g.waves.length);
                });
            });

            it("with a minAvailable-3 budget and a single replica, exits 1 naming the budget, the group and the workload at zero", () => {
                expect(blockers.code, blockers.stderr).to.equal(1);
                const r = JSON.parse(blockers.stdout) as Rehearsal;
                const messages = r.problems.map((p) => p.message).join("\n");
                if (auto) {
                    // Auto Mode's Karpenter overrides the budget once terminationGracePeriod runs out.
                    expect(messages).to.match(
                        /PodDisruptionBudget drain-test\/deadlock still holds pod deadlock-\d .* Karpenter deletes it past the budget/,
                    );
                } else {
                    const blocked = r.groups.filter((g) => g.blocked.some((b) => b.pdb === "drain-test/deadlock"));
                    expect(blocked.length, "a group whose rollout the budget blocks").to.be.greaterThan(0);
                    for (const g of blocked) {
                        expect(messages).to.include(`PodDisruptionBudget drain-test/deadlock blocks the eviction`);
                        expect(messages).to.include(`of ${kindName(g.kind)} ${g.name}`);
                    }
                }
                expect(messages).to.match(/Deployment drain-test\/solo reaches zero ready replicas during the rollout of /);
                // The text lists them first, under their groups, before the groups that pass and the timelines.
                expect(blockersText.code, blockersText.stderr).to.equal(1);
                const text = blockersText.stdout;
                const problems = text.indexOf(`\nProblems (${r.problems.length}):\n`);
                expect(problems).to.be.greaterThan(-1);
                expect(problems).to.be.lessThan(text.indexOf("\nTimelines:\n"));
                if (text.includes("\nPassing groups:\n")) {
                    expect(problems).to.be.lessThan(text.indexOf("\nPassing groups:\n"));
                }
                const first = r.groups.find((g) => g.verdict === "blocked");
                expect(first, "a blocked group").to.not.equal(undefined);
                expect(text.slice(problems)).to.include(`\n${kindName(first!.kind)} ${first!.name}: `);
                expect(text).to.match(/\nBLOCKED: \d+ problems? in [^\n]+, listed first above\.\n$/);
            });
        });
    }

    it("validates manifests first, as policy:check does: objects the API server would refuse are listed at their line and not rehearsed (exit 1)", async () => {
        const dir = path.join("test", "fixtures", "drain-refused");
        const [json, text] = await Promise.all([
            runTool("drain.ts", [STACKS[0], dir, "--format", "json"]),
            runTool("drain.ts", [STACKS[0], dir]),
        ]);
        expect([json.code, text.code], json.stderr).to.deep.equal([1, 1]);
        const out = JSON.parse(json.stdout) as Rehearsal & { refused: { file: string; line: number; message: string }[] };
        const file = `${dir}/app.yaml`;
        expect(out.refused.map((r) => [r.file, r.line])).to.deep.equal([
            [file, 9],
            [file, 21],
            [file, 33],
            [file, 58],
        ]);
        expect(out.refused[0].message).to.match(
            /^Deployment shop\/web would be refused by the API server: spec\.replicas: Invalid value: -5: must be greater than or equal to 0\. Why: /,
        );
        expect(out.refused[1].message).to.match(
            /^Deployment shop\/api would be refused by the API server: spec\.replicas is the string "3"/,
        );
        expect(out.refused[2].message).to.match(
            /^PodDisruptionBudget shop\/cart would be refused by the API server: it sets maxUnavailable to -1/,
        );
        expect(out.refused[3].message).to.match(
            /^Deployment shop\/spread would be refused by the API server: spec\.template\.spec\.topologySpreadConstraints\[0\]\.maxSkew: Invalid value: 0: must be greater than zero/,
        );
        // One validation: policy:check refuses exactly the same objects, at the same lines, with the same words.
        const gate = await runTool("policyCheck.ts", ["--env", "dev", "--format", "json", dir]);
        const gated = (
            JSON.parse(gate.stdout) as { violations: { policy: string; message: string; location?: { line: number } }[] }
        ).violations.filter((v) => v.policy === "api-server-validation");
        expect(gated.map((v) => v.location?.line)).to.deep.equal(out.refused.map((r) => r.line));
        gated.forEach((v, i) => expect(v.message).to.include(out.refused[i].message.slice(0, out.refused[i].message.indexOf(" Why: "))));
        // The refused workloads are not rehearsed at all (not as one replica); the valid one is.
        const rehearsed = JSON.stringify(out.groups);
        expect(rehearsed).to.not.match(/shop\/web|shop\/api|shop\/spread/);
        expect(out.undecided.join("\n")).to.not.match(/shop\/web/);
        expect(text.stdout.split("\n")[0]).to.equal("Refused by the API server, so not rehearsed (4):");
        expect(text.stdout).to.match(/\n {2}test\/fixtures\/drain-refused\/app\.yaml:9: Deployment shop\/web would be refused/);
    });

    it("--platform rehearses manifests on a profile's platform exactly as on the rendered stack, with no program to run", async () => {
        // A stack with a self-managed group if there is one: its lifecycle hook's heartbeat is its drain window only if the profile keeps what pairs them.
        const stack = STACKS.find((s) => Object.values(stackConfig(s).nodeGroups).some((g) => g.kind === "selfManaged")) ?? STACKS[0];
        const profile = await runTool("profile.ts", [stack]);
        expect(profile.code, profile.stderr).to.equal(0);
        const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "drain-platform-")), "profile.json");
        fs.writeFileSync(file, profile.stdout);
        const [onStack, onProfile] = await Promise.all([
            runTool("drain.ts", [stack, "examples/", "--format", "json"]),
            runTool("drain.ts", ["--platform", file, "examples/", "--format", "json"]),
        ]);
        expect([onStack.code, onProfile.code], onProfile.stderr).to.deep.equal([0, 0]);
        // URNs aside (the profile carries the engine's full URNs), the same rehearsal.
        const withoutUrns = (text: string) =>
            JSON.stringify(JSON.parse(text, (k, v: unknown) => (k === "urn" || k === "workloadUrn" ? undefined : v)));
        expect(withoutUrns(onProfile.stdout)).to.equal(withoutUrns(onStack.stdout));
        expect(onProfile.stderr).to.equal("");
    });

    it("--namespace puts objects that name none in that namespace, as kubectl apply -n does", async () => {
        const dir = path.join("test", "fixtures", "namespaceless");
        const [shop, plain, bad] = await Promise.all([
            runTool("drain.ts", [STACKS[0], dir, "--namespace", "shop", "--format", "json"]),
            runTool("drain.ts", [STACKS[0], dir, "--format", "json"]),
            runTool("drain.ts", [STACKS[0], dir, "--namespace", "Shop"]),
        ]);
        expect([shop.code, plain.code], shop.stderr).to.deep.equal([0, 0]);
        expect(shop.stdout).to.include("Deployment shop/api").and.not.include("Deployment default/api");
        expect(plain.stdout).to.include("Deployment default/api");
        expect(bad.code).to.equal(2);
        expect(bad.stderr).to.match(/--namespace "Shop" is not a namespace name/);
    });

    it("refuses bad input with exit 2 and a message: no stack, a bad format, an unknown stack or group", async () => {
        const [none, format, stack, group] = await Promise.all([
            runTool("drain.ts", []),
            runTool("drain.ts", [STACKS[0], "--format", "xml"]),
            runTool("drain.ts", ["no-such-stack"]),
            runTool("drain.ts", [STACKS[0], "--group", "no-such-group"]),
        ]);
        expect([none.code, format.code, stack.code, group.code]).to.deep.equal([2, 2, 2, 2]);
        expect(none.stderr).to.match(/usage: npm run drain -- <stack>/);
        expect(format.stderr).to.match(/--format must be text, markdown or json, not "xml"/);
        expect(stack.stderr).to.match(/unknown stack "no-such-stack"/);
        expect(group.stderr).to.match(/no node group or NodePool named "no-such-group" in this stack \(groups: /);
        expect([none, format, stack, group].map((r) => r.stdout)).to.deep.equal(["", "", "", ""]);
    });
});
