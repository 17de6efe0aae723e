/**
 * What every rollout shares (rehearsal/rollout.ts): how a rollout names its waves and when it
 * ends, pods recreated and placed again as waves end, and which workloads reaching zero ready
 * replicas drop requests.
 * Each scenario is hand-checked against the rule in its title; sizes are those of ./scenario.ts
 * (an m6i.large holds 1930m CPU, so two 1500m pods never share one).
 */
import { expect } from "chai";
import type { Rehearsal } from "eks-platform-rehearsal";
import { changed, urnOf } from "../policies/harness";
import { service } from "../policies/fixtures";
import { app, asg, hook, managed, run, slowReady, withTemplate } from "./scenario";

const phases = (r: Rehearsal, g = 0) => r.groups[g].waves.map((w) => [w.phase, w.drained, w.launched]);

describe("rehearsal/rollout.ts: what every rollout shares", () => {
    describe("how a rollout names its waves and when it ends", () => {
        it("each group's rollout drains only its own nodes: a managed group and an Auto Scaling group side by side", () => {
            const r = run([managed("apps", 2, { zones: 1 }), asg("batch", 1), hook(300)]);
            const apps = r.groups.findIndex((g) => g.name === "apps");
            const batch = r.groups.findIndex((g) => g.name === "batch");
            expect(r.groups[apps].nodes).to.equal(2);
            // Surge apps-3; apps-1 and apps-2 replaced by apps-4 and apps-5; the newest empty node is shed.
            expect(phases(r, apps)).to.deep.equal([
                ["scale-up", [], ["apps-3"]],
                ["upgrade", ["apps-1"], ["apps-4"]],
                ["upgrade", ["apps-2"], ["apps-5"]],
                ["scale-down", ["apps-5"], []],
            ]);
            expect(r.groups[apps].notes).to.deep.equal([]);
            expect(r.groups[batch].nodes).to.equal(1);
            expect(phases(r, batch)).to.deep.equal([["refresh", ["batch-1"], ["batch-2"]]]);
        });

        it("a MINIMAL update names its batch size: 2 nodes at a time", () => {
            const r = run([managed("apps", 2, { zones: 1, update: { maxUnavailable: 2, updateStrategy: "MINIMAL" } })]);
            expect(r.groups[0].mechanism).to.equal(
                "EKS managed node group update, MINIMAL strategy: 2 nodes at a time (updateConfig.maxUnavailable 2), each terminated before its replacement launches",
            );
        });

        it("MINIMAL: an evicted pod with nowhere to run waits for the replacement node: 60 s grace, 60 s, 120 s to Ready, in each wave", () => {
            // Two 1500m pods, one per node: each wave's evicted pod fits neither the cordoned node nor the other, still full.
            const big = app("big", { replicas: 2, cpu: "1500m" });
            const r = run([managed("apps", 2, { zones: 1, update: { maxUnavailable: 1, updateStrategy: "MINIMAL" } }), big]);
            expect(r.groups[0].unplaced).to.deep.equal([
                {
                    pod: "big-2",
                    workload: "Deployment prod/big",
                    workloadUrn: urnOf(big),
                    wave: 1,
                    reasons: "0/2 nodes are available: 1 cordoned, 1 insufficient cpu",
                    placedAfterSeconds: 240,
                },
                {
                    pod: "big-3",
                    workload: "Deployment prod/big",
                    workloadUrn: urnOf(big),
                    wave: 2,
                    reasons: "0/2 nodes are available: 1 cordoned, 1 insufficient cpu",
                    placedAfterSeconds: 240,
                },
            ]);
        });

        it("a replacement node carries its group's labels (EKS labels every node eks.amazonaws.com/nodegroup): a pod selecting them waits for it, then runs", () => {
            const pinned = changed(app("web", { replicas: 1 }), "spec.template.spec.nodeSelector", {
                "eks.amazonaws.com/nodegroup": "apps",
            });
            const r = run([managed("apps", 1, { zones: 1, update: { maxUnavailable: 1, updateStrategy: "MINIMAL" } }), pinned]);
            expect(r.groups[0].unplaced.map((u) => [u.pod, u.placedAfterSeconds])).to.deep.equal([["web-1", 240]]);
        });

        it("a pod pinned to its node's hostname never runs again once the node leaves: reported once, never placed", () => {
            // kubernetes.io/hostname is unique to a node: no replacement carries apps-1's.
            const pinned = changed(app("web", { replicas: 1 }), "spec.template.spec.nodeSelector", { "kubernetes.io/hostname": "apps-1" });
            const r = run([managed("apps", 2, { zones: 1 }), pinned]);
            const unplaced = r.groups[0].unplaced;
            expect(unplaced.map((u) => u.pod)).to.deep.equal(["web-1"]);
            expect(unplaced[0]).to.not.have.property("placedAfterSeconds");
        });

        it("the rollout ends when the last rescheduled pod is Ready, after the scale-down: 120 s + 1240 s", () => {
            // Scale-up 120 s; apps-1: 60 s grace, 60 s, 120 s to its replacement; scale-down 60 s: the waves end at 420 s.
            // web-1 starts on the surge node at 120 s and is Ready 30 + 1200 + 10 s later, at 1360 s.
            const r = run([managed("apps", 1, { zones: 1 }), slowReady(app("web", { replicas: 1 }), 1200)]);
            const g = r.groups[0];
            expect(g.waves.map((w) => w.seconds)).to.deep.equal([120, 240, 60]);
            expect(g.estimatedSeconds).to.equal(1360);
        });
    });

    describe("a Service's endpoints (a workload reaching zero drops requests only if no other workload behind its Services is Ready)", () => {
        it("two workloads behind two shared Services: the first to reach zero is a note, the second drops both Services", () => {
            const tier = (name: string) => withTemplate(app(name, { replicas: 1 }), "metadata.labels", { app: name, tier: "web" });
            const b = tier("b");
            const r = run([
                managed("apps", 1, { zones: 1 }),
                tier("a"),
                b,
                service("web", "prod", { tier: "web" }),
                service("web2", "prod", { tier: "web" }),
            ]);
            const g = r.groups[0];
            expect(g.notes).to.deep.equal([
                "Deployment prod/a reaches zero ready replicas in wave 2, but Service prod/web, Service prod/web2 keep ready endpoints from other workloads",
            ]);
            expect(g.zeroReady).to.deep.equal([
                {
                    workload: "Deployment prod/b",
                    workloadUrn: urnOf(b),
                    wave: 2,
                    cause: "its last ready pod b-0 is evicted from node apps-1",
                    services: ["Service prod/web", "Service prod/web2"],
                },
            ]);
        });
    });
});
