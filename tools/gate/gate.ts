/**
 * The policy gate: runs a CrossGuard policy pack over resources the way `pulumi preview
 * --policy-pack` does, and turns its answers into verdicts.
 *
 * The pack runs as its own process (analyzer.ts), or, for plain manifests no engine ever sees, as
 * the SDK's handlers in this process (inProcessPack.ts); this module plays the engine's part: it
 * configures the pack from `--policy-pack-config` (policyConfig.ts), sends every resource to
 * Analyze and all of them to AnalyzeStack (requests.ts), and keeps what the SDK answered —
 * enforcement levels, unknown-value handling and message text are the SDK's own.
 */
import * as grpc from "@grpc/grpc-js";
import * as analyzerpb from "@pulumi/pulumi/proto/analyzer_pb";
import { FieldPath, fieldOf, isUndecided, UNDECIDED_PREFIX } from "eks-platform-kernel";
import { levelOf, MAX_MESSAGE, PolicyPack, PolicyPackProcess } from "./analyzer";
import { GateInputError } from "../cli/errors";
import { EnforcementLevel, loadPolicyPackConfig, PolicyConfigEntry, reconcilePolicyConfig } from "./policyConfig";
import { GateResource } from "./requests";
import { keepValidatorsBetweenRuns } from "./validatorCache";

/**
 * One verdict of the pack. `undeterminable`: the policy read a value unknown at preview (kept at
 * the policy's level). `undecided`: the input cannot decide the verdict (an advisory diagnostic
 * built by `undecided()` in kernel/messages.ts), with the reason: neither a pass nor a violation.
 */
export interface GateDiagnostic {
    policy: string;
    level: "mandatory" | "advisory";
    urn?: string;
    message: string;
    undeterminable: boolean;
    undecided?: string;
    /** The field of the resource the verdict names (read off its message's ` At: …` trailer, which `message` no longer carries). */
    field?: FieldPath;
    /** The source line the verdict points at, when the resource came from a file and the verdict names a field of it. */
    line?: number;
    /** Waived on the object (tools/manifests/waivers.ts): the reason. Still reported, never counted. */
    waived?: string;
}

/** The reason of an undecided verdict: its message from the "Undecided:" prefix on, without it. */
function undecidedReason(message: string): string {
    return message.slice(message.indexOf(UNDECIDED_PREFIX) + UNDECIDED_PREFIX.length);
}

export interface PolicyOutcome {
    name: string;
    /** The pack's one-sentence description; the SDK starts each violation message with it. */
    description: string;
    kind: "resource" | "stack";
    level: EnforcementLevel;
    /** Resources the policy ran on (not reported as not applicable). */
    evaluated: number;
}

export interface GateReport {
    pack: string;
    configFile?: string;
    resources: number;
    policies: PolicyOutcome[];
    diagnostics: GateDiagnostic[];
    warnings: string[];
}

export interface GateOptions {
    packDir: string;
    /** The `--policy-pack-config` file; without it the pack's own levels and defaults apply. */
    configFile?: string;
    stack: string;
    project: string;
    resources: readonly GateResource[];
    /** Notes to show with the report (e.g. a missing environment config). */
    warnings?: string[];
    /**
     * An already started pack (the caller closes it): its own process, or its handlers in this
     * process (inProcessPack.ts). Defaults to starting `packDir` as its own process.
     */
    pack?: Promise<PolicyPack>;
    /** Stack tags for the policies' `args.stackTags` (the manifest gate marks its input as manifests). */
    stackTags?: Readonly<Record<string, string>>;
    /**
     * Knobs the tool derives from the stack itself, by policy (the manifest gate's
     * `api-versions-served.kubernetesVersion` from the stack's `cluster.version`): beneath the
     * config file's own values, which win.
     */
    derivedConfig?: Readonly<Record<string, Record<string, unknown>>>;
}

/** The config file's entries with the derived knobs beneath them. */
function withDerived(
    file: Record<string, PolicyConfigEntry>,
    derived: Readonly<Record<string, Record<string, unknown>>> = {},
): Record<string, PolicyConfigEntry> {
    const out = { ...file };
    for (const [policy, knobs] of Object.entries(derived)) {
        out[policy] = { ...out[policy], properties: { ...knobs, ...out[policy]?.properties } };
    }
    return out;
}

