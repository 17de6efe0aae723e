/**
 * Writes the policy tables of README.md and docs/policies.md from the policies' declarations and
 * the environment files (tools/policyTables.ts), and the platform profile's JSON Schema
 * (schemas/platform-profile.schema.json, from tools/platformProfile.ts). Run it after adding or
 * changing a policy or the profile's shape:
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
import { profileJsonSchema } from "./platformProfile";
import { declarationsOf, policyTables } from "./policyTables";

/** Where the platform profile's JSON Schema is published (generated from its zod schema). */
export const PROFILE_SCHEMA_FILE = "schemas/platform-profile.schema.json";

/** The schema file's text as `npm run docs` writes it. */
export function profileSchemaText(): string {
    return `${JSON.stringify(profileJsonSchema(), null, 2)}\n`;
}

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
    const schemaFile = path.join(root, PROFILE_SCHEMA_FILE);
    const schema = profileSchemaText();
    const current = fs.existsSync(schemaFile) ? fs.readFileSync(schemaFile, "utf8") : undefined;
    if (current !== schema) {
        fs.mkdirSync(path.dirname(schemaFile), { recursive: true });
        fs.writeFileSync(schemaFile, schema);
    }
    process.stdout.write(`${PROFILE_SCHEMA_FILE}: ${current === schema ? "up to date" : "written"}\n`);
    return 0;
}

// Synchronous work, run inside a promise so that bad input reaches runMain as a rejection.
const main = (): Promise<number> => new Promise((resolve) => resolve(run()));

if (require.main === module) {
    runMain(main);
}
