/**
 * The offline plan's command: what `pulumi up` would create for a stack, rendered with no cloud,
 * no credentials and no Pulumi CLI, then judged by the policy pack.
 *
 *   npm run plan -- <stack> [--format text|json] [--diff <git-ref> [--format text|json|markdown]]
 *
 * With `--diff <git-ref>` it prints what changes against the stack as rendered at that ref
 * instead (tools/diffStack.ts), skipping the policy gate.
 *
 * Exit codes: 0 ok, 1 a mandatory policy violation, 2 bad input (unknown stack, invalid config,
 * unknown option, unknown ref, a duplicate resource URN) or, with `--diff`, a change the engine or
 * AWS would refuse.
 */
import * as path from "path";
import { ConfigError } from "../components/config";
import { PolicyPackProcess } from "./analyzer";
import { oneOf, parseCommandLine, runMain } from "./cli";
import { diffCommand, PLAN_OPTIONS, PLAN_USAGE } from "./diffStack";
import { InputError } from "./errors";
import { readStackFiles } from "./offline";
import { formatPlanText } from "./planText";
import { gatePlan, renderPlan } from "./stackPlan";

// What other modules and tests read as "the plan" (its JSON shape), named where the command is.
export type { Plan } from "./stackPlan";

const USAGE = PLAN_USAGE;

async function main(): Promise<number> {
    const argv = process.argv.slice(2);
    const { values, positionals } = parseCommandLine(argv, PLAN_OPTIONS, USAGE);
    if (values.diff !== undefined) {
        // npm runs scripts from the package root: the working tree is the working directory's.
        const { code, stdout } = await diffCommand(argv, { root: process.cwd() });
        process.stdout.write(stdout);
        return code;
    }
    const format = oneOf("--format", values.format, ["text", "json"] as const);
    if (positionals.length !== 1) {
        throw new InputError(positionals.length === 0 ? USAGE : `one stack at a time, not ${positionals.join(", ")}\n${USAGE}`);
    }
    const [stack] = positionals;
    // npm runs scripts from the package root: the stack files and index.ts of the working directory.
    const root = process.cwd();
    const project = readStackFiles(root, stack).project;
    const packDir = path.join(root, "policies");
    // The pack boots in its own process while the program renders here: the two overlap.
    const pack: Promise<PolicyPackProcess> = PolicyPackProcess.start(packDir, { stack, project });
    pack.catch(() => undefined);
    try {
        const plan = await renderPlan(stack, root);
        const gate = await gatePlan(plan, project, packDir, pack);
        const blocked = plan.violations.some((v) => v.level === "mandatory");
        if (format === "json") {
            // Stdout carries only the JSON; notes about the gate go to stderr, and so does the full
            // report when the gate fails, so whoever reads only stderr still learns why.
            process.stderr.write(blocked ? `${gate.text}\n` : gate.report.warnings.map((w) => `warning: ${w}\n`).join(""));
            process.stdout.write(`${JSON.stringify(plan)}\n`);
        } else {
            process.stdout.write(`${formatPlanText(plan)}\n\n${gate.text}\n`);
        }
        return blocked ? 1 : 0;
    } finally {
        void pack.then(
            (p) => p.close(),
            () => undefined,
        );
    }
}

if (require.main === module) {
    runMain(main, [ConfigError]);
}
