import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import { controllerPolicyDocument, INTERRUPTION_EVENTS, interruptionQueuePolicyDocument, KarpenterAws } from "../components/karpenter/aws";
import { podIdentityTrustPolicy, PolicyDocument } from "../components/iam";
import { RecordingMocks } from "../tools/offline";
import { named, ofType, settled, useMocks } from "./mocks";

const CTX = {
    partition: "aws",
    region: "eu-west-1",
    accountId: "111122223333",
    clusterName: "demo",
    nodeRoleName: "demo-karpenter-node",
    queueName: "demo-karpenter",
};

type Statement = PolicyDocument["Statement"][number];
const asList = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const bySid = (doc: PolicyDocument, sid: string): Statement => {
    const found = doc.Statement.find((s) => s.Sid === sid);
    if (!found) {
        throw new Error(`no statement ${sid}`);
    }
    return found;
};

describe("karpenter AWS: controller policy (pure)", () => {
    const doc = controllerPolicyDocument(CTX);
    const writes = doc.Statement.filter((s) =>
        asList(s.Action).some(
            (a) => !/^(ec2:Describe|iam:Get|iam:List|ssm:Get|pricing:Get|sqs:GetQueueUrl|sqs:ReceiveMessage|eks:Describe)/.test(a),
        ),
    );

    it("grants no write action on every resource", () => {
        for (const s of doc.Statement.filter((st) => asList(st.Resource).includes("*"))) {
            for (const action of asList(s.Action)) {
                expect(action, s.Sid).to.match(/^(ec2:Describe\w+|pricing:GetProducts|iam:ListInstanceProfiles)$/);
            }
        }
        expect(doc.Statement.some((s) => asList(s.Action).some((a) => a.endsWith(":*")))).to.equal(false);
    });

    it("limits every launch, tag and delete on instances to resources tagged for this cluster and a NodePool", () => {
        const scoped = [
            "AllowScopedEC2LaunchTemplateAccessActions",
            "AllowScopedEC2InstanceActionsWithTags",
            "AllowScopedResourceCreationTagging",
            "AllowScopedResourceTagging",
            "AllowScopedDeletion",
        ];
        for (const sid of scoped) {
            const condition = JSON.stringify(bySid(doc, sid).Condition);
            expect(condition, sid).to.match(/"aws:(Request|Resource)Tag\/kubernetes\.io\/cluster\/demo":"owned"/);
            expect(condition, sid).to.match(/"aws:(Request|Resource)Tag\/karpenter\.sh\/nodepool":"\*"/);
        }
        expect(asList(bySid(doc, "AllowScopedDeletion").Action)).to.have.members(["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"]);
        expect(bySid(doc, "AllowScopedResourceCreationTagging").Condition?.StringEquals?.["ec2:CreateAction"]).to.have.members([
            "RunInstances",
            "CreateFleet",
            "CreateLaunchTemplate",
        ]);
    });

    it("keeps instance-profile management to profiles tagged for this cluster, its region and an EC2NodeClass", () => {
        for (const sid of [
            "AllowScopedInstanceProfileCreationActions",
            "AllowScopedInstanceProfileTagActions",
            "AllowScopedInstanceProfileActions",
        ]) {
            const s = bySid(doc, sid);
            expect(s.Resource, sid).to.equal("arn:aws:iam::111122223333:instance-profile/*");
            const condition = JSON.stringify(s.Condition);
            expect(condition, sid).to.include('Tag/kubernetes.io/cluster/demo":"owned"');
            expect(condition, sid).to.include('Tag/topology.kubernetes.io/region":"eu-west-1"');
            expect(condition, sid).to.include('Tag/karpenter.k8s.aws/ec2nodeclass":"*"');
        }
    });

    it("passes only the node role, only to EC2", () => {
        const passRole = doc.Statement.filter((s) => asList(s.Action).includes("iam:PassRole"));
        expect(passRole).to.have.length(1);
        expect(passRole[0].Resource).to.equal("arn:aws:iam::111122223333:role/demo-karpenter-node");
        expect(passRole[0].Condition).to.deep.equal({ StringEquals: { "iam:PassedToService": "ec2.amazonaws.com" } });
    });

    it("reads and deletes messages of its own queue only, and describes only its own cluster", () => {
        expect(bySid(doc, "AllowInterruptionQueueActions").Resource).to.equal("arn:aws:sqs:eu-west-1:111122223333:demo-karpenter");
        expect(asList(bySid(doc, "AllowInterruptionQueueActions").Action)).to.not.include("sqs:SendMessage");
        expect(bySid(doc, "AllowAPIServerEndpointDiscovery").Resource).to.equal("arn:aws:eks:eu-west-1:111122223333:cluster/demo");
        expect(bySid(doc, "AllowRegionalReadActions").Condition).to.deep.equal({ StringEquals: { "aws:RequestedRegion": "eu-west-1" } });
    });

    it("scopes every write statement by a resource ARN of this account/region or a tag condition", () => {
        expect(writes.length).to.be.greaterThan(5);
        for (const s of writes) {
            const resources = asList(s.Resource);
            expect(resources, s.Sid).to.not.include("*");
            for (const r of resources) {
                expect(r, s.Sid).to.match(
                    /^arn:aws:(ec2:eu-west-1|iam::111122223333|sqs:eu-west-1:111122223333|eks:eu-west-1:111122223333)/,
                );
            }
        }
    });
});

