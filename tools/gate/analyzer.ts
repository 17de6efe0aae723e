/**
 * A policy pack served the way the Pulumi engine serves it, with no CLI.
 *
 * `new PolicyPack(...)` serves the analyzer gRPC protocol and prints its port. This module starts
 * the pack as that child process (cwd = the pack, program = its index, the engine's environment)
 * and is the client of its calls: GetAnalyzerInfo, ConfigureStack, Configure, Analyze and
 * AnalyzeStack. What to send and what the answers mean is the gate's (gate.ts).
 */
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as grpc from "@grpc/grpc-js";
import { AnalyzerClient } from "@pulumi/pulumi/proto/analyzer_grpc_pb";
import * as analyzerpb from "@pulumi/pulumi/proto/analyzer_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { GateInputError } from "../cli/errors";
import { EffectivePolicyConfig, EnforcementLevel, PackPolicy, PolicyConfigEntry } from "./policyConfig";
import { buildAnalyzeRequest, buildStackRequest, encodeProperties, encodeStackResource, GateResource } from "./requests";

export function levelOf(el: analyzerpb.EnforcementLevel): EnforcementLevel {
    switch (el) {
        case analyzerpb.EnforcementLevel.ADVISORY:
            return "advisory";
        case analyzerpb.EnforcementLevel.MANDATORY:
            return "mandatory";
        case analyzerpb.EnforcementLevel.REMEDIATE:
            return "remediate";
        default:
            return "disabled";
    }
}

function levelToProto(el: EnforcementLevel): analyzerpb.EnforcementLevel {
    return {
        advisory: analyzerpb.EnforcementLevel.ADVISORY,
        mandatory: analyzerpb.EnforcementLevel.MANDATORY,
        remediate: analyzerpb.EnforcementLevel.REMEDIATE,
        disabled: analyzerpb.EnforcementLevel.DISABLED,
    }[el];
}

// The SDK's server accepts 400 MiB; the client must be allowed to send and receive as much.
export const MAX_MESSAGE = 400 * 1024 * 1024;

function unary<Res>(call: (cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown): Promise<Res> {
    return new Promise((resolve, reject) => {
        call((err, res) => (err ? reject(err) : resolve(res)));
    });
}

/** The variable that sets how long a policy pack may take to print its port, in seconds (default 60). */
export const BOOT_TIMEOUT_VARIABLE = "POLICY_PACK_BOOT_TIMEOUT_SECONDS";

/** The pack's boot budget from the environment; an unusable value is bad input, named. */
export function bootTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
    const raw = env[BOOT_TIMEOUT_VARIABLE];
    if (raw === undefined || raw === "") {
        return 60_000;
    }
    const seconds = Number(raw);
    if (!Number.isFinite(seconds) || seconds <= 0) {
        throw new GateInputError(`${BOOT_TIMEOUT_VARIABLE} must be a number of seconds above 0, not "${raw}"`);
    }
    return seconds * 1000;
}

/** What `readableTimeout` needs of time: the wall clock, a repeating timer, and "after pending I/O". */
export interface TimeoutClock {
    now(): number;
    /** Calls `fn` every `ms` ms until the returned function is called; must not keep the process alive. */
    every(ms: number, fn: () => void): () => void;
    /** Calls `fn` once pending I/O callbacks have run. */
    afterIo(fn: () => void): void;
}

const SYSTEM_CLOCK: TimeoutClock = {
    now: Date.now,
    every: (ms, fn) => {
        const timer = setInterval(fn, ms);
        timer.unref?.();
        return () => clearInterval(timer);
    },
    afterIo: (fn) => setImmediate(fn),
};

/**
 * A timeout that counts only the time this process could have read the pack's answer: ticks every
 * `tick` ms and adds at most two ticks per tick, so time the event loop spent blocked (a large
 * input parsed synchronously while the pack boots) is not charged to the pack. On expiry it first
 * lets pending I/O run, so an answer that arrived meanwhile wins. `stop()` ends it.
 */
export function readableTimeout(
    budgetMs: number,
    onExpire: () => void,
    tick = 250,
    clock: TimeoutClock = SYSTEM_CLOCK,
): { stop: () => void } {
    let left = budgetMs;
    let last = clock.now();
    let stopped = false;
    const cancel = clock.every(tick, () => {
        const t = clock.now();
        left -= Math.min(t - last, 2 * tick);
        last = t;
        if (left <= 0) {
            cancel();
            clock.afterIo(() => {
                if (!stopped) {
                    onExpire();
                }
            });
        }
    });
    return {
        stop: () => {
            stopped = true;
            cancel();
        },
    };
}

