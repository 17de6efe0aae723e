/**
 * Autoscalers that own a workload's replica count: HorizontalPodAutoscalers (autoscaling/v1, v2,
 * v2beta1, v2beta2) and KEDA ScaledObjects (keda.sh, which drive an HPA of their own). With one
 * of them the workload runs anywhere in the autoscaler's range whatever its `spec.replicas` says
 * (Kubernetes advises leaving `replicas` unset then), so drain verdicts judge that range.
 */
import { asNumber, asString, field, path } from "eks-platform-kernel";
import { namespaceOf, objectName } from "./kubernetes";

/** The kinds `readAutoscaler` reads. */
export const AUTOSCALER_KINDS: ReadonlySet<string> = new Set(["HorizontalPodAutoscaler", "ScaledObject"]);

/** A workload's replica range as an autoscaler keeps it. */
export interface ReplicaRange {
    min: number;
    max: number;
    /** The autoscalers, as messages name them: `HorizontalPodAutoscaler prod/api`. */
    by: string;
}

/** An autoscaler read into plain data. */
export interface Autoscaler {
    kind: "HorizontalPodAutoscaler" | "ScaledObject";
    name: string;
    namespace: string;
    /** The workload it scales (`scaleTargetRef`), in its own namespace. */
    target: { kind: string; name: string };
    min: number;
    max: number;
}

/**
 * Reads an autoscaler from a resource's kind and properties; `undefined` for anything else, or
 * for one without a target. Defaults are the APIs' own: an HPA's `minReplicas` is 1; a
 * ScaledObject's `minReplicaCount` is 0 and `maxReplicaCount` 100, its target kind `Deployment`,
 * and an `idleReplicaCount` below the minimum lowers the range. Unknown values throw (SDK proxy).
 */
export function readAutoscaler(group: string, kind: string, props: unknown, resourceName: string): Autoscaler | undefined {
    const spec = field(props, "spec");
    const targetName = asString(path(spec, "scaleTargetRef", "name"));
    if (!targetName) {
        return undefined;
    }
    const base = { name: objectName(props, resourceName), namespace: namespaceOf(props) };
    if (group === "autoscaling" && kind === "HorizontalPodAutoscaler") {
        const targetKind = asString(path(spec, "scaleTargetRef", "kind"));
        const max = asNumber(field(spec, "maxReplicas"));
        if (!targetKind || max === undefined) {
            return undefined;
        }
        const min = asNumber(field(spec, "minReplicas")) ?? 1;
        return { kind, ...base, target: { kind: targetKind, name: targetName }, min, max };
    }
    if (group === "keda.sh" && kind === "ScaledObject") {
        const targetKind = asString(path(spec, "scaleTargetRef", "kind")) ?? "Deployment";
        const min = asNumber(field(spec, "minReplicaCount")) ?? 0;
        const idle = asNumber(field(spec, "idleReplicaCount"));
        const max = asNumber(field(spec, "maxReplicaCount")) ?? 100;
        return { kind, ...base, target: { kind: targetKind, name: targetName }, min: idle !== undefined ? Math.min(idle, min) : min, max };
    }
    return undefined;
}

/** `HorizontalPodAutoscaler prod/api`. */
function describeAutoscaler(a: Pick<Autoscaler, "kind" | "namespace" | "name">): string {
    return `${a.kind} ${a.namespace}/${a.name}`;
}

/** The range several autoscalers of one workload keep it in (they fight; any of them may win). */
export function combinedRange(autoscalers: readonly Autoscaler[]): ReplicaRange {
    return {
        min: Math.min(...autoscalers.map((a) => a.min)),
        max: Math.max(...autoscalers.map((a) => a.max)),
        by: autoscalers.map(describeAutoscaler).join(" and "),
    };
}
