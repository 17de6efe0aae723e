/**
 * The gate's verdicts as people and machines read them: the grouped text report, the JSON
 * violation list, and SARIF 2.1.0 for code scanning. Rendering only: what a verdict is belongs to
 * gate.ts, and how a URN reads (a plan resource, a manifest object) to the caller.
 */
import * as path from "path";
import type * as Sarif from "sarif";
import { fieldText, UNDECIDED_PREFIX } from "eks-platform-kernel";
import { GateDiagnostic, GateReport, PolicyOutcome, summarize } from "./gate";

/** A verdict in the JSON outputs (the plan's `violations`, the manifest check's). */
export interface Violation {
    policy: string;
    level: "mandatory" | "advisory";
    resource: { type: string; name: string; kind?: string; namespace?: string };
    message: string;
    /** The policy read a value unknown at preview: counted at its configured level, never a pass. */
    undeterminable?: true;
    /** An undecided verdict (advisory, never blocking, never a pass): the reason the input cannot decide it. */
    undecided?: string;
    /** Waived on the object (`platform/waive-<policy>`): the reason; not counted towards the exit code. */
    waived?: string;
    location?: { file: string; line: number };
    /** The field of the object the verdict names, e.g. `spec.template.spec.containers[0].resources`. */
    field?: string;
}

/** How the reports name the resource behind a URN (`undefined`: the stack as a whole). */
export interface ResourceView {
    resource: Violation["resource"];
    /** What a reader recognises in text, e.g. `Deployment shop/cart (k8s/app.yaml:10)`. */
    label: string;
    location?: { file: string; line: number };
}

/** `line`: the line a verdict points at inside the resource's file (a field of a manifest), when it names one. */
export type Locate = (urn: string | undefined, line?: number) => ResourceView;

export function toViolations(report: GateReport, locate: Locate): Violation[] {
    return report.diagnostics.map((d): Violation => {
        const view = locate(d.urn, d.line);
        return {
            policy: d.policy,
            level: d.level,
            resource: view.resource,
            message: d.message,
            ...(d.undeterminable ? { undeterminable: true as const } : {}),
            ...(d.undecided !== undefined ? { undecided: d.undecided } : {}),
            ...(d.waived !== undefined ? { waived: d.waived } : {}),
            ...(view.location ? { location: view.location } : {}),
            ...(d.field ? { field: fieldText(d.field) } : {}),
        };
    });
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The totals: the line CI logs are searched for, first in every text report. */
export function summaryLine(report: GateReport): string {
    const s = summarize(report);
    return (
        `${s.mandatory} mandatory, ${s.advisory} advisory, ${s.undecided > 0 ? `${s.undecided} undecided, ` : ""}${s.waived > 0 ? `${s.waived} waived, ` : ""}${report.policies.length} policies evaluated over ${report.resources} resources` +
        (s.undeterminable > 0 ? ` (${s.undeterminable} undeterminable at preview)` : "")
    );
}

/**
 * A message in the house style split into its parts: what, then " Why: …", then " Fix: …"
 * (kernel `violation`); a message of another shape is all `what`.
 */
export function messageParts(message: string): { what: string; why?: string; fix?: string } {
    // A violation ends "Fix: …"; an undecided verdict "To decide it: …" (kernel `undecided`).
    const [fixAt, marker] = [" Fix: ", " To decide it: "]
        .map((m): [number, string] => [message.lastIndexOf(m), m])
        .reduce((a, b) => (b[0] > a[0] ? b : a));
    const whyAt = fixAt < 0 ? -1 : message.lastIndexOf(" Why: ", fixAt);
    if (whyAt < 0) {
        return { what: message };
    }
    return { what: message.slice(0, whyAt), why: message.slice(whyAt + 6, fixAt), fix: message.slice(fixAt + marker.length) };
}

/** The SDK starts a violation's message with the policy's description; the report prints it once. */
function ownWords(message: string, description: string): string {
    return description && message.startsWith(`${description}\n`) ? message.slice(description.length + 1) : message;
}

/** Items grouped by key, groups and items in first-seen order (linear: reports may hold thousands). */
function groupBy<K, T>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
    const groups = new Map<K, T[]>();
    for (const item of items) {
        const k = key(item);
        const group = groups.get(k);
        if (group) {
            group.push(item);
        } else {
            groups.set(k, [item]);
        }
    }
    return groups;
}

