/**
 * Small drain scenarios, built from the policy fixtures: the rehearsal's hand-checked tests
 * (test/rehearsal/index.test.ts) and the drain-rehearsal policy's (test/policies/drainRehearsal.test.ts)
 * run on them.
 *
 * Sizes (instance data, AL2023 allocatable): m6i.large holds 1930m CPU, 6903 MiB and 29 pods; a
 * pod requesting 1500m leaves 430m, so two never share a node.
 */
import { rehearse, Rehearsal } from "eks-platform-rehearsal";
import { unknownCheckingProxy } from "eks-platform-evaluation";
import * as f from "../policies/fixtures";
import { changed, TestResource, UNKNOWN, urnOf } from "../policies/harness";

/** The engine on test resources, read through the SDK's proxy as under the analyzer (`group`: one group's rollout). */
export function run(resources: TestResource[], group?: string): Rehearsal {
    return rehearse(
        resources.map((r) => ({
            type: r.type,
            name: r.name,
            urn: urnOf(r),
            props: unknownCheckingProxy(JSON.parse(JSON.stringify(r.props)) as Record<string, unknown>),
        })),
        group ? { group } : {},
    );
}

const SUBNETS = (n: number) => Array.from({ length: n }, () => UNKNOWN.string);

export function managed(
    name: string,
    desired: number,
    opts: { zones?: number; update?: Record<string, unknown>; types?: string[] } = {},
): TestResource {
    return {
        type: "aws:eks/nodeGroup:NodeGroup",
        name: `nodegroups-${name}`,
        props: {
            clusterName: "c",
            nodeGroupNamePrefix: `${name}-`,
            instanceTypes: opts.types ?? ["m6i.large"],
            scalingConfig: { minSize: desired, desiredSize: desired, maxSize: desired * 2 },
            updateConfig: opts.update ?? { maxUnavailable: 1 },
            subnetIds: SUBNETS(opts.zones ?? 3),
        },
    };
}

export interface AsgOptions {
    minHealthy?: number;
    /** `instanceRefresh.preferences.maxHealthyPercentage` (unset: 100, terminate before launch). */
    maxHealthy?: number;
    tags?: { key: string; value: string }[];
    /** The mixed instances policy's overrides, in priority order (default: m6i.large). */
    types?: string[];
    /** `instancesDistribution` (default: all on-demand, `onDemandPercentageAboveBaseCapacity: 100`). */
    distribution?: Record<string, unknown>;
}

export function asg(name: string, desired: number, opts: AsgOptions = {}): TestResource {
    return {
        type: "aws:autoscaling/group:Group",
        name: `nodegroups-${name}-asg`,
        props: {
            namePrefix: `${name}-`,
            desiredCapacity: desired,
            minSize: 0,
            maxSize: 10,
            vpcZoneIdentifiers: SUBNETS(1),
            mixedInstancesPolicy: {
                launchTemplate: {
                    launchTemplateSpecification: { launchTemplateId: UNKNOWN.string },
                    overrides: (opts.types ?? ["m6i.large"]).map((instanceType) => ({ instanceType })),
                },
                instancesDistribution: opts.distribution ?? { onDemandBaseCapacity: 0, onDemandPercentageAboveBaseCapacity: 100 },
            },
            instanceRefresh: {
                strategy: "Rolling",
                preferences: {
                    minHealthyPercentage: opts.minHealthy ?? 90,
                    ...(opts.maxHealthy !== undefined ? { maxHealthyPercentage: opts.maxHealthy } : {}),
                    instanceWarmup: "60",
                },
            },
            tags: opts.tags ?? [{ key: "k8s.io/cluster-autoscaler/node-template/label/workload", value: "batch" }],
        },
    };
}

export function hook(heartbeat: number): TestResource {
    return {
        type: "aws:autoscaling/lifecycleHook:LifecycleHook",
        name: "nodegroups-batch-terminate",
        props: {
            autoscalingGroupName: UNKNOWN.string,
            lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
            defaultResult: "CONTINUE",
            heartbeatTimeout: heartbeat,
        },
    };
}

