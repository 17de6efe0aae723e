/** `cluster` in stack config: the EKS control plane, its endpoint and the route `pulumi up` takes to it. */
import { addonKubernetesMinor, ALL_IPV4, Cidr, coveredAddresses, formatCidr, overlaps, parseCidr } from "eks-platform-kernel";
import { z } from "zod";
import { cidr, logRetentionDays } from "./schema";

/** An EC2 security group id, e.g. `sg-0123456789abcdef0`. */
const securityGroupId = z.string().regex(/^sg-([0-9a-f]{8}|[0-9a-f]{17})$/, {
    message: "must be a security group id such as sg-0123456789abcdef0",
});

const ENDPOINT_DEFAULTS = {
    publicAccess: false,
    publicAccessCidrs: [],
    privateAccessCidrs: [],
    privateAccessSecurityGroupIds: [],
    githubHostedRunners: false,
};

/**
 * Why `pulumi up` could not reach the API server of this endpoint, or `undefined` if it has a
 * route: a public endpoint limited to named CIDRs, or networks or security groups admitted to the
 * private endpoint. Pure.
 */
export function endpointRouteProblem(endpoint: {
    publicAccess: boolean;
    privateAccessCidrs: string[];
    privateAccessSecurityGroupIds: string[];
}): string | undefined {
    if (endpoint.publicAccess || endpoint.privateAccessCidrs.length > 0 || endpoint.privateAccessSecurityGroupIds.length > 0) {
        return undefined;
    }
    return (
        "is private-only and admits nothing but the cluster's own nodes: `pulumi up` creates Kubernetes resources from " +
        "wherever it runs and would fail on every one of them after the control plane exists. Give the deployer a route: " +
        "privateAccessCidrs (a tooling VPC peered or behind a Transit Gateway, a VPN) or privateAccessSecurityGroupIds " +
        "(a self-hosted runner's security group), and run CI there; or set publicAccess: true with publicAccessCidrs " +
        "that include the runner's egress addresses"
    );
}

/**
 * The broadest block `privateAccessCidrs` may admit: a /8. The entries are the deployer's networks
 * (a tooling VPC, a VPN), and the largest private range there is, RFC 1918's 10.0.0.0/8, is a /8:
 * a broader block always holds public address space (`128.0.0.0/1` is half the internet), which the
 * control plane's security group would admit on 443 and the stack would route to the Transit
 * Gateway from every route table.
 */
export const PRIVATE_ACCESS_MIN_PREFIX = 8;

/** Link-local addresses (RFC 3927): instance metadata and the Amazon DNS resolver answer there. */
const LINK_LOCAL = parseCidr("169.254.0.0/16") as Cidr;

/**
 * What is wrong with each entry of `privateAccessCidrs`, by index: `0.0.0.0/0`, a block broader
 * than `PRIVATE_ACCESS_MIN_PREFIX` (named for that alone), link-local addresses, an overlap with
 * the cluster's service CIDR, or the same block listed twice. Entries that are not CIDRs are the schema's to name. Pure.
 */
export function privateAccessCidrProblems(cidrs: readonly string[], serviceCidr: string): [number, string][] {
    const services = parseCidr(serviceCidr);
    const seen = new Map<string, number>();
    const problems: [number, string][] = [];
    cidrs.forEach((block, i) => {
        const parsed = parseCidr(block);
        if (parsed === undefined) {
            return;
        }
        if (parsed.prefix === 0) {
            problems.push([i, "admits every connected network to the API server; list the deployer's networks"]);
        } else if (parsed.prefix < PRIVATE_ACCESS_MIN_PREFIX) {
            problems.push([
                i,
                `${block} is broader than a /${PRIVATE_ACCESS_MIN_PREFIX}, the largest private range (RFC 1918's 10.0.0.0/8): it holds public address space, which the API server's security group would admit on 443 and every route table would send to the Transit Gateway; list the deployer's networks, each a /${PRIVATE_ACCESS_MIN_PREFIX} or narrower`,
            ]);
        }
        // A block refused for its size is named for that alone: narrowing it is the fix, and what it overlaps then changes.
        if (parsed.prefix >= PRIVATE_ACCESS_MIN_PREFIX && overlaps(parsed, LINK_LOCAL)) {
            problems.push([
                i,
                `${block} holds link-local addresses (169.254.0.0/16), which are never routed beyond their own link (instance metadata and the Amazon DNS resolver answer there): no deployer connects from them; list the deployer's routed networks`,
            ]);
        }
        if (parsed.prefix >= PRIVATE_ACCESS_MIN_PREFIX && services && overlaps(parsed, services)) {
            problems.push([
                i,
                `${block} overlaps the service CIDR ${serviceCidr}: those are the cluster's Service addresses, which kube-proxy on every node rewrites to pods, so nodes and pods never reach the deployer's network there (EKS asks for a service CIDR that overlaps no connected network); list the deployer's networks outside it, or move serviceCidr`,
            ]);
        }
        const key = formatCidr(parsed);
        const first = seen.get(key);
        if (first !== undefined) {
            problems.push([i, `${block} is listed twice (also at [${first}]); list each network once`]);
        } else {
            seen.set(key, i);
        }
    });
    return problems;
}

