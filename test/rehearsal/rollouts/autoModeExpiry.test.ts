/**
 * The forced expiry of an EKS Auto Mode pool's nodes (rehearsal/rollouts/autoModeExpiry.ts):
 * budgets ignored, no replacement first, the drain bounded by terminationGracePeriod (24h when
 * the pool sets none), and the lifetime it replays.
 */
import { expect } from "chai";
import { changed } from "../../policies/harness";
import { app, AUTO_MODE_NODE_CLASS, autoModeCluster, nodePool, onSystemPool, pdb, run } from "../scenario";

const expiry = (r: ReturnType<typeof run>, name: string) => r.groups.find((g) => g.name === name && g.change === "expiry");
const drift = (r: ReturnType<typeof run>, name: string) => r.groups.find((g) => g.name === name && g.change === undefined);

describe("rehearsal/rollouts/autoModeExpiry.ts: an EKS Auto Mode pool's forced expiry", () => {
    describe("forced expiry", () => {
        const autoPool = (spec: Record<string, unknown> = {}) => nodePool("auto", { nodeClassRef: AUTO_MODE_NODE_CLASS, ...spec });

        it("is replayed for every Auto Mode pool and only for those, ignoring the budgets that stop drift", () => {
            const r = run([
                changed(autoPool({ terminationGracePeriod: "1h", expireAfter: undefined }), "spec.disruption.budgets", [{ nodes: "0" }]),
                app("web", { replicas: 2, spreadHost: true }),
                pdb("web", { maxUnavailable: 1 }),
            ]);
            expect(drift(r, "auto")?.stalled).to.match(/allow 0 nodes for Drifted/);
            const e = expiry(r, "auto")!;
            expect(e.mechanism).to.match(
                /forced expiry at expireAfter 336h: every node at once.*budgets ignored, no replacement launched first.*terminationGracePeriod 1h/,
            );
            expect(e.stalled).to.equal(undefined);
            expect(e.waves.map((w) => w.phase)).to.deep.equal(["expiry"]);
            expect(e.waves[0].drained).to.have.length(2);
            const karpenter = run([nodePool("k", { terminationGracePeriod: "1h" }), app("web", { replicas: 2 })]);
            expect(karpenter.groups.filter((g) => g.change === "expiry")).to.deep.equal([]);
        });

        it("reports a workload whose PodDisruptionBudget allows no disruption: deleted past its budget at the pool's terminationGracePeriod", () => {
            const r = run([autoPool({ terminationGracePeriod: "1h" }), app("db", { replicas: 2 }), pdb("db", { maxUnavailable: 0 })]);
            const e = expiry(r, "auto")!;
            expect(e.deleted.map((d) => d.workload)).to.include("Deployment prod/db");
            // Replayed with every node at once, whose ages the input does not hold: reported, undecided.
            expect(e.verdict).to.equal("undecided");
            expect(r.problems.filter((p) => p.change === "expiry")).to.deep.equal([]);
            expect(r.undecided.join("\n")).to.match(
                /PodDisruptionBudget prod\/db still holds pod db-\d of Deployment prod\/db on node auto-\d of NodePool auto \(forced expiry\) 59m into the drain.*deletes it past the budget.* — if every node of the pool expires at once/,
            );
            const ok = run([autoPool({ terminationGracePeriod: "1h" }), app("db", { replicas: 2 }), pdb("db", { maxUnavailable: 1 })]);
            expect(expiry(ok, "auto")!.deleted).to.deep.equal([]);
        });

        it("reports a grace period longer than the pool's terminationGracePeriod as cut short, with Auto Mode's 24h when the pool sets none", () => {
            const r = run([autoPool({ terminationGracePeriod: "10m" }), app("slow", { replicas: 2, grace: 1200 })]);
            expect(r.problems.map((p) => p.message).join("\n")).to.match(
                /Pod slow-\d of Deployment prod\/slow is cut short during the rollout of NodePool auto \(forced expiry\).*past the 10m terminationGracePeriod of NodePool auto/,
            );
            const builtIn = run([autoModeCluster(["system"]), onSystemPool("slow", { replicas: 2, grace: 25 * 3600 })]);
            expect(expiry(builtIn, "system")?.killed.map((k) => k.workload)).to.include("Deployment prod/slow");
            const fits = run([autoModeCluster(["system"]), onSystemPool("slow", { replicas: 2, grace: 23 * 3600 })]);
            expect(expiry(fits, "system")?.killed).to.deep.equal([]);
        });

        it("expires only the pool's own nodes, launches its evicted pods' nodes in the pool after them, and drains within its terminationGracePeriod", () => {
            const on = (name: string, pool: string) =>
                changed(app(name, { replicas: 2, spreadHost: true }), "spec.template.spec.nodeSelector", { "karpenter.sh/nodepool": pool });
            const r = run([
                autoPool({ terminationGracePeriod: "1h" }),
                nodePool("k", { terminationGracePeriod: "1h" }),
                on("a", "auto"),
                on("b", "k"),
            ]);
            const [wave] = expiry(r, "auto")!.waves;
            expect(wave.drained).to.have.length(2);
            expect(wave.drained.every((n) => n.startsWith("auto-"))).to.equal(true);
            expect(wave.launched).to.have.length(2);
            expect(wave.launched.every((n) => n.startsWith("auto-") && !wave.drained.includes(n))).to.equal(true);
            expect(expiry(r, "auto")!.windows).to.deep.include({ seconds: 3600, source: "terminationGracePeriod of NodePool auto" });
            // A pool with no node has nothing to expire.
            expect(expiry(run([autoPool({ terminationGracePeriod: "1h" })]), "auto")!.waves).to.deep.equal([]);
        });

        it("holds a karpenter.sh/do-not-disrupt pod until the terminationGracePeriod, then deletes it", () => {
            const pinned = changed(app("pinned", { replicas: 1 }), "spec.template.metadata.annotations", {
                "karpenter.sh/do-not-disrupt": "true",
            });
            const e = expiry(run([autoPool({ terminationGracePeriod: "1h" }), pinned]), "auto")!;
            expect(e.deleted.map((d) => d.workload)).to.deep.equal(["Deployment prod/pinned"]);
            const plain = expiry(run([autoPool({ terminationGracePeriod: "1h" }), app("plain", { replicas: 1 })]), "auto")!;
            expect(plain.deleted).to.deep.equal([]);
        });

        it("says the lifetime it replays: expireAfter Never, and what the pool leaves to Auto Mode's defaults", () => {
            const never = expiry(
                run([autoPool({ expireAfter: "Never", terminationGracePeriod: "1h" }), app("web", { replicas: 1 })]),
                "auto",
            )!;
            expect(never.mechanism).to.match(/^forced expiry at expireAfter Never: /);
            const defaults = expiry(run([autoPool({ expireAfter: undefined }), app("web", { replicas: 1 })]), "auto")!;
            expect(defaults.notes.filter((n) => n.startsWith("the NodePool sets no "))).to.have.length(2);
            expect(defaults.notes.join("\n")).to.match(
                /the NodePool sets no expireAfter: .*\n?.*the NodePool sets no terminationGracePeriod: |the NodePool sets no terminationGracePeriod: .*the NodePool sets no expireAfter: /s,
            );
        });

        it("counts the lifetime as expireAfter plus terminationGracePeriod, at most Auto Mode's 504h", () => {
            const notes = (expireAfter: string, terminationGracePeriod: string) =>
                expiry(run([autoPool({ expireAfter, terminationGracePeriod }), app("web", { replicas: 1 })]), "auto")!.notes.filter((n) =>
                    n.includes("EKS Auto Mode lets a node live"),
                );
            expect(notes("503h", "1h")).to.deep.equal([]);
            expect(notes("500h", "5h")).to.have.length(1);
            expect(notes("503h", "2h")[0]).to.match(
                /^expireAfter 503h plus terminationGracePeriod 2h is past the 504h EKS Auto Mode lets a node live \(automode\.adoc\)/,
            );
            expect(notes("Never", "1h")[0]).to.match(/^expireAfter Never plus terminationGracePeriod 1h is past the 504h/);
        });

        it("notes a lifetime past Auto Mode's 21 days", () => {
            const r = run([autoPool({ expireAfter: "720h", terminationGracePeriod: "1h" }), app("web", { replicas: 1 })]);
            expect(expiry(r, "auto")!.notes.join("\n")).to.match(/past the 504h EKS Auto Mode lets a node live/);
        });
    });
});
