/**
 * rehearsal/capacity.ts: the node capacity a platform profile publishes is what the rehearsal
 * reads (its own `readCluster`): each kind of group with its instance types and allocatable, size
 * or limits, capacity type, rollout settings and drain window. Sizes from the instance data
 * (./scenario.ts): an m6i.large holds 1930m CPU, 6903 MiB, 29 pods and 9 branch interfaces.
 */
import { expect } from "chai";
import { describeCapacity } from "eks-platform-rehearsal";
import { changed, TestResource, urnOf } from "../policies/harness";
import { asg, hook, managed, nodePool } from "./scenario";

const describeOf = (resources: TestResource[]) =>
    describeCapacity(resources.map((r) => ({ type: r.type, name: r.name, urn: urnOf(r), props: r.props })));

const LARGE = {
    name: "m6i.large",
    allocatable: { cpuMillis: 1930, memoryMiB: 6903, pods: 29, extended: { "vpc.amazonaws.com/pod-eni": 9 } },
};

describe("rehearsal/capacity.ts: the capacity a platform profile publishes", () => {
    it("a managed node group: one template, its desired size and zone count, maxUnavailable and the strategy (EKS CreateNodegroup updateConfig)", () => {
        const { groups } = describeOf([managed("apps", 3, { update: { maxUnavailable: 2, updateStrategy: "MINIMAL" } })]);
        expect(groups).to.have.length(1);
        const { labels, ...rest } = groups[0];
        expect(rest).to.deep.equal({
            name: "apps",
            undecided: [],
            kind: "managed",
            capacityType: "on-demand",
            instanceTypes: [LARGE],
            taints: [],
            zones: 3,
            desired: 3,
            rollout: { maxUnavailable: 2, maxUnavailableSource: "updateConfig.maxUnavailable 2", minimal: true },
        });
        expect(labels).to.include({ "eks.amazonaws.com/nodegroup": "apps", "eks.amazonaws.com/capacityType": "ON_DEMAND" });
    });

    it("a self-managed group: instance refresh preferences, its lifecycle hook and the hook's heartbeat as the drain window", () => {
        const { groups } = describeOf([asg("batch", 2, { minHealthy: 50, maxHealthy: 150 }), hook(300)]);
        const { labels, ...rest } = groups[0];
        expect(rest).to.deep.equal({
            name: "batch",
            undecided: [],
            kind: "selfManaged",
            capacityType: "on-demand",
            instanceTypes: [LARGE],
            taints: [],
            zones: 1,
            desired: 2,
            rollout: {
                minHealthyPercentage: 50,
                maxHealthyPercentage: 150,
                warmupSeconds: 60,
                lifecycleHook: "nodegroups-batch-terminate",
            },
            drainWindowSeconds: 300,
        });
        expect(labels).to.include({ workload: "batch" });
        // Without a hook: no drain window, no hook named.
        const bare = describeOf([asg("batch", 2)]).groups[0];
        expect(bare).to.not.have.property("drainWindowSeconds");
        expect(bare.rollout).to.not.have.property("lifecycleHook");
    });

    it("an Auto Scaling group whose instances are all Spot is published as spot (InstancesDistribution: no on-demand base or share)", () => {
        const { groups } = describeOf([
            asg("batch", 2, { distribution: { onDemandBaseCapacity: 0, onDemandPercentageAboveBaseCapacity: 0 } }),
        ]);
        expect(groups[0].capacityType).to.equal("spot");
    });

    it("a NodePool: its candidates, limits, weight, budgets (reasons and schedules), zones and terminationGracePeriod", () => {
        const pool = changed(
            changed(
                changed(
                    nodePool("general", {
                        terminationGracePeriod: "10m",
                        requirements: [
                            { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand", "spot"] },
                            { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.large"] },
                            { key: "topology.kubernetes.io/zone", operator: "In", values: ["zone-a"] },
                        ],
                    }),
                    "spec.limits",
                    { cpu: "8", memory: "32Gi" },
                ),
                "spec.weight",
                10,
            ),
            "spec.disruption.budgets",
            [
                { nodes: "20%", reasons: ["Drifted"] },
                { nodes: "0", schedule: "@daily", duration: "10m" },
            ],
        );
        const { groups, zones } = describeOf([pool]);
        // With no subnets to read, the zones the pools name are the cluster's.
        expect(zones).to.deep.equal(["zone-a"]);
        expect(groups[0]).to.deep.include({
            name: "general",
            undecided: [],
            kind: "nodePool",
            capacityType: "spot or on-demand",
            instanceTypes: [LARGE],
            taints: [],
            zones: ["zone-a"],
            limits: { cpuMillis: 8000, memoryMiB: 32768 },
            rollout: {
                weight: 10,
                budgets: [
                    { nodes: "20%", reasons: ["Drifted"] },
                    { nodes: "0", schedule: "@daily", duration: "10m" },
                ],
                doNotDisruptNodes: false,
            },
            drainWindowSeconds: 600,
        });
    });

    it("a NodePool that says nothing of zones runs in every zone of the cluster; only Spot is spot; no terminationGracePeriod, no window", () => {
        const spot = nodePool("general", {
            requirements: [
                { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] },
                { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.large"] },
            ],
        });
        const g = describeOf([spot]).groups[0];
        expect(g).to.deep.include({ capacityType: "spot", zones: "every zone of the cluster" });
        expect(g).to.not.have.property("drainWindowSeconds");
        const onDemand = describeOf([nodePool("general")]).groups[0];
        expect(onDemand.capacityType).to.equal("on-demand");
    });
    it("a managed group whose instance type is in its launch template publishes no instance type, labels or taints, and says why", () => {
        const templated = changed(changed(managed("apps", 2), "instanceTypes", []), "launchTemplate", { id: "lt-0123", version: "1" });
        const g = describeOf([templated]).groups[0];
        expect(g).to.deep.include({ instanceTypes: [], labels: {}, taints: [] });
        expect(g.undecided).to.deep.equal(["its instance type is set in the launch template, which the rehearsal does not follow"]);
    });

    it("a NodePool's limits as published: only those it sets, extended resources by name (karpenter.sh/v1 spec.limits)", () => {
        const gpu = changed(nodePool("general"), "spec.limits", { memory: "64Gi", "nvidia.com/gpu": "4" });
        expect(describeOf([gpu]).groups[0].limits).to.deep.equal({ memoryMiB: 65536, "nvidia.com/gpu": 4 });
        const cpuOnly = changed(nodePool("general"), "spec.limits", { cpu: "16" });
        expect(describeOf([cpuOnly]).groups[0].limits).to.deep.equal({ cpuMillis: 16000 });
    });
});
