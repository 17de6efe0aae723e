import { expect } from "chai";
import { execFile } from "child_process";
import * as path from "path";
import { ROOT } from "../mocks";
import { GITHUB_HOSTED_RUNNER, runnerMatrix, runnerVariable } from "../../tools/runners";
import { FIXTURE_STACKS, projectCopy, stackConfig, stacks } from "../stackFiles";

describe("tools/runners.ts: the runner of every stack's cloud jobs", () => {
    const labels = (stack: string) => ["self-hosted", `deployer-${stack}`];
    const allSet = Object.fromEntries(stacks().map((s) => [runnerVariable(s), JSON.stringify(labels(s))]));

    it("gives every stack file an entry on the labels of its RUNNER_<STACK> variable", () => {
        const matrix = runnerMatrix(ROOT, allSet);
        expect(matrix.map((m) => m.stack)).to.deep.equal(stacks());
        for (const m of matrix) {
            expect(JSON.parse(m.runner), m.stack).to.deep.equal(labels(m.stack));
        }
        // One bare label is taken as it is.
        expect(runnerMatrix(ROOT, { ...allSet, [runnerVariable(stacks()[0])]: "my-runner" })[0].runner).to.equal('"my-runner"');
    });

    it("without the variable, a GitHub-hosted runner only where the stack's endpoint admits it; otherwise an error naming the variable", () => {
        for (const stack of stacks()) {
            const vars = { ...allSet };
            delete vars[runnerVariable(stack)];
            if (stackConfig(stack).cluster.endpoint.githubHostedRunners) {
                const entry = runnerMatrix(ROOT, vars).find((m) => m.stack === stack);
                expect(entry?.runner).to.equal(JSON.stringify(GITHUB_HOSTED_RUNNER));
            } else {
                expect(() => runnerMatrix(ROOT, vars)).to.throw(
                    new RegExp(`stack ${stack}: repository variable ${runnerVariable(stack)} is not set`),
                );
            }
        }
    });

    it("falls back to GitHub's hosted runner for a stack whose endpoint says GitHub's runners reach it (fixture)", () => {
        const project = projectCopy(FIXTURE_STACKS, (file, text) =>
            file === "Pulumi.dev.yaml" ? text.replace("githubHostedRunners: false", "githubHostedRunners: true") : text,
        );
        const matrix = runnerMatrix(project, { RUNNER_PROD: '["self-hosted"]' });
        expect(matrix).to.deep.equal([
            { stack: "dev", runner: JSON.stringify(GITHUB_HOSTED_RUNNER) },
            { stack: "prod", runner: '["self-hosted"]' },
        ]);
    });

    it("names every stack with a malformed variable, and exits 2 from the command line", async () => {
        expect(() => runnerMatrix(ROOT, { ...allSet, [runnerVariable(stacks()[0])]: "[1]" })).to.throw(/must name runner labels/);
        const code = await new Promise<number>((resolve) =>
            execFile(
                process.execPath,
                ["-r", "ts-node/register/transpile-only", path.join(ROOT, "tools", "runners.ts")],
                { cwd: ROOT, env: { ...process.env, VARS: "{}" } },
                (err) => resolve(err ? Number(err.code) : 0),
            ),
        );
        expect(code).to.equal(stacks().some((s) => !stackConfig(s).cluster.endpoint.githubHostedRunners) ? 2 : 0);
    });
});
