/**
 * A policy pack's handlers run in this process: the SDK's own (`@pulumi/policy` 1.21.0,
 * server.js), with no child process, no gRPC and no protobuf bytes. The manifest gate and the
 * offline plan run the pack here by default (`packInProcess`: `--analyzer` on either forces the
 * pack's own process, analyzer.ts, and so does any release of the SDK but the one this module was
 * read in); `pulumi preview --policy-pack` always runs the pack's own process, which stays the
 * reference the equivalence test compares this path with.
 *
 * The pack's entry runs as the CLI runs it, except that `serve` is captured instead of starting a
 * server; a fresh instance of the SDK's server.js (its own configuration and stack tags) is then
 * given the captured arguments with a stand-in for `grpc.Server`, whose `addService` hands over
 * the SDK's handlers (getAnalyzerInfo, configure, configureStack, analyze, analyzeStack). Requests
 * are the analyzer's own messages, except that properties arrive as the value the SDK would have
 * decoded (`wireProperties`, requests.ts), and that the SDK's copy of them is made once for all
 * policies, read-only (`sharedDeserialization`). Verdicts are the same as over gRPC
 * (test/tools/gate/inProcessPack.equivalence.test.ts). Two things differ: AnalyzeStack has no 400 MiB
 * message cap, and a policy that writes to the properties it is given fails the gate here (its
 * error names the policy), where over gRPC the write changes only that policy's own copy
 * (test/tools/gate/inProcessPack.sharing.test.ts).
 */
import * as fs from "fs";
import * as path from "path";
import { Module } from "module";
import * as analyzerpb from "@pulumi/pulumi/proto/analyzer_pb";
import { isPlainAndKnown } from "eks-platform-kernel";
import { internalsVerified } from "eks-platform-policies/runtime";
import { AnalyzeChannel, AnalyzerCall, packEntry, PolicyPack } from "./analyzer";
import { GateInputError } from "../cli/errors";
import { analyzeRequestOf, stackResourceOf, wireProperties } from "./requests";

/**
 * Whether a command runs the pack here: unless `analyzer` (the command's `--analyzer`) asks for the
 * pack's own process, and only on the `@pulumi/policy` release whose internals this module reaches
 * into (`VERIFIED_RELEASES`, eks-platform-policies/runtime). Otherwise the pack runs as its own
 * process (`PolicyPackProcess`), the SDK's stock path.
 */
export function packInProcess(analyzer: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
    return !analyzer && internalsVerified("@pulumi/policy", undefined, env);
}

type Handler = (call: { request: unknown }, cb: (err: unknown, res?: unknown) => void) => unknown;
type PackHandlers = Record<AnalyzerCall, Handler>;
type ServeArgs = [string, string, string, unknown, unknown];

const captured = new Map<string, ServeArgs>();

function sdkPath(file: string): string {
    return path.join(path.dirname(require.resolve("@pulumi/policy")), file);
}

/**
 * While a pack runs here, what its policies print goes to stderr, as the pack's own process
 * sends it (analyzer.ts): stdout carries the report (`--format json`, SARIF). Counted, so packs
 * open at once restore it once.
 */
let redirections = 0;
let stdoutWrite: typeof process.stdout.write | undefined;
function redirectStdout(): () => void {
    if (redirections++ === 0) {
        // eslint-disable-next-line @typescript-eslint/unbound-method
        stdoutWrite = process.stdout.write;
        process.stdout.write = process.stderr.write.bind(process.stderr);
    }
    let restored = false;
    return () => {
        if (!restored && --redirections === 0 && stdoutWrite) {
            process.stdout.write = stdoutWrite;
        }
        restored = true;
    };
}

/** The arguments the pack's entry gives `serve` (kept per entry: a module runs once). */
function packServeArgs(entry: string): ServeArgs {
    const known = captured.get(entry);
    if (known) {
        return known;
    }
    const dir = path.dirname(entry);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const server = require(sdkPath("server.js")) as { serve: (this: void, ...a: ServeArgs) => void };
    const { serve } = server;
    // Kept unbound to put the very same function back.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const { cwd } = process;
    let args: ServeArgs | undefined;
    server.serve = (...a: ServeArgs) => {
        args = a;
    };
    // The pack reads its version from `<cwd>/package.json`; the CLI runs it with cwd = the pack.
    process.cwd = () => dir;
    try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require(entry);
    } catch (err) {
        throw new GateInputError(`policy pack ${dir} failed to load: ${(err as Error).stack ?? String(err)}`);
    } finally {
        server.serve = serve;
        process.cwd = cwd;
    }
    if (!args) {
        throw new GateInputError(`${entry} did not construct a PolicyPack`);
    }
    captured.set(entry, args);
    return args;
}

