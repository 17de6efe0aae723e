/**
 * The policy pack's config, read as the Pulumi engine reads `--policy-pack-config` before it calls
 * the analyzer's Configure: the file (each key a policy name or `all`), schema defaults, the
 * pack's own levels, then each policy's properties checked against its `configSchema`.
 */
import * as fs from "fs";
import * as path from "path";
import { configProblems, problemList } from "eks-platform-kernel";
import * as YAML from "yaml";
import { GateInputError } from "../cli/errors";

export type EnforcementLevel = "advisory" | "mandatory" | "remediate" | "disabled";
export const LEVELS: readonly EnforcementLevel[] = ["advisory", "mandatory", "remediate", "disabled"];

/** One entry of a `--policy-pack-config` file, after parsing. */
export interface PolicyConfigEntry {
    enforcementLevel?: EnforcementLevel;
    properties?: Record<string, unknown>;
}

/** What the pack says about one of its policies (GetAnalyzerInfo). */
export interface PackPolicy {
    name: string;
    description: string;
    kind: "resource" | "stack";
    enforcementLevel: EnforcementLevel;
    configSchema?: { properties?: Record<string, Record<string, unknown>>; required?: string[] };
}

/** Effective config of one policy, as sent in Configure. */
export interface EffectivePolicyConfig {
    enforcementLevel: EnforcementLevel;
    properties: Record<string, unknown>;
}

function lineOfOffset(text: string, offset: number): number {
    return text.slice(0, offset).split("\n").length;
}

function invalid(file: string, problems: readonly string[]): GateInputError {
    return new GateInputError(problemList(`Invalid policy config ${file}`, problems));
}

/**
 * Parses a policy pack config file as `pulumi preview --policy-pack-config` does: each key is a
 * policy name (or `all`); its value is an enforcement level, or an object with an optional
 * `enforcementLevel` and the policy's config properties. Throws one error listing every problem.
 */
export function parsePolicyPackConfig(text: string, file: string): Record<string, PolicyConfigEntry> {
    if (text.trim() === "") {
        return {};
    }
    let raw: unknown;
    try {
        raw = JSON.parse(text);
    } catch (err) {
        const message = (err as Error).message.split("\n")[0];
        const pos = /position (\d+)/.exec(message);
        // V8 gives no position for an unexpected token; a JSON-schema YAML parse of the same text
        // locates the first error.
        const line = pos ? lineOfOffset(text, Number(pos[1])) : YAML.parseDocument(text, { schema: "json" }).errors[0]?.linePos?.[0].line;
        throw new GateInputError(`${file}${line ? `:${line}` : ""}: not valid JSON: ${message}`);
    }
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
        throw new GateInputError(`${file}: must be a JSON object keyed by policy name`);
    }
    const problems: string[] = [];
    const result: Record<string, PolicyConfigEntry> = {};
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
        if (typeof value === "string") {
            if (!LEVELS.includes(value as EnforcementLevel)) {
                problems.push(`${key}: "${value}" is not an enforcement level (one of ${LEVELS.join(", ")})`);
                continue;
            }
            result[key] = { enforcementLevel: value as EnforcementLevel };
        } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
            const { enforcementLevel, ...properties } = value as Record<string, unknown>;
            const entry: PolicyConfigEntry = {};
            if (enforcementLevel !== undefined) {
                if (typeof enforcementLevel !== "string" || !LEVELS.includes(enforcementLevel as EnforcementLevel)) {
                    problems.push(
                        `${key}.enforcementLevel: ${JSON.stringify(enforcementLevel)} is not an enforcement level (one of ${LEVELS.join(", ")})`,
                    );
                    continue;
                }
                entry.enforcementLevel = enforcementLevel as EnforcementLevel;
            }
            if (Object.keys(properties).length > 0) {
                entry.properties = properties;
            }
            if (entry.enforcementLevel || entry.properties) {
                result[key] = entry;
            }
        } else {
            problems.push(`${key}: must be an enforcement level or an object, not ${JSON.stringify(value)}`);
        }
    }
    if (problems.length > 0) {
        throw invalid(file, problems);
    }
    return result;
}

/** Every way each policy's properties break its `configSchema`, as `<policy>.<key>: <reason>`. */
function schemaProblems(policies: readonly PackPolicy[], config: Record<string, EffectivePolicyConfig>): string[] {
    return policies.flatMap((p) => configProblems(p.name, p.configSchema ?? {}, config[p.name].properties));
}

/**
 * Merges schema defaults, the pack's initial config and the file's config, then validates every
 * policy's properties against its schema — the engine's order. Keys naming no policy are kept (the
 * engine forwards them too) and returned as warnings, since a typo there silently configures nothing.
 */
