/**
 * The offline diff of one stack between two renders: resources matched by URN (following
 * aliases), each classified as the engine would act on it — create, delete, update (with the
 * changed inputs) or replace (with the inputs that force it, from `replacements.ts`) — and the
 * changes that disrupt a live platform named first. Pure: renders in, report out.
 */
import { kubernetesMinor } from "eks-platform-kernel";
import { NODE_GROUP_KINDS } from "../../components/nodegroups/kinds";
import { MADE_UP_VALUE, type RecordedResource } from "../render/offline";
import { replacementRule } from "../render/replacements";
import { EKS_CLUSTER, KUBELET_SKEW, ROLLBACK_DAYS, upgradeImpact } from "./upgradeImpact";

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

export type DisruptionKind = "refused" | "destroyed" | "switch" | "retained" | "drain" | "network" | "upgrade" | "roll";

/** Most severe first: how disruptions are ordered, and named in the summary. */
export const DISRUPTION_ORDER: readonly DisruptionKind[] = [
    "refused",
    "destroyed",
    "switch",
    "retained",
    "drain",
    "network",
    "upgrade",
    "roll",
];

export interface Disruption {
    kind: DisruptionKind;
    urn: string;
    /** One line: what happens and why it matters. */
    message: string;
    /** How the summary counts it when the resource is stateful or shared: `cluster replaced`, `namespace deleted`, `cluster replacement refused`. */
    label?: string;
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

/**
 * Stateful or shared resources: replacing or deleting one destroys what it holds, which no later
 * `up` brings back. Each heads the diff as `destroyed` (unless protected: then it is refused; or
 * retained on delete, which Pulumi honours on a replacement too: the old object is left behind).
 * `lost` says what goes; `replaced`, where a replacement also moves what others rely on, says that instead.
 */
const HOLDS: Readonly<Record<string, { noun: string; lost: string; replaced?: string }>> = {
    "eks:index:Cluster": {
        noun: "cluster",
        lost: "the control plane is deleted with every node, workload, volume attachment and access entry it has",
        replaced:
            "a new control plane is created (new endpoint, certificate authority and OIDC issuer) and the old one is deleted with every node, workload, volume attachment and access entry it has; kubeconfigs, IRSA trust policies and the pipeline's access must follow (docs/changes.md#renaming-the-cluster)",
    },
    "aws:eks/cluster:Cluster": {
        noun: "cluster",
        // No replacement rule (the program's cluster is pulumi-eks's component): only a deletion reaches it.
        lost: "the control plane is deleted with every node and workload it runs",
    },
    "kubernetes:core/v1:Namespace": {
        noun: "namespace",
        lost: "deleting a namespace deletes everything in it (workloads, volume claims, secrets), other teams' included",
    },
    "aws:kms/key:Key": {
        noun: "KMS key",
        lost: "what the old key encrypted (cluster secrets, EBS volumes) can no longer be decrypted once its scheduled deletion runs",
    },
    "aws:ec2/vpc:Vpc": {
        noun: "VPC",
        lost: "every subnet, node, load balancer and endpoint in it goes with it",
    },
    "aws:cloudwatch/logGroup:LogGroup": {
        noun: "log group",
        lost: "its logs (control-plane audit logs, flow logs) are deleted with it",
    },
};

/** The drain a deletion or replacement of a resource of `type` causes; undefined for a type that holds no nodes. */
export function nodeCapacity(type: string): NodeCapacity | undefined {
    return NODE_CAPACITY[type];
}

/**
 * Replaces the values the offline render made up (MADE_UP_VALUE) as `pulumi preview` would show
 * them: `[existing]` for one the base render already had (the engine knows it from the live
 * stack), `[unknown]` for one only an apply computes (a new or replaced resource's id or ARN).
 */
function maskMadeUp(known: ReadonlySet<string>): (value: unknown) => unknown {
    const mask = (value: unknown): unknown => {
        if (typeof value === "string") {
            return value.replace(MADE_UP_VALUE, (token) => (known.has(token) ? "[existing]" : "[unknown]"));
        }
        if (Array.isArray(value)) {
            return value.map(mask);
        }
        if (value && typeof value === "object") {
            return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v)]));
        }
        return value;
    };
    return mask;
}

