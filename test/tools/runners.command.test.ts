/**
 * tools/runners.ts as the workflow calls it, in process: the runner labels a RUNNER_<STACK>
 * variable may hold, the fallback to a GitHub-hosted runner, and bad VARS.
 */
import { expect } from "chai";
import { InputError } from "../../tools/errors";
import { runnerMatrix, runnersCommand, runnerVariable } from "../../tools/runners";
import { FIXTURE_STACKS, projectCopy } from "../stackFiles";

/** The fixture project (stacks dev and prod, neither admitting GitHub's hosted runners), made once. */
let project: string | undefined;
const root = () => (project ??= projectCopy(FIXTURE_STACKS));
const matrixOf = (vars: Record<string, unknown>) => runnerMatrix(root(), { RUNNER_PROD: '["self-hosted"]', ...vars });
/** The runner JSON dev gets from RUNNER_DEV = `value`. */
const devRunner = (value: unknown) => matrixOf({ RUNNER_DEV: value }).find((m) => m.stack === "dev")?.runner;
const refusal = (value: unknown) => {
    try {
        matrixOf({ RUNNER_DEV: value });
    } catch (err) {
        expect(err).to.be.instanceOf(InputError);
        return (err as Error).message;
    }
    return "accepted";
};

describe("tools/runners.ts: the labels a RUNNER_<STACK> variable holds (GitHub Actions runs-on: one label or an array of labels)", () => {
    it("names the variable after the stack, upper-cased, anything but letters and digits as _", () => {
        expect(runnerVariable("dev")).to.equal("RUNNER_DEV");
        expect(runnerVariable("eu-prod.2")).to.equal("RUNNER_EU_PROD_2");
    });

    it("takes one bare label, trimmed, or a JSON string, or a JSON array of non-empty strings", () => {
        expect(devRunner("eks-deployer")).to.equal('"eks-deployer"');
        expect(devRunner("  eks-deployer\n")).to.equal('"eks-deployer"');
        expect(devRunner('"eks-deployer"')).to.equal('"eks-deployer"');
        expect(devRunner('["self-hosted", "eks-deployer"]')).to.equal('["self-hosted","eks-deployer"]');
    });

    it("refuses anything else, naming the stack, the variable and the value", () => {
        for (const value of [
            "my runner",
            "runner!",
            '""',
            "[]",
            '["self-hosted", ""]',
            '["self-hosted", 1]',
            "{}",
            "5",
            ["self-hosted"],
            5,
        ]) {
            expect(refusal(value), JSON.stringify(value)).to.equal(
                `stack dev: RUNNER_DEV must name runner labels: one label, or JSON (a string or an array of strings), not ${JSON.stringify(value)}`,
            );
        }
    });

    it("takes an empty variable as unset (GitHub Actions: an unset variable is the empty string in toJSON(vars))", () => {
        expect(refusal("")).to.match(/^stack dev: repository variable RUNNER_DEV is not set, and the stack's endpoint does not admit/);
    });

    it("names every stack without a runner, one line each", () => {
        expect(() => runnerMatrix(root(), {})).to.throw(
            InputError,
            /^stack dev: repository variable RUNNER_DEV is not set.*\nstack prod: repository variable RUNNER_PROD is not set.*$/,
        );
    });

    it("falls back to GitHub's hosted runner (ubuntu-24.04, the offline jobs' image) only where the stack says GitHub's runners reach its public endpoint", () => {
        const hosted = projectCopy(FIXTURE_STACKS, (file, text) =>
            file === "Pulumi.dev.yaml" ? text.replace("githubHostedRunners: false", "githubHostedRunners: true") : text,
        );
        expect(runnerMatrix(hosted, { RUNNER_PROD: "self-hosted", RUNNER_DEV: "" })).to.deep.equal([
            { stack: "dev", runner: '"ubuntu-24.04"' },
            { stack: "prod", runner: '"self-hosted"' },
        ]);
        // Prod's endpoint is private: no GitHub-hosted runner reaches it, and its config says so.
        const privateHosted = projectCopy(FIXTURE_STACKS, (file, text) =>
            file === "Pulumi.prod.yaml" ? text.replace("githubHostedRunners: false", "githubHostedRunners: true") : text,
        );
        expect(() => runnerMatrix(privateHosted, {})).to.throw(
            /eks-platform:cluster\.endpoint\.githubHostedRunners: is true while publicAccess is false/,
        );
    });
});

describe("tools/runners.ts runnersCommand: the command line and VARS", () => {
    const vars = JSON.stringify({ RUNNER_DEV: "dev-runner", RUNNER_PROD: '["self-hosted","prod"]', OTHER: "x" });

    it("prints the matrix line for $GITHUB_OUTPUT", () => {
        expect(runnersCommand([], vars, root())).to.equal(
            'matrix=[{"stack":"dev","runner":"\\"dev-runner\\""},{"stack":"prod","runner":"[\\"self-hosted\\",\\"prod\\"]"}]\n',
        );
    });

    it("takes a missing VARS as no variables, which names each stack", () => {
        expect(() => runnersCommand([], undefined, root())).to.throw(InputError, /^stack dev: repository variable RUNNER_DEV is not set/);
    });

    it("refuses arguments, VARS that is not JSON, and JSON that is not an object, with the usage", () => {
        const usage = "usage: VARS='<toJSON(vars)>' npm run --silent runners";
        expect(() => runnersCommand(["dev"], vars, root())).to.throw(InputError, `unexpected argument dev\n${usage}`);
        expect(() => runnersCommand([], "{", root())).to.throw(InputError, /^VARS is not JSON \(.+\)\nusage: VARS=/);
        for (const notObject of ["null", "[]", '"x"', "3"]) {
            expect(() => runnersCommand([], notObject, root()), notObject).to.throw(
                InputError,
                `VARS must be a JSON object of repository variables\n${usage}`,
            );
        }
    });
});