/** The analyzer's calls the gate makes (analyzer.proto). */
export type AnalyzerCall = "getAnalyzerInfo" | "configure" | "configureStack" | "analyze" | "analyzeStack";

/**
 * Analyze on resources one by one, then AnalyzeStack on all of them: one gate's calls, each
 * resource marshalled once for both, the way its calls travel.
 */
export interface AnalyzeChannel {
    analyze(r: GateResource): Promise<analyzerpb.AnalyzeResponse>;
    /** AnalyzeStack over every resource given to `analyze`, in that order. */
    analyzeStack(): Promise<analyzerpb.AnalyzeResponse>;
}

/**
 * A policy pack the gate talks to: the engine's questions and how their answers read, whichever
 * way the calls travel (the pack's own process over gRPC, or the SDK's handlers in this process:
 * inProcessPack.ts).
 */
export abstract class PolicyPack {
    protected abstract call<Res>(name: AnalyzerCall, request: unknown): Promise<Res>;

    /** A new gate's Analyze and AnalyzeStack calls. */
    abstract channel(): AnalyzeChannel;

    abstract close(): void;

    async info(): Promise<{ name: string; version: string; policies: PackPolicy[]; initialConfig: Record<string, PolicyConfigEntry> }> {
        const info = await this.call<analyzerpb.AnalyzerInfo>("getAnalyzerInfo", new Empty());
        const policies = info.getPoliciesList().map((p): PackPolicy => {
            const schema = p.getConfigschema();
            return {
                name: p.getName(),
                description: p.getDescription(),
                kind: p.getPolicyType() === analyzerpb.PolicyType.POLICY_TYPE_STACK ? "stack" : "resource",
                enforcementLevel: levelOf(p.getEnforcementlevel()),
                ...(schema
                    ? {
                          configSchema: {
                              properties: (schema.getProperties()?.toJavaScript() ?? {}) as Record<string, Record<string, unknown>>,
                              required: schema.getRequiredList(),
                          },
                      }
                    : {}),
            };
        });
        const initialConfig: Record<string, PolicyConfigEntry> = {};
        info.getInitialconfigMap().forEach((v, k) => {
            initialConfig[k] = { enforcementLevel: levelOf(v.getEnforcementlevel()), properties: v.getProperties()?.toJavaScript() ?? {} };
        });
        return { name: info.getName(), version: info.getVersion(), policies, initialConfig };
    }

    /** `tags` reach the policies as `args.stackTags` (the manifest gate marks its input as manifests). */
    async configureStack(stack: string, project: string, tags: Readonly<Record<string, string>> = {}): Promise<void> {
        const req = new analyzerpb.AnalyzerStackConfigureRequest();
        req.setStack(stack);
        req.setProject(project);
        req.setDryRun(true);
        for (const [k, v] of Object.entries(tags)) {
            req.getTagsMap().set(k, v);
        }
        await this.call<analyzerpb.AnalyzerStackConfigureResponse>("configureStack", req);
    }

    async configure(config: Record<string, EffectivePolicyConfig>): Promise<void> {
        const req = new analyzerpb.ConfigureAnalyzerRequest();
        const map = req.getPolicyconfigMap();
        for (const [name, c] of Object.entries(config)) {
            const pc = new analyzerpb.PolicyConfig();
            pc.setEnforcementlevel(levelToProto(c.enforcementLevel));
            pc.setProperties(Struct.deserializeBinary(encodeProperties(c.properties)));
            map.set(name, pc);
        }
        await this.call<Empty>("configure", req);
    }
}

/**
 * The program of the policy pack in `packDir` (its index.ts or index.js), as the CLI finds it; a
 * directory that is not a pack is bad input, named.
 */
export function packEntry(packDir: string): string {
    const dir = path.resolve(packDir);
    if (!fs.existsSync(path.join(dir, "PulumiPolicy.yaml"))) {
        throw new GateInputError(`${dir}: not a policy pack (no PulumiPolicy.yaml)`);
    }
    const entry = ["index.ts", "index.js"].map((f) => path.join(dir, f)).find((f) => fs.existsSync(f));
    if (!entry) {
        throw new GateInputError(`${dir}: policy pack has no index.ts or index.js`);
    }
    return entry;
}

/** A running policy pack: the child process and a client connected to its analyzer server. */
export class PolicyPackProcess extends PolicyPack {
    private constructor(
        private readonly child: ChildProcess,
        readonly client: AnalyzerClient,
        readonly port: number,
    ) {
        super();
    }

