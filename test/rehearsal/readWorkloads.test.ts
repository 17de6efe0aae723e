/**
 * rehearsal/readWorkloads.ts: what the rehearsal reads of a pod before it places it, one
 * hand-checked scenario per rule: its requests as kube-scheduler's NodeResourcesFit counts them
 * (containers, init containers, native sidecars, extended resources, LimitRange defaults), its
 * budgets, karpenter.sh/do-not-disrupt and the topology rules it models. Sizes from the instance
 * data (./scenario.ts): an m6i.large holds 1930m CPU, 6903 MiB and no GPU; a g5.xlarge holds one
 * nvidia.com/gpu.
 */
import { expect } from "chai";
import { UNKNOWN } from "eks-platform-kernel";
import type { Rehearsal } from "eks-platform-rehearsal";
import { changed, TestResource } from "../policies/harness";
import { service } from "../policies/fixtures";
import { app, container, limitRange, managed, nodePool, oneNode, pdb, run, unschedulable, withPodSpec } from "./scenario";

/** One g5.xlarge node (one nvidia.com/gpu) in one zone. */
const oneGpuNode = () => managed("gpu", 1, { zones: 1, types: ["g5.xlarge"] });

const notModelled = (r: Rehearsal) => r.notModelled.filter((n) => n.startsWith("Deployment prod/web: "));