export function reconcilePolicyConfig(
    policies: readonly PackPolicy[],
    initial: Record<string, PolicyConfigEntry>,
    config: Record<string, PolicyConfigEntry>,
    file: string,
): { config: Record<string, EffectivePolicyConfig>; warnings: string[] } {
    const result: Record<string, EffectivePolicyConfig> = {};
    for (const p of policies) {
        const defaults: Record<string, unknown> = {};
        for (const [k, schema] of Object.entries(p.configSchema?.properties ?? {})) {
            if ("default" in schema) {
                defaults[k] = schema.default;
            }
        }
        result[p.name] = { enforcementLevel: p.enforcementLevel, properties: defaults };
    }
    const apply = (layer: Record<string, PolicyConfigEntry>) => {
        const all = layer.all?.enforcementLevel;
        if (all) {
            for (const name of Object.keys(result)) {
                result[name] = { ...result[name], enforcementLevel: all };
            }
        }
        for (const [name, given] of Object.entries(layer)) {
            const current = result[name] ?? { enforcementLevel: "advisory", properties: {} };
            result[name] = {
                enforcementLevel: given.enforcementLevel ?? current.enforcementLevel,
                properties: { ...current.properties, ...(given.properties ?? {}) },
            };
        }
    };
    apply(initial);
    apply(config);

    const known = new Set(policies.map((p) => p.name));
    const warnings = Object.keys(config)
        .filter((k) => k !== "all" && !known.has(k))
        .map((k) => `${file}: "${k}" names no policy of this pack; its config has no effect`);

    const problems = schemaProblems(policies, result);
    if (problems.length > 0) {
        throw invalid(file, problems);
    }
    return { config: result, warnings };
}

/** Reads a config file; a missing file is an error, as for `--policy-pack-config`. */
export function loadPolicyPackConfig(file: string): Record<string, PolicyConfigEntry> {
    if (!fs.existsSync(file)) {
        throw new GateInputError(`${file}: policy config file not found`);
    }
    return parsePolicyPackConfig(fs.readFileSync(file, "utf8"), file);
}

/**
 * The config file of an environment, `<pack>/config/<env>.json`. A pack with a `config/` directory
 * but no file for `env` is an input error naming the environments it has (a misspelt `--env`, or a
 * new stack whose policy config was not added: `pulumi preview --policy-pack-config` would fail
 * too). A pack without `config/` runs with its own levels and defaults, as `pulumi preview
 * --policy-pack` does without `--policy-pack-config`, and says so.
 */
export function environmentConfig(packDir: string, env: string): { file?: string; warnings: string[] } {
    const dir = path.join(packDir, "config");
    const file = path.join(dir, `${env}.json`);
    const shown = path.relative(process.cwd(), file) || file;
    if (fs.existsSync(file)) {
        return { file, warnings: [] };
    }
    if (fs.existsSync(dir)) {
        const known = fs
            .readdirSync(dir)
            .filter((f) => f.endsWith(".json"))
            .map((f) => f.slice(0, -".json".length))
            .sort();
        throw new GateInputError(
            `${shown} not found: no policy config for environment "${env}" (have: ${known.join(", ") || "none"}); add the file or pick one of those`,
        );
    }
    return { warnings: [`${shown} not found: the pack's own enforcement levels and defaults apply`] };
}

/**
 * The knobs an environment's stack decides for the manifest gate, where the pack sits in the
 * platform repository beside `Pulumi.<env>.yaml`: `api-versions-served.kubernetesVersion` is the
 * stack's `cluster.version` (its one home), so plain manifests checked with `--env <stack>` are
 * judged against the version that stack runs. Empty for a pack outside such a repository, or a
 * stack file that names no version.
 */
export function stackDerivedConfig(packDir: string, env: string): Record<string, Record<string, unknown>> {
    const root = path.dirname(path.resolve(packDir));
    const read = (file: string): Record<string, unknown> | undefined => {
        try {
            const value: unknown = YAML.parse(fs.readFileSync(path.join(root, file), "utf8"));
            return value && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
        } catch {
            return undefined;
        }
    };
    const project = read("Pulumi.yaml")?.name;
    const config = read(`Pulumi.${env}.yaml`)?.config as Record<string, unknown> | undefined;
    const cluster = typeof project === "string" ? (config?.[`${project}:cluster`] as Record<string, unknown> | undefined) : undefined;
    const version = cluster?.version;
    return typeof version === "string" && version !== "" ? { "api-versions-served": { kubernetesVersion: version } } : {};
}
