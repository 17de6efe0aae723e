/**
 * tools/ci/runners.ts as the workflows call it, in process, on the fixture stacks (dev: a public
 * endpoint limited to named CIDRs; prod: private-only; neither admitting GitHub's hosted runners):
 * the runner formats a variable may hold, the exact refusals, the fallback, bad VARS and arguments.
 */
import { expect } from "chai";
import { InputError } from "../../../tools/cli/errors";
import { couldShareRunner, isGithubHosted, parseRunner, runnerMatrix, runnersCommand } from "../../../tools/ci/runners";
import { previewRunnerVariable, runnerVariable } from "../../../tools/ci/ciNames";
import { FIXTURE_STACKS, projectCopy } from "../../stackFiles";

/** The fixture project, made once. */
let project: string | undefined;
const root = () => (project ??= projectCopy(FIXTURE_STACKS));
/** The deploy runners as docs/bootstrap.md sets them up (step 7): in their own runner group. */
const DEPLOY = {
    RUNNER_DEV: '{"group":"eks-deployers","labels":["eks-deployer"]}',
    RUNNER_PROD: '{"group":"eks-deployers","labels":["eks-deployer"]}',
};
const matrixOf = (vars: Record<string, unknown>) =>
    runnerMatrix(root(), {
        ...DEPLOY,
        RUNNER_PREVIEW_DEV: '["self-hosted","eks-preview-dev"]',
        RUNNER_PREVIEW_PROD: '["self-hosted","eks-preview"]',
        ...vars,
    });
/** The runner JSON dev's preview gets from RUNNER_PREVIEW_DEV = `value`. */
const devRunner = (value: unknown) => matrixOf({ RUNNER_PREVIEW_DEV: value }).find((m) => m.stack === "dev")?.runner;
const refusal = (vars: Record<string, unknown>) => {
    try {
        matrixOf(vars);
    } catch (err) {
        expect(err).to.be.instanceOf(InputError);
        return (err as Error).message;
    }
    return "accepted";
};
const FORMAT =
    'must be JSON, as runs-on: ${{ fromJSON(...) }} reads it: a label in quotes ("eks-deployer"), an array of labels (["self-hosted","eks-deployer"]) or a runner group ({"group":"eks-deployers","labels":["eks-deployer"]})';

