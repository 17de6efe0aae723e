/**
 * Deciding on what is known. The SDK's proxy throws when a policy reads a value unknown at
 * preview, and the analyzer then downgrades the whole policy to an advisory "can't run policy
 * during preview". Judging item by item keeps the verdicts on every known item; what stays
 * undecided is handed back to the analyzer at the end, so it is reported, never a silent pass.
 */
import type { ReportViolation } from "@pulumi/policy";
import { isUnknownValueError, ReportDiagnostic, UNKNOWN_STRING, UnknownValueError, UnknownValueErrorLike } from "./sdk";

export class Verdicts {
    private first: UnknownValueErrorLike | undefined;
    private readonly undecided: string[] = [];
    /** Items judged (decided or not): a stack policy with zero is "not applicable", never a pass. */
    evaluated = 0;

    /** Judges one item; returns `false` when a value it needs is unknown at preview. */
    judge(subject: string, fn: () => void): boolean {
        this.evaluated++;
        return this.attempt(subject, fn);
    }

    /** Reads a value, or `undefined` (recording the subject as undecided) when it is unknown. */
    read<T>(subject: string, fn: () => T): T | undefined {
        let out: T | undefined;
        this.attempt(subject, () => {
            out = fn();
        });
        return out;
    }

    private attempt(subject: string, fn: () => void): boolean {
        try {
            fn();
            return true;
        } catch (err) {
            if (isUnknownValueError(err)) {
                this.first ??= err;
                this.undecided.push(subject);
                return false;
            }
            throw err;
        }
    }

    /**
     * Leaves `subject` undecided because a value it depends on, read elsewhere, is unknown
     * (`path` names that value for the analyzer's message).
     */
    leaveUndecided(subject: string, path: string[]): void {
        this.first ??= new UnknownValueError(UNKNOWN_STRING, path);
        this.undecided.push(subject);
    }

    /** The subjects left undecided. */
    get undecidedSubjects(): readonly string[] {
        return this.undecided;
    }

    /**
     * Hands undecided items to the analyzer (rethrows the SDK's error, naming them): their
     * verdict shows as "can't run policy … during preview" instead of disappearing.
     */
    finish(): void {
        if (!this.first) {
            return;
        }
        const shown = this.undecided.slice(0, 5).join("; ");
        const more = this.undecided.length > 5 ? ` and ${this.undecided.length - 5} more` : "";
        this.first.message = `${this.first.message}; undecided until the values are known: ${shown}${more}`;
        throw this.first;
    }
}

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

/**
 * Reports an undecided verdict: at advisory level whatever the policy's level, so it never blocks
 * a deployment, and with its own message, so it is never taken for a pass either. Distinct from a
 * value unknown at preview (`Verdicts`), which the engine knows at apply and the gate keeps at the
 * policy's level: this input will never tell.
 */
export function reportUndecided(report: ReportViolation, message: string, urn?: string): void {
    (report as unknown as ReportDiagnostic)({ message, ...(urn ? { urn } : {}), enforcementLevel: "advisory" });
}
