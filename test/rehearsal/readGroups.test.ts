/**
 * rehearsal/readGroups.ts: how node capacity is read, by resource type, seen through what a
 * platform profile publishes (describeCapacity): NodePools as the karpenter.sh/v1 CRD defines
 * them, node groups and lifecycle hooks as the EKS and EC2 Auto Scaling APIs do.
 */
import { expect } from "chai";
import { describeCapacity } from "eks-platform-rehearsal";
import { changed, TestResource, urnOf } from "../policies/harness";
import { app, asg, hook, managed, nodePool, run } from "./scenario";

const describeOf = (resources: TestResource[]) =>
    describeCapacity(resources.map((r) => ({ type: r.type, name: r.name, urn: urnOf(r), props: r.props })));

describe("rehearsal/readGroups.ts: how node capacity is read", () => {
    describe("a NodePool (karpenter.sh/v1 CRD, karpenter v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml)", () => {
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

    describe("node groups and lifecycle hooks (EKS CreateNodegroup, EC2 Auto Scaling CreateAutoScalingGroup and PutLifecycleHook)", () => {
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
