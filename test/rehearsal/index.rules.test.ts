/**
 * The drain rehearsal's rules, one hand-checked scenario each, titled with the rule and the
 * upstream source it follows (Amazon EKS User Guide, Amazon EC2 Auto Scaling User Guide and API
 * reference, Kubernetes 1.34 API and kube-scheduler, Karpenter v1.14.1). The sizes the builders
 * assume are in ./scenario.ts: an m6i.large holds 1930m CPU, 6903 MiB and 29 pods.
 */
import { expect } from "chai";
import { rehearse, Rehearsal } from "eks-platform-rehearsal";
import { changed, TestResource, urnOf } from "../policies/harness";
import { app, asg, daemonSet, hook, limitRange, managed, nodePool, pdb, run, withPodSpec } from "./scenario";

const problems = (r: Rehearsal) => r.problems.map((p) => p.message).join("\n");
const drained = (r: Rehearsal, phase: string) => r.groups[0].waves.filter((w) => w.phase === phase).map((w) => w.drained);

/** `app` with its pod spec changed at `dotted` (below `spec.template.spec`). */
function container(name: string, requests?: Record<string, string>, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { name, image: `registry.example.com/${name}:1.0.0`, ...(requests ? { resources: { requests } } : {}), ...extra };
}

/** One m6i.large node in one zone. */
const oneNode = () => managed("apps", 1, { zones: 1 });

