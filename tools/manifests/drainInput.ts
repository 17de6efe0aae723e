/**
 * What the drain rehearsal reads: a stack rendered offline and the Kubernetes objects of
 * manifests, as resources the pack's engine (rehearsal/) reads, with values unknown
 * at preview behind the SDK's proxy as under `pulumi preview`. Shared by `npm run drain` and the
 * benchmark.
 */
import * as path from "path";
import type { DrainResource } from "eks-platform-rehearsal";
import { unknownCheckingProxy } from "eks-platform-evaluation";
import { collectFiles, ManifestResource, readManifests, subjectOf, toResources } from "./manifests";
import { readStackFiles, runProgram } from "../render/offline";
import { displayPath } from "../gate/report";
import { urnOf } from "../gate/requests";
import { validateObjects } from "../gate/schema";

// The SDK's proxy makes a value unknown at preview throw when read, as under `pulumi preview`.
function asRead(type: string, name: string, urn: string, props: Record<string, unknown>, parent?: string): DrainResource {
    return { type, name, urn, props: unknownCheckingProxy(props), ...(parent ? { parent: { urn: parent } } : {}) };
}

/** The stack's resources as the pack's engine reads them (the program runs once per process). */
export async function stackResources(root: string, stack: string): Promise<DrainResource[]> {
    const { project } = readStackFiles(root, stack);
    const run = await runProgram(root, stack, path.join(root, "index.ts"), "preview");
    const urns = new Map(run.resources.map((r) => [r.name, urnOf(stack, project, r.type, r.name)]));
    return run.resources.map((r) =>
        asRead(r.type, r.name, urns.get(r.name) as string, r.props, r.options.parent ? urns.get(r.options.parent) : undefined),
    );
}

function asReadManifest(m: ManifestResource): DrainResource {
    return asRead(m.resource.type, m.resource.name, m.resource.urn, m.resource.props);
}

/**
 * A platform profile's context (tools/manifests/platformProfile.ts) as the pack's engine reads it: the
 * platform without its program. The parent is kept: an Auto Scaling group and its lifecycle hook share
 * it, the one link between them while the group's name is unknown at preview.
 */
export function profileResources(
    context: readonly { type: string; name: string; urn: string; parent?: string; props: Record<string, unknown> }[],
): DrainResource[] {
    return context.map((r) => asRead(r.type, r.name, r.urn, JSON.parse(JSON.stringify(r.props)) as Record<string, unknown>, r.parent));
}

/** The Kubernetes objects of manifest files and directories, read as the manifest gate reads them. */
export function manifestResources(paths: readonly string[], stack: string): DrainResource[] {
    return toResources(readManifests(collectFiles(paths)), stack).map(asReadManifest);
}

/** An object of the manifests the API server would refuse: where, and why. */
export interface RefusedObject {
    file: string;
    line: number;
    message: string;
}

/**
 * The manifests' objects after the API server's validation, as `policy:check` runs it first
 * (tools/gate/schema.ts): an object the API server would refuse (`replicas: -5`, a budget of
 * `maxUnavailable: -1`) never exists in the cluster, so it is not rehearsed and is returned in
 * `refused`, with its file and the line of the offending field.
 */
export async function validatedManifestResources(
    paths: readonly string[],
    stack: string,
    namespace?: string,
): Promise<{ resources: DrainResource[]; refused: RefusedObject[] }> {
    const mapped = toResources(readManifests(collectFiles(paths)), stack, namespace);
    const checked = await validateObjects(
        mapped.map((m) => ({
            urn: m.resource.urn,
            object: m.manifest.object,
            subject: subjectOf(m),
            lineOf: m.manifest.lineOf ?? (() => m.manifest.line),
        })),
    );
    const byUrn = new Map(mapped.map((m) => [m.resource.urn, m]));
    const refused = checked.diagnostics.map((d) => ({
        file: displayPath(byUrn.get(d.urn ?? "")?.manifest.file ?? "-"),
        line: d.line ?? byUrn.get(d.urn ?? "")?.manifest.line ?? 0,
        message: d.message,
    }));
    // One validation for the gate and the rehearsal: the schema and what the API server refuses beyond it (tools/gate/schema.ts).
    const refusedUrns = new Set(checked.diagnostics.map((d) => d.urn));
    return { resources: mapped.filter((m) => !refusedUrns.has(m.resource.urn)).map(asReadManifest), refused };
}
