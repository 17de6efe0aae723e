import { expect } from "chai";
import * as pulumi from "@pulumi/pulumi";
import { NodeGroups } from "../../../components/nodegroups";
import { CRITICAL_ADDONS_ONLY, nodeGroupsSchema, tolerates } from "../../../components/nodegroups/schema";
import { ManagedNodeGroup } from "../../../components/nodegroups/managed";
import { amiSsmParameter } from "../../../components/nodegroups/common.schema";
import { SelfManagedNodeGroup } from "../../../components/nodegroups/selfManaged";
import { RecordedResource, RecordingMocks, runInStack } from "../../../tools/render/offline";
import { validateKubernetesObject } from "../../../tools/gate/schema";
import { named, ofType, settled } from "../../mocks";
import { around, demoCluster } from "./demoCluster";

const WORKER = "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy";
const CNI = "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy";
const ECR = "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly";
const SSM = "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore";
const QUEUE_URL = "https://sqs.us-east-1.amazonaws.com/123456789012/demo-nth";

/** The recording mocks plus what they do not record: `ignoreChanges`, and an SQS queue URL. */
class NodeGroupMocks extends RecordingMocks {
    readonly ignoreChanges = new Map<string, string[]>();

    newResource(args: pulumi.runtime.MockResourceArgs): { id: string | undefined; state: Record<string, unknown> } {
        const result = super.newResource(args);
        if (args.type === "aws:sqs/queue:Queue") {
            result.state = { ...result.state, url: QUEUE_URL };
        }
        return result;
    }
}

async function useNodeGroupMocks(): Promise<NodeGroupMocks> {
    const mocks = new NodeGroupMocks("up");
    pulumi.runtime.setAllConfig({ "aws:region": "us-east-1" });
    await pulumi.runtime.setMocks(mocks, "eks-platform", "test", false);
    await runInStack(mocks, () => {
        pulumi.runtime.registerStackTransformation((t) => {
            if (t.opts.ignoreChanges) {
                mocks.ignoreChanges.set(t.name, t.opts.ignoreChanges);
            }
            return undefined;
        });
    });
    return mocks;
}

const base = { minSize: 1, desiredSize: 2, maxSize: 4, releaseVersion: "1.34.7-20260512" };
const groups = nodeGroupsSchema.parse({
    system: {
        kind: "managed",
        ...base,
        instanceTypes: ["m6i.large", "m7i.large"],
        minSize: 3,
        desiredSize: 3,
        maxSize: 6,
        labels: { "platform/role": "system" },
        taints: [{ key: "CriticalAddonsOnly", value: "true", effect: "NoSchedule" }],
    },
    gpu: {
        kind: "managed",
        ...base,
        minSize: 0,
        desiredSize: 0,
        amiType: "AL2023_x86_64_NVIDIA",
        instanceTypes: ["g4dn.xlarge"],
        ssm: false,
    },
    batch: {
        kind: "selfManaged",
        ...base,
        instanceTypes: ["m6i.xlarge", "m7i.xlarge"],
        maxPods: 58,
        labels: { workload: "batch" },
        minHealthyPercentage: 75,
    },
    golden: { kind: "selfManaged", minSize: 0, desiredSize: 1, maxSize: 2, instanceTypes: ["c6i.large"], amiId: "ami-0fedcba9876543210" },
    off: { kind: "managed", ...base, enabled: false, instanceTypes: ["t3.large"] },
});

const json = (value: unknown): any => JSON.parse(value as string);
const podWith = (spec: Record<string, unknown>) => ({
    metadata: { name: "probe", namespace: "kube-system" },
    spec: { containers: [{ name: "c", image: "registry.example/c:1" }], ...spec },
});

