/**
 * Where a pod may run, with the kube-scheduler's own rules: taints and tolerations, node selectors
 * and required node affinity (`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`). Shared by the
 * program (which places its own add-ons) and the pack (which rehearses drains). Pure; readers never throw
 * on odd shapes (only the SDK's unknown-value proxy may).
 */
import { requirementMatches } from "./selector";
import { asArray, asRecord, asString, field, path, stringMap } from "./values";

export type TaintEffect = "NoSchedule" | "PreferNoSchedule" | "NoExecute";

/** A node taint; `value` is `""` when unset, as the API server stores it. */
export interface Taint {
    key: string;
    value: string;
    effect: TaintEffect;
}

export interface Toleration {
    key?: string;
    operator?: "Exists" | "Equal";
    value?: string;
    effect?: string;
}

/** True when one of `tolerations` tolerates `taint` (Kubernetes' matching rules). */
export function tolerates(tolerations: readonly Toleration[], taint: Taint): boolean {
    return tolerations.some((t) => {
        if (t.effect !== undefined && t.effect !== "" && t.effect !== taint.effect) {
            return false;
        }
        if (t.key === undefined || t.key === "") {
            return t.operator === "Exists";
        }
        if (t.key !== taint.key) {
            return false;
        }
        return t.operator === "Exists" || (t.value ?? "") === taint.value;
    });
}

/** The first taint that keeps a pod off the node (`NoSchedule`/`NoExecute` not tolerated), or `undefined`. */
export function untoleratedTaint(tolerations: readonly Toleration[], taints: readonly Taint[]): Taint | undefined {
    return taints.find((taint) => taint.effect !== "PreferNoSchedule" && !tolerates(tolerations, taint));
}

// The AWS APIs spell effects in upper snake case (EKS node group taints).
const EFFECTS: Record<string, TaintEffect> = {
    NoSchedule: "NoSchedule",
    PreferNoSchedule: "PreferNoSchedule",
    NoExecute: "NoExecute",
    NO_SCHEDULE: "NoSchedule",
    PREFER_NO_SCHEDULE: "PreferNoSchedule",
    NO_EXECUTE: "NoExecute",
};

/** Reads a list of taints, in Kubernetes (`NoSchedule`) or EKS (`NO_SCHEDULE`) spelling; malformed items are skipped. */
export function readTaints(value: unknown): Taint[] {
    const out: Taint[] = [];
    for (const raw of asArray(value)) {
        const key = asString(field(raw, "key"));
        const effect = EFFECTS[asString(field(raw, "effect")) ?? ""];
        if (key && effect) {
            out.push({ key, value: asString(field(raw, "value")) ?? "", effect });
        }
    }
    return out;
}

/** `key=value:Effect`, how kubectl shows a taint. */
export function formatTaint(taint: Taint): string {
    return `${taint.key}${taint.value ? `=${taint.value}` : ""}:${taint.effect}`;
}

/**
 * Tags that declare the labels and taints of an Auto Scaling group's nodes, which kubelet itself
 * gets from user data: the Cluster Autoscaler's node-template convention (cluster-autoscaler,
 * cloudprovider/aws README, "Auto-Discovery Setup"). Tools that cannot read user data (a
 * scale-from-zero autoscaler, the drain rehearsal) read them here.
 */
export const NODE_TEMPLATE_LABEL_TAG = "k8s.io/cluster-autoscaler/node-template/label/";
export const NODE_TEMPLATE_TAINT_TAG = "k8s.io/cluster-autoscaler/node-template/taint/";

/** The node-template tags for these labels and taints (`…/taint/<key>`: `value:Effect`). */
export function nodeTemplateTags(labels: Readonly<Record<string, string>>, taints: readonly Taint[]): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(labels)) {
        out[`${NODE_TEMPLATE_LABEL_TAG}${key}`] = value;
    }
    for (const taint of taints) {
        out[`${NODE_TEMPLATE_TAINT_TAG}${taint.key}`] = `${taint.value}:${taint.effect}`;
    }
    return out;
}

/** Labels and taints from node-template tags (`key` → `value`); `undefined` when no tag declares any. */
export function readNodeTemplateTags(tags: ReadonlyMap<string, string>): { labels: Record<string, string>; taints: Taint[] } | undefined {
    const labels: Record<string, string> = {};
    const rawTaints: { key: string; value: string; effect: string }[] = [];
    let declared = false;
    for (const [key, value] of tags) {
        if (key.startsWith(NODE_TEMPLATE_LABEL_TAG)) {
            labels[key.slice(NODE_TEMPLATE_LABEL_TAG.length)] = value;
            declared = true;
        } else if (key.startsWith(NODE_TEMPLATE_TAINT_TAG)) {
            const colon = value.lastIndexOf(":");
            rawTaints.push({
                key: key.slice(NODE_TEMPLATE_TAINT_TAG.length),
                value: colon < 0 ? "" : value.slice(0, colon),
                effect: value.slice(colon + 1),
            });
            declared = true;
        }
    }
    return declared ? { labels, taints: readTaints(rawTaints) } : undefined;
}