function policyBlock(name: string, outcome: PolicyOutcome | undefined, ds: readonly GateDiagnostic[], locate: Locate): string[] {
    // By resource, and within it by the line a verdict points at (a field of a manifest).
    const byResource = groupBy(ds, (d) => (d.line === undefined ? d.urn : `${d.urn ?? ""}:${d.line}`));
    const resources = new Set(ds.map((d) => d.urn)).size;
    const waived = ds.filter((d) => d.waived !== undefined);
    const decided = ds.filter((d) => d.undecided === undefined && d.waived === undefined);
    const undecidedCount = ds.length - decided.length - waived.length;
    const levels = [...new Set(decided.map((d) => d.level))].join("/");
    const level = outcome?.level === "remediate" && levels ? `remediate, counted as ${levels}` : levels;
    const counts = [
        ...(decided.length > 0 ? [plural(decided.length, "violation")] : []),
        ...(undecidedCount > 0 ? [`${undecidedCount} undecided`] : []),
        ...(waived.length > 0 ? [`${waived.length} waived`] : []),
    ];
    const lines = [`${name}${level ? ` [${level}]` : ""}: ${counts.join(", ")} on ${plural(resources, "resource")}`];
    if (outcome?.description) {
        lines.push(`  ${outcome.description}`);
    }
    // The "Why" (and the "Fix") every finding of the policy shares is printed once, under the
    // description; each finding then says only what it is (and its own fix).
    const texts = ds.map((d) => {
        const own = ownWords(d.message, outcome?.description ?? "");
        // An undecided verdict already starts with "Undecided: "; the report says what that means.
        return d.undecided !== undefined && own.startsWith(UNDECIDED_PREFIX) ? own.slice(UNDECIDED_PREFIX.length) : own;
    });
    const parts = texts.map((t) => messageParts(t.split("\n").pop() ?? t));
    const shared = (key: "why" | "fix") =>
        ds.length > 1 && parts.every((p) => p[key] !== undefined && p[key] === parts[0][key]) ? parts[0][key] : undefined;
    const why = shared("why");
    const fix = shared("fix");
    if (why !== undefined) {
        lines.push(`  Why: ${why}`);
    }
    if (fix !== undefined) {
        lines.push(`  Fix: ${fix}`);
    }
    const textOf = new Map(ds.map((d, i) => [d, texts[i]]));
    const shorten = (text: string): string => {
        if (why === undefined) {
            return text;
        }
        const lines = text.split("\n");
        const last = messageParts(lines.pop() ?? "");
        return [...lines, `${last.what}${fix === undefined && last.fix !== undefined ? ` Fix: ${last.fix}` : ""}`].join("\n");
    };
    for (const items of byResource.values()) {
        lines.push(`  - ${locate(items[0].urn, items[0].line).label}`);
        for (const d of items) {
            const text = shorten(textOf.get(d) ?? d.message);
            const [first, ...rest] = text.split("\n");
            const mark =
                d.waived !== undefined
                    ? `waived (${d.waived}), not counted: `
                    : d.undeterminable
                      ? `undeterminable at preview, counted as ${d.level} (not a pass): `
                      : d.undecided !== undefined
                        ? "undecided (not a pass, not a violation): "
                        : "";
            lines.push(`      ${mark}${first}`, ...rest.map((l) => `        ${l}`));
        }
    }
    return lines;
}

/**
 * Text report, readable at any size: the totals first, then the policies that applied to nothing
 * on one line, warnings, and the violations grouped by policy (mandatory first, its description
 * once) and within a policy by resource.
 */
export function formatGateText(report: GateReport, locate: Locate): string {
    const lines = [summaryLine(report)];
    if (report.policies.length === 0) {
        lines.push("no policy is enabled: this gate checked nothing");
    }
    const idle = report.policies.filter((p) => p.evaluated === 0);
    if (idle.length > 0) {
        lines.push(
            `not applicable to this input (${idle.length} of ${report.policies.length} policies evaluated 0 resources): ${idle.map((p) => p.name).join(", ")}`,
        );
    }
    for (const w of report.warnings) {
        lines.push(`warning: ${w}`);
    }
    const byPolicy = groupBy(report.diagnostics, (d) => d.policy);
    const outcomes = new Map(report.policies.map((p) => [p.name, p]));
    const blocking = (ds: readonly GateDiagnostic[]) => (ds.some((d) => d.level === "mandatory" && d.waived === undefined) ? 0 : 1);
    const ordered = [...byPolicy].sort(([a, da], [b, db]) => blocking(da) - blocking(db) || a.localeCompare(b));
    for (const [name, ds] of ordered) {
        lines.push("", ...policyBlock(name, outcomes.get(name), ds, locate));
    }
    return lines.join("\n");
}

