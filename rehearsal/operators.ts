/**
 * Pods an operator makes from a custom resource, with the budgets it makes for them: the
 * rehearsal judges them as the operator will run them, not as nothing. Each operator is handed to
 * the rehearsal as the workload, PodDisruptionBudget and Service its controller creates, named
 * after the custom resource so findings point at what the user wrote.
 *
 * CloudNativePG (cloudnative-pg/cloudnative-pg v1.30.0, read at its source):
 * - pods: `spec.instances` (default 1, api/v1/cluster_types.go), one PVC each (a zonal EBS volume
 *   that keeps an instance in its zone), recreated with the same PVC once the old pod is gone;
 *   labels `cnpg.io/cluster` and `cnpg.io/podRole: instance` (pkg/utils/labels_annotations.go);
 *   `terminationGracePeriodSeconds` is `spec.stopDelay` (default 1800, cluster_funcs.go
 *   GetMaxStopDelay, pkg/specs/pods.go); resources, `affinity.nodeSelector`, `affinity.tolerations`
 *   and, with `affinity.podAntiAffinityType: required`, a required anti-affinity on
 *   `affinity.topologyKey` (default `kubernetes.io/hostname`, pods.go CreateAffinitySection).
 * - budgets (internal/controller/cluster_create.go reconcilePodDisruptionBudget,
 *   pkg/specs/poddisruptionbudget.go): with `spec.enablePDB` (default true), `<name>-primary` keeps
 *   the primary (`minAvailable: 1`) and, from three instances, `<name>` keeps `instances - 2` of
 *   the replicas. When the primary's node is cordoned or tainted for a drain (DRAIN_TAINTS:
 *   `karpenter.sh/disrupted` among them), the operator switches the primary over to a replica on
 *   a schedulable node (internal/controller/replicas.go), so a cluster of two or more instances
 *   loses one instance at a time: modelled as `maxUnavailable: 1` over its instances. One instance
 *   has no replica to switch to, and its primary budget blocks every eviction — except during a
 *   node maintenance window (`spec.nodeMaintenanceWindow.inProgress` with `reusePVC`, default
 *   true), when the operator deletes it.
 * - Services `<name>-rw`, `-ro`, `-r` on port 5432 (pkg/specs/services.go): the instances serve.
 */
import { asArray, asNumber, asRecord, asString, field, path, Rec, stringMap } from "eks-platform-kernel";
import { kubernetesKind, namespaceOf, objectName } from "eks-platform-evaluation";
import { madeObject } from "./addons";
import type { DrainResource } from "./model";

/** Workloads synthesised from operators' custom resources, and how reports name each. */
export interface OperatorWorkloads {
    resources: DrainResource[];
    /** Synthesised workload resource name → how reports name it (`Cluster prod/pg (CloudNativePG)`). */
    ids: Map<string, string>;
    notes: string[];
}

const CNPG_GROUP = "postgresql.cnpg.io";
const POSTGRES_PORT = 5432;
const CNPG_DEFAULT_STOP_DELAY_SECONDS = 1800;

/** The CloudNativePG `Cluster` as the operator's controller renders it. */
function cloudNativePg(r: DrainResource, out: OperatorWorkloads): void {
    const name = objectName(r.props, r.name);
    const namespace = namespaceOf(r.props);
    const spec = asRecord(field(r.props, "spec")) ?? {};
    const instances = asNumber(field(spec, "instances")) ?? 1;
    const labels = {
        ...stringMap(path(spec, "inheritedMetadata", "labels")),
        "cnpg.io/cluster": name,
        "cnpg.io/podRole": "instance",
    };
    const affinity = asRecord(field(spec, "affinity")) ?? {};
    const podSpec: Rec = {
        terminationGracePeriodSeconds: asNumber(field(spec, "stopDelay")) || CNPG_DEFAULT_STOP_DELAY_SECONDS,
        containers: [
            {
                name: "postgres",
                ports: [{ name: "postgresql", containerPort: POSTGRES_PORT }],
                resources: asRecord(field(spec, "resources")) ?? {},
            },
        ],
    };
    const nodeSelector = asRecord(field(affinity, "nodeSelector"));
    if (nodeSelector) {
        podSpec.nodeSelector = nodeSelector;
    }
    if (asArray(field(affinity, "tolerations")).length > 0) {
        podSpec.tolerations = asArray(field(affinity, "tolerations"));
    }
    if (field(affinity, "enablePodAntiAffinity") !== false && asString(field(affinity, "podAntiAffinityType")) === "required") {
        podSpec.affinity = {
            podAntiAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: [
                    {
                        topologyKey: asString(field(affinity, "topologyKey")) || "kubernetes.io/hostname",
                        labelSelector: { matchLabels: labels },
                    },
                ],
            },
        };
    }
    const metadata = { name, namespace };
    const workload = `${r.name}/instances`;
    out.ids.set(workload, `Cluster ${namespace}/${name} (CloudNativePG)`);
    out.resources.push(
        madeObject(r, "apps/v1", "StatefulSet", "instances", {
            metadata,
            spec: {
                replicas: instances,
                selector: { matchLabels: labels },
                template: { metadata: { labels }, spec: podSpec },
                // One PVC per instance: the instance stays in its volume's zone.
                volumeClaimTemplates: [{ metadata: { name: "pgdata" } }],
            },
        }),
    );
    const maintenance =
        path(spec, "nodeMaintenanceWindow", "inProgress") === true && path(spec, "nodeMaintenanceWindow", "reusePVC") !== false;
    let budget: { name: string; values: Rec } | undefined;
    if (field(spec, "enablePDB") === false) {
        out.notes.push(`Cluster ${namespace}/${name} (CloudNativePG): enablePDB is false, so the operator makes no budget`);
    } else if (instances === 1) {
        budget = maintenance ? undefined : { name: `${name}-primary`, values: { minAvailable: 1 } };
    } else {
        budget = { name: `${name}-primary`, values: { maxUnavailable: 1 } };
    }
    if (budget) {
        out.resources.push(
            madeObject(r, "policy/v1", "PodDisruptionBudget", budget.name, {
                metadata: { name: budget.name, namespace },
                spec: { ...budget.values, selector: { matchLabels: { "cnpg.io/cluster": name } } },
            }),
        );
    }
    out.resources.push(
        madeObject(r, "v1", "Service", `${name}-rw`, {
            metadata: { name: `${name}-rw`, namespace },
            spec: {
                selector: { "cnpg.io/cluster": name, "cnpg.io/podRole": "instance" },
                ports: [{ name: "postgres", port: POSTGRES_PORT, targetPort: POSTGRES_PORT }],
            },
        }),
    );
}

/** Operators the rehearsal knows, by API group and kind. */
const OPERATORS: ReadonlyMap<string, (r: DrainResource, out: OperatorWorkloads) => void> = new Map([
    [`${CNPG_GROUP}/Cluster`, cloudNativePg],
]);

/**
 * The pods, budgets and Services operators make from the custom resources in `resources`.
 * Unknown values throw (SDK proxy): callers read through `Verdicts`.
 */
export function operatorWorkloads(
    resources: readonly DrainResource[],
    read: (r: DrainResource, fn: () => void) => void,
): OperatorWorkloads {
    const out: OperatorWorkloads = { resources: [], ids: new Map(), notes: [] };
    for (const r of resources) {
        if (!r.type.startsWith("kubernetes:")) {
            continue;
        }
        const k = kubernetesKind(r.type, r.props);
        const make = k && OPERATORS.get(`${k.group}/${k.kind}`);
        if (make) {
            read(r, () => make(r, out));
        }
    }
    return out;
}
