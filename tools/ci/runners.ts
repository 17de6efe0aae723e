/**
 * Where each stack's cloud jobs run, kept apart by design: a runner that runs pull-request code
 * never deploys (docs/ci.md, "Runner isolation").
 *
 * - `RUNNER_<STACK>` names the stack's **deploy** runner: `deploy.yml` only, on `main`.
 * - `RUNNER_PREVIEW_<STACK>` names the runner of the stack's **pull-request preview**.
 *
 * Both hold what `runs-on: ${{ fromJSON(…) }}` accepts: JSON of one label (`"eks-deployer"`, with
 * the quotes), of an array of labels (`["self-hosted","eks-deployer"]`) or of a runner group
 * (`{"group":"eks-deployers","labels":["eks-deployer"]}`). A bare label is refused: `fromJSON`
 * cannot read it, and the job would fail only when it is scheduled.
 *
 * Refused, naming the stack and the variable: a preview runner that a deploy runner of any stack
 * would satisfy (the same group, or labels a deploy runner also carries); a GitHub-hosted image
 * label (`ubuntu-latest`, `ubuntu-24.04`…) for a stack whose endpoint does not admit GitHub's
 * runners (`cluster.endpoint.githubHostedRunners`; a private-only endpoint never does). A stack
 * without its preview variable is previewed on GitHub's hosted runner only where its endpoint
 * admits it; never on its deploy runner.
 *
 *   VARS='<toJSON(vars)>' npm run --silent runners                 # matrix=[{"stack":…,"runner":…}] of the previews
 *   VARS='<toJSON(vars)>' npm run --silent runners -- --deploy dev prod   # checks the deploy runners of those stacks
 *   VARS='<toJSON(vars)>' npm run --silent runners -- --drift             # matrix=[…] of the deploy runner of every stack with access.drift
 *
 * The drift check (drift.yml, main only) runs on the deploy runners: it runs main's code, as deploys
 * do, and reaches every stack's endpoint from where the deploys do.
 *
 * The pull request workflow runs the base branch's copy of this file, never the pull request's.
 * Exit codes: 0 ok, 2 a stack without a runner, a malformed or overlapping variable, bad VARS or
 * arguments, invalid config.
 */
import { ConfigError, parseRawConfig, StackConfig } from "../../components/config";
import { parseCommandLine, runMain } from "../cli/cli";
import { previewRunnerVariable, runnerVariable } from "./ciNames";
import { InputError } from "../cli/errors";
import { readStackFiles, stackNames } from "../render/offline";

/** GitHub's hosted runner for stacks whose endpoint admits it (the offline jobs' image). */
export const GITHUB_HOSTED_RUNNER = "ubuntu-24.04";

/** Labels of GitHub's standard hosted images: fresh VMs outside every network of the stacks. */
const GITHUB_HOSTED_LABEL = /^(ubuntu|windows|macos)-(latest|\d[\w.-]*)$/i;

/** What `runs-on` accepts: one label, labels, or a runner group with optional labels. */
export type RunnerSpec = string | string[] | { group: string; labels?: string | string[] };

export interface MatrixEntry {
    stack: string;
    /** JSON of the runner, for `runs-on: ${{ fromJSON(matrix.runner) }}`. */
    runner: string;
}

const FORMAT =
    'JSON, as runs-on: ${{ fromJSON(...) }} reads it: a label in quotes ("eks-deployer"), an array of labels (["self-hosted","eks-deployer"]) or a runner group ({"group":"eks-deployers","labels":["eks-deployer"]})';

const isLabel = (l: unknown): l is string => typeof l === "string" && /^[A-Za-z0-9_.:-]+$/.test(l);
const isLabels = (l: unknown): l is string[] => Array.isArray(l) && l.length > 0 && l.every(isLabel);

/**
 * The runner a variable's value names, or why it names none. Only JSON: the workflows read every
 * runner variable through `fromJSON`, which fails on a bare label.
 */
