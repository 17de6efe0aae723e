/**
 * The policy tables of README.md and docs/policies.md, generated: each row from the policy's
 * declaration (name, kind, default level, docs text, knobs with their defaults and notes), each
 * environment column from `policies/config/<env>.json` (the level there, and knob values that
 * differ from the defaults), which `npm run docs` writes first from `policies/config/levels.ts`
 * (policyConfigs.ts). `npm run docs` writes them between the markers; a test fails while
 * a committed table differs from what this generates, so the text has one home: the declaration.
 */
import * as fs from "fs";
import * as path from "path";
import { isDeepStrictEqual } from "node:util";
import { listOf } from "eks-platform-kernel";
import { declarationOf, PolicyDeclaration } from "eks-platform-policies";
import { InputError } from "../cli/errors";
import { headCommit, originWebUrl } from "../cli/refTree";
import { EffectivePolicyConfig, EnforcementLevel, PackPolicy, parsePolicyPackConfig, reconcilePolicyConfig } from "../gate/policyConfig";

/** The anchor of a policy's entry in docs/policies.md (an HTML anchor: table rows have none of their own). */
export function policyAnchor(name: string): string {
    return `policy-${name}`;
}

/** docs/policies.md in the repository's own words, as its reader finds it. */
export const POLICY_DOCS = "docs/policies.md";

/**
 * The web address of docs/policies.md at the commit the gate runs from, for SARIF's `helpUri`:
 * `override` (`--docs-url`) when given, else the `origin` remote and HEAD of `root`; `null`
 * when neither is known (then the rules carry their help text only).
 */
export function policyDocsUrl(root: string, override?: string): string | null {
    if (override !== undefined) {
        return override;
    }
    const web = originWebUrl(root);
    const commit = headCommit(root);
    return web && commit ? `${web}/blob/${commit}/${POLICY_DOCS}` : null;
}

/** One environment's effective policy config, as `pulumi preview --policy-pack-config` reads it. */
export interface Environment {
    name: string;
    config: Record<string, EffectivePolicyConfig>;
}

/** The declarations of `policies`, in order; a policy that was not declared is a defect. */
export function declarationsOf(policies: readonly object[]): PolicyDeclaration[] {
    return policies.map((p) => {
        const d = declarationOf(p);
        if (!d) {
            throw new Error(`policy ${(p as { name?: string }).name ?? "?"} was not made by declareResourcePolicy or declareStackPolicy`);
        }
        return d;
    });
}

/** A declaration as the analyzer describes it to the engine (GetAnalyzerInfo). */
export function packPolicyOf(d: PolicyDeclaration): PackPolicy {
    const knobs = Object.keys(d.knobs).length > 0;
    return {
        name: d.name,
        description: d.description,
        kind: d.kind,
        enforcementLevel: d.enforcementLevel,
        ...(knobs ? { configSchema: { properties: Object.fromEntries(Object.entries(d.knobs).map(([k, v]) => [k, { ...v }])) } } : {}),
    };
}

/** Every `<env>.json` of `configDir`, by name, reconciled with the pack as the CLI does. */
export function readEnvironments(configDir: string, declarations: readonly PolicyDeclaration[]): Environment[] {
    const pack = declarations.map(packPolicyOf);
    return fs
        .readdirSync(configDir)
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => {
            const file = path.join(configDir, f);
            const parsed = parsePolicyPackConfig(fs.readFileSync(file, "utf8"), file);
            return { name: f.slice(0, -".json".length), config: reconcilePolicyConfig(pack, {}, parsed, file).config };
        });
}

const LETTER: Record<EnforcementLevel, string> = { mandatory: "M", advisory: "A", remediate: "R", disabled: "off" };

/** A knob value in a table: a non-empty string as itself, anything else as the JSON a config file takes. */
function shown(value: unknown): string {
    return `\`${typeof value === "string" && value !== "" ? value : JSON.stringify(value)}\``;
}

