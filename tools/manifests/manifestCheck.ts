/**
 * The manifest gate: the policy pack on plain Kubernetes YAML, the same pack the same way as for
 * a stack, with `<pack>/config/<env>.json`.
 */
import { INPUT_TAG, MANIFEST_INPUT, PLATFORM_INPUT, undecided, violation } from "eks-platform-kernel";
import { PolicyPack, PolicyPackProcess } from "../gate/analyzer";
import { InProcessPack, packInProcess } from "../gate/inProcessPack";
import { GateDiagnostic, GateReport, openGate } from "../gate/gate";
import { needsOf, platformOf, unmet } from "./platformFit";
import { assertUnique, collectFiles, MANIFEST_PROJECT, ManifestResource, mapObjects, subjectOf } from "./manifests";
import { readEachFile } from "./manifestReader";
import { environmentConfig, stackDerivedConfig } from "../gate/policyConfig";
import { displayPath, formatGateText, Locate, toViolations, Violation } from "../gate/report";
import type { GateResource } from "../gate/requests";
import { applyWaivers, readWaivers, unwaivable } from "./waivers";
import { API_SERVER_VALIDATION, API_SERVER_VALIDATION_DESCRIPTION, validateObjects } from "../gate/schema";

/** An object the API server's validation could not be applied to (no schema known for its kind). */
export interface UnvalidatedObject {
    resource: Violation["resource"];
    location: { file: string; line: number };
    reason: string;
}

export interface CheckResult {
    report: GateReport;
    resources: ManifestResource[];
    violations: Violation[];
    /** Objects judged by the pack without the API server's validation (no schema known for their kind). */
    unvalidated: UnvalidatedObject[];
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
    /**
     * A platform profile's context (tools/manifests/platformProfile.ts): the platform's resources are judged
     * with the manifests, so policies see its nodes, pools, namespaces and add-ons; findings on the
     * platform's own resources are the platform's gate's, and are left out of the report.
     */
    platform?: readonly GateResource[];
    /** The namespace of namespaced objects that name none (`kubectl apply -n`); `default` otherwise. */
    namespace?: string;
    /**
     * Run the pack as its own process over gRPC, as `pulumi preview --policy-pack` does, instead
     * of its handlers in this process (inProcessPack.ts, on the SDK release it was verified on:
     * `packInProcess`): the same verdicts, slower.
     */
    analyzer?: boolean;
    /** Read the files on threads of their own (manifestReader.ts): `true` always, `false` never, unset by the input's size. */
    parallel?: boolean;
}

function resourceOf(r: ManifestResource): Violation["resource"] {
    return { type: r.resource.type, name: r.name, kind: r.kind, ...(r.namespace ? { namespace: r.namespace } : {}) };
}

/** Names a manifest object: kind, namespace/name, and where it is written (the field's line when a verdict names one). */
function locator(resources: readonly ManifestResource[], env: string): Locate {
    const byUrn = new Map(resources.map((r) => [r.resource.urn, r]));
    return (urn, line) => {
        const r = urn ? byUrn.get(urn) : undefined;
        if (!r) {
            return { resource: { type: "pulumi:pulumi:Stack", name: env }, label: "(all objects)" };
        }
        const at = line ?? r.manifest.line;
        return {
            resource: resourceOf(r),
            label: `${subjectOf(r)} (${displayPath(r.manifest.file)}:${at})`,
            location: { file: r.manifest.file, line: at },
        };
    };
}

/** The check that manifests get what the platform provides (tools/manifests/platformFit.ts), run with a platform profile. */
export const PLATFORM_FIT = "platform-fit";
const PLATFORM_FIT_DESCRIPTION =
    "Objects get what they rely on from the platform: the StorageClass of a claim, the IngressClass of an Ingress, the load balancer controller of a Service, the metrics API of an HPA.";

