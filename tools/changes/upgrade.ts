/**
 * `npm run upgrade -- <stack> [--to <minor>] [--format text|json] [manifest paths…]`: the ordered
 * plan of a one-minor Kubernetes upgrade of a stack, offline — preflight, the control plane, the
 * add-ons, then each node group and NodePool as a wave with the drain rehearsal's verdict of its
 * rollout — and what blocks it: the stack's objects (and the manifests given) on APIs the target
 * no longer serves, node groups that would fall outside the kubelet skew, a Karpenter release
 * that does not support the target, a rollout the rehearsal finds blocked. What only AWS can
 * answer (add-on builds for the target, the target's availability) is listed to confirm, with
 * the command, never taken as passed.
 *
 * Exit codes: 0 a plan without blockers, 1 a blocker stands, 2 bad input (unknown stack, bad
 * config, a target that is not the next minor, unreadable manifests).
 */
import * as fs from "fs";
import * as path from "path";
import { asRecord, asString, kubernetesMinor } from "eks-platform-kernel";
import { REMOVED_APIS_READ_THROUGH } from "eks-platform-evaluation";
import { DrainResource, GroupReport, rehearse } from "eks-platform-rehearsal";
import { ConfigError } from "../../components/config";
import { oneOf, parseCommandLine, runMain } from "../cli/cli";
import { stackResources, validatedManifestResources } from "../manifests/drainInput";
import { InputError } from "../cli/errors";
import { CLUSTER_HOURLY_USD, EKS_RELEASE_CALENDAR, KARPENTER_MINIMUM } from "./upgradeData";
import { clusterOf, KUBELET_SKEW, Rendered, ROLLBACK_DAYS, UpgradeImpact, upgradeImpact } from "./upgradeImpact";

const USAGE = "usage: npm run upgrade -- <stack> [--to <minor>] [--format text|json] [manifest paths…]";

const KARPENTER_CHART = /(^|\/)karpenter$/;

/** One `# renovate:` marker of a stack file that pins an EKS add-on's builds to a Kubernetes minor. */
export interface MinorMarker {
    /** 1-based line in the stack file. */
    line: number;
    /** The add-on it pins (`depName`). */
    addon: string;
    /** The minor it names. */
    minor: string;
}

/** renovate.json's patterns that read a `packageName` (the `# renovate:` markers of stack files), or none without the file. */
export function renovateMarkerPatterns(file: string = path.resolve(__dirname, "..", "..", "renovate.json")): string[] {
    if (!fs.existsSync(file)) {
        return [];
    }
    const config = JSON.parse(fs.readFileSync(file, "utf8")) as { customManagers?: { matchStrings?: string[] }[] };
    return (config.customManagers ?? []).flatMap((m) => m.matchStrings ?? []).filter((p) => p.includes("(?<packageName>"));
}

/**
 * The `# renovate:` markers of a stack file's text that pin an EKS add-on's builds to a
 * Kubernetes minor, read with renovate.json's own patterns (so exactly the markers Renovate reads):
 * an `aws-eks-addon` dependency whose `packageName` names a `kubernetesVersion`. Renovate offers each
 * add-on only the builds of the minor its marker names, so they move with `cluster.version`. Pure.
 */
export function minorMarkers(text: string, patterns: readonly string[] = renovateMarkerPatterns()): MinorMarker[] {
    const found: MinorMarker[] = [];
    for (const pattern of patterns) {
        for (const m of text.matchAll(new RegExp(pattern, "g"))) {
            const { datasource, depName, packageName } = m.groups ?? {};
            let minor: unknown;
            try {
                minor = (JSON.parse(packageName ?? "null") as { kubernetesVersion?: unknown } | null)?.kubernetesVersion;
            } catch {
                minor = undefined; // not JSON: Renovate would take it as a plain name, with no minor
            }
            if (datasource === "aws-eks-addon" && depName !== undefined && typeof minor === "string") {
                found.push({ line: text.slice(0, m.index).split("\n").length, addon: depName, minor });
            }
        }
    }
    return found.sort((a, b) => a.line - b.line);
}

/** What the upgrade to `to` changes in the stack file's markers: one line each, naming the file and line. Pure. */
export function markerEdits(file: string, markers: readonly MinorMarker[], to: string): string[] {
    return markers
        .filter((m) => m.minor !== to)
        .map(
            (m) =>
                `${file}:${m.line}: the # renovate: marker of ${m.addon}: "kubernetesVersion":"${m.minor}" → "${to}" (Renovate then offers ${to} builds)`,
        );
}

export interface UpgradeStep {
    title: string;
    details: string[];
    /** The drain rehearsal's verdict of the wave's rollout (node waves only). */
    verdict?: GroupReport["verdict"];
}

