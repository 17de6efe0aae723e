/**
 * The platform's own pods, which no resource of a stack shows: the controllers of Helm releases
 * and EKS add-ons (CoreDNS, Karpenter, the AWS Load Balancer Controller, the EBS CSI controller,
 * metrics-server, the Node Termination Handler). Each is read from its release's values or its
 * add-on's `configurationValues`, with the chart's defaults at the version named, and handed to
 * the rehearsal as the Deployment and PodDisruptionBudget the chart renders, so the group they run
 * on (the system nodes) is judged with them instead of passing with nothing to evict.
 *
 * A default this module could not confirm is listed in `assumed`, and said as not modelled.
 */
import { asArray, asNumber, asRecord, asString, field, isUnknownSentinel, path, Rec } from "eks-platform-kernel";
import type { DrainResource } from "./model";

interface AddonPods {
    replicas: number;
    podSpec: Rec;
    /** The chart's budget (`maxUnavailable`/`minAvailable`), or none. */
    pdb?: Rec;
}

interface AddonSpec {
    /** How reports name it. */
    name: string;
    namespace: string;
    /** The Helm chart (the last path part of `chart`) or EKS add-on name it comes from. */
    helmChart?: string;
    eksAddon?: string;
    /** Where the defaults come from. */
    source: string;
    /** Defaults the source does not settle, as "what: assumed value". */
    assumed?: string[];
    /** The Service that sends it requests (DNS queries, webhook calls, the metrics API), if any. */
    serves?: { name: string; port: number; portName: string };
    /** Its controller's pods (a Deployment), if it runs one. */
    pods?(values: Rec): AddonPods;
    /**
     * Its node agent (a DaemonSet on every node, tolerating every taint): the requests it takes
     * from each node's allocatable, so the nodes hold less for workloads.
     */
    node?: { name: string; requests(values: Rec): Rec };
}

/** What a node agent tolerates: every taint (the charts' and add-ons' `operator: Exists`). */
const EVERY_TAINT = [{ operator: "Exists" }];

const CRITICAL_ADDONS_ONLY = { key: "CriticalAddonsOnly", operator: "Exists" };

const recordOr = (value: unknown, fallback: Rec): Rec => asRecord(value) ?? fallback;
const listOr = (value: unknown, fallback: unknown[]): unknown[] => (Array.isArray(value) ? asArray(value) : fallback);
const countOr = (value: unknown, fallback: number): number => asNumber(value) ?? fallback;

/** The values' affinity, else the chart's default, else none. */
function affinityOf(values: Rec, fallback: Rec | undefined): { affinity?: Rec } {
    const affinity = asRecord(field(values, "affinity")) ?? fallback;
    return affinity ? { affinity } : {};
}

/**
 * A chart whose values hold the pod settings at the top level: `replicasKey` replicas (default
 * `replicas`), `resources` (default `requests`), nodeSelector, tolerations, affinity, and a
 * `podDisruptionBudget` it renders (only with more than one replica when `budgetNeedsTwo`).
 */
function topLevelValues(o: {
    replicasKey: string;
    replicas: number;
    requests?: Rec;
    tolerations?: unknown[];
    budgetNeedsTwo?: boolean;
}): (values: Rec) => AddonPods {
    return (v) => {
        const replicas = countOr(field(v, o.replicasKey), o.replicas);
        return {
            replicas,
            podSpec: podSpec(
                v,
                { resources: recordOr(field(v, "resources"), o.requests ? { requests: o.requests } : {}) },
                { tolerations: o.tolerations },
            ),
            pdb: budget(field(v, "podDisruptionBudget"), !o.budgetNeedsTwo || replicas > 1),
        };
    };
}

/** One container with the chart's resources, and the pod-level settings charts pass through. */
function podSpec(
    values: Rec,
    container: Rec,
    defaults: { nodeSelector?: Rec; tolerations?: unknown[]; affinity?: Rec; spread?: unknown[] } = {},
): Rec {
    return {
        containers: [{ name: "controller", image: "chart", ...container }],
        nodeSelector: recordOr(field(values, "nodeSelector"), defaults.nodeSelector ?? {}),
        tolerations: listOr(field(values, "tolerations"), defaults.tolerations ?? []),
        ...affinityOf(values, defaults.affinity),
        topologySpreadConstraints: listOr(field(values, "topologySpreadConstraints"), defaults.spread ?? []),
        ...(asNumber(field(values, "terminationGracePeriodSeconds")) !== undefined
            ? { terminationGracePeriodSeconds: asNumber(field(values, "terminationGracePeriodSeconds")) }
            : {}),
    };
}

