/**
 * The manifest gate: the policy pack on plain Kubernetes YAML (kubectl, Helm `template` output),
 * for teams that do not ship through Pulumi.
 *
 *   npm run policy:check -- [--env dev|prod] [--format text|json|sarif] [--policy-pack <dir>] <file-or-dir>...
 *
 * Each object becomes the resource Pulumi would register for it (type token
 * `kubernetes:<group>/<version>:<Kind>`, inputs = the object) and goes through the same pack, the
 * same way, with `<pack>/config/<env>.json`. Exit codes: 0 no mandatory violation, 1 at least one,
 * 2 bad input (unreadable file, invalid YAML — named with file and line —, bad config).
 */
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import {
    environmentConfig,
    formatGateText,
    GateInputError,
    GateReport,
    GateResource,
    PolicyPackProcess,
    runGate,
    summarize,
    urnOf,
} from "./gate";
import { runMain } from "./cli";
import { IDENTITY_ONLY_KINDS, INPUT_TAG, MANIFEST_INPUT } from "../policies/lib/scope";

/** A manifest file or object that cannot be used; `line` is 1-based. */
export class ManifestError extends Error {
    constructor(
        readonly file: string,
        readonly line: number | undefined,
        message: string,
    ) {
        super(`${file}${line ? `:${line}` : ""}: ${message}`);
        this.name = "ManifestError";
    }
}

/** One Kubernetes object and where it was written. */
export interface ManifestObject {
    file: string;
    line: number;
    object: Record<string, unknown>;
}

/** The Pulumi type token of a Kubernetes object: `v1` is the `core` group. */
export function typeToken(apiVersion: string, kind: string): string {
    const groupVersion = apiVersion.includes("/") ? apiVersion : `core/${apiVersion}`;
    return `kubernetes:${groupVersion}:${kind}`;
}

// Kinds without a namespace; the rest default to `default` as kubectl would place them.
const CLUSTER_SCOPED = new Set([
    "Namespace",
    "Node",
    "PersistentVolume",
    "StorageClass",
    "ClusterRole",
    "ClusterRoleBinding",
    "CustomResourceDefinition",
    "PriorityClass",
    "IngressClass",
    "RuntimeClass",
    "CSIDriver",
    "APIService",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "NodePool",
    "EC2NodeClass",
    "NodeClaim",
]);

function isKubernetesObject(v: unknown): v is Record<string, unknown> {
    return (
        !!v &&
        typeof v === "object" &&
        !Array.isArray(v) &&
        typeof (v as Record<string, unknown>).apiVersion === "string" &&
        typeof (v as Record<string, unknown>).kind === "string"
    );
}

/**
 * Every Kubernetes object in one YAML text (multi-document, `kind: List` expanded), with the line
 * it starts on. Documents that are not Kubernetes objects (no apiVersion/kind) are skipped.
 */
export function parseManifests(text: string, file: string): ManifestObject[] {
    const lineCounter = new YAML.LineCounter();
    const docs = YAML.parseAllDocuments(text, { lineCounter });
    const out: ManifestObject[] = [];
    for (const doc of Array.isArray(docs) ? docs : []) {
        const err = doc.errors[0];
        if (err) {
            throw new ManifestError(
                file,
                err.linePos?.[0].line,
                `not valid YAML: ${err.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "")}`,
            );
        }
        const value = doc.toJS({ maxAliasCount: 1000 }) as unknown;
        const lineOf = (node: unknown) => {
            const range = (node as { range?: [number, number, number] } | null)?.range;
            return range ? lineCounter.linePos(range[0]).line : 1;
        };
        if (!isKubernetesObject(value)) {
            continue;
        }
        const listItems = (value as { items?: unknown }).items;
        if (/List$/.test(value.kind as string) && Array.isArray(listItems)) {
            const itemsNode = YAML.isMap(doc.contents) ? doc.contents.get("items", true) : undefined;
            listItems.forEach((item, i) => {
                if (isKubernetesObject(item)) {
                    const node = YAML.isSeq(itemsNode) ? itemsNode.items[i] : doc.contents;
                    out.push({ file, line: lineOf(node), object: item });
                }
            });
            continue;
        }
        out.push({ file, line: lineOf(doc.contents), object: value });
    }
    return out;
}