const LOG_TYPES = ["api", "audit", "authenticator", "controllerManager", "scheduler"] as const;

/** An EKS add-on version as `aws eks describe-addon-versions` prints it, e.g. `v1.20.4-eksbuild.1`. */
export const addonVersion = z.string().regex(/^v\d+\.\d+\.\d+-eksbuild\.\d+$/, {
    message: "must be a pinned add-on version such as v1.20.4-eksbuild.1 (see `aws eks describe-addon-versions`)",
});

/** `cluster` in stack config: the EKS control plane. */
export const clusterSchema = z
    .strictObject({
        /** Kubernetes minor version of the control plane, pinned, e.g. `1.34`. */
        version: z.string().regex(/^1\.\d{2}$/, { message: "must be a Kubernetes minor version such as 1.34" }),
        /**
         * What EKS does when `version` leaves standard support (the cluster's upgrade policy), chosen
         * per stack on purpose, no default: `STANDARD` upgrades the control plane to the next minor
         * on its own at the end of standard support (nodes and add-ons stay behind); `EXTENDED`
         * keeps the version for up to 12 more months, billed as extended support.
         */
        supportType: z.enum(["STANDARD", "EXTENDED"], {
            message:
                "choose STANDARD (EKS upgrades the control plane itself at the end of standard support) or EXTENDED (the version stays, billed as extended support); see docs/changes.md#kubernetes-upgrades",
        }),
        /**
         * API server endpoint exposure, and the route the identity running `pulumi up` takes to it:
         * the Kubernetes resources of this program are created from wherever `pulumi up` runs.
         */
        endpoint: z
            .strictObject({
                /** Expose the API server publicly. Defaults to `false`. */
                publicAccess: z.boolean().default(false),
                /** CIDRs allowed to reach the public endpoint; required when `publicAccess` is true. Defaults to `[]`. */
                publicAccessCidrs: z.array(cidr).default([]),
                /**
                 * Networks admitted on 443 to the private endpoint (ingress on the control-plane
                 * security group): a tooling VPC peered or behind a Transit Gateway, a VPN. Defaults to `[]`.
                 */
                privateAccessCidrs: z.array(cidr).default([]),
                /**
                 * Security groups admitted on 443 to the private endpoint, e.g. a self-hosted runner's
                 * group in a peered VPC of the same region. Defaults to `[]`.
                 */
                privateAccessSecurityGroupIds: z.array(securityGroupId).default([]),
                /**
                 * GitHub-hosted runners reach this endpoint (larger runners whose static egress
                 * ranges are in `publicAccessCidrs`): only then may CI fall back to a GitHub-hosted
                 * runner when no runner variable is set. Needs `publicAccess`. Defaults to `false`.
                 */
                githubHostedRunners: z.boolean().default(false),
            })
            .default(ENDPOINT_DEFAULTS),
        /** Control-plane log types sent to CloudWatch. Defaults to all five. */
        logTypes: z.array(z.enum(LOG_TYPES)).default([...LOG_TYPES]),
        /** Retention of the control-plane log group, in days CloudWatch accepts. Defaults to `90`. */
        logRetentionDays: logRetentionDays.default(90),
        /** Service (ClusterIP) CIDR; must not overlap the VPC. Defaults to `172.20.0.0/16`. */
        serviceCidr: cidr.default("172.20.0.0/16"),
        /** Pinned versions of the EKS managed add-ons. */
        addons: z.strictObject({
            vpcCni: addonVersion,
            coreDns: addonVersion,
            kubeProxy: addonVersion,
            podIdentityAgent: addonVersion,
        }),
        /**
         * Guard the control plane and its secrets key against deletion: `protect` on the cluster and
         * the KMS key, and EKS deletion protection. Defaults to `false`.
         */
        protect: z.boolean().default(false),
    })
    .superRefine((c, ctx) => {
        const noRoute = endpointRouteProblem(c.endpoint);
        if (noRoute) {
            ctx.addIssue({ code: "custom", path: ["endpoint"], message: noRoute });
        }
        if (c.endpoint.publicAccess && c.endpoint.publicAccessCidrs.length === 0) {
            ctx.addIssue({
                code: "custom",
                path: ["endpoint", "publicAccessCidrs"],
                message: "is empty while publicAccess is true: list the CIDRs allowed to reach the API server",
            });
        }
        c.endpoint.publicAccessCidrs.forEach((block, i) => {
            if (parseCidr(block)?.prefix === 0) {
                ctx.addIssue({
                    code: "custom",
                    path: ["endpoint", "publicAccessCidrs", i],
                    message: "opens the API server to the whole internet; list the CIDRs that need it",
                });
            }
        });
        for (const [i, message] of privateAccessCidrProblems(c.endpoint.privateAccessCidrs, c.serviceCidr)) {
            ctx.addIssue({ code: "custom", path: ["endpoint", "privateAccessCidrs", i], message });
        }
        // EKS offers each kube-proxy build for one Kubernetes minor only: v1.34.x for a 1.34 cluster.
        const proxyMinor = addonKubernetesMinor(c.addons.kubeProxy);
        if (proxyMinor !== undefined && proxyMinor !== c.version) {
            ctx.addIssue({
                code: "custom",
                path: ["addons", "kubeProxy"],
                message: `${c.addons.kubeProxy} is kube-proxy ${proxyMinor} but the cluster runs ${c.version}: EKS refuses it; pin the ${c.version} build (aws eks describe-addon-versions --addon-name kube-proxy --kubernetes-version ${c.version})`,
            });
        }
        const problem = publicCidrsProblem(c.endpoint.publicAccessCidrs);
        if (problem) {
            ctx.addIssue({ code: "custom", path: ["endpoint", "publicAccessCidrs"], message: problem });
        }
        if (!c.endpoint.publicAccess && c.endpoint.publicAccessCidrs.length > 0) {
            ctx.addIssue({
                code: "custom",
                path: ["endpoint", "publicAccessCidrs"],
                message: "is set while publicAccess is false; remove it or enable publicAccess",
            });
        }
        // GitHub's hosted runners are outside every network a private endpoint admits: the larger
        // runners' static egress ranges, listed in publicAccessCidrs, are their only way in.
        if (c.endpoint.githubHostedRunners && !c.endpoint.publicAccess) {
            ctx.addIssue({
                code: "custom",
                path: ["endpoint", "githubHostedRunners"],
                message:
                    "is true while publicAccess is false: GitHub's hosted runners reach the API server only through the public " +
                    "endpoint, from the static egress ranges of larger runners listed in publicAccessCidrs; enable publicAccess " +
                    "with those ranges, or set githubHostedRunners: false and point RUNNER_<STACK> at a runner with a private route",
            });
        }
    });

export type ClusterConfig = z.output<typeof clusterSchema>;

/**
 * What is wrong with the public endpoint's CIDRs taken together (each one alone is checked
 * above): blocks that add up to every address open the API server to the internet as surely as
 * `0.0.0.0/0` does. The pack's cluster-hardening also bounds how much they may cover.
 */
function publicCidrsProblem(cidrs: readonly string[]): string | undefined {
    const blocks = cidrs.map(parseCidr).filter((b): b is Cidr => b !== undefined);
    if (blocks.length > 1 && blocks.every((b) => b.prefix > 0) && coveredAddresses(blocks) === ALL_IPV4) {
        return "together cover the whole internet (0.0.0.0/0); list the CIDRs that need the API server";
    }
    return undefined;
}