/** A path as reports show it and code scanning expects it: relative to the working directory (the checkout), with `/`. */
export function displayPath(file: string): string {
    return path.relative(process.cwd(), path.resolve(file)).split(path.sep).join("/");
}

/**
 * One line per finding, for repositories of hundreds of objects: `file:line: object: policy
 * [status]: what` (the "Why" and "Fix" are in the text and JSON reports), then the totals.
 */
/** The longest finding text a compact line carries; the full message is in the text and JSON reports. */
const COMPACT_WIDTH = 200;

export function formatCompact(report: GateReport, violations: readonly Violation[]): string {
    const lines = violations.map((v) => {
        const where = v.location ? `${displayPath(v.location.file)}:${v.location.line}: ` : "";
        const object = `${v.resource.kind ?? v.resource.type} ${v.resource.namespace ? `${v.resource.namespace}/` : ""}${v.resource.name}`;
        const status =
            v.waived !== undefined
                ? "waived"
                : v.undecided !== undefined
                  ? "undecided"
                  : v.undeterminable
                    ? `${v.level}, undeterminable`
                    : v.level;
        const text = v.message.split("\n").pop() ?? v.message;
        const what = messageParts(text.startsWith(UNDECIDED_PREFIX) ? text.slice(UNDECIDED_PREFIX.length) : text).what;
        return `${where}${object}: ${v.policy} [${status}]: ${what.length > COMPACT_WIDTH ? `${what.slice(0, COMPACT_WIDTH - 1)}…` : what}`;
    });
    return [...lines, summaryLine(report)].join("\n");
}

/**
 * SARIF 2.1.0 for GitHub code scanning: one rule per policy that reported, `error` for mandatory
 * and `warning` for advisory, each result at the file and first line of its object. Results
 * without a file (the stack as a whole, standard input) carry no physical location.
 */
/** What a SARIF rule says beyond its one-line description: what the policy checks and what it requires (docs/policies.md). */
export interface RuleDocs {
    checks: string;
    requires: string;
}

export function toSarif(
    report: GateReport,
    violations: readonly Violation[],
    stdinName: string,
    docs: ReadonlyMap<string, RuleDocs> = new Map(),
    /** Where each rule's entry is read, from its id (`helpUri`); none without it. */
    helpUri?: (id: string) => string,
): Sarif.Log {
    const rules = [...new Set(violations.map((v) => v.policy))].sort();
    const descriptions = new Map(report.policies.map((p) => [p.name, p.description]));
    return {
        $schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [
            {
                tool: {
                    driver: {
                        name: "eks-platform-policy-gate",
                        informationUri: "https://www.pulumi.com/docs/iac/packages-and-automation/crossguard/",
                        version: report.pack.split("@")[1] ?? "0.0.0",
                        rules: rules.map((id) => {
                            const rule = docs.get(id);
                            return {
                                id,
                                shortDescription: {
                                    text: descriptions.get(id) || (violations.find((v) => v.policy === id)?.message.split("\n")[0] ?? id),
                                },
                                ...(rule
                                    ? {
                                          fullDescription: { text: rule.checks },
                                          help: {
                                              text: `Requires: ${rule.requires}. The policy table and its details: docs/policies.md of the platform repository (policy ${id}).`,
                                              markdown: `**Requires:** ${rule.requires}.\n\n**Checks:** ${rule.checks}\n\nSee \`docs/policies.md\` of the platform repository (policy \`${id}\`).`,
                                          },
                                      }
                                    : {}),
                                ...(helpUri ? { helpUri: helpUri(id) } : {}),
                            };
                        }),
                    },
                },
                results: violations.map((v): Sarif.Result => ({
                    ruleId: v.policy,
                    ruleIndex: rules.indexOf(v.policy),
                    level: v.level === "mandatory" ? "error" : v.undecided !== undefined ? "note" : "warning",
                    // A waiver is an in-source suppression: code scanning shows it as dismissed, with its reason.
                    ...(v.waived !== undefined ? { suppressions: [{ kind: "inSource" as const, justification: v.waived }] } : {}),
                    message: {
                        text: `${v.resource.kind ?? v.resource.type} ${v.resource.namespace ? `${v.resource.namespace}/` : ""}${v.resource.name}: ${v.message}`,
                    },
                    ...(v.location && v.location.file !== stdinName
                        ? {
                              locations: [
                                  {
                                      physicalLocation: {
                                          artifactLocation: { uri: displayPath(v.location.file), uriBaseId: "%SRCROOT%" },
                                          region: { startLine: v.location.line },
                                      },
                                  },
                              ],
                          }
                        : {}),
                })),
            },
        ],
    };
}