export interface UpgradePlan {
    stack: string;
    from: string;
    to: string;
    blockers: string[];
    /** What only AWS can answer: each with the command that answers it. */
    confirm: string[];
    steps: UpgradeStep[];
    /** What this plan does not model. */
    notModelled: string[];
}

function semverAtLeast(version: string, minimum: string): boolean {
    const parts = (v: string) => v.split(".").map((n) => parseInt(n, 10) || 0);
    const [a, b] = [parts(version), parts(minimum)];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
        if ((a[i] ?? 0) !== (b[i] ?? 0)) {
            return (a[i] ?? 0) > (b[i] ?? 0);
        }
    }
    return true;
}

const usd = (n: number) => `$${n.toFixed(2)}`;

/**
 * The support calendar's word on the current and the target minor, on `today` (`YYYY-MM-DD`),
 * under the cluster's upgrade policy (`STANDARD`: EKS upgrades the control plane itself at the
 * end of standard support; `EXTENDED`: the version stays, billed).
 */
function calendarNotes(from: string, to: string, today: string, supportType: string | undefined): { notes: string[]; confirm: string[] } {
    const row = (minor: string) => EKS_RELEASE_CALENDAR.find((r) => r.minor === minor);
    const notes: string[] = [];
    const confirm: string[] = [];
    const current = row(from);
    if (current && supportType === "STANDARD") {
        notes.push(
            `upgrade policy STANDARD: ${today >= current.endOfStandardSupport ? "EKS may upgrade" : `from ${current.endOfStandardSupport} EKS upgrades`} the control plane to ${to} itself, nodes and add-ons left behind; upgrade before then to choose the moment`,
        );
    } else if (current && today >= current.endOfStandardSupport) {
        notes.push(
            `${from} left standard support on ${current.endOfStandardSupport}: the cluster is billed extended support (${usd(CLUSTER_HOURLY_USD.extended)}/h instead of ${usd(CLUSTER_HOURLY_USD.standard)}/h) until it runs ${to}, and is upgraded by EKS after ${current.endOfExtendedSupport}`,
        );
    } else if (current) {
        const days = Math.round((Date.parse(current.endOfStandardSupport) - Date.parse(today)) / 86_400_000);
        notes.push(
            `${from} is in standard support until ${current.endOfStandardSupport} (${days} day${days === 1 ? "" : "s"} from ${today}); from then extended support costs ${usd(CLUSTER_HOURLY_USD.extended)}/h per cluster instead of ${usd(CLUSTER_HOURLY_USD.standard)}/h`,
        );
    }
    const target = row(to);
    if (target) {
        notes.push(`${to} is in standard support until ${target.endOfStandardSupport} (source: ${target.source})`);
    } else {
        confirm.push(
            `${to} is not in the release calendar this tool holds: confirm EKS offers it (aws eks describe-cluster-versions --cluster-versions ${to})`,
        );
    }
    return { notes, confirm };
}