const SKIP_DIRS = new Set(["node_modules", ".git"]);

/** YAML files under the given paths, sorted, so output is stable between runs. */
export function collectFiles(paths: readonly string[]): string[] {
    const files: string[] = [];
    const walk = (p: string, explicit: boolean) => {
        let stat: fs.Stats;
        try {
            stat = fs.statSync(p);
        } catch {
            throw new ManifestError(p, undefined, "no such file or directory");
        }
        if (stat.isDirectory()) {
            for (const entry of fs.readdirSync(p).sort()) {
                if (!SKIP_DIRS.has(entry) && !entry.startsWith(".")) {
                    walk(path.join(p, entry), false);
                }
            }
        } else if (explicit || /\.ya?ml$/i.test(p)) {
            files.push(p);
        }
    };
    for (const p of paths) {
        walk(p, true);
    }
    return files;
}

/**
 * What the pack is sent of one manifest object. Kinds no policy reads beyond their identity
 * (`IDENTITY_ONLY_KINDS`: CustomResourceDefinitions, ConfigMaps, Secrets) go as apiVersion, kind,
 * name, namespace and labels: a CRD's schema can weigh hundreds of kilobytes, which the gate would
 * otherwise serialise to the pack twice (each resource, then the whole stack) for nothing, and a
 * Secret's data has no business leaving the process. Every other object goes whole.
 */
export function packProps(o: Record<string, unknown>): Record<string, unknown> {
    const apiVersion = o.apiVersion as string;
    const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.lastIndexOf("/")) : "";
    if (!IDENTITY_ONLY_KINDS.has(`${group}/${o.kind as string}`)) {
        return o;
    }
    const meta = (o.metadata ?? {}) as Record<string, unknown>;
    const metadata: Record<string, unknown> = {};
    for (const key of ["name", "generateName", "namespace", "labels"]) {
        if (meta[key] !== undefined) {
            metadata[key] = meta[key];
        }
    }
    return { apiVersion: o.apiVersion, kind: o.kind, metadata };
}

/** Where each manifest object went: resource for the gate, locator for the reports. */
export interface ManifestResource {
    resource: GateResource;
    manifest: ManifestObject;
    kind: string;
    name: string;
    namespace?: string;
}

export const MANIFEST_PROJECT = "k8s-manifests";

/** Maps objects to the resources Pulumi would register; two objects with one identity are an error. */
export function toResources(objects: readonly ManifestObject[], env: string): ManifestResource[] {
    const seen = new Map<string, ManifestObject>();
    return objects.map((m, i) => {
        const o = m.object;
        const kind = o.kind as string;
        const meta = (o.metadata ?? {}) as { name?: unknown; generateName?: unknown; namespace?: unknown };
        const name =
            typeof meta.name === "string" ? meta.name : typeof meta.generateName === "string" ? `${meta.generateName}${i}` : `unnamed-${i}`;
        const namespace = CLUSTER_SCOPED.has(kind) ? undefined : typeof meta.namespace === "string" ? meta.namespace : "default";
        const type = typeToken(o.apiVersion as string, kind);
        // Unnamed objects already have a unique generated name; prefixing their namespace would make
        // the pack (which falls back to the logical name) show it twice.
        const logical = namespace && typeof meta.name === "string" ? `${namespace}/${name}` : name;
        const urn = urnOf(env, MANIFEST_PROJECT, type, logical);
        const first = seen.get(urn);
        if (first) {
            throw new ManifestError(m.file, m.line, `${kind} ${logical} is also defined at ${first.file}:${first.line}`);
        }
        seen.set(urn, m);
        return {
            resource: { urn, type, name: logical, props: packProps(o) },
            manifest: m,
            kind,
            name,
            ...(namespace ? { namespace } : {}),
        };
    });
}