const UNDETERMINABLE = /^can't run policy '.*' from policy pack '.*' during preview:/;
// Analyze calls in flight at once: enough to keep the pack busy while the client marshals the next.
const IN_FLIGHT = 64;

/**
 * A gate that takes its resources as they come: each is sent to Analyze as soon as the pack is
 * configured (while the caller is still reading the rest), and `finish` sends all of them to
 * AnalyzeStack and reports. The engine does the same: Analyze per resource as the program
 * registers it, AnalyzeStack once at the end.
 */
export interface GateSession {
    /** Queues resources for Analyze; they are sent while the caller goes on. */
    analyze(resources: readonly GateResource[]): void;
    /** Waits for every Analyze, runs AnalyzeStack over every resource given, and reports. */
    finish(): Promise<GateReport>;
}

/** Opens a gate over resources still to come (`opts.resources` are queued at once). */
export function openGate(opts: Omit<GateOptions, "resources"> & { resources?: readonly GateResource[] }): GateSession {
    // The gate's config validation, and the policies' own when the pack runs in this process.
    keepValidatorsBetweenRuns();
    const owned = !opts.pack;
    const packStarted: Promise<PolicyPack> =
        opts.pack ?? PolicyPackProcess.start(opts.packDir, { stack: opts.stack, project: opts.project });
    const resources: GateResource[] = [];
    const diagnostics: GateDiagnostic[] = [];
    const notApplicable = new Map<string, number>();

    const ready = (async () => {
        const fileConfig = withDerived(opts.configFile ? loadPolicyPackConfig(opts.configFile) : {}, opts.derivedConfig);
        const pack = await packStarted;
        const info = await pack.info();
        const { config, warnings } = reconcilePolicyConfig(
            info.policies,
            info.initialConfig,
            fileConfig,
            opts.configFile ?? "(no config file)",
        );
        await pack.configureStack(opts.stack, opts.project, opts.stackTags);
        await pack.configure(config);
        // `remediate` counts as mandatory: the SDK reports a violation remediation did not fix as
        // mandatory, so an undecided remediate policy fails the gate as a mandatory one does.
        const levelOfPolicy = (name: string): "mandatory" | "advisory" => {
            const l = config[name]?.enforcementLevel ?? "advisory";
            return l === "mandatory" || l === "remediate" ? "mandatory" : "advisory";
        };
        const toDiagnostic = (d: analyzerpb.AnalyzeDiagnostic, urn: string | undefined): GateDiagnostic => {
            const undeterminable = UNDETERMINABLE.test(d.getMessage());
            const reported = levelOf(d.getEnforcementlevel());
            const { message, field } = fieldOf(d.getMessage());
            return {
                policy: d.getPolicyname(),
                // The runtime downgrades a policy it could not run to advisory; the gate keeps the
                // configured level, so an unknown value can never turn a mandatory check into a pass.
                level: undeterminable ? levelOfPolicy(d.getPolicyname()) : reported === "advisory" ? "advisory" : "mandatory",
                ...(d.getUrn() || urn ? { urn: d.getUrn() || urn } : {}),
                message,
                ...(field ? { field } : {}),
                undeterminable,
                ...(!undeterminable && reported === "advisory" && isUndecided(message) ? { undecided: undecidedReason(message) } : {}),
            };
        };
        return { channel: pack.channel(), info, config, warnings, toDiagnostic };
    })();
    ready.catch(() => undefined);

    // Analyze calls in flight, each worker taking the next queued resource until none is left.
    let next = 0;
    const workers = new Set<Promise<void>>();
    let failure: { error: unknown } | undefined;
    const worker = async () => {
        const { channel, toDiagnostic } = await ready;
        while (next < resources.length && !failure) {
            const r = resources[next++];
            const res = await channel.analyze(r);
            for (const d of res.getDiagnosticsList()) {
                diagnostics.push(toDiagnostic(d, r.urn));
            }
            for (const na of res.getNotApplicableList()) {
                notApplicable.set(na.getPolicyName(), (notApplicable.get(na.getPolicyName()) ?? 0) + 1);
            }
        }
    };
    const pump = () => {
        while (workers.size < Math.min(IN_FLIGHT, resources.length - next)) {
            const w: Promise<void> = worker().then(
                () => {
                    workers.delete(w);
                },
                (error: unknown) => {
                    workers.delete(w);
                    failure ??= { error };
                },
            );
            workers.add(w);
        }
    };

    const session: GateSession = {
        analyze(more) {
            // One push per resource: spread into push(), a batch of over ~125 000 resources (one
            // 50 MB manifest) overflows the call stack with its arguments.
            for (const r of more) {
                resources.push(r);
            }
            pump();
        },
        async finish() {
            try {
                const { channel, info, config, warnings, toDiagnostic } = await ready;
                while (workers.size > 0) {
                    await Promise.all(workers);
                    if (!failure) {
                        pump();
                    }
                }
                if (failure) {
                    throw failure.error;
                }
                const stackNotApplicable = new Set<string>();
                try {
                    const res = await channel.analyzeStack();
                    for (const d of res.getDiagnosticsList()) {
                        diagnostics.push(toDiagnostic(d, undefined));
                    }
                    for (const na of res.getNotApplicableList()) {
                        stackNotApplicable.add(na.getPolicyName());
                    }
                } catch (err) {
                    if ((err as grpc.ServiceError).code === grpc.status.RESOURCE_EXHAUSTED) {
                        throw new GateInputError(
                            `AnalyzeStack over ${resources.length} resources exceeds the ${MAX_MESSAGE / 2 ** 20} MiB gRPC limit of the policy runtime: ${(err as Error).message}`,
                        );
                    }
                    throw err;
                }

                const policies = info.policies
                    .filter((p) => config[p.name]?.enforcementLevel !== "disabled")
                    .map((p): PolicyOutcome => ({
                        name: p.name,
                        description: p.description,
                        kind: p.kind,
                        level: config[p.name]?.enforcementLevel ?? p.enforcementLevel,
                        evaluated:
                            p.kind === "resource"
                                ? resources.length - (notApplicable.get(p.name) ?? 0)
                                : stackNotApplicable.has(p.name) || resources.length === 0
                                  ? 0
                                  : resources.length,
                    }));
                // A total order: the analyzer's answers arrive in whatever order its calls finish.
                diagnostics.sort(
                    (a, b) =>
                        a.policy.localeCompare(b.policy) ||
                        (a.urn ?? "").localeCompare(b.urn ?? "") ||
                        a.message.localeCompare(b.message) ||
                        a.level.localeCompare(b.level) ||
                        JSON.stringify(a.field ?? null).localeCompare(JSON.stringify(b.field ?? null)),
                );
                return {
                    pack: `${info.name}@${info.version}`,
                    configFile: opts.configFile,
                    resources: resources.length,
                    policies,
                    diagnostics,
                    warnings: [...(opts.warnings ?? []), ...warnings],
                };
            } finally {
                if (owned) {
                    void packStarted.then(
                        (p) => p.close(),
                        () => undefined,
                    );
                }
            }
        },
    };
    session.analyze(opts.resources ?? []);
    return session;
}

/** Runs the pack over the resources the way `pulumi preview --policy-pack` does. */
export function runGate(opts: GateOptions): Promise<GateReport> {
    return openGate(opts).finish();
}

/**
 * Counts behind the summary line. Undeterminable mandatory verdicts count as mandatory; undecided
 * verdicts count apart (they never block, and are not advice either).
 */
export function summarize(report: GateReport): {
    mandatory: number;
    advisory: number;
    undeterminable: number;
    undecided: number;
    waived: number;
} {
    const counted = report.diagnostics.filter((d) => d.waived === undefined);
    return {
        mandatory: counted.filter((d) => d.level === "mandatory").length,
        advisory: counted.filter((d) => d.level === "advisory" && d.undecided === undefined).length,
        undeterminable: counted.filter((d) => d.undeterminable).length,
        undecided: counted.filter((d) => d.undecided !== undefined).length,
        waived: report.diagnostics.length - counted.length,
    };
}
