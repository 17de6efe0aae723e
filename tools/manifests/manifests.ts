/**
 * Kubernetes manifests as the policy gate sees them: YAML files (or standard input) read into
 * objects that remember their file and line, each mapped to the resource Pulumi would register
 * for it (type `kubernetes:<group>/<version>:<Kind>`, inputs = the object).
 */
import * as fs from "fs";
import * as path from "path";
import { IDENTITY_ONLY_KINDS } from "eks-platform-kernel";
import * as YAML from "yaml";
import { FileError, InputError } from "../cli/errors";
import { GateResource, urnOf } from "../gate/requests";
import { documentValue, nodeLine } from "../cli/yamlInput";

/** A manifest file or object that cannot be used; `line` is 1-based. */
export class ManifestError extends FileError {}

/** The path argument that means standard input, and the file name reports give it. */
export const STDIN_ARG = "-";
export const STDIN_NAME = "<stdin>";

/** One Kubernetes object and where it was written. */
export interface ManifestObject {
    file: string;
    line: number;
    object: Record<string, unknown>;
    /** The line of a path into the object (its nearest ancestor written in the file). */
    lineOf?: (at: readonly (string | number)[]) => number;
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

/** The node an object is written at: its document's contents, or its item of a `kind: List`. */
function objectNode(doc: YAML.Document.Parsed, item: number | undefined): unknown {
    if (item === undefined) {
        return doc.contents;
    }
    const itemsNode = YAML.isMap(doc.contents) ? doc.contents.get("items", true) : undefined;
    return YAML.isSeq(itemsNode) ? itemsNode.items[item] : doc.contents;
}

/** A text's documents with the line counter they were parsed with (their ranges are offsets into the text). */
interface Parse {
    docs: readonly YAML.Document.Parsed[];
    lineCounter: YAML.LineCounter;
}

function parseDocuments(text: string): Parse {
    const lineCounter = new YAML.LineCounter();
    const parsed = YAML.parseAllDocuments(text, { lineCounter });
    return { docs: Array.isArray(parsed) ? parsed : [], lineCounter };
}

/**
 * The line of a path under an object: the line of its key (of its item in a list), or its nearest
 * ancestor's when it is not written. `parse` gives the file's documents (see `parseManifests`).
 */
function locator(parse: () => Parse, index: number, item: number | undefined): (at: readonly (string | number)[]) => number {
    return (at) => {
        const { docs, lineCounter } = parse();
        let current = objectNode(docs[index], item);
        let line = nodeLine(current, lineCounter);
        for (const step of at) {
            if (YAML.isMap(current)) {
                const pair = current.items.find((p) => YAML.isScalar(p.key) && String(p.key.value) === String(step));
                if (!pair) {
                    break;
                }
                line = nodeLine(pair.key, lineCounter);
                current = pair.value;
            } else if (YAML.isSeq(current) && typeof step === "number" && step < current.items.length) {
                current = current.items[step];
                line = nodeLine(current, lineCounter);
            } else {
                break;
            }
        }
        return line;
    };
}

/** How a value is held: `hold(v)()` gives it back, or undefined once it is gone. */
export type Hold = <T extends object>(value: T) => () => T | undefined;

/** Held weakly: gone once nothing else holds it and the collector has run. */
export const weakly: Hold = (value) => {
    const ref = new WeakRef(value);
    return () => ref.deref();
};

/**
 * A file's documents for its objects' `lineOf`, held as `hold` holds them. Holding every file's
 * documents until the report (a node with its range for every value) costs more memory than the
 * objects themselves, and the collector's time with it; a line asked for once they are gone (or
 * of a file another thread read: manifestReader.ts) is read from the same text parsed again, which
 * gives the same nodes and ranges.
 */
function heldDocuments(text: () => string, first: Parse | undefined, hold: Hold): () => Parse {
    let held = first ? hold(first) : () => undefined;
    return () => {
        let d = held();
        if (d === undefined) {
            d = parseDocuments(text());
            held = hold(d);
        }
        return d;
    };
}

/**
 * One object as read from a file, before it is given its `lineOf`: what a thread that reads files
 * sends back (manifestReader.ts). `document` and `item` say where it is in the file's documents.
 */
export interface ReadObject {
    file: string;
    line: number;
    object: Record<string, unknown>;
    document: number;
    item?: number;
}

/**
 * Every Kubernetes object of parsed documents (`kind: List` expanded), with the line it starts on.
 * Documents that are not Kubernetes objects (no apiVersion/kind) are skipped.
 */
function objectsOf({ docs, lineCounter }: Parse, file: string): ReadObject[] {
    const out: ReadObject[] = [];
    for (let index = 0; index < docs.length; index++) {
        const doc = docs[index];
        const value = documentValue(doc, lineCounter, (line, message) => new ManifestError(file, line, message));
        if (!isKubernetesObject(value)) {
            continue;
        }
        const listItems = (value as { items?: unknown }).items;
        if (/List$/.test(value.kind as string) && Array.isArray(listItems)) {
            for (let i = 0; i < listItems.length; i++) {
                const item: unknown = listItems[i];
                if (isKubernetesObject(item)) {
                    out.push({ file, line: nodeLine(objectNode(doc, i), lineCounter), object: item, document: index, item: i });
                }
            }
            continue;
        }
        out.push({ file, line: nodeLine(doc.contents, lineCounter), object: value, document: index });
    }
    return out;
}

/** Objects with their `lineOf`, read off `parse` (the documents they came from). */
function located(read: readonly ReadObject[], parse: () => Parse): ManifestObject[] {
    return read.map(({ file, line, object, document, item }) => ({ file, line, object, lineOf: locator(parse, document, item) }));
}

/**
 * Every Kubernetes object in one YAML text (multi-document, `kind: List` expanded), with the line
 * it starts on. Documents that are not Kubernetes objects (no apiVersion/kind) are skipped. `hold`:
 * how the documents that `lineOf` reads are held (weakly; see `heldDocuments`).
 */
export function parseManifests(text: string, file: string, hold: Hold = weakly): ManifestObject[] {
    const parse = parseDocuments(text);
    return located(
        objectsOf(parse, file),
        heldDocuments(() => text, parse, hold),
    );
}

/** The objects of one file, as a thread that reads files sends them (no `lineOf`: see `locatedObjects`). */
export function readObjects(file: string): ReadObject[] {
    return objectsOf(parseDocuments(fileText(file)), file);
}

/** Objects another thread read from `file` (`readObjects`), their `lineOf` reading the file again when first asked. */
export function locatedObjects(read: readonly ReadObject[], file: string, hold: Hold = weakly): ManifestObject[] {
    return located(
        read,
        heldDocuments(() => fileText(file), undefined, hold),
    );
}

/** Why a path cannot be read, in words that name what is really there. */
function unreadable(p: string, err: NodeJS.ErrnoException): string {
    const target = (() => {
        try {
            return fs.readlinkSync(p);
        } catch {
            return undefined;
        }
    })();
    switch (err.code) {
        case "ELOOP":
            return `symbolic link loop: it points to ${target ?? "a link"}, which leads back to it and never reaches a file or directory`;
        case "ENOENT":
            return target !== undefined
                ? `broken symbolic link: it points to ${target}, which does not exist`
                : "no such file or directory";
        case "EACCES":
            return "permission denied";
        default:
            return err.message;
    }
}

const SKIP_DIRS = new Set(["node_modules", ".git"]);

/**
 * YAML files under the given paths, sorted, so output is stable between runs; `-` (standard input)
 * is kept in place. A file reached twice (through a symbolic link, or named again) is read once; a
 * directory link that leads back to a directory being read is an error naming its real path.
 */
export function collectFiles(paths: readonly string[]): string[] {
    const files: string[] = [];
    const seen = new Set<string>();
    const walk = (p: string, explicit: boolean, reading: readonly string[]) => {
        let stat: fs.Stats;
        try {
            stat = fs.statSync(p);
        } catch (err) {
            throw new ManifestError(p, undefined, unreadable(p, err as NodeJS.ErrnoException));
        }
        const real = fs.realpathSync(p);
        if (stat.isDirectory()) {
            if (reading.includes(real)) {
                throw new ManifestError(
                    p,
                    undefined,
                    `symbolic link loop: this is ${real}, a directory already being read; remove the link or name the directories you mean`,
                );
            }
            for (const entry of fs.readdirSync(p).sort()) {
                if (!SKIP_DIRS.has(entry) && !entry.startsWith(".")) {
                    walk(path.join(p, entry), false, [...reading, real]);
                }
            }
        } else if ((explicit || /\.ya?ml$/i.test(p)) && !seen.has(real)) {
            seen.add(real);
            files.push(p);
        }
    };
    for (const p of paths) {
        if (p === STDIN_ARG) {
            if (!files.includes(STDIN_ARG)) {
                files.push(STDIN_ARG);
            }
        } else {
            walk(p, true, []);
        }
    }
    return files;
}

/** The objects of every file (`-`: standard input, read once, named `<stdin>`). */
export function readManifests(files: readonly string[], readStdin: () => Buffer | string = () => fs.readFileSync(0)): ManifestObject[] {
    return files.flatMap((f) => {
        if (f === STDIN_ARG) {
            return parseManifests(utf8(readStdin(), STDIN_NAME), STDIN_NAME);
        }
        return parseManifests(fileText(f), f);
    });
}

/** A manifest file's text (UTF-8), or why it cannot be read. */
function fileText(file: string): string {
    let bytes: Buffer;
    try {
        bytes = fs.readFileSync(file);
    } catch (err) {
        throw new ManifestError(file, undefined, unreadable(file, err as NodeJS.ErrnoException));
    }
    return utf8(bytes, file);
}

/**
 * The text of a manifest file, which must be UTF-8: the API server decodes JSON as UTF-8 and
 * kubectl's YAML reader (sigs.k8s.io/yaml over go-yaml) refuses an invalid sequence, so a file
 * that is not is refused here, naming its line, instead of being read with replacement characters.
 */
export function utf8(bytes: Buffer | string, file: string): string {
    if (typeof bytes === "string") {
        return bytes;
    }
    try {
        return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
        // The first invalid byte: decode prefixes until one fails.
        let good = 0;
        let bad = bytes.length;
        while (bad - good > 1) {
            const mid = (good + bad) >> 1;
            try {
                new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
                good = mid;
            } catch {
                bad = mid;
            }
        }
        const line = bytes.subarray(0, good).toString("latin1").split("\n").length;
        throw new ManifestError(
            file,
            line,
            `not valid UTF-8 (byte 0x${bytes[good].toString(16).padStart(2, "0")} at offset ${good}): kubectl and the API server refuse it; save the file as UTF-8`,
        );
    }
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

/** Where each manifest object went: resource for the gate (`packProps` of the object), locator for the reports. */
export interface ManifestResource {
    resource: GateResource;
    manifest: ManifestObject;
    kind: string;
    name: string;
    namespace?: string;
}

export const MANIFEST_PROJECT = "k8s-manifests";

/** `Deployment shop/web`: how reports name an object. */
export function subjectOf(r: ManifestResource): string {
    return `${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name}`;
}

/**
 * Maps objects to the resources Pulumi would register, without the duplicate check (see
 * `toResources`). `offset`: how many objects came before these (unnamed objects are numbered
 * across the whole input). `defaultNamespace` is the namespace of namespaced objects that name
 * none, as `kubectl apply -n` sets it (`default` when not given).
 */
export function mapObjects(objects: readonly ManifestObject[], env: string, offset = 0, defaultNamespace?: string): ManifestResource[] {
    return objects.map((m, j): ManifestResource => {
        const i = offset + j;
        const written = m.object;
        const kind = written.kind as string;
        const writtenMeta = (written.metadata ?? {}) as Record<string, unknown>;
        const o =
            defaultNamespace !== undefined && !CLUSTER_SCOPED.has(kind) && typeof writtenMeta.namespace !== "string"
                ? { ...written, metadata: { ...writtenMeta, namespace: defaultNamespace } }
                : written;
        const meta = (o.metadata ?? {}) as { name?: unknown; generateName?: unknown; namespace?: unknown };
        const name =
            typeof meta.name === "string" ? meta.name : typeof meta.generateName === "string" ? `${meta.generateName}${i}` : `unnamed-${i}`;
        const namespace = CLUSTER_SCOPED.has(kind) ? undefined : typeof meta.namespace === "string" ? meta.namespace : "default";
        const type = typeToken(o.apiVersion as string, kind);
        // Unnamed objects already have a unique generated name; prefixing their namespace would make
        // the pack (which falls back to the logical name) show it twice.
        const logical = namespace && typeof meta.name === "string" ? `${namespace}/${name}` : name;
        const urn = urnOf(env, MANIFEST_PROJECT, type, logical);
        return {
            resource: { urn, type, name: logical, props: packProps(o) },
            manifest: m,
            kind,
            name,
            ...(namespace ? { namespace } : {}),
        };
    });
}

/**
 * Objects with one kind, namespace and name are an error listing every such pair: applied, one
 * would silently replace the other.
 */
export function assertUnique(resources: readonly ManifestResource[]): void {
    const seen = new Map<string, ManifestObject>();
    const duplicates: string[] = [];
    for (const r of resources) {
        const first = seen.get(r.resource.urn);
        if (first) {
            duplicates.push(
                `${r.manifest.file}:${r.manifest.line}: ${r.kind} ${r.resource.name} is also defined at ${first.file}:${first.line}`,
            );
        } else {
            seen.set(r.resource.urn, r.manifest);
        }
    }
    if (duplicates.length > 0) {
        throw new InputError(
            `${duplicates.length} object${duplicates.length > 1 ? "s repeat" : " repeats"} the kind, namespace and name of another (applied, one would silently replace the other):\n${duplicates.map((d) => `  - ${d}`).join("\n")}`,
        );
    }
}

/** Maps objects to the resources Pulumi would register; duplicates are an error (`assertUnique`). */
export function toResources(objects: readonly ManifestObject[], env: string, defaultNamespace?: string): ManifestResource[] {
    const resources = mapObjects(objects, env, 0, defaultNamespace);
    assertUnique(resources);
    return resources;
}
