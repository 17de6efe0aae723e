/**
 * The drain rehearsal against the rules the real controllers apply, one scenario per rule, each
 * worked out by hand from the upstream source named in its title (Karpenter v1.14.1,
 * kube-scheduler and the cloud provider at Kubernetes 1.34, karpenter-provider-aws v1.14.1).
 */
import { expect } from "chai";
import type { Rehearsal } from "eks-platform-rehearsal";
import { changed, TestResource } from "../policies/harness";
import { service } from "../policies/fixtures";
import { app, gpuApp, managed, nodePool, pdb, run, subnet } from "./scenario";

/** `app` with its pod template changed at `dotted` (below `spec.template`). */
function withPod(r: TestResource, dotted: string, value: unknown): TestResource {
    return changed(r, `spec.template.${dotted}`, value);
}

const DO_NOT_DISRUPT = { "karpenter.sh/do-not-disrupt": "true" };

const problems = (r: Rehearsal) => r.problems.map((p) => p.message).join("\n");

describe("drain rehearsal: the controllers' own rules", () => {
    describe("karpenter.sh/do-not-disrupt (karpenter v1.14.1 disruption/types.go NewCandidate, termination/terminator IsEvictable)", () => {
        it("drift with terminationGracePeriod still selects the node but never evicts the pod: it is deleted when the grace period runs out, so the node is held for the whole hour", () => {
            const r = run([
                nodePool("general", { terminationGracePeriod: "1h" }),
                withPod(app("batch", { replicas: 1, grace: 60 }), "metadata.annotations", DO_NOT_DISRUPT),
            ]);
            const g = r.groups[0];
            expect(g.deleted).to.have.length(1);
            expect(g.deleted[0]).to.include({ doNotDisrupt: true, pod: "batch-0" });
            expect(problems(r)).to.match(
                /Pod batch-0 of Deployment prod\/batch is annotated karpenter\.sh\/do-not-disrupt, so Karpenter never evicts it/,
            );
            // Deleted at 1h − its 60 s grace, gone at 1h: the drain takes the whole window.
            expect(g.longestDrain?.seconds).to.equal(3600);
            expect(g.estimatedSeconds).to.be.at.least(3600);
            expect(r.verdict).to.not.equal("ok");
        });

        it("drift without terminationGracePeriod never selects a node holding such a pod: the rollout stalls naming the pod", () => {
            const r = run([nodePool("general"), withPod(app("batch", { replicas: 1 }), "metadata.annotations", DO_NOT_DISRUPT)]);
            expect(r.groups[0].stalled).to.match(
                /never selects node general-1 for drift: batch-0 \(Deployment prod\/batch\) is annotated karpenter\.sh\/do-not-disrupt/,
            );
            expect(r.verdict).to.equal("blocked");
        });

        it("the annotation on the pool's nodes stops drift even with terminationGracePeriod (statenode.go ValidateNodeDisruptable)", () => {
            const pool = changed(nodePool("general", { terminationGracePeriod: "1h" }), "spec.template.metadata", {
                annotations: DO_NOT_DISRUPT,
            });
            const r = run([pool, app("web", { replicas: 2 })]);
            expect(r.groups[0].stalled).to.match(/its nodes carry karpenter\.sh\/do-not-disrupt: "true".*terminationGracePeriod or not/);
        });

        it("an EKS managed node group update ignores it: EKS evicts through the budgets as for any pod", () => {
            const r = run([
                managed("apps", 3),
                withPod(app("web", { spreadHost: true }), "metadata.annotations", DO_NOT_DISRUPT),
                pdb("web", { maxUnavailable: 1 }),
            ]);
            expect(problems(r)).to.equal("");
            expect(r.groups[0].waves.filter((w) => w.phase === "upgrade").map((w) => w.evictions)).to.deep.equal([1, 1, 1]);
        });

        it("a duration value protects only young pods: running pods are taken as older, and that is said", () => {
            const r = run([
                nodePool("general"),
                withPod(app("web", { replicas: 1 }), "metadata.annotations", { "karpenter.sh/do-not-disrupt": "5m" }),
            ]);
            expect(r.groups[0].stalled).to.equal(undefined);
            expect(r.notModelled.join("\n")).to.match(/"5m" protects a pod only that long after it starts/);
        });
    });

    describe("extended resources (kube-scheduler NodeResourcesFit; karpenter-provider-aws computeCapacity)", () => {
        it("a pod requesting nvidia.com/gpu never lands on a node without GPUs", () => {
            const r = run([managed("apps", 2, { types: ["m6i.large"] }), gpuApp("train", 1)]);
            expect(r.unschedulable).to.have.length(1);
            expect(r.unschedulable[0].reasons).to.match(/2 insufficient nvidia\.com\/gpu/);
        });

        it("two pods of one GPU each never share a single-GPU node (g4dn.xlarge has 1)", () => {
            const r = run([managed("gpu", 1, { types: ["g4dn.xlarge"], zones: 1 }), gpuApp("train", 2)]);
            expect(r.unschedulable.map((u) => u.pod)).to.deep.equal(["train-1"]);
            expect(r.unschedulable[0].reasons).to.match(/insufficient nvidia\.com\/gpu/);
            const fits = run([managed("gpu", 2, { types: ["g4dn.xlarge"], zones: 1 }), gpuApp("train", 2)]);
            expect(fits.unschedulable).to.deep.equal([]);
        });

        it("a NodePool launches a GPU type for the GPU pod and a plain type for the rest", () => {
            const pool = nodePool("mixed", {
                requirements: [
                    { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
                    { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.large", "g5.xlarge"] },
                ],
            });
            const gpu = run([pool, gpuApp("train", 1)]);
            expect(gpu.unschedulable).to.deep.equal([]);
            expect(gpu.groups[0].instanceType).to.equal("g5.xlarge");
            const plain = run([pool, app("web", { replicas: 1 })]);
            expect(plain.groups[0].instanceType).to.equal("m6i.large");
        });

        it("a NodePool's nvidia.com/gpu limit bounds what it launches (spec.limits is a ResourceList: Limits.ExceededBy)", () => {
            const pool = changed(
                nodePool("gpu", { requirements: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["g5.xlarge"] }] }),
                "spec.limits",
                { cpu: "256", memory: "1024Gi", "nvidia.com/gpu": "1" },
            );
            const r = run([pool, gpuApp("train", 2)]);
            expect(r.unschedulable.map((u) => u.reasons).join()).to.match(
                /NodePool gpu: at its limits \(cpu 256, memory 1024Gi, nvidia\.com\/gpu 1\)/,
            );
        });

        it("an extended resource no instance type advertises is undecided, never a verdict", () => {
            const fpga = withPod(app("fpga", { replicas: 2, spreadHost: true }), "spec.containers", [
                {
                    name: "x",
                    image: "registry.example.com/x:1",
                    resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { "example.com/fpga": "1" } },
                },
            ]);
            const r = run([managed("apps", 2, { zones: 1 }), fpga, pdb("fpga", { maxUnavailable: 1 })]);
            expect(r.unschedulable).to.deep.equal([]);
            expect(r.undecided.join("\n")).to.match(
                /Deployment prod\/fpga requests example\.com\/fpga, which no instance type of the instance data advertises/,
            );
            expect(r.verdict).to.equal("undecided");
        });
    });

    describe("NodePool zones (Karpenter launches only where its requirements allow)", () => {
        const zonal = () =>
            nodePool("zonal", {
                requirements: [
                    { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
                    { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.large"] },
                    { key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1a"] },
                ],
            });
        const subnets = ["us-east-1a", "us-east-1b", "us-east-1c"].map(subnet);

        it("a single-zone pool gets nodes in that zone only: pods that must be in different zones cannot all run", () => {
            const apart = withPod(app("web", { replicas: 2 }), "spec.affinity", {
                podAntiAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: [
                        { topologyKey: "topology.kubernetes.io/zone", labelSelector: { matchLabels: { app: "web" } } },
                    ],
                },
            });
            const r = run([...subnets, zonal(), apart]);
            expect(r.groups[0].nodes).to.equal(1);
            expect(r.unschedulable.map((u) => u.pod)).to.deep.equal(["web-1"]);
            const anywhere = run([...subnets, nodePool("general"), apart]);
            expect(anywhere.unschedulable).to.deep.equal([]);
            expect(anywhere.groups[0].nodes).to.equal(2);
        });

        it("a pod pinned to a zone the pool cannot launch in has nowhere to run, with the pool's reason", () => {
            const pinned = withPod(app("db", { replicas: 1 }), "spec.nodeSelector", { "topology.kubernetes.io/zone": "us-east-1b" });
            const r = run([...subnets, zonal(), pinned]);
            expect(r.unschedulable).to.have.length(1);
            expect(r.unschedulable[0].reasons).to.match(
                /NodePool zonal: its zone requirement allows only us-east-1a, and the pod's node selector\/affinity wants another zone/,
            );
        });
    });

    describe("NodePool limits during drift (karpenter v1.14.1 disruption/helpers.go SimulateScheduling, nodepool.go ExceededBy)", () => {
        it("a pool exactly at its cpu limit still replaces its nodes: the candidate is left out of the usage", () => {
            // Three m6i.large (2 vCPU each) fill a limit of 6 exactly.
            const pool = changed(nodePool("general"), "spec.limits", { cpu: "6", memory: "1024Gi" });
            const r = run([pool, app("web", { spreadHost: true }), pdb("web", { maxUnavailable: 1 })]);
            const g = r.groups[0];
            expect(g.nodes).to.equal(3);
            expect(g.stalled).to.equal(undefined);
            expect(g.waves.map((w) => w.phase)).to.deep.equal(["drift", "drift", "drift"]);
            expect(r.verdict).to.equal("ok");
        });

        it("a limit below the pool's usage leaves no room for a replacement", () => {
            // One 1500m pod per m6i.large: the third node does not fit a limit of 5, so the third pod has nowhere to run.
            const pool = changed(nodePool("general"), "spec.limits", { cpu: "5", memory: "1024Gi" });
            const r = run([pool, app("big", { replicas: 3, cpu: "1500m" })]);
            expect(r.unschedulable.map((u) => u.reasons).join()).to.match(/at its limits \(cpu 5/);
        });
    });

    describe("beta node labels (karpenter v1.14.1 NormalizedLabels; kubelet and the cloud provider still set them)", () => {
        it("a nodeSelector on beta.kubernetes.io/os matches managed-group and Karpenter nodes alike", () => {
            const linux = (name: string) => withPod(app(name, { replicas: 1 }), "spec.nodeSelector", { "beta.kubernetes.io/os": "linux" });
            expect(run([managed("apps", 2), linux("web")]).unschedulable).to.deep.equal([]);
            expect(run([nodePool("general"), linux("web")]).unschedulable).to.deep.equal([]);
        });

        it("a NodePool requirement on a beta key narrows its instance types as the stable key does", () => {
            const arm = nodePool("arm", {
                requirements: [
                    { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
                    { key: "beta.kubernetes.io/arch", operator: "In", values: ["amd64"] },
                    { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m6g", "m6i"] },
                ],
            });
            // Unnarrowed, the smallest type would be an m6g (arm64).
            const r = run([arm, app("web", { replicas: 1 })]);
            expect(r.groups[0].instanceType).to.match(/^m6i\./);
        });

        it("a zone selector on failure-domain.beta.kubernetes.io/zone matches the node's zone", () => {
            const pinned = withPod(app("db", { replicas: 1 }), "spec.nodeSelector", {
                "failure-domain.beta.kubernetes.io/zone": "us-east-1b",
            });
            const r = run([subnet("us-east-1a"), subnet("us-east-1b"), nodePool("general"), pinned]);
            expect(r.unschedulable).to.deep.equal([]);
        });
    });

    describe("undecided means undecided: what the input cannot tell never fails the run", () => {
        it("a NodePool for Windows nodes, which the instance data does not describe, is undecided, not blocked", () => {
            const windows = nodePool("win", { requirements: [{ key: "kubernetes.io/os", operator: "In", values: ["windows"] }] });
            const r = run([
                managed("apps", 2, { zones: 1 }),
                windows,
                app("web", { replicas: 2, spreadHost: true }),
                pdb("web", { maxUnavailable: 1 }),
            ]);
            expect(r.problems).to.deep.equal([]);
            expect(r.inputUndecided.join("\n")).to.match(/NodePool win: no instance type in the instance data satisfies its requirements/);
            expect(r.verdict).to.equal("undecided");
        });

        it("a NodePool requiring NVIDIA GPUs by manufacturer gets NVIDIA GPU types (karpenter.k8s.aws/instance-gpu-manufacturer)", () => {
            const pool = nodePool("gpu", {
                requirements: [{ key: "karpenter.k8s.aws/instance-gpu-manufacturer", operator: "In", values: ["nvidia"] }],
            });
            const r = run([pool, gpuApp("train", 1)]);
            expect(r.groups[0].instanceType).to.match(/^(g4dn|g5)\./);
            expect(r.inputUndecided).to.deep.equal([]);
        });

        it("requests it cannot size (ephemeral-storage, huge pages) are said as not modelled, per workload", () => {
            const disk = withPod(app("cache", { replicas: 2, spreadHost: true }), "spec.containers", [
                {
                    name: "c",
                    image: "registry.example.com/c:1",
                    resources: { requests: { cpu: "100m", memory: "64Mi", "ephemeral-storage": "200Gi" } },
                },
            ]);
            const r = run([managed("apps", 2, { zones: 1 }), disk, pdb("cache", { maxUnavailable: 1 })]);
            expect(r.notModelled.join("\n")).to.match(
                /Deployment prod\/cache: its ephemeral-storage requests \(node disk and huge pages are not in the instance data\)/,
            );
        });

        it("replicas the API server refuses are not rehearsed as one replica", () => {
            const r = run([managed("apps", 2), changed(app("web"), "spec.replicas", -5)]);
            expect(r.inputUndecided.join("\n")).to.match(/Deployment prod\/web: replicas -5 is refused by the API server/);
            expect(r.groups[0].waves.every((w) => w.evictions === 0)).to.equal(true);
        });
    });

    describe("who drops requests: availability is the Service's", () => {
        it("a single replica no Service sends traffic to interrupts work, an advisory finding that drops no request", () => {
            const r = run([managed("apps", 3), app("worker", { replicas: 1 })]);
            expect(r.problems).to.deep.equal([]);
            expect(r.verdict).to.equal("ok");
            expect(r.advisories.map((a) => a.message).join("\n")).to.match(
                /Deployment prod\/worker reaches zero ready replicas .*no Service sends it requests, so none is dropped/,
            );
        });

        it("a Service that only exposes metrics does not make its workload one that serves requests", () => {
            const metrics = changed(service("worker", "prod", { app: "worker" }), "spec.ports", [
                { name: "metrics", port: 9090, targetPort: 9090 },
            ]);
            const r = run([managed("apps", 3), app("worker", { replicas: 1 }), metrics]);
            expect(r.problems).to.deep.equal([]);
            expect(r.advisories).to.have.length(1);
        });

        it("scrape and debug ports (telemetry, pprof, debug) carry no requests: a Service of only those serves nothing", () => {
            for (const name of ["envoy-telemetry", "pprof", "debug", "http-profiling"]) {
                const scraped = changed(service("worker", "prod", { app: "worker" }), "spec.ports", [
                    { name, port: 6060, targetPort: 6060 },
                ]);
                const r = run([managed("apps", 3), app("worker", { replicas: 1 }), scraped]);
                expect(r.problems, name).to.deep.equal([]);
                expect(r.advisories.map((a) => a.message).join("\n"), name).to.match(/no Service sends it requests/);
            }
            // A serving port beside a scrape port makes it served: one replica then drops requests.
            const both = changed(service("worker", "prod", { app: "worker" }), "spec.ports", [
                { name: "metrics", port: 9090, targetPort: 9090 },
                { name: "http", port: 80, targetPort: 8080 },
            ]);
            expect(problems(run([managed("apps", 3), app("worker", { replicas: 1 }), both]))).to.match(
                /Service prod\/worker has no ready endpoint left/,
            );
        });

        it("a named targetPort the pod does not declare sends it nothing (EndpointSlice controller, podutil.FindPort): the workload serves no request", () => {
            const named = changed(service("worker", "prod", { app: "worker" }), "spec.ports", [
                { name: "http", port: 80, targetPort: "http" },
            ]);
            const undeclared = run([managed("apps", 3), app("worker", { replicas: 1 }), named]);
            expect(undeclared.problems).to.deep.equal([]);
            expect(undeclared.advisories.map((a) => a.message).join("\n")).to.match(/no Service sends it requests/);
            // Declared on the container: the Service reaches it, and a single replica drops requests.
            const declaring = withPod(app("worker", { replicas: 1 }), "spec.containers", [
                {
                    name: "app",
                    image: "registry.example.com/app:1.0.0",
                    ports: [{ name: "http", containerPort: 8080 }],
                    resources: { requests: { cpu: "250m", memory: "256Mi" } },
                },
            ]);
            expect(problems(run([managed("apps", 3), declaring, named]))).to.match(/Service prod\/worker has no ready endpoint left/);
        });

        it("one Service over three versions (Bookinfo's reviews v1/v2/v3) keeps serving while each version is rescheduled", () => {
            const version = (v: string) =>
                changed(
                    changed(app(`reviews-${v}`, { replicas: 1 }), "spec.template.metadata.labels", { app: "reviews", version: v }),
                    "spec.selector.matchLabels",
                    {
                        app: "reviews",
                        version: v,
                    },
                );
            const r = run([
                managed("apps", 3),
                version("v1"),
                version("v2"),
                version("v3"),
                service("reviews", "prod", { app: "reviews" }),
            ]);
            expect(r.problems.map((p) => p.message)).to.deep.equal([]);
            expect(r.groups[0].notes.join("\n")).to.match(
                /reaches zero ready replicas in wave \d+, but Service prod\/reviews keeps ready endpoints from other workloads/,
            );
            // The same three pods as one Deployment's single replica each, each behind its own Service, all drop requests.
            const own = run([managed("apps", 3), version("v1"), service("reviews-v1", "prod", { app: "reviews", version: "v1" })]);
            expect(own.problems.map((p) => p.message).join("\n")).to.match(/Service prod\/reviews-v1 has no ready endpoint left/);
        });
    });
});
