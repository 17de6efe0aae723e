/**
 * Where each stack's cloud jobs run: one GitHub Actions matrix entry per `Pulumi.<stack>.yaml`,
 * on the runner labels of the repository variable `RUNNER_<STACK>` (a JSON string or array, e.g.
 * `["self-hosted","eks-deployer"]`: a runner in a network that reaches the stack's API endpoint).
 * A stack whose variable is unset gets a GitHub-hosted runner only when its config says its
 * endpoint admits GitHub's runners (`cluster.endpoint.githubHostedRunners`); otherwise this fails
 * naming the variable, before any job touches the cloud. So a new stack file is previewed on
 * pull requests without editing a workflow.
 *
 *   VARS='<the workflow's toJSON(vars)>' npm run --silent runners   # prints matrix=[{"stack":…,"runner":…}]
 *
 * Exit codes: 0 ok, 2 a stack without a runner, a malformed variable or VARS, invalid config.
 */
import { ConfigError, parseRawConfig } from "../components/config";
import { parseCommandLine, runMain } from "./cli";
import { InputError } from "./errors";
import { readStackFiles, stackNames } from "./offline";

/** GitHub's hosted runner for stacks whose endpoint admits it (the offline jobs' image). */
export const GITHUB_HOSTED_RUNNER = "ubuntu-24.04";

/** The repository variable holding a stack's runner labels: `RUNNER_DEV` for `dev`. */
export function runnerVariable(stack: string): string {
    return `RUNNER_${stack.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

export interface MatrixEntry {
    stack: string;
    /** JSON of the labels, for `runs-on: ${{ fromJSON(matrix.runner) }}`. */
    runner: string;
}

/** The labels a variable's value names (JSON, or one bare label), or `undefined`. */
function labelsOf(value: string): string | string[] | undefined {
    let parsed: unknown;
    try {
        parsed = JSON.parse(value);
    } catch {
        return /^[A-Za-z0-9_.-]+$/.test(value.trim()) ? value.trim() : undefined;
    }
    if (typeof parsed === "string" && parsed !== "") {
        return parsed;
    }
    if (Array.isArray(parsed) && parsed.length > 0 && parsed.every((l) => typeof l === "string" && l !== "")) {
        return parsed as string[];
    }
    return undefined;
}

/** Every stack of `root` with its runner; every problem named at once. */
export function runnerMatrix(root: string, vars: Readonly<Record<string, unknown>>): MatrixEntry[] {
    const problems: string[] = [];
    const matrix: MatrixEntry[] = [];
    for (const stack of stackNames(root)) {
        const variable = runnerVariable(stack);
        const value = vars[variable];
        if (value === undefined || value === "") {
            const endpoint = parseRawConfig(readStackFiles(root, stack).config, stack).cluster.endpoint;
            if (endpoint.githubHostedRunners) {
                matrix.push({ stack, runner: JSON.stringify(GITHUB_HOSTED_RUNNER) });
            } else {
                problems.push(
                    `stack ${stack}: repository variable ${variable} is not set, and the stack's endpoint does not admit GitHub's hosted runners (cluster.endpoint.githubHostedRunners): set ${variable} to the labels of a runner that reaches the endpoint, e.g. ["self-hosted","eks-deployer"] (docs/ci.md)`,
                );
            }
            continue;
        }
        const labels = typeof value === "string" ? labelsOf(value) : undefined;
        if (labels === undefined) {
            problems.push(
                `stack ${stack}: ${variable} must name runner labels: one label, or JSON (a string or an array of strings), not ${JSON.stringify(value)}`,
            );
            continue;
        }
        matrix.push({ stack, runner: JSON.stringify(labels) });
    }
    if (problems.length > 0) {
        throw new InputError(problems.join("\n"));
    }
    return matrix;
}

const USAGE = "usage: VARS='<toJSON(vars)>' npm run --silent runners";

/**
 * The command: its arguments (none), `VARS` (the workflow's `toJSON(vars)`) and the project
 * root in, the `matrix=…` line for `$GITHUB_OUTPUT` out. Bad input throws an `InputError`.
 */
export function runnersCommand(argv: readonly string[], varsJson: string | undefined, root: string): string {
    const { positionals } = parseCommandLine(argv, {}, USAGE);
    if (positionals.length > 0) {
        throw new InputError(`unexpected argument ${positionals[0]}\n${USAGE}`);
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
    return `matrix=${JSON.stringify(runnerMatrix(root, vars as Record<string, unknown>))}\n`;
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
