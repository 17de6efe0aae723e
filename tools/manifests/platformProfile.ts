/**
 * A stack's platform profile: what an application repository needs to know about the cluster it
 * deploys to, so its manifests are judged there and not in a vacuum. Derived from the same offline
 * render as the plan (tools/render/stackPlan.ts), versioned (`formatVersion`), and published as JSON
 * Schema (`schemas/platform-profile.schema.json`, written by `npm run docs` from `PROFILE_SCHEMA`).
 *
 * Two parts. The summary (cluster, node groups and pools, namespaces, classes, pack, policy
 * config, commit) is for people and for tools that only read. `context` holds the platform's own
 * resources the pack and the rehearsal read — node capacity, Kubernetes objects, add-ons — so that
 * `drain --platform` and `policy:check --platform` judge manifests beside them exactly as the
 * stack's own preview would. Secrets are never part of it.
 */
import * as fs from "fs";
import * as path from "path";
import { z } from "zod";
import {
    asRecord,
    asString,
    AUTO_MODE_ANNOTATIONS,
    AUTO_MODE_COMPONENTS,
    AUTO_MODE_READINESS_GATE,
    enabledBuiltInPools,
    field,
    LOAD_BALANCER_CONTROLLER_API,
    namespaceNameProblem,
    path as at,
    stringMap,
} from "eks-platform-kernel";
import { parseRelease, REMOVED_APIS, removedBy } from "eks-platform-evaluation";
import { describeCapacity } from "eks-platform-rehearsal";
import { FileError, InputError } from "../cli/errors";
import { headCommit } from "../cli/refTree";
import { isAutoModeCluster, platformOf } from "./platformFit";
import { readStackFiles } from "../render/offline";
import { planToGateResources, renderPlan } from "../render/stackPlan";
import type { GateResource } from "../gate/requests";
import { profileResources } from "./drainInput";

/** The format of this file; a reader refuses another. Bump it on any change a reader must know about. */
export const PROFILE_FORMAT_VERSION = 1;

const taint = z.object({ key: z.string(), value: z.string(), effect: z.string() });
const capacity = z.object({
    cpuMillis: z.number(),
    memoryMiB: z.number(),
    pods: z.number(),
    extended: z.record(z.string(), z.number()).optional(),
});

const group = z.object({
    name: z.string(),
    kind: z.enum(["managed", "selfManaged", "nodePool"]),
    capacityType: z.enum(["spot", "on-demand", "spot or on-demand"]),
    instanceTypes: z.array(z.object({ name: z.string(), allocatable: capacity.optional() })),
    labels: z.record(z.string(), z.string()),
    taints: z.array(taint),
    zones: z.union([z.number(), z.array(z.string()), z.literal("every zone of the cluster")]),
    desired: z.number().optional(),
    limits: z.record(z.string(), z.number()).optional(),
    rollout: z.record(z.string(), z.unknown()),
    drainWindowSeconds: z.number().optional(),
    undecided: z.array(z.string()),
});

const namespace = z.object({
    name: z.string(),
    labels: z.record(z.string(), z.string()),
    /** `spec.hard` of each ResourceQuota in it. */
    quotas: z.array(z.object({ name: z.string(), hard: z.record(z.string(), z.string()) })),
    /** Container defaults of its LimitRanges (`default`, `defaultRequest`, `max`). */
    limitRanges: z.array(z.object({ name: z.string(), container: z.record(z.string(), z.unknown()) })),
    networkPolicies: z.array(z.string()),
});

/**
 * What EKS Auto Mode serves on a stack that runs it (kernel/autoModeComponents.ts): the names its
 * storage and load balancing answer to, the annotations AWS documents it honouring or refusing,
 * and what AWS leaves undecided.
 */
const autoMode = z.object({
    /** `computeConfig.nodePools` of the cluster: the built-in NodePools EKS runs. */
    builtInNodePools: z.array(z.string()),
    /** The StorageClass provisioner of Auto Mode's block storage. */
    provisioner: z.string(),
    /** The IngressClass controller of Auto Mode's ALBs. */
    ingressController: z.string(),
    /** The `spec.loadBalancerClass` of Auto Mode's NLBs, the default of type LoadBalancer Services. */
    loadBalancerClass: z.string(),
    /** Annotations AWS documents Auto Mode honouring or refusing (a refused one with what to use instead), with the EKS User Guide page. */
    annotations: z.array(
        z.object({
            annotation: z.string(),
            value: z.string().optional(),
            verdict: z.enum(["honoured", "refused"]),
            instead: z.string().optional(),
            source: z.string(),
        }),
    ),
    /** What AWS does not document either way: platform-fit reports a manifest relying on it as undecided. */
    undecided: z.array(z.string()),
});