describe("karpenter AWS: queue and trust policies (pure)", () => {
    it("lets EventBridge and SQS send to the queue and denies any use without TLS", () => {
        const doc = interruptionQueuePolicyDocument("arn:aws:sqs:eu-west-1:111122223333:demo-karpenter");
        const allow = doc.Statement.filter((s) => s.Effect === "Allow");
        expect(allow).to.have.length(1);
        expect(allow[0].Principal).to.deep.equal({ Service: ["events.amazonaws.com", "sqs.amazonaws.com"] });
        expect(allow[0].Action).to.equal("sqs:SendMessage");
        const deny = doc.Statement.filter((s) => s.Effect === "Deny");
        expect(deny).to.have.length(1);
        expect(deny[0]).to.deep.include({ Principal: "*", Action: "sqs:*", Resource: "arn:aws:sqs:eu-west-1:111122223333:demo-karpenter" });
        expect(deny[0].Condition).to.deep.equal({ Bool: { "aws:SecureTransport": "false" } });
    });

    it("trusts EKS Pod Identity for kube-system/karpenter of this cluster only", () => {
        const [s] = podIdentityTrustPolicy("demo", "kube-system", "karpenter").Statement;
        expect(s.Principal).to.deep.equal({ Service: "pods.eks.amazonaws.com" });
        expect(s.Action).to.have.members(["sts:AssumeRole", "sts:TagSession"]);
        expect(s.Condition).to.deep.equal({
            StringEquals: {
                "aws:RequestTag/eks-cluster-name": "demo",
                "aws:RequestTag/kubernetes-namespace": "kube-system",
                "aws:RequestTag/kubernetes-service-account": "karpenter",
            },
        });
    });

    it("routes exactly the five interruption event types Karpenter handles", () => {
        expect(INTERRUPTION_EVENTS.map((e) => e.pattern)).to.deep.equal([
            { source: ["aws.health"], "detail-type": ["AWS Health Event"] },
            { source: ["aws.ec2"], "detail-type": ["EC2 Spot Instance Interruption Warning"] },
            { source: ["aws.ec2"], "detail-type": ["EC2 Instance Rebalance Recommendation"] },
            { source: ["aws.ec2"], "detail-type": ["EC2 Instance State-change Notification"] },
            { source: ["aws.ec2"], "detail-type": ["EC2 Capacity Reservation Instance Interruption Warning"] },
        ]);
    });
});

