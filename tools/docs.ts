/**
 * Writes the policy tables of README.md and docs/policies.md from the policies' declarations and
 * the environment files (tools/policyTables.ts). Run it after adding or changing a policy:
 *
 *   npm run docs
 *
 * Exit codes: 0 written (or already current), 2 a file without its table markers.
 */
import * as fs from "fs";
import * as path from "path";
import { policies } from "eks-platform-policies";
import { parseCommandLine, runMain } from "./cli";
import { InputError } from "./errors";
import { declarationsOf, policyTables } from "./policyTables";

const USAGE = "usage: npm run docs";

function run(): number {
    const { positionals } = parseCommandLine(process.argv.slice(2), {}, USAGE);
    if (positionals.length > 0) {
        throw new InputError(`unexpected argument ${positionals[0]}\n${USAGE}`);
    }
    const root = process.cwd();
    for (const { file, current, generated } of policyTables(root, declarationsOf(policies))) {
        if (generated !== current) {
            fs.writeFileSync(path.join(root, file), generated);
        }
        process.stdout.write(`${file}: ${generated === current ? "up to date" : "table written"}\n`);
    }
    return 0;
}

// Synchronous work, run inside a promise so that bad input reaches runMain as a rejection.
const main = (): Promise<number> => new Promise((resolve) => resolve(run()));

if (require.main === module) {
    runMain(main);
}
