/**
 * The drain rehearsal on EKS Auto Mode: the built-in pools a cluster's computeConfig.nodePools
 * enables as capacity, Auto Mode's own instance labels on custom NodePools, and the dev-auto
 * stack. The forced expiry of every Auto Mode pool is rollouts/autoModeExpiry.test.ts's.
 */
import { expect } from "chai";
import { describeCapacity, rehearse } from "eks-platform-rehearsal";
import { unknownCheckingProxy } from "eks-platform-evaluation";
import { planOf } from "../mocks";
import { changed, TestResource, urnOf } from "../policies/harness";
import { app, AUTO_MODE_NODE_CLASS, autoModeCluster, nodePool, onSystemPool, pdb, run } from "./scenario";

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
            const r = run([autoModeCluster(["system"]), onSystemPool("addon", { replicas: 2 }), pdb("addon", { maxUnavailable: 1 })]);
            expect(r.unschedulable).to.deep.equal([]);
            const system = drift(r, "system");
            expect(system?.kind).to.equal("nodePool");
            expect(system?.nodes).to.be.greaterThan(0);
            expect(r.problems.map((p) => p.message)).to.deep.equal([]);
            const without = run([
                autoModeCluster(["general-purpose"]),
                onSystemPool("addon", { replicas: 2 }),
                pdb("addon", { maxUnavailable: 1 }),
            ]);
            expect(without.unschedulable.map((u) => u.workload)).to.include("Deployment prod/addon");
        });

        it("are read as the kernel holds them: system tainted, amd64 and arm64, On-Demand C/M/R of generation 5 or newer; general-purpose amd64 only", () => {
            const { groups } = capacityOf([autoModeCluster(["general-purpose", "system"])]);
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
            const r = run([autoModeCluster(["sytem"]), onSystemPool("addon")]);
            expect(r.groups.map((g) => g.name)).to.deep.equal([]);
            expect(r.inputUndecided.join("\n")).to.match(/built-in NodePool "sytem", which EKS Auto Mode does not have/);
        });
    });

    describe("custom NodePools on Auto Mode's NodeClass", () => {
        it("narrow instance types by eks.amazonaws.com/instance-family, -category, -generation and -size", () => {
            const pool = nodePool("auto", {
                nodeClassRef: AUTO_MODE_NODE_CLASS,
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
                    nodeClassRef: AUTO_MODE_NODE_CLASS,
                    requirements: [{ key: "eks.amazonaws.com/instance-family", operator: "In", values: ["m7g"] }],
                }),
            ]).groups[0];
            expect(new Set(family.instanceTypes.map((t) => t.name.split(".")[0]))).to.deep.equal(new Set(["m7g"]));
        });

        it("label nodes as Auto Mode does: a pod selecting eks.amazonaws.com/instance-category runs there", () => {
            const pool = nodePool("auto", {
                nodeClassRef: AUTO_MODE_NODE_CLASS,
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
                    nodeClassRef: AUTO_MODE_NODE_CLASS,
                    requirements: [{ key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m7i"] }],
                }),
            ]).groups;
            expect(karpenterKey.undecided.join("\n")).to.match(/karpenter\.k8s\.aws\/instance-family is a label of self-managed Karpenter/);
            const [memory] = capacityOf([
                nodePool("auto", {
                    nodeClassRef: AUTO_MODE_NODE_CLASS,
                    requirements: [{ key: "eks.amazonaws.com/instance-memory", operator: "Gt", values: ["4096"] }],
                }),
            ]).groups;
            expect(memory.undecided.join("\n")).to.match(/eks\.amazonaws\.com\/instance-memory is not in the instance data/);
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
