/**
 * `npm run preflight -- <stack> [--format text|json]`: the facts only the account can answer,
 * checked with read-only AWS calls before `up` (tools/preflight/preflightChecks.ts): the caller, the add-on
 * builds and their configuration schemas, the AMI releases, instance offerings in the stack's zones,
 * Service Quotas, service-linked roles, the Transit Gateway. Credentials come from the SDK's
 * default chain (the CI job's role: the preview role in a pull request, the deploy role before
 * `up`); the region from the stack file.
 *
 * Exit codes: 0 nothing failed (undecided checks are listed, never fail a run), 1 a check failed,
 * 2 bad input (unknown stack, bad config).
 */
import { ConfigError, parseRawConfig } from "../../components/config";
import { oneOf, parseCommandLine, runMain } from "../cli/cli";
import { deployerContext, type PlannedResource, plannedResources } from "../roles/deployRole";
import { InputError } from "../cli/errors";
import { readStackFiles } from "../render/offline";
import { type AwsClients, awsClients, type Finding, runPreflight } from "./preflightChecks";

const USAGE = "usage: npm run preflight -- <stack> [--format text|json]";

const MARK: Readonly<Record<Finding["verdict"], string>> = { pass: "ok  ", fail: "FAIL", undecided: "??  " };

/** The findings as text: one line each, failures with their key and fix; a summary line first. */
export function formatPreflight(stack: string, findings: readonly Finding[]): string {
    const count = (v: Finding["verdict"]) => findings.filter((f) => f.verdict === v).length;
    const lines = [`Preflight of stack "${stack}": ${count("fail")} failed, ${count("undecided")} undecided, ${count("pass")} passed`];
    for (const f of findings) {
        lines.push(`  ${MARK[f.verdict]} ${f.check}${f.key ? ` [${f.key}]` : ""}: ${f.message}`);
        if (f.verdict === "fail" && f.fix) {
            lines.push(`         Fix: ${f.fix}`);
        }
    }
    return `${lines.join("\n")}\n`;
}

export interface PreflightCommandEnv {
    root?: string;
    /** The plan of a stack (default: rendered by the program). */
    render?: (stack: string) => Promise<PlannedResource[]>;
    /** AWS clients for a region (default: the SDK's, default credential chain). */
    clients?: (region: string) => AwsClients;
}

/** The command, in process: its exit code and what it prints. */
export async function preflightCommand(argv: readonly string[], env: PreflightCommandEnv = {}): Promise<{ code: number; stdout: string }> {
    const { values, positionals } = parseCommandLine(argv, { format: { type: "string", default: "text" } }, USAGE);
    if (positionals.length !== 1) {
        throw new InputError(USAGE);
    }
    const format = oneOf("--format", values.format, ["text", "json"] as const);
    const [stack] = positionals;
    const root = env.root ?? process.cwd();
    const config = parseRawConfig(readStackFiles(root, stack).config, stack);
    const plan = await (env.render ?? ((s) => plannedResources(root, s)))(stack);
    const findings = await runPreflight({ config, plan, deploy: deployerContext(root, stack) }, (env.clients ?? awsClients)(config.region));
    const code = findings.some((f) => f.verdict === "fail") ? 1 : 0;
    return { code, stdout: format === "json" ? `${JSON.stringify({ stack, findings }, null, 2)}\n` : formatPreflight(stack, findings) };
}

if (require.main === module) {
    runMain(async () => {
        const { code, stdout } = await preflightCommand(process.argv.slice(2));
        process.stdout.write(stdout);
        return code;
    }, [ConfigError]);
}
