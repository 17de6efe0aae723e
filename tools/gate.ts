/**
 * The policy gate: runs a CrossGuard policy pack the way the Pulumi CLI does, with no CLI.
 *
 * `new PolicyPack(...)` serves the analyzer gRPC protocol and prints its port; the engine then
 * calls GetAnalyzerInfo, ConfigureStack, Configure, Analyze (each resource) and AnalyzeStack (all
 * resources). This module starts the pack as that child process and plays the engine's part, so
 * enforcement levels, unknown-value handling and messages are the SDK's own. What the engine does
 * in Go before Configure — reading `--policy-pack-config`, filling schema defaults, applying
 * `all`, validating each policy's config against its `configSchema` — is reproduced here.
 */
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as grpc from "@grpc/grpc-js";
import Ajv from "ajv";
import { AnalyzerClient } from "@pulumi/pulumi/proto/analyzer_grpc_pb";
import * as analyzerpb from "@pulumi/pulumi/proto/analyzer_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as YAML from "yaml";
import { UNDECIDED } from "../policies/lib/scope";
import { UNKNOWN } from "./offline";
import type { Plan, PlanViolation } from "./plan";

export { UNKNOWN };

export type EnforcementLevel = "advisory" | "mandatory" | "remediate" | "disabled";
const LEVELS: readonly EnforcementLevel[] = ["advisory", "mandatory", "remediate", "disabled"];

/** Input the gate cannot use (config file, pack that does not start): CLIs exit 2. */
export class GateInputError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "GateInputError";
    }
}

/** One entry of a `--policy-pack-config` file, after parsing. */
export interface PolicyConfigEntry {
    enforcementLevel?: EnforcementLevel;
    properties?: Record<string, unknown>;
}

function lineOfOffset(text: string, offset: number): number {
    return text.slice(0, offset).split("\n").length;
}

/**
 * Parses a policy pack config file as `pulumi preview --policy-pack-config` does: each key is a
 * policy name (or `all`); its value is an enforcement level, or an object with an optional
 * `enforcementLevel` and the policy's config properties. Throws one error listing every problem.
 */
export function parsePolicyPackConfig(text: string, file: string): Record<string, PolicyConfigEntry> {
    if (text.trim() === "") {
        return {};
    }
    let raw: unknown;
    try {
        raw = JSON.parse(text);
    } catch (err) {
        const message = (err as Error).message.split("\n")[0];
        const pos = /position (\d+)/.exec(message);
        // V8 gives no position for an unexpected token; a JSON-schema YAML parse of the same text
        // locates the first error.
        const line = pos ? lineOfOffset(text, Number(pos[1])) : YAML.parseDocument(text, { schema: "json" }).errors[0]?.linePos?.[0].line;
        throw new GateInputError(`${file}${line ? `:${line}` : ""}: not valid JSON: ${message}`);
    }
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
        throw new GateInputError(`${file}: must be a JSON object keyed by policy name`);
    }
    const problems: string[] = [];
    const result: Record<string, PolicyConfigEntry> = {};
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
        if (typeof value === "string") {
            if (!LEVELS.includes(value as EnforcementLevel)) {
                problems.push(`${key}: "${value}" is not an enforcement level (one of ${LEVELS.join(", ")})`);
                continue;
            }
            result[key] = { enforcementLevel: value as EnforcementLevel };
        } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
            const { enforcementLevel, ...properties } = value as Record<string, unknown>;
            const entry: PolicyConfigEntry = {};
            if (enforcementLevel !== undefined) {
                if (typeof enforcementLevel !== "string" || !LEVELS.includes(enforcementLevel as EnforcementLevel)) {
                    problems.push(
                        `${key}.enforcementLevel: ${JSON.stringify(enforcementLevel)} is not an enforcement level (one of ${LEVELS.join(", ")})`,
                    );
                    continue;
                }
                entry.enforcementLevel = enforcementLevel as EnforcementLevel;
            }
            if (Object.keys(properties).length > 0) {
                entry.properties = properties;
            }
            if (entry.enforcementLevel || entry.properties) {
                result[key] = entry;
            }
        } else {
            problems.push(`${key}: must be an enforcement level or an object, not ${JSON.stringify(value)}`);
        }
    }
    if (problems.length > 0) {
        throw new GateInputError(
            `Invalid policy config ${file} (${problems.length} problem${problems.length > 1 ? "s" : ""}):\n${problems.map((p) => `  - ${p}`).join("\n")}`,
        );
    }
    return result;
}