describe("NodeGroups component", function () {
    this.timeout(60_000);
    let mocks: NodeGroupMocks;
    let nodeGroups: NodeGroups;
    let r: RecordedResource[];
    before(async () => {
        mocks = await useNodeGroupMocks();
        const cluster = demoCluster();
        nodeGroups = new NodeGroups("ng", { ...around(cluster), groups, privateSubnetIds: ["subnet-p1", "subnet-p2"] });
        await settled();
        r = mocks.resources;
    });

    it("puts exactly one security group on every node, the nodes' own, never the cluster group EKS creates", () => {
        // EKS tags its cluster security group kubernetes.io/cluster/<name> as this component's
        // node group is; two such groups on one ENI stop load balancer controllers opening targets.
        const templates = ofType(r, "aws:ec2/launchTemplate:LaunchTemplate");
        expect(templates.length).to.be.greaterThan(1);
        for (const lt of templates) {
            expect(lt.props.vpcSecurityGroupIds, lt.name).to.deep.equal(["cp-nodes-id"]);
        }
    });

    describe("managed group", () => {
        it("is an aws.eks.NodeGroup with the pinned AL2023 release, rolling 33% at a time", () => {
            const group = named(r, "aws:eks/nodeGroup:NodeGroup", "ng-system-group");
            expect(group.props).to.deep.include({
                clusterName: "demo",
                amiType: "AL2023_x86_64_STANDARD",
                releaseVersion: "1.34.7-20260512",
                version: "1.34",
                capacityType: "ON_DEMAND",
                nodeGroupNamePrefix: "system-",
                nodeRoleArn: "arn:aws:iam::123456789012:role/demo-system-node",
            });
            expect(group.props.instanceTypes).to.deep.equal(["m6i.large", "m7i.large"]);
            expect(group.props.scalingConfig).to.deep.equal({ minSize: 3, desiredSize: 3, maxSize: 6 });
            expect(group.props.updateConfig).to.deep.equal({ maxUnavailablePercentage: 33 });
            expect(group.props.subnetIds).to.deep.equal(["subnet-p1", "subnet-p2"]);
            expect((group.props.launchTemplate as { id: string }).id).to.equal("ng-system-lt-id");
            expect(group.options.parent).to.equal("ng-system");
        });

        it("carries the system label and the CriticalAddonsOnly taint in the EKS API's spelling", () => {
            const group = named(r, "aws:eks/nodeGroup:NodeGroup", "ng-system-group");
            expect(group.props.labels).to.deep.equal({ "platform/role": "system" });
            expect(group.props.taints).to.deep.equal([{ key: "CriticalAddonsOnly", value: "true", effect: "NO_SCHEDULE" }]);
        });

        it("ignores desired size after creation, so an autoscaler does not fight pulumi up", () => {
            expect(mocks.ignoreChanges.get("ng-system-group")).to.deep.equal(["scalingConfig.desiredSize"]);
            expect(mocks.ignoreChanges.get("ng-gpu-group")).to.deep.equal(["scalingConfig.desiredSize"]);
        });

        it("waits for its role's policies, the control plane and the CNI before nodes try to join", () => {
            const deps = named(r, "aws:eks/nodeGroup:NodeGroup", "ng-system-group").options.dependsOn ?? [];
            expect(deps).to.include.members([
                "ng-system-node",
                "ng-system-node-worker",
                "ng-system-node-cni",
                "ng-system-node-ecr",
                "ng-system-node-ssm",
                "cp-eks",
                "cp-vpc-cni",
            ]);
        });

        it("uses a launch template with IMDSv2, an encrypted gp3 root volume and propagated tags, but no AMI or user data", () => {
            const lt = named(r, "aws:ec2/launchTemplate:LaunchTemplate", "ng-system-lt");
            expect(lt.props).to.not.have.property("imageId");
            expect(lt.props).to.not.have.property("userData");
            expect(lt.props.metadataOptions).to.deep.include({
                httpTokens: "required",
                httpEndpoint: "enabled",
                httpPutResponseHopLimit: 1,
            });
            const [root] = lt.props.blockDeviceMappings as { deviceName: string; ebs: Record<string, unknown> }[];
            expect(root.deviceName).to.equal("/dev/xvda");
            expect(root.ebs).to.deep.include({ volumeType: "gp3", encrypted: "true", volumeSize: 50 });
            const specs = lt.props.tagSpecifications as { resourceType: string; tags: Record<string, string> }[];
            expect(specs.map((s) => s.resourceType)).to.include.members(["instance", "volume"]);
            for (const s of specs) {
                expect(s.tags["kubernetes.io/cluster/demo"], s.resourceType).to.equal("owned");
            }
            expect(lt.props.vpcSecurityGroupIds).to.deep.equal(["cp-nodes-id"]);
        });

        it("gets a statically named EC2 node role with the worker, CNI, ECR and (optionally) SSM policies", () => {
            const role = named(r, "aws:iam/role:Role", "ng-system-node");
            expect(role.props.name).to.equal("demo-system-node");
            const trust = json(role.props.assumeRolePolicy);
            expect(trust.Statement).to.deep.equal([
                { Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" },
            ]);
            const attached = (group: string) =>
                ofType(r, "aws:iam/rolePolicyAttachment:RolePolicyAttachment")
                    .filter((a) => a.options.parent === `ng-${group}`)
                    .map((a) => {
                        expect(a.props.role).to.equal(`demo-${group}-node`);
                        return a.props.policyArn;
                    });
            expect(attached("system")).to.have.members([WORKER, CNI, ECR, SSM]);
            expect(attached("gpu")).to.have.members([WORKER, CNI, ECR]);
        });

        it("creates nothing for a group switched off in config", () => {
            expect(r.filter((x) => x.name.startsWith("ng-off"))).to.deep.equal([]);
            expect(nodeGroups.nodeRoleNames).to.not.have.property("off");
        });
    });

    describe("GPU group", () => {
        it("runs the NVIDIA AMI with the accelerator label and the nvidia.com/gpu taint", () => {
            const group = named(r, "aws:eks/nodeGroup:NodeGroup", "ng-gpu-group");
            expect(group.props.amiType).to.equal("AL2023_x86_64_NVIDIA");
            expect(group.props.labels).to.deep.equal({ accelerator: "nvidia" });
            expect(group.props.taints).to.deep.equal([{ key: "nvidia.com/gpu", value: "true", effect: "NO_SCHEDULE" }]);
        });

        it("installs the pinned NVIDIA device plugin on GPU nodes only", async () => {
            const release = named(r, "kubernetes:helm.sh/v3:Release", "ng-nvidia-release");
            expect(release.props).to.deep.include({ chart: "nvidia-device-plugin", namespace: "kube-system" });
            expect(release.props.version).to.match(/^\d+\.\d+\.\d+$/);
            expect(release.props.repositoryOpts).to.deep.equal({ repo: "https://nvidia.github.io/k8s-device-plugin" });
            const values = release.props.values as Record<string, any>;
            expect(values.nodeSelector).to.deep.equal({ accelerator: "nvidia" });
            const terms = values.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
            expect(terms).to.deep.equal([{ matchExpressions: [{ key: "accelerator", operator: "In", values: ["nvidia"] }] }]);
            const gpuTaint = { key: "nvidia.com/gpu", value: "true", effect: "NoSchedule" as const };
            expect(tolerates(values.tolerations, gpuTaint)).to.equal(true);
            // It must not land on the tainted system nodes.
            expect(tolerates(values.tolerations, { key: "CriticalAddonsOnly", value: "true", effect: "NoSchedule" })).to.equal(false);
            expect(values.resources.requests).to.have.keys(["cpu", "memory"]);
            await validateKubernetesObject(
                "kubernetes:core/v1:Pod",
                podWith({ nodeSelector: values.nodeSelector, tolerations: values.tolerations, affinity: values.affinity }),
            );
        });
    });

    describe("self-managed group", () => {
        it("boots the pinned EKS AMI from SSM with nodeadm user data, or the configured custom AMI", () => {
            const batch = named(r, "aws:ec2/launchTemplate:LaunchTemplate", "ng-batch-lt");
            expect(batch.props.imageId).to.equal("ami-0123456789abcdef0");
            const userData = Buffer.from(batch.props.userData as string, "base64").toString();
            expect(userData).to.match(/^MIME-Version: 1\.0\nContent-Type: multipart\/mixed/);
            expect(userData).to.include("Content-Type: application/node.eks.aws");
            expect(userData).to.include("name: demo\n");
            expect(userData).to.include("apiServerEndpoint: https://EXAMPLE0123456789.gr7.us-east-1.eks.amazonaws.com");
            expect(userData).to.include("--node-labels=workload=batch");
            expect(userData).to.include("maxPods: 58");
            expect(batch.props.iamInstanceProfile).to.deep.equal({
                arn: "arn:aws:mock:us-east-1:123456789012:instanceprofile/ng-batch-profile",
            });
            expect(batch.props.metadataOptions).to.deep.include({ httpTokens: "required" });
            expect(named(r, "aws:ec2/launchTemplate:LaunchTemplate", "ng-golden-lt").props.imageId).to.equal("ami-0fedcba9876543210");
        });

        it("reads the AMI from the SSM parameter of one release, never 'recommended'", () => {
            expect(amiSsmParameter("AL2023", "x86_64", "1.34.7-20260512")).to.equal(
                "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.34-v20260512/image_id",
            );
            expect(amiSsmParameter("AL2", "x86_64", "1.32.3-20250519")).to.equal(
                "/aws/service/eks/optimized-ami/1.32/amazon-linux-2/amazon-eks-node-1.32-v20250519/image_id",
            );
        });

        it("runs an Auto Scaling group in the private subnets with a rolling instance refresh", () => {
            const asg = named(r, "aws:autoscaling/group:Group", "ng-batch-asg");
            expect(asg.props.vpcZoneIdentifiers).to.deep.equal(["subnet-p1", "subnet-p2"]);
            expect(asg.props).to.deep.include({ minSize: 1, desiredCapacity: 2, maxSize: 4 });
            expect(asg.props.instanceRefresh).to.deep.equal({
                strategy: "Rolling",
                preferences: { minHealthyPercentage: 75, instanceWarmup: "300", skipMatching: true },
            });
            const policy = asg.props.mixedInstancesPolicy as any;
            expect(policy.launchTemplate.launchTemplateSpecification.launchTemplateId).to.equal("ng-batch-lt-id");
            expect(policy.launchTemplate.overrides).to.deep.equal([{ instanceType: "m6i.xlarge" }, { instanceType: "m7i.xlarge" }]);
            expect(policy.instancesDistribution.onDemandPercentageAboveBaseCapacity).to.equal(100);
            expect(mocks.ignoreChanges.get("ng-batch-asg")).to.deep.equal(["desiredCapacity"]);
        });

        it("propagates the cluster ownership and NTH managed tags to every instance", () => {
            const tags = named(r, "aws:autoscaling/group:Group", "ng-batch-asg").props.tags as {
                key: string;
                value: string;
                propagateAtLaunch: boolean;
            }[];
            expect(tags).to.deep.include({ key: "kubernetes.io/cluster/demo", value: "owned", propagateAtLaunch: true });
            expect(tags.find((t) => t.key === "aws-node-termination-handler/managed")?.propagateAtLaunch).to.equal(true);
        });

        it("holds terminating instances 300 s for the drain, then continues", () => {
            const hook = named(r, "aws:autoscaling/lifecycleHook:LifecycleHook", "ng-batch-terminate");
            expect(hook.props).to.deep.include({
                autoscalingGroupName: "ng-batch-asg-name",
                lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
                defaultResult: "CONTINUE",
                heartbeatTimeout: 300,
            });
        });

        it("gives the node role an EC2_LINUX access entry created after the cluster, before the ASG", () => {
            const entry = named(r, "aws:eks/accessEntry:AccessEntry", "ng-batch-access");
            expect(entry.props).to.deep.include({
                clusterName: "demo",
                type: "EC2_LINUX",
                principalArn: "arn:aws:iam::123456789012:role/demo-batch-node",
            });
            expect(entry.options.dependsOn).to.include("ng-batch-node");
            expect(entry.options.dependsOn).to.include("cp-eks");
            expect(named(r, "aws:autoscaling/group:Group", "ng-batch-asg").options.dependsOn).to.include.members([
                "ng-batch-access",
                "ng-batch-node-worker",
                "cp-vpc-cni",
            ]);
            expect(named(r, "aws:iam/role:Role", "ng-batch-node").props.name).to.equal("demo-batch-node");
        });
    });

    describe("Node Termination Handler", () => {
        const queueArn = "arn:aws:mock:us-east-1:123456789012:queue/ng-nth-queue";

        it("has one encrypted queue that only its own EventBridge rules may send to, and only over TLS", () => {
            const queue = named(r, "aws:sqs/queue:Queue", "ng-nth-queue");
            expect(queue.props).to.deep.include({ name: "demo-nth", sqsManagedSseEnabled: true, messageRetentionSeconds: 300 });
            const policy = json(named(r, "aws:sqs/queuePolicy:QueuePolicy", "ng-nth-queue-policy").props.policy);
            const staticArn = "arn:aws:sqs:us-east-1:123456789012:demo-nth";
            const allow = policy.Statement.filter((s: any) => s.Effect === "Allow");
            expect(allow).to.have.length(1);
            expect(allow[0].Principal).to.deep.equal({ Service: "events.amazonaws.com" });
            expect(allow[0]).to.deep.include({ Action: "sqs:SendMessage", Resource: staticArn });
            // In the policy in nthEventPatterns' order (rules with an alias register later).
            const rules = ["asg", "spot", "rebalance", "state", "health"].map((key) => `demo-nth-${key}`);
            expect(ofType(r, "aws:cloudwatch/eventRule:EventRule").map((rule) => rule.props.name as string)).to.have.members(rules);
            expect(allow[0].Condition).to.deep.equal({
                ArnEquals: { "aws:SourceArn": rules.map((rule) => `arn:aws:events:us-east-1:123456789012:rule/${rule}`) },
                StringEquals: { "aws:SourceAccount": "123456789012" },
            });
            const deny = policy.Statement.filter((s: any) => s.Effect === "Deny");
            expect(deny).to.have.length(1);
            expect(deny[0]).to.deep.include({ Principal: "*", Action: "sqs:*", Resource: staticArn });
            expect(deny[0].Condition).to.deep.equal({ Bool: { "aws:SecureTransport": "false" } });
        });

        it("feeds the queue from one statically named EventBridge rule per interruption source", () => {
            const rules = ofType(r, "aws:cloudwatch/eventRule:EventRule");
            const patterns = Object.fromEntries(rules.map((rule) => [rule.props.name, json(rule.props.eventPattern)]));
            expect(patterns).to.deep.equal({
                "demo-nth-asg": { source: ["aws.autoscaling"], "detail-type": ["EC2 Instance-terminate Lifecycle Action"] },
                "demo-nth-spot": { source: ["aws.ec2"], "detail-type": ["EC2 Spot Instance Interruption Warning"] },
                "demo-nth-rebalance": { source: ["aws.ec2"], "detail-type": ["EC2 Instance Rebalance Recommendation"] },
                "demo-nth-state": { source: ["aws.ec2"], "detail-type": ["EC2 Instance State-change Notification"] },
                "demo-nth-health": {
                    source: ["aws.health"],
                    "detail-type": ["AWS Health Event"],
                    detail: { service: ["EC2"], eventTypeCategory: ["scheduledChange"] },
                },
            });
            const targets = ofType(r, "aws:cloudwatch/eventTarget:EventTarget");
            expect(targets).to.have.length(5);
            for (const t of targets) {
                expect(t.props.arn, t.name).to.equal(queueArn);
                expect(t.props.rule, t.name).to.equal(named(r, "aws:cloudwatch/eventRule:EventRule", t.name).props.name);
                expect(t.options.dependsOn, t.name).to.include("ng-nth-queue-policy");
            }
        });

        it("keeps each rule's and target's state from before the rule keys were shortened, through an alias", () => {
            const former = { asg: "asg-terminate", spot: "spot-interruption", state: "state-change", health: "scheduled-change" };
            for (const type of ["aws:cloudwatch/eventRule:EventRule", "aws:cloudwatch/eventTarget:EventTarget"]) {
                for (const [key, old] of Object.entries(former)) {
                    const resource = named(r, type, `ng-nth-${key}`);
                    expect(resource.aliases, resource.name).to.deep.equal([resource.urn.replace(/::ng-nth-\w+$/, `::ng-nth-${old}`)]);
                }
                expect(named(r, type, "ng-nth-rebalance").aliases, "rebalance kept its key").to.equal(undefined);
            }
        });

        it("assumes its role through EKS Pod Identity, scoped to the queue and our Auto Scaling groups", () => {
            const role = named(r, "aws:iam/role:Role", "ng-nth-role");
            const trust = json(role.props.assumeRolePolicy).Statement[0];
            expect(trust.Principal).to.deep.equal({ Service: "pods.eks.amazonaws.com" });
            expect(trust.Action).to.have.members(["sts:AssumeRole", "sts:TagSession"]);
            // Only NTH's service account, in this cluster (by name and ARN): the tags Pod Identity sets on the session.
            expect(trust.Condition).to.deep.equal({
                StringEquals: {
                    "aws:RequestTag/eks-cluster-arn": "arn:aws:eks:us-east-1:123456789012:cluster/demo",
                    "aws:RequestTag/eks-cluster-name": "demo",
                    "aws:RequestTag/kubernetes-namespace": "kube-system",
                    "aws:RequestTag/kubernetes-service-account": "aws-node-termination-handler",
                },
            });
            const association = named(r, "aws:eks/podIdentityAssociation:PodIdentityAssociation", "ng-nth-pod-identity");
            expect(association.props).to.deep.include({
                clusterName: "demo",
                namespace: "kube-system",
                serviceAccount: "aws-node-termination-handler",
                roleArn: "arn:aws:mock:us-east-1:123456789012:role/ng-nth-role",
            });
            const statements = json(named(r, "aws:iam/rolePolicy:RolePolicy", "ng-nth-role").props.policy).Statement as any[];
            const complete = statements.find((s) => [].concat(s.Action).includes("autoscaling:CompleteLifecycleAction" as never));
            // Every group of this cluster by name, not the groups' ARNs: NTH must not depend on them.
            expect(complete.Resource).to.equal("arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:*:autoScalingGroupName/demo-*");
            for (const asg of ofType(r, "aws:autoscaling/group:Group")) {
                expect(String(asg.props.namePrefix), asg.name).to.match(/^demo-/);
            }
            const sqs = statements.find((s) => [].concat(s.Action).includes("sqs:ReceiveMessage" as never));
            expect(sqs.Resource).to.equal(queueArn);
        });

        it("installs the pinned chart in queue mode, draining inside the lifecycle heartbeat", async () => {
            const release = named(r, "kubernetes:helm.sh/v3:Release", "ng-nth-release");
            expect(release.props).to.deep.include({
                chart: "oci://public.ecr.aws/aws-ec2/helm/aws-node-termination-handler",
                namespace: "kube-system",
            });
            expect(release.props.version).to.match(/^\d+\.\d+\.\d+$/);
            const values = release.props.values as Record<string, any>;
            expect(values).to.deep.include({
                enableSqsTerminationDraining: true,
                queueURL: QUEUE_URL,
                awsRegion: "us-east-1",
                checkTagBeforeDraining: true,
            });
            expect(values.managedTag).to.equal("aws-node-termination-handler/managed");
            expect(values.serviceAccount.name).to.equal("aws-node-termination-handler");
            expect(values.nodeTerminationGracePeriod).to.be.a("number").and.below(300);
            expect(values.replicas).to.be.greaterThan(1);
            expect(values.podDisruptionBudget).to.deep.equal({ maxUnavailable: 1 });
            // NTH takes a draining node out of instance target groups before it cordons (the
            // exclude-from-external-load-balancers label), as Karpenter and managed groups do.
            expect(values.excludeFromLoadBalancers).to.equal(true);
            expect(values.nodeSelector).to.deep.equal({ "platform/role": "system" });
            expect(tolerates(values.tolerations, { key: "CriticalAddonsOnly", value: "true", effect: "NoSchedule" })).to.equal(true);
            // Resolves AWS endpoints through the VPC's resolver while CoreDNS is not up (10.0.0.0/16 + 2).
            expect(values.dnsConfig.nameservers).to.deep.equal(["10.0.0.2"]);
            await validateKubernetesObject(
                "kubernetes:core/v1:Pod",
                podWith({ nodeSelector: values.nodeSelector, tolerations: values.tolerations, dnsConfig: values.dnsConfig }),
            );
            expect(release.options.dependsOn).to.include.members(["ng-nth-pod-identity", "ng-system-group"]);
            expect(release.options.dependsOn).to.not.include("ng-batch-asg");
            expect(release.props).to.not.have.property("skipAwait");
        });

        it("is torn down after the groups it drains: each Auto Scaling group depends on NTH, and the hook is retained", () => {
            // Pulumi deletes dependents before their dependencies: a group being removed is scaled
            // to zero (nodes drained through the hook and NTH) before NTH, its event feed or the hook go.
            const drainPath = ["ng-nth-release", ...ofType(r, "aws:cloudwatch/eventTarget:EventTarget").map((t) => t.name)];
            expect(drainPath).to.have.length(6);
            for (const asg of ofType(r, "aws:autoscaling/group:Group")) {
                expect(asg.options.dependsOn, asg.name).to.include.members(drainPath);
            }
            for (const hook of ofType(r, "aws:autoscaling/lifecycleHook:LifecycleHook")) {
                expect(hook.options.retainOnDelete, hook.name).to.equal(true);
            }
            const nthNames = new Set(r.filter((x) => x.options.parent === "ng-nth").map((x) => x.name));
            for (const x of r.filter((y) => nthNames.has(y.name))) {
                expect(x.options.dependsOn ?? [], x.name).to.not.include.members(["ng-batch-asg"]);
            }
        });
    });

    it("answers which groups' nodes a placement needs (labels carried, taints tolerated), and exposes every node resource", () => {
        const managed = (group: string) => nodeGroups.componentOf(group, ManagedNodeGroup);
        const selfManaged = (group: string) => nodeGroups.componentOf(group, SelfManagedNodeGroup);
        const system = { "platform/role": "system" };
        expect(nodeGroups.nodesFor({ nodeSelector: system, tolerations: [CRITICAL_ADDONS_ONLY] })).to.deep.equal([
            managed("system").nodeGroup,
        ]);
        // The system group is tainted CriticalAddonsOnly: a pod that does not tolerate it waits for nothing there.
        expect(nodeGroups.nodesFor({ nodeSelector: system, tolerations: [] })).to.deep.equal([]);
        expect(nodeGroups.nodesFor({ nodeSelector: { "platform/role": "apps" }, tolerations: [CRITICAL_ADDONS_ONLY] })).to.deep.equal([]);
        // GPU groups carry the NVIDIA label and taint the program adds; self-managed groups count with their ASG and hook.
        expect(
            nodeGroups.nodesFor({ nodeSelector: { accelerator: "nvidia" }, tolerations: [{ key: "nvidia.com/gpu", operator: "Exists" }] }),
        ).to.deep.equal([managed("gpu").nodeGroup]);
        expect(
            nodeGroups.nodesFor({ nodeSelector: { workload: "batch" }, tolerations: [{ key: "workload", operator: "Exists" }] }),
        ).to.deep.equal([selfManaged("batch").autoScalingGroup, selfManaged("batch").lifecycleHook]);
        expect(nodeGroups.nodes).to.include(managed("gpu").nodeGroup);
        expect(nodeGroups.nodes).to.include(selfManaged("batch").autoScalingGroup);
        expect(nodeGroups.nodeRoleNames).to.deep.equal({
            system: "demo-system-node",
            gpu: "demo-gpu-node",
            batch: "demo-batch-node",
            golden: "demo-golden-node",
        });
    });
});

describe("NodeGroups component without self-managed or GPU groups", function () {
    this.timeout(60_000);
    it("creates neither the termination handler nor the device plugin", async () => {
        const mocks = await useNodeGroupMocks();
        const only = nodeGroupsSchema.parse({ general: { kind: "managed", ...base, instanceTypes: ["t3.large"] } });
        new NodeGroups("solo", { ...around(demoCluster()), groups: only, privateSubnetIds: ["subnet-p1"] });
        await settled();
        expect(ofType(mocks.resources, "aws:eks/nodeGroup:NodeGroup").map((g) => g.name)).to.deep.equal(["solo-general-group"]);
        expect(ofType(mocks.resources, "aws:sqs/queue:Queue")).to.deep.equal([]);
        expect(ofType(mocks.resources, "kubernetes:helm.sh/v3:Release")).to.deep.equal([]);
        expect(ofType(mocks.resources, "aws:autoscaling/group:Group")).to.deep.equal([]);
    });
});

describe("NodeGroups component with a Karpenter GPU pool and no GPU group", function () {
    this.timeout(60_000);
    const only = () => nodeGroupsSchema.parse({ general: { kind: "managed", ...base, instanceTypes: ["t3.large"] } });
    const gpuPool = {
        requirements: [{ key: "karpenter.k8s.aws/instance-category", operator: "In" as const, values: ["g", "p"] }],
        taints: [
            { key: "nvidia.com/gpu", effect: "NoSchedule" as const },
            { key: "team", value: "ml", effect: "NoExecute" as const },
        ],
    };
    const cpuPool = {
        requirements: [{ key: "karpenter.k8s.aws/instance-family", operator: "In" as const, values: ["m5", "m6i", "c5"] }],
        taints: [],
    };

    it("installs the device plugin for the pool, tolerating its taints, on Karpenter's NVIDIA nodes", async () => {
        const mocks = await useNodeGroupMocks();
        new NodeGroups("pools", {
            ...around(demoCluster()),
            groups: only(),
            privateSubnetIds: ["subnet-p1"],
            nodePools: { gpu: gpuPool, general: cpuPool },
        });
        await settled();
        const release = named(mocks.resources, "kubernetes:helm.sh/v3:Release", "pools-nvidia-release");
        expect(release.props).to.deep.include({ chart: "nvidia-device-plugin", version: "0.19.3" });
        const values = release.props.values as Record<string, any>;
        expect(values.tolerations).to.deep.equal([
            { key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" },
            { key: "team", operator: "Exists", effect: "NoExecute" },
        ]);
        const terms = values.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
        expect(terms).to.deep.equal([
            { matchExpressions: [{ key: "karpenter.k8s.aws/instance-gpu-manufacturer", operator: "In", values: ["nvidia"] }] },
        ]);
        expect(values).to.not.have.property("nodeSelector");
    });

    it("installs nothing when every pool launches CPU families only", async () => {
        const mocks = await useNodeGroupMocks();
        new NodeGroups("cpu", {
            ...around(demoCluster()),
            groups: only(),
            privateSubnetIds: ["subnet-p1"],
            nodePools: { general: cpuPool },
        });
        await settled();
        expect(ofType(mocks.resources, "kubernetes:helm.sh/v3:Release")).to.deep.equal([]);
    });
});
