/**
 * `npm run plan -- <stack> --diff <git-ref>`: renders the stack at `<git-ref>` (its own program
 * and stack file) and in the working tree, each in its own process, and prints what `pulumi up`
 * would do to the live stack: creates, deletes, updates, replacements, the disruptive ones first.
 *
 * Exit codes: 0 diffed, 2 bad input (unknown ref or stack, a side that does not render) or a
 * change the engine or AWS would refuse (a protected resource deleted or replaced, a Kubernetes
 * version jump or downgrade).
 */
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { oneOf, parseCommandLine } from "../cli/cli";
import { diffRenders, formatDiffText, StackDiff, summaryLine } from "./diff";
import { InputError } from "../cli/errors";
import type { RecordedResource } from "../render/offline";
import { checkoutRef, resolveRef } from "../cli/refTree";

/** A side that cannot be rendered; the message names the side and the reason. */
export class RenderError extends InputError {}

/**
 * The stack's role policies on one side, by kind (`deploy`, `boundary`, `drift`, `preview`), as
 * that side's own generator writes them; or why that side cannot generate them.
 */
export type StackRoles = Readonly<Record<string, unknown>> | { readonly error: string };

/** One rendered side: its resources, and its role policies when the renderer generates them. */
export interface RenderedSide {
    resources: RecordedResource[];
    roles?: StackRoles;
}

/**
 * Renders `stack` of the program tree at `root` in a child process (tools/render/renderStack.ts), with
 * the role policies that tree's generator writes for it.
 */
export function renderSideInChild(root: string, stack: string, label: string): Promise<RenderedSide> {
    return new Promise((resolve, reject) => {
        execFile(
            process.execPath,
            ["-r", "ts-node/register/transpile-only", path.join(__dirname, "..", "render", "renderStack.ts"), root, stack],
            {
                cwd: root,
                maxBuffer: 256 * 1024 * 1024,
                // The tree's own compiler settings; ts-node itself comes from this checkout.
                env: { ...process.env, TS_NODE_PROJECT: path.join(root, "tsconfig.json") },
            },
            (err, stdout, stderr) => {
                if (err) {
                    reject(new RenderError(`stack "${stack}" at ${label} does not render:\n${stderr.trim() || err.message}`));
                    return;
                }
                resolve(JSON.parse(stdout) as RenderedSide);
            },
        );
    });
}

/** Renders `stack` of the program tree at `root` in a child process: its resources. */
export async function renderInChild(root: string, stack: string, label: string): Promise<RecordedResource[]> {
    return (await renderSideInChild(root, stack, label)).resources;
}

/** The role policies of each kind, as `npm run deployer-policy` names them. */
const ROLE_KINDS = [
    { kind: "deploy", what: "the deploy role's policy", option: "" },
    { kind: "boundary", what: "the permissions boundary", option: " --boundary" },
    { kind: "drift", what: "the drift role's policy", option: " --drift" },
    { kind: "preview", what: "the preview role's policy", option: " --preview" },
] as const;

/**
 * What the change does to the stack's roles, which live outside it (created once, by hand or by
 * the bootstrap: docs/roles.md) and are scoped by the stack's names: `changed` lists the policies
 * that must be regenerated and applied before `pulumi up` (every one, for a stack the change
 * adds), `unknown` says why the two sides cannot be compared.
 */
export type RolesChange = { changed: string[] } | { unknown: string };

/** The policies of `before` and `after` that differ; `undefined` when a renderer generated none. Pure. */
export function rolesChange(before: StackRoles | undefined, after: StackRoles | undefined, absent: boolean): RolesChange | undefined {
    if (after === undefined) {
        return undefined;
    }
    // No policy kind is called `error`: a side with one could not generate its policies.
    if ("error" in after) {
        return { unknown: `the working tree cannot generate them: ${String(after.error)}` };
    }
    if (absent) {
        return { changed: ROLE_KINDS.map(({ kind }) => kind) };
    }
    if (before === undefined) {
        return undefined;
    }
    if ("error" in before) {
        return { unknown: `the base cannot generate them: ${String(before.error)}` };
    }
    return {
        changed: ROLE_KINDS.filter(({ kind }) => JSON.stringify(before[kind]) !== JSON.stringify(after[kind])).map(({ kind }) => kind),
    };
}