/** The profile's schema: the one home of its shape, for the reader and for the published JSON Schema. */
export const PROFILE_SCHEMA = z.object({
    formatVersion: z.literal(PROFILE_FORMAT_VERSION),
    stack: z.string(),
    project: z.string(),
    /** The commit of the platform repository it was rendered from (null outside git). */
    commit: z.string().nullable(),
    pack: z.object({ name: z.string(), version: z.string() }),
    /** `policies/config/<stack>.json` as it was when the profile was rendered (null: none). */
    policyConfig: z.record(z.string(), z.unknown()).nullable(),
    cluster: z.object({
        name: z.string().nullable(),
        kubernetesVersion: z.string().nullable(),
        /** API versions this Kubernetes version no longer serves (`policy/v1beta1 PodDisruptionBudget`, …). */
        removedApis: z.array(z.string()),
        zones: z.array(z.string()),
    }),
    nodeGroups: z.array(group),
    namespaces: z.array(namespace),
    storageClasses: z.array(z.object({ name: z.string(), provisioner: z.string(), isDefault: z.boolean(), served: z.boolean() })),
    ingressClasses: z.array(z.object({ name: z.string(), controller: z.string(), isDefault: z.boolean(), served: z.boolean() })),
    /** The `spec.loadBalancerClass` values served; the default is what a type LoadBalancer Service without one gets. Absent in profiles rendered before it. */
    loadBalancerClasses: z.array(z.object({ name: z.string(), isDefault: z.boolean() })).optional(),
    loadBalancerController: z.boolean(),
    /** What EKS Auto Mode serves, null on a standard cluster. Absent in profiles rendered before it. */
    autoMode: autoMode.nullable().optional(),
    metricsApi: z.boolean(),
    /** The platform's resources the pack and the rehearsal read, as the engine would send them. */
    context: z.array(
        z.object({
            type: z.string(),
            name: z.string(),
            urn: z.string(),
            /**
             * The URN of its parent component: the rehearsal pairs an Auto Scaling group with its lifecycle hook by
             * it when the group's name is unknown at preview. Absent in profiles rendered before it.
             */
            parent: z.string().optional(),
            props: z.record(z.string(), z.unknown()),
        }),
    ),
});

export type PlatformProfile = z.infer<typeof PROFILE_SCHEMA>;
export type ProfileResource = PlatformProfile["context"][number];

/** The published JSON Schema of the profile (draft 2020-12), generated from `PROFILE_SCHEMA`. */
export function profileJsonSchema(): Record<string, unknown> {
    return {
        title: "EKS platform profile",
        description: "What an application repository needs to know about the platform stack it deploys to (npm run profile).",
        ...z.toJSONSchema(PROFILE_SCHEMA),
    };
}

/** Types of AWS resources the pack and the rehearsal read as platform context; every Kubernetes object but Secrets joins them. */
const CONTEXT_TYPES = new Set([
    "eks:index:Cluster",
    "aws:eks/nodeGroup:NodeGroup",
    "aws:autoscaling/group:Group",
    "aws:autoscaling/lifecycleHook:LifecycleHook",
    "aws:ec2/launchTemplate:LaunchTemplate",
    "aws:ec2/subnet:Subnet",
    "aws:eks/addon:Addon",
]);

function inContext(r: { type: string; props: Record<string, unknown> }): boolean {
    if (r.type.startsWith("kubernetes:")) {
        return asString(r.props.kind) !== "Secret" && !r.type.endsWith(":Secret");
    }
    return CONTEXT_TYPES.has(r.type);
}

/** A Pulumi resource reference in a props tree (a parent or provider object): only its name is kept. */
function plain(value: unknown): unknown {
    if (Array.isArray(value)) {
        return value.map(plain);
    }
    const rec = asRecord(value);
    if (!rec) {
        return value;
    }
    if (rec.__pulumiResource === true) {
        return `resource ${String(rec.__name)}`;
    }
    return Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, plain(v)]));
}