export function parseRunner(value: unknown): { spec: RunnerSpec } | { problem: string } {
    if (typeof value !== "string") {
        return { problem: `must be ${FORMAT}, not ${JSON.stringify(value)}` };
    }
    let parsed: unknown;
    try {
        parsed = JSON.parse(value);
    } catch {
        const bare = isLabel(value.trim())
            ? ` (a bare label: fromJSON cannot read it; write it in quotes, ${JSON.stringify(JSON.stringify(value.trim()))})`
            : "";
        return { problem: `must be ${FORMAT}, not ${JSON.stringify(value)}${bare}` };
    }
    if (isLabel(parsed) || isLabels(parsed)) {
        return { spec: parsed };
    }
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
        const { group, labels, ...rest } = parsed as Record<string, unknown>;
        const extra = Object.keys(rest);
        if (
            typeof group === "string" &&
            group.trim() !== "" &&
            extra.length === 0 &&
            (labels === undefined || isLabel(labels) || isLabels(labels))
        ) {
            return { spec: labels === undefined ? { group } : { group, labels } };
        }
    }
    return { problem: `must be ${FORMAT}, not ${JSON.stringify(value)}` };
}

/** A runner's labels, lower-cased (GitHub matches labels case-insensitively). */
function labelsOf(spec: RunnerSpec): string[] {
    const labels = typeof spec === "string" || Array.isArray(spec) ? spec : (spec.labels ?? []);
    return [labels].flat().map((l) => l.toLowerCase());
}

/** Labels GitHub gives every self-hosted runner it registers, asked for or not. */
const DEFAULT_SELF_HOSTED_LABELS = ["self-hosted", "linux", "windows", "macos", "x64", "arm", "arm64"];

const groupOf = (spec: RunnerSpec) => (typeof spec === "object" && !Array.isArray(spec) ? spec.group.toLowerCase() : undefined);

/** A GitHub-hosted standard image: every label is one of GitHub's image names, and no group. */
export function isGithubHosted(spec: RunnerSpec): boolean {
    const labels = labelsOf(spec);
    return groupOf(spec) === undefined && labels.length > 0 && labels.every((l) => GITHUB_HOSTED_LABEL.test(l));
}

/**
 * Whether a job on `preview` could be scheduled on a runner registered for `deploy`: both in the
 * same group, or (no two different groups) every label the preview asks for is one the deploy
 * runner carries, GitHub's default self-hosted labels included (a group-only preview therefore
 * needs the deploy runner's group named too). GitHub's hosted images are fresh VMs per job and
 * never count. Pure.
 */
export function couldShareRunner(preview: RunnerSpec, deploy: RunnerSpec): boolean {
    if (isGithubHosted(preview) || isGithubHosted(deploy)) {
        return false;
    }
    const [pg, dg] = [groupOf(preview), groupOf(deploy)];
    if (pg !== undefined && dg !== undefined) {
        return pg === dg;
    }
    const deployLabels = new Set([...labelsOf(deploy), ...DEFAULT_SELF_HOSTED_LABELS]);
    return labelsOf(preview).every((l) => deployLabels.has(l));
}

/** Why a runner cannot reach the stack's API endpoint, or `undefined`. */
function unreachable(spec: RunnerSpec, endpoint: Endpoint): string | undefined {
    if (!isGithubHosted(spec) || endpoint.githubHostedRunners) {
        return undefined;
    }
    return endpoint.publicAccess
        ? "is a GitHub-hosted runner, and the stack's public endpoint admits only its publicAccessCidrs: GitHub's standard hosted runners have no fixed addresses (cluster.endpoint.githubHostedRunners is false)"
        : "is a GitHub-hosted runner, and the stack's endpoint is private-only (publicAccess: false): GitHub's hosted runners are outside every network connected to the VPC and cannot reach it";
}

type Endpoint = StackConfig["cluster"]["endpoint"];

