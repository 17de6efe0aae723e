/**
 * The drain rehearsal on EKS Auto Mode: the built-in pools a cluster's computeConfig.nodePools
 * enables as capacity, Auto Mode's own instance labels on custom NodePools, and the forced expiry
 * of every Auto Mode pool (budgets ignored, drain bounded by terminationGracePeriod).
 */
import { expect } from "chai";
import { describeCapacity, rehearse } from "eks-platform-rehearsal";
import { unknownCheckingProxy } from "eks-platform-evaluation";
import { planOf } from "../mocks";
import { changed, TestResource, urnOf } from "../policies/harness";
import { app, nodePool, pdb, run } from "./scenario";

const AUTO_REF = { group: "eks.amazonaws.com", kind: "NodeClass", name: "platform" };

/** A pulumi-eks cluster with Auto Mode and these built-in pools. */
function cluster(nodePools: string[]): TestResource {
    return {
        type: "eks:index:Cluster",
        name: "cluster-eks",
        props: { name: "platform", autoMode: { enabled: true, computeConfig: { enabled: true, nodePools } } },
    };
}

/** A workload like an EKS add-on on the system pool: selects it and tolerates its taint. */
function onSystem(name: string, opts: Parameters<typeof app>[1] = {}): TestResource {
    const a = changed(app(name, opts), "spec.template.spec.nodeSelector", { "karpenter.sh/nodepool": "system" });
    return changed(a, "spec.template.spec.tolerations", [{ key: "CriticalAddonsOnly", operator: "Exists" }]);
}

function capacityOf(resources: TestResource[]) {
    return describeCapacity(
        resources.map((r) => ({
            type: r.type,
            name: r.name,
            urn: urnOf(r),
            props: unknownCheckingProxy(JSON.parse(JSON.stringify(r.props))),
        })),
    );
}

const expiry = (r: ReturnType<typeof run>, name: string) => r.groups.find((g) => g.name === name && g.change === "expiry");
const drift = (r: ReturnType<typeof run>, name: string) => r.groups.find((g) => g.name === name && g.change === undefined);

