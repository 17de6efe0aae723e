import { expect } from "chai";
import { gpuInstanceTypesAllowed, UNKNOWN } from "eks-platform-kernel";
import type { StackConfig } from "../components/config";
import type { Plan } from "../tools/render/plan";
import { planOf, runTool } from "./mocks";
import { editedFixture, fixtureProject, stackConfig, stacks } from "./stackFiles";

type PlanResource = Plan["resources"][number];

const ofType = (plan: Plan, type: string): PlanResource[] => plan.resources.filter((r) => r.type === type);
const one = (plan: Plan, type: string, name: string): PlanResource => {
    const found = plan.resources.filter((r) => r.type === type && r.name === name);
    expect(found, `${type} ${name}`).to.have.length(1);
    return found[0];
};
// What every EKS node role needs (EKS user guide, "Amazon EKS node IAM role"), and SSM for Session Manager.
const NODE_POLICIES = [
    "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
    "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
    "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
];
const SSM_POLICY = "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore";

/** Checks the parts every node group shares: static role with its policies and an IMDSv2, encrypted launch template. */
function expectNodeBasics(plan: Plan, cluster: string, group: string, ssm: boolean): void {
    const role = one(plan, "aws:iam/role:Role", `nodegroups-${group}-node`);
    expect(role.props.name).to.equal(`${cluster}-${group}-node`);
    const attached = ofType(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment").filter(
        (a) => a.props.role === `${cluster}-${group}-node`,
    );
    expect(attached.map((a) => a.props.policyArn)).to.have.members(ssm ? [...NODE_POLICIES, SSM_POLICY] : NODE_POLICIES);
    const lt = one(plan, "aws:ec2/launchTemplate:LaunchTemplate", `nodegroups-${group}-lt`);
    expect(lt.props.metadataOptions).to.deep.include({ httpTokens: "required", httpEndpoint: "enabled" });
    const [root] = lt.props.blockDeviceMappings as { ebs: Record<string, unknown> }[];
    expect(root.ebs).to.deep.include({ volumeType: "gp3", encrypted: "true" });
}