/** Every input of a created resource, leaf by leaf; a JSON document held in a string (an IAM policy) as the document. */
function createdProperties(props: Record<string, unknown>, mask: (value: unknown) => unknown): PropertyChange[] {
    const leaves = (value: unknown, at: string): PropertyChange[] => {
        const doc = asJsonDocument(value);
        if (doc !== undefined) {
            return [{ path: `${at}(json)`, before: undefined, after: mask(doc) }];
        }
        if (value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length > 0) {
            return Object.keys(value)
                .sort()
                .flatMap((k) => leaves((value as Record<string, unknown>)[k], at ? `${at}.${k}` : k));
        }
        return [{ path: at, before: undefined, after: mask(value) }];
    };
    // A resource created with no inputs lists none (not one empty root).
    return Object.keys(props).length === 0 ? [] : leaves(props, "");
}

/** The changes between two renders of a stack and the disruptions they cause. Pure. */
export function diffRenders(before: readonly RecordedResource[], after: readonly RecordedResource[]): StackDiff {
    const old = new Map(before.filter(isDiffed).map((r) => [r.urn, r]));
    const mask = maskMadeUp(new Set(JSON.stringify(before.map((r) => r.props)).match(MADE_UP_VALUE) ?? []));
    const matched = new Set<string>();
    const changes: ResourceChange[] = [];
    const disruptions: Disruption[] = [];
    const disrupt = (kind: DisruptionKind, r: RecordedResource, message: string, label?: string) =>
        disruptions.push({ kind, urn: r.urn, message: `${r.type} ${r.name}: ${message}`, ...(label ? { label } : {}) });
    // A stateful or shared resource replaced or deleted (and neither protected nor retained).
    const destroyed = (r: RecordedResource, how: "replaced" | "deleted", why: string) => {
        const holds = HOLDS[r.type];
        if (holds && !r.options.protect && !r.options.retainOnDelete) {
            disrupt(
                "destroyed",
                r,
                `${holds.noun} ${how}${why}: ${(how === "replaced" && holds.replaced) || holds.lost}`,
                `${holds.noun} ${how}`,
            );
        }
    };

    let upgrade: { cluster: RecordedResource; from: string; to: string } | undefined;
    let switched: { cluster: RecordedResource; on: boolean } | undefined;
    for (const now of after.filter(isDiffed)) {
        const previousUrn = [now.urn, ...(now.aliases ?? [])].find((u) => old.has(u) && !matched.has(u));
        if (previousUrn === undefined) {
            changes.push({ kind: "create", urn: now.urn, type: now.type, name: now.name, properties: createdProperties(now.props, mask) });
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
            properties: properties.map((p) => ({ path: p.path, before: mask(p.before), after: mask(p.after) })),
            ...(forcedBy.length > 0 ? { forcedBy } : {}),
            ...(rolls.length > 0 && kind === "update" ? { rollsNodesOn: rolls } : {}),
        });
        if (kind === "replace") {
            if (was.options.protect) {
                disrupt(
                    "refused",
                    was,
                    `protected, but ${forcedBy.join(", ")} forces a replacement${HOLDS[was.type] ? ` (the ${HOLDS[was.type].noun} would be replaced)` : ""}: the engine refuses the update`,
                    HOLDS[was.type] ? `${HOLDS[was.type].noun} replacement refused` : undefined,
                );
            }
            if (was.options.retainOnDelete && !was.options.protect) {
                // Pulumi's retainOnDelete skips the provider's Delete on a replacement as on a deletion.
                disrupt(
                    "retained",
                    was,
                    `replaced (${forcedBy.join(", ")}), retained on delete: the new one is created and the old one stays in the cloud or cluster, with what it holds, no longer managed by Pulumi`,
                    "retained replacements",
                );
            }
            destroyed(was, "replaced", ` (${forcedBy.join(", ")})`);
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
        } else if (rule?.refusedOn?.some((r) => properties.some((p) => under(p.path, r)))) {
            const refusedBy = properties.filter((p) => rule.refusedOn!.some((r) => under(p.path, r))).map((p) => p.path);
            disrupt(
                "refused",
                was,
                `${refusedBy.join(", ")} changed: the API server refuses to update ${refusedBy.length === 1 ? "it" : "them"} in place, and the provider does not replace the object for it, so pulumi up fails; give the object a new name (a replacement) instead`,
            );
        } else if (rolls.length > 0) {
            disrupt("roll", was, `${rolls.join(", ")} changed: every node is replaced one batch at a time, each drained first`);
        }
        if (now.type === EKS_CLUSTER && autoModeOn(was.props) !== autoModeOn(now.props)) {
            switched = { cluster: was, on: autoModeOn(now.props) };
        }
        if (now.type === EKS_CLUSTER) {
            const [from, to] = [kubernetesMinor(String(was.props.version)), kubernetesMinor(String(now.props.version))];
            const [wasVersion, nowVersion] = [String(was.props.version), String(now.props.version)];
            if (!Number.isNaN(from) && !Number.isNaN(to) && (to < from - 1 || to > from + 1)) {
                disrupt(
                    "refused",
                    was,
                    `version ${wasVersion} → ${nowVersion}: EKS upgrades the control plane one minor at a time, and rolls back only to the previous minor, within ${ROLLBACK_DAYS} days of an upgrade`,
                );
            } else if (to === from + 1) {
                upgrade = { cluster: now, from: wasVersion, to: nowVersion };
            } else if (to === from - 1) {
                // UpdateClusterVersion to N-1 is EKS's version rollback (EKS User Guide, "Roll back a cluster to a previous Kubernetes version").
                disrupt(
                    "upgrade",
                    was,
                    `Kubernetes ${wasVersion} → ${nowVersion}: a version rollback, which EKS accepts only within ${ROLLBACK_DAYS} days of the in-place upgrade to ${wasVersion}, once every node runs ${nowVersion} again (managed groups first, through their releaseVersion) and the add-ons have builds for ${nowVersion}; a cluster created at ${wasVersion} cannot roll back`,
                );
            }
        }
    }

    if (upgrade) {
        upgradeDisruptions(upgrade, after, disrupt);
    }

    for (const [urn, was] of old) {
        if (matched.has(urn)) {
            continue;
        }
        changes.push({ kind: "delete", urn, type: was.type, name: was.name, properties: [] });
        if (was.options.protect) {
            disrupt(
                "refused",
                was,
                "protected, and deleted here: the engine refuses the update until someone unprotects it",
                HOLDS[was.type] ? `${HOLDS[was.type].noun} deletion refused` : undefined,
            );
        } else if (was.options.retainOnDelete) {
            disrupt("retained", was, "retained on delete: it stays in the cloud or cluster, no longer managed by Pulumi");
        }
        destroyed(was, "deleted", "");
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

    if (switched) {
        disrupt("switch", switched.cluster, autoModeSwitch(switched.on, before, after));
    }
    for (const clash of sameNameObjects(after, old, matched)) {
        disrupt(
            "refused",
            clash.created,
            `creates ${clash.identity}, which ${clash.deleted.type} ${clash.deleted.name} still is: Pulumi creates the new resource before it deletes the old one, so the create fails on the existing object${clash.immutable.length > 0 ? ` (and ${clash.immutable.join(", ")} cannot change in place)` : ""}, or, if it took the object over, the old resource's deletion would then delete it; move the object with an alias, or delete the old one in an update of its own first`,
        );
    }

    disruptions.sort((a, b) => DISRUPTION_ORDER.indexOf(a.kind) - DISRUPTION_ORDER.indexOf(b.kind));
    const counts: Record<ChangeKind, number> = { create: 0, delete: 0, update: 0, replace: 0 };
    for (const c of changes) {
        counts[c.kind]++;
    }
    return { changes, disruptions, counts };
}