/** The pack's name and version (policies/package.json). */
export function packIdentity(root: string): { name: string; version: string } {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "policies", "package.json"), "utf8")) as { name: string; version: string };
    return { name: pkg.name, version: pkg.version };
}

/** What EKS Auto Mode serves on a cluster running it, or null. Pure. */
export function autoModeSummary(cluster: ProfileResource | undefined): z.infer<typeof autoMode> | null {
    if (!cluster || !isAutoModeCluster(cluster)) {
        return null;
    }
    const gate = AUTO_MODE_READINESS_GATE;
    return {
        // The kernel's one reading: pulumi-eks runs both pools when the list is unset.
        builtInNodePools: enabledBuiltInPools([cluster]).pools.map((p) => p.name),
        provisioner: AUTO_MODE_COMPONENTS.provisioner,
        ingressController: AUTO_MODE_COMPONENTS.ingressController,
        loadBalancerClass: AUTO_MODE_COMPONENTS.loadBalancerClass,
        annotations: AUTO_MODE_ANNOTATIONS.map((a) => ({ ...a })),
        undecided: [
            `any other ${LOAD_BALANCER_CONTROLLER_API.ingressAnnotationPrefix}* annotation on an Ingress (EKS User Guide, auto-configure-alb)`,
            `any other ${LOAD_BALANCER_CONTROLLER_API.serviceAnnotationPrefix}* annotation on a Service ("EKS Auto Mode may not support all annotations", auto-configure-nlb)`,
            `pod readiness gates for namespace label ${gate.controllerLabel} or ${gate.reportedLabel} (the EKS User Guide does not mention readiness gates; users report Auto Mode reading ${gate.reportedLabel})`,
        ],
    };
}

/**
 * The platform context of a stack's resources (as the engine would send them): the AWS resources
 * the pack and the rehearsal read and every Kubernetes object but Secrets, each with its parent's
 * URN, a reference to another resource reduced to its name. Pure.
 */
export function profileContext(resources: readonly GateResource[]): ProfileResource[] {
    return resources.filter(inContext).map((r) => ({
        type: r.type,
        name: r.name,
        urn: r.urn,
        ...(r.parent !== undefined ? { parent: r.parent } : {}),
        props: plain(r.props) as Record<string, unknown>,
    }));
}

/**
 * A quota's `spec.hard` as quantity strings: one written as a number (`pods: 10`, which the API
 * server accepts as a quantity) is kept as its decimal text, not dropped. Pure.
 */
function quantities(value: unknown): Record<string, string> {
    return Object.fromEntries(
        Object.entries(asRecord(value) ?? {}).flatMap(([key, v]) =>
            typeof v === "string" ? [[key, v]] : typeof v === "number" ? [[key, String(v)]] : [],
        ),
    );
}

/**
 * Each Namespace of a context with its labels and what is in it: the `spec.hard` of each
 * ResourceQuota, the container defaults of each LimitRange, the NetworkPolicies' names. An object
 * that names no namespace is in `default`, as kubectl places it. Pure.
 */
export function profileNamespaces(context: readonly ProfileResource[]): PlatformProfile["namespaces"] {
    const kinds = (kind: string) => context.filter((r) => r.type.startsWith("kubernetes:") && r.props.kind === kind);
    const nsOf = (r: ProfileResource) => asString(at(r.props, "metadata", "namespace")) ?? "default";
    return kinds("Namespace").map((ns) => {
        const name = asString(at(ns.props, "metadata", "name")) ?? ns.name;
        const inNs = (kind: string) => kinds(kind).filter((r) => nsOf(r) === name);
        return {
            name,
            labels: stringMap(at(ns.props, "metadata", "labels")),
            quotas: inNs("ResourceQuota").map((q) => ({
                name: asString(at(q.props, "metadata", "name")) ?? q.name,
                hard: quantities(at(q.props, "spec", "hard")),
            })),
            limitRanges: inNs("LimitRange").map((l) => ({
                name: asString(at(l.props, "metadata", "name")) ?? l.name,
                container:
                    asRecord((at(l.props, "spec", "limits") as unknown[] | undefined)?.find((x) => field(x, "type") === "Container")) ?? {},
            })),
            networkPolicies: inNs("NetworkPolicy").map((p) => asString(at(p.props, "metadata", "name")) ?? p.name),
        };
    });
}