interface Runners {
    deploy: Map<string, RunnerSpec>;
    preview: Map<string, RunnerSpec>;
    endpoints: Map<string, Endpoint>;
    problems: string[];
}

/** Every runner variable of `stacks` parsed and checked for reach; problems named per stack. */
function readRunners(root: string, stacks: readonly string[], vars: Readonly<Record<string, unknown>>): Runners {
    const out: Runners = { deploy: new Map(), preview: new Map(), endpoints: new Map(), problems: [] };
    const all = stackNames(root);
    for (const stack of stacks) {
        const endpoint = parseRawConfig(readStackFiles(root, stack).config, stack).cluster.endpoint;
        out.endpoints.set(stack, endpoint);
        // A stack named preview-dev would read dev's preview variable as its deploy runner.
        const clash = all.find((other) => previewRunnerVariable(other) === runnerVariable(stack));
        if (clash !== undefined) {
            out.problems.push(
                `stack ${stack}: its deploy variable ${runnerVariable(stack)} is also the preview variable of stack ${clash}: rename one of the stacks`,
            );
        }
        for (const [kind, variable] of [
            ["deploy", runnerVariable(stack)],
            ["preview", previewRunnerVariable(stack)],
        ] as const) {
            const value = vars[variable];
            if (value === undefined || value === "") {
                continue;
            }
            const parsed = parseRunner(value);
            if ("problem" in parsed) {
                out.problems.push(`stack ${stack}: ${variable} ${parsed.problem}`);
                continue;
            }
            const why = unreachable(parsed.spec, endpoint);
            if (why !== undefined) {
                out.problems.push(
                    `stack ${stack}: ${variable} = ${JSON.stringify(parsed.spec)} ${why}; name a runner in a network that reaches the endpoint (docs/ci.md)`,
                );
                continue;
            }
            out[kind].set(stack, parsed.spec);
        }
    }
    return out;
}

/**
 * The pull-request preview of every stack of `root`, each on its preview runner; every problem
 * named at once. Deploy variables are read only to refuse a preview runner that overlaps one.
 */
export function runnerMatrix(root: string, vars: Readonly<Record<string, unknown>>): MatrixEntry[] {
    const stacks = stackNames(root);
    const { deploy, preview, problems, endpoints } = readRunners(root, stacks, vars);
    const matrix: MatrixEntry[] = [];
    for (const stack of stacks) {
        const variable = previewRunnerVariable(stack);
        const spec = preview.get(stack);
        if (spec === undefined) {
            if (vars[variable] !== undefined && vars[variable] !== "") {
                continue; // malformed or unreachable: already named
            }
            if (endpoints.get(stack)?.githubHostedRunners) {
                matrix.push({ stack, runner: JSON.stringify(GITHUB_HOSTED_RUNNER) });
            } else {
                problems.push(
                    `stack ${stack}: repository variable ${variable} is not set, and the stack's endpoint does not admit GitHub's hosted runners (cluster.endpoint.githubHostedRunners): set ${variable} to a preview runner that reaches the endpoint and never deploys, e.g. ["self-hosted","eks-preview"] (docs/ci.md); pull-request code never runs on the deploy runner ${runnerVariable(stack)}`,
                );
            }
            continue;
        }
        const shared = [...deploy].filter(([, d]) => couldShareRunner(spec, d)).map(([s]) => runnerVariable(s));
        if (shared.length > 0) {
            problems.push(
                `stack ${stack}: ${variable} = ${JSON.stringify(spec)} would also be satisfied by the deploy runner of ${shared.join(", ")}: pull-request code must never run where a deploy runs (a trojaned plugin or cache left there runs with the deploy role next); give previews their own runner group, or a label no deploy runner carries (docs/ci.md)`,
            );
            continue;
        }
        matrix.push({ stack, runner: JSON.stringify(spec) });
    }
    if (problems.length > 0) {
        throw new InputError(problems.join("\n"));
    }
    return matrix;
}

