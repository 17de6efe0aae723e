/**
 * How the rehearsal's readers read a value: a property that may be unknown at preview, an item
 * read through the verdicts (which name what was unknown), a count it can replay one by one.
 */
import { isUnknownSentinel, peek } from "eks-platform-kernel";
import type { Verdicts } from "eks-platform-evaluation";

/** Bytes in a MiB: memory quantities are counted in MiB. */
export const MIB = 2 ** 20;

/** `verdicts.read`, calling `onUnknown` when a value the item needs is unknown at preview. */
export function readOr<T>(verdicts: Verdicts, subject: string, fn: () => T, onUnknown: () => void): T | undefined {
    const before = verdicts.undecidedSubjects.length;
    const out = verdicts.read(subject, fn);
    if (verdicts.undecidedSubjects.length > before) {
        onUnknown();
    }
    return out;
}

/** A property that may be unknown at preview, read without tripping the SDK's proxy: `undefined` when unknown. */
export function known(obj: unknown, key: string): unknown {
    const raw = peek(obj, key);
    return isUnknownSentinel(raw) ? undefined : raw;
}

/** A count the rehearsal can replay one by one: a whole number from 0 to `max`; otherwise why not. */
export function countProblem(value: number, what: string, max: number): string | undefined {
    if (!Number.isInteger(value) || value < 0) {
        return `${what} ${value} is not a whole number of 0 or more`;
    }
    return value > max ? `${what} ${value} is above the ${max} the rehearsal replays one by one` : undefined;
}
