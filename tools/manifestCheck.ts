/**
 * The manifest gate: the policy pack on plain Kubernetes YAML, the same pack the same way as for
 * a stack, with `<pack>/config/<env>.json`.
 */
import { PolicyPackProcess } from "./analyzer";
import { GateReport, openGate } from "./gate";
import { assertUnique, collectFiles, MANIFEST_PROJECT, ManifestResource, mapObjects, readManifests } from "./manifests";
import { environmentConfig } from "./policyConfig";
import { displayPath, formatGateText, Locate, toViolations, Violation } from "./report";

export interface CheckResult {
    report: GateReport;
    resources: ManifestResource[];
    violations: Violation[];
    files: number;
    /** How the reports name each object. */
    locate: Locate;
}

export interface CheckOptions {
    /** Files and directories; `-` reads standard input. */
    paths: readonly string[];
    env: string;
    packDir: string;
    /** Defaults to `<packDir>/config/<env>.json` (the pack's own levels when that does not exist). */
    configFile?: string;
}

/** Names a manifest object: kind, namespace/name, and where it is written. */
function locator(resources: readonly ManifestResource[], env: string): Locate {
    const byUrn = new Map(resources.map((r) => [r.resource.urn, r]));
    return (urn) => {
        const r = urn ? byUrn.get(urn) : undefined;
        if (!r) {
            return { resource: { type: "pulumi:pulumi:Stack", name: env }, label: "(all objects)" };
        }
        return {
            resource: { type: r.resource.type, name: r.name, kind: r.kind, ...(r.namespace ? { namespace: r.namespace } : {}) },
            label: `${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name} (${displayPath(r.manifest.file)}:${r.manifest.line})`,
            location: { file: r.manifest.file, line: r.manifest.line },
        };
    };
}

/** Reads, maps and gates the manifests under `paths`. */
export async function checkManifests(opts: CheckOptions): Promise<CheckResult> {
    const files = collectFiles(opts.paths);
    // The pack boots in its own process while the YAML is parsed here, and each file's objects
    // go to Analyze while the next file is read: the pack's work overlaps the parsing.
    const pack = PolicyPackProcess.start(opts.packDir, { stack: opts.env, project: MANIFEST_PROJECT });
    pack.catch(() => undefined);
    let report: GateReport;
    const resources: ManifestResource[] = [];
    try {
        const config = opts.configFile ? { file: opts.configFile, warnings: [] } : environmentConfig(opts.packDir, opts.env);
        const gate = openGate({
            packDir: opts.packDir,
            configFile: config.file,
            warnings: config.warnings,
            stack: opts.env,
            project: MANIFEST_PROJECT,
            pack,
        });
        for (const file of files) {
            const mapped = mapObjects(readManifests([file]), opts.env, resources.length);
            resources.push(...mapped);
            gate.analyze(mapped.map((r) => r.resource));
            // Let the requests just queued go out (and answers come in) before the next file.
            await new Promise((resolve) => setImmediate(resolve));
        }
        assertUnique(resources);
        report = await gate.finish();
    } finally {
        void pack.then(
            (p) => p.close(),
            () => undefined,
        );
    }
    const locate = locator(resources, opts.env);
    return { report, resources, violations: toViolations(report, locate), files: files.length, locate };
}

/** Text report: a header naming input, pack and config, then the gate's grouped report. */
export function formatCheckText(result: CheckResult): string {
    const header = `Policy check of ${result.resources.length} objects in ${result.files} files (pack ${result.report.pack}, config ${result.report.configFile ?? "none"})`;
    return `${header}\n${formatGateText(result.report, result.locate)}`;
}
