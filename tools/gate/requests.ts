/**
 * Resources as the engine sends them to a policy pack: URNs shaped like the engine's, properties
 * marshalled into protobuf Structs, and the Analyze / AnalyzeStack request messages.
 */
import * as analyzerpb from "@pulumi/pulumi/proto/analyzer_pb";
import { BinaryReader, BinaryWriter, Message } from "google-protobuf";

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

/** A URN as the engine builds it: ancestors' types (the stack excluded) joined by `$`. */
export function urnOf(stack: string, project: string, qualifiedType: string, name: string): string {
    return `urn:pulumi:${stack}::${project}::${qualifiedType}::${name}`;
}

type Writer = BinaryWriter & { writeMessage<T>(field: number, value: T, write: (value: T, writer: BinaryWriter) => void): void };

// google.protobuf.Value's fields (struct.proto): one of null_value = 1, number_value = 2,
// string_value = 3, bool_value = 4, struct_value = 5, list_value = 6. Struct: map<string, Value>
// fields = 1 (entries: key = 1, value = 2). ListValue: repeated Value values = 1.
function writeValue(value: unknown, w: Writer): void {
    if (typeof value === "string") {
        w.writeString(3, value);
    } else if (typeof value === "number") {
        if (Number.isFinite(value)) {
            w.writeDouble(2, value);
        } else {
            w.writeEnum(1, 0);
        }
    } else if (typeof value === "boolean") {
        w.writeBool(4, value);
    } else if (Array.isArray(value)) {
        w.writeMessage(6, value, writeList);
    } else if (value instanceof Date) {
        w.writeString(3, value.toISOString());
    } else if (typeof value === "bigint") {
        w.writeDouble(2, Number(value));
    } else if (value !== null && typeof value === "object") {
        w.writeMessage(5, value as Record<string, unknown>, writeStruct);
    } else {
        w.writeEnum(1, 0);
    }
}

// The writer skips a null message, so a Value travels boxed (a null Value is a message too).
function writeBoxedValue(box: [unknown], w: BinaryWriter): void {
    writeValue(box[0], w as Writer);
}

function writeList(values: unknown[], w: BinaryWriter): void {
    for (const v of values) {
        (w as Writer).writeMessage(1, [v === undefined ? null : v] as [unknown], writeBoxedValue);
    }
}

function writeEntry(entry: [string, unknown], w: BinaryWriter): void {
    w.writeString(1, entry[0]);
    (w as Writer).writeMessage(2, [entry[1]] as [unknown], writeBoxedValue);
}

function writeStruct(object: Record<string, unknown>, w: BinaryWriter): void {
    for (const key of Object.keys(object)) {
        const v = object[key];
        if (v !== undefined) {
            (w as Writer).writeMessage(1, [key, v] as [string, unknown], writeEntry);
        }
    }
}

/**
 * Properties as the bytes of a `google.protobuf.Struct`, marshalled as the engine would:
 * `undefined` members are dropped (`null` in a list), non-finite numbers and other exotic values
 * become null, dates their ISO text, bigints numbers. Written once per resource straight from the
 * JavaScript value with google-protobuf's own writer, without a protobuf object per value.
 */
export function encodeProperties(props: Record<string, unknown>): Uint8Array {
    const w = new BinaryWriter();
    writeStruct(props, w);
    return w.getResultBuffer();
}

// A string as google-protobuf's UTF-8 codec gives it back: only text with a surrogate code unit
// can change (a lone one is dropped or kept as the codec decides), so only that text goes through it.
const SURROGATE = /[\uD800-\uDFFF]/;
function wireString(s: string): string {
    if (!SURROGATE.test(s)) {
        return s;
    }
    const w = new BinaryWriter();
    w.writeString(1, s);
    const r = new BinaryReader(w.getResultBuffer());
    r.nextField();
    return r.readString();
}

function wireValue(value: unknown): unknown {
    if (typeof value === "string") {
        return wireString(value);
    } else if (typeof value === "number") {
        return Number.isFinite(value) ? value : null;
    } else if (typeof value === "boolean") {
        return value;
    } else if (Array.isArray(value)) {
        const out: unknown[] = [];
        // for…of, as writeList: a hole is a member (null), which map() would skip.
        for (const v of value as unknown[]) {
            out.push(v === undefined ? null : wireValue(v));
        }
        return out;
    } else if (value instanceof Date) {
        return value.toISOString();
    } else if (typeof value === "bigint") {
        return Number(value);
    } else if (value !== null && typeof value === "object") {
        return wireStruct(value as Record<string, unknown>);
    }
    return null;
}

