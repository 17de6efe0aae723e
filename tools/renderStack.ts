/**
 * Renders one stack of one program tree in `diff` mode and prints its resources as JSON: the child
 * process the diff runs once per side, so each side loads its own program (an old commit's code
 * and stack file, or the working tree's) into a fresh runtime.
 *
 *   node -r ts-node/register/transpile-only tools/renderStack.ts <root> <stack>
 *
 * Exit codes: 0 rendered, 2 the stack cannot be rendered (its config, stack file, or program).
 */
import * as path from "path";
import { runMain } from "./cli";
import { runProgram } from "./offline";

async function main(): Promise<number> {
    const [root, stack] = process.argv.slice(2);
    if (!root || !stack) {
        process.stderr.write("usage: renderStack.ts <root> <stack>\n");
        return 2;
    }
    try {
        const run = await runProgram(root, stack, path.join(root, "index.ts"), "diff");
        process.stdout.write(`${JSON.stringify(run.resources)}\n`);
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
