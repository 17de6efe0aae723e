/**
 * The house style of verdict messages, in one place for the policies, the gate and the tests.
 * Pure and free of the policy SDK: the tools read it without loading the pack.
 */

/**
 * A violation message in the house style: what is wrong (naming the resource), why it matters
 * in operation, and how to fix it.
 */
export function violation(what: string, why: string, fix: string): string {
    return `${end(what)} Why: ${end(why)} Fix: ${end(fix)}`;
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
    return /[.!?]$/.test(s) ? s : `${s}.`;
}

/** How an undecided verdict's message starts; the gate and the tests recognise it by this. */
export const UNDECIDED_PREFIX = "Undecided: ";

/**
 * An undecided verdict: what the input cannot decide (a role defined in another stack, a sleep
 * read from the environment at run time), why, and what would make it decidable.
 */
export function undecided(what: string, why: string, decide: string): string {
    return `${UNDECIDED_PREFIX}${end(what)} Why: ${end(why)} To decide it: ${end(decide)}`;
}

/** True for a message built by `undecided` (after the description line the SDK may prepend). */
export function isUndecided(message: string): boolean {
    return message.startsWith(UNDECIDED_PREFIX) || message.includes(`\n${UNDECIDED_PREFIX}`);
}