/** The plan of upgrading `resources`' cluster to `to`, with the rehearsal's reports of its groups. */
export function planUpgrade(
    stack: string,
    resources: readonly Rendered[],
    impact: UpgradeImpact,
    groups: readonly GroupReport[],
    today: string = new Date().toISOString().slice(0, 10),
    markers: readonly MinorMarker[] = [],
): UpgradePlan {
    const { from, to } = impact;
    const toMinor = kubernetesMinor(to);
    const blockers: string[] = [];
    const confirm: string[] = [];
    const notModelled: string[] = [
        "the rehearsal replays each rollout with today's settings and workloads; what the new minor changes in the workloads' behaviour is not modelled",
        "self-managed groups follow their launch template's AMI: set it to an AMI of the target minor in the wave",
    ];
    for (const u of impact.removed) {
        blockers.push(
            `${u.kind} ${u.name} uses ${u.removed.apiVersion}, which ${to} no longer serves: move it to ${u.removed.replacement} first`,
        );
    }
    if (toMinor > kubernetesMinor(REMOVED_APIS_READ_THROUGH)) {
        confirm.push(
            `APIs removed in ${to}: the removal table is read through ${REMOVED_APIS_READ_THROUGH}; check the Kubernetes deprecated API migration guide for ${to} (and the cluster's upgrade insights: aws eks list-insights --cluster-name ${impact.cluster.name})`,
        );
    }
    for (const g of impact.groups) {
        if (g.minor !== undefined && g.minor < toMinor - KUBELET_SKEW) {
            blockers.push(
                `node group ${g.name} runs 1.${g.minor}: with the control plane at ${to} its kubelet would be more than ${KUBELET_SKEW} minors behind (Kubernetes version skew policy); move it to 1.${toMinor - KUBELET_SKEW} or later first`,
            );
        }
    }
    const karpenter = resources.find(
        (r) => r.type === "kubernetes:helm.sh/v3:Release" && KARPENTER_CHART.test(asString(r.props.chart) ?? ""),
    );
    if (karpenter) {
        const version = asString(karpenter.props.version) ?? "";
        const minimum = KARPENTER_MINIMUM[to];
        if (minimum === undefined) {
            confirm.push(
                `Karpenter ${version} on ${to}: the compatibility matrix this tool holds stops before ${to}; read Karpenter's upgrading/compatibility page`,
            );
        } else if (!semverAtLeast(version, minimum)) {
            blockers.push(
                `Karpenter ${version} does not support Kubernetes ${to} (it needs ${minimum} or later: Karpenter's compatibility matrix); upgrade the chart first`,
            );
        }
    }
    for (const a of impact.addons) {
        if (a.verdict === "confirm") {
            confirm.push(
                `${a.addon} ${a.version} on ${to}: aws eks describe-addon-versions --addon-name ${a.addon} --kubernetes-version ${to}`,
            );
        }
    }
    const eksCluster = resources.find((r) => r.urn === impact.cluster.urn);
    const calendar = calendarNotes(from, to, today, asString(asRecord(eksCluster?.props.upgradePolicy)?.supportType));
    confirm.push(...calendar.confirm);

    const steps: UpgradeStep[] = [];
    // Its first line counts the blockers once the waves have added theirs.
    const preflight: UpgradeStep = {
        title: "Preflight",
        details: [
            "",
            ...calendar.notes,
            `rollback: EKS can return the control plane to ${from} within ${ROLLBACK_DAYS} days of the upgrade, while the nodes still run ${from}; keep them there through the bake`,
            ...impact.groups
                .filter((g) => g.minor !== undefined && g.minor < kubernetesMinor(from))
                .map(
                    (g) =>
                        `node group ${g.name} still runs 1.${g.minor}: the last upgrade's waves are not finished (its releaseVersion to a ${from} release)`,
                ),
        ],
    };
    steps.push(preflight);
    if (impact.drifts.length > 0) {
        steps.push({
            title: "Hold Karpenter's drift (one pull request)",
            details: impact.drifts.map(
                (d) =>
                    `NodePool ${d.pool}: its EC2NodeClass ${d.nodeClass} selects the alias ${d.alias}, which resolves per Kubernetes minor: without a hold every node drifts as soon as the control plane runs ${to}; add the disruption budget { nodes: "0", reasons: [Drifted] }`,
            ),
        });
    }
    const behind = impact.addons.filter((a) => a.verdict === "behind");
    steps.push({
        title: `Control plane ${from} → ${to} (one pull request: npm run plan -- ${stack} --diff origin/main shows it as a Kubernetes upgrade)`,
        details: [
            `cluster.version: "${to}"`,
            ...markerEdits(`Pulumi.${stack}.yaml`, markers, to),
            ...behind.map(
                (a) =>
                    `${a.addon}: ${a.version} is a ${a.minor} build; pin the ${to} build in the same change (EKS offers each kube-proxy build for one minor)`,
            ),
            `then bake: the rollback window is ${ROLLBACK_DAYS} days`,
        ],
    });
    steps.push({
        title: "Add-ons",
        details: impact.addons
            .filter((a) => a.verdict === "confirm")
            .map((a) => `${a.addon} ${a.version}: confirm or bump to a ${to} build`),
    });
    const reportOf = (urnOrName: string) => groups.find((g) => g.urn === urnOrName || g.name === urnOrName || g.resource === urnOrName);
    for (const g of impact.groups) {
        const report = reportOf(g.urn) ?? reportOf(g.name);
        steps.push({
            title: `Wave: managed node group ${g.name}${g.minor !== undefined ? ` (1.${g.minor})` : ""}`,
            details: [
                `releaseVersion: a ${to} release; how it rolls: ${report?.mechanism ?? "EKS managed node group update, one batch at a time"}`,
                ...(report ? [rehearsed(report)] : ["not rehearsed: the rehearsal found no such group"]),
            ],
            ...(report ? { verdict: report.verdict } : {}),
        });
    }
    for (const d of impact.drifts) {
        const report = reportOf(d.urn) ?? reportOf(d.pool);
        steps.push({
            title: `Wave: NodePool ${d.pool}`,
            details: [
                `remove the drift hold: Karpenter replaces every node under the pool's budgets (${d.budgets.join(", ") || "10%"})`,
                ...(report ? [rehearsed(report)] : ["not rehearsed: the rehearsal found no such pool"]),
            ],
            ...(report ? { verdict: report.verdict } : {}),
        });
    }
    for (const s of steps.filter((x) => x.verdict === "blocked")) {
        blockers.push(`${s.title.replace(/^Wave: /, "")}: the drain rehearsal finds its rollout blocked (npm run drain -- ${stack})`);
    }
    preflight.details[0] = blockers.length > 0 ? `${blockers.length} blocker(s) below must be cleared first` : "no blocker found offline";
    return { stack, from, to, blockers, confirm, steps, notModelled };
}

