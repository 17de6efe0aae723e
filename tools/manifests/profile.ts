/**
 * `npm run profile -- <stack> [--out FILE]`: the stack's platform profile (tools/manifests/platformProfile.ts),
 * the JSON document application repositories judge their manifests against
 * (`npm run policy:check -- --platform FILE`, `npm run drain -- --platform FILE`). Rendered offline
 * from the same program as the plan; the deploy workflow publishes it after a successful `up`.
 *
 * Exit codes: 0 written, 2 bad input (unknown stack, invalid config, unknown option).
 */
import * as fs from "fs";
import { ConfigError } from "../../components/config";
import { parseCommandLine, runMain } from "../cli/cli";
import { InputError } from "../cli/errors";
import { buildProfile } from "./platformProfile";

const USAGE = "usage: npm run profile -- <stack> [--out FILE]";

async function main(): Promise<number> {
    const { values, positionals } = parseCommandLine(process.argv.slice(2), { out: { type: "string" } }, USAGE);
    if (positionals.length !== 1) {
        throw new InputError(positionals.length === 0 ? USAGE : `one stack at a time, not ${positionals.join(", ")}\n${USAGE}`);
    }
    const profile = await buildProfile(positionals[0], process.cwd());
    const text = `${JSON.stringify(profile, null, 2)}\n`;
    if (values.out !== undefined) {
        fs.writeFileSync(values.out, text);
        process.stderr.write(
            `${values.out}: platform profile of stack ${profile.stack} (${profile.nodeGroups.length} node groups and pools, ${profile.namespaces.length} namespaces, ${profile.context.length} context resources)\n`,
        );
    } else {
        process.stdout.write(text);
    }
    return 0;
}

if (require.main === module) {
    runMain(main, [ConfigError]);
}