/** The fixtures' NodePool, launching only m6i.large, with `spec` merged into its node template and no terminationGracePeriod unless given. */
export function nodePool(name: string, spec: Record<string, unknown> = {}): TestResource {
    const base = changed(f.nodePool(name), "spec.template.spec.terminationGracePeriod", undefined);
    return changed(base, "spec.template.spec", {
        ...(base.props.spec as { template: { spec: Record<string, unknown> } }).template.spec,
        requirements: [
            { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
            { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.large"] },
        ],
        ...spec,
    });
}

export interface AppOptions {
    replicas?: number;
    cpu?: string;
    /** The container's memory request (default 256Mi). */
    memory?: string;
    grace?: number;
    spreadHost?: boolean;
    kind?: "Deployment" | "StatefulSet" | "Pod";
}

export function app(name: string, opts: AppOptions = {}): TestResource {
    const kind = opts.kind ?? "Deployment";
    const spec = {
        terminationGracePeriodSeconds: opts.grace ?? 60,
        containers: [
            {
                name: "app",
                image: "registry.example.com/app:1.0.0",
                resources: { requests: { cpu: opts.cpu ?? "250m", memory: opts.memory ?? "256Mi" } },
            },
        ],
        ...(opts.spreadHost
            ? {
                  topologySpreadConstraints: [
                      {
                          maxSkew: 1,
                          topologyKey: "kubernetes.io/hostname",
                          whenUnsatisfiable: "DoNotSchedule",
                          labelSelector: { matchLabels: { app: name } },
                      },
                  ],
              }
            : {}),
    };
    if (kind === "Pod") {
        return {
            type: "kubernetes:core/v1:Pod",
            name: `prod-${name}`,
            props: { apiVersion: "v1", kind, metadata: { name, namespace: "prod", labels: { app: name } }, spec },
        };
    }
    return {
        type: `kubernetes:apps/v1:${kind}`,
        name: `prod-${name}`,
        props: {
            apiVersion: "apps/v1",
            kind,
            metadata: { name, namespace: "prod" },
            spec: {
                replicas: opts.replicas ?? 3,
                selector: { matchLabels: { app: name } },
                template: { metadata: { labels: { app: name } }, spec },
            },
        },
    };
}

export function pdb(name: string, values: Record<string, unknown>): TestResource {
    return {
        type: "kubernetes:policy/v1:PodDisruptionBudget",
        name: `prod-${name}-pdb`,
        props: {
            apiVersion: "policy/v1",
            kind: "PodDisruptionBudget",
            metadata: { name, namespace: "prod" },
            spec: { ...values, selector: { matchLabels: { app: name } } },
        },
    };
}

/** A DaemonSet in `prod` whose one container requests `cpu` (and 64Mi); `spec` is merged into its pod spec. */
export function daemonSet(name: string, cpu: string, spec: Record<string, unknown> = {}): TestResource {
    return {
        type: "kubernetes:apps/v1:DaemonSet",
        name: `prod-${name}`,
        props: {
            apiVersion: "apps/v1",
            kind: "DaemonSet",
            metadata: { name, namespace: "prod" },
            spec: {
                selector: { matchLabels: { app: name } },
                template: {
                    metadata: { labels: { app: name } },
                    spec: {
                        containers: [
                            { name: "agent", image: "registry.example.com/agent:1.0.0", resources: { requests: { cpu, memory: "64Mi" } } },
                        ],
                        ...spec,
                    },
                },
            },
        },
    };
}

/** A LimitRange in `namespace` with these `spec.limits` items. */
export function limitRange(namespace: string, limits: Record<string, unknown>[]): TestResource {
    return {
        type: "kubernetes:core/v1:LimitRange",
        name: `${namespace}-defaults`,
        props: { apiVersion: "v1", kind: "LimitRange", metadata: { name: "defaults", namespace }, spec: { limits } },
    };
}

/** `r` with its pod template changed at `dotted` (below `spec.template`). */
export function withTemplate(r: TestResource, dotted: string, value: unknown): TestResource {
    return changed(r, `spec.template.${dotted}`, value);
}

/** `r` with its pod spec changed at `dotted` (below `spec.template.spec`). */
export function withPodSpec(r: TestResource, dotted: string, value: unknown): TestResource {
    return changed(r, `spec.template.spec.${dotted}`, value);
}

/** A readiness probe whose first success comes `delay` + 10 s after the container starts (30 s). */
export function slowReady(r: TestResource, delay: number): TestResource {
    return withTemplate(r, "spec.containers", [
        {
            name: "app",
            image: "registry.example.com/app:1.0.0",
            resources: { requests: { cpu: "250m", memory: "256Mi" } },
            readinessProbe: { httpGet: { path: "/", port: 80 }, initialDelaySeconds: delay },
        },
    ]);
}

/** `replicas` pods of one container requesting 500m, 1Gi and `gpus` nvidia.com/gpu (as a limit: extended requests equal limits). */
export function gpuApp(name: string, replicas: number, gpus = 1): TestResource {
    return withPodSpec(app(name, { replicas }), "containers", [
        {
            name: "train",
            image: "registry.example.com/train:1.0.0",
            resources: { requests: { cpu: "500m", memory: "1Gi" }, limits: { "nvidia.com/gpu": String(gpus) } },
        },
    ]);
}

/** A private subnet in `zone`: the cluster's zones are its subnets'. */
export function subnet(zone: string): TestResource {
    return { type: "aws:ec2/subnet:Subnet", name: `network-private-${zone}`, props: { availabilityZone: zone, cidrBlock: "10.0.0.0/19" } };
}

/** EKS Auto Mode's NodeClass, as a NodePool's `nodeClassRef` names it. */
export const AUTO_MODE_NODE_CLASS = { group: "eks.amazonaws.com", kind: "NodeClass", name: "platform" };

/** A pulumi-eks cluster with Auto Mode and these built-in pools. */
export function autoModeCluster(nodePools: string[]): TestResource {
    return {
        type: "eks:index:Cluster",
        name: "cluster-eks",
        props: { name: "platform", autoMode: { enabled: true, computeConfig: { enabled: true, nodePools } } },
    };
}

/** A workload like an EKS add-on on Auto Mode's built-in system pool: selects it and tolerates its taint. */
export function onSystemPool(name: string, opts: AppOptions = {}): TestResource {
    const a = changed(app(name, opts), "spec.template.spec.nodeSelector", { "karpenter.sh/nodepool": "system" });
    return changed(a, "spec.template.spec.tolerations", [{ key: "CriticalAddonsOnly", operator: "Exists" }]);
}

/** A container named `name` with these `resources` (and `extra` fields). */
export function container(name: string, resources: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { name, image: `registry.example.com/${name}:1.0.0`, resources, ...extra };
}

/** One m6i.large node in one zone. */
export const oneNode = () => managed("apps", 1, { zones: 1 });

/** Pods that fit nowhere before any rollout, with why. */
export const unschedulable = (r: Rehearsal) => r.unschedulable.map((u) => [u.pod, u.reasons]);
