import { expect } from "chai";
import type { Plan } from "../tools/plan";
import { UNKNOWN } from "../tools/offline";
import { planOf, projectWithStackFile, runTool } from "./mocks";

type PlanResource = Plan["resources"][number];

const ofType = (plan: Plan, type: string): PlanResource[] => plan.resources.filter((r) => r.type === type);
const one = (plan: Plan, type: string, name: string): PlanResource => {
    const found = plan.resources.filter((r) => r.type === type && r.name === name);
    expect(found, `${type} ${name}`).to.have.length(1);
    return found[0];
};
const NODE_POLICIES = [
    "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
    "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
    "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
    "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
];

/** Plans a copy of this repository whose stack file was changed by `edit`. */
function planEdited(stack: string, edit: (text: string) => string): Promise<{ code: number; stdout: string; stderr: string }> {
    return runTool("plan.ts", [stack, "--format", "json"], projectWithStackFile(stack, edit));
}

/** Checks the parts every node group shares: static role with its policies and an IMDSv2, encrypted launch template. */
function expectNodeBasics(plan: Plan, cluster: string, group: string): void {
    const role = one(plan, "aws:iam/role:Role", `nodegroups-${group}-node`);
    expect(role.props.name).to.equal(`${cluster}-${group}-node`);
    const attached = ofType(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment").filter(
        (a) => a.props.role === `${cluster}-${group}-node`,
    );
    expect(attached.map((a) => a.props.policyArn)).to.have.members(NODE_POLICIES);
    const lt = one(plan, "aws:ec2/launchTemplate:LaunchTemplate", `nodegroups-${group}-lt`);
    expect(lt.props.metadataOptions).to.deep.include({ httpTokens: "required", httpEndpoint: "enabled" });
    const [root] = lt.props.blockDeviceMappings as { ebs: Record<string, unknown> }[];
    expect(root.ebs).to.deep.include({ volumeType: "gp3", encrypted: "true" });
}