/**
 * The deploy runners of `stacks` (the ones deploy.yml deploys), checked before any deploy starts:
 * each set, readable by `fromJSON`, reaching its endpoint. Returns each stack's runner JSON.
 */
export function deployRunners(root: string, stacks: readonly string[], vars: Readonly<Record<string, unknown>>): MatrixEntry[] {
    const known = stackNames(root);
    const unknown = stacks.filter((s) => !known.includes(s));
    if (unknown.length > 0) {
        throw new InputError(`unknown stack ${unknown.join(", ")}: the stacks are ${known.join(", ")}`);
    }
    const { deploy, problems } = readRunners(root, stacks, vars);
    for (const stack of stacks.filter((s) => !deploy.has(s))) {
        const variable = runnerVariable(stack);
        if (vars[variable] === undefined || vars[variable] === "") {
            problems.push(
                `stack ${stack}: repository variable ${variable} is not set: set it to the stack's deploy runner, e.g. ["self-hosted","eks-deployer"] (docs/ci.md)`,
            );
        }
    }
    if (problems.length > 0) {
        throw new InputError(problems.join("\n"));
    }
    return stacks.map((stack) => ({ stack, runner: JSON.stringify(deploy.get(stack)) }));
}

/**
 * The stacks the drift check covers: those with a drift role (`access.drift`). A stack without
 * one (a sample nobody deploys, a stack not yet created) has no role to read it with.
 */
export function driftedStacks(root: string): string[] {
    return stackNames(root).filter((stack) => parseRawConfig(readStackFiles(root, stack).config, stack).access.drift !== undefined);
}

const USAGE = "usage: VARS='<toJSON(vars)>' npm run --silent runners [-- --deploy <stack>... | --drift]";

/**
 * The command: its arguments, `VARS` (the workflow's `toJSON(vars)`) and the project root in;
 * the `matrix=…` line for `$GITHUB_OUTPUT` out (the previews', or with `--drift` every stack's deploy
 * runner), or with `--deploy`, one line per stack checked.
 * Bad input throws an `InputError`.
 */
export function runnersCommand(argv: readonly string[], varsJson: string | undefined, root: string): string {
    const { values, positionals } = parseCommandLine(argv, { deploy: { type: "boolean" }, drift: { type: "boolean" } }, USAGE);
    if (values.deploy && values.drift) {
        throw new InputError(`--deploy and --drift are two commands\n${USAGE}`);
    }
    if (!values.deploy && positionals.length > 0) {
        throw new InputError(`unexpected argument ${positionals[0]}\n${USAGE}`);
    }
    if (values.deploy && positionals.length === 0) {
        throw new InputError(`--deploy needs the stacks the workflow deploys\n${USAGE}`);
    }
    let vars: unknown;
    try {
        vars = JSON.parse(varsJson ?? "{}");
    } catch (err) {
        throw new InputError(`VARS is not JSON (${(err as Error).message})\n${USAGE}`);
    }
    if (!vars || typeof vars !== "object" || Array.isArray(vars)) {
        throw new InputError(`VARS must be a JSON object of repository variables\n${USAGE}`);
    }
    const record = vars as Record<string, unknown>;
    if (values.deploy) {
        return deployRunners(root, positionals, record)
            .map((e) => `stack ${e.stack}: deploys on ${runnerVariable(e.stack)} = ${e.runner}\n`)
            .join("");
    }
    if (values.drift) {
        return `matrix=${JSON.stringify(deployRunners(root, driftedStacks(root), record))}\n`;
    }
    return `matrix=${JSON.stringify(runnerMatrix(root, record))}\n`;
}

// Synchronous work, run inside a promise so that bad input reaches runMain as a rejection.
const main = (): Promise<number> =>
    new Promise((resolve) => {
        process.stdout.write(runnersCommand(process.argv.slice(2), process.env.VARS, process.cwd()));
        resolve(0);
    });

if (require.main === module) {
    runMain(main, [ConfigError]);
}
