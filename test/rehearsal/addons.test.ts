/** The platform's own controllers as rehearsal workloads (rehearsal/addons.ts), read from their releases and add-ons. */
import { expect } from "chai";
import { addonWorkloads } from "eks-platform-rehearsal";
import { UNKNOWN } from "eks-platform-kernel";
import { TestResource, urnOf } from "../policies/harness";
import { app, managed, run } from "./scenario";

function helm(chart: string, values: Record<string, unknown>): TestResource {
    return {
        type: "kubernetes:helm.sh/v3:Release",
        name: `${chart}-release`,
        props: { chart: `oci://public.ecr.aws/x/${chart}`, namespace: "kube-system", values },
    };
}

function eksAddon(addonName: string, configuration?: unknown): TestResource {
    return {
        type: "aws:eks/addon:Addon",
        name: `addons-${addonName}`,
        props: {
            addonName,
            ...(configuration === undefined
                ? {}
                : { configurationValues: typeof configuration === "string" ? configuration : JSON.stringify(configuration) }),
        },
    };
}

const drainable = (rs: TestResource[]) => rs.map((r) => ({ type: r.type, name: r.name, urn: urnOf(r), props: r.props }));
const byKind = (rs: { type: string; props: Record<string, unknown> }[], kind: string) =>
    rs.filter((r) => r.type.endsWith(`:${kind}`)).map((r) => r.props as Record<string, any>);

