import { expect } from "chai";
import type { Outcome } from "./harness";

/** Asserts the policy ran and reported nothing. */
export function expectClean(outcome: Outcome): void {
    expect(outcome.cantRun, "can't run").to.equal(undefined);
    expect(outcome.notApplicable, "not applicable").to.equal(undefined);
    expect(outcome.violations.map((v) => v.message)).to.deep.equal([]);
}

/**
 * Asserts exactly one violation per pattern (in order), each in the house style: what, then
 * "Why:" (the operational consequence), then "Fix:".
 */
export function expectViolations(outcome: Outcome, ...patterns: RegExp[]): void {
    expect(outcome.cantRun, "can't run").to.equal(undefined);
    const messages = outcome.violations.map((v) => v.message);
    expect(messages, messages.join("\n")).to.have.length(patterns.length);
    patterns.forEach((p, i) => {
        expect(messages[i]).to.match(p);
        expect(messages[i]).to.match(/^.+\. Why: .+\. Fix: .+\.$/s);
    });
}