/** A budget from a chart's `podDisruptionBudget` block (`enabled` aside), or undefined when it renders none. */
function budget(value: unknown, renders = true): Rec | undefined {
    const pdb = asRecord(value);
    if (!renders || !pdb || field(pdb, "enabled") === false) {
        return undefined;
    }
    const out: Rec = {};
    for (const key of ["maxUnavailable", "minAvailable"]) {
        if (field(pdb, key) !== undefined) {
            out[key] = field(pdb, key);
        }
    }
    return Object.keys(out).length > 0 ? out : undefined;
}

export const ADDON_SPECS: readonly AddonSpec[] = [
    {
        name: "karpenter",
        namespace: "kube-system",
        helmChart: "karpenter",
        source: "aws/karpenter-provider-aws v1.14.1 charts/karpenter/values.yaml",
        pods: (v) => ({
            replicas: countOr(field(v, "replicas"), 2),
            podSpec: podSpec(
                v,
                { resources: recordOr(path(v, "controller", "resources"), {}) },
                {
                    nodeSelector: { "kubernetes.io/os": "linux" },
                    tolerations: [CRITICAL_ADDONS_ONLY],
                    affinity: {
                        nodeAffinity: {
                            requiredDuringSchedulingIgnoredDuringExecution: {
                                nodeSelectorTerms: [{ matchExpressions: [{ key: "karpenter.sh/nodepool", operator: "DoesNotExist" }] }],
                            },
                        },
                        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "kubernetes.io/hostname" }] },
                    },
                    spread: [{ maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "DoNotSchedule" }],
                },
            ),
            pdb: budget(field(v, "podDisruptionBudget") ?? { maxUnavailable: 1 }),
        }),
    },
    {
        name: "aws-load-balancer-controller",
        namespace: "kube-system",
        helmChart: "aws-load-balancer-controller",
        serves: { name: "aws-load-balancer-webhook-service", port: 443, portName: "webhook-server" },
        source: "aws/eks-charts aws-load-balancer-controller 1.13.3 values.yaml (replicaCount 2; a budget only when podDisruptionBudget is set and replicas > 1)",
        pods: topLevelValues({ replicasKey: "replicaCount", replicas: 2, budgetNeedsTwo: true }),
    },
    {
        name: "aws-node-termination-handler",
        namespace: "kube-system",
        helmChart: "aws-node-termination-handler",
        source: "aws/aws-node-termination-handler chart 0.27.1 values.yaml (queue mode runs a Deployment; replicas 1)",
        pods: topLevelValues({ replicasKey: "replicas", replicas: 1 }),
    },
    {
        name: "coredns",
        namespace: "kube-system",
        eksAddon: "coredns",
        serves: { name: "kube-dns", port: 53, portName: "dns" },
        source: "the EKS coredns add-on's configuration (replicaCount, podDisruptionBudget, resources, nodeSelector, tolerations)",
        assumed: [
            "requests when unset: cpu 100m, memory 70Mi (the upstream CoreDNS Deployment's)",
            "tolerations when unset: CriticalAddonsOnly",
        ],
        pods: topLevelValues({
            replicasKey: "replicaCount",
            replicas: 2,
            requests: { cpu: "100m", memory: "70Mi" },
            tolerations: [CRITICAL_ADDONS_ONLY],
        }),
    },
    {
        name: "metrics-server",
        namespace: "kube-system",
        eksAddon: "metrics-server",
        serves: { name: "metrics-server", port: 443, portName: "https" },
        source: "the EKS metrics-server community add-on's configuration (replicas, podDisruptionBudget, resources, nodeSelector, tolerations)",
        pods: topLevelValues({ replicasKey: "replicas", replicas: 1 }),
    },
    {
        name: "aws-node",
        namespace: "kube-system",
        eksAddon: "vpc-cni",
        source: "aws/amazon-vpc-cni-k8s charts/aws-vpc-cni/values.yaml (resources.requests.cpu 25m; tolerates every taint)",
        node: { name: "aws-node", requests: (v) => recordOr(path(v, "resources", "requests"), { cpu: "25m" }) },
    },
    {
        name: "kube-proxy",
        namespace: "kube-system",
        eksAddon: "kube-proxy",
        source: "the EKS kube-proxy add-on's DaemonSet (tolerates every taint)",
        assumed: ["requests: cpu 100m (the upstream kube-proxy DaemonSet's; the add-on takes no resources configuration)"],
        node: { name: "kube-proxy", requests: () => ({ cpu: "100m" }) },
    },
    {
        name: "eks-pod-identity-agent",
        namespace: "kube-system",
        eksAddon: "eks-pod-identity-agent",
        source: "aws/eks-pod-identity-agent charts/eks-pod-identity-agent/values.yaml (resources {}: no requests unless configured; tolerations operator Exists)",
        node: { name: "eks-pod-identity-agent", requests: (v) => recordOr(path(v, "resources", "requests"), {}) },
    },
    {
        name: "ebs-csi-controller",
        namespace: "kube-system",
        eksAddon: "aws-ebs-csi-driver",
        source: "kubernetes-sigs/aws-ebs-csi-driver chart (controller.replicaCount 2; poddisruptionbudget-controller.yaml: maxUnavailable 1 up to 2 replicas, else minAvailable 2, while controller.podDisruptionBudget.enabled; node.resources.requests cpu 10m, memory 40Mi, its sidecars none; node.tolerateAllTaints true)",
        node: { name: "ebs-csi-node", requests: (v) => recordOr(path(v, "node", "resources", "requests"), { cpu: "10m", memory: "40Mi" }) },
        pods: (v) => {
            const controller = recordOr(field(v, "controller"), {});
            const replicas = countOr(field(controller, "replicaCount"), 2);
            const enabled = path(controller, "podDisruptionBudget", "enabled") !== false;
            return {
                replicas,
                podSpec: podSpec(
                    controller,
                    { resources: recordOr(field(controller, "resources"), {}) },
                    { tolerations: [CRITICAL_ADDONS_ONLY] },
                ),
                pdb: enabled ? (replicas <= 2 ? { maxUnavailable: 1 } : { minAvailable: 2 }) : undefined,
            };
        },
    },
];

