/**
 * The one place stack config is read, validated and given its defaults. Everything downstream
 * receives a typed `StackConfig`; nothing else calls `pulumi.Config`. Each component owns its
 * section (its schema module: `<component>.schema.ts`, or `schema.ts` in its folder); this module
 * assembles the sections, checks what spans them, and imports nothing else of components/
 * (test/components.layering.test.ts).
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { overlaps, parseCidr, problemList } from "eks-platform-kernel";
import { accessSchema, podSecuritySchema } from "../access.schema";
import { addonsSchema } from "../addons/schema";
import { clusterSchema } from "../cluster.schema";
import { computeCrossSectionProblems, computeModeSchemas, modeWorkloadPools } from "../compute/schema";
import { karpenterCrossSectionProblems, karpenterSchema } from "../karpenter/schema";
import { type NamespaceConfig, namespacesSchema } from "../namespaces.schema";
import { networkSchema } from "../network.schema";
import { keepsOffEveryPod, nodeGroupClusterProblems, nodeGroupsSchema, nodeTaints } from "../nodegroups/schema";
import { describeIssue } from "./issues";

export type { AccessConfig, PodSecurityConfig } from "../access.schema";
export type { AddonsConfig } from "../addons/schema";
export type { ClusterConfig } from "../cluster.schema";
export type { KarpenterConfig } from "../karpenter/schema";
export type { NamespaceConfig } from "../namespaces.schema";
export type { NetworkConfig } from "../network.schema";
export type { NodeGroupsConfig } from "../nodegroups/schema";

/** The Pulumi project name: the namespace of every key in the stack files. */
export const PROJECT = "eks-platform";

/** The keys of the project namespace, in the order Pulumi.yaml declares them. */
const stackConfigObject = z.strictObject({
    /** The EKS cluster name; static so subnet tags and policies can read it at preview. */
    clusterName: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,99}$/, {
        message: "must start with a letter and hold at most 100 letters, digits, '-' or '_'",
    }),
    network: networkSchema,
    cluster: clusterSchema,
    access: accessSchema,
    /** Pod Security Admission levels of every namespace that sets none. Defaults to `restricted` enforce. */
    podSecurity: podSecuritySchema.default({ enforce: "restricted" }),
    namespaces: namespacesSchema.default({}),
    nodeGroups: nodeGroupsSchema.default({}),
    karpenter: karpenterSchema.default({ enabled: false }),
    /** Each compute mode's section (components/compute: `autoMode`, EKS Auto Mode). Each defaults to off. */
    ...computeModeSchemas(),
    addons: addonsSchema,
});

/**
 * A stack where a pod that tolerates no taint cannot run anywhere: every enabled node group and
 * every pool (Karpenter's, the compute mode's) is tainted, or there are none. The config is valid
 * piece by piece, and `pulumi up` succeeds, but every application pod stays Pending; the usual way
 * here is switching a stack to a compute mode and keeping only its tainted system pool. Pure.
 */
function workloadCapacityProblems(c: z.output<typeof stackConfigObject>): { path: (string | number)[]; message: string }[] {
    const mode = modeWorkloadPools(c);
    const runsWorkloads =
        Object.values(c.nodeGroups).some((g) => g.enabled && !keepsOffEveryPod(nodeTaints(g))) ||
        (c.karpenter.enabled && Object.values(c.karpenter.nodePools).some((p) => !keepsOffEveryPod(p.taints))) ||
        mode?.runsWorkloads === true;
    if (runsWorkloads) {
        return [];
    }
    const tainted = Object.entries(c.nodeGroups)
        .filter(([, g]) => g.enabled)
        .map(([name]) => `nodeGroups.${name}`);
    const have = tainted.length > 0 ? ` (${tainted.join(", ")} ${tainted.length === 1 ? "is" : "are"} tainted)` : "";
    return [
        mode
            ? {
                  path: [mode.key, "nodePools"],
                  message: `leaves no pool a workload can run on${have}: with ${mode.label} every pod that tolerates no taint stays Pending; ${mode.fix}`,
              }
            : {
                  path: ["nodeGroups"],
                  message: `leaves no node a workload can run on${have}: every enabled group and Karpenter pool is tainted NoSchedule or NoExecute, so every pod that tolerates no taint stays Pending; add an untainted group or pool`,
              },
    ];
}

