/**
 * Workload-like custom resources: objects from which an operator creates and keeps pods running
 * (a StatefulSet it owns), so a PodDisruptionBudget written for those pods can be judged like one
 * written for a StatefulSet. Each kind says how to read the pods' count and labels; the operators'
 * own defaults are kept here as data with the source they were read from.
 */
import { asArray, asNumber, asRecord, path, stringMap } from "eks-platform-kernel";
import { kubernetesKind, namespaceOf, objectName } from "./kubernetes";

/** How to read one workload-like custom kind. */
export interface CustomWorkloadKind {
    /** API group, e.g. `monitoring.coreos.com`. */
    group: string;
    kind: string;
    /** Dotted path of the pod count; a `[]` segment sums over a list (`spec.nodeSets[].count`). */
    replicas: string;
    /** Pods when the count is unset (the operator's default). */
    defaultReplicas: number;
    /** Dotted path of a count that multiplies the pods (Prometheus `spec.shards`); unset counts as 1. */
    replicaFactor?: string;
    /**
     * Labels the operator gives every pod. In a value, `{name}` is the resource's `metadata.name`
     * and `{label:KEY}` the value of its own label KEY (the label is left out when KEY is unset).
     */
    podLabels: Record<string, string>;
    /** Dotted paths of label maps the operator copies onto the pods (`spec.podMetadata.labels`); `podLabels` win over them. */
    podLabelsFrom?: string[];
}

const PROMETHEUS_OPERATOR = "prometheus-operator/prometheus-operator";

/**
 * The operators' own behaviour, read from their source (repository, file): replicas default and
 * the labels every pod gets (the "reserved" pod labels each CRD documents). Labels an operator
 * adds per shard or node set (`operator.prometheus.io/shard`, ECK's `statefulset-name`) are left
 * out: a budget selecting them does not match here, and stays undecided rather than judged.
 */
const OPERATOR_WORKLOADS: readonly (CustomWorkloadKind & { source: string })[] = [
    {
        group: "monitoring.coreos.com",
        kind: "Alertmanager",
        replicas: "spec.replicas",
        defaultReplicas: 1,
        podLabels: {
            alertmanager: "{name}",
            "app.kubernetes.io/name": "alertmanager",
            "app.kubernetes.io/instance": "{name}",
            "app.kubernetes.io/managed-by": "prometheus-operator",
        },
        podLabelsFrom: ["spec.podMetadata.labels"],
        source: `${PROMETHEUS_OPERATOR}: pkg/apis/monitoring/v1/alertmanager_types.go (AlertmanagerSpec.podMetadata, reserved labels), pkg/alertmanager/statefulset.go (minReplicas 1)`,
    },
    {
        group: "monitoring.coreos.com",
        kind: "Prometheus",
        replicas: "spec.replicas",
        defaultReplicas: 1,
        replicaFactor: "spec.shards",
        podLabels: {
            prometheus: "{name}",
            "app.kubernetes.io/name": "prometheus",
            "app.kubernetes.io/instance": "{name}",
            "app.kubernetes.io/managed-by": "prometheus-operator",
            "operator.prometheus.io/name": "{name}",
        },
        podLabelsFrom: ["spec.podMetadata.labels"],
        source: `${PROMETHEUS_OPERATOR}: pkg/apis/monitoring/v1/prometheus_types.go (podMetadata, reserved labels), pkg/prometheus/statefulset.go (minReplicas 1, minShards 1; one StatefulSet of spec.replicas pods per shard)`,
    },
    {
        group: "monitoring.coreos.com",
        kind: "ThanosRuler",
        replicas: "spec.replicas",
        defaultReplicas: 1,
        podLabels: {
            "thanos-ruler": "{name}",
            "app.kubernetes.io/name": "thanos-ruler",
            "app.kubernetes.io/instance": "{name}",
            "app.kubernetes.io/managed-by": "prometheus-operator",
        },
        podLabelsFrom: ["spec.podMetadata.labels"],
        source: `${PROMETHEUS_OPERATOR}: pkg/apis/monitoring/v1/thanos_types.go (ThanosRulerSpec.podMetadata, reserved labels), pkg/thanos/statefulset.go (minReplicas 1)`,
    },
    {
        group: "postgresql.cnpg.io",
        kind: "Cluster",
        replicas: "spec.instances",
        defaultReplicas: 1,
        podLabels: { "cnpg.io/cluster": "{name}", "cnpg.io/podRole": "instance" },
        podLabelsFrom: ["spec.inheritedMetadata.labels"],
        source: "cloudnative-pg/cloudnative-pg: api/v1/cluster_types.go (instances, default 1), pkg/utils/labels_annotations.go (cnpg.io/cluster, cnpg.io/podRole), pkg/specs/services.go (instance Services select cnpg.io/cluster + cnpg.io/podRole: instance)",
    },
    {
        group: "kafka.strimzi.io",
        kind: "KafkaNodePool",
        replicas: "spec.replicas",
        defaultReplicas: 0,
        podLabels: {
            "strimzi.io/cluster": "{label:strimzi.io/cluster}",
            "strimzi.io/name": "{label:strimzi.io/cluster}-kafka",
            "strimzi.io/kind": "Kafka",
            "strimzi.io/component-type": "kafka",
            "strimzi.io/pool-name": "{name}",
        },
        podLabelsFrom: ["metadata.labels", "spec.template.pod.metadata.labels"],
        source: "strimzi/strimzi-kafka-operator: cluster-operator/src/main/java/io/strimzi/operator/cluster/model/KafkaPool.java (the pool's labels, then strimzi.io/kind, name <cluster>-kafka, cluster, component-type, pool-name); a node pool names its Kafka cluster with its own strimzi.io/cluster label, and spec.replicas is required",
    },
    {
        group: "elasticsearch.k8s.elastic.co",
        kind: "Elasticsearch",
        replicas: "spec.nodeSets[].count",
        defaultReplicas: 0,
        podLabels: { "common.k8s.elastic.co/type": "elasticsearch", "elasticsearch.k8s.elastic.co/cluster-name": "{name}" },
        source: "elastic/cloud-on-k8s: pkg/controller/elasticsearch/label/label.go (NewPodLabels: elasticsearch.k8s.elastic.co/cluster-name and common.k8s.elastic.co/type on every pod); one StatefulSet of count pods per node set",
    },
];