/**
 * Spread constraints and pod (anti-)affinity terms without a `labelSelector` select the
 * workload's own pods: the charts fill in their pod selector labels (the Karpenter chart's
 * deployment.yaml patches its defaults so), and so does this.
 */
function withOwnSelector(podSpec: Rec, labels: Record<string, string>): void {
    const own = (term: unknown) =>
        asRecord(term) && field(term, "labelSelector") === undefined ? { ...asRecord(term), labelSelector: { matchLabels: labels } } : term;
    podSpec.topologySpreadConstraints = asArray(podSpec.topologySpreadConstraints).map(own);
    // A copy: the affinity may be the resource's own value, which belongs to the policy engine.
    const written = asRecord(podSpec.affinity);
    if (!written) {
        return;
    }
    const affinity: Rec = { ...written };
    for (const kind of ["podAntiAffinity", "podAffinity"]) {
        const block = asRecord(affinity[kind]);
        if (block && Array.isArray(block.requiredDuringSchedulingIgnoredDuringExecution)) {
            affinity[kind] = {
                ...block,
                requiredDuringSchedulingIgnoredDuringExecution: asArray(block.requiredDuringSchedulingIgnoredDuringExecution).map(own),
            };
        }
    }
    podSpec.affinity = affinity;
}

function specOf(r: DrainResource): AddonSpec | undefined {
    if (r.type === "aws:eks/addon:Addon") {
        const name = asString(field(r.props, "addonName"));
        return ADDON_SPECS.find((s) => s.eksAddon !== undefined && s.eksAddon === name);
    }
    if (r.type === "kubernetes:helm.sh/v3:Release") {
        const chart = asString(field(r.props, "chart"))?.split("/").pop();
        return ADDON_SPECS.find((s) => s.helmChart !== undefined && s.helmChart === chart);
    }
    return undefined;
}