/** Every key of the project namespace; Pulumi.yaml must declare exactly these. */
export const STACK_CONFIG_KEYS = Object.keys(stackConfigObject.shape);

export const stackConfigSchema = stackConfigObject
    .superRefine((c, ctx) => {
        const vpc = parseCidr(c.network.vpcCidr);
        const services = parseCidr(c.cluster.serviceCidr);
        if (vpc && services && overlaps(vpc, services)) {
            ctx.addIssue({
                code: "custom",
                path: ["cluster", "serviceCidr"],
                message: `${c.cluster.serviceCidr} overlaps the VPC ${c.network.vpcCidr}: Services would shadow pod and node addresses`,
            });
        }
        if (c.network.transitGatewayId && c.cluster.endpoint.privateAccessCidrs.length === 0) {
            ctx.addIssue({
                code: "custom",
                path: ["network", "transitGatewayId"],
                message:
                    "routes nothing: the attachment carries cluster.endpoint.privateAccessCidrs, which is empty; list the deployer's networks there or remove the Transit Gateway",
            });
        }
        for (const [i, block] of c.cluster.endpoint.privateAccessCidrs.entries()) {
            const admitted = parseCidr(block);
            if (vpc && admitted && overlaps(vpc, admitted)) {
                ctx.addIssue({
                    code: "custom",
                    path: ["cluster", "endpoint", "privateAccessCidrs", i],
                    message: `${block} overlaps the VPC ${c.network.vpcCidr}: the deployer's network must be outside it (the VPC does not exist before the first up), and routes to it would shadow the VPC's own`,
                });
            }
        }
        const clusterWide = new Set([c.access.deployer, ...c.access.admins]);
        for (const [ns, config] of Object.entries(c.namespaces)) {
            for (const role of ["editors", "viewers"] as const) {
                config[role].forEach((arn, i) => {
                    if (clusterWide.has(arn)) {
                        ctx.addIssue({
                            code: "custom",
                            path: ["namespaces", ns, role, i],
                            message: "already has cluster-wide admin (access.deployer or access.admins); a namespace team role must not",
                        });
                    }
                    for (const [key, readOnly] of [
                        ["access.preview", c.access.preview],
                        ["access.drift", c.access.drift],
                    ] as const) {
                        if (arn === readOnly) {
                            ctx.addIssue({
                                code: "custom",
                                path: ["namespaces", ns, role, i],
                                message: `is ${key}, whose entry stays read-only: a principal holds one access entry`,
                            });
                        }
                    }
                });
            }
        }
        for (const [path, message] of nodeGroupClusterProblems(c.nodeGroups, { name: c.clusterName, version: c.cluster.version })) {
            ctx.addIssue({ code: "custom", path: ["nodeGroups", ...path], message });
        }
        for (const issue of [...karpenterCrossSectionProblems(c), ...computeCrossSectionProblems(c), ...workloadCapacityProblems(c)]) {
            ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
        }
    })
    .transform((c) => ({
        ...c,
        // A private API endpoint usually means a VPC that should not depend on NAT for AWS APIs.
        network: {
            ...c.network,
            interfaceEndpoints: {
                enabled: c.network.interfaceEndpoints.enabled ?? !c.cluster.endpoint.publicAccess,
                services: c.network.interfaceEndpoints.services,
            },
        },
        // Defaults applied here, once: a namespace without its own levels takes the stack's, and
        // warn/audit default to the enforce level.
        namespaces: Object.fromEntries(
            Object.entries(c.namespaces).map(([name, ns]): [string, NamespaceConfig] => {
                const psa = ns.podSecurity ?? c.podSecurity;
                return [
                    name,
                    { ...ns, podSecurity: { enforce: psa.enforce, warn: psa.warn ?? psa.enforce, audit: psa.audit ?? psa.enforce } },
                ];
            }),
        ),
    }));

export type StackConfig = z.output<typeof stackConfigSchema> & {
    /** The stack name (`dev`, `prod`, …). */
    readonly stack: string;
    /** The AWS region from `aws:region`. */
    readonly region: string;
};

/** A stack config that failed validation; `problems` holds one line per bad key. */
export class ConfigError extends Error {
    constructor(
        readonly stack: string,
        readonly problems: string[],
    ) {
        super(problemList(`Invalid config for stack "${stack}"`, problems));
        this.name = "ConfigError";
    }
}

