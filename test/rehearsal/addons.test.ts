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
    describe("each chart's and add-on's objects as rendered with no values (the defaults named in each spec's source)", () => {
        const render = (r: TestResource) => addonWorkloads(drainable([r]));

        it("Karpenter (aws/karpenter-provider-aws v1.14.1 charts/karpenter/values.yaml): the whole Deployment and its budget, carrying the release's URN", () => {
            const release = helm("karpenter", {});
            const { resources, notes } = render(release);
            const labels = { "app.kubernetes.io/name": "karpenter" };
            expect(resources.map((r) => [r.type, r.name, r.urn])).to.deep.equal([
                ["kubernetes:apps/v1:Deployment", "karpenter-release/karpenter", urnOf(release)],
                ["kubernetes:policy/v1:PodDisruptionBudget", "karpenter-release/karpenter-pdb", urnOf(release)],
            ]);
            expect(resources[0].props).to.deep.equal({
                apiVersion: "apps/v1",
                kind: "Deployment",
                metadata: { name: "karpenter", namespace: "kube-system" },
                spec: {
                    replicas: 2,
                    selector: { matchLabels: labels },
                    template: {
                        metadata: { labels },
                        spec: {
                            containers: [{ name: "controller", image: "chart", resources: {} }],
                            nodeSelector: { "kubernetes.io/os": "linux" },
                            tolerations: [{ key: "CriticalAddonsOnly", operator: "Exists" }],
                            affinity: {
                                nodeAffinity: {
                                    requiredDuringSchedulingIgnoredDuringExecution: {
                                        nodeSelectorTerms: [
                                            { matchExpressions: [{ key: "karpenter.sh/nodepool", operator: "DoesNotExist" }] },
                                        ],
                                    },
                                },
                                podAntiAffinity: {
                                    requiredDuringSchedulingIgnoredDuringExecution: [
                                        { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: labels } },
                                    ],
                                },
                            },
                            topologySpreadConstraints: [
                                {
                                    maxSkew: 1,
                                    topologyKey: "topology.kubernetes.io/zone",
                                    whenUnsatisfiable: "DoNotSchedule",
                                    labelSelector: { matchLabels: labels },
                                },
                            ],
                        },
                    },
                },
            });
            expect(resources[1].props).to.deep.equal({
                apiVersion: "policy/v1",
                kind: "PodDisruptionBudget",
                metadata: { name: "karpenter", namespace: "kube-system" },
                spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
            });
            expect(notes).to.deep.equal([]);
        });

        it("an add-on whose chart defaults and values give no affinity renders none (not an empty one)", () => {
            for (const addon of ["coredns", "metrics-server"]) {
                const [deployment] = byKind(addonWorkloads(drainable([eksAddon(addon)])).resources, "Deployment");
                expect(deployment.spec.template.spec, addon).to.not.have.property("affinity");
            }
        });

        it("required pod affinity and anti-affinity terms of the values without a selector select the release's own pods; preferred terms and the values stay as written", () => {
            const labels = { "app.kubernetes.io/name": "karpenter" };
            const hostname = { topologyKey: "kubernetes.io/hostname" };
            const preferred = [{ weight: 50, podAffinityTerm: { topologyKey: "topology.kubernetes.io/zone" } }];
            const values = {
                affinity: {
                    podAffinity: {
                        requiredDuringSchedulingIgnoredDuringExecution: [hostname],
                        preferredDuringSchedulingIgnoredDuringExecution: preferred,
                    },
                    podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [hostname] },
                },
            };
            const written = structuredClone(values);
            const pod = render(helm("karpenter", values)).resources[0].props.spec.template.spec;
            expect(pod.affinity).to.deep.equal({
                podAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: [{ ...hostname, labelSelector: { matchLabels: labels } }],
                    preferredDuringSchedulingIgnoredDuringExecution: preferred,
                },
                podAntiAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: [{ ...hostname, labelSelector: { matchLabels: labels } }],
                },
            });
            // The release's values belong to the policy engine: read, never written.
            expect(values).to.deep.equal(written);
        });

        it("the values' affinity, spread, tolerations, grace period and controller resources replace the chart's (a selector the values give is kept)", () => {
            const own = { matchLabels: { team: "platform" } };
            const { resources } = render(
                helm("karpenter", {
                    affinity: {
                        podAffinity: {
                            requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "kubernetes.io/hostname", labelSelector: own }],
                        },
                    },
                    topologySpreadConstraints: [],
                    tolerations: [],
                    terminationGracePeriodSeconds: 120,
                    controller: { resources: { requests: { cpu: "1" } } },
                }),
            );
            const pod = resources[0].props.spec.template.spec;
            expect(pod.affinity).to.deep.equal({
                podAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "kubernetes.io/hostname", labelSelector: own }],
                },
            });
            expect(pod.topologySpreadConstraints).to.deep.equal([]);
            expect(pod.tolerations).to.deep.equal([]);
            expect(pod.terminationGracePeriodSeconds).to.equal(120);
            expect(pod.containers[0].resources).to.deep.equal({ requests: { cpu: "1" } });
            // A budget block of the values with neither field renders none.
            expect(
                byKind(render(helm("karpenter", { podDisruptionBudget: { name: "karpenter" } })).resources, "PodDisruptionBudget"),
            ).to.deep.equal([]);
            expect(
                byKind(
                    render(helm("karpenter", { podDisruptionBudget: { enabled: false, maxUnavailable: 1 } })).resources,
                    "PodDisruptionBudget",
                ),
            ).to.deep.equal([]);
        });

        it("the AWS Load Balancer Controller (eks-charts 1.13.3): 2 replicas (replicaCount), no budget unless set, its webhook Service on 443", () => {
            const { resources } = render(helm("aws-load-balancer-controller", {}));
            expect(resources.map((r) => r.type)).to.deep.equal(["kubernetes:apps/v1:Deployment", "kubernetes:core/v1:Service"]);
            expect(resources[0].props.spec.replicas).to.equal(2);
            expect(resources[1].props).to.deep.equal({
                apiVersion: "v1",
                kind: "Service",
                metadata: { name: "aws-load-balancer-webhook-service", namespace: "kube-system" },
                spec: {
                    selector: { "app.kubernetes.io/name": "aws-load-balancer-controller" },
                    ports: [{ name: "webhook-server", port: 443 }],
                },
            });
            const budgeted = render(helm("aws-load-balancer-controller", { podDisruptionBudget: { maxUnavailable: 1 } }));
            expect(byKind(budgeted.resources, "PodDisruptionBudget")[0].spec).to.include({ maxUnavailable: 1 });
        });

        it("the Node Termination Handler in queue mode (chart 0.27.1): one replica, nothing it serves, no budget", () => {
            const { resources } = render(helm("aws-node-termination-handler", {}));
            expect(resources.map((r) => r.type)).to.deep.equal(["kubernetes:apps/v1:Deployment"]);
            expect(resources[0].props.spec.replicas).to.equal(1);
        });

        it("CoreDNS (EKS add-on): 2 replicas, the upstream requests and CriticalAddonsOnly assumed and said so, Service kube-dns on 53", () => {
            const addon = eksAddon("coredns");
            const { resources, notes, modelled } = render(addon);
            const pod = resources[0].props.spec.template.spec;
            expect(resources[0].props.spec.replicas).to.equal(2);
            expect(pod.containers[0].resources).to.deep.equal({ requests: { cpu: "100m", memory: "70Mi" } });
            expect(pod.tolerations).to.deep.equal([{ key: "CriticalAddonsOnly", operator: "Exists" }]);
            expect(resources[1].props.spec.ports).to.deep.equal([{ name: "dns", port: 53 }]);
            expect(resources[1].props.metadata.name).to.equal("kube-dns");
            expect(notes).to.deep.equal([
                "coredns (addons-coredns), assumed: requests when unset: cpu 100m, memory 70Mi (the upstream CoreDNS Deployment's); tolerations when unset: CriticalAddonsOnly",
            ]);
            expect([...modelled]).to.deep.equal(["addons-coredns"]);
        });

        it("metrics-server (EKS community add-on): one replica, Service metrics-server on 443 (https)", () => {
            const { resources } = render(eksAddon("metrics-server"));
            expect(resources[0].props.spec.replicas).to.equal(1);
            expect(resources[1].props.spec.ports).to.deep.equal([{ name: "https", port: 443 }]);
        });

        it("the EBS CSI driver: its controller (2 replicas, CriticalAddonsOnly, maxUnavailable 1) and its node agent", () => {
            const { resources } = render(eksAddon("aws-ebs-csi-driver"));
            expect(resources.map((r) => r.name)).to.deep.equal([
                "addons-aws-ebs-csi-driver/ebs-csi-controller",
                "addons-aws-ebs-csi-driver/ebs-csi-controller-pdb",
                "addons-aws-ebs-csi-driver/ebs-csi-node",
            ]);
            const deployment = resources[0].props;
            expect(deployment.spec.replicas).to.equal(2);
            expect(deployment.spec.template.spec.tolerations).to.deep.equal([{ key: "CriticalAddonsOnly", operator: "Exists" }]);
            const configured = render(eksAddon("aws-ebs-csi-driver", { controller: { resources: { requests: { cpu: "50m" } } } }));
            expect(configured.resources[0].props.spec.template.spec.containers[0].resources).to.deep.equal({
                requests: { cpu: "50m" },
            });
        });

        it("kube-proxy's assumed request is said; configurationValues that are null or an empty object read as no values, invalid JSON as unreadable", () => {
            expect(render(eksAddon("kube-proxy")).notes).to.deep.equal([
                "kube-proxy (addons-kube-proxy), assumed: requests: cpu 100m (the upstream kube-proxy DaemonSet's; the add-on takes no resources configuration)",
            ]);
            const withNull: TestResource = {
                type: "aws:eks/addon:Addon",
                name: "addons-coredns",
                props: { addonName: "coredns", configurationValues: null },
            };
            expect(render(withNull).resources[0].props.spec.replicas).to.equal(2);
            expect(render(eksAddon("coredns", "[]")).resources[0].props.spec.replicas).to.equal(2);
            const broken = render(eksAddon("coredns", "{not json"));
            expect(broken.resources).to.deep.equal([]);
            expect(broken.notes).to.deep.equal([
                "the pods of coredns (addons-coredns): its values cannot be read, so they are not rehearsed",
            ]);
            expect([...broken.modelled]).to.deep.equal([]);
        });

        it("a release is matched by its chart's last path part; an add-on or chart the rehearsal does not know makes nothing", () => {
            expect(render(helm("karpenter-crd", {})).resources).to.deep.equal([]);
            expect(render(eksAddon("adot")).resources).to.deep.equal([]);
            const bare = render({ type: "kubernetes:helm.sh/v3:Release", name: "k", props: { chart: "karpenter", values: {} } });
            expect(bare.resources.map((r) => r.name)).to.deep.equal(["k/karpenter", "k/karpenter-pdb"]);
        });
    });
});
