// Tests .github/workflows/ (and .ci/plan, their offline gate step): the layout's one named exception
// (test/test.layout.test.ts), since mocha's spec glob skips dot-folders such as test/.github/.
import { validateWorkflow } from "@action-validator/core";
import { expect } from "chai";
import { execFile, execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { ROOT } from "./mocks";
import { previewRunnerVariable, runnerVariable } from "../tools/ci/ciNames";
import { driftedStacks, GITHUB_HOSTED_RUNNER, runnerMatrix } from "../tools/ci/runners";
import { stackConfig, stacks } from "./stackFiles";

const DIR = path.join(ROOT, ".github", "workflows");
const files = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f)) : [];

interface Step {
    name?: string;
    id?: string;
    env?: Record<string, string>;
    if?: string;
    uses?: string;
    run?: string;
    with?: Record<string, unknown>;
}
interface Job {
    if?: string;
    "runs-on"?: string | string[];
    strategy?: { matrix?: { include?: Record<string, string>[] | string } & Record<string, unknown> };
    needs?: string | string[];
    environment?: string | { name: string };
    permissions?: Record<string, string> | string;
    steps?: Step[];
}
interface Workflow {
    on: Record<string, unknown>;
    permissions?: Record<string, string> | string;
    jobs: Record<string, Job>;
}

const load = (f: string) => ({
    text: fs.readFileSync(path.join(DIR, f), "utf8"),
    doc: YAML.parse(fs.readFileSync(path.join(DIR, f), "utf8")) as Workflow,
});
const all = files.map((f) => ({ file: f, ...load(f) }));
/**
 * This repository's own pipelines, which gate a change (pull requests, deploys). Reusable workflows
 * run in other repositories; the drift check runs main as it is, already gated.
 */
const pipelines = all.filter((w) => "push" in w.doc.on || "pull_request" in w.doc.on);
const usesCloud = (job: Job) => (job.steps ?? []).some((s) => s.uses?.startsWith("aws-actions/configure-aws-credentials@"));
const runs = (job: Job) => (job.steps ?? []).map((s) => s.run ?? "").join("\n");
const environmentOf = (job: Job) => (typeof job.environment === "string" ? job.environment : job.environment?.name);

/** Each (stack, runs-on expression) a job runs for: its matrix entries expanded, `matrix.*` substituted. */
function stackRunners(job: Job): { stack: string; runsOn: string }[] {
    const pulumiStep = (job.steps ?? []).find((s) => s.uses?.startsWith("pulumi/actions@"));
    const named = pulumiStep?.with?.["stack-name"];
    const stackName = typeof named === "string" ? named : "";
    const include = job.strategy?.matrix?.include;
    const entries = Array.isArray(include) ? include : [{}];
    const fill = (text: string, entry: Record<string, string>) =>
        text
            .replace(/\$\{\{\s*matrix\.(\w+)\s*\}\}/g, (_m, key: string) => entry[key] ?? "")
            .replace(/matrix\.(\w+)/g, (_m, key: string) => entry[key] ?? "");
    return entries.map((entry) => ({ stack: fill(stackName, entry), runsOn: fill(String(job["runs-on"] ?? ""), entry) }));
}

/** A pipeline's offline job: the one that runs `npm test` (its name and the job). */
function offlineJob(w: { doc: Workflow }): [string, Job] {
    const jobs = Object.entries(w.doc.jobs).filter(([, j]) => /(^|\n)npm test$/m.test(runs(j)));
    expect(
        jobs.map(([n]) => n),
        "exactly one job runs npm test",
    ).to.have.length(1);
    return jobs[0];
}

const DEPLOY_VARIABLE = /vars\.(RUNNER_(?!PREVIEW_)[A-Z0-9_]+)/g;

/** The deploy-runner variables (RUNNER_<STACK>, not RUNNER_PREVIEW_<STACK>) a text names. */
const deployVariablesIn = (text: string) => [...text.matchAll(DEPLOY_VARIABLE)].map((m) => m[1]);

/**
 * A workflow that runs for main only: pushes to main, a schedule (GitHub runs it on the default
 * branch, main), and a manual run only where every job is guarded by `github.ref ==
 * 'refs/heads/main'` (a dispatch may name any branch, whose copy of the workflow then runs). No
 * pull request, call, tag or other branch.
 */
const onlyMain = (doc: Workflow) => {
    // `on: push` and `on: [push, pull_request]` are the short forms of the mapping.
    const raw = doc.on as unknown;
    const on: Record<string, unknown> =
        typeof raw === "string" ? { [raw]: null } : Array.isArray(raw) ? Object.fromEntries(raw.map((t) => [String(t), null])) : doc.on;
    const triggers = Object.keys(on).sort();
    const push = on.push as { branches?: string[] } | null | undefined;
    const pushToMain = !("push" in on) || (JSON.stringify(push?.branches) === '["main"]' && !("tags" in (push ?? {})));
    const guarded = Object.values(doc.jobs).every((j) => String(j.if ?? "").includes("github.ref == 'refs/heads/main'"));
    return (
        triggers.length > 0 &&
        pushToMain &&
        triggers.every((t) => ["push", "schedule", "workflow_dispatch"].includes(t)) &&
        (!triggers.includes("workflow_dispatch") || guarded)
    );
};

/**
 * Every way a job of `w` could be scheduled on a deploy runner although the workflow runs code a
 * pull request wrote, as sentences naming the job (empty: none). Deploy runners are the runners of
 * `RUNNER_<STACK>`; a job reaches one by naming that variable, or by a matrix computed from the
 * pull request's own code.
 */
