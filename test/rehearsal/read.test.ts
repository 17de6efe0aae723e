/**
 * rehearsal/read.ts: what the rehearsal reads of a pod before it places it, one hand-checked
 * scenario per rule: its requests as kube-scheduler's NodeResourcesFit counts them (containers,
 * init containers, native sidecars, extended resources, LimitRange defaults) and the topology
 * rules it models. Sizes from the instance data (./scenario.ts): an m6i.large holds 1930m CPU,
 * 6903 MiB and no GPU; a g5.xlarge holds one nvidia.com/gpu.
 */
import { expect } from "chai";
import { UNKNOWN, UNKNOWN_SENTINELS } from "eks-platform-kernel";
import { describeCapacity, hasNodeCapacity, type Rehearsal } from "eks-platform-rehearsal";
import { changed, TestResource, urnOf } from "../policies/harness";
import { cronJob, hpa, job, service } from "../policies/fixtures";
import { app, asg, hook, limitRange, managed, nodePool, pdb, run } from "./scenario";

function withPodSpec(r: TestResource, dotted: string, value: unknown): TestResource {
    return changed(r, `spec.template.spec.${dotted}`, value);
}

function container(name: string, resources: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { name, image: `registry.example.com/${name}:1.0.0`, resources, ...extra };
}

/** One m6i.large node in one zone. */
const oneNode = () => managed("apps", 1, { zones: 1 });
/** One g5.xlarge node (one nvidia.com/gpu) in one zone. */
const oneGpuNode = () => managed("gpu", 1, { zones: 1, types: ["g5.xlarge"] });

const unschedulable = (r: Rehearsal) => r.unschedulable.map((u) => [u.pod, u.reasons]);
const notModelled = (r: Rehearsal) => r.notModelled.filter((n) => n.startsWith("Deployment prod/web: "));