/** What the pack says about one of its policies (GetAnalyzerInfo). */
export interface PackPolicy {
    name: string;
    description: string;
    kind: "resource" | "stack";
    enforcementLevel: EnforcementLevel;
    configSchema?: { properties?: Record<string, Record<string, unknown>>; required?: string[] };
}

/** Effective config of one policy, as sent in Configure. */
export interface EffectivePolicyConfig {
    enforcementLevel: EnforcementLevel;
    properties: Record<string, unknown>;
}

/**
 * Merges schema defaults, the pack's initial config and the file's config, then validates every
 * policy's properties against its schema — the engine's order. Keys naming no policy are kept (the
 * engine forwards them too) and returned as warnings, since a typo there silently configures nothing.
 */
export function reconcilePolicyConfig(
    policies: readonly PackPolicy[],
    initial: Record<string, PolicyConfigEntry>,
    config: Record<string, PolicyConfigEntry>,
    file: string,
): { config: Record<string, EffectivePolicyConfig>; warnings: string[] } {
    const result: Record<string, EffectivePolicyConfig> = {};
    for (const p of policies) {
        const defaults: Record<string, unknown> = {};
        for (const [k, schema] of Object.entries(p.configSchema?.properties ?? {})) {
            if ("default" in schema) {
                defaults[k] = schema.default;
            }
        }
        result[p.name] = { enforcementLevel: p.enforcementLevel, properties: defaults };
    }
    const apply = (layer: Record<string, PolicyConfigEntry>) => {
        const all = layer.all?.enforcementLevel;
        if (all) {
            for (const name of Object.keys(result)) {
                result[name] = { ...result[name], enforcementLevel: all };
            }
        }
        for (const [name, given] of Object.entries(layer)) {
            const current = result[name] ?? { enforcementLevel: "advisory", properties: {} };
            result[name] = {
                enforcementLevel: given.enforcementLevel ?? current.enforcementLevel,
                properties: { ...current.properties, ...(given.properties ?? {}) },
            };
        }
    };
    apply(initial);
    apply(config);

    const known = new Set(policies.map((p) => p.name));
    const warnings = Object.keys(config)
        .filter((k) => k !== "all" && !known.has(k))
        .map((k) => `${file}: "${k}" names no policy of this pack; its config has no effect`);

    const ajv = new Ajv({ allErrors: true, strict: false });
    const problems: string[] = [];
    for (const p of policies) {
        const schema = {
            type: "object",
            ...(p.configSchema?.properties ? { properties: p.configSchema.properties } : {}),
            ...(p.configSchema?.required?.length ? { required: p.configSchema.required } : {}),
        };
        const validate = ajv.compile(schema);
        if (!validate(result[p.name].properties)) {
            for (const e of validate.errors ?? []) {
                const missing = e.keyword === "required" ? `.${String((e.params as { missingProperty: string }).missingProperty)}` : "";
                const where = `${e.instancePath.replace(/\//g, ".")}${missing}`;
                problems.push(`${p.name}${where}: ${e.message ?? "is invalid"}`);
            }
        }
    }
    if (problems.length > 0) {
        throw new GateInputError(
            `Invalid policy config ${file} (${problems.length} problem${problems.length > 1 ? "s" : ""}):\n${problems.map((p) => `  - ${p}`).join("\n")}`,
        );
    }
    return { config: result, warnings };
}

