/**
 * The drain rehearsal: what each node rollout of a stack would do to its workloads, before `up`.
 *
 *   npm run drain -- <stack> [manifest paths…] [--group NAME] [--namespace NAME] [--format text|markdown|json]
 *   npm run drain -- --platform PROFILE [manifest paths…] [--group NAME] [--namespace NAME] [--format …]
 *
 * With `--platform` the platform comes from a profile (`npm run profile`) instead of rendering a
 * stack: an application repository rehearses its manifests on the platform's real node groups,
 * pools and add-ons without the platform's program. `--namespace` is the namespace of objects that
 * name none, as `kubectl apply -n` sets it.
 *
 * Renders the stack offline (tools/render/offline.ts), adds the Kubernetes objects of the manifests given
 * (files or directories of YAML, `-` for stdin, read as the manifest gate reads them), and runs the
 * pack's rehearsal engine (rehearsal/). Text and Markdown show the same report: problems first,
 * then the passing groups, what is undecided or not modelled, then each group's timeline (in
 * Markdown a Mermaid gantt chart, for a pull request's job summary). The manifests pass the API
 * server's validation first, as in `policy:check`: an object it would refuse is listed first and
 * not rehearsed. Exit codes: 0 no rollout blocks (undecided items are listed, never passed), 1 a
 * rollout would stall, leave a pod nowhere to run, cut a pod short or take a workload to zero
 * ready replicas, or a manifest holds an object the API server would refuse; 2 bad input.
 */
import { formatRehearsal, formatRehearsalMarkdown, rehearse, UnknownGroupError } from "eks-platform-rehearsal";
import { ConfigError } from "../../components/config";
import { oneOf, parseCommandLine, runMain } from "../cli/cli";
import { profileResources, RefusedObject, stackResources, validatedManifestResources } from "./drainInput";
import { namespaceOption, readProfile } from "./platformProfile";
import { InputError } from "../cli/errors";

const USAGE =
    "usage: npm run drain -- <stack> [manifest paths…] [--group NAME] [--namespace NAME] [--format text|markdown|json]\n" +
    "       npm run drain -- --platform PROFILE [manifest paths…] [--group NAME] [--namespace NAME] [--format text|markdown|json]";

async function main(): Promise<number> {
    const { values, positionals } = parseCommandLine(
        process.argv.slice(2),
        {
            group: { type: "string" },
            format: { type: "string", default: "text" },
            platform: { type: "string" },
            namespace: { type: "string" },
        },
        USAGE,
    );
    const format = oneOf("--format", values.format, ["text", "markdown", "json"] as const);
    const namespace = namespaceOption(values.namespace);
    const root = process.cwd();
    const profile = values.platform !== undefined ? readProfile(values.platform, root) : undefined;
    const [stack, ...paths] = profile ? [profile.profile.stack, ...positionals] : positionals;
    if (!stack) {
        throw new InputError(USAGE);
    }
    profile?.warnings.forEach((w) => process.stderr.write(`warning: ${w}\n`));
    // Manifests first: a bad file is named before the stack renders.
    const manifests = await validatedManifestResources(paths, stack, namespace);
    const platform = profile ? profileResources(profile.profile.context) : await stackResources(root, stack);
    const resources = [...platform, ...manifests.resources];
    const rehearsal = rehearse(resources, values.group !== undefined ? { group: values.group } : {});
    process.stdout.write(
        format === "json"
            ? `${JSON.stringify({ stack, refused: manifests.refused, ...rehearsal })}\n`
            : `${refusedText(manifests.refused, format)}${format === "markdown" ? formatRehearsalMarkdown(rehearsal, stack) : `${formatRehearsal(rehearsal, stack)}\n`}`,
    );
    return rehearsal.verdict === "blocked" || manifests.refused.length > 0 ? 1 : 0;
}

/** Objects the API server would refuse, before the rehearsal's report: each at its file and line. */
function refusedText(refused: readonly RefusedObject[], format: "text" | "markdown"): string {
    if (refused.length === 0) {
        return "";
    }
    const head = `Refused by the API server, so not rehearsed (${refused.length}):`;
    const lines = refused.map((r) => `${format === "markdown" ? "- " : "  "}${r.file}:${r.line}: ${r.message}`);
    return `${format === "markdown" ? `**${head}**\n\n` : `${head}\n`}${lines.join("\n")}\n\n`;
}

if (require.main === module) {
    runMain(main, [ConfigError, UnknownGroupError]);
}
