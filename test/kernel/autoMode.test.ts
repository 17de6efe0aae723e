import { expect } from "chai";
import {
    AUTO_MODE_BUILT_IN_POOLS,
    AUTO_MODE_MAX_NODE_LIFETIME_SECONDS,
    BUILT_IN_POOL_NAMES,
    enabledBuiltInPools,
    isAutoModeNodePool,
    nodePoolLifetime,
    path,
} from "eks-platform-kernel";

const cluster = (autoMode: unknown) => ({ type: "eks:index:Cluster", name: "cluster-eks", urn: "urn:c", props: { autoMode } });

describe("kernel autoMode", () => {
    it("holds the built-in pools as the EKS User Guide describes them", () => {
        const system = AUTO_MODE_BUILT_IN_POOLS.system;
        const general = AUTO_MODE_BUILT_IN_POOLS["general-purpose"];
        expect(path(system, "spec", "template", "spec", "taints")).to.deep.equal([{ key: "CriticalAddonsOnly", effect: "NoSchedule" }]);
        expect(path(general, "spec", "template", "spec", "taints")).to.equal(undefined);
        const arch = (p: unknown) =>
            (path(p, "spec", "template", "spec", "requirements") as { key: string; values: string[] }[]).find(
                (r) => r.key === "kubernetes.io/arch",
            )?.values;
        expect(arch(system)).to.deep.equal(["amd64", "arm64"]);
        expect(arch(general)).to.deep.equal(["amd64"]);
        for (const p of [system, general]) {
            expect(path(p, "spec", "template", "spec", "expireAfter")).to.equal("336h");
            expect(path(p, "spec", "template", "spec", "terminationGracePeriod")).to.equal("24h");
            expect(path(p, "spec", "disruption")).to.deep.equal({
                budgets: [{ nodes: "10%" }],
                consolidateAfter: "30s",
                consolidationPolicy: "WhenEmptyOrUnderutilized",
            });
            expect(isAutoModeNodePool(p)).to.equal(true);
        }
    });

    it("has one home for the 21-day lifetime: the config's is the kernel's", () => {
        expect(AUTO_MODE_MAX_NODE_LIFETIME_SECONDS).to.equal(21 * 24 * 3600);
        // The names the config takes are the pools the data holds, one each.
        expect([...BUILT_IN_POOL_NAMES].sort()).to.deep.equal(Object.keys(AUTO_MODE_BUILT_IN_POOLS).sort());
    });

    it("reads the built-in pools a cluster enables, both by default, each once, typos apart", () => {
        expect(
            enabledBuiltInPools([cluster({ enabled: true, computeConfig: { nodePools: ["system"] } })]).pools.map((p) => p.name),
        ).to.deep.equal(["system"]);
        expect(enabledBuiltInPools([cluster({ enabled: true })]).pools.map((p) => p.name)).to.deep.equal(["general-purpose", "system"]);
        expect(enabledBuiltInPools([cluster({ enabled: false, computeConfig: { nodePools: ["system"] } })]).pools).to.deep.equal([]);
        const both = enabledBuiltInPools([
            cluster({ enabled: true, computeConfig: { nodePools: ["system", "sytem"] } }),
            {
                type: "aws:eks/cluster:Cluster",
                name: "c",
                urn: "urn:a",
                props: { computeConfig: { enabled: true, nodePools: ["system"] } },
            },
        ]);
        expect(both.pools.map((p) => p.name)).to.deep.equal(["system"]);
        expect(both.invalid.map((i) => i.name)).to.deep.equal(["sytem"]);
    });

    it("fills in Auto Mode's lifetime defaults, and Karpenter's CRD default elsewhere", () => {
        const pool = (group: string, spec: Record<string, unknown> = {}) => ({
            spec: { template: { spec: { nodeClassRef: { group, kind: "K", name: "n" }, ...spec } } },
        });
        expect(nodePoolLifetime(pool("eks.amazonaws.com"))).to.include({
            expireAfterSeconds: 336 * 3600,
            terminationGraceSeconds: 24 * 3600,
        });
        const karpenter = nodePoolLifetime(pool("karpenter.k8s.aws"));
        expect(karpenter.expireAfterSeconds).to.equal(720 * 3600);
        expect(karpenter.terminationGraceSeconds).to.equal(undefined);
        expect(nodePoolLifetime(pool("eks.amazonaws.com", { expireAfter: "Never", terminationGracePeriod: "1h" }))).to.include({
            expireAfterSeconds: Infinity,
            terminationGraceSeconds: 3600,
        });
    });
});