describe("rehearsal/read.ts: what the rehearsal reads of a pod", () => {
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

    describe("unhealthyPodEvictionPolicy (policy/v1 PodDisruptionBudgetSpec; kubernetes v1.34 pkg/registry/core/pod/storage/eviction.go)", () => {
        // Three instances refreshed one at a time (60% of 3 keeps 2), each with a 5m hook; one 900m pod
        // per instance, Ready 1240 s after it starts; minAvailable 3 lets no Ready pod go. web-0 is
        // terminated with batch-1 at 300 s and recreated as web-3 on batch-2, where it is not yet Ready
        // when batch-2 drains, with 2 of the 3 pods the budget wants healthy.
        const slow = changed(app("web", { replicas: 3, cpu: "900m" }), "spec.template.spec.containers.0.readinessProbe", {
            httpGet: { path: "/", port: 80 },
            initialDelaySeconds: 1200,
        });
        const refresh = (spec: Record<string, unknown>) =>
            run([asg("batch", 3, { minHealthy: 60 }), hook(300), slow, pdb("web", spec)]).groups[0];
        const killed = (g: Rehearsal["groups"][number]) => g.killed.map((k) => [k.pod, k.wave]);

        it("IfHealthyBudget (the default): a pod not yet Ready goes only while the budget is met, so web-3 is terminated with batch-2", () => {
            const g = refresh({ minAvailable: 3 });
            expect(killed(g)).to.deep.equal([
                ["web-0", 1],
                ["web-1", 2],
                ["web-3", 2],
                ["web-2", 3],
                ["web-5", 3],
            ]);
            expect(g.waves.map((w) => w.evictions)).to.deep.equal([0, 0, 0]);
        });

        it("AlwaysAllow: a pod not yet Ready is evicted whatever the budget, so web-3 leaves batch-2 before it is terminated", () => {
            const g = refresh({ minAvailable: 3, unhealthyPodEvictionPolicy: "AlwaysAllow" });
            expect(killed(g)).to.deep.equal([
                ["web-0", 1],
                ["web-1", 2],
                ["web-2", 3],
            ]);
            expect(g.waves.map((w) => w.evictions)).to.deep.equal([0, 1, 1]);
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

    describe("what the rehearsal reads of a stack, and says it leaves out (readCluster)", () => {
        const zonesOf = (resources: TestResource[]) =>
            describeCapacity(resources.map((r) => ({ type: r.type, name: r.name, urn: urnOf(r), props: r.props })));
        const pool = (name: string, zones: { operator: string; values: string[] }[]) =>
            nodePool(name, {
                requirements: [
                    { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
                    { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.large"] },
                    ...zones.map((z) => ({ key: "topology.kubernetes.io/zone", ...z })),
                ],
            });

        it("node capacity: a node group, an Auto Scaling group, a NodePool under any type or API version; not a workload or a NodePool's look-alike", () => {
            const has = (r: TestResource) => hasNodeCapacity([{ type: r.type, name: r.name, urn: urnOf(r), props: r.props }]);
            const v1 = nodePool("general");
            const custom = { ...v1, type: "kubernetes:apiextensions.k8s.io:CustomResource" };
            const beta = { ...custom, props: { ...v1.props, apiVersion: "karpenter.sh/v1beta1" } };
            const claim = { ...custom, props: { ...v1.props, kind: "NodeClaim" } };
            const otherGroup = { ...custom, props: { ...v1.props, apiVersion: "example.com/v1" } };
            expect([managed("apps", 1), asg("batch", 1), v1, custom, beta].map(has)).to.deep.equal([true, true, true, true, true]);
            expect([app("web"), claim, otherGroup].map(has)).to.deep.equal([false, false, false]);
            expect(hasNodeCapacity([])).to.equal(false);
        });

        it("a value unknown until apply names its resource; an unknown group, hook or NodePool withholds every verdict, an unknown workload those of its namespace", () => {
            // A single replica behind a Service reaches zero ready replicas: a problem about a workload of prod.
            const solo = [managed("apps", 3), app("solo", { replicas: 1 }), service("solo", "prod", { app: "solo" })];
            const cnpg: TestResource = {
                type: "kubernetes:postgresql.cnpg.io/v1:Cluster",
                name: "prod-pg",
                props: {
                    apiVersion: "postgresql.cnpg.io/v1",
                    kind: "Cluster",
                    metadata: { name: "pg", namespace: "prod" },
                    spec: { instances: UNKNOWN_SENTINELS.number, storage: { size: "10Gi" } },
                },
            };
            const cases: [TestResource, string][] = [
                [changed(hook(300), "heartbeatTimeout", UNKNOWN_SENTINELS.number), "LifecycleHook nodegroups-batch-terminate"],
                [changed(managed("other", 1), "scalingConfig", UNKNOWN_SENTINELS.object), "NodeGroup nodegroups-other"],
                [changed(asg("batch", 1), "desiredCapacity", UNKNOWN_SENTINELS.number), "Auto Scaling group nodegroups-batch-asg"],
                [changed(nodePool("general"), "spec.weight", UNKNOWN_SENTINELS.number), "NodePool karpenter-general"],
                [changed(app("api"), "spec.replicas", UNKNOWN_SENTINELS.number), "kubernetes:apps/v1:Deployment prod-api"],
                [cnpg, "kubernetes:postgresql.cnpg.io/v1:Cluster prod-pg"],
            ];
            for (const [unknown, subject] of cases) {
                const r = run([...solo, unknown]);
                expect(r.undecided[0], subject).to.equal(`${subject}: a value it needs is unknown until apply`);
                expect(r.problems, subject).to.deep.equal([]);
                expect(r.undecided.join("\n"), subject).to.match(
                    /Deployment prod\/solo reaches zero ready replicas .* — unless what is unknown until apply/,
                );
            }
            // A workload of another namespace unknown leaves prod's verdict standing.
            const elsewhere = run([
                ...solo,
                changed(changed(app("api"), "metadata.namespace", "other"), "spec.replicas", UNKNOWN_SENTINELS.number),
            ]);
            expect(elsewhere.problems.map((p) => p.message).join("\n")).to.match(/Deployment prod\/solo reaches zero ready replicas/);
        });

        it("what it does not rehearse is said: a NodePool of another API version, a Helm release's or chart's pods, an EKS add-on it has no model of, Jobs and CronJobs", () => {
            const beta = changed(nodePool("old"), "apiVersion", "karpenter.sh/v1beta1");
            const release: TestResource = {
                type: "kubernetes:helm.sh/v3:Release",
                name: "grafana",
                props: { chart: "grafana", namespace: "monitoring" },
            };
            const chart: TestResource = {
                type: "kubernetes:helm.sh/v4:Chart",
                name: "loki",
                props: { chart: "loki", namespace: "monitoring" },
            };
            const efs: TestResource = {
                type: "aws:eks/addon:Addon",
                name: "addons-efs",
                props: { clusterName: "c", addonName: "aws-efs-csi-driver" },
            };
            const unnamed: TestResource = { type: "aws:eks/addon:Addon", name: "addons-mystery", props: { clusterName: "c" } };
            // Other AWS resources hold no pods and are not said.
            const role: TestResource = { type: "aws:iam/role:Role", name: "nodes-role", props: { assumeRolePolicy: "{}" } };
            const r = run([oneNode(), role, beta, release, chart, efs, unnamed, job(), cronJob()]);
            expect(r.notModelled).to.deep.equal([
                "NodePool karpenter-old (karpenter.sh/v1beta1, not the v1 API)",
                "the pods of Helm release grafana (a chart's objects are not resources here)",
                "the pods of Helm release loki (a chart's objects are not resources here)",
                "the pods of EKS add-on aws-efs-csi-driver",
                "the pods of EKS add-on addons-mystery",
                "Job prod/migrate (runs to completion, not drained as a service)",
                "CronJob prod/report (runs to completion, not drained as a service)",
            ]);
            expect(r.groups.map((g) => g.name)).to.deep.equal(["apps"]);
        });

        it("an autoscaler owns the count of the workload it targets, by namespace, kind and name: the rehearsal meets it at its minimum", () => {
            // Two 1000m pods never share an m6i.large: a minimum of 2 leaves web-1 with nowhere to run.
            const web = app("web", { replicas: 1, cpu: "1000m" });
            expect(unschedulable(run([oneNode(), web, hpa("web", 2)]))).to.deep.equal([
                ["web-1", "0/1 nodes are available: 1 insufficient cpu"],
            ]);
            for (const other of [hpa("api", 2), hpa("web", 2, 10, "other"), hpa("web", 2, 10, "prod", "StatefulSet")]) {
                const name = JSON.stringify((other.props as { spec: unknown }).spec);
                expect(unschedulable(run([oneNode(), web, other])), name).to.deep.equal([]);
            }
            const huge = run([oneNode(), web, hpa("web", 6000, 6000)]);
            expect(huge.undecided).to.deep.equal([
                "Deployment prod/web: the minimum of HorizontalPodAutoscaler prod/web 6000 is above the 5000 the rehearsal replays one by one",
            ]);
        });

        it("the cluster's zones with subnets: each subnet's availabilityZone (EC2 CreateSubnet: a subnet lives in one zone), once and in name order; not another resource's, not one unknown until apply", () => {
            const subnet = (name: string, availabilityZone: unknown): TestResource => ({
                type: "aws:ec2/subnet:Subnet",
                name,
                props: { vpcId: "vpc-1", cidrBlock: "10.0.0.0/24", ...(availabilityZone === undefined ? {} : { availabilityZone }) },
            });
            const instance: TestResource = {
                type: "aws:ec2/instance:Instance",
                name: "bastion",
                props: { availabilityZone: "us-east-1z" },
            };
            const resources = [
                subnet("private-b", "us-east-1b"),
                subnet("private-a", "us-east-1a"),
                subnet("public-a", "us-east-1a"),
                subnet("later", UNKNOWN_SENTINELS.string),
                subnet("unset", undefined),
                instance,
            ];
            expect(zonesOf(resources).zones).to.deep.equal(["us-east-1a", "us-east-1b"]);
        });

        it("the cluster's zones without subnets: those the NodePools name (In), in order; else as many as a group's subnets, at least 3", () => {
            const zones = (resources: TestResource[]) => zonesOf(resources).zones;
            expect(zones([pool("b", [{ operator: "In", values: ["us-east-1b", "us-east-1a"] }])])).to.deep.equal([
                "us-east-1a",
                "us-east-1b",
            ]);
            expect(zones([pool("b", [{ operator: "NotIn", values: ["us-east-1c"] }])])).to.deep.equal(["zone-a", "zone-b", "zone-c"]);
            expect(zones([managed("apps", 1, { zones: 4 })])).to.deep.equal(["zone-a", "zone-b", "zone-c", "zone-d"]);
            // A pool launches where every zone requirement allows (requirements are ANDed).
            const both = pool("b", [
                { operator: "In", values: ["zone-a", "zone-b"] },
                { operator: "NotIn", values: ["zone-b"] },
            ]);
            expect(zonesOf([both, managed("apps", 1, { zones: 3 })]).groups.find((g) => g.kind === "nodePool")?.zones).to.deep.equal([
                "zone-a",
            ]);
        });

        it("an extended resource no instance type advertises is set aside, the others kept: the pod still needs its GPU", () => {
            const both = withPodSpec(app("web", { replicas: 1 }), "containers", [
                container("app", { requests: { cpu: "100m", memory: "64Mi" }, limits: { "nvidia.com/gpu": "1", "example.com/fpga": "1" } }),
            ]);
            const r = run([oneNode(), both]);
            expect(unschedulable(r)).to.deep.equal([["web-0", "0/1 nodes are available: 1 insufficient nvidia.com/gpu"]]);
            expect(r.undecided.join("\n")).to.match(/Deployment prod\/web requests example\.com\/fpga, which no instance type/);
        });
    });
});