/** Renders `stack` offline and derives its profile (`profileOf`). Throws `ConfigError` / `StackFileError` on bad input. */
export async function buildProfile(stack: string, root: string): Promise<PlatformProfile> {
    const { project } = readStackFiles(root, stack);
    return profileOf(stack, project, planToGateResources(await renderPlan(stack, root), project), root);
}

/**
 * The profile of a stack's resources (as the engine would send them); `root`, the platform
 * repository, gives the commit, the pack and the stack's policy config. Pure but for reading those.
 */
export function profileOf(stack: string, project: string, resources: readonly GateResource[], root: string): PlatformProfile {
    const context = profileContext(resources);
    const platform = platformOf(stack, context);
    // The capacity as `drain --platform` reads it from the profile: what it says is what the profile holds.
    const capacity = describeCapacity(profileResources(context));
    const cluster = context.find((r) => r.type === "eks:index:Cluster");
    const version = asString(cluster?.props.version) ?? null;
    const release = version ? parseRelease(version) : undefined;
    const configFile = path.join(root, "policies", "config", `${stack}.json`);
    return {
        formatVersion: PROFILE_FORMAT_VERSION,
        stack,
        project,
        commit: headCommit(root),
        pack: packIdentity(root),
        policyConfig: fs.existsSync(configFile) ? (JSON.parse(fs.readFileSync(configFile, "utf8")) as Record<string, unknown>) : null,
        cluster: {
            name: asString(cluster?.props.name) ?? null,
            kubernetesVersion: version,
            removedApis: release ? REMOVED_APIS.filter((api) => removedBy(api, release)).map((api) => `${api.apiVersion} ${api.kind}`) : [],
            zones: capacity.zones,
        },
        nodeGroups: capacity.groups,
        namespaces: profileNamespaces(context),
        storageClasses: [...platform.storageClasses].map(([name, c]) => ({ name, ...c })),
        ingressClasses: [...platform.ingressClasses].map(([name, c]) => ({ name, ...c })),
        loadBalancerClasses: [...platform.loadBalancerClasses].map(([name, c]) => ({ name, ...c })),
        loadBalancerController: platform.loadBalancerController,
        autoMode: autoModeSummary(cluster),
        metricsApi: platform.metricsApi,
        context,
    };
}

/**
 * Reads a profile file: JSON, of this format version, valid against the schema. A profile
 * rendered by another pack version is accepted with a warning naming both versions (its context is
 * data, judged by this pack); another format version is refused.
 */
export function readProfile(file: string, root: string): { profile: PlatformProfile; warnings: string[] } {
    let raw: unknown;
    try {
        raw = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (err) {
        throw new FileError(file, undefined, `not a platform profile: ${(err as Error).message}`);
    }
    const version = field(raw, "formatVersion");
    if (version !== PROFILE_FORMAT_VERSION) {
        throw new FileError(
            file,
            undefined,
            `formatVersion ${JSON.stringify(version)} is not ${PROFILE_FORMAT_VERSION}, the format this tool reads: render the profile again with this repository's \`npm run profile\``,
        );
    }
    const parsed = PROFILE_SCHEMA.safeParse(raw);
    if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
        throw new FileError(file, undefined, `not a valid platform profile:\n  ${problems.join("\n  ")}`);
    }
    const pack = packIdentity(root);
    const warnings =
        parsed.data.pack.version === pack.version && parsed.data.pack.name === pack.name
            ? []
            : [
                  `${file} was rendered with ${parsed.data.pack.name} ${parsed.data.pack.version}, this is ${pack.name} ${pack.version}: its platform context is judged by this pack's rules`,
              ];
    return { profile: parsed.data, warnings };
}

/** A namespace given with `--namespace`: a Kubernetes namespace name. */
export function namespaceOption(value: string | undefined): string | undefined {
    const problem = value === undefined ? undefined : namespaceNameProblem(value);
    if (problem !== undefined) {
        throw new InputError(`--namespace ${JSON.stringify(value)} is not a namespace name: ${problem}`);
    }
    return value;
}
