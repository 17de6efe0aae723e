/**
 * The offline plan's command: what `pulumi up` would create for a stack, rendered with no cloud,
 * no credentials and no Pulumi CLI, then judged by the policy pack.
 *
 *   npm run plan -- <stack> [--format text|json|markdown] [--analyzer] [--diff <git-ref>]
 *
 * The pack's policies run in this process, after the program has rendered (tools/gate/inProcessPack.ts:
 * the SDK's own handlers, no child process, no gRPC; the same verdicts, proved on both sample
 * stacks by test/tools/gate/inProcessPack.equivalence.test.ts). `--analyzer`, or a `@pulumi/policy`
 * release other than the one that module was verified on, runs the pack as its own process over
 * gRPC instead, as `pulumi preview --policy-pack` does; its boot overlaps rendering.
 *
 * With `--diff <git-ref>` it prints what changes against the stack as rendered at that ref
 * instead (tools/changes/diffStack.ts), skipping the policy gate.
 *
 * Exit codes: 0 ok, 1 a mandatory policy violation, 2 bad input (unknown stack, invalid config,
 * unknown option, unknown ref, a duplicate resource URN) or, with `--diff`, a change the engine or
 * AWS would refuse.
 */
import * as path from "path";
import { ConfigError } from "../../components/config";
import { PolicyPack, PolicyPackProcess } from "../gate/analyzer";
import { oneOf, parseCommandLine, runMain } from "../cli/cli";
import { diffCommand, PLAN_OPTIONS, PLAN_USAGE } from "../changes/diffStack";
import { InputError } from "../cli/errors";
import { InProcessPack, packInProcess } from "../gate/inProcessPack";
import { readStackFiles } from "./offline";
import { formatPlanMarkdown, formatPlanText } from "./planText";
import { summaryLine } from "../gate/report";
import { gatePlan, Plan, renderPlan } from "./stackPlan";

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
    const format = oneOf("--format", values.format, ["text", "json", "markdown"] as const);
    if (positionals.length !== 1) {
        throw new InputError(positionals.length === 0 ? USAGE : `one stack at a time, not ${positionals.join(", ")}\n${USAGE}`);
    }
    const [stack] = positionals;
    // npm runs scripts from the package root: the stack files and index.ts of the working directory.
    const root = process.cwd();
    const project = readStackFiles(root, stack).project;
    const packDir = path.join(root, "policies");
    // In its own process the pack boots while the program renders here, the two overlapping; in
    // this one it loads once the program has rendered (one thread does both either way).
    let pack: Promise<PolicyPack> | undefined = packInProcess(values.analyzer)
        ? undefined
        : PolicyPackProcess.start(packDir, { stack, project });
    pack?.catch(() => undefined);
    let rendered: { plan: Plan; gate: Awaited<ReturnType<typeof gatePlan>> };
    try {
        const plan = await renderPlan(stack, root);
        pack ??= InProcessPack.start(packDir);
        rendered = { plan, gate: await gatePlan(plan, project, packDir, pack) };
    } finally {
        // Closed before anything is printed: a pack in this process sends stdout to stderr while open.
        await pack?.then(
            (p) => p.close(),
            () => undefined,
        );
    }
    const { plan, gate } = rendered;
    const blocked = plan.violations.some((v) => v.level === "mandatory");
    if (format === "json") {
        // Stdout carries only the JSON; notes about the gate go to stderr, and so does the full
        // report when the gate fails, so whoever reads only stderr still learns why.
        process.stderr.write(blocked ? `${gate.text}\n` : gate.report.warnings.map((w) => `warning: ${w}\n`).join(""));
        process.stdout.write(`${JSON.stringify(plan)}\n`);
    } else if (format === "markdown") {
        // A job summary: the verdict and findings shown, the report and the resources folded.
        process.stdout.write(formatPlanMarkdown(plan, { summary: summaryLine(gate.report), text: gate.text }));
    } else {
        process.stdout.write(`${formatPlanText(plan)}\n\n${gate.text}\n`);
    }
    return blocked ? 1 : 0;
}

if (require.main === module) {
    runMain(main, [ConfigError]);
}
