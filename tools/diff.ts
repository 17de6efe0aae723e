/**
 * The offline diff of one stack between two renders: resources matched by URN (following
 * aliases), each classified as the engine would act on it — create, delete, update (with the
 * changed inputs) or replace (with the inputs that force it, from `replacements.ts`) — and the
 * changes that disrupt a live platform named first. Pure: renders in, report out.
 */
import { kubernetesMinor } from "eks-platform-kernel";
import { NODE_GROUP_KINDS } from "../components/nodegroups/kinds";
import type { RecordedResource } from "./offline";
import { replacementRule } from "./replacements";

export type ChangeKind = "create" | "delete" | "update" | "replace";

export interface PropertyChange {
    /** Dot path of the input (`scalingConfig.maxSize`). */
    path: string;
    before: unknown;
    after: unknown;
}

export interface ResourceChange {
    kind: ChangeKind;
    urn: string;
    type: string;
    name: string;
    /** Changed inputs (updates and replacements). */
    properties: PropertyChange[];
    /** The changed inputs that force the replacement. */
    forcedBy?: string[];
    /** The changed inputs that roll the resource's nodes. */
    rollsNodesOn?: string[];
}

export type DisruptionKind = "refused" | "retained" | "drain" | "network" | "roll";

export interface Disruption {
    kind: DisruptionKind;
    urn: string;
    /** One line: what happens and why it matters. */
    message: string;
}

export interface StackDiff {
    changes: ResourceChange[];
    /** Most disruptive first: refused, retained deletions, drains, network, node rolls. */
    disruptions: Disruption[];
    counts: Record<ChangeKind, number>;
}

/** Components and providers carry no cloud object of their own: they are not diffed. */
function isDiffed(r: RecordedResource): boolean {
    return !r.type.startsWith("platform:") && !r.type.startsWith("pulumi:");
}

/** Every leaf path where two input values differ; arrays of different length differ as a whole. */
export function changedPaths(before: unknown, after: unknown, prefix = ""): PropertyChange[] {
    if (JSON.stringify(before) === JSON.stringify(after)) {
        return [];
    }
    const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
    // Documents held as JSON strings (IAM policies, event patterns) are compared as documents.
    const [parsedBefore, parsedAfter] = [asJsonDocument(before), asJsonDocument(after)];
    if (parsedBefore !== undefined && parsedAfter !== undefined) {
        return changedPaths(parsedBefore, parsedAfter, `${prefix}(json)`);
    }
    if (isObject(before) && isObject(after)) {
        return [...new Set([...Object.keys(before), ...Object.keys(after)])]
            .sort()
            .flatMap((k) => changedPaths(before[k], after[k], prefix ? `${prefix}.${k}` : k));
    }
    if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
        return before.flatMap((b, i) => changedPaths(b, after[i], `${prefix}[${i}]`));
    }
    return [{ path: prefix, before, after }];
}