/** Reads a config file; a missing file is an error, as for `--policy-pack-config`. */
export function loadPolicyPackConfig(file: string): Record<string, PolicyConfigEntry> {
    if (!fs.existsSync(file)) {
        throw new GateInputError(`${file}: policy config file not found`);
    }
    return parsePolicyPackConfig(fs.readFileSync(file, "utf8"), file);
}

/**
 * The config file of an environment, `<pack>/config/<env>.json`. A pack with a `config/` directory
 * but no file for `env` is an input error naming the environments it has (a misspelt `--env`, or a
 * new stack whose policy config was not added: `pulumi preview --policy-pack-config` would fail
 * too). A pack without `config/` runs with its own levels and defaults, as `pulumi preview
 * --policy-pack` does without `--policy-pack-config`, and says so.
 */
export function environmentConfig(packDir: string, env: string): { file?: string; warnings: string[] } {
    const dir = path.join(packDir, "config");
    const file = path.join(dir, `${env}.json`);
    const shown = path.relative(process.cwd(), file) || file;
    if (fs.existsSync(file)) {
        return { file, warnings: [] };
    }
    if (fs.existsSync(dir)) {
        const known = fs
            .readdirSync(dir)
            .filter((f) => f.endsWith(".json"))
            .map((f) => f.slice(0, -".json".length))
            .sort();
        throw new GateInputError(
            `${shown} not found: no policy config for environment "${env}" (have: ${known.join(", ") || "none"}); add the file or pick one of those`,
        );
    }
    return { warnings: [`${shown} not found: the pack's own enforcement levels and defaults apply`] };
}

/** A URN as the engine builds it: ancestors' types (the stack excluded) joined by `$`. */
export function urnOf(stack: string, project: string, qualifiedType: string, name: string): string {
    return `urn:pulumi:${stack}::${project}::${qualifiedType}::${name}`;
}

/** One resource as the engine sends it to the analyzer. */
export interface GateResource {
    urn: string;
    type: string;
    name: string;
    props: Record<string, unknown>;
    parent?: string;
    protect?: boolean;
    dependencies?: string[];
}

/**
 * Converts a value into something `Struct.fromJavaScript` accepts, as the engine's marshalling
 * would: `undefined` members are dropped, non-finite numbers and other exotic values become null.
 */
export function toStructValue(value: unknown): unknown {
    if (value === null || typeof value === "string" || typeof value === "boolean") {
        return value;
    }
    if (typeof value === "number") {
        return Number.isFinite(value) ? value : null;
    }
    if (Array.isArray(value)) {
        return value.map((v) => (v === undefined ? null : toStructValue(v)));
    }
    if (value instanceof Date) {
        return value.toISOString();
    }
    if (typeof value === "object") {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
            if (v !== undefined) {
                out[k] = toStructValue(v);
            }
        }
        return out;
    }
    return typeof value === "bigint" ? Number(value) : null;
}