// Invariants: every stack file's node groups render as configured.
for (const stack of stacks()) {
    describe(`whole stack: ${stack} node groups`, function () {
        this.timeout(120_000);
        let plan: Plan;
        let config: StackConfig;
        let enabled: [string, StackConfig["nodeGroups"][string]][];
        before(async () => {
            config = stackConfig(stack);
            enabled = Object.entries(config.nodeGroups).filter(([, g]) => g.enabled);
            plan = await planOf(stack);
        });

        it("gives every enabled group a static node role with the node policies and a hardened launch template", () => {
            for (const [group, g] of enabled) {
                expectNodeBasics(plan, config.clusterName, group, g.ssm);
            }
        });

        it("renders each managed group with its AMI release, sizes, update budget and labels; nothing for disabled groups", () => {
            const managed = enabled.filter(([, g]) => g.kind === "managed");
            expect(ofType(plan, "aws:eks/nodeGroup:NodeGroup").map((g) => g.name)).to.have.members(
                managed.map(([group]) => `nodegroups-${group}-group`),
            );
            for (const [group, g] of managed) {
                if (g.kind !== "managed") continue;
                const ng = one(plan, "aws:eks/nodeGroup:NodeGroup", `nodegroups-${group}-group`);
                expect(ng.props).to.deep.include({
                    clusterName: config.clusterName,
                    amiType: g.amiType,
                    releaseVersion: g.releaseVersion,
                    capacityType: g.capacityType,
                    // The kubelet's minor is the AMI release's (1.34.7-20260512 → 1.34), which may lag
                    // the control plane's during an upgrade (docs/changes.md#kubernetes-upgrades).
                    version: g.releaseVersion.split(".").slice(0, 2).join("."),
                });
                expect(ng.props.instanceTypes).to.deep.equal(g.instanceTypes);
                expect(ng.props.scalingConfig).to.deep.equal({ minSize: g.minSize, desiredSize: g.desiredSize, maxSize: g.maxSize });
                expect(ng.props.updateConfig).to.deep.equal({ maxUnavailablePercentage: g.maxUnavailablePercentage });
                expect(ng.props.nodeRepairConfig).to.deep.equal({ enabled: g.autoRepair });
                expect(ng.props.labels ?? {}, group).to.deep.include(g.labels);
                expect((ng.props.subnetIds as unknown[]).length).to.equal(config.network.availabilityZones.length);
            }
        });

        it("gives each self-managed group an ASG in every private subnet, a terminate hook and a static access entry", () => {
            const selfManaged = enabled.filter(([, g]) => g.kind === "selfManaged");
            expect(ofType(plan, "aws:autoscaling/group:Group").map((g) => g.name)).to.have.members(
                selfManaged.map(([group]) => `nodegroups-${group}-asg`),
            );
            for (const [group] of selfManaged) {
                const asg = one(plan, "aws:autoscaling/group:Group", `nodegroups-${group}-asg`);
                expect((asg.props.vpcZoneIdentifiers as unknown[]).length).to.equal(config.network.availabilityZones.length);
                expect(one(plan, "aws:autoscaling/lifecycleHook:LifecycleHook", `nodegroups-${group}-terminate`).props).to.deep.include({
                    lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
                    defaultResult: "CONTINUE",
                    heartbeatTimeout: 300,
                });
                const entry = one(plan, "aws:eks/accessEntry:AccessEntry", `nodegroups-${group}-access`);
                expect(entry.props).to.deep.include({ type: "EC2_LINUX", clusterName: config.clusterName });
                // Built from the static role name, so policies can link it to the role at preview.
                expect(entry.props.principalArn).to.match(new RegExp(`^arn:aws:iam::\\d{12}:role/${config.clusterName}-${group}-node$`));
            }
            // The termination handler exists exactly when a self-managed group does.
            expect(plan.resources.some((r) => r.name === "nodegroups-nth-release")).to.equal(selfManaged.length > 0);
        });

        it("installs the GPU device plugin exactly when an enabled GPU group or a NodePool that may launch NVIDIA types exists", () => {
            const gpuGroup = enabled.some(([, g]) => g.kind === "managed" && /NVIDIA|GPU/.test(g.amiType));
            const pools = config.karpenter.enabled ? Object.values(config.karpenter.nodePools) : [];
            const gpuPool = pools.some((p) => gpuInstanceTypesAllowed(p.requirements, "nvidia").length > 0);
            expect(plan.resources.some((r) => r.name === "nodegroups-nvidia-release")).to.equal(gpuGroup || gpuPool);
        });

        it("creates CoreDNS only after every node group exists", () => {
            const addons = one(plan, "platform:cluster:ComputeAddons", "addons");
            const nodes = enabled.map(([group, g]) => (g.kind === "managed" ? `nodegroups-${group}-group` : `nodegroups-${group}-asg`));
            expect(addons.options?.dependsOn ?? []).to.include.members(nodes);
        });

        it("keeps every node group setting a policy reads known at preview", () => {
            for (const g of ofType(plan, "aws:eks/nodeGroup:NodeGroup")) {
                for (const key of [
                    "amiType",
                    "releaseVersion",
                    "labels",
                    "scalingConfig",
                    "updateConfig",
                    "instanceTypes",
                    "nodeRoleArn",
                ]) {
                    expect(JSON.stringify(g.props[key]), `${g.name}.${key}`).to.not.include(UNKNOWN);
                }
            }
        });
    });
}