/** The line the diff prints about the roles; `undefined` when nothing is to be done. Pure. */
export function rolesLine(stack: string, change: RolesChange | undefined, absent: boolean): string | undefined {
    if (change === undefined) {
        return undefined;
    }
    if ("unknown" in change) {
        return `Roles: whether this changes the stack's role policies is unknown (${change.unknown}); compare npm run deployer-policy -- ${stack} (and --boundary, --drift, --preview) with what is applied before \`pulumi up\`.`;
    }
    const changed = ROLE_KINDS.filter(({ kind }) => change.changed.includes(kind));
    if (changed.length === 0) {
        return undefined;
    }
    const what = changed.map((k) => k.what);
    const list = what.length === 1 ? what[0] : `${what.slice(0, -1).join(", ")} and ${what[what.length - 1]}`;
    const commands = changed.map((k) => `npm run deployer-policy -- ${stack}${k.option}`).join("; ");
    return absent
        ? `Before the first \`pulumi up\`: the stack is new, so its roles do not exist yet: create them with ${list} (${commands}; docs/roles.md).`
        : `Before \`pulumi up\`: ${list} change${changed.length === 1 ? "s" : ""}: regenerate and apply ${changed.length === 1 ? "it" : "them"} first (${commands}; docs/roles.md), or the deploy role is refused what the new plan needs.`;
}

export interface DiffReport {
    stack: string;
    /** `absent`: the base commit has no `Pulumi.<stack>.yaml` (a stack this change adds): every resource is a create. */
    base: { ref: string; commit: string; absent?: true };
    summary: string;
    counts: StackDiff["counts"];
    disruptions: StackDiff["disruptions"];
    changes: StackDiff["changes"];
    /** What the change does to the stack's role policies; absent when the renderer generates none. */
    roles?: RolesChange;
}

/** Renders `stack` of the program tree at `root` (its resources, or a side with its roles); `label` names that side in an error. */
export type Render = (root: string, stack: string, label: string) => Promise<RecordedResource[] | RenderedSide>;

/** A rendered side, whichever shape its renderer returns. */
function sideOf(rendered: RecordedResource[] | RenderedSide): RenderedSide {
    return Array.isArray(rendered) ? { resources: rendered } : rendered;
}

/** Diffs `stack` between `ref` and the working tree at `root`, each side rendered by `render`. */
export async function diffStack(root: string, stack: string, ref: string, render: Render = renderSideInChild): Promise<DiffReport> {
    resolveRef(root, ref);
    const tree = checkoutRef(root, ref);
    try {
        const label = `${ref} (${tree.commit.slice(0, 12)})`;
        // A stack the change adds has nothing live yet: the base side is empty, not an error.
        const absent = !fs.existsSync(path.join(tree.dir, `Pulumi.${stack}.yaml`));
        const [before, after] = (
            await Promise.all([absent ? Promise.resolve([]) : render(tree.dir, stack, label), render(root, stack, "the working tree")])
        ).map(sideOf);
        const diff = diffRenders(before.resources, after.resources);
        const roles = rolesChange(before.roles, after.roles, absent);
        return {
            stack,
            base: { ref, commit: tree.commit, ...(absent ? { absent: true as const } : {}) },
            summary: summaryLine(diff),
            counts: diff.counts,
            disruptions: diff.disruptions,
            changes: diff.changes,
            ...(roles ? { roles } : {}),
        };
    } finally {
        tree.remove();
    }
}

/** The report as text. */
function header(report: DiffReport): string {
    return (
        `Diff of stack "${report.stack}": ${report.base.ref} (${report.base.commit.slice(0, 12)}) → working tree` +
        (report.base.absent ? ` (the stack is new: ${report.base.ref} has no Pulumi.${report.stack}.yaml)` : "")
    );
}

