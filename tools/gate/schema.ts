/**
 * Kubernetes objects as the API server validates them, before any policy judges them: the
 * official OpenAPI schemas shipped in `kubernetes-models` (core and built-in groups) and
 * `@kubernetes-models/karpenter` (Karpenter's CRDs), plus the rules the API server applies beyond
 * the schema (object names, label keys and values, kinds an apiVersion does not serve). Both
 * packages are ESM-only, so they are loaded with a real dynamic `import()`.
 */
import * as fs from "fs";
import * as path from "path";
import {
    asRecord,
    describeShape,
    generateNameProblem,
    isBuiltInGroup,
    isUnknownSentinel,
    labelKeyProblem,
    labelValueProblem,
    namespaceNameProblem,
    objectNameProblem,
    violation,
} from "eks-platform-kernel";
import { path as at, asArray, asNumber, asString, field } from "eks-platform-kernel";
import { pdbRefusals, podSpecField, readPdbs, readWorkload, Verdicts, workloadKind } from "eks-platform-evaluation";
import type { GateDiagnostic } from "./gate";

/** Pulumi Kubernetes types that are not API objects and carry no schema of their own. */
export const NOT_API_OBJECTS = new Set(["kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart", "kubernetes:yaml/v2:ConfigGroup"]);

/** `kubernetes:apps/v1:Deployment` → `{ group: "apps", version: "v1", kind: "Deployment" }`. */
export function parseTypeToken(type: string): { group: string; version: string; kind: string } | undefined {
    const match = /^kubernetes:([^/]+)\/([^:]+):(.+)$/.exec(type);
    return match ? { group: match[1], version: match[2], kind: match[3] } : undefined;
}

const KARPENTER_GROUPS = new Set(["karpenter.sh", "karpenter.k8s.aws"]);

/**
 * API groups whose owner publishes no schema to validate against, with why: their objects are
 * reported unvalidated, never passed as validated. EKS Auto Mode's CRDs (NodeClass,
 * IngressClassParams, TargetGroupBinding of `eks.amazonaws.com/v1`) exist only in the cluster; the
 * EKS User Guide documents their fields (create-node-class.adoc, auto-configure-alb.adoc), and
 * components/compute/autoMode.ts checks what this program renders against that.
 */
export const UNPUBLISHED_SCHEMAS: Readonly<Record<string, string>> = {
    "eks.amazonaws.com":
        "AWS publishes no CRD schema for EKS Auto Mode's eks.amazonaws.com objects (they exist only in the cluster): validated by the stack config's schema of the EKS User Guide's fields, not by the API server's",
};

function modulePath(group: string, version: string, kind: string): string {
    if (KARPENTER_GROUPS.has(group)) {
        return `@kubernetes-models/karpenter/${group}/${version}/${kind}`;
    }
    return group === "core" ? `kubernetes-models/${version}/${kind}` : `kubernetes-models/${group}/${version}/${kind}`;
}

type Model = new (data: Record<string, unknown>) => { validate(): void };

const cache = new Map<string, Promise<Model | undefined>>();

// What `import()` throws for a module the package does not have.
const MISSING = new Set(["ERR_MODULE_NOT_FOUND", "ERR_PACKAGE_PATH_NOT_EXPORTED"]);

/**
 * Imports the model of a kind from `spec` (a module of the schema packages), uncached: `undefined`
 * when there is no such module, or when the module is a sub-type and not a kind. Exported for tests:
 * `loadModel` keeps each answer for the life of the process.
 */
export function importModel(spec: string, kind: string): Promise<Model | undefined> {
    return (import(spec) as Promise<Record<string, Model & { kind?: unknown }>>).then(
        // A module of that name may be a sub-type (PodDisruptionBudgetSpec): only a kind has `kind`.
        (mod) => (mod[kind]?.kind === kind ? mod[kind] : undefined),
        (err: NodeJS.ErrnoException) => {
            if (MISSING.has(err.code ?? "")) {
                return undefined;
            }
            throw err;
        },
    );
}

/** The model of a kind, or `undefined` when the packages have none for this group and version. */
async function loadModel(group: string, version: string, kind: string): Promise<Model | undefined> {
    const spec = modulePath(group, version, kind);
    let pending = cache.get(spec);
    if (!pending) {
        pending = importModel(spec, kind);
        cache.set(spec, pending);
    }
    return pending;
}

