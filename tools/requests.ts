/**
 * Resources as the engine sends them to a policy pack: URNs shaped like the engine's, properties
 * marshalled into protobuf Structs, and the Analyze / AnalyzeStack request messages.
 */
import * as analyzerpb from "@pulumi/pulumi/proto/analyzer_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

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

/** A resource's properties as the Struct both requests carry (built once per resource). */
export function propertiesStruct(r: GateResource): Struct {
    return Struct.fromJavaScript(toStructValue(r.props) as Record<string, never>);
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

/** The Analyze request for one resource. */
export function buildAnalyzeRequest(r: GateResource, props: Struct): analyzerpb.AnalyzeRequest {
    const req = new analyzerpb.AnalyzeRequest();
    req.setUrn(r.urn);
    req.setType(r.type);
    req.setName(r.name);
    req.setProperties(props);
    req.setOptions(buildOptions(r));
    return req;
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
            a.setProperties(structs?.[i] ?? propertiesStruct(r));
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