describe("rehearsal add-on workloads: the stack's own controllers", () => {
    it("Karpenter's chart defaults apply where the values say nothing: 2 replicas, one per host, zone spread, a budget of maxUnavailable 1 (karpenter v1.14.1 values.yaml)", () => {
        const { resources, modelled } = addonWorkloads(
            drainable([helm("karpenter", { controller: { resources: { requests: { cpu: "1", memory: "1Gi" } } } })]),
        );
        const [deployment] = byKind(resources, "Deployment");
        expect(deployment.spec.replicas).to.equal(2);
        const pod = deployment.spec.template.spec;
        expect(pod.tolerations).to.deep.equal([{ key: "CriticalAddonsOnly", operator: "Exists" }]);
        // The chart fills the pod's own labels into selector-less terms.
        expect(pod.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector).to.deep.equal({
            matchLabels: deployment.spec.template.metadata.labels,
        });
        expect(pod.topologySpreadConstraints[0]).to.include({
            topologyKey: "topology.kubernetes.io/zone",
            whenUnsatisfiable: "DoNotSchedule",
        });
        expect(byKind(resources, "PodDisruptionBudget")[0].spec.maxUnavailable).to.equal(1);
        expect([...modelled]).to.deep.equal(["karpenter-release"]);
    });

    it("values override the defaults: replicas, nodeSelector and the budget as written", () => {
        const { resources } = addonWorkloads(
            drainable([
                helm("karpenter", { replicas: 3, nodeSelector: { "platform/role": "system" }, podDisruptionBudget: { minAvailable: 2 } }),
            ]),
        );
        const [deployment] = byKind(resources, "Deployment");
        expect(deployment.spec.replicas).to.equal(3);
        expect(deployment.spec.template.spec.nodeSelector).to.deep.equal({ "platform/role": "system" });
        expect(byKind(resources, "PodDisruptionBudget")[0].spec).to.include({ minAvailable: 2 });
    });

    it("the EBS CSI controller's budget follows the chart: maxUnavailable 1 up to 2 replicas, minAvailable 2 above, none when disabled", () => {
        const pdbOf = (controller: Record<string, unknown>) =>
            byKind(addonWorkloads(drainable([eksAddon("aws-ebs-csi-driver", { controller })])).resources, "PodDisruptionBudget")[0]?.spec;
        expect(pdbOf({ replicaCount: 2 })).to.include({ maxUnavailable: 1 });
        expect(pdbOf({ replicaCount: 3 })).to.include({ minAvailable: 2 });
        expect(pdbOf({ replicaCount: 2, podDisruptionBudget: { enabled: false } })).to.equal(undefined);
    });

    it("the load balancer controller's chart renders no budget for a single replica", () => {
        const { resources } = addonWorkloads(
            drainable([helm("aws-load-balancer-controller", { replicaCount: 1, podDisruptionBudget: { maxUnavailable: 1 } })]),
        );
        expect(byKind(resources, "PodDisruptionBudget")).to.deep.equal([]);
        expect(byKind(resources, "Deployment")[0].spec.replicas).to.equal(1);
    });

    it("an add-on whose configuration is unknown until apply is said, not rehearsed; an unrelated release is left alone", () => {
        const out = addonWorkloads(drainable([eksAddon("coredns", UNKNOWN), helm("something-else", {})]));
        expect(out.resources).to.deep.equal([]);
        expect(out.notes.join("\n")).to.match(/the pods of coredns \(addons-coredns\): its values cannot be read/);
    });

    it("the system group's verdict covers them: a single CoreDNS replica reaches zero ready replicas, reported on the add-on", () => {
        const coredns = eksAddon("coredns", { replicaCount: 1 });
        const r = run([managed("system", 2, { zones: 1 }), coredns]);
        const problem = r.problems.find((p) => /Deployment kube-system\/coredns reaches zero ready replicas/.test(p.message));
        expect(problem?.urn).to.equal(urnOf(coredns));
        expect(r.notModelled.join("\n")).to.not.match(/the pods of EKS add-on coredns/);
        const two = run([
            managed("system", 2, { zones: 1 }),
            eksAddon("coredns", { replicaCount: 2, podDisruptionBudget: { enabled: true, maxUnavailable: 1 } }),
        ]);
        expect(two.problems.map((p) => p.message)).to.deep.equal([]);
        expect(two.groups[0].waves.some((w) => w.evictions > 0)).to.equal(true);
    });

    it("node agents are DaemonSets on every node, tolerating every taint, with their charts' requests (vpc-cni 25m, ebs-csi-node 10m/40Mi, pod identity none)", () => {
        const { resources, modelled } = addonWorkloads(
            drainable([eksAddon("vpc-cni"), eksAddon("aws-ebs-csi-driver"), eksAddon("eks-pod-identity-agent"), eksAddon("kube-proxy")]),
        );
        const agents = byKind(resources, "DaemonSet");
        expect(agents.map((d) => [d.metadata.name, d.spec.template.spec.containers[0].resources.requests])).to.deep.equal([
            ["aws-node", { cpu: "25m" }],
            ["ebs-csi-node", { cpu: "10m", memory: "40Mi" }],
            ["eks-pod-identity-agent", {}],
            ["kube-proxy", { cpu: "100m" }],
        ]);
        expect(agents.every((d) => JSON.stringify(d.spec.template.spec.tolerations) === JSON.stringify([{ operator: "Exists" }]))).to.equal(
            true,
        );
        expect([...modelled].sort()).to.deep.equal([
            "addons-aws-ebs-csi-driver",
            "addons-eks-pod-identity-agent",
            "addons-kube-proxy",
            "addons-vpc-cni",
        ]);
        // The add-on's configuration wins over the chart's default.
        const configured = addonWorkloads(drainable([eksAddon("vpc-cni", { resources: { requests: { cpu: "200m" } } })]));
        expect(byKind(configured.resources, "DaemonSet")[0].spec.template.spec.containers[0].resources.requests).to.deep.equal({
            cpu: "200m",
        });
    });

    it("a node agent's requests come out of every node's allocatable: a pod that fits an empty m6i.large (1930m) no longer fits beside a 1000m agent", () => {
        const big = app("big", { replicas: 3, cpu: "1500m" });
        expect(run([managed("apps", 3), big]).problems.map((p) => p.message)).to.deep.equal([]);
        const heavy = run([managed("apps", 3), eksAddon("vpc-cni", { resources: { requests: { cpu: "1000m" } } }), big]);
        expect(heavy.problems.map((p) => p.message).join("\n")).to.match(
            /Pod big-0 of Deployment prod\/big fits on no node of the stack, before any rollout: 0\/3 nodes are available: 3 insufficient cpu/,
        );
    });
});