/**
 * Validates one object given its Pulumi type token and inputs. Throws with the schema errors;
 * throws too when no schema exists for the type, so an unvalidated kind never passes silently.
 */
export async function validateKubernetesObject(type: string, props: Record<string, unknown>): Promise<void> {
    const parsed = parseTypeToken(type);
    if (!parsed) {
        throw new Error(`${type} is not a Kubernetes type token`);
    }
    const { group, version, kind } = parsed;
    const apiVersion = group === "core" ? version : `${group}/${version}`;
    const Model = await loadModel(group, version, kind);
    if (!Model) {
        throw new Error(`${modulePath(group, version, kind)}: no schema for ${apiVersion} ${kind}`);
    }
    new Model({ ...props, apiVersion, kind }).validate();
}

/** One reason the API server refuses an object: where (a path into the object) and why. */
export interface SchemaProblem {
    path: (string | number)[];
    message: string;
}

/** `validated` (problems empty when the API server accepts the object), or `unvalidated` with why. */
export type SchemaResult =
    { status: "validated"; problems: SchemaProblem[] } | { status: "unvalidated"; problems: SchemaProblem[]; reason: string };

// Where the schema packages are installed: their `exports` hide package.json from require.resolve.
function packageDir(name: string): string | undefined {
    for (let dir = __dirname; ; dir = path.dirname(dir)) {
        const candidate = path.join(dir, "node_modules", name);
        if (fs.existsSync(path.join(candidate, "package.json"))) {
            return candidate;
        }
        if (path.dirname(dir) === dir) {
            return undefined;
        }
    }
}

let servedCache: Map<string, string[]> | undefined;

/** Every apiVersion the schema packages serve each kind under (scanned once, only when needed). */
function servedVersions(): Map<string, string[]> {
    servedCache ??= scanServedVersions();
    return servedCache;
}

/**
 * Every apiVersion the schema packages serve each kind under, read from their files (a kind is a
 * module that sets `this.kind`), uncached. Exported for tests: `servedVersions` scans only once.
 */
export function scanServedVersions(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    const add = (kind: string, apiVersion: string) => out.set(kind, [...(out.get(kind) ?? []), apiVersion]);
    const scan = (root: string | undefined, groups: string[]) => {
        for (const group of groups) {
            const groupDir = group === "core" ? root : path.join(root as string, group);
            for (const version of groupDir && fs.existsSync(groupDir) ? fs.readdirSync(groupDir) : []) {
                const dir = path.join(groupDir as string, version);
                if (!/^v\d/.test(version) || !fs.statSync(dir).isDirectory()) {
                    continue;
                }
                for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".js") && f !== "index.js")) {
                    const kind = /this\.kind="([A-Za-z0-9]+)"/.exec(fs.readFileSync(path.join(dir, file), "utf8"))?.[1];
                    if (kind) {
                        add(kind, group === "core" ? version : `${group}/${version}`);
                    }
                }
            }
        }
    };
    const core = packageDir("kubernetes-models");
    scan(core, [
        "core",
        ...(core
            ? fs.readdirSync(core).filter((d) => !d.startsWith("_") && !/^v\d/.test(d) && fs.statSync(path.join(core, d)).isDirectory())
            : []),
    ]);
    scan(packageDir("@kubernetes-models/karpenter"), [...KARPENTER_GROUPS]);
    return out;
}

// The API version each kind has today, and its removed predecessors, said in the message.
function servedAs(kind: string): string {
    const versions = servedVersions().get(kind) ?? [];
    const stable = versions.filter((v) => /\/v\d+$|^v\d+$/.test(v));
    const older = versions.filter((v) => !stable.includes(v));
    return `${stable.join(", ") || versions.join(", ")}${stable.length > 0 && older.length > 0 ? ` (${older.join(", ")} in older releases)` : ""}`;
}

