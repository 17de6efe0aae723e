/**
 * The drain rehearsal: what each node rollout of a stack would do to its workloads, before `up`.
 *
 *   npm run drain -- <stack> [manifest paths…] [--group NAME] [--format text|json]
 *
 * Renders the stack offline (tools/offline.ts), adds the Kubernetes objects of the manifests given
 * (files or directories of YAML, `-` for stdin, read as the manifest gate reads them), and runs the
 * pack's rehearsal engine (policies/lib/rehearsal). Exit codes: 0 no rollout blocks (undecided
 * items are listed, never passed), 1 a rollout would stall, leave a pod nowhere to run, cut a pod
 * short or take a workload to zero ready replicas, 2 bad input.
 */
import * as path from "path";
import { DrainResource, formatRehearsal, rehearse, UnknownGroupError } from "eks-platform-policies/lib/rehearsal";
import { unknownCheckingProxy } from "eks-platform-policies/lib/sdk";
import { ConfigError } from "../components/config";
import { oneOf, parseCommandLine, runMain } from "./cli";
import { InputError } from "./errors";
import { collectFiles, readManifests, toResources } from "./manifests";
import { readStackFiles, runProgram } from "./offline";
import { urnOf } from "./requests";

const USAGE = "usage: npm run drain -- <stack> [manifest paths…] [--group NAME] [--format text|json]";

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

async function main(): Promise<number> {
    const { values, positionals } = parseCommandLine(
        process.argv.slice(2),
        { group: { type: "string" }, format: { type: "string", default: "text" } },
        USAGE,
    );
    const format = oneOf("--format", values.format, ["text", "json"] as const);
    const [stack, ...paths] = positionals;
    if (!stack) {
        throw new InputError(USAGE);
    }
    // Manifests first: a bad file is named before the stack renders.
    const manifests = manifestResources(paths, stack);
    const resources = [...(await stackResources(process.cwd(), stack)), ...manifests];
    const rehearsal = rehearse(resources, values.group !== undefined ? { group: values.group } : {});
    process.stdout.write(format === "json" ? `${JSON.stringify({ stack, ...rehearsal })}\n` : `${formatRehearsal(rehearsal, stack)}\n`);
    return rehearsal.verdict === "blocked" ? 1 : 0;
}

if (require.main === module) {
    runMain(main, [ConfigError, UnknownGroupError]);
}