describe("drain rehearsal: EKS Auto Mode", () => {
    describe("built-in pools", () => {
        it("give capacity: a pod selecting karpenter.sh/nodepool: system runs on the system pool the cluster enables, and fits nowhere without it", () => {
            const r = run([cluster(["system"]), onSystem("addon", { replicas: 2 }), pdb("addon", { maxUnavailable: 1 })]);
            expect(r.unschedulable).to.deep.equal([]);
            const system = drift(r, "system");
            expect(system?.kind).to.equal("nodePool");
            expect(system?.nodes).to.be.greaterThan(0);
            expect(r.problems.map((p) => p.message)).to.deep.equal([]);
            const without = run([cluster(["general-purpose"]), onSystem("addon", { replicas: 2 }), pdb("addon", { maxUnavailable: 1 })]);
            expect(without.unschedulable.map((u) => u.workload)).to.include("Deployment prod/addon");
        });

        it("are read as the kernel holds them: system tainted, amd64 and arm64, On-Demand C/M/R of generation 5 or newer; general-purpose amd64 only", () => {
            const { groups } = capacityOf([cluster(["general-purpose", "system"])]);
            const system = groups.find((g) => g.name === "system")!;
            const general = groups.find((g) => g.name === "general-purpose")!;
            expect(system.taints).to.deep.equal([{ key: "CriticalAddonsOnly", value: "", effect: "NoSchedule" }]);
            expect(general.taints).to.deep.equal([]);
            expect(system.capacityType).to.equal("on-demand");
            expect(system.drainWindowSeconds).to.equal(24 * 3600);
            const families = (g: typeof system) => new Set(g.instanceTypes.map((t) => t.name.split(".")[0]));
            for (const f of families(system)) {
                expect(f).to.match(/^[cmr]([5-9]|\d\d)/);
            }
            expect([...families(system)].some((f) => f.includes("g"))).to.equal(true, "system runs Graviton (arm64) types");
            expect([...families(general)].some((f) => /^[cmr]\d+g/.test(f))).to.equal(false, "general-purpose is amd64 only");
            expect(system.instanceTypes.some((t) => /\.(nano|micro|small)$/.test(t.name))).to.equal(false);
        });

        it("a typo in computeConfig.nodePools gives no capacity and is said undecided", () => {
            const r = run([cluster(["sytem"]), onSystem("addon")]);
            expect(r.groups.map((g) => g.name)).to.deep.equal([]);
            expect(r.inputUndecided.join("\n")).to.match(/built-in NodePool "sytem", which EKS Auto Mode does not have/);
        });
    });

    describe("custom NodePools on Auto Mode's NodeClass", () => {
        it("narrow instance types by eks.amazonaws.com/instance-family, -category, -generation and -size", () => {
            const pool = nodePool("auto", {
                nodeClassRef: AUTO_REF,
                requirements: [
                    { key: "eks.amazonaws.com/instance-category", operator: "In", values: ["m"] },
                    { key: "eks.amazonaws.com/instance-generation", operator: "Gt", values: ["6"] },
                    { key: "eks.amazonaws.com/instance-size", operator: "In", values: ["large", "xlarge"] },
                ],
            });
            const [g] = capacityOf([pool]).groups;
            expect(g.instanceTypes.length).to.be.greaterThan(0);
            for (const t of g.instanceTypes) {
                expect(t.name).to.match(/^m([7-9]|\d\d)[a-z0-9-]*\.(large|xlarge)$/);
            }
            expect(g.undecided).to.deep.equal([]);
            const family = capacityOf([
                nodePool("auto", {
                    nodeClassRef: AUTO_REF,
                    requirements: [{ key: "eks.amazonaws.com/instance-family", operator: "In", values: ["m7g"] }],
                }),
            ]).groups[0];
            expect(new Set(family.instanceTypes.map((t) => t.name.split(".")[0]))).to.deep.equal(new Set(["m7g"]));
        });

        it("label nodes as Auto Mode does: a pod selecting eks.amazonaws.com/instance-category runs there", () => {
            const pool = nodePool("auto", {
                nodeClassRef: AUTO_REF,
                requirements: [{ key: "eks.amazonaws.com/instance-category", operator: "In", values: ["c"] }],
            });
            const pod = changed(app("web", { replicas: 1 }), "spec.template.spec.nodeSelector", {
                "eks.amazonaws.com/instance-category": "c",
            });
            expect(run([pool, pod]).unschedulable).to.deep.equal([]);
            const karpenterLabel = changed(app("web", { replicas: 1 }), "spec.template.spec.nodeSelector", {
                "karpenter.k8s.aws/instance-category": "c",
            });
            expect(run([pool, karpenterLabel]).unschedulable.map((u) => u.workload)).to.deep.equal(["Deployment prod/web"]);
        });

        it("say undecided, never pass, what they cannot model: karpenter.k8s.aws/* keys and other eks.amazonaws.com/instance-* keys", () => {
            const [karpenterKey] = capacityOf([
                nodePool("auto", {
                    nodeClassRef: AUTO_REF,
                    requirements: [{ key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m7i"] }],
                }),
            ]).groups;
            expect(karpenterKey.undecided.join("\n")).to.match(/karpenter\.k8s\.aws\/instance-family is a label of self-managed Karpenter/);
            const [memory] = capacityOf([
                nodePool("auto", {
                    nodeClassRef: AUTO_REF,
                    requirements: [{ key: "eks.amazonaws.com/instance-memory", operator: "Gt", values: ["4096"] }],
                }),
            ]).groups;
            expect(memory.undecided.join("\n")).to.match(/eks\.amazonaws\.com\/instance-memory is not in the instance data/);
        });
    });

    describe("forced expiry", () => {
        const autoPool = (spec: Record<string, unknown> = {}) => nodePool("auto", { nodeClassRef: AUTO_REF, ...spec });

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
            const builtIn = run([cluster(["system"]), onSystem("slow", { replicas: 2, grace: 25 * 3600 })]);
            expect(expiry(builtIn, "system")?.killed.map((k) => k.workload)).to.include("Deployment prod/slow");
            const fits = run([cluster(["system"]), onSystem("slow", { replicas: 2, grace: 23 * 3600 })]);
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

    describe("the dev-auto stack", () => {
        it("places metrics-server on the built-in system pool: no drain-rehearsal violation in its plan", async () => {
            const plan = await planOf("dev-auto");
            const drains = (plan.violations as { policy: string; message: string }[]).filter((v) => v.policy === "drain-rehearsal");
            expect(drains.map((v) => v.message)).to.deep.equal([]);
            const r = rehearse(
                plan.resources.map((p, i) => ({ ...p, urn: `urn:pulumi:dev-auto::eks-platform::${p.type}::${p.name}#${i}` })),
            );
            expect(r.unschedulable).to.deep.equal([]);
            const system = drift(r, "system");
            expect(system?.nodes).to.be.greaterThan(0);
            expect(system?.waves.flatMap((w) => (w.slowest ? [w.slowest.workload] : []))).to.include(
                "Deployment kube-system/metrics-server",
            );
            expect(expiry(r, "system")?.verdict).to.equal("ok");
        });
    });
});