function deployRunnerReach(w: { file: string; text: string; doc: Workflow }): string[] {
    if (onlyMain(w.doc)) {
        return [];
    }
    const found: string[] = [];
    for (const variable of deployVariablesIn(w.text)) {
        found.push(`${w.file}: names the deploy runner variable ${variable} in a workflow that runs pull-request code`);
    }
    for (const [name, job] of Object.entries(w.doc.jobs)) {
        const runsOn = job["runs-on"];
        const literal = typeof runsOn === "string" && !runsOn.includes("${{") ? [runsOn] : Array.isArray(runsOn) ? runsOn : undefined;
        if (literal !== undefined) {
            if (!literal.every((l) => GITHUB_HOSTED.test(l))) {
                found.push(`${w.file} ${name}: runs-on ${JSON.stringify(runsOn)} is not a GitHub-hosted image`);
            }
            continue;
        }
        const include = job.strategy?.matrix?.include;
        const source =
            typeof include === "string" ? /^\$\{\{\s*fromJSON\(needs\.([\w-]+)\.outputs\.([\w-]+)\)\s*\}\}$/.exec(include) : null;
        if (!/^\$\{\{\s*fromJSON\(matrix\.runner\)\s*\}\}$/.test(String(runsOn)) || source === null) {
            found.push(
                `${w.file} ${name}: runs-on ${JSON.stringify(runsOn)} is neither a GitHub-hosted image nor the base branch's runner matrix`,
            );
            continue;
        }
        const producer = w.doc.jobs[source[1]] as (Job & { outputs?: Record<string, string> }) | undefined;
        const steps = (producer?.steps ?? []) as (Step & { id?: string; env?: Record<string, string> })[];
        const stepId = /steps\.([\w-]+)\.outputs\.matrix/.exec(producer?.outputs?.[source[2]] ?? "")?.[1];
        const step = steps.find((st) => st.id === stepId);
        if (!/^npm run --silent runners >> "\$GITHUB_OUTPUT"$/.test(step?.run?.trim() ?? "")) {
            found.push(`${w.file} ${name}: its matrix does not come from npm run --silent runners`);
        }
        const checkouts = steps.filter((st) => st.uses?.startsWith("actions/checkout@"));
        if (
            checkouts.length === 0 ||
            !checkouts.every((c) => /^\$\{\{\s*github\.event\.pull_request\.base\.sha\s*\}\}$/.test(String(c.with?.ref)))
        ) {
            found.push(
                `${w.file} ${source[1]}: chooses the runners with the pull request's code, not the base branch's (check out github.event.pull_request.base.sha)`,
            );
        }
    }
    return found;
}

/** The pull request workflow's offline step that writes each stack's drain rehearsal to the job summary. */
function drainSummaryStep(): Step | undefined {
    const pr = all.find((w) => "pull_request" in w.doc.on);
    return pr && (offlineJob(pr)[1].steps ?? []).find((st) => /npm run --silent drain -- /.test(st.run ?? ""));
}

/** Runs a step's script with bash and a job summary file, from the repository root, as the runner does. */
function runStep(script: string): Promise<{ code: number; summary: string; stderr: string }> {
    const summary = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "summary-")), "summary.md");
    fs.writeFileSync(summary, "");
    return new Promise((resolve) => {
        execFile(
            "bash",
            ["-e", "-c", script],
            { cwd: ROOT, env: { ...process.env, GITHUB_STEP_SUMMARY: summary }, maxBuffer: 64 * 1024 * 1024 },
            (err, _stdout, stderr) =>
                resolve({
                    code: err ? (typeof err.code === "number" ? err.code : 1) : 0,
                    summary: fs.readFileSync(summary, "utf8"),
                    stderr,
                }),
        );
    });
}

/** Labels of GitHub's hosted runners (the images GitHub names). */
const GITHUB_HOSTED = /\b(ubuntu|windows|macos)-(latest|\d)/;

/** Runs .ci/plan with a job summary file, the way a workflow step does. */
function runPlanScript(stack: string): Promise<{ code: number; summary: string }> {
    const summary = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "summary-")), "summary.md");
    fs.writeFileSync(summary, "");
    return new Promise((resolve) => {
        execFile(
            path.join(ROOT, ".ci", "plan"),
            [stack],
            { cwd: ROOT, env: { ...process.env, GITHUB_STEP_SUMMARY: summary }, maxBuffer: 64 * 1024 * 1024 },
            (err) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, summary: fs.readFileSync(summary, "utf8") }),
        );
    });
}