export interface ManifestViolation {
    policy: string;
    level: "mandatory" | "advisory";
    resource: { type: string; name: string; kind?: string; namespace?: string };
    message: string;
    undeterminable?: true;
    /** The policy could not decide from the input and says so (advisory). */
    undecided?: true;
    location?: { file: string; line: number };
}

export interface CheckResult {
    report: GateReport;
    resources: ManifestResource[];
    violations: ManifestViolation[];
    files: number;
}

export interface CheckOptions {
    paths: readonly string[];
    env: string;
    packDir: string;
    /** Defaults to `<packDir>/config/<env>.json` (the pack's own levels when that does not exist). */
    configFile?: string;
}

/** Reads, maps and gates the manifests under `paths`. */
export async function checkManifests(opts: CheckOptions): Promise<CheckResult> {
    const files = collectFiles(opts.paths);
    // The pack boots in its own process while the YAML is parsed here.
    const pack = PolicyPackProcess.start(opts.packDir, { stack: opts.env, project: MANIFEST_PROJECT });
    pack.catch(() => undefined);
    let report: GateReport;
    let resources: ManifestResource[];
    try {
        const objects = files.flatMap((f) => parseManifests(fs.readFileSync(f, "utf8"), f));
        resources = toResources(objects, opts.env);
        const config = opts.configFile ? { file: opts.configFile, warnings: [] } : environmentConfig(opts.packDir, opts.env);
        report = await runGate({
            packDir: opts.packDir,
            configFile: config.file,
            warnings: config.warnings,
            stack: opts.env,
            project: MANIFEST_PROJECT,
            resources: resources.map((r) => r.resource),
            pack,
            stackTags: { [INPUT_TAG]: MANIFEST_INPUT },
        });
    } finally {
        void pack.then(
            (p) => p.close(),
            () => undefined,
        );
    }
    const byUrn = new Map(resources.map((r) => [r.resource.urn, r]));
    const violations = report.diagnostics.map((d): ManifestViolation => {
        const r = d.urn ? byUrn.get(d.urn) : undefined;
        return {
            policy: d.policy,
            level: d.level,
            resource: r
                ? { type: r.resource.type, name: r.name, kind: r.kind, ...(r.namespace ? { namespace: r.namespace } : {}) }
                : { type: "pulumi:pulumi:Stack", name: opts.env },
            message: d.message,
            ...(d.undeterminable ? { undeterminable: true as const } : {}),
            ...(d.undecided ? { undecided: true as const } : {}),
            ...(r ? { location: { file: r.manifest.file, line: r.manifest.line } } : {}),
        };
    });
    return { report, resources, violations, files: files.length };
}

function relative(file: string): string {
    return path.relative(process.cwd(), path.resolve(file)).split(path.sep).join("/");
}

/** SARIF 2.1.0 for GitHub code scanning: one rule per policy, one result per violation. */
export function toSarif(result: CheckResult): Record<string, unknown> {
    const rules = [...new Set(result.violations.map((v) => v.policy))].sort();
    return {
        $schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [
            {
                tool: {
                    driver: {
                        name: "eks-platform-policy-gate",
                        informationUri: "https://www.pulumi.com/docs/iac/packages-and-automation/crossguard/",
                        version: result.report.pack.split("@")[1] ?? "0.0.0",
                        rules: rules.map((id) => ({
                            id,
                            shortDescription: { text: result.violations.find((v) => v.policy === id)?.message.split("\n")[0] ?? id },
                        })),
                    },
                },
                results: result.violations.map((v) => ({
                    ruleId: v.policy,
                    ruleIndex: rules.indexOf(v.policy),
                    level: v.level === "mandatory" ? "error" : "warning",
                    message: {
                        text: `${v.resource.kind ?? v.resource.type} ${v.resource.namespace ? `${v.resource.namespace}/` : ""}${v.resource.name}: ${v.message}`,
                    },
                    ...(v.location
                        ? {
                              locations: [
                                  {
                                      physicalLocation: {
                                          artifactLocation: { uri: relative(v.location.file), uriBaseId: "%SRCROOT%" },
                                          region: { startLine: v.location.line },
                                      },
                                  },
                              ],
                          }
                        : {}),
                })),
            },
        ],
    };
}

