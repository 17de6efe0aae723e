/**
 * A synthetic manifest corpus for the bench: each workload a Deployment, a Service and a PDB,
 * every ten workloads sharing a namespace with ResourceQuota, LimitRange and a default-deny
 * NetworkPolicy — all drain-safe, so the gate measures its common path (no violations).
 */
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";

/** A drain-safe workload: what the pack should pass, so the bench measures the common path. */
function workload(ns: string, i: number): object[] {
    const name = `app-${i}`;
    const labels = { "app.kubernetes.io/name": name };
    return [
        {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name, namespace: ns, labels },
            spec: {
                replicas: 3,
                selector: { matchLabels: labels },
                template: {
                    metadata: { labels },
                    spec: {
                        terminationGracePeriodSeconds: 45,
                        containers: [
                            {
                                name: "app",
                                image: "nginx:1.27.5",
                                ports: [{ name: "http", containerPort: 80 }],
                                resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
                                readinessProbe: { httpGet: { path: "/", port: "http" } },
                                lifecycle: { preStop: { exec: { command: ["/bin/sh", "-c", "sleep 5"] } } },
                            },
                        ],
                    },
                },
            },
        },
        {
            apiVersion: "v1",
            kind: "Service",
            metadata: { name, namespace: ns },
            spec: { selector: labels, ports: [{ name: "http", port: 80, targetPort: "http" }] },
        },
        {
            apiVersion: "policy/v1",
            kind: "PodDisruptionBudget",
            metadata: { name, namespace: ns },
            spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
        },
    ];
}

function namespaceObjects(ns: string): object[] {
    return [
        {
            apiVersion: "v1",
            kind: "Namespace",
            metadata: {
                name: ns,
                labels: { "pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.34" },
            },
        },
        {
            apiVersion: "networking.k8s.io/v1",
            kind: "NetworkPolicy",
            metadata: { name: "default-deny-ingress", namespace: ns },
            spec: { podSelector: {}, policyTypes: ["Ingress"] },
        },
        {
            apiVersion: "v1",
            kind: "ResourceQuota",
            metadata: { name: "compute", namespace: ns },
            spec: { hard: { "requests.cpu": "8", "requests.memory": "16Gi", "limits.cpu": "16", "limits.memory": "32Gi", pods: "50" } },
        },
        {
            apiVersion: "v1",
            kind: "LimitRange",
            metadata: { name: "container-defaults", namespace: ns },
            spec: {
                limits: [
                    { type: "Container", default: { cpu: "500m", memory: "512Mi" }, defaultRequest: { cpu: "100m", memory: "128Mi" } },
                ],
            },
        },
    ];
}

/** Writes `workloads` workloads, ten per namespace and file, under `dir`. */
export function generateCorpus(dir: string, workloads: number): void {
    fs.mkdirSync(dir, { recursive: true });
    for (let n = 0; n * 10 < workloads; n++) {
        const ns = `team-${n}`;
        const docs = [...namespaceObjects(ns)];
        for (let i = n * 10; i < Math.min(workloads, n * 10 + 10); i++) {
            docs.push(...workload(ns, i));
        }
        fs.writeFileSync(path.join(dir, `${ns}.yaml`), docs.map((d) => YAML.stringify(d)).join("---\n"));
    }
}

/** What `writeManifestFile` wrote. */
export interface ManifestFile {
    file: string;
    bytes: number;
    namespaces: number;
    workloads: number;
    objects: number;
    /** The workloads planted to fail the gate, one mandatory verdict each (`PLANTED_POLICY`). */
    violating: string[];
}

/** The policy a planted workload fails, once: prod's `workload-termination-grace` (min 30 s). */
export const PLANTED_POLICY = "workload-termination-grace";