/** Reads a pod spec's tolerations. */
export function readTolerations(podSpec: unknown): Toleration[] {
    const out: Toleration[] = [];
    for (const raw of asArray(field(podSpec, "tolerations"))) {
        const rec = asRecord(raw);
        if (!rec) {
            continue;
        }
        const operator = asString(rec.operator);
        out.push({
            key: asString(rec.key),
            operator: operator === "Exists" ? "Exists" : "Equal",
            value: asString(rec.value),
            effect: asString(rec.effect),
        });
    }
    return out;
}

type NodeOperator = "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt";

/** A `NodeSelectorRequirement` (node affinity, Karpenter requirements). */
export interface NodeRequirement {
    key: string;
    operator: NodeOperator;
    values: string[];
}

const NODE_OPERATORS = new Set<string>(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]);

/** Reads a list of node selector requirements; items with an unknown operator are skipped. */
export function readNodeRequirements(value: unknown): NodeRequirement[] {
    const out: NodeRequirement[] = [];
    for (const raw of asArray(value)) {
        const key = asString(field(raw, "key"));
        const operator = asString(field(raw, "operator"));
        if (key && operator && NODE_OPERATORS.has(operator)) {
            const values = asArray(field(raw, "values")).filter((v): v is string => typeof v === "string");
            out.push({ key, operator: operator as NodeOperator, values });
        }
    }
    return out;
}

/**
 * True when `labels` satisfy a node requirement. `Gt`/`Lt` compare the label, read as an integer,
 * with the single value; a missing or non-integer label never matches them.
 */
export function nodeRequirementMatches(r: NodeRequirement, labels: Readonly<Record<string, string>>): boolean {
    if (r.operator === "Gt" || r.operator === "Lt") {
        const raw = Object.prototype.hasOwnProperty.call(labels, r.key) ? labels[r.key] : undefined;
        if (raw === undefined || !/^-?\d+$/.test(raw) || r.values.length !== 1 || !/^-?\d+$/.test(r.values[0])) {
            return false;
        }
        return r.operator === "Gt" ? Number(raw) > Number(r.values[0]) : Number(raw) < Number(r.values[0]);
    }
    return requirementMatches({ key: r.key, operator: r.operator, values: r.values }, labels);
}

type CapacityType = "spot" | "on-demand";

/** Karpenter's capacity-type node label. */
export const CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type";

/**
 * The capacity types a Karpenter NodePool may launch, Spot first (the cheaper, which Karpenter
 * prefers): from its `karpenter.sh/capacity-type` requirement; on-demand only when it has none
 * (Karpenter's default).
 */
export function capacityTypesAllowed(requirements: readonly NodeRequirement[]): CapacityType[] {
    const r = requirements.find((q) => q.key === CAPACITY_TYPE_LABEL);
    if (!r) {
        return ["on-demand"];
    }
    return (["spot", "on-demand"] as const).filter((t) =>
        r.operator === "In" ? r.values.includes(t) : r.operator === "NotIn" ? !r.values.includes(t) : r.operator === "Exists",
    );
}

/** Where a pod may run by node labels: `nodeSelector` and the required node affinity terms (ORed). */
export interface NodePlacement {
    nodeSelector: Record<string, string>;
    /** Required node affinity terms, any of which must match; `undefined` when the pod sets none. */
    terms: NodeRequirement[][] | undefined;
}

