import { strict as assert } from "assert";
import * as path from "path";
import { BOOT_TIMEOUT_VARIABLE, PolicyPackProcess } from "../../../tools/gate/analyzer";
import { GateInputError } from "../../../tools/cli/errors";
import { runGate } from "../../../tools/gate/gate";
import { InProcessPack, packInProcess } from "../../../tools/gate/inProcessPack";
import { checkManifests } from "../../../tools/manifests/manifestCheck";
import { GateResource, urnOf } from "../../../tools/gate/requests";
import { VERIFIED_RELEASES } from "eks-platform-policies/runtime";
import { ROOT, runTool } from "../../mocks";

const FIXTURES = path.join(ROOT, "test", "fixtures", "pack");
/** Its policies console.log on every Analyze and on AnalyzeStack. */
const PRINTING = path.join(FIXTURES, "printing");
/** Named "refused pack!": the SDK's serve prints why and calls process.exit(1). */
const REFUSED = path.join(FIXTURES, "refused");
const PRINTED = "printed by a policy of the printing fixture pack";

const deployment = (name: string): GateResource => ({
    urn: urnOf("dev", "test", "kubernetes:apps/v1:Deployment", name),
    type: "kubernetes:apps/v1:Deployment",
    name,
    props: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name, namespace: "team" }, spec: { replicas: 2 } },
});

type Write = typeof process.stdout.write;

// What these functions are now, to compare (never to call).
// eslint-disable-next-line @typescript-eslint/unbound-method
const stdoutWriteNow = (): unknown => process.stdout.write;
// eslint-disable-next-line @typescript-eslint/unbound-method
const exitNow = (): unknown => process.exit;
const consoleErrorNow = (): unknown => console.error;

/**
 * Records what reaches stdout and stderr (nothing reaches the terminal) until `restore`. The
 * recorders are what a pack finds when it starts, so `stdoutWrite` is what it must put back.
 */
function captureOutput() {
    // Kept unbound to put the very same functions back.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const [out, err] = [process.stdout.write, process.stderr.write];
    const stdout: string[] = [];
    const stderr: string[] = [];
    const recorder =
        (into: string[]): Write =>
        (chunk: string | Uint8Array, ...rest: unknown[]) => {
            into.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString());
            const cb = rest.find((r): r is () => void => typeof r === "function");
            cb?.();
            return true;
        };
    const stdoutWrite = recorder(stdout);
    process.stdout.write = stdoutWrite;
    process.stderr.write = recorder(stderr);
    return {
        stdout,
        stderr,
        stdoutWrite,
        restore: () => {
            process.stdout.write = out;
            process.stderr.write = err;
        },
    };
}

const gate = (pack: InProcessPack, resources: GateResource[]) =>
    runGate({ packDir: PRINTING, stack: "dev", project: "test", resources, pack: Promise.resolve(pack) });

describe("in-process pack (tools/gate/inProcessPack.ts): what a policy prints, and a pack the SDK refuses", function () {
    this.timeout(120_000);

    it("sends what a policy prints with console.log to stderr while the pack is open, and gives stdout back on close", async () => {
        const io = captureOutput();
        try {
            const pack = await InProcessPack.start(PRINTING);
            assert.notEqual(stdoutWriteNow(), io.stdoutWrite, "stdout is redirected while the pack is open");
            let report;
            try {
                report = await gate(pack, [deployment("web"), deployment("api")]);
            } finally {
                pack.close();
            }
            assert.equal(stdoutWriteNow(), io.stdoutWrite, "close() puts stdout's own write back");
            console.log("after close");
            io.restore();
            assert.deepStrictEqual(report.diagnostics, []);
            assert.deepStrictEqual(io.stdout, ["after close\n"], "nothing the policies printed reached stdout");
            const printed = io.stderr.join("");
            for (const line of [`${PRINTED}: analyze web`, `${PRINTED}: analyze api`, `${PRINTED}: analyzeStack over 2 resources`]) {
                assert.ok(printed.includes(line), `stderr has "${line}": ${printed}`);
            }
        } finally {
            io.restore();
        }
    });

    it("keeps stdout redirected until the last of two open packs closes (a second close of one counts once)", async () => {
        const io = captureOutput();
        try {
            const first = await InProcessPack.start(PRINTING);
            const second = await InProcessPack.start(PRINTING);
            first.close();
            first.close();
            assert.notEqual(stdoutWriteNow(), io.stdoutWrite, "one pack is still open: stdout stays redirected");
            try {
                await gate(second, [deployment("still-open")]);
            } finally {
                second.close();
            }
            assert.equal(stdoutWriteNow(), io.stdoutWrite, "the last close puts stdout's own write back");
            // Opened and closed again: the count started over from zero.
            const third = await InProcessPack.start(PRINTING);
            try {
                await gate(third, [deployment("reopened")]);
            } finally {
                third.close();
            }
            assert.equal(stdoutWriteNow(), io.stdoutWrite, "and again after a pack opened later closes");
            io.restore();
            assert.deepStrictEqual(io.stdout, [], "nothing the policies printed reached stdout");
            const printed = io.stderr.join("");
            assert.ok(printed.includes(`${PRINTED}: analyze still-open`), printed);
            assert.ok(printed.includes(`${PRINTED}: analyze reopened`), printed);
        } finally {
            io.restore();
        }
    });

    it("rejects a pack the SDK's serve refuses with a GateInputError naming the refusal; process.exit, console.error and stdout are restored", async () => {
        const io = captureOutput();
        // Kept unbound to put the very same functions back.
        // eslint-disable-next-line @typescript-eslint/unbound-method
        const { exit } = process;
        const { error } = console;
        // Should the SDK's process.exit ever get past the pack, it must not end the test run.
        const exits: unknown[] = [];
        const guard = ((code?: number) => {
            exits.push(code);
            throw new Error(`process.exit(${code}) reached the test process`);
        }) as typeof process.exit;
        process.exit = guard;
        try {
            // Twice: the second start serves the captured arguments again, and is refused again.
            for (const attempt of ["first", "second"]) {
                await assert.rejects(InProcessPack.start(REFUSED), (err: unknown) => {
                    assert.ok(err instanceof GateInputError, `${attempt} start: a GateInputError, not ${String(err)}`);
                    assert.match(err.message, /^policy pack .*refused refused by the policy SDK \(exit 1\): /);
                    assert.ok(
                        err.message.includes(
                            'Invalid policy pack name "refused pack!". Policy pack names may only contain alphanumerics, hyphens, underscores, or periods.',
                        ),
                        err.message,
                    );
                    return true;
                });
            }
            assert.deepStrictEqual(exits, [], "the SDK's process.exit never reached the process");
            assert.equal(exitNow(), guard, "process.exit is restored");
            assert.equal(consoleErrorNow(), error, "console.error is restored");
            assert.equal(stdoutWriteNow(), io.stdoutWrite, "stdout is restored");
            io.restore();
            assert.deepStrictEqual(io.stdout, []);
            assert.ok(!io.stderr.join("").includes("Invalid policy pack name"), "the SDK's complaint is in the error, not printed");
        } finally {
            process.exit = exit;
            console.error = error;
            io.restore();
        }
    });

    it("refuses that pack for the same reason as the pack's own process does", async () => {
        await assert.rejects(PolicyPackProcess.start(REFUSED, { stack: "dev", project: "test" }), (err: unknown) => {
            assert.ok(err instanceof GateInputError, String(err));
            assert.match(err.message, /exited \(code 1\) before serving:\nInvalid policy pack name "refused pack!"\./);
            return true;
        });
    });
});

