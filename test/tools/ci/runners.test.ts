/**
 * tools/ci/runners.ts over every stack file of the repository: the runner isolation invariants
 * (docs/ci.md, "Runner isolation") hold whatever the stacks are.
 */
import { validateWorkflow } from "@action-validator/core";
import { expect } from "chai";
import { execFile } from "child_process";
import * as path from "path";
import { ROOT } from "../../mocks";
import { previewRunnerVariable, runnerVariable } from "../../../tools/ci/ciNames";
import { deployRunners, GITHUB_HOSTED_RUNNER, runnerMatrix } from "../../../tools/ci/runners";
import { stackConfig, stacks } from "../../stackFiles";

const deployLabels = (stack: string) => ["self-hosted", `deployer-${stack}`];
const previewLabels = (stack: string) => ["self-hosted", `preview-${stack}`];
/** Every stack's deploy runner set, as the deploy workflow needs them. */
const deployVars = Object.fromEntries(stacks().map((s) => [runnerVariable(s), JSON.stringify(deployLabels(s))]));
/** Every stack's deploy and preview runners set, apart. */
const allVars = {
    ...deployVars,
    ...Object.fromEntries(stacks().map((s) => [previewRunnerVariable(s), JSON.stringify(previewLabels(s))])),
};
/** Every stack's deploy runner in the deploy runners' group, as docs/bootstrap.md sets them up (step 7). */
const groupDeployVars = Object.fromEntries(
    stacks().map((s) => [runnerVariable(s), JSON.stringify({ group: "eks-deployers", labels: deployLabels(s) })]),
);
const refusal = (vars: Record<string, string>) => {
    try {
        runnerMatrix(ROOT, vars);
    } catch (err) {
        return (err as Error).message;
    }
    return "accepted";
};

/** `runs-on` as GitHub's schema reads it: the workflow validator judges a job with this value. */
const runsOnProblems = (runsOn: unknown) =>
    validateWorkflow(JSON.stringify({ on: "push", jobs: { x: { "runs-on": runsOn, steps: [{ run: "true" }] } } })).errors;