describe("whole stack: dev node groups", function () {
    this.timeout(120_000);
    let plan: Plan;
    before(async () => {
        plan = await planOf("dev");
    });

    it("has the general group (t3.large, 2/3/6) labelled for platform components, untainted", () => {
        expectNodeBasics(plan, "platform-dev", "general");
        const general = one(plan, "aws:eks/nodeGroup:NodeGroup", "nodegroups-general-group");
        expect(general.props).to.deep.include({
            amiType: "AL2023_x86_64_STANDARD",
            releaseVersion: "1.34.7-20260512",
            version: "1.34",
            clusterName: "platform-dev",
        });
        expect(general.props.instanceTypes).to.deep.equal(["t3.large"]);
        expect(general.props.scalingConfig).to.deep.equal({ minSize: 2, desiredSize: 3, maxSize: 6 });
        expect(general.props.updateConfig).to.deep.equal({ maxUnavailablePercentage: 33 });
        expect(general.props.labels).to.deep.equal({ "platform/role": "system" });
        expect(general.props.taints ?? []).to.deep.equal([]);
        expect((general.props.subnetIds as unknown[]).length).to.equal(2);
    });

    it("has the GPU group (g4dn.xlarge, 0..2) with the NVIDIA AMI, label, taint and device plugin", () => {
        expectNodeBasics(plan, "platform-dev", "gpu");
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

    it("creates CoreDNS only after the node groups exist", () => {
        const addons = one(plan, "platform:cluster:ComputeAddons", "addons");
        expect(addons.options?.dependsOn).to.include.members(["nodegroups-general-group", "nodegroups-gpu-group"]);
    });

    it("keeps every node group setting a policy reads known at preview", () => {
        for (const g of ofType(plan, "aws:eks/nodeGroup:NodeGroup")) {
            for (const key of ["amiType", "releaseVersion", "labels", "scalingConfig", "updateConfig", "instanceTypes", "nodeRoleArn"]) {
                expect(JSON.stringify(g.props[key]), `${g.name}.${key}`).to.not.include(UNKNOWN);
            }
        }
    });

    it("drops the GPU group and the device plugin when the stack file switches it off", async () => {
        const result = await planEdited("dev", (t) =>
            t.replace(
                "      enabled: true\n      amiType: AL2023_x86_64_NVIDIA",
                "      enabled: false\n      amiType: AL2023_x86_64_NVIDIA",
            ),
        );
        expect(result.code, result.stderr).to.equal(0);
        const edited = JSON.parse(result.stdout) as Plan;
        expect(ofType(edited, "aws:eks/nodeGroup:NodeGroup").map((g) => g.name)).to.deep.equal(["nodegroups-general-group"]);
        expect(edited.resources.filter((r) => r.name.startsWith("nodegroups-gpu") || r.name.startsWith("nodegroups-nvidia"))).to.deep.equal(
            [],
        );
    });
});

describe("whole stack: prod node groups", function () {
    this.timeout(120_000);
    let plan: Plan;
    before(async () => {
        plan = await planOf("prod");
    });

    it("has an on-demand system group across the three private subnets, labelled and tainted for add-ons", () => {
        expectNodeBasics(plan, "platform-prod", "system");
        const system = one(plan, "aws:eks/nodeGroup:NodeGroup", "nodegroups-system-group");
        expect(system.props.capacityType).to.equal("ON_DEMAND");
        expect((system.props.subnetIds as unknown[]).length).to.equal(3);
        expect(system.props.labels).to.deep.equal({ "platform/role": "system" });
        expect(system.props.taints).to.deep.equal([{ key: "CriticalAddonsOnly", value: "true", effect: "NO_SCHEDULE" }]);
        expect((system.props.scalingConfig as { minSize: number }).minSize).to.be.at.least(3);
    });

    it("has the self-managed batch group: launch template with AMI and nodeadm user data, ASG, hook", () => {
        expectNodeBasics(plan, "platform-prod", "batch");
        const lt = one(plan, "aws:ec2/launchTemplate:LaunchTemplate", "nodegroups-batch-lt");
        expect(lt.props.imageId).to.match(/^ami-/);
        const userData = Buffer.from(lt.props.userData as string, "base64").toString();
        expect(userData).to.include("kind: NodeConfig");
        expect(userData).to.include("name: platform-prod");
        expect(userData).to.include("--node-labels=workload=batch");
        expect(userData).to.include("maxPods: 58");
        const asg = one(plan, "aws:autoscaling/group:Group", "nodegroups-batch-asg");
        expect((asg.props.vpcZoneIdentifiers as unknown[]).length).to.equal(3);
        expect((asg.props.instanceRefresh as { preferences: { minHealthyPercentage: number } }).preferences.minHealthyPercentage).to.equal(
            90,
        );
        const tags = asg.props.tags as { key: string; value: string; propagateAtLaunch: boolean }[];
        expect(tags).to.deep.include({ key: "kubernetes.io/cluster/platform-prod", value: "owned", propagateAtLaunch: true });
        expect(tags.map((t) => t.key)).to.include("aws-node-termination-handler/managed");
        const hook = one(plan, "aws:autoscaling/lifecycleHook:LifecycleHook", "nodegroups-batch-terminate");
        expect(hook.props).to.deep.include({
            lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
            defaultResult: "CONTINUE",
            heartbeatTimeout: 300,
        });
        const entry = one(plan, "aws:eks/accessEntry:AccessEntry", "nodegroups-batch-access");
        expect(entry.props).to.deep.include({ type: "EC2_LINUX", clusterName: "platform-prod" });
        // Built from the static role name, so policies can link it to the role at preview.
        expect(entry.props.principalArn).to.match(/^arn:aws:iam::\d{12}:role\/platform-prod-batch-node$/);
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

    it("has no GPU device plugin", () => {
        expect(plan.resources.filter((r) => r.name.startsWith("nodegroups-nvidia"))).to.deep.equal([]);
    });

    it("creates CoreDNS only after the system group and the batch Auto Scaling group exist", () => {
        const addons = one(plan, "platform:cluster:ComputeAddons", "addons");
        expect(addons.options?.dependsOn).to.include.members(["nodegroups-system-group", "nodegroups-batch-asg"]);
    });

    it("exits 2 naming the key when a custom AL2 AMI is configured on Kubernetes 1.34", async () => {
        const result = await planEdited("prod", (t) =>
            t.replace(
                "      amiFamily: AL2023\n      releaseVersion: 1.34.7-20260512\n",
                "      amiFamily: AL2\n      amiId: ami-0123456789abcdef0\n",
            ),
        );
        expect(result.code).to.equal(2);
        expect(result.stdout).to.equal("");
        expect(result.stderr).to.include(
            "eks-platform:nodeGroups.batch.amiFamily: Amazon Linux 2 nodes are not supported on Kubernetes 1.34",
        );
    });
});
