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