function pathOf(instancePath: string): (string | number)[] {
    return instancePath
        .split("/")
        .slice(1)
        .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
        .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

function formatPath(at: readonly (string | number)[]): string {
    return at.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("") || "(the object)";
}

function valueAt(object: unknown, at: readonly (string | number)[]): unknown {
    let node = object;
    for (const key of at) {
        node = node !== null && typeof node === "object" ? (node as Record<string | number, unknown>)[key] : undefined;
    }
    return node;
}

interface AjvError {
    instancePath: string;
    keyword: string;
    params: Record<string, unknown>;
    message?: string;
}

const TYPE_NAMES: Record<string, string> = {
    integer: "an integer",
    number: "a number",
    string: "a string",
    boolean: "a boolean",
    object: "an object",
    array: "a list",
};

/** An Ajv error of the schema as a sentence about the object. */
function schemaProblem(object: unknown, e: AjvError): SchemaProblem {
    const at = pathOf(e.instancePath);
    const value = valueAt(object, at);
    const where = formatPath(at);
    switch (e.keyword) {
        case "type": {
            const types = (Array.isArray(e.params.type) ? e.params.type : [e.params.type]).map((t) => TYPE_NAMES[String(t)] ?? String(t));
            return { path: at, message: `${where} is ${describeShape(value)}, not ${types.join(" or ")}` };
        }
        case "format":
            return { path: at, message: `${where} is ${JSON.stringify(value)}, which does not fit ${String(e.params.format)}` };
        case "enum":
            return {
                path: at,
                message: `${where} is ${JSON.stringify(value)}, not one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
            };
        case "required":
            return { path: at, message: `${formatPath([...at, String(e.params.missingProperty)])} is required` };
        default:
            return { path: at, message: `${where}: ${e.message ?? e.keyword}` };
    }
}

/** The API server's checks beyond the schema: object name (or generateName) and namespace, label keys and values, annotation keys. */
function metadataProblems(kind: string, object: Record<string, unknown>): SchemaProblem[] {
    const meta = asRecord(object.metadata);
    if (!meta) {
        return [];
    }
    const out: SchemaProblem[] = [];
    // ValidateObjectMetaAccessor: an empty name or generateName is an absent one.
    const name = typeof meta.name === "string" ? meta.name : "";
    const generateName = typeof meta.generateName === "string" ? meta.generateName : "";
    if (generateName !== "") {
        const p = generateNameProblem(kind, generateName, name !== "");
        if (p) {
            out.push({ path: ["metadata", "generateName"], message: p });
        }
    }
    if (name !== "") {
        const p = objectNameProblem(kind, name);
        if (p) {
            out.push({ path: ["metadata", "name"], message: p });
        }
    } else if (generateName === "") {
        out.push({ path: ["metadata"], message: "metadata.name: name or generateName is required" });
    }
    if (typeof meta.namespace === "string") {
        const p = namespaceNameProblem(meta.namespace);
        if (p) {
            out.push({ path: ["metadata", "namespace"], message: p });
        }
    }
    for (const [key, value] of Object.entries(asRecord(meta.labels) ?? {})) {
        const p = labelKeyProblem(key) ?? (typeof value === "string" ? labelValueProblem(value) : undefined);
        if (p) {
            out.push({ path: ["metadata", "labels", key], message: `metadata.labels: ${p}` });
        }
    }
    for (const key of Object.keys(asRecord(meta.annotations) ?? {})) {
        const p = labelKeyProblem(key);
        if (p) {
            out.push({
                path: ["metadata", "annotations", key],
                message: `metadata.annotations: ${p.replace("label key", "annotation key")}`,
            });
        }
    }
    return out;
}

/**
 * What the API server would say about an object: schema errors of its kind at its apiVersion, a
 * kind its apiVersion does not serve, invalid names and labels. A custom resource whose schema is
 * not known is `unvalidated` (its metadata is still checked), never reported as valid.
 */
export async function objectProblems(object: Record<string, unknown>): Promise<SchemaResult> {
    const apiVersion = String(object.apiVersion);
    const kind = String(object.kind);
    const slash = apiVersion.lastIndexOf("/");
    const group = slash < 0 ? "core" : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    const Model = await loadModel(group, version, kind);
    const metadata = metadataProblems(kind, object);
    if (!Model) {
        if (
            servedVersions().has(kind) &&
            (isBuiltInGroup(group) ||
                KARPENTER_GROUPS.has(group) ||
                servedVersions()
                    .get(kind)
                    ?.some((v) => v.startsWith(`${group}/`)))
        ) {
            return {
                status: "validated",
                problems: [
                    {
                        path: ["apiVersion"],
                        message: `apiVersion ${apiVersion} does not serve kind ${kind} (the API server answers "no matches for kind"): it is served as ${servedAs(kind)}`,
                    },
                    ...metadata,
                ],
            };
        }
        if (isBuiltInGroup(group) || KARPENTER_GROUPS.has(group)) {
            return {
                status: "validated",
                problems: [
                    { path: ["kind"], message: `${apiVersion} has no kind ${kind} (the API server answers "no matches for kind")` },
                    ...metadata,
                ],
            };
        }
        return {
            status: "unvalidated",
            problems: metadata,
            reason: UNPUBLISHED_SCHEMAS[group] ?? `no schema is known for ${apiVersion} ${kind}: its CRD's validation was not applied`,
        };
    }
    const beyond = specProblems(apiVersion, kind, object);
    try {
        new Model(object).validate();
        return { status: "validated", problems: [...metadata, ...beyond] };
    } catch (err) {
        const errors = (err as { errors?: AjvError[] }).errors;
        if (!Array.isArray(errors)) {
            throw err;
        }
        // A value unknown at preview (the engine's marker) is not refused: the policies say it is undecided.
        const known = errors.filter((e) => !isUnknownSentinel(valueAt(object, pathOf(e.instancePath))));
        return { status: "validated", problems: [...known.map((e) => schemaProblem(object, e)), ...metadata, ...beyond] };
    }
}

/** The Pulumi type token of a Kubernetes object (`kubernetes:apps/v1:Deployment`). */
function tokenOf(apiVersion: string, kind: string): string {
    const slash = apiVersion.lastIndexOf("/");
    return `kubernetes:${slash < 0 ? "core" : apiVersion.slice(0, slash)}/${slash < 0 ? apiVersion : apiVersion.slice(slash + 1)}:${kind}`;
}

/**
 * What the API server refuses beyond the OpenAPI schema, in the fields the pack and the drain
 * rehearsal read (kubernetes v1.34 pkg/apis/core/validation and apps/validation, policy/validation):
 * a negative `replicas` (ValidateNonnegativeField), a PodDisruptionBudget's values, both values and
 * selector (ValidatePodDisruptionBudgetSpec: the kernel's `pdbRefusals`), and a pod template's
 * topology spread constraints (validateTopologySpreadConstraints: `maxSkew` and `minDomains`
 * greater than zero, `minDomains` only with `DoNotSchedule` (the schema holds the two actions), no two constraints with the same `topologyKey` and `whenUnsatisfiable`). The gate and
 * `npm run drain` both run it, through `validateObjects`.
 */
export function specProblems(apiVersion: string, kind: string, object: Record<string, unknown>): SchemaProblem[] {
    const out: SchemaProblem[] = [];
    const type = tokenOf(apiVersion, kind);
    const name = asString(at(object, "metadata", "name")) ?? "";
    const w = readWorkload(type, name, object);
    if (w?.invalidReplicas !== undefined && typeof w.invalidReplicas === "number" && Number.isInteger(w.invalidReplicas)) {
        out.push({
            path: ["spec", "replicas"],
            message: `spec.replicas: Invalid value: ${w.invalidReplicas}: must be greater than or equal to 0`,
        });
    }
    for (const pdb of readPdbs([{ type, name, props: object, urn: "" }], new Verdicts())) {
        for (const r of pdbRefusals(pdb)) {
            out.push({ path: r.at, message: `it ${r.what}` });
        }
    }
    const wk = workloadKind(type, object);
    if (wk) {
        const spec = wk === "Pod" ? field(object, "spec") : at(object, ...podSpecField(wk).map(String));
        const seen = new Set<string>();
        asArray(field(spec, "topologySpreadConstraints")).forEach((c, i) => {
            const where = podSpecField(wk, "topologySpreadConstraints", i);
            const fieldPath = (f: string) => [...where, f];
            const text = (f: string) =>
                [...where, f]
                    .map((x) => (typeof x === "number" ? `[${x}]` : `.${x}`))
                    .join("")
                    .slice(1);
            const maxSkew = asNumber(field(c, "maxSkew"));
            if (maxSkew !== undefined && maxSkew <= 0) {
                out.push({
                    path: fieldPath("maxSkew"),
                    message: `${text("maxSkew")}: Invalid value: ${maxSkew}: must be greater than zero`,
                });
            }
            const action = field(c, "whenUnsatisfiable");
            const minDomains = asNumber(field(c, "minDomains"));
            if (minDomains !== undefined && minDomains <= 0) {
                out.push({
                    path: fieldPath("minDomains"),
                    message: `${text("minDomains")}: Invalid value: ${minDomains}: must be greater than zero`,
                });
            } else if (minDomains !== undefined && typeof action === "string" && action !== "DoNotSchedule") {
                out.push({
                    path: fieldPath("minDomains"),
                    message: `${text("minDomains")}: Invalid value: ${minDomains}: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${action}`,
                });
            }
            const key = `${String(field(c, "topologyKey"))}\u0000${String(action)}`;
            if (seen.has(key)) {
                out.push({
                    path: fieldPath("topologyKey"),
                    message: `${text("topologyKey")}: Duplicate value: a constraint with topologyKey ${String(field(c, "topologyKey"))} and whenUnsatisfiable ${String(action)} is already set`,
                });
            }
            seen.add(key);
        });
    }
    return out;
}

/** The gate's name for verdicts of the API server's own validation (not a policy of the pack). */
export const API_SERVER_VALIDATION = "api-server-validation";

/** What `api-server-validation` checks, as reports describe a policy. */
export const API_SERVER_VALIDATION_DESCRIPTION =
    "Objects are ones the API server accepts: the official schema of their kind and apiVersion, object names, label and annotation keys.";

/** What `api-server-validation` requires and checks, as SARIF's rule help gives a policy's (docs/policies.md has it in full). */
export const API_SERVER_VALIDATION_DOCS = {
    requires: "objects the API server would accept",
    checks: "each object against the official OpenAPI schema of its kind and apiVersion, and against the rules the API server applies beyond it: object names per kind, namespaces, label keys and values, annotation keys, an apiVersion that serves the kind, and what the pack and the drain rehearsal read (replicas at least 0, a budget's values and selector, topology spread constraints: maxSkew and minDomains above 0, minDomains only with DoNotSchedule, no duplicate topologyKey and whenUnsatisfiable); a file that is not UTF-8 is refused as bad input; a refused object is reported at the offending field and judged by no policy",
};

/** An object to validate, with what reports need to point at it. */
export interface LocatedObject {
    urn: string;
    object: Record<string, unknown>;
    /** How reports name it: `Deployment shop/web`. */
    subject: string;
    /** The source line of a path into the object (the nearest written ancestor). */
    lineOf(at: readonly (string | number)[]): number;
}

/**
 * Validates every object: each refusal is a mandatory verdict at the line of the offending field;
 * objects with no known schema come back as `unvalidated`, with why.
 */
export async function validateObjects(
    objects: readonly LocatedObject[],
): Promise<{ diagnostics: GateDiagnostic[]; unvalidated: { urn: string; reason: string }[]; validated: number }> {
    const diagnostics: GateDiagnostic[] = [];
    const unvalidated: { urn: string; reason: string }[] = [];
    let validated = 0;
    for (const o of objects) {
        const result = await objectProblems(o.object);
        if (result.status === "unvalidated") {
            unvalidated.push({ urn: o.urn, reason: result.reason });
        } else {
            validated++;
        }
        for (const p of result.problems) {
            diagnostics.push({
                policy: API_SERVER_VALIDATION,
                level: "mandatory",
                urn: o.urn,
                message: violation(
                    `${o.subject} would be refused by the API server: ${p.message}`,
                    "kubectl apply, Helm and Pulumi fail on it and nothing of the object is created; no policy judged it, since the cluster would never hold it",
                    p.path[0] === "apiVersion" || p.path[0] === "kind"
                        ? "use an apiVersion and kind the cluster serves, as named above"
                        : `write ${formatPath(p.path)} as the Kubernetes API reference defines it for ${String(o.object.apiVersion)} ${String(o.object.kind)}`,
                ),
                undeterminable: false,
                line: o.lineOf(p.path),
            });
        }
    }
    return { diagnostics, unvalidated, validated };
}
