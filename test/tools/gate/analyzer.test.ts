import { expect } from "chai";
import * as path from "path";
import { BOOT_TIMEOUT_VARIABLE, bootTimeoutMs, PolicyPackProcess, readableTimeout, TimeoutClock } from "../../../tools/gate/analyzer";
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

/**
 * A clock the test moves by hand: `pass(ms)` is time that passes with the event loop free (the
 * timer fires every tick), `block(ms)` is time the loop spends busy (no tick fires meanwhile; the
 * timer catches up with one tick afterwards, as Node's setInterval does).
 */
function handClock() {
    let time = 0;
    let tickMs = 0;
    let onTick: (() => void) | undefined;
    let pendingIo: (() => void)[] = [];
    const clock: TimeoutClock = {
        now: () => time,
        every: (ms, fn) => {
            tickMs = ms;
            onTick = fn;
            return () => (onTick = undefined);
        },
        afterIo: (fn) => pendingIo.push(fn),
    };
    const runIo = () => {
        const io = pendingIo;
        pendingIo = [];
        io.forEach((fn) => fn());
    };
    return {
        clock,
        pass(ms: number) {
            for (let t = 0; t + tickMs <= ms && onTick; t += tickMs) {
                time += tickMs;
                onTick();
                runIo();
            }
        },
        block(ms: number) {
            time += ms;
            onTick?.();
        },
        runIo,
        get ticking() {
            return onTick !== undefined;
        },
    };
}

describe("the pack's boot timeout: only time this process could read the pack's answer counts", () => {
    it("expires once its budget of readable time has passed, not a tick before", () => {
        const c = handClock();
        let fired = 0;
        readableTimeout(120, () => fired++, 10, c.clock);
        c.pass(110);
        expect(fired, "110 of 120 ms passed").to.equal(0);
        c.pass(10);
        expect(fired, "120 of 120 ms passed").to.equal(1);
        expect(c.ticking, "the timer stops once expired").to.equal(false);
        c.pass(100);
        expect(fired, "it fires once").to.equal(1);
    });

    it("does not charge a blocked event loop to the pack: a 400 ms block costs at most two ticks of a 200 ms budget", () => {
        const c = handClock();
        let fired = 0;
        readableTimeout(200, () => fired++, 20, c.clock);
        c.block(400);
        expect(fired, "a plain timer would have expired during the block").to.equal(0);
        c.pass(140);
        expect(fired, "40 (the block, two ticks) + 140 of 200 ms").to.equal(0);
        c.pass(20);
        expect(fired, "40 + 160 of 200 ms").to.equal(1);
    });

    it("lets an answer that arrived meanwhile win: expiry waits for pending I/O, and a stop then cancels it", () => {
        const c = handClock();
        let fired = false;
        const t = readableTimeout(30, () => (fired = true), 10, c.clock);
        c.block(10);
        c.block(10);
        c.block(10);
        expect(fired, "expiry is deferred until pending I/O has run").to.equal(false);
        t.stop();
        c.runIo();
        expect(fired).to.equal(false);
    });

    it("never fires once stopped", () => {
        const c = handClock();
        let fired = false;
        const t = readableTimeout(30, () => (fired = true), 10, c.clock);
        t.stop();
        expect(c.ticking, "stop cancels the timer").to.equal(false);
        c.pass(100);
        expect(fired).to.equal(false);
    });

    it("runs on the real timers by default, and they keep no process alive", async () => {
        const fired = await new Promise<boolean>((resolve) => readableTimeout(20, () => resolve(true), 5));
        expect(fired).to.equal(true);
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
