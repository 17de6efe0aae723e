/**
 * The manifest gate's command: the policy pack on plain Kubernetes YAML (kubectl, Helm `template`
 * output), for teams that do not ship through Pulumi.
 *
 *   npm run policy:check -- [--env dev|prod] [--platform PROFILE] [--namespace NAME] [--format text|compact|json|sarif] [--docs-url URL] [--policy-pack <dir>] [--analyzer] <file-or-dir>... | -
 *
 * With `--platform`, the manifests are judged beside the platform profile's context (its nodes,
 * pools, namespaces and add-ons: `npm run profile`), in the profile's environment unless `--env`
 * says otherwise; findings on the platform's own resources are left out. `--namespace` is the
 * namespace of objects that name none, as `kubectl apply -n` sets it. SARIF rules link to their
 * entry in docs/policies.md (`helpUri`) at the commit the gate runs from (its `origin` remote),
 * or under `--docs-url` (the address of docs/policies.md, e.g. on an internal mirror).
 *
 * The pack's policies run in this process (tools/gate/inProcessPack.ts: the SDK's own handlers, no
 * gRPC) on the `@pulumi/policy` release that module was verified on; `--analyzer`, or any other
 * release, runs the pack as its own process and talks to it over gRPC, exactly as `pulumi preview
 * --policy-pack` does. The verdicts are the same (a test holds them so).
 *
 * Exit codes: 0 no mandatory violation, 1 at least one, 2 bad input (unreadable file, invalid
 * YAML — named with file and line —, bad config, unknown option).
 */
import * as path from "path";
import { oneOf, parseCommandLine, runMain } from "../cli/cli";
import { InputError } from "../cli/errors";
import { summarize } from "../gate/gate";
import { checkManifests, formatCheckText, PLATFORM_FIT, PLATFORM_FIT_DOCS } from "./manifestCheck";
import { STDIN_NAME } from "./manifests";
import { namespaceOption, readProfile } from "./platformProfile";
import { policies } from "eks-platform-policies";
import { declarationsOf, policyAnchor, policyDocsUrl } from "../docs/policyTables";
import { formatCompact, RuleDocs, toSarif } from "../gate/report";
import { API_SERVER_VALIDATION, API_SERVER_VALIDATION_DOCS } from "../gate/schema";

/** The version of the JSON output's shape (`formatVersion`); it changes when a field's meaning does. */
export const JSON_FORMAT_VERSION = 1;

const USAGE =
    "usage: npm run policy:check -- [--env dev|prod] [--platform PROFILE] [--namespace NAME] [--format text|compact|json|sarif] [--docs-url URL] [--policy-pack <dir>] [--analyzer] <file-or-dir>... (- reads standard input)";

async function main(): Promise<number> {
    const { values, positionals } = parseCommandLine(
        process.argv.slice(2),
        {
            env: { type: "string" },
            platform: { type: "string" },
            namespace: { type: "string" },
            format: { type: "string", default: "text" },
            "policy-pack": { type: "string", default: "policies" },
            "docs-url": { type: "string" },
            analyzer: { type: "boolean", default: false },
        },
        USAGE,
    );
    const format = oneOf("--format", values.format, ["text", "compact", "json", "sarif"] as const);
    const namespace = namespaceOption(values.namespace);
    const profile = values.platform !== undefined ? readProfile(values.platform, process.cwd()) : undefined;
    const env = values.env ?? profile?.profile.stack ?? "prod";
    if (!/^[A-Za-z0-9_.-]+$/.test(env)) {
        throw new InputError(`--env must be an environment name like dev or prod, not "${env}"`);
    }
    if (positionals.length === 0) {
        throw new InputError(USAGE);
    }
    const result = await checkManifests({
        paths: positionals,
        env,
        packDir: values["policy-pack"],
        ...(profile ? { platform: profile.profile.context } : {}),
        ...(namespace ? { namespace } : {}),
        analyzer: values.analyzer,
    });
    profile?.warnings.forEach((w) => process.stderr.write(`warning: ${w}\n`));
    if (result.resources.length === 0) {
        throw new InputError(`no Kubernetes objects found in ${positionals.join(", ")}`);
    }
    if (format !== "text" && format !== "compact") {
        for (const w of result.report.warnings) {
            process.stderr.write(`warning: ${w}\n`);
        }
    }
    if (format === "json") {
        process.stdout.write(
            `${JSON.stringify({ formatVersion: JSON_FORMAT_VERSION, violations: result.violations, unvalidated: result.unvalidated })}\n`,
        );
    } else if (format === "compact") {
        process.stdout.write(`${formatCompact(result.report, result.violations)}\n`);
    } else if (format === "sarif") {
        // The pack's own words for each rule (what it checks, what it requires).
        const docs = new Map([
            ...declarationsOf(policies).map((d): [string, RuleDocs] => [d.name, d.docs]),
            [API_SERVER_VALIDATION, API_SERVER_VALIDATION_DOCS],
            [PLATFORM_FIT, PLATFORM_FIT_DOCS],
        ]);
        const url = policyDocsUrl(path.resolve(__dirname, "..", ".."), values["docs-url"]);
        const helpUri = url ? (id: string) => `${url}#${policyAnchor(id)}` : undefined;
        process.stdout.write(`${JSON.stringify(toSarif(result.report, result.violations, STDIN_NAME, docs, helpUri), null, 2)}\n`);
    } else {
        process.stdout.write(`${formatCheckText(result)}\n`);
    }
    return summarize(result.report).mandatory > 0 ? 1 : 0;
}

if (require.main === module) {
    runMain(main);
}
