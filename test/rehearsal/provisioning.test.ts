/**
 * Karpenter's launches as the rehearsal models them (rehearsal/provisioning.ts; docs/drain.md,
 * Placement), rule by rule: where Karpenter launches a node, what a NodeClaim is launched as, and
 * why a NodePool cannot launch.
 * Sizes are those of ./scenario.ts: an m6i.large holds 1930m CPU and 6903 MiB, an m6i.xlarge
 * 3920m.
 */
import { expect } from "chai";
import { changed, TestResource } from "../policies/harness";
import { app, asg, daemonSet, gpuApp, hook, managed, nodePool, pdb, run, subnet, withPodSpec } from "./scenario";

/** A NodePool allowing these instance types, on demand. */
function pool(types: string[], extra: Record<string, unknown> = {}): TestResource {
    return nodePool("general", {
        requirements: [
            { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
            { key: "node.kubernetes.io/instance-type", operator: "In", values: types },
        ],
        ...extra,
    });
}

const ZONE = "topology.kubernetes.io/zone";

/** `pool` with its zone requirement set to `zones`. */
function inZones(types: string[], zones: string[]): TestResource {
    return nodePool("general", {
        requirements: [
            { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
            { key: "node.kubernetes.io/instance-type", operator: "In", values: types },
            { key: ZONE, operator: "In", values: zones },
        ],
    });
}

describe("rehearsal/provisioning.ts: where and what Karpenter launches", () => {
    describe("where Karpenter launches a node (Karpenter docs, Concepts → Scheduling: topology; the rehearsal launches in the zone with the fewest of the workload's pods, ties by name)", () => {
        const zoneOnly = (zone: string) => withPodSpec(app("zoned", { replicas: 1 }), "nodeSelector", { [ZONE]: zone });

        it("with no pods anywhere, the first zone by name: a 250m pod wanting zone-a joins the 1500m pod's node", () => {
            const r = run([pool(["m6i.large"]), app("big", { replicas: 1, cpu: "1500m" }), zoneOnly("zone-a")]);
            expect(r.zones).to.deep.equal(["zone-a", "zone-b", "zone-c"]);
            expect(r.groups[0].nodes).to.equal(1);
        });

        it("then the zone with the fewest of its pods: three 1500m pods go to zone-a, zone-b, zone-c, so one wanting zone-b needs no new node", () => {
            const r = run([pool(["m6i.large"]), app("big", { replicas: 3, cpu: "1500m" }), zoneOnly("zone-b")]);
            expect(r.groups[0].nodes).to.equal(3);
            const c = run([pool(["m6i.large"]), app("big", { replicas: 3, cpu: "1500m" }), zoneOnly("zone-c")]);
            expect(c.groups[0].nodes).to.equal(3);
        });

        it("required zone anti-affinity: a fourth replica has no zone left, on the nodes nor for a new one", () => {
            const apart = withPodSpec(app("web", { replicas: 4 }), "affinity", {
                podAntiAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: ZONE, labelSelector: { matchLabels: { app: "web" } } }],
                },
            });
            const r = run([pool(["m6i.large"]), apart]);
            expect(r.groups[0].nodes).to.equal(3);
            expect(r.unschedulable.map((u) => [u.pod, u.reasons])).to.deep.equal([
                [
                    "web-3",
                    `0/3 nodes are available: 3 pod anti-affinity (${ZONE}); NodePool general: pod anti-affinity (${ZONE}) in every zone it may launch in`,
                ],
            ]);
        });

        it("a zone requirement naming none of the cluster's zones: the pool can launch nowhere, and says so", () => {
            const r = run([
                pool(["m6i.large"]),
                changed(pool(["m6i.large"]), "spec.template.spec.requirements", [
                    { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
                    { key: ZONE, operator: "In", values: ["us-west-2z"] },
                ]),
                app("web", { replicas: 1 }),
            ]);
            expect(r.groups[0].nodes).to.equal(1);
        });
    });

    describe("a NodeClaim being packed (karpenter v1.14.1 provisioning/scheduling: a pod joins a claim only if an instance type it allows holds everything packed; launched as the smallest left)", () => {
        it("a pod that selects the larger type narrows the claim to it: launched as m6i.xlarge, not the smaller m6i.large", () => {
            const xl = withPodSpec(app("x", { replicas: 1 }), "nodeSelector", { "node.kubernetes.io/instance-type": "m6i.xlarge" });
            const r = run([pool(["m6i.large", "m6i.xlarge"]), app("any", { replicas: 1 }), xl]);
            expect(r.groups[0].nodes).to.equal(1);
            expect(r.groups[0].instanceType).to.equal("m6i.xlarge");
        });

        it("pods packed in turn, largest first: a 3000m pod gets an m6i.xlarge, a 1500m pod then needs a claim of its own, an m6i.large", () => {
            const r = run([
                pool(["m6i.large", "m6i.xlarge"]),
                app("small", { replicas: 1, cpu: "1500m" }),
                app("big", { replicas: 1, cpu: "3000m" }),
            ]);
            expect(r.groups[0].nodes).to.equal(2);
            expect(r.groups[0].instanceType).to.equal("m6i.xlarge, m6i.large");
        });

        it("of equal size, the type first by name (the rehearsal's stand-in for Karpenter's cheapest): m5.large before m6i.large", () => {
            const r = run([pool(["m6i.large", "m5.large"]), app("web", { replicas: 1 })]);
            expect(r.groups[0].instanceType).to.equal("m5.large");
        });

        it("a preference Karpenter cannot meet with a new node (the pool at its limits) is relaxed onto the claim it has (karpenter scheduling: preferences relaxed)", () => {
            // Limits of 2 vCPU: one m6i.large. A ScheduleAnyway hostname spread wants a node per replica; relaxed, both share it.
            const spread = withPodSpec(app("web", { replicas: 2 }), "topologySpreadConstraints", [
                {
                    maxSkew: 1,
                    topologyKey: "kubernetes.io/hostname",
                    whenUnsatisfiable: "ScheduleAnyway",
                    labelSelector: { matchLabels: { app: "web" } },
                },
            ]);
            const r = run([changed(pool(["m6i.large"]), "spec.limits", { cpu: "2" }), spread]);
            expect(r.unschedulable).to.deep.equal([]);
            expect(r.groups[0].nodes).to.equal(1);
        });

        it("nodes Karpenter launched for the initial placement are Ready when a rollout starts: a pod moved there is Ready 30 s later", () => {
            // hog (nodeSelector pool: general) gets general-1; web's two pods share batch-1. Draining batch-1, web-0's
            // replacement goes to general-1 and is Ready at 30 s; web-1 waits for it (maxUnavailable 1).
            const labelled = changed(pool(["m6i.large"]), "spec.template.metadata", { labels: { pool: "general" } });
            const hog = withPodSpec(app("hog", { replicas: 1, cpu: "1000m" }), "nodeSelector", { pool: "general" });
            const r = run([asg("batch", 1), hook(300), labelled, hog, app("web", { replicas: 2 }), pdb("web", { maxUnavailable: 1 })]);
            const batch = r.groups.find((g) => g.name === "batch");
            expect(batch?.waits.map((w) => [w.pod, w.seconds])).to.deep.equal([["web-1", 30]]);
        });
    });

    describe("Karpenter's topology for a new node (karpenter topologygroup.go: hostname domains are always new; a zone spread's minimum is over the zones the pod's own requirements allow)", () => {
        it("required hostname anti-affinity: every replica gets a node of its own, whatever zone it is in", () => {
            const apart = withPodSpec(app("web", { replicas: 4 }), "affinity", {
                podAntiAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: [
                        { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: { app: "web" } } },
                    ],
                },
            });
            const r = run([pool(["m6i.large"]), apart]);
            expect(r.unschedulable).to.deep.equal([]);
            expect(r.groups[0].nodes).to.equal(4);
        });

        it("a zone spread of pods that select one zone counts that zone only (domainMinCount over the pod's domains): two 1500m pods both launch in zone-a", () => {
            const spread = withPodSpec(
                withPodSpec(app("web", { replicas: 2, cpu: "1500m" }), "nodeSelector", { [ZONE]: "zone-a" }),
                "topologySpreadConstraints",
                [{ maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: { app: "web" } } }],
            );
            const r = run([pool(["m6i.large"]), spread]);
            expect(r.unschedulable).to.deep.equal([]);
            expect(r.groups[0].nodes).to.equal(2);
        });
    });

    describe("why a NodePool cannot launch (the reasons the rehearsal gives per pool)", () => {
        it("a zone spread of pods whose required node affinity allows one zone counts that zone only: two 1500m pods both launch in zone-a", () => {
            const spread = withPodSpec(
                withPodSpec(app("web", { replicas: 2, cpu: "1500m" }), "affinity", {
                    nodeAffinity: {
                        requiredDuringSchedulingIgnoredDuringExecution: {
                            nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: "In", values: ["zone-a"] }] }],
                        },
                    },
                }),
                "topologySpreadConstraints",
                [{ maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: { app: "web" } } }],
            );
            const r = run([pool(["m6i.large"]), spread]);
            expect(r.unschedulable).to.deep.equal([]);
            expect(r.groups[0].nodes).to.equal(2);
        });

        it("a zone spread counts only the zones a NodePool can launch in or a node is in: a pool of one zone takes both 1500m pods there", () => {
            // Subnets in three zones, but the only capacity is the pool's, in us-east-1a: Karpenter's domains are {us-east-1a}.
            const spread = withPodSpec(app("web", { replicas: 2, cpu: "1500m" }), "topologySpreadConstraints", [
                { maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: { app: "web" } } },
            ]);
            const r = run([
                subnet("us-east-1a"),
                subnet("us-east-1b"),
                subnet("us-east-1c"),
                inZones(["m6i.large"], ["us-east-1a"]),
                spread,
            ]);
            expect(r.unschedulable).to.deep.equal([]);
            expect(r.groups[0].nodes).to.equal(2);
        });

        it("a zone spread against a zone with a node: beside a managed node in us-east-1a, a pool of us-east-1b launches two 1500m pods, then refuses a third", () => {
            // web-0 on apps-1 (us-east-1a); web-1, web-2 on NodeClaims in us-east-1b (0 + 1 − 0, then 1 + 1 − 1 ≤ 1);
            // web-3 would make us-east-1b 3 against 1: it belongs in us-east-1a, full, where the pool cannot launch.
            const spread = withPodSpec(app("web", { replicas: 4, cpu: "1500m" }), "topologySpreadConstraints", [
                { maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: { app: "web" } } },
            ]);
            const r = run([
                subnet("us-east-1a"),
                subnet("us-east-1b"),
                managed("apps", 1, { zones: 1 }),
                inZones(["m6i.large"], ["us-east-1b"]),
                spread,
            ]);
            expect(r.unschedulable.map((u) => [u.pod, u.reasons])).to.deep.equal([
                [
                    "web-3",
                    `0/3 nodes are available: 3 insufficient cpu; NodePool general: topology spread (${ZONE}, maxSkew 1) in every zone it may launch in`,
                ],
            ]);
        });

        it("a zone requirement naming none of the cluster's zones (its subnets'): the pool allows none of them", () => {
            const r = run([subnet("us-east-1a"), inZones(["m6i.large"], ["us-east-1z"]), app("web", { replicas: 1 })]);
            expect(r.unschedulable.map((u) => u.reasons)).to.deep.equal([
                "0/0 nodes are available; NodePool general: its zone requirement allows none of the cluster's zones",
            ]);
        });

        it("a pod whose volume is in a zone the pool cannot launch in: named with both", () => {
            // The StatefulSet's pod is pinned to us-east-1a by its volume; the pool launches only in us-east-1b.
            const db = changed(app("db", { replicas: 1, kind: "StatefulSet" }), "spec.volumeClaimTemplates", [
                { metadata: { name: "data" } },
            ]);
            const r = run([
                subnet("us-east-1a"),
                subnet("us-east-1b"),
                managed("apps", 1, { zones: 1, update: { maxUnavailable: 1, updateStrategy: "MINIMAL" } }),
                subnet("us-east-1c"),
                inZones(["m6i.large"], ["us-east-1b", "us-east-1c"]),
                db,
            ]);
            const apps = r.groups.find((g) => g.name === "apps");
            expect(apps?.unplaced.map((u) => u.reasons)).to.deep.equal([
                "0/1 nodes are available: 1 cordoned; NodePool general: its zone requirement allows only us-east-1b, us-east-1c, not the pod's volume zone us-east-1a",
            ]);
        });

        it("a pod selecting a zone the pool's zone requirement leaves out: the pool says its zones, not only that its labels do not match", () => {
            const zoned = withPodSpec(app("web", { replicas: 1 }), "nodeSelector", { [ZONE]: "us-east-1c" });
            const r = run([
                subnet("us-east-1a"),
                subnet("us-east-1b"),
                subnet("us-east-1c"),
                inZones(["m6i.large"], ["us-east-1a", "us-east-1b"]),
                zoned,
            ]);
            expect(r.unschedulable.map((u) => u.reasons)).to.deep.equal([
                "0/0 nodes are available; NodePool general: its zone requirement allows only us-east-1a, us-east-1b, and the pod's node selector/affinity wants another zone",
            ]);
        });

        it("a NodePool's extended-resource limit (nvidia.com/gpu 1): one GPU node, the second GPU pod is at the pool's limits", () => {
            const limited = changed(pool(["g5.xlarge"]), "spec.limits", { cpu: "256", "nvidia.com/gpu": "1" });
            const r = run([limited, gpuApp("train", 2)]);
            expect(r.groups[0].nodes).to.equal(1);
            expect(r.unschedulable.map((u) => u.pod)).to.deep.equal(["train-1"]);
            expect(r.unschedulable[0].reasons).to.include("NodePool general: at its limits (cpu 256, nvidia.com/gpu 1)");
        });

        it("a pod no allowed type can hold launches nothing, and the pool's nodes keep their numbering: drift then launches general-3 and general-4", () => {
            // Two 1500m pods on general-1 and general-2; a pod asking 8 GiB fits no m6i.large (6903 MiB): the claim tried for it is withdrawn.
            const r = run([
                pool(["m6i.large"]),
                app("small", { replicas: 2, cpu: "1500m" }),
                app("huge", { replicas: 1, cpu: "100m", memory: "8Gi" }),
            ]);
            expect(r.unschedulable.map((u) => u.pod)).to.deep.equal(["huge-0"]);
            expect(r.unschedulable[0].reasons).to.include(
                "NodePool general: no instance type it allows fits the pod's requests (cpu 100m, memory 8192Mi)",
            );
            expect(r.groups[0].waves.map((w) => w.launched)).to.deep.equal([["general-3"], ["general-4"]]);
        });
    });

    describe("what a NodeClaim's instance types must hold (kube-scheduler NodeResourcesFit: requests up to allocatable, DaemonSet pods and their slots included)", () => {
        it("a pod requesting exactly an m6i.large's allocatable memory (6903 MiB) fits one", () => {
            const r = run([pool(["m6i.large"]), app("web", { replicas: 1, cpu: "100m", memory: "6903Mi" })]);
            expect(r.unschedulable).to.deep.equal([]);
            expect(r.groups[0].nodes).to.equal(1);
        });

        it("a DaemonSet's 64 MiB counts: a 6850 MiB pod beside it (6914 MiB) fits no m6i.large", () => {
            const r = run([pool(["m6i.large"]), daemonSet("agent", "10m"), app("web", { replicas: 1, cpu: "100m", memory: "6850Mi" })]);
            expect(r.unschedulable.map((u) => u.pod)).to.deep.equal(["web-0"]);
        });

        it("a DaemonSet's pod takes a slot: 28 of 29 pods share an m6i.large with it, the 29th needs a second node", () => {
            const r = run([pool(["m6i.large"]), daemonSet("agent", "10m"), app("tiny", { replicas: 29, cpu: "10m", memory: "16Mi" })]);
            expect(r.unschedulable).to.deep.equal([]);
            expect(r.groups[0].nodes).to.equal(2);
        });

        it("a pod whose only allowed type is the larger one gets it: launched as m6i.xlarge though m6i.large is smaller", () => {
            const xl = withPodSpec(app("x", { replicas: 1 }), "nodeSelector", { "node.kubernetes.io/instance-type": "m6i.xlarge" });
            expect(run([pool(["m6i.large", "m6i.xlarge"]), xl]).groups[0].instanceType).to.equal("m6i.xlarge");
        });

        it("required node affinity narrows a claim as a node selector does: launched as m6i.xlarge", () => {
            const xl = withPodSpec(app("x", { replicas: 1 }), "affinity", {
                nodeAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: {
                        nodeSelectorTerms: [
                            { matchExpressions: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.xlarge"] }] },
                        ],
                    },
                },
            });
            const r = run([pool(["m6i.large", "m6i.xlarge"]), app("any", { replicas: 1 }), xl]);
            expect(r.groups[0].nodes).to.equal(1);
            expect(r.groups[0].instanceType).to.equal("m6i.xlarge");
        });
    });
});