function levelOf(el: analyzerpb.EnforcementLevel): EnforcementLevel {
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

function buildOptions(r: GateResource): analyzerpb.AnalyzerResourceOptions {
    const opts = new analyzerpb.AnalyzerResourceOptions();
    opts.setProtect(r.protect ?? false);
    opts.setCustomtimeouts(new analyzerpb.AnalyzerResourceOptions.CustomTimeouts());
    if (r.parent) {
        opts.setParent(r.parent);
    }
    return opts;
}

/** The AnalyzeStack request for these resources (exported so the bench can size it). */
export function buildStackRequest(resources: readonly GateResource[], structs?: readonly Struct[]): analyzerpb.AnalyzeStackRequest {
    const req = new analyzerpb.AnalyzeStackRequest();
    req.setResourcesList(
        resources.map((r, i) => {
            const a = new analyzerpb.AnalyzerResource();
            a.setUrn(r.urn);
            a.setType(r.type);
            a.setName(r.name);
            a.setProperties(structs?.[i] ?? Struct.fromJavaScript(toStructValue(r.props) as Record<string, never>));
            a.setOptions(buildOptions(r));
            if (r.parent) {
                a.setParent(r.parent);
            }
            a.setDependenciesList(r.dependencies ?? []);
            return a;
        }),
    );
    return req;
}

// The SDK's server accepts 400 MiB; the client must be allowed to send and receive as much.
const MAX_MESSAGE = 400 * 1024 * 1024;
const IN_FLIGHT = 64;

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
            pc.setProperties(Struct.fromJavaScript(toStructValue(c.properties) as Record<string, never>));
            map.set(name, pc);
        }
        await unary<Empty>((cb) => this.client.configure(req, cb));
    }

    analyze(r: GateResource, props: Struct): Promise<analyzerpb.AnalyzeResponse> {
        const req = new analyzerpb.AnalyzeRequest();
        req.setUrn(r.urn);
        req.setType(r.type);
        req.setName(r.name);
        req.setProperties(props);
        req.setOptions(buildOptions(r));
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

/**
 * The resources of an offline plan as the engine would send them. The plan records a parent or
 * dependency by logical name only; names are unique per type, so a name is resolved to the
 * component (a type without a `/` module, not a provider) registered before, else the first match.
 */
export function planToGateResources(plan: Plan, project: string): GateResource[] {
    const isComponent = (type: string) => !type.split(":")[1]?.includes("/") && !type.startsWith("pulumi:providers:");
    const qualified: string[] = [];
    const urns: string[] = [];
    const resolve = (name: string, before: number): number => {
        const candidates: number[] = [];
        for (let j = 0; j < before; j++) {
            if (plan.resources[j].name === name) {
                candidates.push(j);
            }
        }
        return candidates.find((j) => isComponent(plan.resources[j].type)) ?? candidates[0] ?? -1;
    };
    return plan.resources.map((r, i) => {
        const parent = r.options?.parent ? resolve(r.options.parent, i) : -1;
        qualified[i] = parent >= 0 ? `${qualified[parent]}$${r.type}` : r.type;
        urns[i] = urnOf(plan.stack, project, qualified[i], r.name);
        const dependencies = (r.options?.dependsOn ?? [])
            .map((d) => resolve(d, i))
            .filter((j) => j >= 0)
            .map((j) => urns[j]);
        return {
            urn: urns[i],
            type: r.type,
            name: r.name,
            props: r.props,
            ...(parent >= 0 ? { parent: urns[parent] } : {}),
            ...(r.options?.protect ? { protect: true } : {}),
            ...(dependencies.length > 0 ? { dependencies } : {}),
        };
    });
}

/** A gate verdict in the plan's JSON shape; Kubernetes objects also carry kind and namespace. */
export function toPlanViolation(d: GateDiagnostic, byUrn: ReadonlyMap<string, GateResource>, stack: string): PlanViolation {
    const r = d.urn ? byUrn.get(d.urn) : undefined;
    const meta = (r?.props.metadata ?? {}) as { namespace?: unknown };
    const kind = r?.type.startsWith("kubernetes:") && typeof r.props.kind === "string" ? r.props.kind : undefined;
    const namespace = typeof meta.namespace === "string" && meta.namespace !== UNKNOWN ? meta.namespace : undefined;
    return {
        policy: d.policy,
        level: d.level,
        resource: r
            ? { type: r.type, name: r.name, ...(kind ? { kind } : {}), ...(namespace ? { namespace } : {}) }
            : { type: "pulumi:pulumi:Stack", name: stack },
        message: d.message,
    };
}

/**
 * One verdict of the pack. `undeterminable`: the policy read a value unknown at preview.
 * `undecided`: the policy says the input does not show enough to decide (an advisory "Undecided:" verdict).
 */
export interface GateDiagnostic {
    policy: string;
    level: "mandatory" | "advisory";
    urn?: string;
    message: string;
    undeterminable: boolean;
    undecided?: true;
}

export interface PolicyOutcome {
    name: string;
    kind: "resource" | "stack";
    level: EnforcementLevel;
    /** Resources the policy ran on (not reported as not applicable). */
    evaluated: number;
}

export interface GateReport {
    pack: string;
    configFile?: string;
    resources: number;
    policies: PolicyOutcome[];
    diagnostics: GateDiagnostic[];
    warnings: string[];
}

export interface GateOptions {
    packDir: string;
    /** The `--policy-pack-config` file; without it the pack's own levels and defaults apply. */
    configFile?: string;
    stack: string;
    project: string;
    resources: readonly GateResource[];
    /** Notes to show with the report (e.g. a missing environment config). */
    warnings?: string[];
    /** An already started pack (the caller closes it). Defaults to starting `packDir`. */
    pack?: Promise<PolicyPackProcess>;
    /** Stack tags for the policies' `args.stackTags` (the manifest gate marks its input as manifests). */
    stackTags?: Readonly<Record<string, string>>;
}

const UNDETERMINABLE = /^can't run policy '.*' from policy pack '.*' during preview:/;

/** Runs the pack over the resources the way `pulumi preview --policy-pack` does. */
export async function runGate(opts: GateOptions): Promise<GateReport> {
    const fileConfig = opts.configFile ? loadPolicyPackConfig(opts.configFile) : {};
    const owned = !opts.pack;
    const pack = await (opts.pack ?? PolicyPackProcess.start(opts.packDir, { stack: opts.stack, project: opts.project }));
    try {
        const info = await pack.info();
        const { config, warnings } = reconcilePolicyConfig(
            info.policies,
            info.initialConfig,
            fileConfig,
            opts.configFile ?? "(no config file)",
        );
        await pack.configureStack(opts.stack, opts.project, opts.stackTags);
        await pack.configure(config);

        const levelOfPolicy = (name: string): "mandatory" | "advisory" => {
            const l = config[name]?.enforcementLevel ?? "advisory";
            return l === "mandatory" || l === "remediate" ? "mandatory" : "advisory";
        };
        const diagnostics: GateDiagnostic[] = [];
        const toDiagnostic = (d: analyzerpb.AnalyzeDiagnostic, urn: string | undefined): GateDiagnostic => {
            const undeterminable = UNDETERMINABLE.test(d.getMessage());
            const reported = levelOf(d.getEnforcementlevel());
            return {
                policy: d.getPolicyname(),
                // The runtime downgrades a policy it could not run to advisory; the gate keeps the
                // configured level, so an unknown value can never turn a mandatory check into a pass.
                level: undeterminable ? levelOfPolicy(d.getPolicyname()) : reported === "advisory" ? "advisory" : "mandatory",
                ...(d.getUrn() || urn ? { urn: d.getUrn() || urn } : {}),
                message: d.getMessage(),
                undeterminable,
                ...(d
                    .getMessage()
                    .split("\n")
                    .some((l) => l.startsWith(UNDECIDED))
                    ? { undecided: true as const }
                    : {}),
            };
        };
        const notApplicable = new Map<string, number>();
        const structs = opts.resources.map((r) => Struct.fromJavaScript(toStructValue(r.props) as Record<string, never>));

        let next = 0;
        const worker = async () => {
            while (next < opts.resources.length) {
                const i = next++;
                const r = opts.resources[i];
                const res = await pack.analyze(r, structs[i]);
                for (const d of res.getDiagnosticsList()) {
                    diagnostics.push(toDiagnostic(d, r.urn));
                }
                for (const na of res.getNotApplicableList()) {
                    notApplicable.set(na.getPolicyName(), (notApplicable.get(na.getPolicyName()) ?? 0) + 1);
                }
            }
        };
        await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, opts.resources.length) }, worker));

        const stackNotApplicable = new Set<string>();
        try {
            const res = await pack.analyzeStack(buildStackRequest(opts.resources, structs));
            for (const d of res.getDiagnosticsList()) {
                diagnostics.push(toDiagnostic(d, undefined));
            }
            for (const na of res.getNotApplicableList()) {
                stackNotApplicable.add(na.getPolicyName());
            }
        } catch (err) {
            if ((err as grpc.ServiceError).code === grpc.status.RESOURCE_EXHAUSTED) {
                throw new GateInputError(
                    `AnalyzeStack over ${opts.resources.length} resources exceeds the ${MAX_MESSAGE / 2 ** 20} MiB gRPC limit of the policy runtime: ${(err as Error).message}`,
                );
            }
            throw err;
        }

        const policies = info.policies
            .filter((p) => config[p.name]?.enforcementLevel !== "disabled")
            .map((p): PolicyOutcome => ({
                name: p.name,
                kind: p.kind,
                level: config[p.name]?.enforcementLevel ?? p.enforcementLevel,
                evaluated:
                    p.kind === "resource"
                        ? opts.resources.length - (notApplicable.get(p.name) ?? 0)
                        : stackNotApplicable.has(p.name) || opts.resources.length === 0
                          ? 0
                          : opts.resources.length,
            }));
        diagnostics.sort(
            (a, b) => a.policy.localeCompare(b.policy) || (a.urn ?? "").localeCompare(b.urn ?? "") || a.message.localeCompare(b.message),
        );
        return {
            pack: `${info.name}@${info.version}`,
            configFile: opts.configFile,
            resources: opts.resources.length,
            policies,
            diagnostics,
            warnings: [...(opts.warnings ?? []), ...warnings],
        };
    } finally {
        if (owned) {
            pack.close();
        }
    }
}