// Exact expectations: the fixture stacks (test/fixtures/stacks).
describe("fixture stack dev: node groups", function () {
    this.timeout(120_000);
    let plan: Plan;
    before(async () => {
        plan = await planOf("dev", fixtureProject());
    });

    it("has the general group (t3.large, 2/3/6) labelled for platform components, untainted", () => {
        const general = one(plan, "aws:eks/nodeGroup:NodeGroup", "nodegroups-general-group");
        expect(general.props).to.deep.include({ amiType: "AL2023_x86_64_STANDARD", releaseVersion: "1.34.7-20260512", version: "1.34" });
        expect(general.props.instanceTypes).to.deep.equal(["t3.large"]);
        expect(general.props.scalingConfig).to.deep.equal({ minSize: 2, desiredSize: 3, maxSize: 6 });
        expect(general.props.updateConfig).to.deep.equal({ maxUnavailablePercentage: 33 });
        expect(general.props.labels).to.deep.equal({ "platform/role": "system" });
        expect(general.props.taints ?? []).to.deep.equal([]);
    });

    it("has the GPU group (g4dn.xlarge, 0..2) with the NVIDIA AMI, label, taint and device plugin", () => {
        const gpu = one(plan, "aws:eks/nodeGroup:NodeGroup", "nodegroups-gpu-group");
        expect(gpu.props.amiType).to.equal("AL2023_x86_64_NVIDIA");
        expect(gpu.props.instanceTypes).to.deep.equal(["g4dn.xlarge"]);
        expect(gpu.props.scalingConfig).to.deep.include({ minSize: 0, maxSize: 2 });
        expect(gpu.props.labels).to.deep.equal({ accelerator: "nvidia" });
        expect(gpu.props.taints).to.deep.equal([{ key: "nvidia.com/gpu", value: "true", effect: "NO_SCHEDULE" }]);
        const plugin = one(plan, "kubernetes:helm.sh/v3:Release", "nodegroups-nvidia-release");
        expect((plugin.props.values as { nodeSelector: unknown }).nodeSelector).to.deep.equal({ accelerator: "nvidia" });
    });

    it("has no self-managed group, so no Auto Scaling group or termination handler", () => {
        expect(ofType(plan, "aws:autoscaling/group:Group")).to.deep.equal([]);
        expect(plan.resources.filter((r) => r.name.startsWith("nodegroups-nth"))).to.deep.equal([]);
    });

    it("drops the GPU group and the device plugin when the stack file switches it off", async () => {
        const dir = editedFixture("dev", (t) =>
            t.replace(
                "      enabled: true\n      amiType: AL2023_x86_64_NVIDIA",
                "      enabled: false\n      amiType: AL2023_x86_64_NVIDIA",
            ),
        );
        const result = await runTool("plan.ts", ["dev", "--format", "json"], dir);
        expect(result.code, result.stderr).to.equal(0);
        const edited = JSON.parse(result.stdout) as Plan;
        expect(ofType(edited, "aws:eks/nodeGroup:NodeGroup").map((g) => g.name)).to.deep.equal(["nodegroups-general-group"]);
        expect(edited.resources.filter((r) => r.name.startsWith("nodegroups-gpu") || r.name.startsWith("nodegroups-nvidia"))).to.deep.equal(
            [],
        );
    });
});

