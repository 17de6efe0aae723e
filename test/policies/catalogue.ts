/**
 * Everything a policy needs besides its module, checked in one place: a declaration with a
 * kebab-case name, a one-sentence description, docs text for both tables, knobs each with a type,
 * a default and a description; its const exported by name from its own line of policies.ts, in
 * the registry's order; a level for every environment tier in the table of levels
 * (policies/config/levels.ts, read by `levelTableProblems`); a suite in suites.ts. Pure, so a
 * test can feed it a catalogue missing a part and see it fail.
 */
import { declarationOf, PolicyDeclaration } from "eks-platform-policies";
import { type LevelTable, levelTableProblems } from "../../tools/docs/policyConfigs";

export interface Catalogue {
    /** The registry (`policies`). */
    policies: readonly object[];
    /** The named exports of `eks-platform-policies`. */
    exports: Readonly<Record<string, unknown>>;
    /** The modules of policies.ts's `export *` lines, in order. */
    modules: readonly string[];
    /** The table of each policy's level per environment tier, and each stack's tier. */
    levels: LevelTable;
    /** The stacks of the repository (`Pulumi.<stack>.yaml`): each needs a tier. */
    stacks: readonly string[];
    /** The policy names test/policies/suites.ts has a suite for. */
    suites: readonly string[];
    /** How a policy's declaration is found; `declarationOf` unless a test stands in for it. */
    declarations?: (policy: object) => PolicyDeclaration | undefined;
}

const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)+$/;
const SENTENCE = /^[A-Z][^\n]{20,}\.$/;

/** The modules of `export * from "./<module>";` lines, in order. */
export function exportedModules(source: string): string[] {
    return [...source.matchAll(/^export \* from "\.\/(\w+)";$/gm)].map((m) => m[1]);
}

function isPolicyShaped(value: unknown): value is { name: string } {
    const v = value as { name?: unknown; validateResource?: unknown; validateStack?: unknown } | null;
    return (
        typeof v === "object" &&
        v !== null &&
        typeof v.name === "string" &&
        (v.validateResource !== undefined || v.validateStack !== undefined)
    );
}

/** A cell of a markdown table holds one line, and a `|` would split it. */
function docsTextProblems(where: string, text: unknown): string[] {
    if (typeof text !== "string" || text.trim() === "") {
        return [`${where}: missing`];
    }
    return /[|\n]/.test(text) ? [`${where}: holds a "|" or a line break, which a table cell cannot`] : [];
}

function declarationProblems(d: PolicyDeclaration): string[] {
    const problems: string[] = [];
    if (!KEBAB.test(d.name)) {
        problems.push(`${d.name}: name is not kebab-case (e.g. workload-resources)`);
    }
    if (!SENTENCE.test(d.description ?? "")) {
        problems.push(`${d.name}: description is not one sentence starting with a capital and ending with a full stop`);
    }
    if (d.enforcementLevel !== "advisory" && d.enforcementLevel !== "mandatory") {
        problems.push(`${d.name}: enforcementLevel ${JSON.stringify(d.enforcementLevel)} is neither advisory nor mandatory`);
    }
    problems.push(...docsTextProblems(`${d.name}: docs.requires (README.md)`, d.docs?.requires));
    problems.push(...docsTextProblems(`${d.name}: docs.checks (docs/policies.md)`, d.docs?.checks));
    for (const [key, knob] of Object.entries(d.knobs)) {
        if (knob.default === undefined) {
            problems.push(`${d.name}.${key}: knob without a default`);
        }
        if (typeof knob.description !== "string" || knob.description.trim() === "") {
            problems.push(`${d.name}.${key}: knob without a description`);
        }
        if (knob.type === undefined) {
            problems.push(`${d.name}.${key}: knob without a type`);
        }
    }
    for (const [key, note] of Object.entries(d.docs?.knobs ?? {})) {
        if (!(key in d.knobs)) {
            problems.push(`${d.name}: docs.knobs.${key} notes a knob the policy does not have`);
        }
        problems.push(...docsTextProblems(`${d.name}: docs.knobs.${key}`, note));
    }
    return problems;
}

/** Every missing or inconsistent part of the catalogue, one line each; empty when complete. */
export function catalogueProblems(c: Catalogue): string[] {
    const find = c.declarations ?? declarationOf;
    const problems: string[] = [];
    const names = new Set<string>();
    c.policies.forEach((policy, i) => {
        const d = find(policy);
        const name = d?.name ?? (policy as { name?: string }).name ?? `#${i}`;
        if (!d) {
            problems.push(`${name}: not declared with declareResourcePolicy or declareStackPolicy`);
        } else {
            problems.push(...declarationProblems(d));
        }
        if (names.has(name)) {
            problems.push(`${name}: registered twice`);
        }
        names.add(name);
        const module = c.modules[i];
        if (module === undefined || c.exports[module] !== policy) {
            problems.push(
                `${name}: registry entry ${i + 1} is not the const its line of policies.ts exports (${module ? `./${module} as ${module}` : "no line"})`,
            );
        }
        if (!c.suites.includes(name)) {
            problems.push(`${name}: no suite in test/policies/suites.ts`);
        }
    });
    if (c.modules.length > c.policies.length) {
        problems.push(`policies.ts exports ${c.modules.slice(c.policies.length).join(", ")} but the registry holds no policy for them`);
    }
    for (const [key, value] of Object.entries(c.exports)) {
        if (isPolicyShaped(value) && !c.policies.includes(value)) {
            problems.push(
                `${key}: exported as a policy but not in the registry (declare it with declareResourcePolicy or declareStackPolicy)`,
            );
        }
    }
    problems.push(...levelTableProblems(c.levels, [...names], c.stacks));
    for (const suite of c.suites.filter((s) => !names.has(s))) {
        problems.push(`test/policies/suites.ts: suite ${suite} names no policy of the pack`);
    }
    return problems;
}