/** What `platform-fit` requires and checks (docs/policies.md has it in full). */
export const PLATFORM_FIT_DOCS = {
    requires: "what an object relies on exists on the platform its profile describes",
    checks: "with --platform: the StorageClass of each PersistentVolumeClaim and StatefulSet volume claim (or a default class), the IngressClass of an Ingress and its controller, the load balancer controller a Service's annotations or class need, the metrics API behind a HorizontalPodAutoscaler",
};

/**
 * One mandatory finding per need of the manifests the platform's profile leaves unmet, and one
 * undecided (advisory, never failing a run by itself) per need AWS documents nothing about.
 */
function platformFitDiagnostics(resources: readonly ManifestResource[], context: readonly GateResource[], env: string): GateDiagnostic[] {
    const platform = platformOf(env, context);
    const byPlace = new Map(resources.map((r) => [`${r.manifest.file}:${r.manifest.line}`, r]));
    return unmet(needsOf(resources.map((r) => r.manifest)), platform).map(({ need, what, why, undecided: open }) => {
        const r = byPlace.get(`${need.file}:${need.line}`);
        if (open) {
            const reason = why.replace(/^undecided: /, "");
            return {
                policy: PLATFORM_FIT,
                level: "advisory" as const,
                ...(r ? { urn: r.resource.urn } : {}),
                message: undecided(
                    `${need.object} (${need.via}) needs ${what}, which the platform may or may not provide`,
                    reason,
                    "confirm it on a cluster of the platform, or use what the profile lists as provided",
                ),
                undeterminable: false,
                undecided: reason,
            };
        }
        return {
            policy: PLATFORM_FIT,
            level: "mandatory" as const,
            ...(r ? { urn: r.resource.urn } : {}),
            message: violation(
                `${need.object} (${need.via}) needs ${what}, which the platform does not provide: ${why}`,
                "the cluster accepts the object, but what it relies on never comes: a claim stays Pending, an Ingress or a Service never gets a load balancer, an HPA never scales",
                "use what the platform provides (the profile's storageClasses, ingressClasses, loadBalancerController and metricsApi), or ask the platform team to add it",
            ),
            undeterminable: false,
        };
    });
}

/**
 * Reads, maps and gates the manifests under `paths`. The API server's validation comes first: an
 * object it refuses is a mandatory verdict at the offending field and never reaches the pack (the
 * cluster would never hold it); an object of a kind with no known schema is judged, and listed as
 * not validated.
 */