describe("drain rehearsal: one scenario per rule", () => {
    describe("updateConfig of a managed node group (EKS User Guide, Understand each phase of node updates: setup phase)", () => {
        it("maxUnavailablePercentage rounds down: 50% of 5 nodes is 2 at a time (EKS does not document its rounding; down is the slower reading)", () => {
            const r = run([managed("apps", 5, { zones: 1, update: { maxUnavailablePercentage: 50 } })]);
            expect(r.groups[0].mechanism).to.include("then 2 nodes at a time (updateConfig.maxUnavailablePercentage 50% of 5)");
            expect(drained(r, "upgrade")).to.deep.equal([["apps-1", "apps-2"], ["apps-3", "apps-4"], ["apps-5"]]);
        });

        it("maxUnavailablePercentage is at least 1 node: 10% of 5 nodes updates one at a time", () => {
            const r = run([managed("apps", 5, { zones: 1, update: { maxUnavailablePercentage: 10 } })]);
            expect(r.groups[0].mechanism).to.include("then 1 node at a time (updateConfig.maxUnavailablePercentage 10% of 5)");
            expect(drained(r, "upgrade")).to.deep.equal([["apps-1"], ["apps-2"], ["apps-3"], ["apps-4"], ["apps-5"]]);
        });

        it("maxUnavailable is a node count; unset, EKS's default is one node", () => {
            const two = run([managed("apps", 3, { zones: 1, update: { maxUnavailable: 2 } })]);
            expect(two.groups[0].mechanism).to.include("then 2 nodes at a time (updateConfig.maxUnavailable 2)");
            expect(drained(two, "upgrade")).to.deep.equal([["apps-1", "apps-2"], ["apps-3"]]);
            const unset = run([managed("apps", 2, { zones: 1, update: {} })]);
            expect(unset.groups[0].mechanism).to.include("then 1 node at a time (EKS's default of 1 node)");
            expect(drained(unset, "upgrade")).to.deep.equal([["apps-1"], ["apps-2"]]);
        });

        it("maxUnavailable above the group's size updates every node in one wave", () => {
            const r = run([managed("apps", 3, { zones: 1, update: { maxUnavailable: 10 } })]);
            expect(r.groups[0].mechanism).to.include("then 3 nodes at a time (updateConfig.maxUnavailable 10)");
            expect(drained(r, "upgrade")).to.deep.equal([["apps-1", "apps-2", "apps-3"]]);
        });
    });

    describe("the surge of a managed node group update (EKS User Guide, scale up phase: the larger of up to twice the zones or maxUnavailable, at least one new node in every zone that has nodes)", () => {
        it("launches one new node per zone in use before draining: 2 nodes in 2 of 3 configured zones surge 2, in those zones", () => {
            const r = run([managed("apps", 2, { zones: 3 })]);
            const g = r.groups[0];
            expect(g.mechanism).to.include("surge 2 new nodes (one per zone in use, or maxUnavailable if larger)");
            expect(g.mechanism).to.include("then scale down by 2");
            expect(g.waves[0]).to.include({ phase: "scale-up", seconds: 120 });
            expect(g.waves[0].launched).to.deep.equal(["apps-3", "apps-4"]);
            expect(g.waves[0].drained).to.deep.equal([]);
            // The surge nodes are emptiest at the end and go first in the scale-down (newest first).
            expect(g.waves.map((w) => w.phase)).to.deep.equal(["scale-up", "upgrade", "upgrade", "scale-down"]);
            // apps-1 and apps-2 are replaced by apps-5 and apps-6; all four new nodes are empty, the newest go.
            expect(g.waves[3].drained).to.deep.equal(["apps-6", "apps-5"]);
        });

        it("marks every old node unschedulable when the surge is up: an evicted pod goes to a new node, so the next old node drains empty", () => {
            // web-0 on apps-1; its replacement goes to the surge node apps-3, not to the old apps-2.
            const r = run([managed("apps", 2, { zones: 1 }), app("web", { replicas: 1 })]);
            const g = r.groups[0];
            expect(g.waves.filter((w) => w.phase === "upgrade").map((w) => [w.drained, w.evictions])).to.deep.equal([
                [["apps-1"], 1],
                [["apps-2"], 0],
            ]);
            // The scale-down sheds the emptiest new node, not the one web-1 runs on.
            expect(g.waves[3]).to.deep.include({ phase: "scale-down", drained: ["apps-5"], evictions: 0 });
        });

        it("surges maxUnavailable nodes when that is larger than the zones in use: 4 nodes in one zone with maxUnavailable 3 surge 3", () => {
            const r = run([managed("apps", 4, { zones: 1, update: { maxUnavailable: 3 } })]);
            const g = r.groups[0];
            expect(g.mechanism).to.include("surge 3 new nodes");
            expect(g.waves[0].launched).to.have.length(3);
            expect(drained(r, "upgrade")).to.deep.equal([["apps-1", "apps-2", "apps-3"], ["apps-4"]]);
            expect(drained(r, "scale-down")[0]).to.have.length(3);
        });

        it("the surge is why an evicted pod finds room: the same 1500m pair that stalls under MINIMAL moves to a surge node", () => {
            const pair = app("big", { replicas: 2, cpu: "1500m" });
            const surge = run([managed("apps", 2, { zones: 1 }), pair]);
            expect(surge.groups[0].unplaced).to.deep.equal([]);
            expect(surge.verdict).to.equal("ok");
            const minimal = run([managed("apps", 2, { zones: 1, update: { maxUnavailable: 1, updateStrategy: "MINIMAL" } }), pair]);
            expect(minimal.groups[0].waves.map((w) => w.phase)).to.deep.equal(["upgrade", "upgrade"]);
            expect(minimal.groups[0].mechanism).to.include("MINIMAL strategy: 1 node at a time");
            expect(minimal.groups[0].unplaced[0]).to.include({ workload: "Deployment prod/big", wave: 1 });
        });
    });

    describe("instance refresh batches (EC2 Auto Scaling User Guide, instance refresh; RefreshPreferences.MinHealthyPercentage is rounded up)", () => {
        it("minHealthyPercentage rounds the instances kept up: 60% of 4 keeps 3, so 1 at a time (rounding down would take 2)", () => {
            const r = run([asg("batch", 4, { minHealthy: 60 }), hook(300)]);
            expect(r.groups[0].mechanism).to.include(
                "1 instance at a time (minHealthyPercentage 60, maxHealthyPercentage 100: terminate before launch)",
            );
            expect(drained(r, "refresh")).to.deep.equal([["batch-1"], ["batch-2"], ["batch-3"], ["batch-4"]]);
            // Terminate, then launch (120 s) and warm up (60 s): empty nodes take 180 s each.
            expect(r.groups[0].waves.map((w) => [w.drainStart, w.seconds])).to.deep.equal([
                [0, 180],
                [0, 180],
                [0, 180],
                [0, 180],
            ]);
            expect(r.groups[0].estimatedSeconds).to.equal(720);
        });

        it("minHealthyPercentage 50 of 4 keeps 2 in service: 2 at a time", () => {
            const r = run([asg("batch", 4, { minHealthy: 50 }), hook(300)]);
            expect(r.groups[0].mechanism).to.include("2 instances at a time");
            expect(drained(r, "refresh")).to.deep.equal([
                ["batch-1", "batch-2"],
                ["batch-3", "batch-4"],
            ]);
        });

        it("a batch is at least one instance: the default 90% of 4 keeps all 4, yet the refresh replaces 1 at a time", () => {
            const r = run([asg("batch", 4, { minHealthy: 90 }), hook(300)]);
            expect(r.groups[0].mechanism).to.include("1 instance at a time (minHealthyPercentage 90");
            expect(drained(r, "refresh")).to.have.length(4);
        });

        it("minHealthyPercentage 0 replaces every instance at once", () => {
            const r = run([asg("batch", 3, { minHealthy: 0 }), hook(300)]);
            expect(drained(r, "refresh")).to.deep.equal([["batch-1", "batch-2", "batch-3"]]);
        });

        it("maxHealthyPercentage above 100 launches first, in batches of the range rounded down: 4 × (125 − 60)% = 2.6, so 2", () => {
            const r = run([asg("batch", 4, { minHealthy: 60, maxHealthy: 125 }), hook(300)]);
            const g = r.groups[0];
            expect(g.mechanism).to.include(
                "2 instances at a time (minHealthyPercentage 60, maxHealthyPercentage 125: launch before terminate)",
            );
            expect(drained(r, "refresh")).to.deep.equal([
                ["batch-1", "batch-2"],
                ["batch-3", "batch-4"],
            ]);
            // Launch first: each wave's replacements are there before its drain (120 s launch + 60 s warmup).
            expect(g.waves[0].launched).to.have.length(2);
            expect(g.waves.map((w) => [w.drainStart, w.seconds])).to.deep.equal([
                [180, 180],
                [180, 180],
            ]);
        });

        it("a launch-first refresh moves evicted pods to the new instances: the 1500m pair that stalls terminate-first has room", () => {
            const pair = app("big", { replicas: 2, cpu: "1500m" });
            const first = run([asg("batch", 2, { minHealthy: 50, maxHealthy: 100 }), hook(300), pair]).groups[0];
            expect(first.unplaced.map((u) => u.reasons)).to.include("0/2 nodes are available: 1 cordoned, 1 insufficient cpu");
            const launchFirst = run([asg("batch", 2, { minHealthy: 50, maxHealthy: 150 }), hook(300), pair]).groups[0];
            expect(launchFirst.unplaced).to.deep.equal([]);
            // Both instances at once (2 × 100% = 2), after their replacements are up: 120 s + 60 s warmup, then 60 s grace.
            expect(launchFirst.waves.map((w) => [w.drained, w.drainStart, w.drainSeconds, w.seconds])).to.deep.equal([
                [["batch-1", "batch-2"], 180, 60, 240],
            ]);
        });

        it("launch-first batches are at least one instance: 2 × (100.5 − 100)% rounds to 0, so 1", () => {
            const r = run([asg("batch", 2, { minHealthy: 100, maxHealthy: 101 }), hook(300)]);
            expect(r.groups[0].mechanism).to.include(
                "1 instance at a time (minHealthyPercentage 100, maxHealthyPercentage 101: launch before terminate)",
            );
        });
    });

    describe("pod slots (max pods per node: amazon-eks-ami eni-max-pods.txt; kube-scheduler NodeResourcesFit counts pods)", () => {
        it("an m6i.large takes 29 pods: the 30th tiny pod has nowhere to run, for too many pods, not for CPU or memory", () => {
            const r = run([oneNode(), app("tiny", { replicas: 30, cpu: "10m", memory: "16Mi" })]);
            expect(r.unschedulable.map((u) => [u.pod, u.reasons])).to.deep.equal([["tiny-29", "0/1 nodes are available: 1 too many pods"]]);
            expect(run([oneNode(), app("tiny", { replicas: 29, cpu: "10m", memory: "16Mi" })]).unschedulable).to.deep.equal([]);
        });

        it("a t3.small takes 11 pods: the slots come from each instance type's data", () => {
            const r = run([
                managed("apps", 1, { zones: 1, types: ["t3.small"] }),
                app("tiny", { replicas: 12, cpu: "10m", memory: "16Mi" }),
            ]);
            expect(r.unschedulable.map((u) => [u.pod, u.reasons])).to.deep.equal([["tiny-11", "0/1 nodes are available: 1 too many pods"]]);
        });

        it("a DaemonSet pod takes a slot on every node: 28 are left on an m6i.large", () => {
            const r = run([oneNode(), daemonSet("agent", "10m"), app("tiny", { replicas: 29, cpu: "10m", memory: "16Mi" })]);
            expect(r.unschedulable.map((u) => [u.pod, u.reasons])).to.deep.equal([["tiny-28", "0/1 nodes are available: 1 too many pods"]]);
        });
    });

    describe("a pod's effective request (kube-scheduler NodeResourcesFit computePodResourceRequest; LimitRanger admission)", () => {
        it("a native sidecar (an init container with restartPolicy Always) adds to the containers: 500m + 600m twice do not fit 1930m", () => {
            const sidecar = withPodSpec(
                withPodSpec(app("web", { replicas: 2, cpu: "500m" }), "initContainers", [
                    container("proxy", { cpu: "600m", memory: "64Mi" }, { restartPolicy: "Always" }),
                ]),
                "terminationGracePeriodSeconds",
                60,
            );
            const r = run([oneNode(), sidecar]);
            expect(r.unschedulable.map((u) => [u.pod, u.reasons])).to.deep.equal([
                ["web-1", "0/1 nodes are available: 1 insufficient cpu"],
            ]);
            // A plain init container runs before the others and counts only as the largest: max(500m, 600m) twice fits.
            const plain = withPodSpec(app("web", { replicas: 2, cpu: "500m" }), "initContainers", [
                container("setup", { cpu: "600m", memory: "64Mi" }),
            ]);
            expect(run([oneNode(), plain]).unschedulable).to.deep.equal([]);
        });

        it("an init container after a native sidecar runs beside it: sidecar 1000m then init 1000m need 2000m, more than any m6i.large", () => {
            const inits = (order: Record<string, unknown>[]) =>
                withPodSpec(app("web", { replicas: 1, cpu: "500m" }), "initContainers", order);
            const sidecar = container("proxy", { cpu: "1000m", memory: "64Mi" }, { restartPolicy: "Always" });
            const setup = container("setup", { cpu: "1000m", memory: "64Mi" });
            const after = run([oneNode(), inits([sidecar, setup])]);
            expect(after.unschedulable.map((u) => [u.pod, u.reasons])).to.deep.equal([
                ["web-0", "0/1 nodes are available: 1 insufficient cpu"],
            ]);
            // Before the sidecar starts the init container runs alone: max(500m + 1000m, 1000m) = 1500m fits.
            expect(run([oneNode(), inits([setup, sidecar])]).unschedulable).to.deep.equal([]);
        });

        it("a container without requests gets its namespace's LimitRange defaultRequest: two 1500m pods never share a node", () => {
            const bare = withPodSpec(app("web", { replicas: 2 }), "containers", [container("app")]);
            const r = run([oneNode(), bare, limitRange("prod", [{ type: "Container", defaultRequest: { cpu: "1500m" } }])]);
            expect(r.unschedulable.map((u) => [u.pod, u.reasons])).to.deep.equal([
                ["web-1", "0/1 nodes are available: 1 insufficient cpu"],
            ]);
            // Without the LimitRange, or with one in another namespace, the pods request nothing and share the node.
            expect(run([oneNode(), bare]).unschedulable).to.deep.equal([]);
            expect(
                run([oneNode(), bare, limitRange("other", [{ type: "Container", defaultRequest: { cpu: "1500m" } }])]).unschedulable,
            ).to.deep.equal([]);
            // A LimitRange item for Pods sets no container default.
            expect(
                run([oneNode(), bare, limitRange("prod", [{ type: "Pod", defaultRequest: { cpu: "1500m" } }])]).unschedulable,
            ).to.deep.equal([]);
        });

        it("the API server defaults defaultRequest from default, and default from max", () => {
            const bare = withPodSpec(app("web", { replicas: 2 }), "containers", [container("app")]);
            const cases: [Record<string, unknown>, string][] = [
                [{ default: { cpu: "1500m" } }, "cpu"],
                [{ max: { cpu: "1500m" } }, "cpu"],
                [{ max: { memory: "4Gi" } }, "memory"],
            ];
            for (const [item, resource] of cases) {
                const r = run([oneNode(), bare, limitRange("prod", [{ type: "Container", ...item }])]);
                expect(
                    r.unschedulable.map((u) => u.reasons),
                    JSON.stringify(item),
                ).to.deep.equal([`0/1 nodes are available: 1 insufficient ${resource}`]);
            }
        });

        it("a container's limit is its request when it sets none, before any LimitRange default", () => {
            const limited = withPodSpec(app("web", { replicas: 2 }), "containers", [
                container("app", undefined, { resources: { limits: { cpu: "1500m", memory: "64Mi" } } }),
            ]);
            expect(run([oneNode(), limited]).unschedulable.map((u) => u.reasons)).to.deep.equal([
                "0/1 nodes are available: 1 insufficient cpu",
            ]);
            const small = withPodSpec(app("web", { replicas: 2 }), "containers", [
                container("app", undefined, { resources: { limits: { cpu: "200m", memory: "64Mi" } } }),
            ]);
            const r = run([oneNode(), small, limitRange("prod", [{ type: "Container", defaultRequest: { cpu: "1500m" } }])]);
            expect(r.unschedulable).to.deep.equal([]);
        });
    });

    describe("topologySpreadConstraints[].whenUnsatisfiable (Kubernetes API TopologySpreadConstraint: DoNotSchedule is the default)", () => {
        // Three nodes, one pod each, refreshed one at a time with the drained node still counted as a domain.
        const spread = (whenUnsatisfiable?: string) =>
            withPodSpec(app("web"), "topologySpreadConstraints", [
                {
                    maxSkew: 1,
                    topologyKey: "kubernetes.io/hostname",
                    ...(whenUnsatisfiable ? { whenUnsatisfiable } : {}),
                    labelSelector: { matchLabels: { app: "web" } },
                },
            ]);
        const refresh = (w: TestResource) => run([asg("batch", 3), hook(300), w, pdb("web", { maxUnavailable: 1 })]);

        it("a constraint without whenUnsatisfiable is hard: the evicted pod stays Pending, for topology spread", () => {
            const r = refresh(spread());
            expect(r.groups[0].unplaced[0]).to.include({
                workload: "Deployment prod/web",
                reasons: "0/3 nodes are available: 2 topology spread (kubernetes.io/hostname, maxSkew 1), 1 cordoned",
            });
            expect(problems(r)).to.match(/Evicted pod web-3 of Deployment prod\/web has nowhere to run/);
        });

        it("ScheduleAnyway only steers: the evicted pod lands beside another", () => {
            const r = refresh(spread("ScheduleAnyway"));
            expect(r.groups[0].unplaced).to.deep.equal([]);
            expect(problems(r)).to.equal("");
        });
    });

    describe("StatefulSet pods with volume claims (EBS volumes are zonal: the PV's node affinity pins the zone; the StatefulSet controller recreates a pod after the old one is gone)", () => {
        const db = (claims: boolean) => {
            const base = app("db", { replicas: 2, kind: "StatefulSet" });
            return claims
                ? changed(base, "spec.volumeClaimTemplates", [
                      {
                          metadata: { name: "data" },
                          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } },
                      },
                  ])
                : base;
        };
        const minimal = () => managed("apps", 2, { zones: 2, update: { maxUnavailable: 1, updateStrategy: "MINIMAL" } });

        it("an evicted pod waits for a node in its volume's zone, though a node elsewhere has room", () => {
            const r = run([minimal(), db(true)]);
            const first = r.groups[0].unplaced[0];
            expect(first).to.include({
                workload: "StatefulSet prod/db",
                wave: 1,
                reasons: "0/2 nodes are available: 1 cordoned, 1 volume in another zone (zone-a)",
            });
            // Its zone gets a node again when the drained node's replacement is up: 60 s grace + 60 s EKS wait + 120 s launch.
            expect(first.placedAfterSeconds).to.equal(240);
            // Without claims the pod may go to the other zone.
            expect(run([minimal(), db(false)]).groups[0].unplaced).to.deep.equal([]);
        });

        it("a StatefulSet pod is recreated only after its predecessor's grace period: the budget waits 60 s grace + 30 s start, not 30 s", () => {
            const pair = (kind: "Deployment" | "StatefulSet") => [
                oneNode(),
                app("pair", { replicas: 2, cpu: "500m", kind }),
                pdb("pair", { maxUnavailable: 1 }),
            ];
            const sts = run(pair("StatefulSet")).groups[0];
            expect(sts.waits.map((w) => [w.pod, w.pdb, w.seconds])).to.deep.equal([["pair-1", "prod/pair", 90]]);
            expect(sts.longestDrain?.seconds).to.equal(150);
            const deployment = run(pair("Deployment")).groups[0];
            expect(deployment.waits.map((w) => [w.pod, w.pdb, w.seconds])).to.deep.equal([["pair-1", "prod/pair", 30]]);
            expect(deployment.longestDrain?.seconds).to.equal(90);
        });

        it("a pod is Ready after 30 s plus its readiness probe's initialDelaySeconds + periodSeconds × successThreshold (periodSeconds 10 when unset)", () => {
            const probed = (probe: Record<string, unknown>) => [
                oneNode(),
                withPodSpec(app("pair", { replicas: 2, cpu: "500m" }), "containers", [
                    container("app", { cpu: "500m", memory: "64Mi" }, { readinessProbe: { httpGet: { path: "/", port: 80 }, ...probe } }),
                ]),
                pdb("pair", { maxUnavailable: 1 }),
            ];
            expect(run(probed({ initialDelaySeconds: 10 })).groups[0].waits.map((w) => w.seconds)).to.deep.equal([30 + 10 + 10]);
            expect(run(probed({ periodSeconds: 5, successThreshold: 3 })).groups[0].waits.map((w) => w.seconds)).to.deep.equal([30 + 15]);
        });
    });

    describe("DaemonSets (the DaemonSet controller runs a pod on every node it may; drains skip DaemonSet pods: kubectl drain --ignore-daemonsets, NTH IgnoreDaemonSets, Karpenter)", () => {
        it("take capacity on every node: a 1000m DaemonSet leaves 930m, so a 1000m pod has nowhere to run", () => {
            const web = app("web", { replicas: 1, cpu: "1000m" });
            const r = run([oneNode(), daemonSet("agent", "1000m"), web]);
            expect(r.unschedulable.map((u) => [u.pod, u.workload, u.reasons])).to.deep.equal([
                ["web-0", "Deployment prod/web", "0/1 nodes are available: 1 insufficient cpu"],
            ]);
            expect(run([oneNode(), web]).unschedulable).to.deep.equal([]);
        });

        it("take nothing on nodes they do not run on: a node selector they miss, or a taint they do not tolerate", () => {
            const web = app("web", { replicas: 1, cpu: "1000m" });
            const elsewhere = daemonSet("agent", "1000m", { nodeSelector: { "node.kubernetes.io/instance-type": "g5.xlarge" } });
            expect(run([oneNode(), elsewhere, web]).unschedulable).to.deep.equal([]);
            const tainted = changed(oneNode(), "taints", [{ key: "dedicated", value: "web", effect: "NO_SCHEDULE" }]);
            const tolerant = changed(web, "spec.template.spec.tolerations", [
                { key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" },
            ]);
            expect(run([tainted, daemonSet("agent", "1000m"), tolerant]).unschedulable).to.deep.equal([]);
        });

        it("are never evicted as workloads: a budget over the DaemonSet's pods blocks nothing, and only the Deployment's pods are evicted", () => {
            const r = run([
                managed("apps", 3),
                daemonSet("agent", "100m"),
                pdb("agent", { minAvailable: "100%" }),
                app("web", { spreadHost: true }),
                pdb("web", { maxUnavailable: 1 }),
            ]);
            const g = r.groups[0];
            expect(g.stalled).to.equal(undefined);
            expect(g.blocked).to.deep.equal([]);
            expect(drained(r, "upgrade")).to.have.length(3);
            expect(g.waves.filter((w) => w.phase === "upgrade").map((w) => [w.evictions, w.slowest?.workload])).to.deep.equal([
                [1, "Deployment prod/web"],
                [1, "Deployment prod/web"],
                [1, "Deployment prod/web"],
            ]);
            expect(problems(r)).to.equal("");
        });
    });

    describe("NodePool weight (karpenter v1.14.1 utils/nodepool OrderByWeight: the scheduler tries heavier NodePools first)", () => {
        const pools = (weights: { alpha?: number; zeta?: number }) => [
            ...(["alpha", "zeta"] as const).map((name) =>
                weights[name] === undefined ? nodePool(name) : changed(nodePool(name), "spec.weight", weights[name]),
            ),
            app("web", { replicas: 1 }),
        ];
        const nodesOf = (r: Rehearsal) => Object.fromEntries(r.groups.map((g) => [g.name, g.nodes]));

        it("a pod that fits no node goes to the heavier pool, whatever the names", () => {
            expect(nodesOf(run(pools({ zeta: 10 })))).to.deep.equal({ alpha: 0, zeta: 1 });
            expect(nodesOf(run(pools({ alpha: 10, zeta: 1 })))).to.deep.equal({ alpha: 1, zeta: 0 });
        });

        it("a heavier pool that cannot take the pod (an untolerated taint) passes it to the next, and says why", () => {
            const tainted = changed(changed(nodePool("zeta"), "spec.weight", 10), "spec.template.spec.taints", [
                { key: "gpu", value: "true", effect: "NoSchedule" },
            ]);
            const r = run([nodePool("alpha"), tainted, app("web", { replicas: 1 })]);
            expect(nodesOf(r)).to.deep.equal({ alpha: 1, zeta: 0 });
            const alone = run([tainted, app("web", { replicas: 1 })]);
            expect(alone.unschedulable.map((u) => u.reasons)).to.deep.equal([
                "0/0 nodes are available; NodePool zeta: untolerated taint gpu=true:NoSchedule",
            ]);
        });

        // Karpenter breaks a tie of weights by name, the name later in the alphabet first
        // (karpenter v1.14.1 pkg/utils/nodepool/nodepool.go OrderByWeight: `nps[a].Name > nps[b].Name`).
        it("of two pools of equal weight, the one whose name sorts later is tried first", () => {
            expect(nodesOf(run(pools({})))).to.deep.equal({ alpha: 0, zeta: 1 });
        });
    });

    describe("Spot capacity of an Auto Scaling group (EC2 Auto Scaling API InstancesDistribution: OnDemandPercentageAboveBaseCapacity defaults to 100; Spot interruption notice: 2 minutes)", () => {
        const spotDistribution = {
            onDemandBaseCapacity: 0,
            onDemandPercentageAboveBaseCapacity: 0,
            spotAllocationStrategy: "price-capacity-optimized",
        };

        it("a mixed instances policy below 100% on-demand runs Spot: the 2-minute notice is a window, and the smallest override is counted", () => {
            const r = run([
                asg("batch", 2, { minHealthy: 50, types: ["m6i.xlarge", "m6i.large"], distribution: spotDistribution }),
                hook(300),
            ]);
            const g = r.groups[0];
            expect(g.windows).to.deep.include({ seconds: 120, source: "Spot interruption notice" });
            expect(g.instanceType).to.equal("m6i.large");
        });

        it("a managed node group with capacityType SPOT has the 2-minute window too, counted at its smallest instance type", () => {
            const spot = changed(managed("apps", 2, { zones: 1, types: ["m6i.xlarge", "m6i.large"] }), "capacityType", "SPOT");
            const g = run([spot]).groups[0];
            expect(g.windows).to.deep.equal([
                { seconds: 900, source: "EKS eviction limit (PodEvictionFailure)" },
                { seconds: 120, source: "Spot interruption notice" },
            ]);
            expect(g.instanceType).to.equal("m6i.large");
            const onDemand = run([managed("apps", 2, { zones: 1, types: ["m6i.xlarge", "m6i.large"] })]).groups[0];
            expect(onDemand.windows.map((w) => w.source)).to.deep.equal(["EKS eviction limit (PodEvictionFailure)"]);
            expect(onDemand.instanceType).to.equal("m6i.xlarge");
        });

        it("100% on-demand, or the percentage unset, is on-demand: no Spot window, and the first override (prioritized) is counted", () => {
            for (const distribution of [
                { onDemandPercentageAboveBaseCapacity: 100 },
                { spotAllocationStrategy: "price-capacity-optimized" },
            ]) {
                const g = run([asg("batch", 2, { minHealthy: 50, types: ["m6i.xlarge", "m6i.large"], distribution }), hook(300)]).groups[0];
                expect(
                    g.windows.map((w) => w.source),
                    JSON.stringify(distribution),
                ).to.deep.equal(["heartbeat of lifecycle hook nodegroups-batch-terminate"]);
                expect(g.instanceType).to.equal("m6i.xlarge");
            }
        });

        it("a Spot group whose drain outlasts the notice is blocked, naming the workload and its grace period", () => {
            const r = run([
                asg("batch", 2, { minHealthy: 50, distribution: spotDistribution }),
                hook(600),
                app("slow", { replicas: 2, grace: 150 }),
            ]);
            expect(r.verdict).to.equal("blocked");
            expect(problems(r)).to.match(
                /Deployment prod\/slow keeps node batch-1 of self-managed node group batch draining for 2m 30s in wave 1 \(0s–5m 30s into the rollout\), longer than the 2m Spot interruption notice/,
            );
            expect(problems(r)).to.include("shorten the grace period of Deployment prod/slow (terminationGracePeriodSeconds 2m 30s");
            const onDemand = run([asg("batch", 2, { minHealthy: 50 }), hook(600), app("slow", { replicas: 2, grace: 150 })]);
            expect(onDemand.verdict).to.equal("ok");
        });

        // EC2 Auto Scaling InstancesDistribution: instances up to onDemandBaseCapacity are on-demand,
        // so a group whose base covers its desired capacity runs no Spot instance and has no 2-minute notice.
        it("a group whose onDemandBaseCapacity covers its desired capacity runs on-demand only", () => {
            const g = run([
                asg("batch", 2, { minHealthy: 50, distribution: { onDemandBaseCapacity: 2, onDemandPercentageAboveBaseCapacity: 0 } }),
                hook(300),
            ]).groups[0];
            expect(g.windows.map((w) => w.source)).to.not.include("Spot interruption notice");
        });
    });

    describe("an unsized group (its instance type not in the instance data: capacity unknown, verdict never ok)", () => {
        const unsized = (taints?: unknown[]) => {
            const g = managed("odd", 2, { zones: 1, types: ["r5.large"] });
            return taints ? changed(g, "taints", taints) : g;
        };

        it("is undecided, never ok, and its nodes hold any pod: a 3000m pod no m6i.large holds is placed there, not reported", () => {
            const huge = app("huge", { replicas: 1, cpu: "3000m" });
            const r = run([unsized(), oneNode(), huge]);
            expect(r.unschedulable).to.deep.equal([]);
            expect(r.inputUndecided).to.deep.equal([
                "managed node group odd: the size of instance type r5.large is not in the instance data, so its nodes' capacity is unknown",
            ]);
            expect(r.groups.map((g) => [g.name, g.verdict])).to.deep.equal([
                ["odd", "undecided"],
                ["apps", "ok"],
            ]);
            expect(r.verdict).to.equal("undecided");
            // With the group sized, the same pod has nowhere to run.
            const sized = run([managed("odd", 2, { zones: 1 }), oneNode(), huge]);
            expect(sized.unschedulable.map((u) => [u.pod, u.reasons])).to.deep.equal([
                ["huge-0", "0/3 nodes are available: 3 insufficient cpu"],
            ]);
            expect(sized.verdict).to.equal("blocked");
        });

        it("its nodes count as unbounded, so the other groups are still judged: a deadlock elsewhere is still blocked", () => {
            const r = run([
                unsized([{ key: "odd", value: "true", effect: "NO_SCHEDULE" }]),
                managed("apps", 3),
                app("web", { spreadHost: true }),
                pdb("web", { minAvailable: 3 }),
            ]);
            expect(r.verdict).to.equal("blocked");
            expect(r.groups.map((g) => [g.name, g.verdict])).to.deep.equal([
                ["odd", "undecided"],
                ["apps", "blocked"],
            ]);
            expect(problems(r)).to.match(
                /PodDisruptionBudget prod\/web blocks the eviction of web-\d \(Deployment prod\/web\) from node apps-1/,
            );
        });

        it("a group whose instance type lives in its launch template is unsized; one with neither gets EKS's default t3.medium", () => {
            const templated = changed(changed(managed("lt", 2), "instanceTypes", []), "launchTemplate", { id: "lt-1", version: "1" });
            const r = run([templated, app("web", { replicas: 1 })]);
            expect(r.groups[0].undecided).to.deep.equal([
                "its instance type is set in the launch template, which the rehearsal does not follow",
            ]);
            expect(r.inputUndecided).to.include("web-0 (Deployment prod/web) found no node, but the nodes of lt could not be counted");
            expect(r.verdict).to.equal("undecided");
            const bare = run([changed(managed("apps", 1, { zones: 1 }), "instanceTypes", [])]);
            expect(bare.groups[0].instanceType).to.equal("t3.medium");
        });
    });

    describe("the 15-minute eviction limit of a managed node group update (EKS User Guide, upgrade phase: PodEvictionFailure when pods have not left)", () => {
        it("fails when a budget would let go only after 15 minutes: a replacement Ready after 20 minutes holds the last pod past the limit", () => {
            const slow = withPodSpec(app("pair", { replicas: 2, cpu: "500m" }), "containers", [
                container(
                    "app",
                    { cpu: "500m", memory: "64Mi" },
                    { readinessProbe: { httpGet: { path: "/", port: 80 }, initialDelaySeconds: 1200 } },
                ),
            ]);
            const r = run([oneNode(), slow, pdb("pair", { maxUnavailable: 1 })]);
            const g = r.groups[0];
            expect(g.stalled).to.equal("wave 2: node apps-1 still holds pods after 15m (EKS eviction limit): PodEvictionFailure");
            expect(g.blocked.map((b) => [b.pod, b.pdb, b.why])).to.deep.equal([
                ["pair-1", "prod/pair", "the budget still waits for rescheduled pods when the window ends"],
            ]);
            // The update fails 15 minutes into wave 2, after the 2-minute scale-up.
            expect(g.estimatedSeconds).to.equal(120 + 900);
        });

        it("names every node of a parallel wave, and a budget that waits for pods with nowhere to run", () => {
            // MINIMAL, both nodes at once: the evicted pods have no node at all, so the budget never lets the others go.
            const r = run([
                managed("apps", 2, { zones: 1, update: { maxUnavailable: 2, updateStrategy: "MINIMAL" } }),
                app("web", { replicas: 4 }),
                pdb("web", { maxUnavailable: 2 }),
            ]);
            const g = r.groups[0];
            expect(g.stalled).to.equal("wave 1: nodes apps-1, apps-2 still hold pods after 15m (EKS eviction limit): PodEvictionFailure");
            expect(g.blocked.map((b) => b.why)).to.deep.equal([
                "the budget waits for 2 rescheduled pods that have nowhere to run, so they never get Ready",
                "the budget waits for 2 rescheduled pods that have nowhere to run, so they never get Ready",
            ]);
        });
    });

    describe("bare Pods (no controller recreates a Pod evicted from its node)", () => {
        it("an evicted bare Pod is gone: its workload reaches zero ready replicas, and the note says why", () => {
            const r = run([managed("apps", 3), app("solo", { kind: "Pod" })]);
            const g = r.groups[0];
            expect(g.zeroReady.map((z) => [z.workload, z.cause])).to.deep.equal([
                ["Pod prod/solo", "its last ready pod solo-0 is evicted from node apps-1"],
            ]);
            expect(g.notes).to.include("solo-0 (Pod prod/solo) is a bare Pod: nothing recreates it after its eviction");
            expect(g.unplaced).to.deep.equal([]);
        });
    });

    describe("Karpenter disruption budgets for drift (karpenter v1.14.1 nodepool.go GetAllowedDisruptionsByReason: the minimum over active budgets for the reason, percentages rounded up)", () => {
        const pool = (budgets: Record<string, unknown>[]) => changed(nodePool("general"), "spec.disruption", { budgets });
        const three = (budgets: Record<string, unknown>[]) => run([pool(budgets), app("web", { spreadHost: true })]);

        it("50% of 3 nodes rounds up to 2 at a time", () => {
            const r = three([{ nodes: "50%" }]);
            expect(r.groups[0].mechanism).to.include("Karpenter drift: 2 nodes at a time");
            expect(r.groups[0].waves.map((w) => w.drained.length)).to.deep.equal([2, 1]);
        });

        it("a budget for another reason does not limit drift; with none for Drifted, every node goes at once", () => {
            const limited = three([
                { nodes: "0", reasons: ["Underutilized"] },
                { nodes: "1", reasons: ["Drifted"] },
            ]);
            expect(limited.groups[0].mechanism).to.include("Karpenter drift: 1 node at a time");
            expect(limited.groups[0].stalled).to.equal(undefined);
            const unlimited = three([{ nodes: "0", reasons: ["Empty", "Underutilized"] }]);
            expect(unlimited.groups[0].mechanism).to.include("Karpenter drift: 3 nodes at a time");
            expect(unlimited.groups[0].waves.map((w) => w.drained.length)).to.deep.equal([3]);
        });

        it("a scheduled budget is active only in its window: noted, not applied", () => {
            const r = three([{ nodes: "0", schedule: "0 9 * * mon-fri", duration: "8h" }, { nodes: "1" }]);
            const g = r.groups[0];
            expect(g.stalled).to.equal(undefined);
            expect(g.mechanism).to.include("1 node at a time");
            expect(g.notes).to.include('budget nodes 0 applies during "0 9 * * mon-fri" for 8h: drift pauses then');
            const percent = three([{ nodes: "50%", schedule: "@daily", duration: "1h" }]).groups[0];
            expect(percent.notes).to.include('budget nodes 50% applies during "@daily" for 1h: drift is limited to 2 nodes then');
        });

        it("without terminationGracePeriod a pod under two budgets keeps its node from drift: the eviction API refuses it (registry/core/pod/storage/eviction.go)", () => {
            const second: TestResource = changed(
                { ...pdb("web", { maxUnavailable: 1 }), name: "prod-web-2-pdb" },
                "metadata.name",
                "web-2",
            );
            const r = run([nodePool("general"), app("web", { spreadHost: true }), pdb("web", { maxUnavailable: 1 }), second]);
            const g = r.groups[0];
            expect(g.stalled).to.equal(
                "Karpenter never disrupts node general-1: web-0 (Deployment prod/web) is held by PodDisruptionBudget prod/web and prod/web-2, and the NodePool sets no terminationGracePeriod to override it",
            );
            expect(g.blocked.map((b) => [b.pod, b.node, b.pdb, b.why])).to.deep.equal([
                ["web-0", "general-1", "prod/web and prod/web-2", "the pod is matched by more than one PodDisruptionBudget"],
            ]);
        });

        it("without terminationGracePeriod a budget that allows no disruption is named with its pods", () => {
            const r = run([nodePool("general"), app("web", { spreadHost: true }), pdb("web", { maxUnavailable: 0 })]);
            expect(r.groups[0].blocked.map((b) => [b.pod, b.pdb, b.why])).to.deep.equal([
                ["web-0", "prod/web", "maxUnavailable: 0 allows no disruption of its 3 pods"],
            ]);
        });
    });

    describe("placement order (docs/drain.md Placement: deterministic; Karpenter's queue: largest requests first, karpenter v1.14.1 scheduling/queue.go byCPUAndMemoryDescending)", () => {
        it("places workloads in order of kind, namespace and name, whatever the input order: of two 1500m pods on one node, alpha's gets it", () => {
            for (const order of [
                ["zeta", "alpha"],
                ["alpha", "zeta"],
            ]) {
                const r = run([oneNode(), ...order.map((n) => app(n, { replicas: 1, cpu: "1500m" }))]);
                expect(
                    r.unschedulable.map((u) => u.workload),
                    order.join(),
                ).to.deep.equal(["Deployment prod/zeta"]);
            }
        });

        it("fills existing nodes in that order, not by size: alpha's 500m pod gets the node before zeta's 1500m one", () => {
            const r = run([oneNode(), app("zeta", { replicas: 1, cpu: "1500m" }), app("alpha", { replicas: 1, cpu: "500m" })]);
            expect(r.unschedulable.map((u) => [u.pod, u.workload, u.workloadUrn, u.reasons])).to.deep.equal([
                [
                    "zeta-0",
                    "Deployment prod/zeta",
                    "urn:pulumi:test::eks-platform::kubernetes:apps/v1:Deployment::prod-zeta",
                    "0/1 nodes are available: 1 insufficient cpu",
                ],
            ]);
        });

        it("gives Karpenter the largest pending pods first: a pool with room for one node takes zeta's 1500m pod before alpha's 500m", () => {
            const pool = changed(nodePool("general"), "spec.limits", { cpu: "2" });
            const r = run([pool, app("alpha", { replicas: 1, cpu: "500m" }), app("zeta", { replicas: 1, cpu: "1500m" })]);
            expect(r.unschedulable.map((u) => [u.workload, u.reasons])).to.deep.equal([
                ["Deployment prod/alpha", "0/1 nodes are available: 1 insufficient cpu; NodePool general: at its limits (cpu 2)"],
            ]);
        });

        it("of equal CPU, the larger memory request goes first", () => {
            const pool = changed(nodePool("general"), "spec.limits", { cpu: "2" });
            const r = run([
                pool,
                app("alpha", { replicas: 1, cpu: "1000m", memory: "256Mi" }),
                app("zeta", { replicas: 1, cpu: "1000m", memory: "4Gi" }),
            ]);
            expect(r.unschedulable.map((u) => u.workload)).to.deep.equal(["Deployment prod/alpha"]);
        });

        it("counts a NodeClaim at its largest instance type while it is packed, then at its real size: a second pass fits what the first refused (karpenter v1.14.1 scheduler.go subtractMax)", () => {
            // Two pods that must not share a node; the pool may launch m6i.large or m6i.xlarge within 4 vCPU.
            const pool = changed(
                nodePool("general", {
                    requirements: [
                        { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
                        { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.large", "m6i.xlarge"] },
                    ],
                }),
                "spec.limits",
                { cpu: "4" },
            );
            const apart = withPodSpec(app("web", { replicas: 2, cpu: "1000m" }), "affinity", {
                podAntiAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: [
                        { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: { app: "web" } } },
                    ],
                },
            });
            const r = run([pool, apart]);
            expect(r.unschedulable).to.deep.equal([]);
            expect(r.groups[0]).to.include({ nodes: 2, instanceType: "m6i.large" });
        });

        it("an Auto Scaling group balances its nodes over its own zones only: a one-subnet group in a three-zone cluster surges one node", () => {
            const r = run([managed("apps", 2, { zones: 1 }), managed("wide", 1, { zones: 3 })], "apps");
            expect(r.zones).to.deep.equal(["zone-a", "zone-b", "zone-c"]);
            expect(r.groups[0].mechanism).to.include("surge 1 new node (one per zone in use");
        });
    });

    describe("NodePool instance types (docs/drain.md Placement: launched as the smallest type that holds the pods, the rehearsal's stand-in for Karpenter's cheapest)", () => {
        const pool = (types: string[]) =>
            nodePool("general", {
                requirements: [
                    { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
                    { key: "node.kubernetes.io/instance-type", operator: "In", values: types },
                ],
            });
        const launched = (types: string[]) =>
            run([pool(types), app("web", { replicas: 1, cpu: "100m", memory: "64Mi" })]).groups[0].instanceType;

        it("smallest by vCPU, then memory, then name; a type the data cannot size is never launched", () => {
            expect(launched(["m6i.xlarge", "r6i.large", "m6i.large"])).to.equal("m6i.large");
            expect(launched(["r6i.large", "m6i.large", "t3.medium"])).to.equal("t3.medium");
            expect(launched(["m6i.large", "m5.large"])).to.equal("m5.large");
            expect(launched(["c6i.large", "m6i.xlarge"])).to.equal("m6i.xlarge");
        });

        it("a requirement on an instance label the data does not carry leaves the pool undecided, not narrowed", () => {
            const r = run([
                changed(pool(["m6i.large"]), "spec.template.spec.requirements", [
                    { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
                    { key: "karpenter.k8s.aws/instance-hypervisor", operator: "In", values: ["nitro"] },
                ]),
            ]);
            expect(r.groups[0].undecided).to.deep.equal([
                "its requirement on karpenter.k8s.aws/instance-hypervisor is not in the instance data, so the instance types it allows are not narrowed by it",
            ]);
            expect(r.verdict).to.equal("undecided");
        });

        it("a managed group of a type the data lists without a size (c5a.metal: max pods only) is unsized", () => {
            const r = run([managed("metal", 1, { types: ["c5a.metal"] })]);
            expect(r.groups[0].undecided).to.deep.equal([
                "the size of instance type c5a.metal is not in the instance data, so its nodes' capacity is unknown",
            ]);
        });
    });

    describe("Karpenter terminationGracePeriod (karpenter v1.14.1 termination/terminator DeleteExpiringPods: a pod is deleted at the node's expiry minus its own grace period)", () => {
        const held = (name: string, grace: number) => [app(name, { replicas: 1, grace }), pdb(name, { minAvailable: 1 })];

        it("deletes the pod with the longest grace period first, each early enough to end by the window", () => {
            // Both pods share one node; neither budget ever lets go. 10m − 5m = 5m for b, 10m − 1m = 9m for a.
            const r = run([nodePool("general", { terminationGracePeriod: "10m" }), ...held("a", 60), ...held("b", 300)]);
            const g = r.groups[0];
            expect(g.nodes).to.equal(1);
            expect(g.deleted.map((d) => [d.pod, d.pdb, d.at, d.graceSeconds])).to.deep.equal([
                ["b-0", "prod/b", 300, 300],
                ["a-0", "prod/a", 540, 60],
            ]);
            expect(g.killed).to.deep.equal([]);
            expect(g.longestDrain?.seconds).to.equal(600);
            // Both are gone at 10m; the first to get there is named as the one that leaves last.
            expect(g.waves[0].slowest).to.include({ pod: "b-0", left: "deleted", at: 300, pdb: "prod/b" });
        });

        it("a grace period longer than the window is cut short: deleted at once, it cannot end by the pool's terminationGracePeriod", () => {
            const r = run([nodePool("general", { terminationGracePeriod: "1m" }), ...held("slow", 120)]);
            const g = r.groups[0];
            expect(g.deleted).to.deep.equal([]);
            expect(g.killed.map((k) => [k.pod, k.pdb, k.how])).to.deep.equal([
                [
                    "slow-0",
                    "prod/slow",
                    "Karpenter deletes it past its PodDisruptionBudget prod/slow at 0s, too late for its 2m grace period to end by the 1m terminationGracePeriod of NodePool general",
                ],
            ]);
            // The node is gone when the window ends.
            expect(g.longestDrain?.seconds).to.equal(60);
            expect(r.verdict).to.equal("blocked");
        });
    });

    describe("Karpenter NodeClaims (karpenter v1.14.1 provisioning/scheduling: pods packed while an allowed instance type holds them, DaemonSet overhead included, then launched)", () => {
        const pool = (types = ["m6i.large"]) =>
            nodePool("general", {
                requirements: [
                    { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
                    { key: "node.kubernetes.io/instance-type", operator: "In", values: types },
                ],
            });

        it("packs within the type's allocatable memory and pod slots: two 4Gi pods need two m6i.large, 30 tiny pods too", () => {
            expect(run([pool(), app("mem", { replicas: 2, cpu: "100m", memory: "4Gi" })]).groups[0].nodes).to.equal(2);
            expect(run([pool(), app("mem", { replicas: 1, cpu: "100m", memory: "4Gi" })]).groups[0].nodes).to.equal(1);
            expect(run([pool(), app("tiny", { replicas: 30, cpu: "10m", memory: "16Mi" })]).groups[0].nodes).to.equal(2);
            expect(run([pool(), app("tiny", { replicas: 29, cpu: "10m", memory: "16Mi" })]).groups[0].nodes).to.equal(1);
        });

        it("launches the smallest type that holds everything packed: 1000m and 1500m share one m6i.xlarge", () => {
            const r = run([
                pool(["m6i.large", "m6i.xlarge"]),
                app("a", { replicas: 1, cpu: "1500m" }),
                app("b", { replicas: 1, cpu: "1000m" }),
            ]);
            expect(r.groups[0]).to.include({ nodes: 1, instanceType: "m6i.xlarge" });
            expect(r.unschedulable).to.deep.equal([]);
        });

        it("counts a DaemonSet once per node: with a 500m DaemonSet, three 400m pods fit one m6i.large (1700m of 1930m)", () => {
            expect(run([pool(), daemonSet("agent", "500m"), app("web", { replicas: 3, cpu: "400m" })]).groups[0].nodes).to.equal(1);
            expect(run([pool(), daemonSet("agent", "500m"), app("web", { replicas: 4, cpu: "400m" })]).groups[0].nodes).to.equal(2);
        });

        it("counts only DaemonSets that tolerate the pool's taints: an intolerant 1000m DaemonSet leaves a tainted pool's node whole", () => {
            const tainted = changed(pool(), "spec.template.spec.taints", [{ key: "dedicated", value: "web", effect: "NoSchedule" }]);
            const web = changed(app("web", { replicas: 1, cpu: "1500m" }), "spec.template.spec.tolerations", [
                { key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" },
            ]);
            const r = run([tainted, daemonSet("agent", "1000m"), web]);
            expect(r.unschedulable).to.deep.equal([]);
            expect(r.groups[0].nodes).to.equal(1);
            // Tolerating the taint, the DaemonSet runs there and the pod no longer fits any type the pool allows.
            const everywhere = daemonSet("agent", "1000m", { tolerations: [{ operator: "Exists" }] });
            expect(run([tainted, everywhere, web]).unschedulable.map((u) => u.reasons)).to.deep.equal([
                "0/0 nodes are available; NodePool general: no instance type it allows fits the pod's requests (cpu 1500m, memory 256Mi)",
            ]);
        });

        it("a pod larger than every type the pool allows has nowhere to run, with its requests in the reason", () => {
            const r = run([pool(), app("huge", { replicas: 1, cpu: "3000m" })]);
            expect(r.unschedulable.map((u) => [u.pod, u.reasons])).to.deep.equal([
                [
                    "huge-0",
                    "0/0 nodes are available; NodePool general: no instance type it allows fits the pod's requests (cpu 3000m, memory 256Mi)",
                ],
            ]);
        });

        it("honours zone spread when it launches: 3 replicas with maxSkew 1 over 3 zones get a node per zone, maxSkew 2 packs two (karpenter scheduling/topology.go)", () => {
            const zoneSpread = (maxSkew: number) =>
                withPodSpec(app("web"), "topologySpreadConstraints", [
                    {
                        maxSkew,
                        topologyKey: "topology.kubernetes.io/zone",
                        whenUnsatisfiable: "DoNotSchedule",
                        labelSelector: { matchLabels: { app: "web" } },
                    },
                ]);
            expect(run([pool(), zoneSpread(1)]).groups[0].nodes).to.equal(3);
            expect(run([pool(), zoneSpread(2)]).groups[0].nodes).to.equal(2);
            // Without the rule, all three share one node.
            expect(run([pool(), app("web")]).groups[0].nodes).to.equal(1);
        });
    });

    describe("node labels the kubelet and cloud provider set (kubernetes.io/hostname, topology.kubernetes.io/region)", () => {
        const subnet = (zone: string): TestResource => ({
            type: "aws:ec2/subnet:Subnet",
            name: `network-private-${zone}`,
            props: { availabilityZone: zone, cidrBlock: "10.0.0.0/19" },
        });
        const pinned = (selector: Record<string, string>) => withPodSpec(app("web", { replicas: 1 }), "nodeSelector", selector);

        it("a node's region is its zone without the letter: a selector on us-east-1 matches, us-west-2 does not", () => {
            const nodes = [subnet("us-east-1a"), managed("apps", 1, { zones: 1 })];
            expect(run([...nodes, pinned({ "topology.kubernetes.io/region": "us-east-1" })]).unschedulable).to.deep.equal([]);
            expect(
                run([...nodes, pinned({ "topology.kubernetes.io/region": "us-west-2" })]).unschedulable.map((u) => u.reasons),
            ).to.deep.equal(["0/1 nodes are available: 1 node affinity/selector mismatch"]);
        });

        it("a node selector on kubernetes.io/hostname picks that node among nodes alike", () => {
            const nodes = managed("apps", 2, { zones: 1 });
            const r = run([nodes, pinned({ "kubernetes.io/hostname": "apps-2" })]);
            expect(r.unschedulable).to.deep.equal([]);
            // On apps-2, it is evicted in the second upgrade wave, not the first.
            expect(r.groups[0].waves.filter((w) => w.phase === "upgrade").map((w) => w.evictions)).to.deep.equal([0, 1]);
            expect(run([nodes, pinned({ "kubernetes.io/hostname": "apps-9" })]).unschedulable.map((u) => u.reasons)).to.deep.equal([
                "0/2 nodes are available: 2 node affinity/selector mismatch",
            ]);
        });
    });

    describe("how the groups are read (EC2 Auto Scaling PutLifecycleHook, RefreshPreferences and CreateAutoScalingGroup; EKS CreateNodegroup)", () => {
        const namedHook = (name: string, group: string | undefined, heartbeat?: number): TestResource => ({
            type: "aws:autoscaling/lifecycleHook:LifecycleHook",
            name: `nodegroups-${name}-terminate`,
            props: {
                ...(group !== undefined ? { autoscalingGroupName: group } : {}),
                lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
                defaultResult: "CONTINUE",
                ...(heartbeat !== undefined ? { heartbeatTimeout: heartbeat } : {}),
            },
        });

        it("a lifecycle hook belongs to the Auto Scaling group it names; with two groups, each gets its own", () => {
            const r = run([
                changed(asg("batch", 1), "name", "batch"),
                changed(asg("other", 1), "name", "other"),
                namedHook("other", "other", 600),
                namedHook("batch", "batch", 120),
            ]);
            expect(r.groups.map((g) => [g.name, g.windows.map((w) => `${w.seconds} ${w.source}`)])).to.deep.equal([
                ["batch", ["120 heartbeat of lifecycle hook nodegroups-batch-terminate"]],
                ["other", ["600 heartbeat of lifecycle hook nodegroups-other-terminate"]],
            ]);
        });

        it("a hook that names neither group, among two groups, belongs to none: their instances terminate without a drain", () => {
            const r = run([
                changed(asg("batch", 1), "name", "batch"),
                changed(asg("other", 1), "name", "other"),
                namedHook("x", "elsewhere", 120),
            ]);
            expect(r.groups.map((g) => g.mechanism.includes("no termination lifecycle hook"))).to.deep.equal([true, true]);
        });

        it("a hook without heartbeatTimeout holds an instance for 3600 s, the API's default", () => {
            const g = run([asg("batch", 1), namedHook("batch", undefined)]).groups[0];
            expect(g.windows).to.deep.equal([{ seconds: 3600, source: "heartbeat of lifecycle hook nodegroups-batch-terminate" }]);
            expect(g.mechanism).to.include("lifecycle hook nodegroups-batch-terminate (1h heartbeat)");
        });

        it("instance warmup: the refresh's instanceWarmup, else the group's defaultInstanceWarmup, else its healthCheckGracePeriod", () => {
            const noPreference = changed(asg("batch", 1), "instanceRefresh.preferences", { minHealthyPercentage: 90 });
            const warmup = (r: TestResource) => {
                const g = run([r, hook(300)]).groups[0];
                return [g.mechanism.slice(g.mechanism.lastIndexOf(", ") + 2), g.waves[0].seconds];
            };
            expect(warmup(asg("batch", 1))).to.deep.equal(["1m warmup", 120 + 60]);
            expect(warmup(changed(changed(noPreference, "defaultInstanceWarmup", 300), "healthCheckGracePeriod", 90))).to.deep.equal([
                "5m warmup",
                120 + 300,
            ]);
            expect(warmup(changed(noPreference, "healthCheckGracePeriod", 90))).to.deep.equal(["1m 30s warmup", 120 + 90]);
            expect(warmup(noPreference)).to.deep.equal(["0s warmup", 120]);
        });

        it("a group's desired size is scalingConfig.desiredSize, else minSize; one above 1 000 nodes is undecided, not replayed", () => {
            const noDesired = changed(managed("apps", 2, { zones: 1 }), "scalingConfig", { minSize: 2, maxSize: 4 });
            expect(run([noDesired]).groups[0].nodes).to.equal(2);
            const huge = changed(managed("apps", 2), "scalingConfig", { minSize: 1, desiredSize: 1001, maxSize: 2000 });
            const r = run([huge]);
            expect(r.groups[0].nodes).to.equal(0);
            expect(r.groups[0].undecided).to.deep.equal(["its desired size 1001 is above the 1000 the rehearsal replays one by one"]);
            const half = run([changed(asg("batch", 1), "desiredCapacity", 1.5)]).groups[0];
            expect(half.undecided).to.include("its desired capacity 1.5 is not a whole number of 0 or more");
        });

        it("a Spot group that may get a type the data cannot size is undecided: any of its types may come", () => {
            const spot = changed(managed("apps", 1, { zones: 1, types: ["m6i.large", "r5.large"] }), "capacityType", "SPOT");
            const g = run([spot]).groups[0];
            expect(g.instanceType).to.equal("r5.large");
            expect(g.undecided).to.deep.equal([
                "the size of instance type r5.large is not in the instance data, so its nodes' capacity is unknown",
            ]);
            // On-demand, the first type is the one launched.
            expect(run([managed("apps", 1, { zones: 1, types: ["m6i.large", "r5.large"] })]).groups[0].undecided).to.deep.equal([]);
        });
    });

    describe("what the rehearsal reads of a pod's topology, and says it does not model", () => {
        const spreadOn = (topologyKey: string, matchLabels: Record<string, string> = { app: "web" }) =>
            withPodSpec(app("web", { replicas: 2 }), "topologySpreadConstraints", [
                { maxSkew: 1, topologyKey, whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels } },
            ]);
        const notModelled = (r: Rehearsal) => r.notModelled.filter((n) => n.startsWith("Deployment prod/web: "));

        it("spread on a key other than hostname or zone, or over other pods, is listed as not modelled, per workload", () => {
            expect(notModelled(run([oneNode(), spreadOn("node.kubernetes.io/instance-type")]))).to.deep.equal([
                "Deployment prod/web: a topology spread constraint on node.kubernetes.io/instance-type (only hostname and zone domains are modelled)",
            ]);
            expect(notModelled(run([oneNode(), spreadOn("kubernetes.io/hostname", { app: "db" })]))).to.deep.equal([
                "Deployment prod/web: a topology spread constraint on kubernetes.io/hostname whose selector does not pick the workload's own pods",
            ]);
            // Not modelled, the rule does not bind: both pods share the one node.
            expect(run([oneNode(), spreadOn("node.kubernetes.io/instance-type")]).unschedulable).to.deep.equal([]);
        });

        it("required anti-affinity on another key or over other pods, and pod affinity, are listed as not modelled", () => {
            const term = (topologyKey: string, app: string) => ({ topologyKey, labelSelector: { matchLabels: { app } } });
            const affinity = withPodSpec(app("web", { replicas: 2 }), "affinity", {
                podAntiAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: [
                        term("node.kubernetes.io/instance-type", "web"),
                        term("kubernetes.io/hostname", "db"),
                    ],
                },
                podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term("kubernetes.io/hostname", "cache")] },
            });
            const r = run([oneNode(), affinity]);
            expect(notModelled(r)).to.deep.equal([
                "Deployment prod/web: a required pod anti-affinity on node.kubernetes.io/instance-type (only hostname and zone domains are modelled)",
                "Deployment prod/web: a required pod anti-affinity on kubernetes.io/hostname whose selector does not pick the workload's own pods",
                "Deployment prod/web: pod affinity",
            ]);
            expect(r.unschedulable).to.deep.equal([]);
        });
    });

    describe("node labels of a group (EKS: eks.amazonaws.com/nodegroup and eks.amazonaws.com/capacityType on managed nodes; cluster-autoscaler node-template tags on an ASG)", () => {
        const pinned = (selector: Record<string, string>) => withPodSpec(app("web", { replicas: 1 }), "nodeSelector", selector);

        it("a managed node carries its group's name (the prefix without its dash) and its capacity type", () => {
            const groups = [managed("apps", 1, { zones: 1 }), changed(managed("spot", 1, { zones: 1 }), "capacityType", "SPOT")];
            const on = (selector: Record<string, string>) => run([...groups, pinned(selector)]);
            expect(on({ "eks.amazonaws.com/nodegroup": "apps" }).unschedulable).to.deep.equal([]);
            expect(on({ "eks.amazonaws.com/capacityType": "SPOT" }).unschedulable).to.deep.equal([]);
            // Each lands on its group: evicted in that group's rollout only.
            const evictions = (selector: Record<string, string>, group: string) =>
                run([...groups, pinned(selector)], group).groups[0].waves.reduce((n, w) => n + w.evictions, 0);
            expect(evictions({ "eks.amazonaws.com/capacityType": "SPOT" }, "spot")).to.equal(1);
            expect(evictions({ "eks.amazonaws.com/capacityType": "SPOT" }, "apps")).to.equal(0);
            expect(evictions({ "eks.amazonaws.com/capacityType": "ON_DEMAND" }, "apps")).to.equal(1);
            expect(on({ "eks.amazonaws.com/nodegroup": "apps-" }).unschedulable.map((u) => u.reasons)).to.deep.equal([
                "0/2 nodes are available: 2 node affinity/selector mismatch",
            ]);
        });

        it("an ASG's nodes carry the labels and taints of its node-template tags", () => {
            const tags = [
                { key: "k8s.io/cluster-autoscaler/node-template/label/workload", value: "batch" },
                { key: "k8s.io/cluster-autoscaler/node-template/taint/dedicated", value: "batch:NoSchedule" },
            ];
            const group = [asg("batch", 1, { tags }), hook(300)];
            const batch = changed(pinned({ workload: "batch" }), "spec.template.spec.tolerations", [
                { key: "dedicated", operator: "Equal", value: "batch", effect: "NoSchedule" },
            ]);
            expect(run([...group, batch]).unschedulable).to.deep.equal([]);
            expect(run([...group, pinned({ workload: "batch" })]).unschedulable.map((u) => u.reasons)).to.deep.equal([
                "0/1 nodes are available: 1 untolerated taint dedicated=batch:NoSchedule",
            ]);
        });
    });

    describe("which lifecycle hook is an Auto Scaling group's (readGroups.ts hookOf: the engine's property dependency, else the group's name, else a shared parent)", () => {
        const hookProps = {
            lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
            defaultResult: "CONTINUE",
        };
        const resource = (r: TestResource, extra: Record<string, unknown> = {}) => ({
            type: r.type,
            name: r.name,
            urn: urnOf(r),
            props: r.props,
            ...extra,
        });
        const groups = [asg("batch", 1), asg("other", 1)].map((g) =>
            changed(g, "name", g.name === "nodegroups-batch-asg" ? "batch" : "other"),
        );
        const heartbeats = (r: Rehearsal) => Object.fromEntries(r.groups.map((g) => [g.name, g.windows.map((w) => w.seconds)]));

        it("a hook whose autoscalingGroupName depends on the group's resource is that group's", () => {
            const h: TestResource = {
                type: "aws:autoscaling/lifecycleHook:LifecycleHook",
                name: "h",
                props: { ...hookProps, heartbeatTimeout: 240 },
            };
            const r = rehearse([
                ...groups.map((g) => resource(g)),
                resource(h, { propertyDependencies: { autoscalingGroupName: [{ urn: urnOf(groups[1]) }] } }),
            ]);
            expect(heartbeats(r)).to.deep.equal({ batch: [], other: [240] });
        });

        it("a hook that shares the group's parent component is that group's", () => {
            const h: TestResource = {
                type: "aws:autoscaling/lifecycleHook:LifecycleHook",
                name: "h",
                props: { ...hookProps, heartbeatTimeout: 240 },
            };
            const parent = { urn: "urn:pulumi:test::eks-platform::platform:nodegroups:Batch::batch" };
            const r = rehearse([resource(groups[0], { parent }), resource(groups[1]), resource(h, { parent })]);
            expect(heartbeats(r)).to.deep.equal({ batch: [240], other: [] });
        });

        it("a hook that is not for terminations is no drain's", () => {
            const launching = { ...hook(300), props: { ...hook(300).props, lifecycleTransition: "autoscaling:EC2_INSTANCE_LAUNCHING" } };
            expect(run([asg("batch", 1), launching]).groups[0].mechanism).to.include("no termination lifecycle hook");
        });
    });

    describe("a NodePool's budget counts (Karpenter v1 NodePool spec.disruption.budgets[].nodes: a count or a percentage, as a string)", () => {
        it("a count of 10 of 12 nodes drifts 10, then 2", () => {
            const pool = changed(nodePool("general"), "spec.disruption", { budgets: [{ nodes: "10" }] });
            const r = run([pool, app("web", { replicas: 12, spreadHost: true })]);
            expect(r.groups[0].nodes).to.equal(12);
            expect(r.groups[0].waves.map((w) => w.drained.length)).to.deep.equal([10, 2]);
        });
    });

    describe("a budget lets go when a rescheduled pod is Ready (kubernetes disruption controller: currentHealthy counts Ready pods), each pod on its own clock", () => {
        it("a Deployment's pod Ready 30 s after its eviction frees the budget then, though a StatefulSet pod evicted first is Ready only at 90 s", () => {
            // One node: db-0 (StatefulSet, recreated after its 60 s grace) and web-0, web-1 (budget maxUnavailable 1).
            const r = run([
                oneNode(),
                app("db", { replicas: 1, kind: "StatefulSet" }),
                app("web", { replicas: 2 }),
                pdb("web", { maxUnavailable: 1 }),
            ]);
            const g = r.groups[0];
            expect(g.waits.map((w) => [w.pod, w.pdb, w.seconds])).to.deep.equal([["web-1", "prod/web", 30]]);
            // web-1 goes at 30 s and takes its 60 s grace period: the drain lasts 90 s.
            expect(g.longestDrain?.seconds).to.equal(90);
        });
    });

    describe("a budget's wait runs from the first refusal (kubernetes eviction API: 429 until disruptionsAllowed > 0)", () => {
        it("a StatefulSet pod held while another pod's replacement gets Ready waits from its first refusal: 90 s, not 60 s", () => {
            // db-0 goes at 0 s (db-2 Ready at 60 s + 30 s); web-0 goes too and web-1 is Ready at 30 s, which frees nothing for db-1.
            const r = run([
                oneNode(),
                app("db", { replicas: 2, cpu: "250m", kind: "StatefulSet" }),
                pdb("db", { maxUnavailable: 1 }),
                app("web", { replicas: 1 }),
            ]);
            expect(r.groups[0].waits.map((w) => [w.pod, w.pdb, w.seconds])).to.deep.equal([["db-1", "prod/db", 90]]);
        });

        const shortBudget = () => {
            // One zone, two replicas that must not share a zone: web-1 never runs, so minAvailable 1 leaves no disruption to spare.
            const zonal = nodePool("zonal", {
                requirements: [
                    { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
                    { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.large"] },
                    { key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1a"] },
                ],
            });
            const apart = withPodSpec(app("web", { replicas: 2 }), "affinity", {
                podAntiAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: [
                        { topologyKey: "topology.kubernetes.io/zone", labelSelector: { matchLabels: { app: "web" } } },
                    ],
                },
            });
            return run([zonal, apart, pdb("web", { minAvailable: 1 })]);
        };

        it("without terminationGracePeriod, a budget short of a pod that can never run blocks the drain for good, named on the budget", () => {
            const r = shortBudget();
            expect(r.unschedulable.map((u) => u.pod)).to.deep.equal(["web-1"]);
            expect(r.groups[0].blocked.map((b) => [b.pod, b.node, b.pdb, b.why])).to.deep.equal([
                ["web-0", "zonal-1", "prod/web", "the budget waits for pods that never get Ready"],
            ]);
            expect(problems(r)).to.match(
                /PodDisruptionBudget prod\/web blocks the eviction of web-0 \(Deployment prod\/web\) from node zonal-1 of NodePool zonal, for good/,
            );
            expect(r.verdict).to.equal("blocked");
        });

        // A drain that can never finish stops drift in that wave, as it stops the managed and self-managed rollouts.
        it("... and the drift rollout stalls in that wave, its node never drained", () => {
            const g = shortBudget().groups[0];
            expect(g.stalled).to.equal("wave 1: the evictions from zonal-1 can never finish");
        });
    });

    describe("a NodePool's limits count only its own nodes (karpenter v1.14.1 state/cluster.go: usage per NodePool)", () => {
        it("a pool exactly at its limit still replaces its nodes when a managed group runs beside it", () => {
            const pool = changed(nodePool("general"), "spec.limits", { cpu: "6", memory: "1024Gi" });
            const spread = changed(app("web", { spreadHost: true }), "spec.template.spec.nodeSelector", {
                "karpenter.sh/nodepool": "general",
            });
            const r = run([managed("apps", 2, { zones: 1 }), pool, spread, pdb("web", { maxUnavailable: 1 })], "general");
            const g = r.groups[0];
            expect(g.nodes).to.equal(3);
            expect(g.stalled).to.equal(undefined);
            expect(g.waves.map((w) => w.phase)).to.deep.equal(["drift", "drift", "drift"]);
            // The replacements carry the pool's label, so the pods pinned to it move there.
            expect(g.unplaced).to.deep.equal([]);
        });
    });

    describe("kube-scheduler's filters at their boundaries (NodeResourcesFit: a request up to what is left fits; PodTopologySpread: skew against the global minimum over the domains the pod's node affinity allows)", () => {
        it("a pod requesting exactly a node's allocatable CPU or memory fits; one more does not", () => {
            expect(run([oneNode(), app("full", { replicas: 1, cpu: "1930m" })]).unschedulable).to.deep.equal([]);
            expect(run([oneNode(), app("full", { replicas: 1, cpu: "1931m" })]).unschedulable.map((u) => u.reasons)).to.deep.equal([
                "0/1 nodes are available: 1 insufficient cpu",
            ]);
            expect(run([oneNode(), app("full", { replicas: 1, cpu: "100m", memory: "6903Mi" })]).unschedulable).to.deep.equal([]);
            expect(
                run([oneNode(), app("full", { replicas: 1, cpu: "100m", memory: "6904Mi" })]).unschedulable.map((u) => u.reasons),
            ).to.deep.equal(["0/1 nodes are available: 1 insufficient memory"]);
        });

        it("Karpenter packs up to the type's allocatable too: a 1930m pod gets one m6i.large", () => {
            const r = run([nodePool("general"), app("full", { replicas: 1, cpu: "1930m" })]);
            expect(r.unschedulable).to.deep.equal([]);
            expect(r.groups[0]).to.include({ nodes: 1, instanceType: "m6i.large" });
        });

        it("hostname spread over a single node is always satisfied: one domain has no skew", () => {
            expect(run([oneNode(), app("web", { replicas: 2, spreadHost: true })]).unschedulable).to.deep.equal([]);
        });

        it("zone spread counts against the least-filled zone: 4 replicas over 3 zones place as 2/1/1", () => {
            const zoneSpread = withPodSpec(app("web", { replicas: 4 }), "topologySpreadConstraints", [
                {
                    maxSkew: 1,
                    topologyKey: "topology.kubernetes.io/zone",
                    whenUnsatisfiable: "DoNotSchedule",
                    labelSelector: { matchLabels: { app: "web" } },
                },
            ]);
            expect(run([managed("apps", 3), zoneSpread]).unschedulable).to.deep.equal([]);
            // Pinned to zone-a, the pods have one domain only: no skew, all four share zone-a's node.
            const oneZone = withPodSpec(zoneSpread, "nodeSelector", { "topology.kubernetes.io/zone": "zone-a" });
            expect(run([managed("apps", 3), oneZone]).unschedulable).to.deep.equal([]);
        });

        it("domains are only the nodes the pod's node selector allows (nodeAffinityPolicy Honor): another group's empty node does not skew a hostname spread", () => {
            const pinned = withPodSpec(app("web", { replicas: 2, spreadHost: true }), "nodeSelector", {
                "eks.amazonaws.com/nodegroup": "apps",
            });
            const r = run([managed("apps", 1, { zones: 1 }), managed("other", 1, { zones: 1 }), pinned]);
            expect(r.unschedulable).to.deep.equal([]);
        });
    });

    describe("NodePool limits at launch (karpenter v1.14.1 scheduler.go filterByRemainingResources: a type must fit what every limit leaves)", () => {
        it("a memory limit alone bounds launches by memory: 16Gi holds two m6i.large, a third pod has nowhere to run", () => {
            const pool = changed(nodePool("general"), "spec.limits", { memory: "16Gi" });
            const r = run([pool, app("big", { replicas: 3, cpu: "1500m" })]);
            expect(r.groups[0].nodes).to.equal(2);
            expect(r.unschedulable.map((u) => u.reasons)).to.deep.equal([
                "0/2 nodes are available: 2 insufficient cpu; NodePool general: at its limits (memory 16Gi)",
            ]);
            const roomy = changed(nodePool("general"), "spec.limits", { memory: "1024Gi" });
            expect(run([roomy, app("big", { replicas: 3, cpu: "1500m" })]).unschedulable).to.deep.equal([]);
        });

        it("a GPU pod no type of the pool can hold is named with its GPU request", () => {
            const gpu = withPodSpec(app("train", { replicas: 1 }), "containers", [
                container(
                    "train",
                    { cpu: "500m", memory: "1Gi" },
                    { resources: { requests: { cpu: "500m", memory: "1Gi" }, limits: { "nvidia.com/gpu": "1" } } },
                ),
            ]);
            expect(run([nodePool("general"), gpu]).unschedulable.map((u) => u.reasons)).to.deep.equal([
                "0/0 nodes are available; NodePool general: no instance type it allows fits the pod's requests (cpu 500m, memory 1024Mi, nvidia.com/gpu 1)",
            ]);
        });

        it("a claim that held nothing leaves no gap in the pool's node names: the next node is general-1", () => {
            const r = run([nodePool("general"), app("huge", { replicas: 1, cpu: "3000m" }), app("web", { replicas: 1 })]);
            expect(r.groups[0].waves.map((w) => w.drained)).to.deep.equal([["general-1"]]);
        });
    });

    describe("a pod moved onto a node Karpenter launches during a rollout (Karpenter provisioning; docs/drain.md Timing: 120 s to a Ready node)", () => {
        it("is Ready after the node's launch and its own start: the budget waits 150 s", () => {
            // MINIMAL: the only managed node is cordoned, so web-0's replacement goes to a new NodeClaim.
            const r = run(
                [
                    managed("apps", 1, { zones: 1, update: { maxUnavailable: 1, updateStrategy: "MINIMAL" } }),
                    nodePool("general"),
                    app("web", { replicas: 2 }),
                    pdb("web", { maxUnavailable: 1 }),
                ],
                "apps",
            );
            const g = r.groups[0];
            expect(g.unplaced).to.deep.equal([]);
            expect(g.waits.map((w) => [w.pod, w.pdb, w.seconds])).to.deep.equal([["web-1", "prod/web", 150]]);
        });
    });
});