/**
 * The SDK's handlers for the pack at `entry`, with state of their own. What `serve` refuses (a bad
 * pack or policy name, a reserved config key) ends its process; here it is bad input, named.
 */
function sdkHandlers(entry: string): PackHandlers {
    const args = packServeArgs(entry);
    const file = sdkPath("server.js");
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const grpc = require("@grpc/grpc-js") as Record<string, unknown>;
    let handlers: PackHandlers | undefined;
    class CapturingServer {
        addService(_service: unknown, impl: PackHandlers): void {
            handlers = impl;
        }
        bindAsync(): void {}
    }
    const shim = { ...grpc, Server: CapturingServer };
    const m = new Module(file, module) as Module & { _compile(src: string, file: string): void };
    m.filename = file;
    m.paths = (Module as unknown as { _nodeModulePaths(d: string): string[] })._nodeModulePaths(path.dirname(file));
    const req = m.require.bind(m) as (id: string) => unknown;
    const deserialize = sharedDeserialization(req("./deserialize") as DeserializeModule);
    m.require = ((id: string): unknown =>
        id === "@grpc/grpc-js" ? shim : id === "./deserialize" ? deserialize : req(id)) as typeof m.require;
    m._compile(fs.readFileSync(file, "utf8"), file);
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const { exit } = process;

    const { error } = console;
    const said: string[] = [];
    process.exit = (code?: number | string | null): never => {
        throw new GateInputError(`policy pack ${path.dirname(entry)} refused by the policy SDK (exit ${code ?? 0}): ${said.join(" ")}`);
    };

    console.error = (...a: unknown[]) => said.push(a.map(String).join(" "));
    try {
        (m.exports as { serve: (...a: ServeArgs) => void }).serve(...args);
    } finally {
        process.exit = exit;

        console.error = error;
    }
    if (!handlers) {
        throw new Error("the SDK's serve registered no analyzer service");
    }
    return handlers;
}

interface StructLike {
    toJavaScript(): Record<string, unknown>;
}
interface DeserializeModule {
    deserializeProperties(outputs: StructLike, proxySecrets: boolean): Record<string, unknown>;
}

/**
 * Makes `value` (the SDK's own copy, plain objects and arrays, holding an unknown value or an
 * asset, archive or secret: see `isPlainAndKnown` for the rest) read-only in place, so that one copy can
 * serve every policy: a write to it throws a TypeError (policies are strict-mode code)
 * instead of changing what the next policy reads. Object-valued members stay configurable, so the
 * SDK's unknown-checking proxy (proxy.js) still wraps what a policy reads under them, exactly as
 * over gRPC; members holding primitives are frozen, which the proxy hands back as they are, as it
 * does any primitive. What this cannot refuse: deleting a member that holds an object or a list
 * (it must stay configurable for the proxy), which the next policy would then miss.
 */
export function readOnly(value: unknown): void {
    if (typeof value !== "object" || value === null) {
        return;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    const isArray = Array.isArray(value);
    if (!isArray && proto !== Object.prototype) {
        return; // an asset or archive the SDK built: its own class
    }
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
        const member = record[key];
        const primitive = typeof member !== "object" || member === null;
        Object.defineProperty(record, key, primitive ? { writable: false, configurable: false } : { writable: false });
        readOnly(member);
    }
    if (isArray) {
        Object.defineProperty(record, "length", { writable: false });
    }
    Object.preventExtensions(record);
}

/** Freezes a decoded value (plain objects and arrays) all the way down. */
function frozen(value: unknown): void {
    const pending: unknown[] = [value];
    while (pending.length > 0) {
        const v = pending.pop();
        if (typeof v === "object" && v !== null && !Object.isFrozen(v)) {
            Object.freeze(v);
            for (const member of Object.values(v as Record<string, unknown>)) {
                pending.push(member);
            }
        }
    }
}

