/**
 * Deciding on what is known. The SDK's proxy throws when a policy reads a value unknown at
 * preview, and the analyzer then downgrades the whole policy to an advisory "can't run policy
 * during preview". Judging item by item keeps the verdicts on every known item; what stays
 * undecided is handed back to the analyzer at the end, so it is reported, never a silent pass.
 */
import type { ReportViolation } from "@pulumi/policy";
import { UNKNOWN } from "eks-platform-kernel";
import { isUnknownValueError, ReportDiagnostic, UnknownValueError, UnknownValueErrorLike } from "./sdk";

export class Verdicts {
    private first: UnknownValueErrorLike | undefined;
    /** What the first undecided item waits for. */
    private waitingFor = "until the values are known";
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
        this.first ??= new UnknownValueError(UNKNOWN, path);
        this.undecided.push(subject);
    }

    /**
     * Leaves `subject` undecided because the stack lacks a fact it needs (not an unknown value):
     * `reason` says which, and how to supply it. Reported like an unknown value, never a pass.
     */
    cannotDecide(subject: string, reason: string): void {
        if (!this.first) {
            this.first = new UnknownValueError(UNKNOWN, []);
            this.first.message = reason;
            this.waitingFor = "until then";
        }
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
        this.first.message = `${this.first.message}; undecided ${this.waitingFor}: ${shown}${more}`;
        throw this.first;
    }
}

// The house style of messages lives in the kernel (kernel/messages.ts, free of the SDK: the tools read it too).
export { count, isUndecided, listOf, undecided, violation } from "eks-platform-kernel";

/**
 * Reports an undecided verdict: at advisory level whatever the policy's level, so it never blocks
 * a deployment, and with its own message, so it is never taken for a pass either. Distinct from a
 * value unknown at preview (`Verdicts`), which the engine knows at apply and the gate keeps at the
 * policy's level: this input will never tell.
 */
export function reportUndecided(report: ReportViolation, message: string, urn?: string): void {
    reportAdvisory(report, message, urn);
}

/**
 * Reports a finding at the advisory level whatever the policy's level: something worth knowing
 * that breaks nothing the policy guards (the drain rehearsal's interrupted work that drops no
 * request). Unlike `reportUndecided` it is decided: a verdict, just not a blocking one.
 */
export function reportAdvisory(report: ReportViolation, message: string, urn?: string): void {
    (report as unknown as ReportDiagnostic)({ message, ...(urn ? { urn } : {}), enforcementLevel: "advisory" });
}
