import { expect } from "chai";
import type { Outcome } from "./harness";

/** Asserts the policy ran and reported nothing: no violation, nothing undecided, no "can't run". */
export function expectClean(outcome: Outcome): void {
    expect(outcome.cantRun, "can't run").to.equal(undefined);
    expect(outcome.notApplicable, "not applicable").to.equal(undefined);
    expect(outcome.violations.map((v) => v.message)).to.deep.equal([]);
    expect(
        outcome.undecided.map((v) => v.message),
        "undecided",
    ).to.deep.equal([]);
}

/**
 * Asserts exactly one violation per pattern (in order), each in the house style: what, then
 * "Why:" (the operational consequence), then "Fix:".
 */
export function expectViolations(outcome: Outcome, ...patterns: RegExp[]): void {
    expect(outcome.cantRun, "can't run").to.equal(undefined);
    expect(
        outcome.undecided.map((v) => v.message),
        "undecided",
    ).to.deep.equal([]);
    const messages = outcome.violations.map((v) => v.message);
    expect(messages, messages.join("\n")).to.have.length(patterns.length);
    patterns.forEach((p, i) => {
        expect(messages[i]).to.match(p);
        expect(messages[i]).to.match(/^.+\. Why: .+\. Fix: .+\.$/s);
    });
}

/**
 * Asserts no violation and exactly one undecided verdict per pattern (in order), each saying what
 * is undecided, why, and how to make it decidable.
 */
export function expectUndecided(outcome: Outcome, ...patterns: RegExp[]): void {
    expect(outcome.cantRun, "can't run").to.equal(undefined);
    expect(
        outcome.violations.map((v) => v.message),
        "violations",
    ).to.deep.equal([]);
    const messages = outcome.undecided.map((v) => v.message);
    expect(messages, messages.join("\n")).to.have.length(patterns.length);
    patterns.forEach((p, i) => {
        expect(messages[i]).to.match(p);
        expect(messages[i]).to.match(/^Undecided: .+\. Why: .+\. To decide it: .+\.$/s);
    });
}