/**
 * One YAML file of at least `bytes` bytes holding the corpus' namespaces and workloads (ten per
 * namespace, each drain-safe), of which `violations` workloads, spread evenly over the file, have
 * a termination grace period of 10 s: one mandatory `workload-termination-grace` verdict each in
 * prod, and nothing else. The objects are stringified once and renamed, so 50 MB takes seconds.
 */
export function writeManifestFile(file: string, bytes: number, violations: number): ManifestFile {
    const nsText = namespaceObjects("NS")
        .map((d) => YAML.stringify(d))
        .join("---\n");
    const appText = workload("NS", 0)
        .map((d) => YAML.stringify(d))
        .join("---\n");
    const perNamespace = nsText.length + 10 * (appText.length + 8) + 8;
    const namespaces = Math.max(1, Math.ceil(bytes / perNamespace));
    const workloads = namespaces * 10;
    if (violations > workloads) {
        throw new Error(`${violations} violations asked of ${workloads} workloads`);
    }
    // Workload indices that violate: evenly spread, the first and the last included when there are two or more.
    const planted = new Set<number>();
    for (let k = 0; k < violations; k++) {
        planted.add(violations === 1 ? 0 : Math.round((k * (workloads - 1)) / (violations - 1)));
    }
    const violating: string[] = [];
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const fd = fs.openSync(file, "w");
    let written = 0;
    try {
        const chunks: string[] = [];
        const flush = () => {
            const text = chunks.join("");
            chunks.length = 0;
            written += fs.writeSync(fd, text);
        };
        for (let n = 0; n < namespaces; n++) {
            const ns = `team-${n}`;
            chunks.push(n === 0 ? "" : "---\n", nsText.replace(/\bNS\b/g, ns));
            for (let i = n * 10; i < n * 10 + 10; i++) {
                let text = appText.replace(/\bNS\b/g, ns).replace(/\bapp-0\b/g, `app-${i}`);
                if (planted.has(i)) {
                    text = text.replace("terminationGracePeriodSeconds: 45", "terminationGracePeriodSeconds: 10");
                    violating.push(`${ns}/app-${i}`);
                }
                chunks.push("---\n", text);
            }
            if (chunks.length > 2000) {
                flush();
            }
        }
        flush();
    } finally {
        fs.closeSync(fd);
    }
    return { file, bytes: written, namespaces, workloads, objects: namespaces * 4 + workloads * 3, violating };
}

/** The name of the `i`-th onboarded namespace of `namespacesConfigYaml`. */
export const onboardedNamespace = (i: number) => `team-${String(i).padStart(4, "0")}`;

/**
 * `count` namespaces as a stack file's `eks-platform:namespaces` entries (indented for that map):
 * each with its quota, container defaults, an editor role of its own and the cluster's ingress
 * namespace allowed in, the shape of the sample stacks' `dev` namespace.
 */
export function namespacesConfigYaml(count: number, account = "123456789012"): string {
    const lines: string[] = [];
    for (let i = 0; i < count; i++) {
        const ns = onboardedNamespace(i);
        lines.push(
            `    ${ns}:`,
            `      quota: { requestsCpu: "4", requestsMemory: 8Gi, limitsCpu: "8", limitsMemory: 16Gi, pods: 20 }`,
            `      containerDefaults: { request: { cpu: 100m, memory: 128Mi }, limit: { cpu: 500m, memory: 512Mi } }`,
            `      editors: [arn:aws:iam::${account}:role/${ns}]`,
            `      network: { allowFrom: [ingress] }`,
        );
    }
    return `${lines.join("\n")}\n`;
}

/** A stack file's text with `count` more namespaces onboarded (`namespacesConfigYaml`) under its `eks-platform:namespaces`. */
export function onboardNamespaces(stackFile: string, count: number): string {
    const key = "  eks-platform:namespaces:\n";
    if (!stackFile.includes(key)) {
        throw new Error("the stack file has no eks-platform:namespaces map to add to");
    }
    return stackFile.replace(key, `${key}${namespacesConfigYaml(count)}`);
}
