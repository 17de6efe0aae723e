/**
 * rehearsal/read.ts: what the rehearsal reads of a stack (readCluster), and what it says it leaves
 * out: node capacity under any type, values unknown until apply, autoscalers, the cluster's zones.
 */
import { expect } from "chai";
import { UNKNOWN_SENTINELS } from "eks-platform-kernel";
import { describeCapacity, hasNodeCapacity } from "eks-platform-rehearsal";
import { changed, TestResource, urnOf } from "../policies/harness";
import { cronJob, hpa, job, service } from "../policies/fixtures";
import { app, asg, container, hook, managed, nodePool, oneNode, run, unschedulable, withPodSpec } from "./scenario";

describe("rehearsal/read.ts: what the rehearsal reads of a stack", () => {
    describe("what the rehearsal reads of a stack, and says it leaves out (readCluster)", () => {
        const zonesOf = (resources: TestResource[]) =>
            describeCapacity(resources.map((r) => ({ type: r.type, name: r.name, urn: urnOf(r), props: r.props })));
        const pool = (name: string, zones: { operator: string; values: string[] }[]) =>
            nodePool(name, {
                requirements: [
                    { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
                    { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.large"] },
                    ...zones.map((z) => ({ key: "topology.kubernetes.io/zone", ...z })),
                ],
            });

        it("node capacity: a node group, an Auto Scaling group, a NodePool under any type or API version; not a workload or a NodePool's look-alike", () => {
            const has = (r: TestResource) => hasNodeCapacity([{ type: r.type, name: r.name, urn: urnOf(r), props: r.props }]);
            const v1 = nodePool("general");
            const custom = { ...v1, type: "kubernetes:apiextensions.k8s.io:CustomResource" };
            const beta = { ...custom, props: { ...v1.props, apiVersion: "karpenter.sh/v1beta1" } };
            const claim = { ...custom, props: { ...v1.props, kind: "NodeClaim" } };
            const otherGroup = { ...custom, props: { ...v1.props, apiVersion: "example.com/v1" } };
            expect([managed("apps", 1), asg("batch", 1), v1, custom, beta].map(has)).to.deep.equal([true, true, true, true, true]);
            expect([app("web"), claim, otherGroup].map(has)).to.deep.equal([false, false, false]);
            expect(hasNodeCapacity([])).to.equal(false);
        });

        it("a value unknown until apply names its resource; an unknown group, hook or NodePool withholds every verdict, an unknown workload those of its namespace", () => {
            // A single replica behind a Service reaches zero ready replicas: a problem about a workload of prod.
            const solo = [managed("apps", 3), app("solo", { replicas: 1 }), service("solo", "prod", { app: "solo" })];
            const cnpg: TestResource = {
                type: "kubernetes:postgresql.cnpg.io/v1:Cluster",
                name: "prod-pg",
                props: {
                    apiVersion: "postgresql.cnpg.io/v1",
                    kind: "Cluster",
                    metadata: { name: "pg", namespace: "prod" },
                    spec: { instances: UNKNOWN_SENTINELS.number, storage: { size: "10Gi" } },
                },
            };
            const cases: [TestResource, string][] = [
                [changed(hook(300), "heartbeatTimeout", UNKNOWN_SENTINELS.number), "LifecycleHook nodegroups-batch-terminate"],
                [changed(managed("other", 1), "scalingConfig", UNKNOWN_SENTINELS.object), "NodeGroup nodegroups-other"],
                [changed(asg("batch", 1), "desiredCapacity", UNKNOWN_SENTINELS.number), "Auto Scaling group nodegroups-batch-asg"],
                [changed(nodePool("general"), "spec.weight", UNKNOWN_SENTINELS.number), "NodePool karpenter-general"],
                [changed(app("api"), "spec.replicas", UNKNOWN_SENTINELS.number), "kubernetes:apps/v1:Deployment prod-api"],
                [cnpg, "kubernetes:postgresql.cnpg.io/v1:Cluster prod-pg"],
            ];
            for (const [unknown, subject] of cases) {
                const r = run([...solo, unknown]);
                expect(r.undecided[0], subject).to.equal(`${subject}: a value it needs is unknown until apply`);
                expect(r.problems, subject).to.deep.equal([]);
                expect(r.undecided.join("\n"), subject).to.match(
                    /Deployment prod\/solo reaches zero ready replicas .* — unless what is unknown until apply/,
                );
            }
            // A workload of another namespace unknown leaves prod's verdict standing.
            const elsewhere = run([
                ...solo,
                changed(changed(app("api"), "metadata.namespace", "other"), "spec.replicas", UNKNOWN_SENTINELS.number),
            ]);
            expect(elsewhere.problems.map((p) => p.message).join("\n")).to.match(/Deployment prod\/solo reaches zero ready replicas/);
        });

        it("what it does not rehearse is said: a NodePool of another API version, a Helm release's or chart's pods, an EKS add-on it has no model of, Jobs and CronJobs", () => {
            const beta = changed(nodePool("old"), "apiVersion", "karpenter.sh/v1beta1");
            const release: TestResource = {
                type: "kubernetes:helm.sh/v3:Release",
                name: "grafana",
                props: { chart: "grafana", namespace: "monitoring" },
            };
            const chart: TestResource = {
                type: "kubernetes:helm.sh/v4:Chart",
                name: "loki",
                props: { chart: "loki", namespace: "monitoring" },
            };
            const efs: TestResource = {
                type: "aws:eks/addon:Addon",
                name: "addons-efs",
                props: { clusterName: "c", addonName: "aws-efs-csi-driver" },
            };
            const unnamed: TestResource = { type: "aws:eks/addon:Addon", name: "addons-mystery", props: { clusterName: "c" } };
            // Other AWS resources hold no pods and are not said.
            const role: TestResource = { type: "aws:iam/role:Role", name: "nodes-role", props: { assumeRolePolicy: "{}" } };
            const r = run([oneNode(), role, beta, release, chart, efs, unnamed, job(), cronJob()]);
            expect(r.notModelled).to.deep.equal([
                "NodePool karpenter-old (karpenter.sh/v1beta1, not the v1 API)",
                "the pods of Helm release grafana (a chart's objects are not resources here)",
                "the pods of Helm release loki (a chart's objects are not resources here)",
                "the pods of EKS add-on aws-efs-csi-driver",
                "the pods of EKS add-on addons-mystery",
                "Job prod/migrate (runs to completion, not drained as a service)",
                "CronJob prod/report (runs to completion, not drained as a service)",
            ]);
            expect(r.groups.map((g) => g.name)).to.deep.equal(["apps"]);
        });

        it("an autoscaler owns the count of the workload it targets, by namespace, kind and name: the rehearsal meets it at its minimum", () => {
            // Two 1000m pods never share an m6i.large: a minimum of 2 leaves web-1 with nowhere to run.
            const web = app("web", { replicas: 1, cpu: "1000m" });
            expect(unschedulable(run([oneNode(), web, hpa("web", 2)]))).to.deep.equal([
                ["web-1", "0/1 nodes are available: 1 insufficient cpu"],
            ]);
            for (const other of [hpa("api", 2), hpa("web", 2, 10, "other"), hpa("web", 2, 10, "prod", "StatefulSet")]) {
                const name = JSON.stringify((other.props as { spec: unknown }).spec);
                expect(unschedulable(run([oneNode(), web, other])), name).to.deep.equal([]);
            }
            const huge = run([oneNode(), web, hpa("web", 6000, 6000)]);
            expect(huge.undecided).to.deep.equal([
                "Deployment prod/web: the minimum of HorizontalPodAutoscaler prod/web 6000 is above the 5000 the rehearsal replays one by one",
            ]);
        });

        it("the cluster's zones with subnets: each subnet's availabilityZone (EC2 CreateSubnet: a subnet lives in one zone), once and in name order; not another resource's, not one unknown until apply", () => {
            const subnet = (name: string, availabilityZone: unknown): TestResource => ({
                type: "aws:ec2/subnet:Subnet",
                name,
                props: { vpcId: "vpc-1", cidrBlock: "10.0.0.0/24", ...(availabilityZone === undefined ? {} : { availabilityZone }) },
            });
            const instance: TestResource = {
                type: "aws:ec2/instance:Instance",
                name: "bastion",
                props: { availabilityZone: "us-east-1z" },
            };
            const resources = [
                subnet("private-b", "us-east-1b"),
                subnet("private-a", "us-east-1a"),
                subnet("public-a", "us-east-1a"),
                subnet("later", UNKNOWN_SENTINELS.string),
                subnet("unset", undefined),
                instance,
            ];
            expect(zonesOf(resources).zones).to.deep.equal(["us-east-1a", "us-east-1b"]);
        });

        it("the cluster's zones without subnets: those the NodePools name (In), in order; else as many as a group's subnets, at least 3", () => {
            const zones = (resources: TestResource[]) => zonesOf(resources).zones;
            expect(zones([pool("b", [{ operator: "In", values: ["us-east-1b", "us-east-1a"] }])])).to.deep.equal([
                "us-east-1a",
                "us-east-1b",
            ]);
            expect(zones([pool("b", [{ operator: "NotIn", values: ["us-east-1c"] }])])).to.deep.equal(["zone-a", "zone-b", "zone-c"]);
            expect(zones([managed("apps", 1, { zones: 4 })])).to.deep.equal(["zone-a", "zone-b", "zone-c", "zone-d"]);
            // A pool launches where every zone requirement allows (requirements are ANDed).
            const both = pool("b", [
                { operator: "In", values: ["zone-a", "zone-b"] },
                { operator: "NotIn", values: ["zone-b"] },
            ]);
            expect(zonesOf([both, managed("apps", 1, { zones: 3 })]).groups.find((g) => g.kind === "nodePool")?.zones).to.deep.equal([
                "zone-a",
            ]);
        });

        it("an extended resource no instance type advertises is set aside, the others kept: the pod still needs its GPU", () => {
            const both = withPodSpec(app("web", { replicas: 1 }), "containers", [
                container("app", { requests: { cpu: "100m", memory: "64Mi" }, limits: { "nvidia.com/gpu": "1", "example.com/fpga": "1" } }),
            ]);
            const r = run([oneNode(), both]);
            expect(unschedulable(r)).to.deep.equal([["web-0", "0/1 nodes are available: 1 insufficient nvidia.com/gpu"]]);
            expect(r.undecided.join("\n")).to.match(/Deployment prod\/web requests example\.com\/fpga, which no instance type/);
        });
    });
});