function valuesOf(r: DrainResource): Rec | undefined {
    if (r.type === "aws:eks/addon:Addon") {
        const raw = field(r.props, "configurationValues");
        if (raw === undefined || raw === null) {
            return {};
        }
        if (typeof raw !== "string" || isUnknownSentinel(raw)) {
            return undefined;
        }
        try {
            return asRecord(JSON.parse(raw)) ?? {};
        } catch {
            return undefined;
        }
    }
    return asRecord(field(r.props, "values")) ?? {};
}

/**
 * A Kubernetes object the rehearsal makes for a resource that stands for it (a chart's Deployment,
 * an operator's budget), carrying that resource's URN so findings land on what the user wrote.
 * `apiVersion/kind` as the object says them; `name` is its logical name, after the source's.
 */
export function madeObject(source: DrainResource, apiVersion: string, kind: string, name: string, body: Rec): DrainResource {
    const group = apiVersion.includes("/") ? apiVersion : `core/${apiVersion}`;
    return { type: `kubernetes:${group}:${kind}`, name: `${source.name}/${name}`, urn: source.urn, props: { apiVersion, kind, ...body } };
}

/** The Deployment, budget and Service of an add-on's controller. */
function controllerResources(r: DrainResource, spec: AddonSpec, pods: AddonPods): DrainResource[] {
    const labels = { "app.kubernetes.io/name": spec.name };
    withOwnSelector(pods.podSpec, labels);
    const metadata = { name: spec.name, namespace: spec.namespace };
    const out = [
        madeObject(r, "apps/v1", "Deployment", spec.name, {
            metadata,
            spec: { replicas: pods.replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: pods.podSpec } },
        }),
    ];
    if (pods.pdb) {
        out.push(
            madeObject(r, "policy/v1", "PodDisruptionBudget", `${spec.name}-pdb`, {
                metadata,
                spec: { ...pods.pdb, selector: { matchLabels: labels } },
            }),
        );
    }
    if (spec.serves) {
        out.push(
            madeObject(r, "v1", "Service", spec.serves.name, {
                metadata: { name: spec.serves.name, namespace: spec.namespace },
                spec: { selector: labels, ports: [{ name: spec.serves.portName, port: spec.serves.port }] },
            }),
        );
    }
    return out;
}

/**
 * The Deployments and budgets the platform's add-ons run, as resources the rehearsal reads like
 * any other, each carrying its release's or add-on's URN; `modelled` names the resources they
 * stand for (their "not modelled" note is dropped), `notes` what was assumed or unreadable.
 */
export function addonWorkloads(resources: readonly DrainResource[]): {
    resources: DrainResource[];
    modelled: Set<string>;
    notes: string[];
} {
    const out: DrainResource[] = [];
    const modelled = new Set<string>();
    const notes: string[] = [];
    for (const r of resources) {
        const spec = specOf(r);
        if (!spec) {
            continue;
        }
        const values = valuesOf(r);
        if (!values) {
            notes.push(`the pods of ${spec.name} (${r.name}): its values cannot be read, so they are not rehearsed`);
            continue;
        }
        if (spec.pods) {
            out.push(...controllerResources(r, spec, spec.pods(values)));
        }
        if (spec.node) {
            const labels = { "app.kubernetes.io/name": spec.node.name };
            out.push(
                madeObject(r, "apps/v1", "DaemonSet", spec.node.name, {
                    metadata: { name: spec.node.name, namespace: spec.namespace },
                    spec: {
                        selector: { matchLabels: labels },
                        template: {
                            metadata: { labels },
                            spec: {
                                containers: [
                                    { name: spec.node.name, image: "add-on", resources: { requests: spec.node.requests(values) } },
                                ],
                                tolerations: EVERY_TAINT,
                            },
                        },
                    },
                }),
            );
        }
        modelled.add(r.name);
        if (spec.assumed?.length) {
            notes.push(`${spec.name} (${r.name}), assumed: ${spec.assumed.join("; ")}`);
        }
    }
    return { resources: out, modelled, notes };
}