describe("karpenter AWS: component", () => {
    let mocks: RecordingMocks;
    before(async () => {
        mocks = await useMocks("up");
        const cluster = new pulumi.ComponentResource("test:index:Cluster", "cp");
        new KarpenterAws("kp", { clusterName: "demo", region: "us-east-1", cluster });
        await settled();
    });

    it("creates the node role with a static name, the four node policies and an EC2_LINUX access entry after the cluster", () => {
        const role = named(mocks.resources, "aws:iam/role:Role", "kp-node");
        expect(role.props.name).to.equal("demo-karpenter-node");
        expect(JSON.parse(role.props.assumeRolePolicy as string).Statement[0].Principal).to.deep.equal({ Service: "ec2.amazonaws.com" });
        const attachments = ofType(mocks.resources, "aws:iam/rolePolicyAttachment:RolePolicyAttachment");
        expect(attachments.map((a) => a.props.policyArn)).to.have.members([
            "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
            "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
            "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
            "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
        ]);
        for (const a of attachments) {
            expect(a.props.role, a.name).to.equal("demo-karpenter-node");
        }
        const entry = named(mocks.resources, "aws:eks/accessEntry:AccessEntry", "kp-node");
        expect(entry.props).to.include({ clusterName: "demo", type: "EC2_LINUX" });
        expect(entry.props.principalArn).to.match(/role\/kp-node$/);
        expect(entry.options.dependsOn).to.include("cp");
    });

    it("associates the controller role with kube-system/karpenter through Pod Identity, after the cluster", () => {
        const association = named(mocks.resources, "aws:eks/podIdentityAssociation:PodIdentityAssociation", "kp-controller");
        expect(association.props).to.include({ clusterName: "demo", namespace: "kube-system", serviceAccount: "karpenter" });
        expect(association.props.roleArn).to.match(/role\/kp-controller$/);
        expect(association.options.dependsOn).to.include("cp");
        const role = named(mocks.resources, "aws:iam/role:Role", "kp-controller");
        expect(JSON.parse(role.props.assumeRolePolicy as string).Statement[0].Principal).to.deep.equal({
            Service: "pods.eks.amazonaws.com",
        });
    });

    it("attaches the cluster-scoped controller policy, built with this account, to the controller role", () => {
        const policy = named(mocks.resources, "aws:iam/rolePolicy:RolePolicy", "kp-controller");
        expect(policy.props.role).to.match(/kp-controller/);
        const doc = JSON.parse(policy.props.policy as string) as PolicyDocument;
        expect(bySid(doc, "AllowPassingInstanceRole").Resource).to.equal("arn:aws:iam::123456789012:role/demo-karpenter-node");
        expect(bySid(doc, "AllowInterruptionQueueActions").Resource).to.equal("arn:aws:sqs:us-east-1:123456789012:demo-karpenter");
        expect(ofType(mocks.resources, "aws:iam/policy:Policy")).to.have.length(0);
    });

    it("creates an encrypted interruption queue keeping messages 300 s, with its TLS-only policy", () => {
        const queue = named(mocks.resources, "aws:sqs/queue:Queue", "kp-interruption");
        expect(queue.props).to.include({ name: "demo-karpenter", sqsManagedSseEnabled: true, messageRetentionSeconds: 300 });
        const policy = named(mocks.resources, "aws:sqs/queuePolicy:QueuePolicy", "kp-interruption");
        const doc = JSON.parse(policy.props.policy as string) as PolicyDocument;
        expect(doc.Statement.map((s) => [s.Effect, s.Resource])).to.deep.equal([
            ["Allow", "arn:aws:sqs:us-east-1:123456789012:demo-karpenter"],
            ["Deny", "arn:aws:sqs:us-east-1:123456789012:demo-karpenter"],
        ]);
    });

    it("creates one EventBridge rule per interruption event, each targeting the queue", () => {
        const rules = ofType(mocks.resources, "aws:cloudwatch/eventRule:EventRule");
        const patterns = rules.map((r) => JSON.parse(r.props.eventPattern as string) as { "detail-type": string[] });
        expect(patterns.map((p) => p["detail-type"][0])).to.have.members([
            "AWS Health Event",
            "EC2 Spot Instance Interruption Warning",
            "EC2 Instance Rebalance Recommendation",
            "EC2 Instance State-change Notification",
            "EC2 Capacity Reservation Instance Interruption Warning",
        ]);
        const targets = ofType(mocks.resources, "aws:cloudwatch/eventTarget:EventTarget");
        expect(targets).to.have.length(5);
        for (const rule of rules) {
            const target = named(mocks.resources, "aws:cloudwatch/eventTarget:EventTarget", rule.name);
            expect(target.props.rule, rule.name).to.equal(`${rule.name}-name`);
            expect(target.props.arn, rule.name).to.match(/queue\/kp-interruption$/);
            expect(target.options.dependsOn, rule.name).to.include("kp-interruption");
        }
    });
});