/** `key` (default; the environments that set another value; a note) for each knob, or `—`. */
function knobsCell(d: PolicyDeclaration, environments: readonly Environment[]): string {
    const keys = Object.keys(d.knobs);
    if (keys.length === 0) {
        return "—";
    }
    return keys
        .map((key) => {
            const knob = d.knobs[key];
            // Environments grouped by the value they set, where it is not the default.
            const byValue = new Map<string, string[]>();
            for (const env of environments) {
                const value = env.config[d.name]?.properties[key];
                if (value !== undefined && !isDeepStrictEqual(value, knob.default)) {
                    const json = JSON.stringify(value);
                    byValue.set(json, [...(byValue.get(json) ?? []), env.name]);
                }
            }
            const parts = [
                shown(knob.default),
                ...[...byValue].map(([json, names]) => `${listOf(names, "and")} ${shown(JSON.parse(json))}`),
                ...(d.docs.knobs?.[key] ? [d.docs.knobs[key]] : []),
            ];
            return `\`${key}\` (${parts.join("; ")})`;
        })
        .join(", ");
}

function row(cells: readonly string[]): string {
    return `| ${cells.join(" | ")} |`;
}

function levels(d: PolicyDeclaration, environments: readonly Environment[]): string[] {
    return environments.map((env) => LETTER[env.config[d.name]?.enforcementLevel ?? d.enforcementLevel]);
}

/** README.md's table: what each policy requires, its level per environment, its knobs. */
export function readmeTable(declarations: readonly PolicyDeclaration[], environments: readonly Environment[]): string {
    const header = ["policy", "requires", ...environments.map((e) => e.name), "knobs (default)"];
    return [
        row(header),
        `|${header.map(() => "---|").join("")}`,
        ...declarations.map((d) => row([`\`${d.name}\``, d.docs.requires, ...levels(d, environments), knobsCell(d, environments)])),
    ].join("\n");
}

/** docs/policies.md's table: kind, what each policy checks in full, default and per-environment levels, knobs with notes. */
export function referenceTable(declarations: readonly PolicyDeclaration[], environments: readonly Environment[]): string {
    const header = ["policy", "kind", "checks", "default", ...environments.map((e) => e.name), "config knobs (default)"];
    return [
        row(header),
        row(header.map(() => "---")),
        ...declarations.map((d) =>
            row([
                `<a id="${policyAnchor(d.name)}"></a>\`${d.name}\``,
                d.kind,
                d.docs.checks,
                LETTER[d.enforcementLevel],
                ...levels(d, environments),
                knobsCell(d, environments),
            ]),
        ),
    ].join("\n");
}

export const TABLE_BEGIN =
    "<!-- policy table: generated by `npm run docs` from each policy's declaration (policies/<module>.ts) and its levels (policies/config/levels.ts); edit those, not this table -->";
export const TABLE_END = "<!-- end of generated policy table -->";

/** `markdown` with the table between its markers replaced by `table`. */
export function withTable(markdown: string, table: string, file: string): string {
    const start = markdown.indexOf(TABLE_BEGIN);
    const end = markdown.indexOf(TABLE_END);
    if (start < 0 || end < start) {
        throw new InputError(`${file}: no generated policy table (the lines ${TABLE_BEGIN} and ${TABLE_END})`);
    }
    return `${markdown.slice(0, start + TABLE_BEGIN.length)}\n\n${table}\n\n${markdown.slice(end)}`;
}

/** Each documentation file holding a policy table, with the table it should hold. */
export function policyTables(
    root: string,
    declarations: readonly PolicyDeclaration[],
): { file: string; current: string; generated: string }[] {
    const environments = readEnvironments(path.join(root, "policies", "config"), declarations);
    return [
        { file: "README.md", table: readmeTable(declarations, environments) },
        { file: POLICY_DOCS, table: referenceTable(declarations, environments) },
    ].map(({ file, table }) => {
        const current = fs.readFileSync(path.join(root, file), "utf8");
        return { file, current, generated: withTable(current, table, file) };
    });
}
