/**
 * `npm run drift -- <stack> <preview.json>`: the verdict of the scheduled drift check
 * (.github/workflows/drift.yml) from what `pulumi preview --refresh --json` printed: the digest of
 * a preview that first read every live resource, then diffed main's program against it (pulumi/pulumi
 * pkg/display/json.go, `PreviewDigest`: `steps[].op`, `urn`, `diffReasons`, `replaceReasons`,
 * `detailedDiff`, and `changeSummary`, a count per operation). Prints the report as Markdown, the
 * body of the stack's drift issue: every resource an `up` of main would change, deletions and
 * replacements first.
 *
 * What it cannot tell apart: a change made outside Pulumi, and a commit of main not yet deployed
 * (an `up` that failed, or prod's waiting for its reviewers). Both mean the stack is not what main
 * says; the report says so instead of guessing.
 *
 * Exit codes: 0 no change, 1 changes (drift), 2 bad input (unknown stack, a file that is not a
 * preview digest).
 */
import * as fs from "fs";
import { parseCommandLine, runMain } from "../cli/cli";
import { FileError, InputError } from "../cli/errors";
import { stackNames } from "../render/offline";

const USAGE = "usage: npm run drift -- <stack> <preview.json>";

/**
 * Operations that change nothing live: the resource as it is, a data source read or its
 * replacement, the refresh's own reads, and forgetting a data source (`discard`, `OpReadDiscard`;
 * `discard-replaced`) (pulumi/pulumi pkg/resource/deploy/step.go, `StepOp`). Any other operation,
 * one this list does not know included, is a change: an unknown operation never passes.
 */
const NO_CHANGE: readonly string[] = ["same", "read", "refresh", "read-replacement", "discard", "discard-replaced"];

/** Operations that take a live resource away: an `up` that reverts the drift deletes or replaces it. */
const REMOVES: readonly string[] = ["delete", "replace", "create-replacement", "delete-replaced", "import-replacement"];

/** One resource an `up` of main would change. */
export interface DriftChange {
    op: string;
    urn: string;
    /** Type and name, from the URN (`urn:pulumi:<stack>::<project>::<type path>::<name>`). */
    type: string;
    name: string;
    /** The inputs that differ (`detailedDiff` keys, else `diffReasons`), sorted. */
    keys: string[];
    /** The inputs that force the replacement, for a replacement. */
    replaceKeys: string[];
}

