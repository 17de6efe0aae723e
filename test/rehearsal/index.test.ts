/**
 * The drain rehearsal on small scenarios whose outcome is worked out by hand in each test (the
 * builders and the instance sizes they assume: ./scenario.ts).
 */
import { expect } from "chai";
import { changed, TestResource } from "../policies/harness";
import { service } from "../policies/fixtures";
import { app, asg, hook, managed, nodePool, pdb, run } from "./scenario";

describe("drain rehearsal: hand-checked scenarios", () => {
    it("a good rollout: 3 spread replicas with maxUnavailable 1 on a 3-zone managed group pass, with the waves and time worked out by hand", () => {
        const r = run([managed("apps", 3), app("web", { spreadHost: true }), pdb("web", { maxUnavailable: 1 })]);
        expect(r.problems.map((p) => p.message)).to.deep.equal([]);
        expect(r.verdict).to.equal("ok");
        const g = r.groups[0];
        expect(g.name).to.equal("apps");
        // Surge one node per zone (3), three upgrade waves of one node, then scale down by 3.
        expect(g.waves.map((w) => w.phase)).to.deep.equal(["scale-up", "upgrade", "upgrade", "upgrade", "scale-down"]);
        expect(g.waves[0].launched).to.have.length(3);
        expect(g.waves.slice(1, 4).map((w) => w.evictions)).to.deep.equal([1, 1, 1]);
        // Scale-up 120 s; each wave: one eviction + 60 s grace, 60 s EKS wait, 120 s for the replacement;
        // scale-down of three empty nodes: 60 s. 120 + 3 × 240 + 60 = 900.
        expect(g.waves.map((w) => w.seconds)).to.deep.equal([120, 240, 240, 240, 60]);
        expect(g.estimatedSeconds).to.equal(900);
        expect(g.longestDrain?.seconds).to.equal(60);
        expect(g.zeroReady).to.deep.equal([]);
    });

    it("a PDB deadlock: 3 replicas with minAvailable 3 on a managed group stall the update, naming the PDB and the group", () => {
        const r = run([managed("apps", 3), app("web", { spreadHost: true }), pdb("web", { minAvailable: 3 })]);
        expect(r.verdict).to.equal("blocked");
        const g = r.groups[0];
        expect(g.stalled).to.match(/wave 2: node apps-1 still holds pods after 15m \(EKS eviction limit\): PodEvictionFailure/);
        expect(g.blocked).to.have.length(1);
        expect(g.blocked[0]).to.include({ pdb: "prod/web", workload: "Deployment prod/web", node: "apps-1" });
        expect(g.blocked[0].why).to.match(/minAvailable: 3 requires 3 healthy of 3 pods, so it allows no disruption even at full strength/);
        // The update fails 15 minutes into its first upgrade wave (after the 2-minute scale-up).
        expect(g.estimatedSeconds).to.equal(120 + 900);
        expect(r.problems.map((p) => p.message).join("\n")).to.match(
            /PodDisruptionBudget prod\/web blocks the eviction of web-\d \(Deployment prod\/web\) from node apps-1 of managed node group apps, for good/,
        );
    });

    it("a capacity stall: with the MINIMAL strategy an evicted 1500m pod fits on no remaining node until the replacement launches", () => {
        const r = run([
            managed("apps", 2, { zones: 1, update: { maxUnavailable: 1, updateStrategy: "MINIMAL" } }),
            app("big", { replicas: 2, cpu: "1500m" }),
        ]);
        expect(r.verdict).to.equal("blocked");
        const g = r.groups[0];
        expect(g.unplaced.length).to.be.greaterThan(0);
        const first = g.unplaced[0];
        expect(first).to.include({ workload: "Deployment prod/big", wave: 1 });
        expect(first.reasons).to.equal("0/2 nodes are available: 1 cordoned, 1 insufficient cpu");
        // It waits for the drained node's replacement: 60 s grace + 60 s EKS wait + 120 s launch.
        expect(first.placedAfterSeconds).to.equal(240);
        expect(r.problems.map((p) => p.message).join("\n")).to.match(
            /Evicted pod big-\d of Deployment prod\/big has nowhere to run during the rollout of managed node group apps \(wave 1\)/,
        );
    });

    it("a capacity stall in an instance refresh that terminates before it launches", () => {
        const r = run([asg("batch", 2, { minHealthy: 50 }), hook(300), app("big", { replicas: 2, cpu: "1500m" })]);
        const g = r.groups[0];
        expect(g.mechanism).to.match(
            /1 instance at a time .*terminate before launch.*lifecycle hook nodegroups-batch-terminate \(5m heartbeat\)/,
        );
        expect(g.unplaced[0].reasons).to.equal("0/2 nodes are available: 1 cordoned, 1 insufficient cpu");
        expect(r.verdict).to.equal("blocked");
    });

    it("a single replica with no PDB behind a Service reaches zero ready replicas in its group's rollout: its Service drops requests", () => {
        const r = run([managed("apps", 3), app("solo", { replicas: 1 }), service("solo", "prod", { app: "solo" })]);
        expect(r.verdict).to.equal("blocked");
        const g = r.groups[0];
        expect(g.zeroReady).to.have.length(1);
        expect(g.zeroReady[0]).to.include({ workload: "Deployment prod/solo" });
        expect(g.zeroReady[0].cause).to.match(/its last ready pod solo-0 is evicted from node apps-\d/);
        expect(r.problems.map((p) => p.message).join("\n")).to.match(
            /Deployment prod\/solo reaches zero ready replicas during the rollout of managed node group apps/,
        );
    });

    it("accepts a deliberate singleton's outage (platform/singleton with a reason), as workload-service-replicas does", () => {
        const solo = app("solo", { replicas: 1 });
        const annotated = (reason: string) => changed(solo, "metadata.annotations", { "platform/singleton": reason });
        expect(run([managed("apps", 3), annotated("leader-elected; clients retry")]).groups[0].zeroReady).to.deep.equal([]);
        // Without a reason the annotation accepts nothing.
        expect(run([managed("apps", 3), annotated(" ")]).groups[0].zeroReady).to.have.length(1);
    });

    it("counts a KEDA ScaledObject's minReplicaCount like an HPA's minReplicas (one autoscaler reader)", () => {
        const scaled: TestResource = {
            type: "kubernetes:keda.sh/v1alpha1:ScaledObject",
            name: "prod-web-scaledobject",
            props: {
                apiVersion: "keda.sh/v1alpha1",
                kind: "ScaledObject",
                metadata: { name: "web", namespace: "prod" },
                spec: { scaleTargetRef: { name: "web" }, minReplicaCount: 1, maxReplicaCount: 5 },
            },
        };
        expect(run([managed("apps", 3), app("web"), scaled]).groups[0].zeroReady.map((z) => z.workload)).to.deep.equal([
            "Deployment prod/web",
        ]);
        expect(run([managed("apps", 3), app("web"), changed(scaled, "spec.minReplicaCount", 3)]).groups[0].zeroReady).to.deep.equal([]);
    });

    it("counts an HPA's minReplicas, not spec.replicas", () => {
        const hpa: TestResource = {
            type: "kubernetes:autoscaling/v2:HorizontalPodAutoscaler",
            name: "prod-web-hpa",
            props: {
                apiVersion: "autoscaling/v2",
                kind: "HorizontalPodAutoscaler",
                metadata: { name: "web", namespace: "prod" },
                spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 1, maxReplicas: 5 },
            },
        };
        expect(run([managed("apps", 3), app("web"), hpa]).groups[0].zeroReady.map((z) => z.workload)).to.deep.equal([
            "Deployment prod/web",
        ]);
        expect(run([managed("apps", 3), app("web"), changed(hpa, "spec.minReplicas", 3)]).groups[0].zeroReady).to.deep.equal([]);
    });

    it("a workload whose replicas all sit on one wave's nodes with no PDB reaches zero", () => {
        // Both replicas fit one node's 1930m only with 900m each; one zone, one node: everything in wave 1.
        const r = run([managed("apps", 1, { zones: 1 }), app("pair", { replicas: 2, cpu: "900m" })]);
        expect(r.groups[0].zeroReady.map((z) => z.wave)).to.deep.equal([2]);
    });

    it("a pod matched by two PDBs can never be evicted", () => {
        const second: TestResource = { ...pdb("web", { maxUnavailable: 1 }), name: "prod-web-2-pdb" };
        (second.props.metadata as Record<string, unknown>).name = "web-2";
        const r = run([managed("apps", 3), app("web", { spreadHost: true }), pdb("web", { maxUnavailable: 1 }), second]);
        expect(r.groups[0].blocked[0].why).to.match(/more than one PodDisruptionBudget/);
    });

    it("waits, not blocks, when a budget lets go once rescheduled pods are Ready", () => {
        // Two replicas on one node (one zone, one node), maxUnavailable 1: the second eviction waits 30 s.
        const r = run([managed("apps", 1, { zones: 1 }), app("pair", { replicas: 2, cpu: "500m" }), pdb("pair", { maxUnavailable: 1 })]);
        const g = r.groups[0];
        expect(g.blocked).to.deep.equal([]);
        expect(g.waits.map((w) => [w.pdb, w.seconds])).to.deep.equal([["prod/pair", 30]]);
        // Drain: evict at 0, the second at 30 once the first replacement is Ready, + 60 s grace.
        expect(g.longestDrain?.seconds).to.equal(90);
        expect(r.verdict).to.equal("ok");
    });

    it("an instance refresh whose hook's heartbeat ends before the drain cuts pods short", () => {
        // Two nodes, one refreshed at a time (minHealthyPercentage 50). Three replicas, 120 s grace,
        // maxUnavailable 1: batch-1 holds trio-0 and trio-2. trio-0 goes at 0 s and its replacement
        // is Ready on batch-2 at 30 s; trio-2 goes then and needs until 150 s, past the 120 s heartbeat.
        const r = run([
            asg("batch", 2, { minHealthy: 50 }),
            hook(120),
            app("trio", { replicas: 3, grace: 120 }),
            pdb("trio", { maxUnavailable: 1 }),
        ]);
        const g = r.groups[0];
        expect(g.killed.filter((k) => k.wave === 1).map((k) => [k.pod, k.how])).to.deep.equal([
            [
                "trio-2",
                "it needs until 2m 30s into the drain (evicted at 30s, grace period 2m), past the 2m heartbeat of lifecycle hook nodegroups-batch-terminate",
            ],
        ]);
        expect(r.verdict).to.equal("blocked");
    });

    it("a one-node group that terminates before it launches: evicted pods have nowhere to run, the rest die with the instance", () => {
        // trio-0 is evicted and finds no node; the budget then holds the other two until the
        // 150 s heartbeat ends and the instance is terminated under them.
        const r = run([asg("batch", 1), hook(150), app("trio", { replicas: 3, grace: 120 }), pdb("trio", { maxUnavailable: 1 })]);
        const g = r.groups[0];
        expect(g.unplaced[0]).to.include({ pod: "trio-3", reasons: "0/1 nodes are available: 1 cordoned" });
        expect(g.killed.map((k) => k.how)).to.deep.equal([
            "still on node batch-1 when the 2m 30s heartbeat of lifecycle hook nodegroups-batch-terminate ends and the instance is terminated",
            "still on node batch-1 when the 2m 30s heartbeat of lifecycle hook nodegroups-batch-terminate ends and the instance is terminated",
        ]);
    });

    it("hostname spread with DoNotSchedule leaves an evicted pod Pending in a terminate-first refresh while its drained node still counts", () => {
        // One pod per node; the drained node still counts as a domain with 0 pods, so the others (1 each) refuse a second.
        const r = run([asg("batch", 3), hook(300), app("web", { spreadHost: true }), pdb("web", { maxUnavailable: 1 })]);
        expect(r.groups[0].unplaced[0].reasons).to.equal(
            "0/3 nodes are available: 2 topology spread (kubernetes.io/hostname, maxSkew 1), 1 cordoned",
        );
    });

    it("an Auto Scaling group without a termination hook kills its pods without a drain", () => {
        const r = run([asg("batch", 2), app("web", { replicas: 2 })]);
        expect(r.groups[0].killed[0].how).to.match(/no termination lifecycle hook: the instance is terminated without a drain/);
    });

    it("a self-managed group whose labels and taints live only in user data is undecided, never ok", () => {
        const r = run([asg("batch", 3, { tags: [] }), hook(300), app("web"), pdb("web", { maxUnavailable: 1 })]);
        expect(r.verdict).to.equal("undecided");
        expect(r.undecided.join("\n")).to.match(/node labels and taints are set in user data/);
    });

    it("an instance type the data cannot size leaves its group undecided", () => {
        const r = run([managed("apps", 3, { types: ["r5.large"] }), app("web", { spreadHost: true }), pdb("web", { maxUnavailable: 1 })]);
        expect(r.verdict).to.equal("undecided");
        expect(r.groups[0].undecided.join()).to.match(/instance type r5.large is not in the instance data/);
    });

    describe("Karpenter NodePools (drift)", () => {
        it("place pods on nodes Karpenter launches and replace them one budget at a time, replacement first", () => {
            const r = run([nodePool("general"), app("web", { spreadHost: true }), pdb("web", { maxUnavailable: 1 })]);
            const g = r.groups[0];
            expect(g.nodes).to.equal(3);
            expect(g.instanceType).to.equal("m6i.large");
            // Default budget 10% of 3 nodes, rounded up: 1 node per wave; 120 s for the replacement, 60 s drain.
            expect(g.waves.map((w) => [w.phase, w.evictions, w.seconds])).to.deep.equal([
                ["drift", 1, 180],
                ["drift", 1, 180],
                ["drift", 1, 180],
            ]);
            expect(r.verdict).to.equal("ok");
        });

        it("without terminationGracePeriod a budget that never lets go stops drift for good", () => {
            const r = run([nodePool("general"), app("web", { spreadHost: true }), pdb("web", { minAvailable: "100%" })]);
            expect(r.groups[0].stalled).to.match(
                /Karpenter never disrupts node general-1: web-\d \(Deployment prod\/web\) is held by PodDisruptionBudget prod\/web/,
            );
        });

        it("with terminationGracePeriod the held pod is deleted in time for its grace period, past its budget", () => {
            const r = run([
                nodePool("general", { terminationGracePeriod: "10m" }),
                app("web", { spreadHost: true }),
                pdb("web", { minAvailable: "100%" }),
            ]);
            const g = r.groups[0];
            // Deleted, not cut short: at 10m − 60 s grace; the node is empty at 10m.
            expect(g.killed).to.deep.equal([]);
            expect(g.deleted[0]).to.include({ pod: "web-0", pdb: "prod/web", at: 540, graceSeconds: 60 });
            expect(g.longestDrain?.seconds).to.equal(600);
        });

        it("budgets of 0 for Drifted at all times mean drift never proceeds", () => {
            const pool = nodePool("general");
            (pool.props.spec as Record<string, unknown>).disruption = { budgets: [{ nodes: "0", reasons: ["Drifted"] }] };
            expect(run([pool, app("web", { spreadHost: true })]).groups[0].stalled).to.match(/allow 0 nodes for Drifted/);
        });

        it("a pool at its limits leaves pods with nowhere to run, and says so", () => {
            // One m6i.large (2 vCPU) uses the whole limit; a second 1500m pod does not fit beside the first.
            const pool = changed(nodePool("general"), "spec.limits", { cpu: "2" });
            const r = run([pool, app("big", { cpu: "1500m" })]);
            expect(r.unschedulable.map((u) => u.reasons).join()).to.match(/NodePool general: at its limits \(cpu 2\)/);
            expect(r.verdict).to.equal("blocked");
        });
    });

    it("rehearses one group with --group, and refuses a name that is not a group", () => {
        const resources = [managed("apps", 3), managed("other", 2), app("web", { spreadHost: true }), pdb("web", { maxUnavailable: 1 })];
        expect(run(resources, "other").groups.map((g) => g.name)).to.deep.equal(["other"]);
        expect(() => run(resources, "nope")).to.throw(/no node group or NodePool named "nope" in this stack \(groups: apps, other\)/);
    });
});
