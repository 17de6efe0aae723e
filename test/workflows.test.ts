import { validateWorkflow } from "@action-validator/core";
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { ROOT } from "./mocks";

const DIR = path.join(ROOT, ".github", "workflows");
const files = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f)) : [];

interface Step {
    if?: string;
    uses?: string;
    run?: string;
    with?: Record<string, unknown>;
}
interface Job {
    if?: string;
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
const usesCloud = (job: Job) => (job.steps ?? []).some((s) => s.uses?.startsWith("aws-actions/configure-aws-credentials@"));
const runs = (job: Job) => (job.steps ?? []).map((s) => s.run ?? "").join("\n");

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
                    expect(Object.keys(w.doc.on), w.file).to.deep.equal(["push"]);
                }
            }
        }
    });

    it("run npm ci, npm test, the gate on every stack and the manifest check before anything touches the cloud", () => {
        for (const w of all) {
            const offline = Object.entries(w.doc.jobs).filter(([, j]) => !usesCloud(j));
            expect(offline.length, w.file).to.equal(1);
            const [offlineName, job] = offline[0];
            const script = runs(job);
            for (const cmd of ["npm ci", "npm test", "policy:check -- --env prod examples/"]) {
                expect(script, `${w.file}: ${cmd}`).to.include(cmd);
            }
            // The gate runs over every stack file found, so a new stack needs no workflow edit.
            expect(script, `${w.file}: the gate loop`).to.match(
                /for file in Pulumi\.\*\.yaml; do[\s\S]*npm run --silent plan -- "\$stack"[\s\S]*done/,
            );
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
        const offline = Object.values(pr!.doc.jobs).filter((j) => !usesCloud(j));
        expect(offline).to.have.length(1);
        const [job] = offline;
        expect(job.if, "runs for forks too").to.equal(undefined);
        const checkout = (job.steps ?? []).find((st) => st.uses?.startsWith("actions/checkout@"));
        expect(checkout?.with?.["fetch-depth"], "the base commit must be fetched").to.equal(0);
        const step = (job.steps ?? []).find((st) => st.run?.includes("--diff"));
        expect(step, "a diff step").to.not.equal(undefined);
        expect(step!.run).to.include('plan -- "$stack" --diff "$BASE_SHA"');
        expect(step!.run).to.include("for file in Pulumi.*.yaml");
        expect(step!.run).to.include("$GITHUB_STEP_SUMMARY");
        expect((step as { env?: Record<string, string> }).env?.BASE_SHA).to.equal("${{ github.event.pull_request.base.sha }}");
        expect(step!.if).to.equal(undefined);
    });

    it("upload the manifest gate's SARIF to code scanning before the blocking check (PRs: this repository's branches only)", () => {
        for (const w of all) {
            const [, job] = Object.entries(w.doc.jobs).find(([, j]) => !usesCloud(j))!;
            const steps = job.steps ?? [];
            const sarif = steps.findIndex((s) =>
                s.run?.includes("policy:check -- --env prod --format sarif examples/ > policy-gate.sarif"),
            );
            const upload = steps.findIndex((s) => s.uses?.startsWith("github/codeql-action/upload-sarif@"));
            const blocking = steps.findIndex((s) => s.run?.trim() === "npm run --silent policy:check -- --env prod examples/");
            expect(
                [sarif, upload, blocking].every((i) => i >= 0),
                `${w.file}: all three steps`,
            ).to.equal(true);
            expect(sarif, w.file).to.be.lessThan(upload);
            expect(upload, w.file).to.be.lessThan(blocking);
            expect(steps[upload].with, w.file).to.include({ sarif_file: "policy-gate.sarif", category: "policy-gate" });
            if ("pull_request" in w.doc.on) {
                expect(steps[upload].if, w.file).to.include("github.event.pull_request.head.repo.full_name == github.repository");
            }
            expect(job.permissions ?? {}, w.file).to.include({ "security-events": "write", contents: "read" });
        }
    });

    it("preview and up every stack with the policy pack and that stack's config", () => {
        const pulumiSteps = all.flatMap((w) =>
            Object.values(w.doc.jobs).flatMap((j) =>
                (j.steps ?? []).filter((s) => s.uses?.startsWith("pulumi/actions@")).map((s) => ({ file: w.file, with: s.with ?? {} })),
            ),
        );
        const previews = pulumiSteps.filter((s) => s.with.command === "preview");
        const ups = pulumiSteps.filter((s) => s.with.command === "up");
        expect(previews.length).to.be.greaterThan(0);
        expect(ups.map((s) => s.with["stack-name"])).to.deep.equal(["dev", "prod"]);
        for (const s of pulumiSteps) {
            expect(s.with.policyPacks, s.file).to.equal("policies");
            expect(String(s.with.policyPackConfigs), s.file).to.equal(`policies/config/${String(s.with["stack-name"])}.json`);
        }
        expect(previews.every((p) => p.with["comment-on-pr"] === true)).to.equal(true);
    });

    it("deploy prod only after dev, behind the prod environment", () => {
        const deploy = all.find((w) => Object.keys(w.doc.on).includes("push"));
        const jobs = Object.entries(deploy!.doc.jobs);
        const prod = jobs.find(([, j]) => (j.steps ?? []).some((s) => s.with?.command === "up" && s.with?.["stack-name"] === "prod"));
        const dev = jobs.find(([, j]) => (j.steps ?? []).some((s) => s.with?.command === "up" && s.with?.["stack-name"] === "dev"));
        expect(prod?.[1].environment).to.equal("prod");
        expect(([] as string[]).concat(prod?.[1].needs ?? [])).to.include(dev![0]);
    });
});