/** Text report: the gate's grouped output with each object's kind, name, file and line. */
export function formatText(result: CheckResult): string {
    const byUrn = new Map(result.resources.map((r) => [r.resource.urn, r]));
    const header = `Policy check of ${result.resources.length} objects in ${result.files} files (pack ${result.report.pack}, config ${result.report.configFile ?? "none"})`;
    return `${header}\n${formatGateText(result.report, (urn) => {
        const r = urn ? byUrn.get(urn) : undefined;
        return r
            ? `${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name} (${relative(r.manifest.file)}:${r.manifest.line})`
            : "(all objects)";
    })}`;
}

interface CliArgs {
    env: string;
    format: "text" | "json" | "sarif";
    packDir: string;
    paths: string[];
}

const USAGE = "usage: npm run policy:check -- [--env dev|prod] [--format text|json|sarif] [--policy-pack <dir>] <file-or-dir>...";

function parseArgs(argv: readonly string[]): CliArgs {
    const args: CliArgs = { env: "prod", format: "text", packDir: "policies", paths: [] };
    for (let i = 0; i < argv.length; i++) {
        const [flag, inline] =
            argv[i].startsWith("--") && argv[i].includes("=")
                ? [argv[i].slice(0, argv[i].indexOf("=")), argv[i].slice(argv[i].indexOf("=") + 1)]
                : [argv[i], undefined];
        const value = () => {
            const v = inline ?? argv[++i];
            if (v === undefined) {
                throw new GateInputError(`${flag} needs a value\n${USAGE}`);
            }
            return v;
        };
        if (flag === "--env") {
            args.env = value();
            if (!/^[A-Za-z0-9_.-]+$/.test(args.env)) {
                throw new GateInputError(`--env must be an environment name like dev or prod, not "${args.env}"`);
            }
        } else if (flag === "--format") {
            const f = value();
            if (f !== "text" && f !== "json" && f !== "sarif") {
                throw new GateInputError(`--format must be text, json or sarif, not "${f}"`);
            }
            args.format = f;
        } else if (flag === "--policy-pack") {
            args.packDir = value();
        } else if (flag.startsWith("-")) {
            throw new GateInputError(`unknown option ${flag}\n${USAGE}`);
        } else {
            args.paths.push(flag);
        }
    }
    if (args.paths.length === 0) {
        throw new GateInputError(USAGE);
    }
    return args;
}

async function main(): Promise<number> {
    let args: CliArgs;
    let result: CheckResult;
    try {
        args = parseArgs(process.argv.slice(2));
        result = await checkManifests({ paths: args.paths, env: args.env, packDir: args.packDir });
    } catch (err) {
        // Bad input is named without a stack trace; anything else is a defect worth its trace.
        const known = err instanceof ManifestError || err instanceof GateInputError || (err instanceof Error && !err.stack);
        process.stderr.write(`${err instanceof Error ? (known ? err.message : (err.stack ?? err.message)) : String(err)}\n`);
        return 2;
    }
    if (result.resources.length === 0) {
        process.stderr.write(`no Kubernetes objects found in ${args.paths.join(", ")}\n`);
        return 2;
    }
    if (args.format !== "text") {
        for (const w of result.report.warnings) {
            process.stderr.write(`warning: ${w}\n`);
        }
    }
    if (args.format === "json") {
        process.stdout.write(`${JSON.stringify({ violations: result.violations })}\n`);
    } else if (args.format === "sarif") {
        process.stdout.write(`${JSON.stringify(toSarif(result), null, 2)}\n`);
    } else {
        process.stdout.write(`${formatText(result)}\n`);
    }
    return summarize(result.report).mandatory > 0 ? 1 : 0;
}

if (require.main === module) {
    runMain(main);
}