/**
 * The SDK's deserialize module with one copy per request's properties for all its policies. The
 * SDK (server.js) deserializes a resource's properties again for every resource policy in Analyze
 * and every stack policy in AnalyzeStack, each time a fresh copy (deserialize.js), up to 17 per
 * object with this pack: at 10,000 workloads those copies and their garbage took 4 s of the 13 s
 * the pack's calls took (docs/benchmarks.md).
 * Here the first call makes the SDK's copy, made read-only, and every later call for the same
 * properties (Analyze and AnalyzeStack share them) returns that copy. A value `isPlainAndKnown` (in the
 * kernel: every manifest object) is its own copy, frozen whole, which refuses any write, delete included; any
 * other is copied by the SDK and made read-only with `readOnly`, which leaves the proxy its way
 * to unknown values under every member (at 10,000 workloads, its property-by-property work was
 * 0.5 s that freezing does not cost, and the SDK's copy another deep copy per object). With
 * `proxySecrets` (remediation, never run by the gate) the SDK's own call is made every time.
 */
function sharedDeserialization(sdk: DeserializeModule): DeserializeModule {
    const copies = new WeakMap<StructLike, Record<string, unknown>>();
    return {
        ...sdk,
        deserializeProperties(outputs, proxySecrets) {
            if (proxySecrets) {
                return sdk.deserializeProperties(outputs, proxySecrets);
            }
            let copy = copies.get(outputs);
            if (copy === undefined) {
                const decoded = outputs.toJavaScript();
                if (isPlainAndKnown(decoded)) {
                    // The SDK's copy would be the decoded value member for member, and its proxy can
                    // find no unknown under any member: the value (no one else holds it) is used as
                    // it is, frozen whole.
                    copy = decoded;
                    frozen(copy);
                } else {
                    copy = sdk.deserializeProperties({ toJavaScript: () => decoded }, false);
                    readOnly(copy);
                }
                copies.set(outputs, copy);
            }
            return copy;
        },
    };
}

/** Properties as a request carries them: the value the SDK's decoding would give, one struct for both requests. */
function withProperties<T extends { getProperties(): unknown }>(message: T, struct: StructLike): T {
    message.getProperties = () => struct;
    return message;
}

/** The pack in `packDir`, its handlers in this process. */
export class InProcessPack extends PolicyPack {
    private constructor(
        private readonly handlers: PackHandlers,
        private readonly restoreStdout: () => void,
    ) {
        super();
    }

    /** Loads the pack (async only to be started as its own process is: analyzer.ts). */
    static start(packDir: string): Promise<InProcessPack> {
        const restore = redirectStdout();
        try {
            return Promise.resolve(new InProcessPack(sdkHandlers(packEntry(packDir)), restore));
        } catch (err) {
            restore();
            return Promise.reject(err instanceof Error ? err : new Error(String(err)));
        }
    }

    protected call<Res>(name: AnalyzerCall, request: unknown): Promise<Res> {
        return new Promise((resolve, reject) => {
            void this.handlers[name]({ request }, (err, res) =>
                err
                    ? reject(
                          err instanceof Error
                              ? err
                              : new Error(`${name}: ${(err as { details?: string }).details ?? JSON.stringify(err)}`),
                      )
                    : resolve(res as Res),
            );
        });
    }

    channel(): AnalyzeChannel {
        const sent: analyzerpb.AnalyzerResource[] = [];
        return {
            analyze: (r) => {
                // Decoded when the SDK first reads it, and not kept: the SDK's copy is (`sharedDeserialization`).
                const struct = { toJavaScript: () => wireProperties(r.props) };
                sent.push(withProperties(stackResourceOf(r), struct));
                return this.call<analyzerpb.AnalyzeResponse>("analyze", withProperties(analyzeRequestOf(r), struct));
            },
            analyzeStack: () => {
                const req = new analyzerpb.AnalyzeStackRequest();
                req.setResourcesList(sent);
                return this.call<analyzerpb.AnalyzeResponse>("analyzeStack", req);
            },
        };
    }

    close(): void {
        this.restoreStdout();
    }
}
