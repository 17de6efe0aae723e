/**
 * What the drain rehearsal reads: a stack rendered offline and the Kubernetes objects of
 * manifests, as resources the pack's engine (rehearsal/) reads, with values unknown
 * at preview behind the SDK's proxy as under `pulumi preview`. Shared by `npm run drain` and the
 * benchmark.
 */
import * as path from "path";
import type { DrainResource } from "eks-platform-rehearsal";
import { unknownCheckingProxy } from "eks-platform-kernel/policy";
import { collectFiles, readManifests, toResources } from "./manifests";
import { readStackFiles, runProgram } from "./offline";
import { urnOf } from "./requests";

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

/** The Kubernetes objects of manifest files and directories, read as the manifest gate reads them. */
export function manifestResources(paths: readonly string[], stack: string): DrainResource[] {
    return toResources(readManifests(collectFiles(paths)), stack).map((m) =>
        asRead(m.resource.type, m.resource.name, m.resource.urn, m.resource.props),
    );
}