/** The parsed value of a string holding a JSON object or array; undefined otherwise. */
function asJsonDocument(value: unknown): unknown {
    if (typeof value !== "string" || !/^\s*[[{]/.test(value)) {
        return undefined;
    }
    try {
        return JSON.parse(value) as unknown;
    } catch {
        return undefined;
    }
}

/** True when `path` (`launchTemplate.version`, `subnetIds[1]`) lies under the rule path `rule`. */
function under(path: string, rule: string): boolean {
    return path === rule || path.startsWith(`${rule}.`) || path.startsWith(`${rule}[`) || path.startsWith(`${rule}(json)`);
}

/** What deleting or replacing a resource that holds nodes drains at once, and where the safe sequence is written. */
export interface NodeCapacity {
    drained: (props: Record<string, unknown>) => string;
    safeSequence: string;
}

// The node-group kinds' nodes come with their kinds (components/nodegroups/kinds.ts).
const NODE_CAPACITY: Readonly<Record<string, NodeCapacity>> = {
    ...Object.fromEntries(
        NODE_GROUP_KINDS.map((k) => [
            k.nodes.type,
            { drained: (p: Record<string, unknown>) => k.nodes.drained(p, show), safeSequence: k.nodes.safeSequence },
        ]),
    ),
    "kubernetes:karpenter.sh/v1:NodePool": {
        drained: () => "every node of the pool (Karpenter's disruption budgets do not apply to a deletion)",
        safeSequence: "docs/karpenter.md#removing-or-renaming-a-nodepool",
    },
};

/** The drain a deletion or replacement of a resource of `type` causes; undefined for a type that holds no nodes. */
export function nodeCapacity(type: string): NodeCapacity | undefined {
    return NODE_CAPACITY[type];
}

/** The changes between two renders of a stack and the disruptions they cause. Pure. */
export function diffRenders(before: readonly RecordedResource[], after: readonly RecordedResource[]): StackDiff {
    const old = new Map(before.filter(isDiffed).map((r) => [r.urn, r]));
    const matched = new Set<string>();
    const changes: ResourceChange[] = [];
    const disruptions: Disruption[] = [];
    const disrupt = (kind: DisruptionKind, r: RecordedResource, message: string) =>
        disruptions.push({ kind, urn: r.urn, message: `${r.type} ${r.name}: ${message}` });

    for (const now of after.filter(isDiffed)) {
        const previousUrn = [now.urn, ...(now.aliases ?? [])].find((u) => old.has(u) && !matched.has(u));
        if (previousUrn === undefined) {
            changes.push({ kind: "create", urn: now.urn, type: now.type, name: now.name, properties: [] });
            continue;
        }
        matched.add(previousUrn);
        const was = old.get(previousUrn) as RecordedResource;
        const properties = changedPaths(was.props, now.props);
        if (properties.length === 0) {
            continue;
        }
        const rule = replacementRule(now.type);
        const forcedBy = rule ? properties.filter((p) => rule.replaceOn.some((r) => under(p.path, r))).map((p) => p.path) : [];
        const rolls = rule?.rollsNodesOn
            ? properties.filter((p) => rule.rollsNodesOn!.some((r) => under(p.path, r))).map((p) => p.path)
            : [];
        const kind: ChangeKind = forcedBy.length > 0 ? "replace" : "update";
        changes.push({
            kind,
            urn: now.urn,
            type: now.type,
            name: now.name,
            properties,
            ...(forcedBy.length > 0 ? { forcedBy } : {}),
            ...(rolls.length > 0 && kind === "update" ? { rollsNodesOn: rolls } : {}),
        });
        if (kind === "replace") {
            if (was.options.protect) {
                disrupt("refused", was, `protected, but ${forcedBy.join(", ")} forces a replacement: the engine refuses the update`);
            }
            const capacity = nodeCapacity(now.type);
            if (capacity) {
                disrupt(
                    "drain",
                    was,
                    `replaced (${forcedBy.join(", ")}): a new one is created, then the old one drains ${capacity.drained(was.props)} at once; see ${capacity.safeSequence}`,
                );
            }
            if (now.type === "aws:ec2/natGateway:NatGateway" || now.type === "aws:ec2/subnet:Subnet") {
                disrupt(
                    "network",
                    was,
                    `replaced (${forcedBy.join(", ")}): ${now.type.endsWith("NatGateway") ? "outbound traffic of its AZ stops until the new gateway is up" : "everything in it (nodes, load balancer ENIs) must move first, or the deletion fails"}`,
                );
            }
        } else if (rolls.length > 0) {
            disrupt("roll", was, `${rolls.join(", ")} changed: every node is replaced one batch at a time, each drained first`);
        }
        if (now.type === "eks:index:Cluster") {
            const [from, to] = [kubernetesMinor(String(was.props.version)), kubernetesMinor(String(now.props.version))];
            if (!Number.isNaN(from) && !Number.isNaN(to) && (to < from || to > from + 1)) {
                disrupt(
                    "refused",
                    was,
                    `version ${String(was.props.version)} → ${String(now.props.version)}: EKS upgrades the control plane one minor at a time and never downgrades`,
                );
            }
        }
    }

    for (const [urn, was] of old) {
        if (matched.has(urn)) {
            continue;
        }
        changes.push({ kind: "delete", urn, type: was.type, name: was.name, properties: [] });
        if (was.options.protect) {
            disrupt("refused", was, "protected, and deleted here: the engine refuses the update until someone unprotects it");
        } else if (was.options.retainOnDelete) {
            disrupt("retained", was, "retained on delete: it stays in the cloud or cluster, no longer managed by Pulumi");
        }
        const capacity = nodeCapacity(was.type);
        if (capacity) {
            disrupt("drain", was, `deleted: drains ${capacity.drained(was.props)} at once; see ${capacity.safeSequence}`);
        }
        if (was.type === "aws:ec2/natGateway:NatGateway") {
            disrupt("network", was, "deleted: the private subnets routed through it lose outbound access");
        }
        if (was.type === "aws:ec2/subnet:Subnet") {
            disrupt("network", was, "deleted: the deletion fails while nodes or load balancers still use it");
        }
    }

    const order: DisruptionKind[] = ["refused", "retained", "drain", "network", "roll"];
    disruptions.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
    const counts: Record<ChangeKind, number> = { create: 0, delete: 0, update: 0, replace: 0 };
    for (const c of changes) {
        counts[c.kind]++;
    }
    return { changes, disruptions, counts };
}

function show(value: unknown): string {
    const text = value === undefined ? "(unset)" : JSON.stringify(value);
    return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** One line counting each kind, the disruptive changes named first. */
export function summaryLine(diff: StackDiff): string {
    const c = diff.counts;
    const counts = `${c.create} to create, ${c.update} to update, ${c.replace} to replace, ${c.delete} to delete`;
    if (diff.disruptions.length === 0) {
        return `${counts}; nothing disruptive`;
    }
    const byKind = (k: DisruptionKind) => diff.disruptions.filter((d) => d.kind === k).length;
    const named = (["refused", "retained", "drain", "network", "roll"] as const)
        .filter((k) => byKind(k) > 0)
        .map(
            (k) =>
                `${byKind(k)} ${{ refused: "refused", retained: "retained deletions", drain: "node drains", network: "network replacements", roll: "node rolls" }[k]}`,
        );
    return `DISRUPTIVE: ${named.join(", ")} — ${counts}`;
}

const MARK: Record<ChangeKind, string> = { create: "+", delete: "-", update: "~", replace: "+-" };

/** The diff as text: header, summary, disruptions, then every change with its inputs. */
export function formatDiffText(diff: StackDiff, header: string): string {
    const lines = [header, summaryLine(diff), ""];
    if (diff.disruptions.length > 0) {
        lines.push("Disruptive changes, most severe first:");
        for (const d of diff.disruptions) {
            lines.push(`  ! [${d.kind}] ${d.message}`);
        }
        lines.push("");
    }
    for (const kind of ["replace", "delete", "update", "create"] as const) {
        for (const c of diff.changes.filter((x) => x.kind === kind)) {
            lines.push(`  ${MARK[kind]} ${c.type}  ${c.name}`);
            for (const p of c.properties) {
                const note = c.forcedBy?.includes(p.path)
                    ? "  (forces replacement)"
                    : c.rollsNodesOn?.includes(p.path)
                      ? "  (rolls nodes)"
                      : "";
                lines.push(`      ${p.path}: ${show(p.before)} → ${show(p.after)}${note}`);
            }
        }
    }
    if (diff.changes.length === 0) {
        lines.push("  no changes");
    }
    return lines.join("\n");
}
