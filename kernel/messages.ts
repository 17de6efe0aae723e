/**
 * The house style of verdict messages, in one place for the policies, the gate and the tests.
 * Pure and free of the policy SDK: the tools read it without loading the pack.
 */

/**
 * A violation message in the house style: what is wrong (naming the resource), why it matters
 * in operation, and how to fix it.
 */
export function violation(what: string, why: string, fix: string, at?: FieldPath): string {
    return `${end(what)} Why: ${end(why)} Fix: ${end(fix)}${fieldTrailer(at)}`;
}

/**
 * A path into a Kubernetes object: `["spec", "template", "spec", "containers", 0, "resources"]`.
 * A verdict that names the offending field ends with it (` At: spec.template.spec.containers[0].resources.`),
 * which `pulumi preview` prints as is and the gate reads back (`fieldOf`) to point at the field's
 * line in a manifest.
 */
export type FieldPath = readonly (string | number)[];

const FIELD_MARKER = " At: ";
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function fieldTrailer(at: FieldPath | undefined): string {
    return at && at.length > 0 ? `${FIELD_MARKER}${fieldText(at)}.` : "";
}

/** `spec.containers[0].resources`, a key that is not a plain word quoted: `metadata.labels["app.kubernetes.io/name"]`. */
export function fieldText(at: FieldPath): string {
    return at
        .map((k, i) => (typeof k === "number" ? `[${k}]` : PLAIN_KEY.test(k) ? `${i === 0 ? "" : "."}${k}` : `[${JSON.stringify(k)}]`))
        .join("");
}

/** The path `fieldText` wrote, or `undefined` for text it did not write. */
export function parseFieldPath(text: string): FieldPath | undefined {
    const token = /\.?([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;
    const out: (string | number)[] = [];
    while (token.lastIndex < text.length) {
        const at = token.lastIndex;
        const m = token.exec(text);
        if (!m || (m[1] !== undefined && (at === 0) === (text[at] === "."))) {
            return undefined;
        }
        out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(m[3]) as string)));
    }
    return out.length > 0 ? out : undefined;
}

/** A verdict's message without its field trailer, and the field it names (when it names one). */
export function fieldOf(message: string): { message: string; field?: FieldPath } {
    const at = message.lastIndexOf(FIELD_MARKER);
    const field = at < 0 || !message.endsWith(".") ? undefined : parseFieldPath(message.slice(at + FIELD_MARKER.length, -1));
    return field ? { message: message.slice(0, at), field } : { message };
}

/** `1 replica`, `3 replicas`: a count with its noun, in messages. */
export function count(n: number, noun: string): string {
    return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** `a, b and c` (or `a, b or c`): items in a sentence. */
export function listOf(items: readonly string[], conjunction: "and" | "or"): string {
    return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} ${conjunction} ${items[items.length - 1]}`;
}

/**
 * `<title> (2 problems):` and one `  - <problem>` line each: how every config error of the
 * program, the pack and the tools lists what is wrong.
 */
export function problemList(title: string, problems: readonly string[]): string {
    return `${title} (${count(problems.length, "problem")}):\n${problems.map((p) => `  - ${p}`).join("\n")}`;
}

function end(s: string): string {
    // Only a period ends a part: a name ending in "!" or "?" (any value a user wrote) still gets one.
    return s.endsWith(".") ? s : `${s}.`;
}

/** How an undecided verdict's message starts; the gate and the tests recognise it by this. */
export const UNDECIDED_PREFIX = "Undecided: ";

/**
 * An undecided verdict: what the input cannot decide (a role defined in another stack, a sleep
 * read from the environment at run time), why, and what would make it decidable.
 */
export function undecided(what: string, why: string, decide: string, at?: FieldPath): string {
    return `${UNDECIDED_PREFIX}${end(what)} Why: ${end(why)} To decide it: ${end(decide)}${fieldTrailer(at)}`;
}

/** True for a message built by `undecided` (after the description line the SDK may prepend). */
export function isUndecided(message: string): boolean {
    return message.startsWith(UNDECIDED_PREFIX) || message.includes(`\n${UNDECIDED_PREFIX}`);
}