describe("GitHub workflows", () => {
    it("exist: one for pull requests, one for pushes to main", () => {
        expect(all.some((w) => "pull_request" in w.doc.on)).to.equal(true);
        expect(all.some((w) => "push" in w.doc.on)).to.equal(true);
    });

    it("pass the workflow schema validator", () => {
        for (const w of all) {
            expect(validateWorkflow(w.text).errors, w.file).to.deep.equal([]);
        }
    });

    it("the validator rejects a malformed workflow (so the check above means something)", () => {
        expect(validateWorkflow("on: push\njobs:\n  x:\n    runs-on: 3\n    steps: oops\n").errors).to.not.deep.equal([]);
    });

    it("pin every third-party action to a full commit SHA, with the version in a comment", () => {
        for (const w of all) {
            const uses = w.text.split("\n").filter((l) => /^\s*-?\s*uses:/.test(l));
            expect(uses.length, w.file).to.be.greaterThan(0);
            for (const line of uses) {
                expect(line, w.file).to.match(/uses: [\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
            }
        }
    });

    it("grant read-only contents at the top, and id-token: write only to jobs that assume an AWS role", () => {
        for (const w of all) {
            expect(w.doc.permissions, w.file).to.deep.equal({ contents: "read" });
            expect(w.doc.on, w.file).to.not.have.property("pull_request_target");
            for (const [name, job] of Object.entries(w.doc.jobs)) {
                const perms = (job.permissions ?? {}) as Record<string, string>;
                expect(perms["id-token"] === "write", `${w.file} ${name}`).to.equal(usesCloud(job));
                expect(perms["write-all" as never], `${w.file} ${name}`).to.equal(undefined);
            }
        }
    });

    it("never run cloud jobs for fork pull requests", () => {
        for (const w of all) {
            for (const [name, job] of Object.entries(w.doc.jobs).filter(([, j]) => usesCloud(j))) {
                if ("pull_request" in w.doc.on) {
                    expect(job.if, `${w.file} ${name}`).to.include("github.event.pull_request.head.repo.full_name == github.repository");
                } else {
                    expect(onlyMain(w.doc), `${w.file}: main only`).to.equal(true);
                }
            }
        }
    });

    it("run npm ci, npm test, the gate on every stack and the manifest check before anything touches the cloud", () => {
        for (const w of pipelines) {
            const [offlineName, job] = offlineJob(w);
            const script = runs(job);
            for (const cmd of ["npm ci", "npm test", "policy:check -- --env prod examples/"]) {
                expect(script, `${w.file}: ${cmd}`).to.include(cmd);
            }
            // The gate runs over every stack file found, so a new stack needs no workflow edit, and
            // through .ci/plan, so each stack's plan and verdicts reach the job summary.
            expect(script, `${w.file}: the gate loop`).to.match(/for file in Pulumi\.\*\.yaml; do[\s\S]*\.ci\/plan "\$stack"[\s\S]*done/);
            for (const [name, cloud] of Object.entries(w.doc.jobs).filter(([, j]) => usesCloud(j))) {
                const needs = ([] as string[]).concat(cloud.needs ?? []);
                expect(needs.length, `${w.file} ${name} needs`).to.be.greaterThan(0);
                // Every cloud job waits, directly or through another, for the offline job.
                let chain = needs;
                while (!chain.includes(offlineName) && chain.length > 0) {
                    chain = chain.flatMap((n) => ([] as string[]).concat(w.doc.jobs[n]?.needs ?? []));
                }
                expect(chain, `${w.file} ${name}`).to.include(offlineName);
            }
        }
    });

    it("diff every stack against the pull request's base into the job summary, offline, fork PRs included", () => {
        const pr = all.find((w) => "pull_request" in w.doc.on);
        expect(pr, "a pull_request workflow").to.not.equal(undefined);
        const [, job] = offlineJob(pr!);
        expect(job.if, "runs for forks too").to.equal(undefined);
        const checkout = (job.steps ?? []).find((st) => st.uses?.startsWith("actions/checkout@"));
        expect(checkout?.with?.["fetch-depth"], "the base commit must be fetched").to.equal(0);
        const step = (job.steps ?? []).find((st) => st.run?.includes("--diff"));
        expect(step, "a diff step").to.not.equal(undefined);
        expect(step!.run).to.include('plan -- "$stack" --diff "$BASE_SHA"');
        expect(step!.run).to.include("for file in Pulumi.*.yaml");
        expect(step!.run).to.include("$GITHUB_STEP_SUMMARY");
        expect((step as { env?: Record<string, string> }).env?.BASE_SHA).to.equal("${{ github.event.pull_request.base.sha }}");
        // Forks too (no condition on the repository), and after a red `npm test`.
        expect(step!.if).to.equal("${{ !cancelled() }}");
    });

    it("rehearse every stack's drains with examples/ into the job summary as Markdown, offline, fork PRs included", () => {
        const step = drainSummaryStep();
        expect(step, "a drain rehearsal step").to.not.equal(undefined);
        expect(step!.run).to.include("for file in Pulumi.*.yaml");
        expect(step!.run).to.include('drain -- "$stack" examples/ --format markdown >> "$GITHUB_STEP_SUMMARY"');
        expect(step!.if).to.equal("${{ !cancelled() }}");
    });

    it("write every stack's summaries even after a red `npm test` or a blocked stack: each later step of the offline job runs unless cancelled, and the gate loop fails after its last stack", () => {
        for (const w of pipelines) {
            const [name, job] = offlineJob(w);
            const steps = job.steps ?? [];
            const test = steps.findIndex((st) => st.run === "npm test");
            expect(test, `${w.file} ${name}: npm test`).to.be.greaterThan(0);
            // Not the deploy-runner check, which runs only once cloud access is configured (and only matters if the rest passed).
            for (const st of steps.slice(test + 1).filter((x) => !String(x.if ?? "").includes("CLOUD_ENABLED"))) {
                expect(st.if, `${w.file} ${name}: ${st.name ?? st.run ?? st.uses}`).to.equal("${{ !cancelled() }}");
            }
            const gate = steps.find((st) => st.run?.includes(".ci/plan"));
            expect(gate?.run, w.file).to.include('.ci/plan "$stack" || status=$?').and.include('exit "$status"');
        }
    });

    it("keep the manifest gate's SARIF before the blocking check, and upload it to code scanning from a job that runs no repository code", () => {
        for (const w of pipelines) {
            const [offlineName, job] = offlineJob(w);
            const steps = job.steps ?? [];
            const sarif = steps.findIndex((s) =>
                s.run?.includes("policy:check -- --env prod --format sarif examples/ > policy-gate.sarif"),
            );
            const artifact = steps.findIndex((s) => s.uses?.startsWith("actions/upload-artifact@") && s.with?.path === "policy-gate.sarif");
            const blocking = steps.findIndex((s) => s.run?.trim() === "npm run --silent policy:check -- --env prod examples/");
            expect(
                [sarif, artifact, blocking].every((i) => i >= 0),
                `${w.file}: all three steps`,
            ).to.equal(true);
            expect(sarif, w.file).to.be.lessThan(artifact);
            expect(artifact, w.file).to.be.lessThan(blocking);
            const name = String(steps[artifact].with?.name);
            // Rule: security-events: write only where no branch code runs.
            const writers = Object.entries(w.doc.jobs).filter(
                ([, j]) => typeof j.permissions === "object" && j.permissions["security-events"] === "write",
            );
            expect(
                writers.map(([n]) => n),
                `${w.file}: one job may write code scanning`,
            ).to.have.length(1);
            const [uploaderName, uploader] = writers[0];
            expect(uploaderName, `${w.file}: not the job that runs the code`).to.not.equal(offlineName);
            expect([uploader.needs ?? []].flat(), w.file).to.include(offlineName);
            expect(uploader.if ?? "", `${w.file}: also when the offline job failed on a violation`).to.include("!cancelled()");
            expect(uploader.permissions, w.file).to.deep.equal({ contents: "read", actions: "read", "security-events": "write" });
            for (const step of uploader.steps ?? []) {
                const action = step.uses?.split("@")[0];
                if (action === "actions/checkout") {
                    expect(step.with?.["persist-credentials"], `${w.file} ${uploaderName}: checkout`).to.equal(false);
                } else if (action === "github/codeql-action/upload-sarif") {
                    expect(step.with, w.file).to.include({
                        sarif_file: "${{ runner.temp }}/sarif/policy-gate.sarif",
                        category: "policy-gate",
                    });
                } else {
                    // The one script: the artifact's download with GitHub's CLI; no npm, no node, nothing checked out runs.
                    expect(step.uses, `${w.file} ${uploaderName}: no other action`).to.equal(undefined);
                    expect(step.run, `${w.file} ${uploaderName}: runs only the download`).to.equal(
                        `gh run download "$GITHUB_RUN_ID" --repo "$GITHUB_REPOSITORY" --name ${name} --dir "$RUNNER_TEMP/sarif"`,
                    );
                }
            }
            expect(
                (uploader.steps ?? []).map((s) => s.uses?.split("@")[0] ?? "run"),
                w.file,
            ).to.deep.equal(["actions/checkout", "run", "github/codeql-action/upload-sarif"]);
            if ("pull_request" in w.doc.on) {
                expect(uploader.if, w.file).to.include("github.event.pull_request.head.repo.full_name == github.repository");
            }
        }
    });

    it("preview and up every stack with the policy pack and that stack's config", () => {
        // Steps that run a command (without one the action only installs the CLI: drift.yml, below).
        const pulumiSteps = all.flatMap((w) =>
            Object.values(w.doc.jobs).flatMap((j) =>
                (j.steps ?? [])
                    .filter((s) => s.uses?.startsWith("pulumi/actions@") && s.with?.command !== undefined)
                    .map((s) => ({ file: w.file, with: s.with ?? {} })),
            ),
        );
        const previews = pulumiSteps.filter((s) => s.with.command === "preview");
        const ups = pulumiSteps.filter((s) => s.with.command === "up");
        expect(previews.length).to.be.greaterThan(0);
        // Deploys are promotions in an order the workflow states; each names a stack file, once.
        const upStacks = ups.map((s) => String(s.with["stack-name"]));
        expect(upStacks.length).to.be.greaterThan(0);
        expect(new Set(upStacks).size).to.equal(upStacks.length);
        for (const stack of upStacks) {
            expect(stacks()).to.include(stack);
        }
        for (const s of pulumiSteps) {
            expect(s.with.policyPacks, s.file).to.equal("policies");
            expect(String(s.with.policyPackConfigs), s.file).to.equal(`policies/config/${String(s.with["stack-name"])}.json`);
        }
        // Every operation's output lands in the job summary; pull request previews also comment.
        expect(pulumiSteps.every((p) => p.with["comment-on-summary"] === true)).to.equal(true);
        for (const w of all.filter((x) => "pull_request" in x.doc.on)) {
            expect(
                previews.filter((p) => p.file === w.file).every((p) => p.with["comment-on-pr"] === true),
                w.file,
            ).to.equal(true);
        }
    });

    it("run every deploy-workflow cloud job on its stack's deploy runner (RUNNER_<STACK>), checked by npm run runners -- --deploy before any starts", () => {
        let checked = 0;
        // The deploying workflows; drift.yml's matrix is checked below.
        for (const w of all.filter((x) => onlyMain(x.doc) && "push" in x.doc.on)) {
            const deployed = new Set<string>();
            for (const [name, job] of Object.entries(w.doc.jobs).filter(([, j]) => usesCloud(j))) {
                for (const { stack, runsOn } of stackRunners(job)) {
                    expect(stacks(), `${w.file} ${name}: stack "${stack}"`).to.include(stack);
                    expect(runsOn, `${w.file} ${name} (${stack})`).to.match(
                        new RegExp(`^\\$\\{\\{\\s*fromJSON\\(vars\\.${runnerVariable(stack)}\\)\\s*\\}\\}$`),
                    );
                    deployed.add(stack);
                    checked++;
                }
            }
            // The offline job checks exactly those stacks' deploy runners, with the repository's variables.
            const [, offline] = offlineJob(w);
            const step = (offline.steps ?? []).find((st) => /npm run --silent runners -- --deploy /.test(st.run ?? ""));
            expect(step?.run?.trim().split(/\s+/).slice(6).sort(), `${w.file}: the stacks checked`).to.deep.equal([...deployed].sort());
            expect(step?.env?.VARS, w.file).to.match(/^\$\{\{\s*toJSON\(vars\)\s*\}\}$/);
        }
        expect(checked).to.be.greaterThan(0);
    });

    it("never schedule a job that runs pull-request code on a deploy runner, for every stack (rule: PR code never runs where a deploy runs)", () => {
        // 1. Deploy runners are named only by workflows that run on pushes to main.
        for (const w of all) {
            if (deployVariablesIn(w.text).length > 0) {
                expect(onlyMain(w.doc), `${w.file} names ${deployVariablesIn(w.text).join(", ")}: runs only on main`).to.equal(true);
            }
        }
        // 2. Every other job runs on a GitHub-hosted image or on the base branch's preview matrix.
        let matrices = 0;
        for (const w of all) {
            expect(deployRunnerReach(w), w.file).to.deep.equal([]);
            matrices += Object.values(w.doc.jobs).filter((j) => typeof j.strategy?.matrix?.include === "string" && !onlyMain(w.doc)).length;
        }
        expect(matrices, "a pull-request job on the runner matrix").to.be.greaterThan(0);
        // 3. That matrix never holds a deploy runner, for every stack: whatever RUNNER_PREVIEW_<STACK> says.
        const deployOf = (stack: string) => ({ group: "eks-deployers", labels: ["self-hosted", `deployer-${stack}`] });
        const deployVars = Object.fromEntries(stacks().map((s) => [runnerVariable(s), JSON.stringify(deployOf(s))]));
        for (const stack of stacks()) {
            for (const value of [
                undefined,
                ...stacks().map((t) => JSON.stringify(deployOf(t))),
                ...stacks().map((t) => JSON.stringify(deployOf(t).labels)),
            ]) {
                const vars: Record<string, string> = { ...deployVars };
                for (const other of stacks().filter((o) => o !== stack)) {
                    vars[previewRunnerVariable(other)] = JSON.stringify(["self-hosted", `preview-${other}`]);
                }
                if (value !== undefined) {
                    vars[previewRunnerVariable(stack)] = value;
                }
                let matrix: { stack: string; runner: string }[] = [];
                try {
                    matrix = runnerMatrix(ROOT, vars);
                } catch (err) {
                    expect((err as Error).message, `${stack} on ${value}`).to.match(
                        new RegExp(
                            `stack ${stack}: (repository variable ${previewRunnerVariable(stack)} is not set|${previewRunnerVariable(stack)} = .* would also be satisfied by the deploy runner)`,
                        ),
                    );
                    continue;
                }
                expect(value, `${stack}: only an unset preview variable may yield a matrix here`).to.equal(undefined);
                const entry = matrix.find((m) => m.stack === stack)!;
                expect(JSON.parse(entry.runner), stack).to.equal(GITHUB_HOSTED_RUNNER);
                expect(stackConfig(stack).cluster.endpoint.githubHostedRunners, stack).to.equal(true);
            }
        }
    });

    it("the isolation check sees a pull-request job on a deploy runner, a matrix from the PR's own code, a self-hosted label (so the check above means something)", () => {
        const workflow = (jobs: string) => {
            const text = `on: pull_request\npermissions: { contents: read }\njobs:\n${jobs}`;
            return { file: "fixture.yml", text, doc: YAML.parse(text) as Workflow };
        };
        expect(
            deployRunnerReach(workflow("  p:\n    runs-on: ${{ fromJSON(vars.RUNNER_PROD) }}\n    steps: [{ run: x }]\n")),
        ).to.deep.equal([
            "fixture.yml: names the deploy runner variable RUNNER_PROD in a workflow that runs pull-request code",
            'fixture.yml p: runs-on "${{ fromJSON(vars.RUNNER_PROD) }}" is neither a GitHub-hosted image nor the base branch\'s runner matrix',
        ]);
        expect(deployRunnerReach(workflow("  p:\n    runs-on: [self-hosted, eks-deployer]\n    steps: [{ run: x }]\n"))).to.deep.equal([
            'fixture.yml p: runs-on ["self-hosted","eks-deployer"] is not a GitHub-hosted image',
        ]);
        const fromPrCode = workflow(`  r:
    runs-on: ubuntu-24.04
    outputs: { matrix: "\${{ steps.m.outputs.matrix }}" }
    steps:
      - uses: actions/checkout@x
      - { id: m, run: 'npm run --silent runners >> "$GITHUB_OUTPUT"' }
  p:
    needs: r
    runs-on: \${{ fromJSON(matrix.runner) }}
    strategy: { matrix: { include: "\${{ fromJSON(needs.r.outputs.matrix) }}" } }
    steps: [{ run: x }]
`);
        expect(deployRunnerReach(fromPrCode)).to.deep.equal([
            "fixture.yml r: chooses the runners with the pull request's code, not the base branch's (check out github.event.pull_request.base.sha)",
        ]);
        // The same workflow on pushes to main may name deploy runners.
        expect(deployRunnerReach({ ...fromPrCode, doc: { ...fromPrCode.doc, on: { push: { branches: ["main"] } } } })).to.deep.equal([]);
    });

    it("deploy every stack only from main, each in its own environment (whose OIDC subject docs/roles.md trusts, behind a main-only branch rule in docs/bootstrap.md)", () => {
        const roles = fs.readFileSync(path.join(ROOT, "docs", "roles.md"), "utf8");
        const bootstrap = fs.readFileSync(path.join(ROOT, "docs", "bootstrap.md"), "utf8");
        let ups = 0;
        for (const w of all) {
            for (const [name, job] of Object.entries(w.doc.jobs)) {
                const up = (job.steps ?? []).find((s) => s.uses?.startsWith("pulumi/actions@") && s.with?.command === "up");
                const env = environmentOf(job);
                if (up !== undefined) {
                    expect(env, `${w.file} ${name}: the environment of stack ${String(up.with?.["stack-name"])}`).to.equal(
                        up.with?.["stack-name"],
                    );
                    ups++;
                }
                if (env !== undefined && stacks().includes(env)) {
                    // Rule: a deploy environment is reachable from workflows on main only.
                    expect(onlyMain(w.doc), `${w.file} ${name}: environment ${env} outside a main-only workflow`).to.equal(true);
                    expect(roles, `docs/roles.md: the trust of ${env}'s deployer`).to.include(`repo:<org>/<repo>:environment:${env}`);
                    expect(bootstrap, `docs/bootstrap.md: ${env}'s deployment-branch rule`).to.match(
                        new RegExp(`environment \`${env}\`[^\n]*deployment branch \`main\``),
                    );
                }
            }
        }
        expect(ups).to.be.greaterThan(0);
    });

    it("run Node 22 or later everywhere, within package.json's engines", () => {
        const engines = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { engines: { node: string } }).engines
            .node;
        const minimum = Number(/^>=(\d+)/.exec(engines)?.[1]);
        expect(minimum, `engines ${engines}`).to.be.at.least(20);
        let setups = 0;
        for (const w of all) {
            for (const job of Object.values(w.doc.jobs)) {
                for (const step of (job.steps ?? []).filter((st) => st.uses?.startsWith("actions/setup-node@"))) {
                    const version = step.with?.["node-version"];
                    const major = Number((typeof version === "string" || typeof version === "number" ? String(version) : "").split(".")[0]);
                    expect(major, w.file).to.be.at.least(22);
                    expect(major, w.file).to.be.at.least(minimum);
                    setups++;
                }
            }
        }
        expect(setups).to.be.greaterThan(0);
    });

    it("pin current majors of the actions whose older majors run on the retired Node 20 runtime", () => {
        // The first majors on the Node 24 action runtime (each action's action.yml `runs.using`).
        const minimumMajor: Record<string, number> = {
            "actions/checkout": 6,
            "actions/setup-node": 6,
            "aws-actions/configure-aws-credentials": 6,
            "pulumi/actions": 7,
            "github/codeql-action/upload-sarif": 4,
            // actions/upload-artifact v5.0.0 runs on node20, v6.0.0 on node24 (action.yml).
            "actions/upload-artifact": 6,
        };
        for (const w of all) {
            for (const line of w.text.split("\n").filter((l) => /^\s*-?\s*uses:/.test(l))) {
                const [, action, major] = /uses: ([\w./-]+)@[0-9a-f]{40} # v(\d+)\./.exec(line) ?? [];
                expect(minimumMajor, `${w.file}: ${line.trim()} has no known minimum`).to.have.property(action);
                expect(Number(major), `${w.file}: ${action}`).to.be.at.least(minimumMajor[action]);
            }
        }
    });

    it("run the preflight of the stack before each `up` (as the deploy role, failing the job), and in each preview job after the preview", () => {
        const jobs = all.flatMap((w) => Object.entries(w.doc.jobs).map(([name, job]) => ({ file: w.file, name, job })));
        const pulumiJobs = jobs.filter(({ job }) =>
            (job.steps ?? []).some((s) => s.uses?.startsWith("pulumi/actions@") && s.with?.command !== undefined),
        );
        let ups = 0;
        let previews = 0;
        for (const { file, name, job } of pulumiJobs) {
            const steps = job.steps ?? [];
            const pulumiAt = steps.findIndex((s) => s.uses?.startsWith("pulumi/actions@"));
            const command = String(steps[pulumiAt].with?.command);
            const stack = String(steps[pulumiAt].with?.["stack-name"]);
            const preflightAt = steps.findIndex((s) => /npm run --silent preflight -- (\S+) > preflight\.txt/.test(s.run ?? ""));
            const credentialsAt = steps.findIndex((s) => s.uses?.startsWith("aws-actions/configure-aws-credentials@"));
            expect(preflightAt, `${file} ${name}: a preflight step`).to.be.greaterThan(credentialsAt);
            const run = steps[preflightAt].run ?? "";
            expect(run, `${file} ${name}`).to.include('exit "$status"').and.include('>> "$GITHUB_STEP_SUMMARY"');
            const named = /preflight -- (\S+) >/.exec(run)?.[1];
            expect(
                named === stack || (named === '"$STACK"' && steps[preflightAt].env?.STACK === stack),
                `${file} ${name}: the same stack`,
            ).to.equal(true);
            if (command === "up") {
                ups++;
                expect(preflightAt, `${file} ${name}: before up`).to.be.lessThan(pulumiAt);
            } else {
                previews++;
                if (file === "pull-request.yml") {
                    expect(preflightAt, `${file} ${name}: after the preview`).to.be.greaterThan(pulumiAt);
                    expect(steps[preflightAt].if).to.equal("${{ !cancelled() }}");
                }
            }
        }
        expect([ups, previews].every((n) => n > 0)).to.equal(true);
    });

    it("deploy on a push to main or a manual run, one update per stack at a time, never cancelled, never one stack waiting on another's lock", () => {
        const deploy = all.find((w) => Object.keys(w.doc.on).includes("push"))!;
        expect(Object.keys(deploy.doc.on).sort()).to.deep.equal(["push", "workflow_dispatch"]);
        expect((deploy.doc as { concurrency?: unknown }).concurrency, "no workflow-wide lock").to.equal(undefined);
        const groups = new Map<string, string>();
        for (const [name, job] of Object.entries(deploy.doc.jobs)) {
            const up = (job.steps ?? []).find((st) => st.uses?.startsWith("pulumi/actions@") && st.with?.command === "up");
            if (up === undefined) {
                continue;
            }
            const concurrency = (job as { concurrency?: { group: string; "cancel-in-progress": boolean } }).concurrency;
            expect(concurrency, name).to.deep.equal({ group: `up-${String(up.with?.["stack-name"])}`, "cancel-in-progress": false });
            groups.set(name, concurrency!.group);
        }
        expect(new Set(groups.values()).size, "a group per stack").to.equal(groups.size).and.be.greaterThan(1);
        // The manual trigger counts as main-only because every job is guarded; one unguarded job and it does not.
        expect(onlyMain(deploy.doc)).to.equal(true);
        const unguarded = JSON.parse(JSON.stringify(deploy.doc)) as Workflow;
        delete Object.values(unguarded.jobs)[0].if;
        expect(onlyMain(unguarded)).to.equal(false);
    });

    it("publish each deployed stack's platform profile as an artifact, right after its up", () => {
        const deploy = all.find((w) => Object.keys(w.doc.on).includes("push"))!;
        const ups = Object.values(deploy.doc.jobs).filter((j) =>
            (j.steps ?? []).some((s) => s.uses?.startsWith("pulumi/actions@") && s.with?.command === "up"),
        );
        expect(ups.length).to.be.greaterThan(0);
        for (const job of ups) {
            const steps = job.steps ?? [];
            const up = steps.findIndex((s) => s.uses?.startsWith("pulumi/actions@"));
            const stack = String(steps[up].with?.["stack-name"]);
            const profile = steps.findIndex((s) => s.run?.includes(`profile -- ${stack} --out ${stack}.profile.json`));
            const upload = steps.findIndex((s) => s.uses?.startsWith("actions/upload-artifact@"));
            expect([up < profile, profile < upload], stack).to.deep.equal([true, true]);
            expect(steps[upload].with, stack).to.include({
                name: `platform-profile-${stack}`,
                path: `${stack}.profile.json`,
                "if-no-files-found": "error",
            });
        }
    });

    describe("the reusable platform gate for application repositories (app-gate.yml)", () => {
        const gate = all.find((w) => "workflow_call" in w.doc.on);
        const job = () => Object.values(gate!.doc.jobs)[0];
        const steps = () => job().steps ?? [];

        it("exists, is called with the platform repository, ref, stack, manifests and namespace", () => {
            expect(gate, "a workflow_call workflow").to.not.equal(undefined);
            const inputs = (gate!.doc.on.workflow_call as { inputs: Record<string, { required?: boolean }> }).inputs;
            expect(Object.keys(inputs).sort()).to.deep.equal(["manifests", "namespace", "platform-ref", "platform-repository", "stack"]);
            expect(["platform-repository", "stack", "manifests"].every((k) => inputs[k].required === true)).to.equal(true);
        });

        it("needs no secret and no cloud access, so fork pull requests run it; code scanning only from the caller's own branches", () => {
            expect(gate!.text).to.not.match(/secrets\.|id-token|configure-aws-credentials/);
            expect(Object.values(gate!.doc.jobs).every((j) => !usesCloud(j))).to.equal(true);
            const upload = steps().find((s) => s.uses?.startsWith("github/codeql-action/upload-sarif@"));
            expect(upload?.if).to.include("github.event.pull_request.head.repo.full_name == github.repository");
            expect(job().permissions).to.deep.equal({ contents: "read", "security-events": "write" });
        });

        it("passes inputs to scripts through the environment only, never spliced into a script", () => {
            for (const s of steps()) {
                expect(s.run ?? "", s.run).to.not.match(/\$\{\{\s*inputs\./);
            }
        });

        it("renders the stack's profile, judges the manifests on it as SARIF, rehearses them into the summary, then blocks on the gate", () => {
            const at = (pattern: RegExp) => steps().findIndex((s) => pattern.test(s.run ?? ""));
            const profile = at(/npm run --silent profile -- "\$STACK" --out "\$RUNNER_TEMP\/platform\.profile\.json"/);
            const sarif = at(/policy:check -- "\$\{args\[@\]\}" --format sarif/);
            const drain = at(/drain -- "\$\{args\[@\]\}" --format markdown >> "\$GITHUB_STEP_SUMMARY"/);
            const upload = steps().findIndex((s) => s.uses?.startsWith("github/codeql-action/upload-sarif@"));
            const blocking = steps().findIndex((s) => s.name === "policy gate on the platform (blocking)");
            expect(
                [profile, sarif, drain, upload, blocking].every((i) => i >= 0),
                JSON.stringify([profile, sarif, drain, upload, blocking]),
            ).to.equal(true);
            expect(profile < sarif && sarif <= drain && drain < upload && upload < blocking).to.equal(true);
            expect(steps()[sarif].run).to.include('args=(--platform "$RUNNER_TEMP/platform.profile.json")');
            expect(steps()[blocking].run).to.include('exit "$status"');
        });
    });

    it("show reviewers a fresh prod preview with the pack, as the read-only role, before prod's approval gate", () => {
        const deploy = all.find((w) => Object.keys(w.doc.on).includes("push"))!;
        const jobs = deploy.doc.jobs;
        const [upProd] = Object.entries(jobs).find(([, j]) =>
            (j.steps ?? []).some((s) => s.with?.command === "up" && s.with?.["stack-name"] === "prod"),
        )!;
        const ancestors = new Set<string>();
        const visit = (job: string) =>
            ([] as string[]).concat(jobs[job]?.needs ?? []).forEach((n) => {
                ancestors.add(n);
                visit(n);
            });
        visit(upProd);
        const previews = [...ancestors].filter((n) =>
            (jobs[n].steps ?? []).some((s) => s.with?.command === "preview" && s.with?.["stack-name"] === "prod"),
        );
        expect(previews, "a prod preview that up-prod waits for").to.have.length(1);
        const preview = jobs[previews[0]];
        expect(environmentOf(preview), "the preview runs before the approval, as prod's preview role").to.equal("preview-prod");
        const step = (preview.steps ?? []).find((s) => s.uses?.startsWith("pulumi/actions@"))!;
        expect(step.with).to.include({
            policyPacks: "policies",
            policyPackConfigs: "policies/config/prod.json",
            "comment-on-summary": true,
            diff: true,
        });
    });

    it("never give a preview the environments, and so the roles, that deploy", () => {
        const deployEnvironments = new Set<string>();
        const previewEnvironments = new Set<string>();
        for (const w of all) {
            for (const job of Object.values(w.doc.jobs)) {
                const commands = (job.steps ?? []).map((s) => s.with?.command).filter(Boolean);
                const env = environmentOf(job);
                if (commands.includes("up") && env) {
                    deployEnvironments.add(env);
                }
                if (commands.includes("preview") && env) {
                    previewEnvironments.add(env);
                }
            }
        }
        // One preview environment (and so one preview role, one key) per stack: preview-<stack>.
        expect([...previewEnvironments].length).to.be.greaterThan(0);
        for (const env of previewEnvironments) {
            expect(env).to.match(/^preview-(\$\{\{\s*matrix\.stack\s*\}\}|[\w.-]+)$/);
            const stack = env.slice("preview-".length);
            if (!stack.startsWith("${{")) {
                expect(stacks(), env).to.include(stack);
            }
        }
        expect([...deployEnvironments].filter((e) => previewEnvironments.has(e))).to.deep.equal([]);
    });

    it("deploy prod only after dev (directly or through the stages between them), behind the prod environment", () => {
        const deploy = all.find((w) => Object.keys(w.doc.on).includes("push"));
        const jobs = Object.entries(deploy!.doc.jobs);
        const upOf = (stack: string) =>
            jobs.find(([, j]) => (j.steps ?? []).some((s) => s.with?.command === "up" && s.with?.["stack-name"] === stack));
        const [prod, dev] = [upOf("prod"), upOf("dev")];
        expect(prod?.[1].environment).to.equal("prod");
        // Every job prod's deploy waits for, transitively: a staging stack placed between dev and prod keeps the order.
        const upstream = new Set<string>();
        const visit = (name: string) => {
            for (const need of ([] as string[]).concat(deploy!.doc.jobs[name]?.needs ?? [])) {
                if (!upstream.has(need)) {
                    upstream.add(need);
                    visit(need);
                }
            }
        };
        visit(prod![0]);
        expect([...upstream]).to.include(dev![0]);
        expect(upstream.has(prod![0]), "no cycle").to.equal(false);
    });

    describe("the scheduled drift check (drift.yml)", () => {
        const drift = all.find((w) => "schedule" in w.doc.on);
        const jobs = drift?.doc.jobs ?? {};
        const driftJob = Object.values(jobs).find((j) => usesCloud(j));
        const issuesJob = Object.values(jobs).find((j) => (j.permissions as Record<string, string> | undefined)?.issues === "write");

        it("runs daily and on demand, for main only, with every job guarded (an unguarded job or a pull request trigger is not main-only)", () => {
            expect(drift, "a scheduled workflow").to.not.equal(undefined);
            expect(Object.keys(drift!.doc.on).sort()).to.deep.equal(["schedule", "workflow_dispatch"]);
            expect((drift!.doc.on.schedule as { cron: string }[])[0].cron).to.match(/^\d+ \d+ \* \* \*$/);
            expect(onlyMain(drift!.doc)).to.equal(true);
            const unguarded = JSON.parse(JSON.stringify(drift!.doc)) as Workflow;
            delete Object.values(unguarded.jobs)[1].if;
            expect(onlyMain(unguarded)).to.equal(false);
            expect(onlyMain({ ...drift!.doc, on: { ...drift!.doc.on, pull_request: {} } })).to.equal(false);
        });

        it("checks every stack on its deploy runner, from a matrix main's npm run runners -- --drift writes", () => {
            expect(driftJob!["runs-on"]).to.equal("${{ fromJSON(matrix.runner) }}");
            const include = JSON.stringify(driftJob!.strategy?.matrix?.include);
            const producer = /needs\.([\w-]+)\.outputs\.matrix/.exec(include)?.[1];
            const step = (jobs[producer ?? ""]?.steps ?? []).find((st) => st.id === "runners");
            expect(step?.run?.trim()).to.equal('npm run --silent runners -- --drift >> "$GITHUB_OUTPUT"');
            expect(step?.env?.VARS).to.match(/^\$\{\{\s*toJSON\(vars\)\s*\}\}$/);
            // Main's own code: no other ref is checked out anywhere in the workflow.
            for (const job of Object.values(jobs)) {
                for (const checkout of (job.steps ?? []).filter((st) => st.uses?.startsWith("actions/checkout@"))) {
                    expect(checkout.with?.ref).to.equal(undefined);
                }
            }
            expect(usesCloud(jobs[producer!]), "the matrix job holds no cloud role").to.equal(false);
        });

        it("previews with refresh as the stack's drift role (environment drift-<stack>, main only per docs/bootstrap.md), one check per stack at a time", () => {
            expect(environmentOf(driftJob!)).to.equal("drift-${{ matrix.stack }}");
            expect((driftJob as { concurrency?: unknown }).concurrency).to.deep.equal({
                group: "drift-${{ matrix.stack }}",
                "cancel-in-progress": false,
            });
            const steps = driftJob!.steps ?? [];
            const install = steps.findIndex((st) => st.uses?.startsWith("pulumi/actions@"));
            expect(steps[install].with, "the CLI only, at the deploys' version").to.deep.equal({ "pulumi-version": "3.270.0" });
            const check = steps.findIndex((st) =>
                /pulumi preview --stack "\$STACK" --refresh --json --non-interactive > preview\.json/.test(st.run ?? ""),
            );
            expect(check, "the preview").to.be.greaterThan(install);
            expect(steps[check].run).to.include('npm run --silent drift -- "$STACK" preview.json > "drift-$STACK/drift.md"');
            expect(steps[check].env?.STACK).to.equal("${{ matrix.stack }}");
            const preflight = steps.findIndex((st) => /npm run --silent preflight -- "\$STACK" > preflight\.txt/.test(st.run ?? ""));
            expect(preflight).to.be.greaterThan(check);
            expect(steps[preflight].if).to.equal("${{ !cancelled() }}");
            const upload = steps.find((st) => st.uses?.startsWith("actions/upload-artifact@"));
            expect(upload?.with).to.include({ name: "drift-${{ matrix.stack }}", path: "drift-${{ matrix.stack }}" });
            const roles = fs.readFileSync(path.join(ROOT, "docs", "roles.md"), "utf8");
            const bootstrap = fs.readFileSync(path.join(ROOT, "docs", "bootstrap.md"), "utf8");
            const ci = fs.readFileSync(path.join(ROOT, "docs", "ci.md"), "utf8");
            expect(roles).to.include("repo:<org>/<repo>:environment:drift-<stack>");
            // One rule for every stack the check covers (those with a drift role), a new stack's included.
            expect(driftedStacks(ROOT), "stacks with access.drift").to.not.deep.equal([]);
            expect(bootstrap, "docs/bootstrap.md: every drift-<stack> environment's deployment-branch rule").to.match(
                /\| environment `drift-<stack>`, one per stack with `access\.drift`[^\n]*\| [^|\n]*deployment branch `main`/,
            );
            expect(ci).to.include("deploy.yml@refs/heads/main` and `<org>/<repo>/.github/workflows/drift.yml@refs/heads/main");
        });

        it("writes issues from a job that runs no repository code and holds no cloud role", () => {
            expect(issuesJob, "a job with issues: write").to.not.equal(undefined);
            expect(issuesJob!.permissions).to.deep.equal({ actions: "read", issues: "write" });
            expect(issuesJob!.needs).to.equal("drift");
            expect(issuesJob!.if).to.include("!cancelled()");
            for (const st of issuesJob!.steps ?? []) {
                expect(st.uses, st.name).to.equal(undefined);
                expect(st.run ?? "", st.name).to.not.match(/\bnpm\b|\bnode\b|\.ci\//);
            }
            expect(
                Object.values(jobs).filter((j) => (j.permissions as Record<string, string> | undefined)?.issues === "write"),
            ).to.have.length(1);
        });

        describe("the issue step, run with a GitHub CLI that records its calls", function () {
            this.timeout(30_000);
            const script = (issuesJob?.steps ?? []).find((st) => /gh issue/.test(st.run ?? ""))?.run ?? "";

            /** Runs the step in a directory holding `verdicts` (stack → state), with `open` issues (title → number) already there. */
            function runIssues(verdicts: Record<string, string>, open: Record<string, number>): string[] {
                const dir = fs.mkdtempSync(path.join(os.tmpdir(), "drift-issues-"));
                for (const [stack, state] of Object.entries(verdicts)) {
                    fs.mkdirSync(path.join(dir, "drift", `drift-${stack}`), { recursive: true });
                    fs.writeFileSync(path.join(dir, "drift", `drift-${stack}`, "state"), `${state}\n`);
                    fs.writeFileSync(path.join(dir, "drift", `drift-${stack}`, "drift.md"), `### report of ${stack}\n`);
                }
                fs.mkdirSync(path.join(dir, "bin"));
                fs.writeFileSync(
                    path.join(dir, "open.tsv"),
                    Object.entries(open)
                        .map(([t, n]) => `${t}\t${n}\n`)
                        .join(""),
                );
                // Records each call; `issue list` answers with the open issue whose exact title the search quotes.
                fs.writeFileSync(
                    path.join(dir, "bin", "gh"),
                    [
                        "#!/bin/bash",
                        'printf "%s\\n" "$*" >> "$GH_LOG"',
                        'if [ "$1 $2" = "issue list" ]; then',
                        '  while IFS=$\'\\t\' read -r t n; do case "$*" in *"\\"$t\\" in:title"*) [ "$TITLE" = "$t" ] && echo "$n" ;; esac; done < "$GH_OPEN"',
                        "fi",
                        'if [ "$1 $2" = "issue comment" ] || [ "$1 $2" = "issue create" ]; then cat body.md >> "$GH_LOG"; fi',
                    ].join("\n"),
                    { mode: 0o755 },
                );
                const log = path.join(dir, "gh.log");
                fs.writeFileSync(log, "");
                execFileSync("bash", ["-e", "-c", script], {
                    cwd: dir,
                    env: {
                        ...process.env,
                        PATH: `${path.join(dir, "bin")}:${process.env.PATH ?? ""}`,
                        GH_LOG: log,
                        GH_OPEN: path.join(dir, "open.tsv"),
                        GITHUB_REPOSITORY: "org/repo",
                        RUN_URL: "https://github.com/org/repo/actions/runs/1",
                    },
                });
                return fs.readFileSync(log, "utf8").split("\n").filter(Boolean);
            }

            it("opens an issue for a stack that drifts and has none, with the report and the run", () => {
                const calls = runIssues({ prod: "drift" }, { "Drift: stack dev": 7 });
                expect(calls.filter((c) => c.startsWith("issue ") && !c.startsWith("issue list"))).to.deep.equal([
                    "issue create --repo org/repo --title Drift: stack prod --body-file body.md",
                ]);
                expect(calls).to.include("### report of prod").and.include("Run: https://github.com/org/repo/actions/runs/1");
            });

            it("comments on the open issue while the stack still drifts, closes it once clean, leaves it when the check failed", () => {
                const calls = runIssues(
                    { dev: "clean", prod: "drift", qa: "failed" },
                    { "Drift: stack dev": 7, "Drift: stack prod": 9, "Drift: stack qa": 11 },
                );
                const writes = calls.filter((c) => /^issue (create|comment|close)/.test(c));
                expect(writes).to.deep.equal([
                    "issue close 7 --repo org/repo --comment No drift any more: https://github.com/org/repo/actions/runs/1",
                    "issue comment 9 --repo org/repo --body-file body.md",
                ]);
            });

            it("does nothing for a clean stack without an issue, and never takes another stack's issue for its own", () => {
                const calls = runIssues({ dev: "clean", prod: "drift" }, { "Drift: stack prod-eu": 3 });
                expect(calls.filter((c) => /^issue (create|comment|close)/.test(c))).to.deep.equal([
                    "issue create --repo org/repo --title Drift: stack prod --body-file body.md",
                ]);
            });
        });
    });

    describe(".ci/plan, the offline gate step of both workflows", function () {
        this.timeout(300_000);

        it("prints the plan and appends it with the pack's verdict to the job summary", async () => {
            const { code, summary } = await runPlanScript("dev");
            expect(code).to.equal(0);
            expect(summary).to.match(/^### Offline plan of `dev`: no mandatory violation\n/);
            expect(summary).to.include('Plan for stack "dev"');
            expect(summary).to.match(/0 mandatory, \d+ advisory/);
            // Folded: what shows of a clean stack fits in a few lines.
            expect(summary.split("\n<details>")[0].split("\n").length).to.be.lessThan(6);
        });

        it("the drain rehearsal step writes each stack's report as Markdown with a gantt chart per group that has waves", async () => {
            const step = drainSummaryStep();
            expect(step?.run, "a drain rehearsal step").to.be.a("string");
            const { code, summary, stderr } = await runStep(step!.run!);
            expect(code, stderr || summary.slice(0, 2000)).to.equal(0);
            for (const stack of stacks()) {
                const start = summary.indexOf(`## Drain rehearsal of stack \`${stack}\`: `);
                expect(start, stack).to.be.greaterThan(-1);
                const next = summary.indexOf("\n## Drain rehearsal of stack ", start + 1);
                const report = summary.slice(start, next === -1 ? undefined : next);
                expect(report, stack).to.match(/\n```mermaid\ngantt\n/);
                expect(report, stack).to.match(/\n\*\*(OK|UNDECIDED):\*\* /);
            }
        });

        it("exits with the plan's code on bad input and still says why in the summary", async () => {
            const { code, summary } = await runPlanScript("no-such-stack");
            expect(code).to.equal(2);
            expect(summary).to.include("### Offline plan of `no-such-stack`: bad input (exit 2)");
            expect(summary).to.include('unknown stack "no-such-stack"');
        });
    });
});