/** Whether a cluster's inputs turn EKS Auto Mode on (pulumi-eks `autoMode.enabled`). */
function autoModeOn(props: Record<string, unknown>): boolean {
    const auto = props.autoMode as { enabled?: unknown } | undefined;
    return auto?.enabled === true;
}

/**
 * What turning EKS Auto Mode on (or off) in place does beyond the resources the diff lists: the
 * cluster stays, but what runs the nodes, volumes and load balancers changes hands, and AWS moves
 * neither load balancers nor volumes between the two ("Migrating EBS CSI volumes or load balancers
 * created by the AWS Load Balancer Controller is not supported", EKS User Guide, migrate-auto.adoc).
 */
function autoModeSwitch(on: boolean, before: readonly RecordedResource[], after: readonly RecordedResource[]): string {
    const gone = (pred: (r: RecordedResource) => boolean) => before.some(pred) && !after.some(pred);
    const lbController = (r: RecordedResource) =>
        r.type === "kubernetes:helm.sh/v3:Release" && r.props.chart === "aws-load-balancer-controller";
    const ebsCsi = (r: RecordedResource) => r.type === "aws:eks/addon:Addon" && r.props.addonName === "aws-ebs-csi-driver";
    if (!on) {
        return "EKS Auto Mode turned off in place: its nodes, volumes and load balancers stay only as long as Auto Mode runs them; move workloads to node groups or Karpenter first (docs/automode.md)";
    }
    return [
        "EKS Auto Mode turned on in place: the control plane stays (an UpdateClusterConfig), and workloads move to Auto Mode nodes only as the node groups and NodePools this diff deletes drain",
        ...(gone(lbController)
            ? [
                  "the AWS Load Balancer Controller is removed: the load balancers it created are not migrated; each Ingress and Service of type LoadBalancer gets a new load balancer (a new DNS name) from Auto Mode's controller, and the old ones are left in the account",
              ]
            : []),
        ...(gone(ebsCsi)
            ? [
                  "the EBS CSI driver (ebs.csi.aws.com) is removed: volumes it provisioned are not migrated to Auto Mode's driver (ebs.csi.eks.amazonaws.com), so their claims no longer attach",
              ]
            : []),
        "for stateful or load-balanced workloads AWS recommends a new cluster beside this one and a DNS cut-over (docs/automode.md)",
    ].join("; ");
}