describe("fixture stack dev: a Karpenter GPU pool instead of the GPU group", function () {
    this.timeout(120_000);
    let plan: Plan;
    before(async () => {
        // The GPU group off and a pool of NVIDIA families, tainted and capped at 8 GPUs, added.
        const dir = editedFixture("dev", (t) =>
            t
                .replace(
                    "      enabled: true\n      amiType: AL2023_x86_64_NVIDIA",
                    "      enabled: false\n      amiType: AL2023_x86_64_NVIDIA",
                )
                .replace(
                    "    nodePools:\n",
                    [
                        "    nodePools:",
                        "      gpu:",
                        "        nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }",
                        "        taints:",
                        "          - { key: nvidia.com/gpu, effect: NoSchedule }",
                        "          - { key: team, value: ml, effect: NoExecute }",
                        "        requirements:",
                        "          - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }",
                        "          - { key: karpenter.k8s.aws/instance-family, operator: In, values: [g5, g6] }",
                        '        limits: { cpu: "64", memory: 256Gi, nvidia.com/gpu: "8" }',
                        "        disruption: { consolidationPolicy: WhenEmpty, consolidateAfter: 10m }",
                        "        terminationGracePeriod: 30m",
                        "",
                    ].join("\n"),
                ),
        );
        const result = await runTool("plan.ts", ["dev", "--format", "json"], dir);
        expect(result.code, result.stderr).to.equal(0);
        plan = JSON.parse(result.stdout) as Plan;
    });

    it("has no GPU node group, and a NodePool capped at 8 GPUs as well as CPU and memory", () => {
        expect(ofType(plan, "aws:eks/nodeGroup:NodeGroup").map((g) => g.name)).to.deep.equal(["nodegroups-general-group"]);
        const pool = plan.resources.filter(
            (r) => r.type === "kubernetes:karpenter.sh/v1:NodePool" && r.name === "karpenter-pools-pool-gpu",
        );
        expect(pool, "the gpu NodePool").to.have.length(1);
        expect((pool[0].props.spec as { limits: unknown }).limits).to.deep.equal({ cpu: "64", memory: "256Gi", "nvidia.com/gpu": "8" });
    });

    it("installs the device plugin on Karpenter's NVIDIA nodes, tolerating the pool's taints", () => {
        const values = one(plan, "kubernetes:helm.sh/v3:Release", "nodegroups-nvidia-release").props.values as Record<string, any>;
        expect(values.tolerations).to.deep.equal([
            { key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" },
            { key: "team", operator: "Exists", effect: "NoExecute" },
        ]);
        expect(values.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms).to.deep.equal([
            { matchExpressions: [{ key: "karpenter.k8s.aws/instance-gpu-manufacturer", operator: "In", values: ["nvidia"] }] },
        ]);
        expect(values).to.not.have.property("nodeSelector");
    });

    it("has no policy violation on the pool or the device plugin", () => {
        const ours = plan.violations.filter((v) => /pool-gpu|nvidia/.test(v.resource.name));
        expect(ours, JSON.stringify(ours, null, 1)).to.deep.equal([]);
    });
});

describe("fixture stack prod: node groups", function () {
    this.timeout(120_000);
    let plan: Plan;
    before(async () => {
        plan = await planOf("prod", fixtureProject());
    });

    it("has an on-demand system group across the three private subnets, labelled and tainted for add-ons", () => {
        const system = one(plan, "aws:eks/nodeGroup:NodeGroup", "nodegroups-system-group");
        expect(system.props.capacityType).to.equal("ON_DEMAND");
        expect((system.props.subnetIds as unknown[]).length).to.equal(3);
        expect(system.props.labels).to.deep.equal({ "platform/role": "system" });
        expect(system.props.taints).to.deep.equal([{ key: "CriticalAddonsOnly", value: "true", effect: "NO_SCHEDULE" }]);
        expect((system.props.scalingConfig as { minSize: number }).minSize).to.equal(3);
    });

    it("has the self-managed batch group: launch template with AMI and nodeadm user data, ASG, hook", () => {
        const lt = one(plan, "aws:ec2/launchTemplate:LaunchTemplate", "nodegroups-batch-lt");
        expect(lt.props.imageId).to.match(/^ami-/);
        const userData = Buffer.from(lt.props.userData as string, "base64").toString();
        expect(userData).to.include("kind: NodeConfig");
        expect(userData).to.include("name: platform-prod");
        expect(userData).to.include("--node-labels=workload=batch");
        expect(userData).to.include("maxPods: 58");
        const asg = one(plan, "aws:autoscaling/group:Group", "nodegroups-batch-asg");
        expect((asg.props.instanceRefresh as { preferences: { minHealthyPercentage: number } }).preferences.minHealthyPercentage).to.equal(
            90,
        );
        const tags = asg.props.tags as { key: string; value: string; propagateAtLaunch: boolean }[];
        expect(tags).to.deep.include({ key: "kubernetes.io/cluster/platform-prod", value: "owned", propagateAtLaunch: true });
        expect(tags.map((t) => t.key)).to.include("aws-node-termination-handler/managed");
    });

    it("has the termination handler: encrypted queue, five rules, Pod Identity, chart on the system nodes", () => {
        const queue = one(plan, "aws:sqs/queue:Queue", "nodegroups-nth-queue");
        expect(queue.props).to.deep.include({ name: "platform-prod-nth", sqsManagedSseEnabled: true });
        expect(ofType(plan, "aws:cloudwatch/eventRule:EventRule").filter((r) => r.name.startsWith("nodegroups-nth-"))).to.have.length(5);
        expect(ofType(plan, "aws:cloudwatch/eventTarget:EventTarget").filter((r) => r.name.startsWith("nodegroups-nth-"))).to.have.length(
            5,
        );
        const association = one(plan, "aws:eks/podIdentityAssociation:PodIdentityAssociation", "nodegroups-nth-pod-identity");
        expect(association.props).to.deep.include({ namespace: "kube-system", serviceAccount: "aws-node-termination-handler" });
        const release = one(plan, "kubernetes:helm.sh/v3:Release", "nodegroups-nth-release");
        const values = release.props.values as Record<string, unknown>;
        expect(values).to.deep.include({ enableSqsTerminationDraining: true, awsRegion: "us-east-1" });
        expect(values.nodeSelector).to.deep.equal({ "platform/role": "system" });
    });

    it("exits 2 naming the key when a custom AL2 AMI is configured on Kubernetes 1.34", async () => {
        const dir = editedFixture("prod", (t) =>
            t.replace(
                "      amiFamily: AL2023\n      releaseVersion: 1.34.7-20260512\n",
                "      amiFamily: AL2\n      amiId: ami-0123456789abcdef0\n",
            ),
        );
        const result = await runTool("plan.ts", ["prod", "--format", "json"], dir);
        expect(result.code).to.equal(2);
        expect(result.stdout).to.equal("");
        expect(result.stderr).to.include(
            "eks-platform:nodeGroups.batch.amiFamily: Amazon Linux 2 nodes are not supported on Kubernetes 1.34",
        );
    });
});