describe("tools/ci/runners.ts: the runner a RUNNER_<STACK> or RUNNER_PREVIEW_<STACK> variable holds (JSON for fromJSON)", () => {
    it("names the variables after the stack, upper-cased, anything but letters and digits as _", () => {
        expect(runnerVariable("dev")).to.equal("RUNNER_DEV");
        expect(runnerVariable("eu-prod.2")).to.equal("RUNNER_EU_PROD_2");
        expect(previewRunnerVariable("eu-prod.2")).to.equal("RUNNER_PREVIEW_EU_PROD_2");
    });

    it("takes a JSON label, a JSON array of labels, or GitHub's runner-group form, and writes it back as JSON", () => {
        expect(devRunner('"eks-preview"')).to.equal('"eks-preview"');
        expect(devRunner('["self-hosted", "eks-preview"]')).to.equal('["self-hosted","eks-preview"]');
        expect(devRunner('{"group": "eks-previews", "labels": ["linux", "eks-preview"]}')).to.equal(
            '{"group":"eks-previews","labels":["linux","eks-preview"]}',
        );
        expect(devRunner('{"group": "eks-previews", "labels": "eks-preview"}')).to.equal('{"group":"eks-previews","labels":"eks-preview"}');
        expect(devRunner('{"group": "eks-previews"}')).to.equal('{"group":"eks-previews"}');
    });

    it("refuses a bare label, which fromJSON cannot read, saying how to quote it", () => {
        expect(refusal({ RUNNER_PREVIEW_DEV: "eks-preview" })).to.equal(
            `stack dev: RUNNER_PREVIEW_DEV ${FORMAT}, not "eks-preview" (a bare label: fromJSON cannot read it; write it in quotes, "\\"eks-preview\\"")`,
        );
    });

    it("refuses anything else, naming the stack, the variable and the value", () => {
        for (const value of [
            "my runner",
            '""',
            '"my runner"',
            "[]",
            '["self-hosted", ""]',
            '["self-hosted", 1]',
            "{}",
            '{"labels": ["eks-preview"]}',
            '{"group": ""}',
            '{"group": "g", "labels": []}',
            '{"group": "g", "label": "x"}',
            "5",
            "null",
            ["self-hosted"],
            5,
        ]) {
            expect(refusal({ RUNNER_PREVIEW_DEV: value }), JSON.stringify(value)).to.equal(
                `stack dev: RUNNER_PREVIEW_DEV ${FORMAT}, not ${JSON.stringify(value)}`,
            );
        }
    });

    it("takes an empty variable as unset (GitHub Actions: an unset variable is the empty string in toJSON(vars))", () => {
        expect(refusal({ RUNNER_PREVIEW_DEV: "" })).to.match(
            /^stack dev: repository variable RUNNER_PREVIEW_DEV is not set, and the stack's endpoint does not admit/,
        );
    });

    it("names every stack without a preview runner, one line each, and never falls back to its deploy runner", () => {
        expect(() => runnerMatrix(root(), DEPLOY)).to.throw(
            InputError,
            /^stack dev: repository variable RUNNER_PREVIEW_DEV is not set.*never runs on the deploy runner RUNNER_DEV\nstack prod: repository variable RUNNER_PREVIEW_PROD is not set.*$/,
        );
    });

    it("refuses GitHub-hosted labels for a private-only endpoint (unreachable) and for a public one limited to named CIDRs", () => {
        expect(refusal({ RUNNER_PREVIEW_PROD: '"ubuntu-latest"' })).to.equal(
            `stack prod: RUNNER_PREVIEW_PROD = "ubuntu-latest" is a GitHub-hosted runner, and the stack's endpoint is private-only (publicAccess: false): GitHub's hosted runners are outside every network connected to the VPC and cannot reach it; name a runner in a network that reaches the endpoint (docs/ci.md)`,
        );
        expect(refusal({ RUNNER_PREVIEW_DEV: '["ubuntu-24.04"]' })).to.equal(
            `stack dev: RUNNER_PREVIEW_DEV = ["ubuntu-24.04"] is a GitHub-hosted runner, and the stack's public endpoint admits only its publicAccessCidrs: GitHub's standard hosted runners have no fixed addresses (cluster.endpoint.githubHostedRunners is false); name a runner in a network that reaches the endpoint (docs/ci.md)`,
        );
    });

    it("names a preview runner that a deploy runner would satisfy, with every deploy variable it overlaps", () => {
        // self-hosted and linux: labels GitHub gives every self-hosted runner, the deploy runners included.
        expect(refusal({ RUNNER_PREVIEW_DEV: '["self-hosted","linux"]' })).to.equal(
            `stack dev: RUNNER_PREVIEW_DEV = ["self-hosted","linux"] would also be satisfied by the deploy runner of RUNNER_DEV, RUNNER_PROD: pull-request code must never run where a deploy runs (a trojaned plugin or cache left there runs with the deploy role next); give previews their own runner group, or a label no deploy runner carries (docs/ci.md)`,
        );
    });

    it("falls back to GitHub's hosted runner (ubuntu-24.04) only where the stack says GitHub's runners reach its public endpoint", () => {
        const hosted = projectCopy(FIXTURE_STACKS, (file, text) =>
            file === "Pulumi.dev.yaml" ? text.replace("githubHostedRunners: false", "githubHostedRunners: true") : text,
        );
        expect(runnerMatrix(hosted, { RUNNER_PREVIEW_PROD: '"eks-preview"', RUNNER_PREVIEW_DEV: "" })).to.deep.equal([
            { stack: "dev", runner: '"ubuntu-24.04"' },
            { stack: "prod", runner: '"eks-preview"' },
        ]);
        // There, GitHub-hosted labels are accepted for previews and deploys alike: fresh VMs per job.
        expect(
            runnerMatrix(hosted, {
                RUNNER_DEV: '"ubuntu-latest"',
                RUNNER_PREVIEW_DEV: '"ubuntu-latest"',
                RUNNER_PREVIEW_PROD: '"eks-preview"',
            })[0],
        ).to.deep.equal({
            stack: "dev",
            runner: '"ubuntu-latest"',
        });
    });
});

describe("tools/ci/runners.ts couldShareRunner and isGithubHosted: when a preview job could land on a deploy runner", () => {
    const spec = (value: string) => {
        const parsed = parseRunner(value);
        expect(parsed, value).to.have.property("spec");
        return (parsed as { spec: Parameters<typeof couldShareRunner>[0] }).spec;
    };
    it("labels: shared exactly when every preview label is a deploy label (case-insensitively)", () => {
        expect(couldShareRunner(spec('["self-hosted","x"]'), spec('["self-hosted","x","linux"]'))).to.equal(true);
        expect(couldShareRunner(spec('"SELF-HOSTED"'), spec('["self-hosted"]'))).to.equal(true);
        expect(couldShareRunner(spec('["self-hosted","preview"]'), spec('["self-hosted","deploy"]'))).to.equal(false);
    });
    it("groups: two different groups never share a runner, the same group always does, one group falls back to labels", () => {
        expect(couldShareRunner(spec('{"group":"previews","labels":["x"]}'), spec('{"group":"deployers","labels":["x"]}'))).to.equal(false);
        expect(couldShareRunner(spec('{"group":"previews"}'), spec('{"group":"Previews","labels":["x"]}'))).to.equal(true);
        expect(couldShareRunner(spec('{"group":"previews","labels":["x"]}'), spec('["x","y"]'))).to.equal(true);
        expect(couldShareRunner(spec('["x"]'), spec('{"group":"deployers","labels":["y"]}'))).to.equal(false);
    });
    it("GitHub's hosted images never count: each job gets a fresh VM", () => {
        expect(isGithubHosted(spec('"ubuntu-latest"'))).to.equal(true);
        expect(isGithubHosted(spec('["ubuntu-24.04-arm"]'))).to.equal(true);
        expect(isGithubHosted(spec('["self-hosted","ubuntu-24.04"]'))).to.equal(false);
        expect(isGithubHosted(spec('{"group":"larger","labels":["ubuntu-24.04"]}'))).to.equal(false);
        expect(couldShareRunner(spec('"ubuntu-latest"'), spec('"ubuntu-latest"'))).to.equal(false);
    });
});