function rehearsed(g: GroupReport): string {
    const minutes = Math.ceil(g.estimatedSeconds / 60);
    return `drain rehearsal: ${g.verdict === "ok" ? "OK" : g.verdict}, ${g.nodes} node(s), about ${minutes} min${g.stalled ? `; stalls: ${g.stalled}` : ""}`;
}

export function formatUpgradePlan(plan: UpgradePlan): string {
    const lines = [
        `Upgrade plan of stack "${plan.stack}": Kubernetes ${plan.from} → ${plan.to}`,
        plan.blockers.length > 0
            ? `BLOCKED: ${plan.blockers.length} blocker(s)`
            : "no blocker found offline; confirm what only AWS can tell below",
        "",
    ];
    if (plan.blockers.length > 0) {
        lines.push("Blockers:", ...plan.blockers.map((b) => `  ! ${b}`), "");
    }
    plan.steps.forEach((s, i) => {
        lines.push(`${i + 1}. ${s.title}${s.verdict ? ` [${s.verdict}]` : ""}`, ...s.details.map((d) => `     - ${d}`));
    });
    if (plan.confirm.length > 0) {
        lines.push("", "To confirm with AWS (not decided offline):", ...plan.confirm.map((c) => `  ? ${c}`));
    }
    lines.push("", "Not modelled:", ...plan.notModelled.map((n) => `  - ${n}`));
    return lines.join("\n");
}

/** What `npm run upgrade` reads besides its command line; tests give hand-built stacks. */
export interface UpgradeCommandEnv {
    /** Renders a stack. Defaults to the working directory's program run offline (`stackResources`: once per process). */
    readonly render?: (stack: string) => Promise<DrainResource[]>;
    /** The support calendar's today (`YYYY-MM-DD`). Defaults to today. */
    readonly today?: string;
    /** The stack file's text, for its `# renovate:` markers. Defaults to the working directory's `Pulumi.<stack>.yaml`. */
    readonly stackFile?: (stack: string) => string;
}

/**
 * `npm run upgrade` without the process: what it prints and its exit code (0 no blocker, 1 a
 * blocker stands). Bad input throws an `InputError` or a `ConfigError` (exit 2 with its message).
 */
export async function upgradeCommand(argv: readonly string[], env: UpgradeCommandEnv = {}): Promise<{ code: number; stdout: string }> {
    const { values, positionals } = parseCommandLine(argv, { to: { type: "string" }, format: { type: "string", default: "text" } }, USAGE);
    const format = oneOf("--format", values.format, ["text", "json"] as const);
    const [stack, ...paths] = positionals;
    if (!stack) {
        throw new InputError(USAGE);
    }
    const manifests = await validatedManifestResources(paths, stack);
    if (manifests.refused.length > 0) {
        throw new InputError(manifests.refused.map((r) => `${r.file}:${r.line}: ${r.message}`).join("\n"));
    }
    const platform = await (env.render ?? ((name: string) => stackResources(process.cwd(), name)))(stack);
    const resources = [...platform, ...manifests.resources];
    const cluster = clusterOf(resources);
    if (!cluster) {
        throw new InputError(`stack "${stack}" has no EKS cluster to upgrade`);
    }
    const from = kubernetesMinor(cluster.version);
    const to = values.to ?? `1.${from + 1}`;
    if (kubernetesMinor(to) !== from + 1) {
        throw new InputError(
            `--to ${to}: EKS upgrades a control plane one minor at a time; the next step from ${cluster.version} is 1.${from + 1}${Number.isNaN(kubernetesMinor(to)) ? " (write the target as 1.N)" : ""}`,
        );
    }
    const impact = upgradeImpact(resources, to) as UpgradeImpact;
    const stackFile =
        env.stackFile ??
        ((name: string) => {
            const file = path.join(process.cwd(), `Pulumi.${name}.yaml`);
            return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
        });
    const plan = planUpgrade(stack, resources, impact, rehearse(resources).groups, env.today, minorMarkers(stackFile(stack)));
    return {
        code: plan.blockers.length > 0 ? 1 : 0,
        stdout: format === "json" ? `${JSON.stringify(plan)}\n` : `${formatUpgradePlan(plan)}\n`,
    };
}

if (require.main === module) {
    runMain(async () => {
        const { code, stdout } = await upgradeCommand(process.argv.slice(2));
        process.stdout.write(stdout);
        return code;
    }, [ConfigError]);
}