/** A Kubernetes object's identity: kind (with its API version), namespace and name, from a recorded resource. */
function kubernetesIdentity(r: RecordedResource): string | undefined {
    if (!r.type.startsWith("kubernetes:")) {
        return undefined;
    }
    const metadata = r.props.metadata as { name?: unknown; namespace?: unknown } | undefined;
    if (typeof metadata?.name !== "string") {
        return undefined;
    }
    const kind = r.type.split(":").slice(1).join(":");
    return `${kind} ${typeof metadata.namespace === "string" ? `${metadata.namespace}/` : ""}${metadata.name}`;
}

/**
 * Kubernetes objects the update deletes under one resource and creates under another with the same
 * kind, namespace and name (a URN change without an alias, or one component replaced by another).
 */
function sameNameObjects(
    after: readonly RecordedResource[],
    old: ReadonlyMap<string, RecordedResource>,
    matched: ReadonlySet<string>,
): { identity: string; created: RecordedResource; deleted: RecordedResource; immutable: string[] }[] {
    const deleted = new Map<string, RecordedResource>();
    for (const [urn, was] of old) {
        const id = matched.has(urn) ? undefined : kubernetesIdentity(was);
        if (id !== undefined) {
            deleted.set(id, was);
        }
    }
    const out: { identity: string; created: RecordedResource; deleted: RecordedResource; immutable: string[] }[] = [];
    for (const now of after) {
        const id = kubernetesIdentity(now);
        const was = id === undefined ? undefined : deleted.get(id);
        if (id === undefined || was === undefined) {
            continue;
        }
        const rule = replacementRule(now.type);
        const immutable = changedPaths(was.props, now.props)
            .map((p) => p.path)
            .filter((p) => [...(rule?.refusedOn ?? []), ...(rule?.replaceOn ?? [])].some((r) => under(p, r)));
        out.push({ identity: id, created: now, deleted: was, immutable });
    }
    return out;
}

/**
 * A one-minor upgrade of the control plane and what follows from it (tools/changes/upgradeImpact.ts): the
 * upgrade itself with the add-ons and node groups it leaves behind, and a node roll for every
 * NodePool that drifts once the control plane runs the new minor (no input of the pool changes).
 */
