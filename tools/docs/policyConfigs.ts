/**
 * The `--policy-pack-config` file of each stack, `policies/config/<stack>.json`, generated from the
 * one table of levels (`policies/config/levels.ts`): the column of the stack's tier, one key per
 * policy in the order the pack registers them, each cell as the table writes it. `npm run docs`
 * writes them (before the policy tables, which read them); a test fails while a file differs,
 * naming the command. The files stay because the CLI reads a file per stack (`pulumi preview
 * --policy-pack-config policies/config/<stack>.json`, in CI and by hand); the table is where a
 * policy's levels are written, once for every environment.
 */
import * as fs from "fs";
import * as path from "path";
import { listOf, problemList } from "eks-platform-kernel";
import { POLICY_LEVELS, STACK_TIERS, TIERS } from "eks-platform-policies";
import { InputError } from "../cli/errors";
import { LEVELS } from "../gate/policyConfig";
import { stackNames } from "../render/offline";

/** Where the table is, as messages name it. */
export const LEVELS_FILE = "policies/config/levels.ts";

/** Where the generated files are, relative to the repository root. */
export const CONFIG_DIR = "policies/config";

/** The table as the generator reads it: untyped, as a fork's JavaScript or a cast may leave it. */
export interface LevelTable {
    tiers: readonly string[];
    /** The tier of each stack. */
    stacks: Readonly<Record<string, string>>;
    /** Each policy's setting per tier. */
    levels: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** The repository's table. */
export const LEVEL_TABLE: LevelTable = { tiers: TIERS, stacks: STACK_TIERS, levels: POLICY_LEVELS };

/** Whether `value` is a level, or an object with a level and knobs (the form a tier's cell takes). */
function isSetting(value: unknown): boolean {
    if (typeof value === "string") {
        return (LEVELS as readonly string[]).includes(value);
    }
    const level =
        value !== null && typeof value === "object" && !Array.isArray(value)
            ? (value as Record<string, unknown>).enforcementLevel
            : undefined;
    return typeof level === "string" && (LEVELS as readonly string[]).includes(level);
}

/**
 * Every hole and stray of the table, one line each; empty when each of `policies` (the pack's
 * names, in order) has a setting in every tier and each of `stacks` (the repository's
 * `Pulumi.<stack>.yaml`) has a tier. Pure.
 */
export function levelTableProblems(table: LevelTable, policies: readonly string[], stacks: readonly string[]): string[] {
    const problems: string[] = [];
    const tiers = listOf([...table.tiers], "and");
    for (const name of policies) {
        for (const tier of table.tiers) {
            const setting = table.levels[name]?.[tier];
            if (setting === undefined) {
                problems.push(`${name}: no level for environment ${tier} in ${LEVELS_FILE}`);
            } else if (!isSetting(setting)) {
                problems.push(
                    `${name}: ${tier}: ${JSON.stringify(setting)} is neither a level (${LEVELS.join(", ")}) nor an object with enforcementLevel and knobs`,
                );
            }
        }
    }
    for (const [name, row] of Object.entries(table.levels)) {
        if (!policies.includes(name)) {
            problems.push(`${LEVELS_FILE}: ${name} names no policy of the pack`);
        }
        for (const tier of Object.keys(row).filter((t) => !table.tiers.includes(t))) {
            problems.push(`${LEVELS_FILE}: ${name}.${tier}: ${tier} is not a tier (TIERS: ${tiers})`);
        }
    }
    for (const stack of stacks.filter((s) => table.stacks[s] === undefined)) {
        problems.push(
            `stack ${stack}: no tier in STACK_TIERS (${LEVELS_FILE}), so no ${CONFIG_DIR}/${stack}.json: add "${stack}": "<tier>"`,
        );
    }
    for (const [stack, tier] of Object.entries(table.stacks)) {
        if (!table.tiers.includes(tier)) {
            problems.push(`${LEVELS_FILE}: STACK_TIERS gives stack ${stack} the tier ${tier}, not one of TIERS (${tiers})`);
        }
        if (!stacks.includes(stack)) {
            problems.push(`${LEVELS_FILE}: STACK_TIERS names stack ${stack}, which has no Pulumi.${stack}.yaml`);
        }
    }
    return problems;
}

/** A stack's `--policy-pack-config`: its tier's setting of each of `policies`, in their order. Pure. */
export function stackPolicyConfig(table: LevelTable, policies: readonly string[], stack: string): Record<string, unknown> {
    const tier = table.stacks[stack];
    return Object.fromEntries(policies.map((name) => [name, table.levels[name]?.[tier]]));
}

/** A file as `npm run docs` writes it (JSON.stringify's layout, so the file is in .prettierignore). */
export function policyConfigText(config: Record<string, unknown>): string {
    return `${JSON.stringify(config, null, 2)}\n`;
}

/** A generated file: its path from the repository root, what the repository holds (if anything), what the table makes. */
export interface GeneratedFile {
    file: string;
    current: string | undefined;
    generated: string;
}

/**
 * The file of each stack the table gives a tier, beside what `root` holds. A table with a hole or a
 * stray is an input error listing every problem: no file is written from it.
 */
export function policyConfigFiles(root: string, policies: readonly string[], table: LevelTable = LEVEL_TABLE): GeneratedFile[] {
    const problems = levelTableProblems(table, policies, stackNames(root));
    if (problems.length > 0) {
        throw new InputError(problemList(`${LEVELS_FILE} cannot make the policy configs`, problems));
    }
    return Object.keys(table.stacks)
        .sort()
        .map((stack) => {
            const file = `${CONFIG_DIR}/${stack}.json`;
            const full = path.join(root, file);
            return {
                file,
                current: fs.existsSync(full) ? fs.readFileSync(full, "utf8") : undefined,
                generated: policyConfigText(stackPolicyConfig(table, policies, stack)),
            };
        });
}

/**
 * What `npm run docs` would change, or a stray file it does not make, one line each with what
 * fixes it; empty when the files are the table's.
 */
export function staleConfigProblems(root: string, files: readonly GeneratedFile[]): string[] {
    const problems = files
        .filter((f) => f.current !== f.generated)
        .map((f) =>
            f.current === undefined
                ? `${f.file} is missing: run \`npm run docs\``
                : `${f.file} is not what ${LEVELS_FILE} makes: run \`npm run docs\` (edit the table, not the file)`,
        );
    const made = new Set(files.map((f) => f.file));
    const dir = path.join(root, CONFIG_DIR);
    const present = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".json")) : [];
    for (const f of present.sort()) {
        if (!made.has(`${CONFIG_DIR}/${f}`)) {
            const stack = f.slice(0, -".json".length);
            problems.push(
                `${CONFIG_DIR}/${f}: no stack ${stack} in STACK_TIERS (${LEVELS_FILE}): add it there and run \`npm run docs\`, or delete the file`,
            );
        }
    }
    return problems;
}