describe("tools/ci/runners.ts: runner isolation over every stack", () => {
    it("previews every stack file on its RUNNER_PREVIEW_<STACK>, never on a RUNNER_<STACK>", () => {
        const matrix = runnerMatrix(ROOT, allVars);
        expect(matrix.map((m) => m.stack)).to.deep.equal(stacks());
        for (const m of matrix) {
            expect(JSON.parse(m.runner), `${m.stack}: its preview runner`).to.deep.equal(previewLabels(m.stack));
            for (const other of stacks()) {
                expect(JSON.parse(m.runner), `${m.stack}: not the deploy runner of ${other}`).to.not.deep.equal(deployLabels(other));
            }
        }
    });

    it("refuses, for every stack, a preview runner that the deploy runner of any stack would satisfy (rule: PR code never runs where a deploy runs)", () => {
        for (const stack of stacks()) {
            for (const deployed of stacks()) {
                const variable = previewRunnerVariable(stack);
                const overlapping = [
                    JSON.stringify(deployLabels(deployed)), // the very same labels
                    '["self-hosted"]', // a subset: every deploy runner carries it
                    JSON.stringify(deployLabels(deployed).map((l) => l.toUpperCase())), // labels match case-insensitively
                    JSON.stringify({ group: "deployers", labels: ["preview"] }), // below, the deploy runners' group
                ];
                const vars = {
                    ...allVars,
                    [runnerVariable(deployed)]: JSON.stringify({ group: "Deployers", labels: deployLabels(deployed) }),
                };
                for (const value of overlapping) {
                    const message = refusal({ ...vars, [variable]: value });
                    expect(message, `${stack} previewed on ${value}`).to.include(
                        `stack ${stack}: ${variable} = ${JSON.stringify(JSON.parse(value))} would also be satisfied by the deploy runner of `,
                    );
                    expect(message, `${stack} previewed on ${value}: names ${deployed}'s deploy runner`).to.match(
                        new RegExp(
                            `${variable} = [^\n]* would also be satisfied by the deploy runner of [^:]*\\b${runnerVariable(deployed)}\\b`,
                        ),
                    );
                }
            }
        }
    });

    it("without RUNNER_PREVIEW_<STACK>, every stack gets GitHub's hosted runner only where its endpoint admits it, and never its deploy runner", () => {
        for (const stack of stacks()) {
            const vars: Record<string, string> = { ...allVars };
            delete vars[previewRunnerVariable(stack)];
            if (stackConfig(stack).cluster.endpoint.githubHostedRunners) {
                expect(runnerMatrix(ROOT, vars).find((m) => m.stack === stack)?.runner).to.equal(JSON.stringify(GITHUB_HOSTED_RUNNER));
            } else {
                expect(refusal(vars), stack).to.include(`stack ${stack}: repository variable ${previewRunnerVariable(stack)} is not set`);
            }
        }
    });

    it("refuses a GitHub-hosted label for every stack whose endpoint does not admit GitHub's runners, naming a private-only endpoint as unreachable", () => {
        let refused = 0;
        for (const stack of stacks()) {
            const endpoint = stackConfig(stack).cluster.endpoint;
            if (endpoint.githubHostedRunners) {
                continue;
            }
            const why = endpoint.publicAccess
                ? "public endpoint admits only its publicAccessCidrs"
                : "endpoint is private-only (publicAccess: false)";
            for (const label of ["ubuntu-latest", "ubuntu-24.04", "Windows-2025"]) {
                expect(
                    refusal({ ...allVars, [previewRunnerVariable(stack)]: JSON.stringify(label) }),
                    `${stack} preview on ${label}`,
                ).to.include(
                    `stack ${stack}: ${previewRunnerVariable(stack)} = ${JSON.stringify(label)} is a GitHub-hosted runner, and the stack's ${why}`,
                );
                expect(
                    () => deployRunners(ROOT, [stack], { ...deployVars, [runnerVariable(stack)]: JSON.stringify([label]) }),
                    `${stack} deployed on ${label}`,
                ).to.throw(new RegExp(`stack ${stack}: ${runnerVariable(stack)} = .* is a GitHub-hosted runner`));
            }
            refused++;
        }
        // The samples: at least one stack is not reachable from GitHub's hosted runners.
        expect(refused, "stacks without githubHostedRunners").to.be.greaterThan(0);
    });

    it("writes every runner as JSON that runs-on: ${{ fromJSON(...) }} accepts: a label, labels, a runner group", () => {
        for (const value of [
            '"eks-deployer"',
            '["self-hosted","eks-preview"]',
            '{"group":"eks-previews","labels":["eks-preview"]}',
            '{"group":"eks-previews"}',
        ]) {
            for (const stack of stacks()) {
                const entry = runnerMatrix(ROOT, {
                    ...groupDeployVars,
                    [previewRunnerVariable(stack)]: value,
                    ...otherPreviews(stack),
                }).find((m) => m.stack === stack);
                const runsOn: unknown = JSON.parse(entry!.runner); // what fromJSON(matrix.runner) gives runs-on
                expect(runsOn, `${stack} ${value}`).to.deep.equal(JSON.parse(value));
                expect(runsOnProblems(runsOn), `${stack} ${value}: a valid runs-on`).to.deep.equal([]);
            }
        }
        // The check above can fail: runs-on refuses a number.
        expect(runsOnProblems(5)).to.not.deep.equal([]);
    });

    it("checks the deploy runner of every stack the deploy workflow names: set, JSON, reaching its endpoint", () => {
        expect(deployRunners(ROOT, stacks(), deployVars)).to.deep.equal(
            stacks().map((s) => ({ stack: s, runner: JSON.stringify(deployLabels(s)) })),
        );
        for (const stack of stacks()) {
            const vars: Record<string, string> = { ...deployVars, [runnerVariable(stack)]: "eks-deployer" };
            expect(() => deployRunners(ROOT, stacks(), vars), `${stack}: a bare label`).to.throw(/fromJSON cannot read it/);
            delete vars[runnerVariable(stack)];
            expect(() => deployRunners(ROOT, stacks(), vars), `${stack}: unset`).to.throw(
                `stack ${stack}: repository variable ${runnerVariable(stack)} is not set`,
            );
        }
    });

    it("exits 2 from the command line when a stack has no preview runner", async () => {
        const code = await new Promise<number>((resolve) =>
            execFile(
                process.execPath,
                ["-r", "ts-node/register/transpile-only", path.join(ROOT, "tools", "ci", "runners.ts")],
                { cwd: ROOT, env: { ...process.env, VARS: JSON.stringify(deployVars) } },
                (err) => resolve(err ? Number(err.code) : 0),
            ),
        );
        expect(code).to.equal(stacks().some((s) => !stackConfig(s).cluster.endpoint.githubHostedRunners) ? 2 : 0);
    });
});

/** Distinct preview runners for every stack but `stack`, so the matrix has every entry. */
function otherPreviews(stack: string): Record<string, string> {
    return Object.fromEntries(
        stacks()
            .filter((s) => s !== stack)
            .map((s) => [previewRunnerVariable(s), JSON.stringify(previewLabels(s))]),
    );
}