    /**
     * Starts the pack in `packDir` as `pulumi-analyzer-policy` would (cwd = the pack, program =
     * its index), with the environment the engine sets, and connects once it prints its port.
     */
    static async start(packDir: string, env: { stack: string; project: string; organization?: string }): Promise<PolicyPackProcess> {
        const dir = path.resolve(packDir);
        const entry = path.basename(packEntry(dir));
        const childEnv: NodeJS.ProcessEnv = {
            ...process.env,
            PULUMI_STACK: env.stack,
            PULUMI_PROJECT: env.project,
            PULUMI_NODEJS_STACK: env.stack,
            PULUMI_NODEJS_PROJECT: env.project,
            PULUMI_DRY_RUN: "true",
            PULUMI_NODEJS_DRY_RUN: "true",
            ...(env.organization ? { PULUMI_ORGANIZATION: env.organization, PULUMI_NODEJS_ORGANIZATION: env.organization } : {}),
        };
        const tsconfig = path.join(dir, "tsconfig.json");
        if (fs.existsSync(tsconfig)) {
            childEnv.TS_NODE_PROJECT = tsconfig;
        } else {
            delete childEnv.TS_NODE_PROJECT;
        }
        const budget = bootTimeoutMs();
        const child = spawn(process.execPath, ["-r", path.join(__dirname, "..", "cli", "registerSwc.js"), entry], {
            cwd: dir,
            env: childEnv,
            stdio: ["ignore", "pipe", "pipe"],
        });
        // The server never exits on its own: whatever way this process ends (process.exit while the
        // pack is still booting included), the pack goes with it.
        const killChild = () => child.kill();
        process.once("exit", killChild);
        child.once("exit", () => process.off("exit", killChild));
        let stderr = "";
        child.stderr?.on("data", (d: Buffer) => {
            stderr += d.toString();
        });
        let booted = () => {};
        const port = await new Promise<number>((resolve, reject) => {
            let out = "";
            const timer = readableTimeout(budget, () => {
                child.kill();
                reject(
                    new GateInputError(
                        `policy pack ${dir} printed no port within ${budget / 1000} s (of time this process could read it; raise ${BOOT_TIMEOUT_VARIABLE} on a slow machine):\n${stderr}`,
                    ),
                );
            });
            const onData = (d: Buffer) => {
                out += d.toString();
                const nl = out.indexOf("\n");
                if (nl >= 0) {
                    timer.stop();
                    booted();
                    child.stdout?.off("data", onData);
                    // Anything the policies print later is theirs to say; keep it off our stdout.
                    child.stdout?.on("data", (more: Buffer) => process.stderr.write(more));
                    const first = out.slice(0, nl).trim();
                    if (/^\d+$/.test(first)) {
                        resolve(Number(first));
                    } else {
                        child.kill();
                        reject(new GateInputError(`policy pack ${dir} printed "${first}" instead of its port:\n${stderr}`));
                    }
                }
            };
            child.stdout?.on("data", onData);
            const onEarlyExit = (code: number | null) => {
                timer.stop();
                reject(new GateInputError(`policy pack ${dir} exited (code ${code}) before serving:\n${stderr.trim()}`));
            };
            child.once("exit", onEarlyExit);
            booted = () => child.off("exit", onEarlyExit);
        });
        const client = new AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
            "grpc.max_send_message_length": MAX_MESSAGE,
            "grpc.max_receive_message_length": MAX_MESSAGE,
        });
        return new PolicyPackProcess(child, client, port);
    }

    protected call<Res>(name: AnalyzerCall, request: unknown): Promise<Res> {
        // Called with the client as `this` below.
        // eslint-disable-next-line @typescript-eslint/unbound-method
        const method = this.client[name] as unknown as (
            this: AnalyzerClient,
            req: unknown,
            cb: (err: grpc.ServiceError | null, res: Res) => void,
        ) => unknown;
        return unary<Res>((cb) => method.call(this.client, request, cb));
    }

    analyze(req: analyzerpb.AnalyzeRequest): Promise<analyzerpb.AnalyzeResponse> {
        return this.call("analyze", req);
    }

    analyzeStack(req: analyzerpb.AnalyzeStackRequest): Promise<analyzerpb.AnalyzeResponse> {
        return this.call("analyzeStack", req);
    }

    channel(): AnalyzeChannel {
        // Each resource as AnalyzeStack will carry it, written while its Analyze goes out.
        const encoded: Uint8Array[] = [];
        const sent: GateResource[] = [];
        return {
            analyze: (r) => {
                const props = encodeProperties(r.props);
                sent.push(r);
                encoded.push(encodeStackResource(r, props));
                return this.analyze(buildAnalyzeRequest(r, props));
            },
            analyzeStack: () => this.analyzeStack(buildStackRequest(sent, encoded)),
        };
    }

    close(): void {
        this.client.close();
        this.child.kill();
    }
}