function wireStruct(object: Record<string, unknown>): Record<string, unknown> {
    // Decoded, a Struct is a jspb.Map: a later equal key wins, `__proto__` is lost (the map keeps
    // its entries in a plain object), and members come back sorted by key.
    const fields = new Map<string, unknown>();
    for (const key of Object.keys(object)) {
        const v = object[key];
        if (v !== undefined) {
            fields.set(wireString(key), v);
        }
    }
    fields.delete("__proto__");
    const out: Record<string, unknown> = {};
    for (const key of [...fields.keys()].sort()) {
        out[key] = wireValue(fields.get(key));
    }
    return out;
}

/**
 * Properties as a pack reads them once `encodeProperties` has written them and the SDK has decoded
 * them (`Struct.toJavaScript`), with no bytes in between: what an in-process pack is given. The
 * equivalence is tested value for value against the codec (test/tools/gate/requests.test.ts).
 */
export function wireProperties(props: Record<string, unknown>): Record<string, unknown> {
    return wireStruct(props);
}

/** A message as `serialize` writes it, plus one length-delimited field (protobuf merges concatenated fields). */
function withField(serialize: (w: BinaryWriter) => void, field: number, bytes: Uint8Array): Uint8Array {
    const w = new BinaryWriter();
    serialize(w);
    w.writeBytes(field, bytes);
    return w.getResultBuffer();
}

/** A request that sends bytes already written (the generated client calls `serializeBinary`). */
function preEncoded<T extends Message>(message: T, bytes: Uint8Array): T {
    message.serializeBinary = () => bytes;
    return message;
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

/** The Analyze request for one resource, without its properties. */
export function analyzeRequestOf(r: GateResource): analyzerpb.AnalyzeRequest {
    const req = new analyzerpb.AnalyzeRequest();
    req.setUrn(r.urn);
    req.setType(r.type);
    req.setName(r.name);
    req.setOptions(buildOptions(r));
    return req;
}

/** One resource of the AnalyzeStack request, without its properties. */
export function stackResourceOf(r: GateResource): analyzerpb.AnalyzerResource {
    const a = new analyzerpb.AnalyzerResource();
    a.setUrn(r.urn);
    a.setType(r.type);
    a.setName(r.name);
    a.setOptions(buildOptions(r));
    if (r.parent) {
        a.setParent(r.parent);
    }
    a.setDependenciesList(r.dependencies ?? []);
    return a;
}

// Field number of `properties` in both AnalyzeRequest and AnalyzerResource (analyzer.proto).
const PROPERTIES = 2;
// Field number of `resources` in AnalyzeStackRequest.
const RESOURCES = 1;

/** The Analyze request for one resource, its properties given as `encodeProperties` bytes. */
export function buildAnalyzeRequest(r: GateResource, props: Uint8Array = encodeProperties(r.props)): analyzerpb.AnalyzeRequest {
    const req = analyzeRequestOf(r);
    return preEncoded(
        req,
        withField((w) => analyzerpb.AnalyzeRequest.serializeBinaryToWriter(req, w), PROPERTIES, props),
    );
}

/** One resource of the AnalyzeStack request, as bytes. */
export function encodeStackResource(r: GateResource, props: Uint8Array = encodeProperties(r.props)): Uint8Array {
    const a = stackResourceOf(r);
    return withField((w) => analyzerpb.AnalyzerResource.serializeBinaryToWriter(a, w), PROPERTIES, props);
}

/**
 * The AnalyzeStack request for these resources (exported so the bench can size it); `encoded`:
 * each resource's `encodeStackResource` bytes, when already written.
 */
export function buildStackRequest(resources: readonly GateResource[], encoded?: readonly Uint8Array[]): analyzerpb.AnalyzeStackRequest {
    const w = new BinaryWriter();
    resources.forEach((r, i) => w.writeBytes(RESOURCES, encoded?.[i] ?? encodeStackResource(r)));
    return preEncoded(new analyzerpb.AnalyzeStackRequest(), w.getResultBuffer());
}