/** Counts behind the summary line. Undeterminable mandatory verdicts count as mandatory. */
export function summarize(report: GateReport): { mandatory: number; advisory: number; undeterminable: number; undecided: number } {
    return {
        mandatory: report.diagnostics.filter((d) => d.level === "mandatory").length,
        advisory: report.diagnostics.filter((d) => d.level === "advisory").length,
        undeterminable: report.diagnostics.filter((d) => d.undeterminable).length,
        undecided: report.diagnostics.filter((d) => d.undecided).length,
    };
}

/**
 * Text report: violations grouped by policy with level and resource, policies that evaluated
 * nothing, and one summary line at the end. `describe` turns a URN into what a reader recognises.
 */
export function formatGateText(report: GateReport, describe: (urn: string | undefined) => string): string {
    const lines: string[] = [];
    for (const w of report.warnings) {
        lines.push(`warning: ${w}`);
    }
    const byPolicy = new Map<string, GateDiagnostic[]>();
    for (const d of report.diagnostics) {
        byPolicy.set(d.policy, [...(byPolicy.get(d.policy) ?? []), d]);
    }
    for (const [policy, ds] of byPolicy) {
        const levels = [...new Set(ds.map((d) => d.level))].join("/");
        const undecided = ds.filter((d) => d.undecided).length;
        const violations = ds.length - undecided;
        const counts = [
            ...(violations > 0 ? [`${violations} violation${violations > 1 ? "s" : ""}`] : []),
            ...(undecided > 0 ? [`${undecided} undecided`] : []),
        ];
        lines.push(`${policy} [${levels}]: ${counts.join(", ")}`);
        for (const d of ds) {
            lines.push(`  - ${describe(d.urn)}${d.undeterminable ? "  (undeterminable at preview: not a pass)" : ""}`);
            for (const l of d.message.split("\n")) {
                lines.push(`      ${l}`);
            }
        }
    }
    if (report.policies.length === 0) {
        lines.push("no policy is enabled: this gate checked nothing");
    }
    for (const p of report.policies.filter((x) => x.evaluated === 0)) {
        lines.push(`${p.name} [${p.level}]: evaluated 0 resources (nothing it applies to)`);
    }
    const s = summarize(report);
    lines.push(
        `${s.mandatory} mandatory, ${s.advisory} advisory, ${report.policies.length} policies evaluated over ${report.resources} resources` +
            (s.undeterminable > 0 ? ` (${s.undeterminable} undeterminable at preview)` : "") +
            (s.undecided > 0 ? ` (${s.undecided} advisory undecided: the input does not show enough)` : ""),
    );
    return lines.join("\n");
}
