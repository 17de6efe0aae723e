/**
 * Where a pod may be scheduled, as far as its spec and a node pool's definition tell: node labels
 * (the pod's `nodeSelector` and required node affinity) and taints (its tolerations). Used to judge
 * a workload only against the nodes it can land on. Unknown or unmodelled constraints (`Gt`/`Lt`,
 * `matchFields`, labels the pool does not mention) count as fitting: a pod is never excluded from
 * a pool, and so never spared its drain window, on a guess.
 */
import { asArray, asRecord, asString, field, path, stringMap } from "./values";

/** The values one node label may take on a pool's nodes. */
export interface LabelRange {
    /** Only these values (In, a fixed template label). */
    in?: ReadonlySet<string>;
    /** Never these (NotIn). */
    notIn: ReadonlySet<string>;
    /** Always set (Exists, In, a template label). */
    present: boolean;
    /** Never set (DoesNotExist). */
    absent: boolean;
}

export interface Taint {
    key: string;
    value?: string;
    effect: string;
}

/** The nodes of a pool: the labels it constrains and the taints every node carries. */
export interface NodeShape {
    labels: ReadonlyMap<string, LabelRange>;
    taints: readonly Taint[];
}

/** Karpenter's capacity-type label (and its default when a NodePool does not constrain it: on-demand). */
export const CAPACITY_TYPE = "karpenter.sh/capacity-type";

function narrow(ranges: Map<string, LabelRange>, key: string, change: (r: LabelRange) => LabelRange): void {
    ranges.set(key, change(ranges.get(key) ?? { notIn: new Set(), present: false, absent: false }));
}

function restrictTo(r: LabelRange, values: readonly string[]): LabelRange {
    const allowed = r.in ? values.filter((v) => r.in?.has(v)) : values;
    return { ...r, in: new Set(allowed), present: true };
}

/**
 * The nodes a Karpenter NodePool launches: its template labels, its `karpenter.sh/nodepool`
 * label, its requirements (Karpenter launches only nodes satisfying all of them; without a
 * capacity-type requirement it launches on-demand), and its template taints. `capacityTypes`
 * narrows the capacity type further (the Spot window applies to its Spot nodes only).
 */
export function nodePoolShape(name: string, nodePoolSpec: unknown, capacityTypes?: readonly string[]): NodeShape {
    const ranges = new Map<string, LabelRange>();
    const template = path(nodePoolSpec, "template");
    for (const [key, value] of Object.entries(stringMap(path(template, "metadata", "labels")))) {
        narrow(ranges, key, (r) => restrictTo(r, [value]));
    }
    narrow(ranges, "karpenter.sh/nodepool", (r) => restrictTo(r, [name]));
    for (const raw of asArray(path(template, "spec", "requirements"))) {
        const key = asString(field(raw, "key"));
        const operator = asString(field(raw, "operator"));
        const values = asArray(field(raw, "values")).filter((v): v is string => typeof v === "string");
        if (!key) {
            continue;
        }
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
    if (!ranges.get(CAPACITY_TYPE)?.in) {
        const notIn = ranges.get(CAPACITY_TYPE)?.notIn;
        // Karpenter's default when the NodePool leaves it open: on-demand (unless that is excluded).
        if (!notIn || notIn.size === 0) {
            narrow(ranges, CAPACITY_TYPE, (r) => restrictTo(r, ["on-demand"]));
        }
    }
    if (capacityTypes) {
        narrow(ranges, CAPACITY_TYPE, (r) => restrictTo(r, capacityTypes));
    }
    const taints: Taint[] = [];
    for (const raw of asArray(path(template, "spec", "taints"))) {
        const key = asString(field(raw, "key"));
        const effect = asString(field(raw, "effect"));
        if (key && effect) {
            taints.push({ key, effect, ...(asString(field(raw, "value")) !== undefined ? { value: asString(field(raw, "value")) } : {}) });
        }
    }
    return { labels: ranges, taints };
}

/** True when a node of the range may carry `value` for the label. */
function allows(r: LabelRange, value: string): boolean {
    return !r.absent && (!r.in || r.in.has(value)) && !r.notIn.has(value);
}

/** True when some node of the shape may carry label `key` with `value` (a label the shape does not constrain may). */
export function shapeAllows(shape: NodeShape, key: string, value: string): boolean {
    const r = shape.labels.get(key);
    return !r || allows(r, value);
}

/** True when some node of the shape satisfies one node selector requirement of the pod. */
function requirementFits(shape: NodeShape, key: string, operator: string, values: readonly string[]): boolean {
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
            // Gt, Lt and anything else: not modelled, so not a reason to exclude the pool.
            return true;
    }
}

/** True when the pod tolerates the taint (Kubernetes toleration matching). */
function tolerates(tolerations: readonly unknown[], taint: Taint): boolean {
    return tolerations.some((t) => {
        const key = asString(field(t, "key"));
        const operator = asString(field(t, "operator")) ?? "Equal";
        const effect = asString(field(t, "effect"));
        if (effect && effect !== taint.effect) {
            return false;
        }
        if (!key) {
            return operator === "Exists";
        }
        return key === taint.key && (operator === "Exists" || (asString(field(t, "value")) ?? "") === (taint.value ?? ""));
    });
}

/**
 * True when a pod with this spec may be scheduled on a node of the shape: every `nodeSelector`
 * label allowed, one of the required node affinity terms satisfiable, every NoSchedule and
 * NoExecute taint tolerated. Unknown values throw (SDK proxy).
 */
export function podFits(podSpec: unknown, shape: NodeShape): boolean {
    for (const [key, value] of Object.entries(stringMap(field(podSpec, "nodeSelector")))) {
        if (!requirementFits(shape, key, "In", [value])) {
            return false;
        }
    }
    const terms = asArray(path(podSpec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"));
    if (terms.length > 0) {
        const fits = terms.some((term) =>
            asArray(field(term, "matchExpressions")).every((e) => {
                const key = asString(field(e, "key"));
                const values = asArray(field(e, "values")).filter((v): v is string => typeof v === "string");
                return !key || requirementFits(shape, key, asString(field(e, "operator")) ?? "", values);
            }),
        );
        if (!fits) {
            return false;
        }
    }
    const tolerations = asArray(field(podSpec, "tolerations")).filter((t) => asRecord(t) !== undefined);
    return shape.taints.every((t) => (t.effect !== "NoSchedule" && t.effect !== "NoExecute") || tolerates(tolerations, t));
}
