import { expect } from "chai";
import * as path from "path";
import { BOOT_TIMEOUT_VARIABLE, bootTimeoutMs, PolicyPackProcess, readableTimeout } from "../../../tools/gate/analyzer";
import { GateInputError } from "../../../tools/cli/errors";
import { ROOT } from "../../mocks";

describe("gate: a pack that cannot start", function () {
    this.timeout(60_000);
    it("is bad input naming the directory", async () => {
        const err = await PolicyPackProcess.start(path.join(ROOT, "test"), { stack: "dev", project: "x" }).then(
            (p) => {
                p.close();
                return undefined;
            },
            (e: Error) => e,
        );
        expect(err).to.be.instanceOf(GateInputError);
        expect(err?.message).to.include("not a policy pack (no PulumiPolicy.yaml)");
    });
});

describe("the pack's boot timeout: only time this process could read the pack's answer counts", () => {
    const busy = (ms: number) => {
        const end = Date.now() + ms;
        while (Date.now() < end) {
            // The parent parsing a large input synchronously.
        }
    };

    it("expires after its budget of readable time", async () => {
        const started = Date.now();
        const expired = await new Promise<number>((resolve) => readableTimeout(120, () => resolve(Date.now() - started), 10));
        expect(expired).to.be.at.least(110).and.below(1000);
    });

    it("does not charge a blocked event loop to the pack: after 400 ms blocked, a 200 ms budget still has most of itself left", async () => {
        const started = Date.now();
        let expiredAt = 0;
        const t = readableTimeout(200, () => (expiredAt = Date.now() - started), 20);
        busy(400);
        // A plain timer would have expired during the block; this one charged at most two ticks.
        await new Promise((r) => setTimeout(r, 60));
        expect(expiredAt, "not expired right after the block").to.equal(0);
        await new Promise((r) => setTimeout(r, 400));
        expect(expiredAt).to.be.greaterThan(400 + 100);
        t.stop();
    });

    it("lets an answer that arrived meanwhile win, and never fires once stopped", async () => {
        let fired = false;
        const t = readableTimeout(30, () => (fired = true), 10);
        t.stop();
        await new Promise((r) => setTimeout(r, 100));
        expect(fired).to.equal(false);
    });

    it(`reads its budget from ${BOOT_TIMEOUT_VARIABLE} (seconds, default 60) and refuses an unusable value by name`, () => {
        expect(bootTimeoutMs({})).to.equal(60_000);
        expect(bootTimeoutMs({ [BOOT_TIMEOUT_VARIABLE]: "" })).to.equal(60_000);
        expect(bootTimeoutMs({ [BOOT_TIMEOUT_VARIABLE]: "180" })).to.equal(180_000);
        expect(bootTimeoutMs({ [BOOT_TIMEOUT_VARIABLE]: "0.5" })).to.equal(500);
        for (const bad of ["0", "-3", "soon"]) {
            expect(() => bootTimeoutMs({ [BOOT_TIMEOUT_VARIABLE]: bad }))
                .to.throw(GateInputError)
                .with.property("message", `${BOOT_TIMEOUT_VARIABLE} must be a number of seconds above 0, not "${bad}"`);
        }
    });
});
