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
import { GateInputError } from "./errors";
import { EffectivePolicyConfig, EnforcementLevel, PackPolicy, PolicyConfigEntry } from "./policyConfig";
import { encodeProperties } from "./requests";

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

/** A running policy pack: the child process and a client connected to its analyzer server. */
export class PolicyPackProcess {
    private constructor(
        private readonly child: ChildProcess,
        readonly client: AnalyzerClient,
        readonly port: number,
    ) {}

    /**
     * Starts the pack in `packDir` as `pulumi-analyzer-policy` would (cwd = the pack, program =
     * its index), with the environment the engine sets, and connects once it prints its port.
     */
    static async start(packDir: string, env: { stack: string; project: string; organization?: string }): Promise<PolicyPackProcess> {
        const dir = path.resolve(packDir);
        if (!fs.existsSync(path.join(dir, "PulumiPolicy.yaml"))) {
            throw new GateInputError(`${dir}: not a policy pack (no PulumiPolicy.yaml)`);
        }
        const entry = ["index.ts", "index.js"].find((f) => fs.existsSync(path.join(dir, f)));
        if (!entry) {
            throw new GateInputError(`${dir}: policy pack has no index.ts or index.js`);
        }
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
        const child = spawn(process.execPath, ["-r", path.join(__dirname, "registerSwc.js"), entry], {
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
            const timer = setTimeout(() => {
                child.kill();
                reject(new GateInputError(`policy pack ${dir} printed no port within 60 s:\n${stderr}`));
            }, 60_000);
            const onData = (d: Buffer) => {
                out += d.toString();
                const nl = out.indexOf("\n");
                if (nl >= 0) {
                    clearTimeout(timer);
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
                clearTimeout(timer);
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

    async info(): Promise<{ name: string; version: string; policies: PackPolicy[]; initialConfig: Record<string, PolicyConfigEntry> }> {
        const info = await unary<analyzerpb.AnalyzerInfo>((cb) => this.client.getAnalyzerInfo(new Empty(), cb));
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
        await unary<analyzerpb.AnalyzerStackConfigureResponse>((cb) => this.client.configureStack(req, cb));
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
        await unary<Empty>((cb) => this.client.configure(req, cb));
    }

    analyze(req: analyzerpb.AnalyzeRequest): Promise<analyzerpb.AnalyzeResponse> {
        return unary<analyzerpb.AnalyzeResponse>((cb) => this.client.analyze(req, cb));
    }

    analyzeStack(req: analyzerpb.AnalyzeStackRequest): Promise<analyzerpb.AnalyzeResponse> {
        return unary<analyzerpb.AnalyzeResponse>((cb) => this.client.analyzeStack(req, cb));
    }

    close(): void {
        this.client.close();
        this.child.kill();
    }
}
