/**
 * rehearsal/capacity.ts: the node capacity a platform profile publishes is what the rehearsal
 * reads (its own `readCluster`): each kind of group with its instance types and allocatable, size
 * or limits, capacity type, rollout settings and drain window. Sizes from the instance data
 * (./scenario.ts): an m6i.large holds 1930m CPU, 6903 MiB, 29 pods and 9 branch interfaces.
 */
import { expect } from "chai";
import { describeCapacity } from "eks-platform-rehearsal";
import { changed, TestResource, urnOf } from "../policies/harness";
import { app, asg, hook, managed, nodePool, run } from "./scenario";

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
    describe("how rehearsal/read.ts reads a NodePool (karpenter.sh/v1 CRD, karpenter v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml)", () => {
        const budgets = (values: unknown[]) =>
            describeOf([changed(nodePool("general"), "spec.disruption.budgets", values)]).groups[0].rollout.budgets;

        it("a budget without nodes is 10% (the CRD's default for budgets[].nodes): drift of 3 nodes goes 1 at a time, not all at once", () => {
            expect(budgets([{ reasons: ["Drifted"] }])).to.deep.equal([{ nodes: "10%", reasons: ["Drifted"] }]);
            const pool = changed(nodePool("general"), "spec.disruption.budgets", [{ reasons: ["Drifted"] }]);
            const r = run([pool, app("web", { replicas: 3, cpu: "1500m" })]);
            expect(r.groups[0].nodes).to.equal(3);
            expect(r.groups[0].mechanism).to.match(/^Karpenter drift: 1 node at a time/);
        });

        it("a budget whose nodes the CRD's pattern refuses (^((100|[0-9]{1,2})%|[0-9]+)$) is not counted; reasons that are not strings are dropped", () => {
            expect(
                budgets([{ nodes: "150%" }, { nodes: " 5" }, { nodes: "0x5" }, { nodes: "ten" }, { nodes: "5", reasons: ["Drifted", 5] }]),
            ).to.deep.equal([{ nodes: "5", reasons: ["Drifted"] }]);
        });

        it("a limit whose quantity cannot be read is no limit (spec.limits is a ResourceList of quantities)", () => {
            const unreadable = changed(nodePool("general"), "spec.limits", { cpu: "16", "nvidia.com/gpu": "lots" });
            expect(describeOf([unreadable]).groups[0].limits).to.deep.equal({ cpuMillis: 16000 });
        });
    });

    describe("how rehearsal/read.ts reads the groups it publishes (EKS CreateNodegroup, EC2 Auto Scaling CreateAutoScalingGroup and PutLifecycleHook)", () => {
        it("updateConfig: maxUnavailable and maxUnavailablePercentage count from 1 (EKS UpdateConfig: minimum 1); 0 falls back to EKS's default of 1 node", () => {
            const rollout = (update: Record<string, unknown>) => describeOf([managed("apps", 3, { update })]).groups[0].rollout;
            expect(rollout({ maxUnavailable: 1 })).to.include({ maxUnavailable: 1, maxUnavailableSource: "updateConfig.maxUnavailable 1" });
            expect(rollout({ maxUnavailable: 0 })).to.include({ maxUnavailable: 1, maxUnavailableSource: "EKS's default of 1 node" });
            expect(rollout({ maxUnavailablePercentage: 1 })).to.include({
                maxUnavailable: 1,
                maxUnavailableSource: "updateConfig.maxUnavailablePercentage 1% of 3",
            });
            expect(rollout({ maxUnavailablePercentage: 0 })).to.include({ maxUnavailableSource: "EKS's default of 1 node" });
        });

        it("a node group's name: nodeGroupName, else its prefix without the trailing dashes Pulumi's autonaming joins on, else the resource's", () => {
            const named = changed(managed("apps", 1), "nodeGroupName", "core");
            expect(describeOf([named]).groups[0].name).to.equal("core");
            const prefixed = changed(managed("apps", 1), "nodeGroupNamePrefix", "my-apps--");
            expect(describeOf([prefixed]).groups[0].name).to.equal("my-apps");
            const asgNamed = changed(asg("batch", 1), "name", "batch-asg");
            expect(describeOf([asgNamed]).groups[0].name).to.equal("batch-asg");
        });

        it("a managed group's labels are its nodes' (EKS CreateNodegroup labels), beside EKS's own", () => {
            const labelled = changed(managed("apps", 1), "labels", { team: "payments" });
            expect(describeOf([labelled]).groups[0].labels).to.include({ team: "payments", "eks.amazonaws.com/nodegroup": "apps" });
        });

        it("an Auto Scaling group's zones: its subnets, else its availabilityZones", () => {
            const azs = changed(changed(asg("batch", 1), "vpcZoneIdentifiers", undefined), "availabilityZones", [
                "us-east-1a",
                "us-east-1b",
            ]);
            expect(describeOf([azs]).groups[0].zones).to.equal(2);
        });

        it("a lifecycle hook without heartbeatTimeout waits 3600 s (PutLifecycleHook: HeartbeatTimeout defaults to 3600)", () => {
            const unset = changed(hook(300), "heartbeatTimeout", undefined);
            expect(describeOf([asg("batch", 1), unset]).groups[0].drainWindowSeconds).to.equal(3600);
        });

        it("a group's name without nodeGroupName or a prefix is its resource's (EKS CreateNodegroup: nodegroupName)", () => {
            const unnamed = changed(managed("apps", 1), "nodeGroupNamePrefix", undefined);
            expect(describeOf([unnamed]).groups[0].name).to.equal("nodegroups-apps");
        });

        it("an instance type the data does not size still labels its nodes with the group's labels and the type's name", () => {
            const unsized = changed(managed("apps", 1, { types: ["x9.bogus"] }), "labels", { team: "payments" });
            const g = describeOf([unsized]).groups[0];
            expect(g.instanceTypes).to.deep.equal([{ name: "x9.bogus" }]);
            expect(g.labels).to.include({
                team: "payments",
                "eks.amazonaws.com/nodegroup": "apps",
                "node.kubernetes.io/instance-type": "x9.bogus",
            });
            expect(g.undecided).to.deep.equal([
                "the size of instance type x9.bogus is not in the instance data, so its nodes' capacity is unknown",
            ]);
        });

        it("a Spot group counts its smallest type, by CPU then memory: an r6i.large and an m6i.large hold the same CPU, the m6i.large half the memory", () => {
            const types = ["r6i.large", "m6i.large"];
            const spot = changed(managed("apps", 1, { types }), "capacityType", "SPOT");
            expect(describeOf([spot]).groups[0].instanceTypes.map((t) => t.name)).to.deep.equal(["m6i.large"]);
            // On demand the first listed is launched (the prioritized allocation strategy).
            expect(describeOf([managed("apps", 1, { types })]).groups[0].instanceTypes.map((t) => t.name)).to.deep.equal(["r6i.large"]);
        });

        it("instanceTypes entries that are not strings are skipped (EKS CreateNodegroup: instanceTypes is a list of strings)", () => {
            const odd = changed(managed("apps", 1), "instanceTypes", [null, "m6i.large"]);
            expect(describeOf([odd]).groups[0].instanceTypes.map((t) => t.name)).to.deep.equal(["m6i.large"]);
        });

        it("a desired size is replayed from 0 to 1000 nodes; a negative or larger one is undecided and counted as 0", () => {
            const sized = (desired: number) => describeOf([managed("apps", desired)]).groups[0];
            expect(sized(1000)).to.deep.include({ desired: 1000, undecided: [] });
            expect(sized(-1)).to.deep.include({ desired: 0, undecided: ["its desired size -1 is not a whole number of 0 or more"] });
            expect(sized(1001)).to.deep.include({
                desired: 0,
                undecided: ["its desired size 1001 is above the 1000 the rehearsal replays one by one"],
            });
        });

        it("a group's zones are its subnets (one per zone); none, or an empty list, count as one zone", () => {
            const zones = (r: TestResource) => describeOf([r]).groups[0].zones;
            expect(zones(changed(managed("apps", 1), "subnetIds", undefined))).to.equal(1);
            expect(zones(changed(managed("apps", 1), "subnetIds", []))).to.equal(1);
            expect(zones(changed(asg("batch", 1), "vpcZoneIdentifiers", ["subnet-a", "subnet-b"]))).to.equal(2);
            expect(zones(changed(asg("batch", 1), "vpcZoneIdentifiers", undefined))).to.equal(1);
        });

        it("an Auto Scaling group without desiredCapacity starts at its minSize (CreateAutoScalingGroup: DesiredCapacity defaults to MinSize)", () => {
            const unset = changed(changed(asg("batch", 3), "desiredCapacity", undefined), "minSize", 2);
            expect(describeOf([unset]).groups[0].desired).to.equal(2);
        });

        it("an override without instanceType adds no type; with none, the type is the launch template's, which is said", () => {
            const overrides = "mixedInstancesPolicy.launchTemplate.overrides";
            const mixed = changed(asg("batch", 1), overrides, [
                { launchTemplateSpecification: { launchTemplateId: "lt-0123" } },
                { instanceType: "m6i.large" },
            ]);
            expect(describeOf([mixed]).groups[0].instanceTypes.map((t) => t.name)).to.deep.equal(["m6i.large"]);
            const none = describeOf([changed(asg("batch", 1), overrides, [])]).groups[0];
            expect(none.instanceTypes).to.deep.equal([]);
            expect(none.undecided).to.deep.equal(["its instance type is set in the launch template, which the rehearsal does not follow"]);
        });

        it("instancesDistribution without onDemandPercentageAboveBaseCapacity is all on-demand (InstancesDistribution: it defaults to 100)", () => {
            const unset = asg("batch", 2, { distribution: { onDemandBaseCapacity: 0 } });
            expect(describeOf([unset]).groups[0].capacityType).to.equal("on-demand");
        });

        it("node-template tags: one without a key is skipped, a label without a value labels nodes with an empty value", () => {
            const tags = [{ value: "orphan" }, { key: "k8s.io/cluster-autoscaler/node-template/label/workload" }];
            const g = describeOf([changed(asg("batch", 1), "tags", tags)]).groups[0];
            expect(g.labels).to.deep.include({ workload: "" });
            expect(g.undecided).to.deep.equal([]);
        });

        it("a lifecycle hook is named by its name, else its resource's; two hooks that nothing links to the one group are neither its hook", () => {
            const named = changed(hook(300), "name", "batch-drain");
            expect(describeOf([asg("batch", 1), named]).groups[0].rollout).to.include({ lifecycleHook: "batch-drain" });
            const other = { ...hook(600), name: "nodegroups-other-terminate" };
            const g = describeOf([asg("batch", 1), hook(300), other]).groups[0];
            expect(g.rollout).to.not.have.property("lifecycleHook");
            expect(g).to.not.have.property("drainWindowSeconds");
        });
    });
});
