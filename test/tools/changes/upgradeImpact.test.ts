import { expect } from "chai";
import { clusterOf, Rendered, upgradeImpact } from "../../../tools/changes/upgradeImpact";

const r = (type: string, name: string, props: Record<string, unknown>): Rendered => ({ type, name, urn: `urn:${type}::${name}`, props });
const CLUSTER = "eks:index:Cluster";
const cluster = (props: Record<string, unknown> = {}) => r(CLUSTER, "cluster-eks", { name: "platform-dev", version: "1.34", ...props });
const nodeClass = (name: string, terms: unknown[]) =>
    r("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", `class-${name}`, { metadata: { name }, spec: { amiSelectorTerms: terms } });
const pool = (name: string, nodeClassName: string, budgets?: unknown[]) =>
    r("kubernetes:karpenter.sh/v1:NodePool", `pool-${name}`, {
        metadata: { name },
        spec: { template: { spec: { nodeClassRef: { name: nodeClassName } } }, ...(budgets ? { disruption: { budgets } } : {}) },
    });
const addon = (addonName: string | undefined, addonVersion: string) =>
    r("aws:eks/addon:Addon", `addon-${addonName ?? "x"}`, { addonName, addonVersion });

describe("tools/changes/upgradeImpact.ts: what a minor upgrade does to a render", () => {
    it("reads the render's EKS cluster (its name, else the resource's) and nothing without one or without a version", () => {
        expect(clusterOf([cluster()])).to.deep.equal({ urn: cluster().urn, name: "platform-dev", version: "1.34" });
        expect(clusterOf([cluster({ name: undefined })])?.name).to.equal("cluster-eks");
        expect(clusterOf([cluster({ version: undefined })])).to.equal(undefined);
        expect(clusterOf([r("aws:eks/cluster:Cluster", "c", { name: "x", version: "1.34" })])).to.equal(undefined);
        expect(upgradeImpact([nodeClass("default", [{ alias: "al2023@v1" }])], "1.35")).to.equal(undefined);
    });

    it("drifts a pool only when its own EC2NodeClass selects by a non-empty alias (Karpenter resolves aliases per minor); the pool's budgets as written, Karpenter's 10% when a budget names none", () => {
        const impact = upgradeImpact(
            [
                cluster(),
                nodeClass("default", [{ alias: "al2023@v20260512" }]),
                nodeClass("pinned", [{ id: "ami-0123456789abcdef0" }]),
                nodeClass("empty", [{ alias: "" }]),
                pool("general", "default", [{ nodes: "20%" }, { schedule: "@daily" }]),
                pool("fixed", "pinned"),
                pool("blank", "empty"),
                pool("orphan", "missing"),
                r("kubernetes:karpenter.sh/v1beta1:NodePool", "old", {
                    metadata: { name: "old" },
                    spec: { template: { spec: { nodeClassRef: { name: "default" } } } },
                }),
            ],
            "1.35",
        )!;
        expect(impact.drifts).to.deep.equal([
            {
                urn: pool("general", "default").urn,
                pool: "general",
                nodeClass: "default",
                alias: "al2023@v20260512",
                budgets: ["20%", "10%"],
            },
        ]);
        expect(
            upgradeImpact([cluster(), nodeClass("default", [{ alias: "bottlerocket@latest" }]), pool("p", "default")], "1.35")!.drifts[0]
                .budgets,
        ).to.deep.equal([]);
    });

    it("takes a managed group's kubelet minor from its version, else its AMI release's minor; unpinned is undefined", () => {
        const group = (name: string, props: Record<string, unknown>) => r("aws:eks/nodeGroup:NodeGroup", name, props);
        const impact = upgradeImpact(
            [
                cluster(),
                group("a", { version: "1.33", releaseVersion: "1.34.7-20260512" }),
                group("b", { releaseVersion: "1.32.9-20250101", nodeGroupName: "named-b" }),
                group("c", {}),
                group("d", { releaseVersion: "not-a-release" }),
                r("aws:autoscaling/group:Group", "asg", { version: "1.20" }),
            ],
            "1.35",
        )!;
        expect(impact.groups.map((g) => [g.name, g.minor])).to.deep.equal([
            ["a", 33],
            ["named-b", 32],
            ["c", undefined],
            ["d", undefined],
        ]);
    });

    it("calls a kube-proxy build of another minor behind (EKS offers each build for one minor) and every other add-on, or a kube-proxy of the target's minor, to confirm", () => {
        const impact = upgradeImpact(
            [
                cluster(),
                addon("kube-proxy", "v1.34.0-eksbuild.2"),
                addon("vpc-cni", "v1.20.4-eksbuild.1"),
                addon(undefined, "v1.0.0-eksbuild.1"),
                r("aws:eks/addon:Addon", "bare", { addonName: "coredns" }),
            ],
            "1.35",
        )!;
        expect(impact.addons.map((a) => [a.addon, a.version, a.verdict, a.minor])).to.deep.equal([
            ["kube-proxy", "v1.34.0-eksbuild.2", "behind", "1.34"],
            ["vpc-cni", "v1.20.4-eksbuild.1", "confirm", undefined],
            ["addon-x", "v1.0.0-eksbuild.1", "confirm", undefined],
            ["coredns", "(unpinned)", "confirm", undefined],
        ]);
        expect(upgradeImpact([cluster(), addon("kube-proxy", "v1.35.0-eksbuild.1")], "1.35")!.addons[0].verdict).to.equal("confirm");
    });

    it("finds the stack's objects on an API the target stops serving, by its name, else the resource's; none for a target it cannot read", () => {
        const pdb = (name: string | undefined) =>
            r("kubernetes:policy/v1beta1:PodDisruptionBudget", `pdb-${name ?? "x"}`, {
                apiVersion: "policy/v1beta1",
                kind: "PodDisruptionBudget",
                metadata: name ? { name } : {},
            });
        const impact = upgradeImpact([cluster({ version: "1.24" }), pdb("api"), pdb(undefined)], "1.25")!;
        expect(impact.removed.map((u) => [u.kind, u.name, u.removed.apiVersion, u.removed.removedIn])).to.deep.equal([
            ["PodDisruptionBudget", "api", "policy/v1beta1", "1.25"],
            ["PodDisruptionBudget", "pdb-x", "policy/v1beta1", "1.25"],
        ]);
        expect(upgradeImpact([cluster({ version: "1.23" }), pdb("api")], "1.24")!.removed).to.deep.equal([]);
        expect(upgradeImpact([cluster(), pdb("api")], "next")!.removed).to.deep.equal([]);
        expect(upgradeImpact([cluster()], "1.35")).to.deep.include({
            cluster: { urn: cluster().urn, name: "platform-dev" },
            from: "1.34",
            to: "1.35",
        });
    });
});

describe("tools/changes/upgradeImpact.ts: a pool and its class of the same name", () => {
    it("finds the pool's EC2NodeClass among the EC2NodeClasses only, whatever else shares its name (Karpenter's getting-started NodePool and EC2NodeClass are both `default`)", () => {
        const impact = upgradeImpact(
            [
                cluster(),
                nodeClass("default", [{ alias: "al2023@v20260512" }]),
                pool("default", "default"),
                r("kubernetes:core/v1:Namespace", "ns-default", { metadata: { name: "default" } }),
            ],
            "1.35",
        )!;
        expect(impact.drifts.map((d) => [d.pool, d.nodeClass, d.alias])).to.deep.equal([["default", "default", "al2023@v20260512"]]);
    });
});