/** The kinds to read: the operators' defaults, each replaced by a configured kind of the same group and kind, plus the configured others. */
export function customWorkloadKinds(configured: readonly CustomWorkloadKind[]): CustomWorkloadKind[] {
    const key = (k: { group: string; kind: string }) => `${k.group}/${k.kind}`;
    const given = asArray(configured).filter((k): k is CustomWorkloadKind => asRecord(k) !== undefined);
    const mine = new Set(given.map(key));
    return [...OPERATOR_WORKLOADS.filter((k) => !mine.has(key(k))), ...given];
}

/** The pods a custom resource keeps running, read into the shape of a workload. */
export interface CustomWorkload {
    kind: string;
    name: string;
    namespace: string;
    podLabels: Record<string, string>;
    /** Always known for a custom workload (its default applies when unset). */
    replicas: number;
    urn?: string;
}

/** The values at a dotted path, `[]` segments fanning out over lists. */
function valuesAt(obj: unknown, dotted: string): unknown[] {
    let current: unknown[] = [obj];
    for (const segment of dotted.split(".")) {
        const list = segment.endsWith("[]");
        const key = list ? segment.slice(0, -2) : segment;
        current = current.flatMap((v) => {
            const next = path(v, key);
            return list ? asArray(next) : next === undefined || next === null ? [] : [next];
        });
    }
    return current;
}

/** A count at a dotted path, summed over `[]` segments; `fallback` when nothing is set. Non-numbers count as nothing. */
function countAt(obj: unknown, dotted: string, fallback: number): number {
    const values = valuesAt(obj, dotted);
    if (values.length === 0) {
        return fallback;
    }
    return values.reduce<number>((sum, v) => sum + Math.max(asNumber(v) ?? 0, 0), 0);
}

function template(value: string, name: string, labels: Record<string, string>): string | undefined {
    let missing = false;
    const out = value.replace(/\{(name|label:([^}]+))\}/g, (_m, what: string, key: string | undefined) => {
        if (what === "name") {
            return name;
        }
        const v = labels[key as string];
        if (v === undefined) {
            missing = true;
            return "";
        }
        return v;
    });
    return missing ? undefined : out;
}

/**
 * Reads a custom resource of one of `kinds`; `undefined` for anything else. Unknown values throw
 * (SDK proxy), so callers read through `Verdicts`.
 */
export function readCustomWorkload(
    type: string,
    resourceName: string,
    props: unknown,
    kinds: readonly CustomWorkloadKind[],
    urn?: string,
): CustomWorkload | undefined {
    const k = kubernetesKind(type, props);
    // Kinds come from policy config: the CLI validates them against the schema, but read them defensively all the same.
    const spec = k && kinds.find((c) => asRecord(c) && c.group === k.group && c.kind === k.kind);
    if (!spec || typeof spec.replicas !== "string") {
        return undefined;
    }
    const name = objectName(props, resourceName);
    const ownLabels = stringMap(path(props, "metadata", "labels"));
    const podLabels: Record<string, string> = {};
    for (const from of asArray(spec.podLabelsFrom).filter((f): f is string => typeof f === "string")) {
        for (const map of valuesAt(props, from)) {
            Object.assign(podLabels, stringMap(asRecord(map)));
        }
    }
    for (const [key, value] of Object.entries(stringMap(spec.podLabels))) {
        const v = template(value, name, ownLabels);
        if (v === undefined) {
            delete podLabels[key];
        } else {
            podLabels[key] = v;
        }
    }
    const factor = typeof spec.replicaFactor === "string" ? countAt(props, spec.replicaFactor, 1) : 1;
    return {
        kind: spec.kind,
        name,
        namespace: namespaceOf(props),
        podLabels,
        replicas: countAt(props, spec.replicas, Math.max(asNumber(spec.defaultReplicas) ?? 0, 0)) * Math.max(factor, 1),
        ...(urn ? { urn } : {}),
    };
}
