/**
 * EXPERIMENTAL, not wired into the gate yet: a policy pack's handlers run in this process, the
 * SDK's own (`@pulumi/policy` server.js), with no gRPC and no child process.
 *
 * The pack's entry runs as the CLI runs it, except that `serve` is captured instead of starting a
 * server; a fresh instance of the SDK's server.js (its own config and stack tags) is then given the
 * captured arguments with a stand-in for `grpc.Server`, whose `addService` hands over the SDK's
 * handlers (getAnalyzerInfo, configure, configureStack, analyze, analyzeStack).
 */
import * as fs from "fs";
import * as path from "path";
import { Module } from "module";

type Handler = (call: { request: unknown }, cb: (err: unknown, res?: unknown) => void) => unknown;
export type PackHandlers = Record<"getAnalyzerInfo" | "configure" | "configureStack" | "analyze" | "analyzeStack", Handler>;
type ServeArgs = [string, string, string, unknown, unknown];

const captured = new Map<string, ServeArgs>();

function sdkPath(file: string): string {
    return path.join(path.dirname(require.resolve("@pulumi/policy")), file);
}

/** The arguments the pack's entry gives `serve` (cached per entry: a module runs once). */
function packServeArgs(packDir: string): ServeArgs {
    const dir = path.resolve(packDir);
    const entry = ["index.ts", "index.js"].map((f) => path.join(dir, f)).find((f) => fs.existsSync(f));
    if (!entry) {
        throw new Error(`${dir}: policy pack has no index.ts or index.js`);
    }
    const known = captured.get(entry);
    if (known) {
        return known;
    }
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
    } finally {
        server.serve = serve;
        process.cwd = cwd;
    }
    if (!args) {
        throw new Error(`${entry} did not construct a PolicyPack`);
    }
    captured.set(entry, args);
    return args;
}

/** The SDK's handlers for the pack in `packDir`, with state of their own. */
export function inProcessHandlers(packDir: string): PackHandlers {
    const args = packServeArgs(packDir);
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
    m.require = ((id: string): unknown => (id === "@grpc/grpc-js" ? shim : req(id))) as typeof m.require;
    m._compile(fs.readFileSync(file, "utf8"), file);
    (m.exports as { serve: (...a: ServeArgs) => void }).serve(...args);
    if (!handlers) {
        throw new Error("the SDK's serve registered no analyzer service");
    }
    return handlers;
}

/** Calls one handler as gRPC would. */
export function call<Res>(h: Handler, request: unknown): Promise<Res> {
    return new Promise((resolve, reject) => {
        void h({ request }, (err, res) =>
            err ? reject(err instanceof Error ? err : new Error(JSON.stringify(err))) : resolve(res as Res),
        );
    });
}
