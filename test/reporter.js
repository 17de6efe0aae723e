// Mocha's spec reporter plus one closing line in the plain form CI readers count:
// "mocha: N passed, N failed, N skipped".
"use strict";
const Mocha = require("mocha");
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SpecWithSummary extends Mocha.reporters.Spec {
    constructor(runner, options) {
        super(runner, options);
        runner.once(EVENT_RUN_END, () => {
            const s = this.stats;
            process.stdout.write(`mocha: ${s.passes} passed, ${s.failures} failed, ${s.pending} skipped\n`);
        });
    }
}

module.exports = SpecWithSummary;