function keyPath(path: readonly PropertyKey[]): string {
    const [head, ...rest] = path.map(String);
    const tail = rest.map((p) => (/^\d+$/.test(p) ? `[${p}]` : /^[A-Za-z0-9_]+$/.test(p) ? `.${p}` : `["${p}"]`)).join("");
    return `${PROJECT}:${head ?? ""}${tail}`;
}

function formatIssue(issue: z.core.$ZodIssue): string[] {
    if (issue.code === "unrecognized_keys") {
        return issue.keys.map((k) => `${keyPath([...issue.path, k])}: unknown key (check its spelling against Pulumi.yaml)`);
    }
    if (issue.code === "invalid_key") {
        return [`${keyPath(issue.path)}: ${issue.issues.map(describeIssue).join("; ")}`];
    }
    return [`${keyPath(issue.path)}: ${describeIssue(issue)}`];
}

/**
 * Validates raw config values (keys without the project prefix, values already decoded from
 * YAML/JSON) and applies every default. Throws one `ConfigError` listing every problem.
 */
export function parseStackConfig(
    values: Record<string, unknown>,
    context: { stack: string; region?: string; problems?: string[] },
): StackConfig {
    const problems: string[] = [...(context.problems ?? [])];
    if (!context.region) {
        problems.push("aws:region: is required (e.g. `pulumi config set aws:region us-east-1`)");
    }
    // zod 4 leaves the offending value out of its issues unless asked: the messages quote it.
    // `jitless`: the config is parsed once per run, and generating zod's compiled fast path for
    // every object schema first costs more than it saves (prod: 19 ms with it, 8 ms without, on 2
    // cores; same result, zod 4.6.7).
    const result = stackConfigSchema.safeParse(values, { reportInput: true, jitless: true });
    if (!result.success) {
        problems.push(...result.error.issues.flatMap(formatIssue));
    } else if (context.region) {
        result.data.network.availabilityZones.forEach((az, i) => {
            if (!az.startsWith(context.region as string) || az.length !== (context.region as string).length + 1) {
                problems.push(`${keyPath(["network", "availabilityZones", i])}: "${az}" is not a zone of ${context.region}`);
            }
        });
    }
    if (problems.length > 0 || !result.success) {
        throw new ConfigError(context.stack, problems);
    }
    return { ...result.data, stack: context.stack, region: context.region as string };
}

/** Decodes one raw Pulumi config string: structured values arrive as JSON. */
function decode(raw: string): unknown {
    const trimmed = raw.trim();
    if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
        try {
            return JSON.parse(trimmed);
        } catch {
            return raw;
        }
    }
    return raw;
}

/**
 * Config namespaces a stack file may hold besides the project's: the providers this program
 * uses and Pulumi's own. A key in any other namespace is most likely a misspelt project key
 * (`eks-platfrom:karpenter` would otherwise be ignored and Karpenter silently left out).
 */
export const OTHER_CONFIG_NAMESPACES = ["aws", "eks", "kubernetes", "pulumi"];

/**
 * Validates config as the CLI hands it to a program (`ns:key` → string, structured values as
 * JSON): this project's keys and `aws:region`; keys in an unknown namespace are problems too.
 */
export function parseRawConfig(all: Record<string, string>, stack: string): StackConfig {
    const values: Record<string, unknown> = {};
    const problems: string[] = [];
    for (const [key, raw] of Object.entries(all)) {
        const namespace = key.includes(":") ? key.slice(0, key.indexOf(":")) : "";
        if (namespace === PROJECT) {
            values[key.slice(PROJECT.length + 1)] = decode(raw);
        } else if (!OTHER_CONFIG_NAMESPACES.includes(namespace)) {
            problems.push(
                `${key}: unknown config namespace "${namespace}": this program reads ${PROJECT}:* and ${OTHER_CONFIG_NAMESPACES.map((n) => `${n}:*`).join(", ")} (check the spelling; a provider added to the program adds its namespace to OTHER_CONFIG_NAMESPACES in components/config/index.ts)`,
            );
        }
    }
    return parseStackConfig(values, { stack, region: all["aws:region"], problems });
}

/** Reads and validates the running stack's config. */
export function loadStackConfig(): StackConfig {
    return parseRawConfig(pulumi.runtime.allConfig(), pulumi.getStack());
}
