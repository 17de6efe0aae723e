import * as k8s from "@pulumi/kubernetes";
import { expect } from "chai";
import type { NamespaceConfig } from "../../components/config";
import { containerLimitRange, Namespaces, networkPolicies, podSecurityLabels, quotaHard } from "../../components/namespaces";
import { RecordingMocks } from "../../tools/render/offline";
import { named, ofType, settled, useMocks } from "../mocks";

const team: NamespaceConfig = {
    labels: { team: "payments" },
    quota: { requestsCpu: "4", requestsMemory: "8Gi", limitsCpu: "8", limitsMemory: "16Gi", pods: 10 },
    containerDefaults: { request: { cpu: "100m", memory: "128Mi" }, limit: { cpu: "500m", memory: "512Mi" } },
    editors: [],
    viewers: [],
    serviceAccounts: {},
    podSecurity: { enforce: "baseline", warn: "restricted", audit: "restricted" },
    network: { allowFrom: ["ingress"], egress: "open" },
    readinessGates: true,
};

describe("Namespaces component", () => {
    let mocks: RecordingMocks;
    before(async () => {
        mocks = await useMocks("up");
        const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
        new Namespaces("ns", {
            namespaces: {
                payments: team,
                search: { ...team, labels: {}, network: { allowFrom: [], egress: "restricted" }, readinessGates: false },
            },
            kubernetesVersion: "1.34",
            provider,
        });
        await settled();
    });

    it("maps quota config onto ResourceQuota keys", () => {
        expect(quotaHard(team.quota)).to.deep.equal({
            "requests.cpu": "4",
            "requests.memory": "8Gi",
            "limits.cpu": "8",
            "limits.memory": "16Gi",
            pods: "10",
        });
        expect(containerLimitRange(team.containerDefaults)).to.deep.equal({
            type: "Container",
            defaultRequest: { cpu: "100m", memory: "128Mi" },
            default: { cpu: "500m", memory: "512Mi" },
        });
    });

    it("creates each namespace with its static name and labels, retained when removed from config", () => {
        const namespaces = ofType(mocks.resources, "kubernetes:core/v1:Namespace");
        expect(namespaces.map((n) => (n.props.metadata as { name: string }).name)).to.have.members(["payments", "search"]);
        const payments = named(mocks.resources, "kubernetes:core/v1:Namespace", "ns-payments");
        expect((payments.props.metadata as { labels: Record<string, string> }).labels).to.include({ team: "payments" });
        for (const n of namespaces) {
            expect(n.options.retainOnDelete, n.name).to.equal(true);
        }
    });

    it("turns on the load balancer controller's target-health readiness gates per namespace (aws-load-balancer-controller v2.13.3 pod webhook: elbv2.k8s.aws/pod-readiness-gate-inject: enabled), unless opted out", () => {
        const labels = (ns: string) =>
            (named(mocks.resources, "kubernetes:core/v1:Namespace", `ns-${ns}`).props.metadata as { labels: Record<string, string> })
                .labels;
        expect(labels("payments")["elbv2.k8s.aws/pod-readiness-gate-inject"]).to.equal("enabled");
        expect(labels("search")).to.not.have.property("elbv2.k8s.aws/pod-readiness-gate-inject");
    });

    it("retains every guard with its namespace, so workloads left behind by a removal stay guarded", () => {
        const guards = mocks.resources.filter(
            (r) =>
                [
                    "kubernetes:core/v1:ResourceQuota",
                    "kubernetes:core/v1:LimitRange",
                    "kubernetes:networking.k8s.io/v1:NetworkPolicy",
                ].includes(r.type) && r.options.parent === "ns",
        );
        const namespaces = ofType(mocks.resources, "kubernetes:core/v1:Namespace").map((n) => (n.props.metadata as { name: string }).name);
        for (const ns of namespaces) {
            const kinds = new Set(guards.filter((g) => (g.props.metadata as { namespace: string }).namespace === ns).map((g) => g.type));
            expect(kinds.size, ns).to.equal(3);
        }
        for (const g of guards) {
            expect(g.options.retainOnDelete, g.name).to.equal(true);
        }
    });

    it("gives every namespace a quota and a LimitRange inside it, after it exists", () => {
        for (const ns of ["payments", "search"]) {
            const quota = named(mocks.resources, "kubernetes:core/v1:ResourceQuota", `ns-${ns}-quota`);
            expect(quota.props.metadata).to.include({ namespace: ns });
            expect((quota.props.spec as { hard: Record<string, string> }).hard).to.deep.equal(quotaHard(team.quota));
            expect(quota.options.dependsOn).to.deep.equal([`ns-${ns}`]);
            const limits = named(mocks.resources, "kubernetes:core/v1:LimitRange", `ns-${ns}-defaults`);
            expect(limits.props.metadata).to.include({ namespace: ns });
            expect(limits.options.dependsOn).to.deep.equal([`ns-${ns}`]);
        }
    });

    it("labels every namespace with its Pod Security levels, pinned to the cluster version", () => {
        for (const n of ofType(mocks.resources, "kubernetes:core/v1:Namespace")) {
            expect((n.props.metadata as { labels: Record<string, string> }).labels, n.name).to.include({
                "pod-security.kubernetes.io/enforce": "baseline",
                "pod-security.kubernetes.io/enforce-version": "v1.34",
                "pod-security.kubernetes.io/warn": "restricted",
                "pod-security.kubernetes.io/audit": "restricted",
            });
        }
        expect(podSecurityLabels({ enforce: "restricted", warn: "restricted", audit: "baseline" }, "1.33")).to.deep.equal({
            "pod-security.kubernetes.io/enforce": "restricted",
            "pod-security.kubernetes.io/enforce-version": "v1.33",
            "pod-security.kubernetes.io/warn": "restricted",
            "pod-security.kubernetes.io/warn-version": "v1.33",
            "pod-security.kubernetes.io/audit": "baseline",
            "pod-security.kubernetes.io/audit-version": "v1.33",
        });
    });

    it("denies all ingress by default and allows the namespace itself and the namespaces it opens to", () => {
        const names = (ns: string) =>
            ofType(mocks.resources, "kubernetes:networking.k8s.io/v1:NetworkPolicy")
                .filter((p) => (p.props.metadata as { namespace: string }).namespace === ns)
                .map((p) => (p.props.metadata as { name: string }).name);
        expect(names("payments")).to.have.members(["default-deny", "allow-same-namespace", "allow-from-ingress"]);
        const deny = named(mocks.resources, "kubernetes:networking.k8s.io/v1:NetworkPolicy", "ns-payments-default-deny");
        expect(deny.props.spec).to.deep.equal({ podSelector: {}, policyTypes: ["Ingress"] });
        const fromIngress = named(mocks.resources, "kubernetes:networking.k8s.io/v1:NetworkPolicy", "ns-payments-allow-from-ingress");
        expect(fromIngress.props.spec).to.deep.nested.include({
            "ingress[0].from[0].namespaceSelector.matchLabels": { "kubernetes.io/metadata.name": "ingress" },
        });
        expect(names("search")).to.have.members(["default-deny", "allow-same-namespace", "allow-dns", "allow-same-namespace-egress"]);
    });

    it("restricts egress to DNS and the namespace itself only when asked to", () => {
        const open = networkPolicies({ allowFrom: [], egress: "open" });
        expect(open.flatMap((p) => p.spec.policyTypes as string[])).to.not.include("Egress");
        const restricted = networkPolicies({ allowFrom: [], egress: "restricted" });
        expect(restricted.find((p) => p.name === "default-deny")?.spec.policyTypes).to.deep.equal(["Ingress", "Egress"]);
        const dns = restricted.find((p) => p.name === "allow-dns")!.spec;
        expect(dns.egress).to.deep.equal([
            {
                to: [
                    {
                        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } },
                        podSelector: { matchLabels: { "k8s-app": "kube-dns" } },
                    },
                ],
                ports: [
                    { protocol: "UDP", port: 53 },
                    { protocol: "TCP", port: 53 },
                ],
            },
        ]);
    });
});