describe("tools/ci/runners.ts runnersCommand: the command line and VARS", () => {
    const vars = JSON.stringify({
        ...DEPLOY,
        RUNNER_PREVIEW_DEV: '"dev-preview"',
        RUNNER_PREVIEW_PROD: '["self-hosted","prod-preview"]',
        OTHER: "x",
    });

    it("prints the preview matrix line for $GITHUB_OUTPUT", () => {
        expect(runnersCommand([], vars, root())).to.equal(
            'matrix=[{"stack":"dev","runner":"\\"dev-preview\\""},{"stack":"prod","runner":"[\\"self-hosted\\",\\"prod-preview\\"]"}]\n',
        );
    });

    it("--deploy checks the deploy runners of the stacks named, and only those", () => {
        expect(runnersCommand(["--deploy", "prod"], JSON.stringify({ RUNNER_PROD: '{"group":"deployers"}' }), root())).to.equal(
            'stack prod: deploys on RUNNER_PROD = {"group":"deployers"}\n',
        );
        expect(() => runnersCommand(["--deploy", "dev", "prod"], JSON.stringify({ RUNNER_PROD: '"x"' }), root())).to.throw(
            InputError,
            /^stack dev: repository variable RUNNER_DEV is not set: set it to the stack's deploy runner/,
        );
        expect(() => runnersCommand(["--deploy", "qa"], vars, root())).to.throw(InputError, "unknown stack qa: the stacks are dev, prod");
    });

    it("--drift prints the deploy runner of every stack with a drift role (access.drift) as the matrix line, refusing an unset one", () => {
        // The fixture stacks have no drift role: nothing to check.
        expect(runnersCommand(["--drift"], vars, root())).to.equal("matrix=[]\n");
        const withDrift = (stacksWithRole: string[]) =>
            projectCopy(FIXTURE_STACKS, (file, text) =>
                stacksWithRole.some((st) => file === `Pulumi.${st}.yaml`)
                    ? text.replace(
                          /(\n(\s+)preview: (arn:[^\n]+))/,
                          (_m, line: string, indent: string, arn: string) => `${line}\n${indent}drift: ${arn.replace("preview", "drift")}`,
                      )
                    : text,
            );
        const prodOnly = withDrift(["prod"]);
        expect(runnersCommand(["--drift"], vars, prodOnly)).to.equal(
            `matrix=[{"stack":"prod","runner":${JSON.stringify(DEPLOY.RUNNER_PROD)}}]\n`,
        );
        expect(() => runnersCommand(["--drift"], JSON.stringify({ RUNNER_PROD: '"x"' }), withDrift(["dev", "prod"]))).to.throw(
            InputError,
            /^stack dev: repository variable RUNNER_DEV is not set/,
        );
        expect(() => runnersCommand(["--drift", "--deploy", "dev"], vars, root())).to.throw(
            InputError,
            /^--deploy and --drift are two commands/,
        );
        expect(() => runnersCommand(["--drift", "dev"], vars, root())).to.throw(InputError, /^unexpected argument dev/);
    });

    it("takes a missing VARS as no variables, which names each stack", () => {
        expect(() => runnersCommand([], undefined, root())).to.throw(
            InputError,
            /^stack dev: repository variable RUNNER_PREVIEW_DEV is not set/,
        );
    });

    it("refuses arguments without --deploy, --deploy without stacks, VARS that is not JSON or not an object, with the usage", () => {
        const usage = "usage: VARS='<toJSON(vars)>' npm run --silent runners [-- --deploy <stack>... | --drift]";
        expect(() => runnersCommand(["dev"], vars, root())).to.throw(InputError, `unexpected argument dev\n${usage}`);
        expect(() => runnersCommand(["--deploy"], vars, root())).to.throw(
            InputError,
            `--deploy needs the stacks the workflow deploys\n${usage}`,
        );
        expect(() => runnersCommand([], "{", root())).to.throw(InputError, /^VARS is not JSON \(.+\)\nusage: VARS=/);
        for (const notObject of ["null", "[]", '"x"', "3"]) {
            expect(() => runnersCommand([], notObject, root()), notObject).to.throw(
                InputError,
                `VARS must be a JSON object of repository variables\n${usage}`,
            );
        }
    });
});