/** Reads a pod spec's `nodeSelector` and `requiredDuringSchedulingIgnoredDuringExecution` node affinity. */
export function readNodePlacement(podSpec: unknown): NodePlacement {
    const required = path(podSpec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution");
    const rawTerms = field(required, "nodeSelectorTerms");
    const terms = asRecord(required) ? asArray(rawTerms).map((t) => readNodeRequirements(field(t, "matchExpressions"))) : undefined;
    return { nodeSelector: stringMap(field(podSpec, "nodeSelector")), terms };
}

/**
 * Why a node with `labels` does not suit a pod's placement, or `undefined` when it does. An empty
 * list of terms matches nothing, as in the scheduler.
 */
export function placementMismatch(placement: NodePlacement, labels: Readonly<Record<string, string>>): string | undefined {
    for (const [key, value] of Object.entries(placement.nodeSelector)) {
        if (labels[key] !== value) {
            return `nodeSelector ${key}=${value}`;
        }
    }
    if (placement.terms !== undefined && !placement.terms.some((term) => term.every((r) => nodeRequirementMatches(r, labels)))) {
        return "required node affinity";
    }
    return undefined;
}

/** The values one node label may take on the nodes of a pool. */
interface LabelRange {
    /** Only these values (In, a fixed template label). */
    in?: ReadonlySet<string>;
    /** Never these (NotIn). */
    notIn: ReadonlySet<string>;
    /** Always set (Exists, In, a template label). */
    present: boolean;
    /** Never set (DoesNotExist). */
    absent: boolean;
}

/**
 * What the nodes of a pool may look like when the input does not name their instance types: the
 * range of each label it constrains and the taints every node carries. Labels it leaves open, and
 * requirements not modelled here (`Gt`, `Lt`), constrain nothing.
 */
export interface NodeShape {
    labels: ReadonlyMap<string, LabelRange>;
    taints: readonly Taint[];
}

function narrow(ranges: Map<string, LabelRange>, key: string, change: (r: LabelRange) => LabelRange): void {
    ranges.set(key, change(ranges.get(key) ?? { notIn: new Set(), present: false, absent: false }));
}

function restrictTo(r: LabelRange, values: readonly string[]): LabelRange {
    const allowed = r.in ? values.filter((v) => r.in?.has(v)) : values;
    return { ...r, in: new Set(allowed), present: true };
}

/**
 * The nodes a Karpenter NodePool launches: its template labels, its `karpenter.sh/nodepool` label,
 * its requirements (Karpenter launches only nodes satisfying all of them), the capacity types it
 * may launch (`capacityTypesAllowed`: on-demand when it leaves them open), and its template taints.
 * `capacityTypes` narrows the capacity type further (the Spot window applies to its Spot nodes only).
 */
export function nodePoolShape(name: string, nodePoolSpec: unknown, capacityTypes?: readonly CapacityType[]): NodeShape {
    const ranges = new Map<string, LabelRange>();
    const template = field(nodePoolSpec, "template");
    for (const [key, value] of Object.entries(stringMap(path(template, "metadata", "labels")))) {
        narrow(ranges, key, (r) => restrictTo(r, [value]));
    }
    narrow(ranges, "karpenter.sh/nodepool", (r) => restrictTo(r, [name]));
    const requirements = readNodeRequirements(path(template, "spec", "requirements"));
    for (const { key, operator, values } of requirements) {
        if (operator === "In") {
            narrow(ranges, key, (r) => restrictTo(r, values));
        } else if (operator === "NotIn") {
            narrow(ranges, key, (r) => ({ ...r, notIn: new Set([...r.notIn, ...values]) }));
        } else if (operator === "Exists") {
            narrow(ranges, key, (r) => ({ ...r, present: true }));
        } else if (operator === "DoesNotExist") {
            narrow(ranges, key, (r) => ({ ...r, absent: true }));
        }
    }
    narrow(ranges, CAPACITY_TYPE_LABEL, (r) => restrictTo(r, capacityTypesAllowed(requirements)));
    if (capacityTypes) {
        narrow(ranges, CAPACITY_TYPE_LABEL, (r) => restrictTo(r, capacityTypes));
    }
    return { labels: ranges, taints: readTaints(path(template, "spec", "taints")) };
}

/** True when a node of the range may carry `value` for the label. */
function allows(r: LabelRange, value: string): boolean {
    return !r.absent && (!r.in || r.in.has(value)) && !r.notIn.has(value);
}

/** True when some node of the shape satisfies one node requirement of a pod. */
function requirementFits(shape: NodeShape, { key, operator, values }: NodeRequirement): boolean {
    const r = shape.labels.get(key);
    if (!r) {
        return true;
    }
    switch (operator) {
        case "In":
            return values.some((v) => allows(r, v));
        case "NotIn":
            return r.absent || !r.in || [...r.in].some((v) => !values.includes(v));
        case "Exists":
            return !r.absent;
        case "DoesNotExist":
            return !r.present;
        default:
            // Gt and Lt: not modelled on a range, so never a reason to exclude the pool.
            return true;
    }
}

/**
 * True when a pod with this spec may be scheduled on some node of the shape: every `nodeSelector`
 * label allowed, one of the required node affinity terms satisfiable, every NoSchedule and
 * NoExecute taint tolerated (the scheduler's rules, as `placementMismatch` and `untoleratedTaint`
 * apply them to one node). What is not modelled counts as fitting: a pod is never spared a pool's
 * drain window on a guess. Unknown values throw (SDK proxy).
 */
export function podFits(podSpec: unknown, shape: NodeShape): boolean {
    const placement = readNodePlacement(podSpec);
    for (const [key, value] of Object.entries(placement.nodeSelector)) {
        if (!requirementFits(shape, { key, operator: "In", values: [value] })) {
            return false;
        }
    }
    if (
        placement.terms !== undefined &&
        placement.terms.length > 0 &&
        !placement.terms.some((term) => term.every((r) => requirementFits(shape, r)))
    ) {
        return false;
    }
    return untoleratedTaint(readTolerations(podSpec), shape.taints) === undefined;
}