function upgradeDisruptions(
    { cluster, from, to }: { cluster: RecordedResource; from: string; to: string },
    after: readonly RecordedResource[],
    disrupt: (kind: DisruptionKind, r: RecordedResource, message: string) => void,
): void {
    const impact = upgradeImpact(after, to);
    if (!impact) {
        return;
    }
    const toMinor = kubernetesMinor(to);
    const behind = impact.addons.filter((a) => a.verdict === "behind");
    const confirm = impact.addons.filter((a) => a.verdict === "confirm");
    const lagging = impact.groups.filter((g) => g.minor !== undefined && g.minor < toMinor);
    const parts = [
        `Kubernetes ${from} → ${to}, in place: the control plane upgrades first; EKS can roll it back to ${from} within ${ROLLBACK_DAYS} days while the nodes still run ${from}`,
        ...(behind.length > 0
            ? [`${behind.map((a) => `${a.addon} ${a.version} is a ${a.minor} build`).join(", ")}: pin the ${to} build in the same change`]
            : []),
        ...(confirm.length > 0
            ? [
                  `add-ons to confirm for ${to} (aws eks describe-addon-versions --kubernetes-version ${to}): ${confirm.map((a) => `${a.addon} ${a.version}`).join(", ")}`,
              ]
            : []),
        ...(lagging.length > 0
            ? [
                  `node groups left behind: ${lagging.map((g) => `${g.name} (1.${g.minor})`).join(", ")} (kubelet may lag ${KUBELET_SKEW} minors; move them after the bake, docs/changes.md#kubernetes-upgrades)`,
              ]
            : []),
        ...(impact.removed.length > 0
            ? [
                  `objects on APIs ${to} no longer serves: ${impact.removed.map((u) => `${u.kind} ${u.name} (${u.removed.apiVersion}, use ${u.removed.replacement})`).join(", ")}`,
              ]
            : []),
    ];
    disrupt("upgrade", cluster, parts.join("; "));
    const byUrn = new Map(after.map((r) => [r.urn, r]));
    for (const d of impact.drifts) {
        disrupt(
            "roll",
            byUrn.get(d.urn) as RecordedResource,
            `every node drifts once the control plane runs ${to}: EC2NodeClass ${d.nodeClass} selects the AMI alias ${d.alias}, which Karpenter resolves per Kubernetes minor; nodes are replaced under the pool's disruption budgets (${d.budgets.join(", ") || "10%, Karpenter's default"}), each drained first, after which a rollback to ${from} needs them back on ${from} too; to keep them on ${from} through the bake, give the pool a budget { nodes: "0", reasons: [Drifted] } before the upgrade`,
        );
    }
}

function show(value: unknown): string {
    const text = value === undefined ? "(unset)" : JSON.stringify(value);
    return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

const SUMMARY_LABEL: Record<DisruptionKind, string> = {
    refused: "refused",
    destroyed: "destroyed",
    switch: "compute switch",
    retained: "retained deletions",
    drain: "node drains",
    network: "network replacements",
    upgrade: "Kubernetes upgrade",
    roll: "node rolls",
};

/** One line counting each kind, the disruptive changes named first. */
export function summaryLine(diff: StackDiff): string {
    const c = diff.counts;
    const counts = `${c.create} to create, ${c.update} to update, ${c.replace} to replace, ${c.delete} to delete`;
    if (diff.disruptions.length === 0) {
        return `${counts}; nothing disruptive`;
    }
    // Destroyed resources are named by what they are (`1 cluster replaced`), the rest by kind.
    const named = new Map<string, number>();
    for (const k of DISRUPTION_ORDER) {
        for (const d of diff.disruptions.filter((x) => x.kind === k)) {
            const label = d.label ?? SUMMARY_LABEL[k];
            named.set(label, (named.get(label) ?? 0) + 1);
        }
    }
    return `DISRUPTIVE: ${[...named].map(([label, n]) => `${n} ${label}`).join(", ")} — ${counts}`;
}

const MARK: Record<ChangeKind, string> = { create: "+", delete: "-", update: "~", replace: "+-" };

/** Inputs of a create shown in text before the rest is left to `--format json`; documents (IAM policies) are always shown whole. */
export const CREATE_INPUT_LINES = 12;

function createdLines(properties: readonly PropertyChange[]): string[] {
    const documents = properties.filter((p) => p.path.endsWith("(json)"));
    const values = properties.filter((p) => !p.path.endsWith("(json)"));
    return [
        ...values.slice(0, CREATE_INPUT_LINES).map((p) => `      ${p.path}: ${show(p.after)}`),
        ...(values.length > CREATE_INPUT_LINES
            ? [`      … ${values.length - CREATE_INPUT_LINES} more inputs (--format json lists them all)`]
            : []),
        ...documents.flatMap((p) => [
            `      ${p.path.slice(0, -"(json)".length)}:`,
            ...JSON.stringify(p.after, null, 2)
                .split("\n")
                .map((l) => `        ${l}`),
        ]),
    ];
}

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
            if (kind === "create") {
                lines.push(...createdLines(c.properties));
                continue;
            }
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