describe("rehearsal/readWorkloads.ts: what the rehearsal reads of a pod", () => {
    describe("a pod's requests (kube-scheduler NodeResourcesFit computePodResourceRequest: the sum of containers and sidecars, or the largest init container with the sidecars started before it)", () => {
        it("the containers of a pod add up: two 1000m containers need 2000m, more than an m6i.large's 1930m", () => {
            const two = withPodSpec(app("web", { replicas: 1 }), "containers", [
                container("app", { requests: { cpu: "1000m", memory: "64Mi" } }),
                container("proxy", { requests: { cpu: "1000m", memory: "64Mi" } }),
            ]);
            expect(unschedulable(run([oneNode(), two]))).to.deep.equal([["web-0", "0/1 nodes are available: 1 insufficient cpu"]]);
            // One of them alone fits.
            const one = withPodSpec(app("web", { replicas: 1 }), "containers", [
                container("app", { requests: { cpu: "1000m", memory: "64Mi" } }),
            ]);
            expect(unschedulable(run([oneNode(), one]))).to.deep.equal([]);
        });

        it("an init container after a native sidecar runs beside it, memory too: 3Gi then 4Gi need 7168Mi, more than an m6i.large's 6903Mi", () => {
            const inits = (order: Record<string, unknown>[]) =>
                withPodSpec(app("web", { replicas: 1, cpu: "100m", memory: "64Mi" }), "initContainers", order);
            const sidecar = container("proxy", { requests: { cpu: "10m", memory: "3Gi" } }, { restartPolicy: "Always" });
            const setup = container("setup", { requests: { cpu: "10m", memory: "4Gi" } });
            expect(unschedulable(run([oneNode(), inits([sidecar, setup])]))).to.deep.equal([
                ["web-0", "0/1 nodes are available: 1 insufficient memory"],
            ]);
            // Before the sidecar starts, the init container runs alone: max(64Mi + 3Gi, 4Gi) = 4Gi fits.
            expect(unschedulable(run([oneNode(), inits([setup, sidecar])]))).to.deep.equal([]);
        });

        it("an init container's GPU counts though no container asks for one: the pod needs a GPU node (extended resources follow the same rule)", () => {
            const gpuInit = withPodSpec(app("web", { replicas: 1 }), "initContainers", [
                container("warmup", { requests: { cpu: "10m", memory: "64Mi" }, limits: { "nvidia.com/gpu": "1" } }),
            ]);
            expect(unschedulable(run([oneNode(), gpuInit]))).to.deep.equal([
                ["web-0", "0/1 nodes are available: 1 insufficient nvidia.com/gpu"],
            ]);
            expect(unschedulable(run([oneGpuNode(), gpuInit]))).to.deep.equal([]);
        });

        it("a native sidecar's GPU and an init container's after it add up: 1 + 1 GPUs never fit a g5.xlarge's one", () => {
            const gpu = { requests: { cpu: "10m", memory: "64Mi" }, limits: { "nvidia.com/gpu": "1" } };
            const inits = (order: Record<string, unknown>[]) => withPodSpec(app("web", { replicas: 1 }), "initContainers", order);
            const sidecar = container("proxy", gpu, { restartPolicy: "Always" });
            const setup = container("setup", gpu);
            expect(unschedulable(run([oneGpuNode(), inits([sidecar, setup])]))).to.deep.equal([
                ["web-0", "0/1 nodes are available: 1 insufficient nvidia.com/gpu"],
            ]);
            // The init container first, then the sidecar: one GPU at a time.
            expect(unschedulable(run([oneGpuNode(), inits([setup, sidecar])]))).to.deep.equal([]);
        });

        it("a zero request of a device the instance data does not know is no request (kube-scheduler fitsRequest skips zero scalar requests; karpenter v1.14.1 pkg/utils/resources Fits: zero never exceeds an absent resource): nothing is undecided", () => {
            const fpga = (count: string) =>
                withPodSpec(app("web", { replicas: 1 }), "containers", [
                    container("app", { requests: { cpu: "100m", memory: "64Mi" }, limits: { "example.com/fpga": count } }),
                ]);
            const unknownDevice =
                "Deployment prod/web requests example.com/fpga, which no instance type of the instance data advertises (a device plugin the rehearsal does not know): where its pods can run is not judged";
            expect(run([oneNode(), fpga("1")]).undecided).to.deep.equal([unknownDevice]);
            expect(run([oneNode(), fpga("0")]).undecided).to.deep.equal([]);
        });

        it("huge pages and ephemeral storage are said as not modelled, by name in order (not in the instance data)", () => {
            const sized = withPodSpec(app("web", { replicas: 1 }), "containers", [
                container("app", {
                    requests: { cpu: "100m", memory: "64Mi", "hugepages-2Mi": "128Mi", "ephemeral-storage": "1Gi" },
                    limits: { memory: "64Mi", "hugepages-2Mi": "128Mi" },
                }),
            ]);
            expect(notModelled(run([oneNode(), sized]))).to.deep.equal([
                "Deployment prod/web: its ephemeral-storage, hugepages-2Mi requests (node disk and huge pages are not in the instance data)",
            ]);
        });
    });

    describe("LimitRange defaults (LimitRanger admission: core/v1 LimitRanges of the pod's namespace)", () => {
        const bare = () =>
            withPodSpec(app("web", { replicas: 2 }), "containers", [{ name: "app", image: "registry.example.com/app:1.0.0" }]);

        it("a LimitRange kind of another API group sets no defaults: the pods request nothing and share the node", () => {
            const lookalike: TestResource = {
                type: "kubernetes:example.com/v1:LimitRange",
                name: "prod-lookalike",
                props: {
                    apiVersion: "example.com/v1",
                    kind: "LimitRange",
                    metadata: { name: "lookalike", namespace: "prod" },
                    spec: { limits: [{ type: "Container", defaultRequest: { cpu: "1500m" } }] },
                },
            };
            expect(unschedulable(run([oneNode(), bare(), lookalike]))).to.deep.equal([]);
            // The core LimitRange with the same item does.
            const core = limitRange("prod", [{ type: "Container", defaultRequest: { cpu: "1500m" } }]);
            expect(unschedulable(run([oneNode(), bare(), core]))).to.deep.equal([["web-1", "0/1 nodes are available: 1 insufficient cpu"]]);
        });

        it("a LimitRange unknown until apply is named, and withholds the verdicts on its namespace's workloads", () => {
            // A single replica behind a Service reaches zero ready replicas: a problem about a workload of prod.
            const solo = [managed("apps", 3), app("solo", { replicas: 1 }), service("solo", "prod", { app: "solo" })];
            const unknown = (namespace: string) => changed(limitRange(namespace, []), "spec.limits", UNKNOWN);
            const r = run([...solo, unknown("prod")]);
            expect(r.problems).to.deep.equal([]);
            expect(r.verdict).to.equal("undecided");
            expect(r.undecided[0]).to.equal("LimitRange prod-defaults: a value it needs is unknown until apply");
            expect(r.undecided.slice(1).join("\n")).to.match(
                /Deployment prod\/solo reaches zero ready replicas .* — unless what is unknown until apply changes it/,
            );
            // One in another namespace leaves prod's verdict standing.
            const other = run([...solo, unknown("other")]);
            expect(other.verdict).to.equal("blocked");
            expect(other.problems.map((p) => p.message).join("\n")).to.match(/Deployment prod\/solo reaches zero ready replicas/);
        });
    });

    describe("PodDisruptionBudgets (kubernetes v1.34 pkg/controller/disruption: disruptionsAllowed is 0 when no pod is expected)", () => {
        it("a budget with neither minAvailable nor maxUnavailable expects no pod, so it allows no eviction even at full strength", () => {
            const r = run([managed("apps", 3), app("web", { spreadHost: true }), pdb("web", {})]);
            const g = r.groups[0];
            expect(g.blocked.map((b) => [b.pod, b.pdb, b.wave])).to.deep.equal([["web-0", "prod/web", 2]]);
            expect(g.blocked[0].why).to.match(
                /^neither minAvailable nor maxUnavailable requires \d+ healthy of 3 pods, so it allows no disruption even at full strength$/,
            );
            expect(g.stalled).to.match(/^wave 2: node apps-1 still holds pods after 15m \(EKS eviction limit\): PodEvictionFailure/);
        });
    });

    describe("karpenter.sh/do-not-disrupt on a pod (karpenter v1.14.1 pkg/utils/pod/scheduling.go IsDoNotDisruptActive)", () => {
        it('a value that is neither "true" nor a duration is as if absent: the pod is evicted for drift, and nothing is said of it', () => {
            for (const value of ["false", "yes"]) {
                const annotated = changed(app("web", { replicas: 1 }), "spec.template.metadata.annotations", {
                    "karpenter.sh/do-not-disrupt": value,
                });
                const r = run([nodePool("general"), annotated]);
                expect(r.notModelled, value).to.deep.equal([]);
                expect(r.groups[0].stalled, value).to.equal(undefined);
                expect(
                    r.groups[0].waves.map((w) => w.evictions),
                    value,
                ).to.deep.equal([1]);
            }
        });
    });

    describe("topology rules (Kubernetes API: topologyKey is required in a TopologySpreadConstraint and a PodAffinityTerm)", () => {
        it("a spread constraint or anti-affinity term without topologyKey is skipped, not said as a key it does not model", () => {
            const keyless = withPodSpec(
                withPodSpec(app("web", { replicas: 2 }), "topologySpreadConstraints", [
                    { maxSkew: 1, whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: { app: "web" } } },
                ]),
                "affinity",
                {
                    podAntiAffinity: {
                        requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "web" } } }],
                    },
                },
            );
            const r = run([oneNode(), keyless]);
            expect(notModelled(r)).to.deep.equal([]);
            // Skipped, neither binds: both pods share the one node.
            expect(r.unschedulable).to.deep.equal([]);
        });
    });
});