export async function checkManifests(opts: CheckOptions): Promise<CheckResult> {
    const files = collectFiles(opts.paths);
    // A large input's reading threads start first, then the pack (its own process boots while the
    // YAML is parsed); either way, each file's objects go to Analyze while the next are read.
    const reading = readEachFile(files, opts.parallel);
    const pack: Promise<PolicyPack> = packInProcess(opts.analyzer)
        ? InProcessPack.start(opts.packDir)
        : PolicyPackProcess.start(opts.packDir, { stack: opts.env, project: MANIFEST_PROJECT });
    pack.catch(() => undefined);
    let report: GateReport;
    const resources: ManifestResource[] = [];
    let unvalidated: UnvalidatedObject[];
    try {
        const config = opts.configFile ? { file: opts.configFile, warnings: [] } : environmentConfig(opts.packDir, opts.env);
        const gate = openGate({
            packDir: opts.packDir,
            configFile: config.file,
            warnings: config.warnings,
            stack: opts.env,
            project: MANIFEST_PROJECT,
            pack,
            stackTags: { [INPUT_TAG]: opts.platform ? PLATFORM_INPUT : MANIFEST_INPUT },
            // With a profile the platform's cluster is in the input; without one, its stack file says the version.
            ...(opts.platform ? {} : { derivedConfig: stackDerivedConfig(opts.packDir, opts.env) }),
        });
        if (opts.platform) {
            gate.analyze(opts.platform);
        }
        const schema: Awaited<ReturnType<typeof validateObjects>> = { diagnostics: [], unvalidated: [], validated: 0 };
        for await (const objects of reading) {
            const mapped = mapObjects(objects, opts.env, resources.length, opts.namespace);
            // One push per object: spread into push(), a file of over ~125 000 objects (a 50 MB
            // manifest) overflows the call stack with its arguments.
            for (const r of mapped) {
                resources.push(r);
            }
            const checked = await validateObjects(
                mapped.map((r) => ({
                    urn: r.resource.urn,
                    object: r.manifest.object,
                    subject: subjectOf(r),
                    lineOf: r.manifest.lineOf ?? (() => r.manifest.line),
                })),
            );
            for (const d of checked.diagnostics) {
                schema.diagnostics.push(d);
            }
            for (const u of checked.unvalidated) {
                schema.unvalidated.push(u);
            }
            schema.validated += checked.validated;
            const refused = new Set(checked.diagnostics.map((d) => d.urn));
            gate.analyze(mapped.filter((r) => !refused.has(r.resource.urn)).map((r) => r.resource));
            // Let the requests just queued go out (and answers come in) before the next file.
            await new Promise((resolve) => setImmediate(resolve));
        }
        assertUnique(resources);
        report = await gate.finish();
        const platformUrns = new Set((opts.platform ?? []).map((r) => r.urn));
        const fit = opts.platform ? platformFitDiagnostics(resources, opts.platform, opts.env) : [];
        const waived = applyWaivers(
            [...fit, ...report.diagnostics.filter((d) => d.urn === undefined || !platformUrns.has(d.urn))],
            readWaivers(resources, [API_SERVER_VALIDATION, PLATFORM_FIT, ...report.policies.map((p) => p.name)]),
            unwaivable(opts.packDir, opts.env),
            opts.env,
        );
        const byUrn = new Map(resources.map((r) => [r.resource.urn, r]));
        // A verdict that names a field points at the field's line (its nearest ancestor written in the file).
        const located = waived.diagnostics.map((d): GateDiagnostic => {
            const lineOf = d.field && d.line === undefined && d.urn !== undefined ? byUrn.get(d.urn)?.manifest.lineOf : undefined;
            return lineOf && d.field ? { ...d, line: lineOf(d.field) } : d;
        });
        report = { ...report, diagnostics: located, warnings: [...report.warnings, ...waived.warnings] };
        const notValidated = schema.unvalidated.map((u) => ({ r: byUrn.get(u.urn) as ManifestResource, reason: u.reason }));
        unvalidated = notValidated.map(({ r, reason }) => ({
            resource: resourceOf(r),
            location: { file: r.manifest.file, line: r.manifest.line },
            reason,
        }));
        report = {
            ...report,
            resources: resources.length,
            policies: [
                {
                    name: API_SERVER_VALIDATION,
                    description: API_SERVER_VALIDATION_DESCRIPTION,
                    kind: "resource",
                    level: "mandatory",
                    evaluated: schema.validated,
                },
                ...(opts.platform
                    ? [
                          {
                              name: PLATFORM_FIT,
                              description: PLATFORM_FIT_DESCRIPTION,
                              kind: "resource" as const,
                              level: "mandatory" as const,
                              evaluated: resources.length,
                          },
                      ]
                    : []),
                ...report.policies,
            ],
            diagnostics: [...schema.diagnostics, ...report.diagnostics],
            warnings: [
                ...report.warnings,
                ...notValidated.map(
                    ({ r, reason }) => `${subjectOf(r)} (${displayPath(r.manifest.file)}:${r.manifest.line}) was not validated: ${reason}`,
                ),
            ],
        };
    } finally {
        reading.close();
        void pack.then(
            (p) => p.close(),
            () => undefined,
        );
    }
    const locate = locator(resources, opts.env);
    return { report, resources, violations: toViolations(report, locate), unvalidated, files: files.length, locate };
}

/** Text report: a header naming input, pack and config, then the gate's grouped report. */
export function formatCheckText(result: CheckResult): string {
    const header = `Policy check of ${result.resources.length} objects in ${result.files} files (pack ${result.report.pack}, config ${result.report.configFile ?? "none"})`;
    return `${header}\n${formatGateText(result.report, result.locate)}`;
}
