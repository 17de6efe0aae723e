/**
 * Writes each stack's policy config, policies/config/<stack>.json, from the table of levels
 * (policies/config/levels.ts, tools/docs/policyConfigs.ts), then the policy tables of README.md and
 * docs/policies.md from the policies' declarations and those files (tools/docs/policyTables.ts),
 * the platform profile's JSON Schema (schemas/platform-profile.schema.json, from
 * tools/manifests/platformProfile.ts), and the deploy role's policy and permissions boundary
 * docs/roles.md embeds (tools/roles/deployRole.ts). Run it after adding or changing a policy or its
 * levels, adding a stack, or changing the profile's shape or what a stack creates:
 *
 *   npm run docs
 *
 * Exit codes: 0 written (or already current), 2 a file without its table markers, or a table of
 * levels with a hole (a policy without a level for a tier, a stack without a tier).
 */
import * as fs from "fs";
import * as path from "path";
import { policies } from "eks-platform-policies";
import { parseCommandLine, runMain } from "../cli/cli";
import { deployerContext, embeddedStacks, embedPolicies, stackPolicy, withAccountPlaceholder } from "../roles/deployRole";
import { renderInChild } from "../changes/diffStack";
import { InputError } from "../cli/errors";
import { profileJsonSchema } from "../manifests/platformProfile";
import { policyConfigFiles } from "./policyConfigs";
import { declarationsOf, policyTables } from "./policyTables";

/** Where the platform profile's JSON Schema is published (generated from its zod schema). */
export const PROFILE_SCHEMA_FILE = "schemas/platform-profile.schema.json";

/** The schema file's text as `npm run docs` writes it. */
export function profileSchemaText(): string {
    return `${JSON.stringify(profileJsonSchema(), null, 2)}\n`;
}

const USAGE = "usage: npm run docs";

/** The roles guide (step 3 of docs/bootstrap.md), with the policies of each stack it embeds. */
export const ROLES_GUIDE = "docs/roles.md";

/**
 * docs/roles.md with the policies it embeds as the generator writes them (each stack rendered in a
 * process of its own), the stack's own account id shown as `<account>`.
 */
export async function rolesGuideText(root: string): Promise<{ current: string; generated: string }> {
    const current = fs.readFileSync(path.join(root, ROLES_GUIDE), "utf8");
    const plans = new Map<string, Awaited<ReturnType<typeof renderInChild>>>();
    for (const stack of embeddedStacks(current)) {
        plans.set(stack, await renderInChild(root, stack, "the working tree"));
    }
    const generated = embedPolicies(current, (stack, kind) => {
        const ctx = deployerContext(root, stack);
        const plan = plans.get(stack) ?? [];
        return withAccountPlaceholder(stackPolicy(kind, plan, ctx), ctx.account);
    });
    return { current, generated };
}

async function run(): Promise<number> {
    const { positionals } = parseCommandLine(process.argv.slice(2), {}, USAGE);
    if (positionals.length > 0) {
        throw new InputError(`unexpected argument ${positionals[0]}\n${USAGE}`);
    }
    const root = process.cwd();
    const policyNames = policies.map((p) => p.name);
    // The files first: the policy tables below read them.
    for (const { file, current, generated } of policyConfigFiles(root, policyNames)) {
        if (generated !== current) {
            fs.writeFileSync(path.join(root, file), generated);
        }
        process.stdout.write(`${file}: ${generated === current ? "up to date" : "written"}\n`);
    }
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
    const guide = await rolesGuideText(root);
    if (guide.generated !== guide.current) {
        fs.writeFileSync(path.join(root, ROLES_GUIDE), guide.generated);
    }
    process.stdout.write(`${ROLES_GUIDE}: ${guide.generated === guide.current ? "up to date" : "policies written"}\n`);
    return 0;
}

const main = (): Promise<number> => run();

if (require.main === module) {
    runMain(main);
}