export function formatDiffReport(report: DiffReport): string {
    const roles = rolesLine(report.stack, report.roles, report.base.absent === true);
    return formatDiffText(
        { changes: report.changes, disruptions: report.disruptions, counts: report.counts },
        roles === undefined ? header(report) : `${header(report)}\n${roles}`,
    );
}

/** The report as Markdown for a job summary: a table of the counts and disruptions first, then the text report in a block. */
export function formatDiffMarkdown(report: DiffReport): string {
    const c = report.counts;
    const disruptive = report.disruptions.length === 0 ? "nothing disruptive" : report.summary.replace(/^DISRUPTIVE: (.*) — .*$/, "$1");
    const roles = rolesLine(report.stack, report.roles, report.base.absent === true);
    return [
        `### Stack \`${report.stack}\``,
        "",
        "| create | update | replace | delete | disruptive |",
        "|---:|---:|---:|---:|---|",
        `| ${c.create} | ${c.update} | ${c.replace} | ${c.delete} | ${report.disruptions.length === 0 ? disruptive : `**${disruptive}**`} |`,
        "",
        ...(roles === undefined ? [] : [`**${roles.replace(/[<>|]/g, (ch) => `\\${ch}`)}**`, ""]),
        ...report.disruptions.map((d) => `- **${d.kind}** ${d.message.replace(/[<>|]/g, (ch) => `\\${ch}`)}`),
        ...(report.disruptions.length > 0 ? [""] : []),
        "<details><summary>every change</summary>",
        "",
        "```",
        formatDiffReport(report),
        "```",
        "",
        "</details>",
    ].join("\n");
}

/** The plan command's usage (tools/render/plan.ts): `--diff` is one of its modes. */
export const PLAN_USAGE = "usage: npm run plan -- <stack> [--format text|json|markdown] [--analyzer] [--diff <git-ref>]";

/** The plan command's options, read the same way with and without `--diff`. */
export const PLAN_OPTIONS = {
    format: { type: "string", default: "text" },
    diff: { type: "string" },
    analyzer: { type: "boolean", default: false },
} as const;

/** What `npm run plan -- <stack> --diff <ref>` reads besides its command line; tests give a stand-in renderer. */
export interface DiffCommandEnv {
    /** The repository whose working tree is the new side. Defaults to the working directory. */
    readonly root?: string;
    /** Renders each side. Defaults to a child process per side (`renderSideInChild`). */
    readonly render?: Render;
}

/**
 * `npm run plan -- <stack> --diff <ref> [--format text|json|markdown]` without the process: what it
 * prints and its exit code (2 when a change would be refused, 0 otherwise). Bad input (options,
 * stack count, an empty, unknown or unusable ref, a side that does not render) throws an
 * `InputError` (`RefError`, `RenderError`), which the command reports with exit 2.
 */
export async function diffCommand(argv: readonly string[], env: DiffCommandEnv = {}): Promise<{ code: number; stdout: string }> {
    const { values, positionals } = parseCommandLine(argv, PLAN_OPTIONS, PLAN_USAGE);
    const format = oneOf("--format", values.format, ["text", "json", "markdown"] as const);
    if (positionals.length !== 1) {
        throw new InputError(positionals.length === 0 ? PLAN_USAGE : `one stack at a time, not ${positionals.join(", ")}\n${PLAN_USAGE}`);
    }
    const [stack] = positionals;
    if (!values.diff) {
        throw new InputError(`--diff needs a git ref, e.g. --diff origin/main\n${PLAN_USAGE}`);
    }
    if (values.analyzer) {
        throw new InputError(`--analyzer chooses how the policy gate runs, and --diff runs no gate\n${PLAN_USAGE}`);
    }
    const report = await diffStack(env.root ?? process.cwd(), stack, values.diff, env.render ?? renderSideInChild);
    return {
        code: report.disruptions.some((d) => d.kind === "refused") ? 2 : 0,
        stdout:
            format === "json"
                ? `${JSON.stringify(report)}\n`
                : `${format === "markdown" ? formatDiffMarkdown(report) : formatDiffReport(report)}\n`,
    };
}