describe("in-process pack: only on the @pulumi/policy release it was verified on (packInProcess)", function () {
    this.timeout(300_000);
    const { stockVariable } = VERIFIED_RELEASES["@pulumi/policy"];
    const MANIFESTS = path.join(ROOT, "test", "fixtures", "manifests", "broken");

    /** Runs `fn` with `vars` set in this process's environment (and so in any tool it starts), then restores them. */
    async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
        const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
        Object.assign(process.env, vars);
        try {
            return await fn();
        } finally {
            for (const [k, v] of Object.entries(before)) {
                if (v === undefined) {
                    delete process.env[k];
                } else {
                    process.env[k] = v;
                }
            }
        }
    }

    it("runs the pack here unless --analyzer asks for its own process or the SDK's stock path is asked for", () => {
        assert.equal(packInProcess(false, {}), true);
        assert.equal(packInProcess(undefined, {}), true);
        assert.equal(packInProcess(true, {}), false);
        assert.equal(packInProcess(false, { [stockVariable]: "1" }), false);
    });

    it("policy:check starts the pack's own process on the stock path, and the pack here otherwise", async () => {
        // Kept unbound to put the very same functions back.
        // eslint-disable-next-line @typescript-eslint/unbound-method
        const [own, here] = [PolicyPackProcess.start, InProcessPack.start];
        const started: string[] = [];
        PolicyPackProcess.start = (...a: Parameters<typeof own>) => {
            started.push("own process");
            return own.apply(PolicyPackProcess, a);
        };
        InProcessPack.start = (...a: Parameters<typeof here>) => {
            started.push("here");
            return here.apply(InProcessPack, a);
        };
        try {
            const check = () => checkManifests({ paths: [MANIFESTS], env: "prod", packDir: path.join(ROOT, "policies") });
            const stock = await withEnv({ [stockVariable]: "1" }, check);
            assert.deepStrictEqual(started, ["own process"]);
            const verified = await check();
            assert.deepStrictEqual(started, ["own process", "here"]);
            assert.ok(stock.violations.length > 0, "the fixture breaks policies");
            assert.deepStrictEqual(stock.report, verified.report);
        } finally {
            PolicyPackProcess.start = own;
            InProcessPack.start = here;
        }
    });

    it("plan starts the pack's own process on the stock path (a boot budget too short for any process fails it), and the pack here otherwise", async () => {
        const tooShort = { [BOOT_TIMEOUT_VARIABLE]: "0.001" };
        const stock = await withEnv({ ...tooShort, [stockVariable]: "1" }, () => runTool("plan.ts", ["dev", "--format", "json"]));
        assert.equal(stock.code, 2, stock.stderr);
        assert.match(stock.stderr, /printed no port within 0\.001 s/);
        const verified = await withEnv(tooShort, () => runTool("plan.ts", ["dev", "--format", "json"]));
        assert.equal(verified.code, 0, verified.stderr);
    });
});
