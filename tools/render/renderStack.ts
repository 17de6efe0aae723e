/**
 * Renders one stack of one program tree in `diff` mode and prints its resources as JSON, with the
 * stack's role policies as that tree's own generator writes them (`roles`, tools/roles/deployRole.ts;
 * the reason instead when that tree cannot generate them): the child process the diff runs once
 * per side, so each side loads its own program (an old commit's code and stack file, or the
 * working tree's) into a fresh runtime, and a change to the generator counts as much as one to
 * the stack.
 *
 *   node -r ts-node/register/transpile-only tools/render/renderStack.ts <root> <stack>
 *
 * Exit codes: 0 rendered, 2 the stack cannot be rendered (its config, stack file, or program).
 */
import * as fs from "fs";
import * as path from "path";
import { runMain } from "../cli/cli";
import { runProgram } from "./offline";

/** The policies of each kind the tree at `root` generates for `stack`, or why it cannot. */
function stackRoles(root: string, stack: string, resources: readonly unknown[]): Record<string, unknown> | { error: string } {
    const kinds = ["deploy", "boundary", "drift", "preview"];
    try {
        // The tree's own generator (an old commit's too): what was applied came from it. Where that
        // tree keeps it: tools/roles/ since the tools were grouped by product, tools/ before.
        const file = ["roles/deployRole.ts", "deployRole.ts"].map((f) => path.join(root, "tools", f)).find((f) => fs.existsSync(f));
        if (file === undefined) {
            return { error: "it has no tools/roles/deployRole.ts (nor tools/deployRole.ts)" };
        }
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const generator = require(file) as Record<string, unknown>;
        const { deployerContext, stackPolicy } = generator;
        if (typeof deployerContext !== "function" || typeof stackPolicy !== "function") {
            return { error: `its ${path.relative(root, file)} has no deployerContext and stackPolicy` };
        }
        const context = deployerContext as (root: string, stack: string) => unknown;
        const policy = stackPolicy as (kind: string, plan: readonly unknown[], ctx: unknown) => unknown;
        const ctx = context(root, stack);
        return Object.fromEntries(kinds.map((kind) => [kind, policy(kind, resources, ctx)]));
    } catch (err) {
        return { error: err instanceof Error ? err.message : String(err) };
    }
}

async function main(): Promise<number> {
    const [root, stack] = process.argv.slice(2);
    if (!root || !stack) {
        process.stderr.write("usage: renderStack.ts <root> <stack>\n");
        return 2;
    }
    try {
        const run = await runProgram(root, stack, path.join(root, "index.ts"), "diff");
        process.stdout.write(`${JSON.stringify({ resources: run.resources, roles: stackRoles(root, stack, run.resources) })}\n`);
        return 0;
    } catch (err) {
        // The program's own error classes come from its tree (an old commit's included): report
        // the message, whatever the class.
        process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
        return 2;
    }
}

if (require.main === module) {
    runMain(main);
}
