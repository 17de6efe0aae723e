/**
 * kube-scheduler's choice of a node as the rehearsal models it (rehearsal/scheduler.ts; docs/drain.md,
 * Placement), rule by rule: its scoring, its reasons, and topology spread while a node drains.
 * Sizes are those of ./scenario.ts: an m6i.large holds 1930m CPU and 6903 MiB, an m6i.xlarge
 * 3920m.
 */
import { expect } from "chai";
import type { Rehearsal } from "eks-platform-rehearsal";
import { app, asg, hook, managed, run, withPodSpec } from "./scenario";

const evictionsPerWave = (r: Rehearsal, g = 0) => r.groups[g].waves.filter((w) => w.phase === "upgrade").map((w) => w.evictions);

describe("rehearsal/scheduler.ts: kube-scheduler's choice of a node", () => {
    describe("kube-scheduler's scoring as the rehearsal models it: fewest of the workload's pods on the node, then in its zone, then least allocated, then oldest", () => {
        it("of two empty-of-it nodes, the one with fewer of the workload's pods in its zone wins over the older one", () => {
            // apps-1 and apps-3 in zone-a, apps-2 in zone-b. a-0 → apps-1, a-1 → apps-2 (zone-b has none of a);
            // web-0 → apps-3 (the only empty node); web-1: apps-1 or apps-2, both with one a pod: apps-2, whose zone has no web pod.
            const r = run([managed("apps", 3, { zones: 2 }), app("a", { replicas: 2 }), app("web", { replicas: 2 })]);
            expect(evictionsPerWave(r)).to.deep.equal([1, 2, 1]);
        });

        it("the least allocated node by share of its allocatable: a 250m pod goes to an empty m6i.xlarge before an empty m6i.large listed first", () => {
            // Share on the m6i.large (250/1930 + 256/6903) / 2 ≈ 0.083; on the m6i.xlarge about half that.
            const r = run([
                managed("small", 1, { zones: 1 }),
                managed("large", 1, { zones: 1, types: ["m6i.xlarge"] }),
                app("web", { replicas: 1 }),
            ]);
            const small = r.groups.find((g) => g.name === "small");
            const large = r.groups.find((g) => g.name === "large");
            expect(small?.waves.filter((w) => w.phase === "upgrade").map((w) => w.evictions)).to.deep.equal([0]);
            expect(large?.waves.filter((w) => w.phase === "upgrade").map((w) => w.evictions)).to.deep.equal([1]);
        });

        it("workloads are placed in id order whatever the input order: a (10 s grace) on the oldest node, then b, then c", () => {
            const r = run([
                managed("apps", 3, { zones: 1 }),
                app("c", { replicas: 1, grace: 30 }),
                app("b", { replicas: 1, grace: 20 }),
                app("a", { replicas: 1, grace: 10 }),
            ]);
            expect(r.groups[0].waves.filter((w) => w.phase === "upgrade").map((w) => [w.drained, w.drainSeconds])).to.deep.equal([
                [["apps-1"], 10],
                [["apps-2"], 20],
                [["apps-3"], 30],
            ]);
        });
    });

    describe("the scheduler's reasons (kube-scheduler's FitError: `0/N nodes are available: <count> <reason>, …`, most frequent first, then by name)", () => {
        it("reasons of equal count are listed by name: cordoned before node affinity/selector mismatch", () => {
            // The ASG's pod (nodeSelector workload: batch) has nowhere to go while batch-1 drains: apps-1 lacks the label.
            const batchOnly = withPodSpec(app("job", { replicas: 1 }), "nodeSelector", { workload: "batch" });
            const r = run([managed("apps", 1, { zones: 1 }), asg("batch", 1), hook(300), batchOnly]);
            const batch = r.groups.find((g) => g.name === "batch");
            expect(batch?.unplaced.map((u) => u.reasons)).to.deep.equal([
                "0/2 nodes are available: 1 cordoned, 1 node affinity/selector mismatch",
            ]);
        });
    });

    describe("kube-scheduler's least-allocated score as the rehearsal models it: the mean of the CPU and memory shares of allocatable", () => {
        it("same CPU, more memory: a 250m/256Mi pod goes to an empty r6i.large (14481 MiB) before an empty m6i.large (6903 MiB) listed first", () => {
            const r = run([
                managed("general", 1, { zones: 1 }),
                managed("memory", 1, { zones: 1, types: ["r6i.large"] }),
                app("web", { replicas: 1 }),
            ]);
            const evicted = (name: string) => r.groups.find((g) => g.name === name)?.waves.find((w) => w.phase === "upgrade")?.evictions;
            expect([evicted("general"), evicted("memory")]).to.deep.equal([0, 1]);
        });

        it("same memory, more CPU: it goes to an empty c5.xlarge (3920m) before an empty m6i.large (1930m) listed first", () => {
            const r = run([
                managed("general", 1, { zones: 1 }),
                managed("compute", 1, { zones: 1, types: ["c5.xlarge"] }),
                app("web", { replicas: 1 }),
            ]);
            const evicted = (name: string) => r.groups.find((g) => g.name === name)?.waves.find((w) => w.phase === "upgrade")?.evictions;
            expect([evicted("general"), evicted("compute")]).to.deep.equal([0, 1]);
        });
    });

    describe("PodTopologySpread during a drain (kube-scheduler: a cordoned node still counts as a domain, nodeTaintsPolicy Ignore; each domain's count is the pods still on it)", () => {
        it("hostname spread: after the first of two pods leaves a draining node, its one pod left keeps the minimum at 1, so the replacement may go beside another", () => {
            // Three instances, web-0 and web-3 on batch-1 (maxSkew 1). web-4 goes to batch-2 (1 + 1 − 1 ≤ 1);
            // once web-3 has left too, batch-1 counts 0: web-5 fits neither batch-2 (2) nor batch-3 (1) until batch-4 comes.
            const r = run([asg("batch", 3), hook(300), app("web", { replicas: 4, spreadHost: true })]);
            expect(r.groups[0].unplaced.filter((u) => u.wave === 1).map((u) => [u.pod, u.reasons])).to.deep.equal([
                ["web-5", "0/3 nodes are available: 2 topology spread (kubernetes.io/hostname, maxSkew 1), 1 cordoned"],
            ]);
        });
    });
});
