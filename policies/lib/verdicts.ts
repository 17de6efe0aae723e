/**
 * Deciding on what is known. The SDK's proxy throws when a policy reads a value unknown at
 * preview, and the analyzer then downgrades the whole policy to an advisory "can't run policy
 * during preview". Judging item by item keeps the verdicts on every known item; what stays
 * undecided is handed back to the analyzer at the end, so it is reported, never a silent pass.
 */
import { UNDECIDED } from "./scope";
import { isUnknownValueError, UNKNOWN_STRING, UnknownValueError, UnknownValueErrorLike } from "./sdk";

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
    return `${sentence(what)} Why: ${sentence(why)} Fix: ${sentence(fix)}`;
}

/**
 * An undecided verdict in the house style: what cannot be decided, why the input does not show
 * it, and what would decide it. Reported at the advisory level (`reportUndecided`): never a
 * violation, never a silent pass.
 */
export function undecided(what: string, why: string, decide: string): string {
    return `${UNDECIDED} ${sentence(what)} Why: ${sentence(why)} To decide: ${sentence(decide)}`;
}

function sentence(s: string): string {
    return /[.!?]$/.test(s) ? s : `${s}.`;
}
