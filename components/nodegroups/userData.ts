/**
 * User data of self-managed nodes, rendered by pure functions. Managed node groups never use
 * these: EKS merges its own bootstrap into their launch template, and a second one breaks the join.
 */
import * as YAML from "yaml";
import { parseCidr, type Taint } from "eks-platform-kernel";

/** What a node needs to find and trust its cluster, and how its kubelet registers. */
export interface NodeBootstrap {
    clusterName: string;
    /** API server URL, `https://…`. */
    endpoint: string;
    /** Base64 PEM of the cluster CA, as EKS returns it. */
    certificateAuthority: string;
    /** The cluster's Service CIDR (nodeadm needs it; AL2 derives the DNS IP from it). */
    serviceCidr: string;
    /** Labels the kubelet registers the node with. Defaults to `{}`. */
    labels?: Record<string, string>;
    /** Taints the kubelet registers the node with. Defaults to `[]`. */
    taints?: Taint[];
    /** kubelet max pods; unset lets the AMI derive it from ENI limits. Defaults to `undefined`. */
    maxPods?: number;
    /** Extra kubelet flags, each `--name[=value]`. Defaults to `[]`. */
    kubeletFlags?: string[];
}

/** The MIME boundary of the nodeadm user data; fixed so the output is reproducible. */
export const MIME_BOUNDARY = "==NODEADM==";

/** `--node-labels=a=1,b=2` (keys sorted so the launch template does not churn), or undefined. Pure. */
export function nodeLabelsFlag(labels: Record<string, string> = {}): string | undefined {
    const keys = Object.keys(labels).sort();
    return keys.length === 0 ? undefined : `--node-labels=${keys.map((k) => `${k}=${labels[k]}`).join(",")}`;
}

/** `--register-with-taints=k=v:NoSchedule,k2:NoExecute`, or undefined. Pure. */
export function registerTaintsFlag(taints: Taint[] = []): string | undefined {
    if (taints.length === 0) {
        return undefined;
    }
    return `--register-with-taints=${taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`).join(",")}`;
}

/** The kubelet flags of a node: labels, taints, then the extra flags in config order. Pure. */
export function kubeletFlags(input: Pick<NodeBootstrap, "labels" | "taints" | "kubeletFlags">): string[] {
    return [nodeLabelsFlag(input.labels), registerTaintsFlag(input.taints), ...(input.kubeletFlags ?? [])].filter(
        (f): f is string => f !== undefined,
    );
}

/** The cluster DNS Service IP: the tenth address of the Service CIDR (EKS's convention). Pure. */
export function clusterDnsIp(serviceCidr: string): string {
    const parsed = parseCidr(serviceCidr);
    if (!parsed) {
        throw new Error(`${serviceCidr} is not an IPv4 CIDR`);
    }
    const ip = parsed.base + 10;
    return [24, 16, 8, 0].map((shift) => (ip >>> shift) & 255).join(".");
}

/** The nodeadm `NodeConfig` object for an AL2023 node. Pure. */
export function nodeConfig(input: NodeBootstrap): Record<string, unknown> {
    const kubelet: Record<string, unknown> = {};
    if (input.maxPods !== undefined) {
        kubelet.config = { maxPods: input.maxPods };
    }
    const flags = kubeletFlags(input);
    if (flags.length > 0) {
        kubelet.flags = flags;
    }
    return {
        apiVersion: "node.eks.aws/v1alpha1",
        kind: "NodeConfig",
        spec: {
            cluster: {
                name: input.clusterName,
                apiServerEndpoint: input.endpoint,
                certificateAuthority: input.certificateAuthority,
                cidr: input.serviceCidr,
            },
            ...(Object.keys(kubelet).length > 0 ? { kubelet } : {}),
        },
    };
}

/**
 * AL2023 user data: one `application/node.eks.aws` part holding the NodeConfig, in MIME
 * multipart (nodeadm ignores plain YAML and shell parts are not how AL2023 joins). Pure.
 */
export function renderNodeadmUserData(input: NodeBootstrap): string {
    return [
        "MIME-Version: 1.0",
        `Content-Type: multipart/mixed; boundary="${MIME_BOUNDARY}"`,
        "",
        `--${MIME_BOUNDARY}`,
        "Content-Type: application/node.eks.aws",
        "",
        "---",
        YAML.stringify(nodeConfig(input), { lineWidth: 0 }).trimEnd(),
        "",
        `--${MIME_BOUNDARY}--`,
        "",
    ].join("\n");
}

/** Quotes a value for a POSIX shell (single quotes; embedded ones escaped). Pure. */
function shellQuote(value: string): string {
    return `'${value.replace(/'/g, `'"'"'`)}'`;
}

/**
 * The `/etc/eks/bootstrap.sh` command line of an AL2 node (older clusters and AL2-based custom
 * AMIs). `--use-max-pods false` stops bootstrap.sh from overriding an explicit `--max-pods`. Pure.
 */
export function bootstrapCommand(input: NodeBootstrap): string {
    const flags = kubeletFlags(input);
    if (input.maxPods !== undefined) {
        flags.push(`--max-pods=${input.maxPods}`);
    }
    const args = [
        "/etc/eks/bootstrap.sh",
        shellQuote(input.clusterName),
        "--apiserver-endpoint",
        shellQuote(input.endpoint),
        "--b64-cluster-ca",
        shellQuote(input.certificateAuthority),
        "--dns-cluster-ip",
        clusterDnsIp(input.serviceCidr),
    ];
    if (input.maxPods !== undefined) {
        args.push("--use-max-pods", "false");
    }
    if (flags.length > 0) {
        args.push("--kubelet-extra-args", shellQuote(flags.join(" ")));
    }
    return args.join(" ");
}

/** AL2 user data: a shell script that runs bootstrap.sh and fails the boot if it fails. Pure. */
export function renderBootstrapUserData(input: NodeBootstrap): string {
    return ["#!/bin/bash", "set -o errexit -o nounset -o pipefail", bootstrapCommand(input), ""].join("\n");
}

/** User data for an AMI family. Pure. */
export function renderUserData(family: "AL2023" | "AL2", input: NodeBootstrap): string {
    return family === "AL2023" ? renderNodeadmUserData(input) : renderBootstrapUserData(input);
}