export interface DriftReport {
    stack: string;
    changes: DriftChange[];
    /** `changeSummary`'s counts of changing operations, which include resources the steps may not list. */
    summary: Record<string, number>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** The type and name in a URN: the last `$`-separated type of its type path, and the name after the last `::`. */
function urnParts(urn: string): { type: string; name: string } {
    const parts = urn.split("::");
    const name = parts.length >= 4 ? parts.slice(3).join("::") : urn;
    const typePath = parts.length >= 4 ? parts[2] : "";
    return { type: typePath.split("$").pop() ?? typePath, name };
}

/** The report of a preview digest (the parsed JSON). Throws an `InputError` for what is no digest. Pure. */
export function driftReport(stack: string, digest: unknown, file = "preview.json"): DriftReport {
    if (!isRecord(digest)) {
        throw new FileError(file, undefined, "is not a preview digest (pulumi preview --json): expected a JSON object");
    }
    if (digest.steps !== undefined && !Array.isArray(digest.steps)) {
        throw new FileError(file, undefined, "steps is not a list: not a preview digest (pulumi preview --json)");
    }
    if (digest.steps === undefined && digest.changeSummary === undefined) {
        throw new FileError(file, undefined, "has neither steps nor changeSummary: not a preview digest (pulumi preview --json)");
    }
    const changes: DriftChange[] = [];
    for (const step of (digest.steps ?? []) as unknown[]) {
        if (!isRecord(step) || typeof step.op !== "string" || typeof step.urn !== "string") {
            throw new FileError(file, undefined, `a step without op and urn: ${JSON.stringify(step)}`);
        }
        if (NO_CHANGE.includes(step.op)) {
            continue;
        }
        const detailed = isRecord(step.detailedDiff) ? Object.keys(step.detailedDiff) : [];
        changes.push({
            op: step.op,
            urn: step.urn,
            ...urnParts(step.urn),
            keys: [...new Set(detailed.length > 0 ? detailed : strings(step.diffReasons))].sort(),
            replaceKeys: [...new Set(strings(step.replaceReasons))].sort(),
        });
    }
    const summary: Record<string, number> = {};
    if (isRecord(digest.changeSummary)) {
        for (const [op, count] of Object.entries(digest.changeSummary)) {
            if (!NO_CHANGE.includes(op) && typeof count === "number" && count > 0) {
                summary[op] = count;
            }
        }
    }
    // What takes a live resource away first, then by URN: the order a reviewer reads them in.
    changes.sort((a, b) => Number(REMOVES.includes(b.op)) - Number(REMOVES.includes(a.op)) || a.urn.localeCompare(b.urn));
    return { stack, changes, summary };
}

/** Whether the report finds the stack changed: a changing step, or a changing operation counted in the summary. */
export function drifted(report: DriftReport): boolean {
    return report.changes.length > 0 || Object.keys(report.summary).length > 0;
}

/** The report as Markdown: the drift issue's body, or one line saying the stack is as main says. */
export function formatDrift(report: DriftReport): string {
    if (!drifted(report)) {
        return `### Drift of stack \`${report.stack}\`: none\n\nThe live stack is what main's program makes it: \`pulumi preview --refresh\` proposes no change.\n`;
    }
    const counted = Object.entries(report.summary)
        .map(([op, n]) => `${n} ${op}`)
        .join(", ");
    const lines = [
        `### Drift of stack \`${report.stack}\`: ${report.changes.length} ${report.changes.length === 1 ? "resource differs" : "resources differ"} from main`,
        "",
        "`pulumi preview --refresh` read every live resource and would change these to make the stack what main's program says. " +
            "Either something changed them outside Pulumi (the console, another tool, a controller), or a commit of main is not deployed yet " +
            "(an `up` that failed, or one waiting for its reviewers): check the deploy workflow's last run first. " +
            "The next `up` reverts a drift; to keep a change made outside, put it into the program or its stack file.",
        "",
    ];
    if (counted !== "") {
        lines.push(`Operations counted: ${counted}.`, "");
    }
    const removes = report.changes.filter((c) => REMOVES.includes(c.op));
    if (removes.length > 0) {
        lines.push(
            `**${removes.length} would be deleted or replaced** by the next \`up\`: a replaced node group or launch template rolls its nodes (\`npm run plan -- ${report.stack} --diff\` says what each drains).`,
            "",
        );
    }
    lines.push("| operation | type | name | inputs that differ |", "|---|---|---|---|");
    for (const c of report.changes) {
        const keys = c.keys.map((k) => (c.replaceKeys.includes(k) ? `\`${k}\` (forces replacement)` : `\`${k}\``));
        const forcing = c.replaceKeys.filter((k) => !c.keys.includes(k)).map((k) => `\`${k}\` (forces replacement)`);
        lines.push(`| ${c.op} | \`${c.type}\` | \`${c.name.replace(/\|/g, "\\|")}\` | ${[...keys, ...forcing].join(", ") || "—"} |`);
    }
    return `${lines.join("\n")}\n`;
}

/** The command, in process: its exit code and what it prints. */
export function driftCommand(argv: readonly string[], root = process.cwd()): { code: number; stdout: string } {
    const { positionals } = parseCommandLine(argv, {}, USAGE);
    if (positionals.length !== 2) {
        throw new InputError(USAGE);
    }
    const [stack, file] = positionals;
    const known = stackNames(root);
    if (!known.includes(stack)) {
        throw new InputError(`unknown stack ${stack}: the stacks are ${known.join(", ")}`);
    }
    let text: string;
    try {
        text = fs.readFileSync(file, "utf8");
    } catch (err) {
        throw new FileError(file, undefined, `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    let digest: unknown;
    try {
        digest = JSON.parse(text);
    } catch (err) {
        throw new FileError(file, undefined, `is not JSON (${(err as Error).message}): run pulumi preview with --json`);
    }
    const report = driftReport(stack, digest, file);
    return { code: drifted(report) ? 1 : 0, stdout: formatDrift(report) };
}

if (require.main === module) {
    // Synchronous work inside a promise, so that bad input reaches runMain as a rejection.
    runMain(
        () =>
            new Promise((resolve) => {
                const { code, stdout } = driftCommand(process.argv.slice(2));
                process.stdout.write(stdout);
                resolve(code);
            }),
    );
}
