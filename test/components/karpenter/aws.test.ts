import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import { eventQueuePolicy, podIdentityTrustPolicy, PolicyDocument } from "../../../components/iam";
import {
    allowsSpot,
    controllerPolicyDocument,
    controllerTrustPolicy,
    INTERRUPTION_EVENTS,
    interruptionQueuePolicy,
    interruptionRuleName,
    KarpenterAws,
    spotKeyGrants,
    volumeKeys,
} from "../../../components/karpenter/aws";
import { karpenterNames, karpenterSchema } from "../../../components/karpenter/schema";
import { KARPENTER_REFERENCE_POLICY } from "../../../components/karpenter/referencePolicy";
import { RecordingMocks } from "../../../tools/render/offline";
import { named, ofType, settled, useMocks } from "../../mocks";
import { stackConfig, stacks } from "../../stackFiles";

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
            (a) =>
                !/^(ec2:Describe|iam:Get|iam:List|ssm:Get|pricing:Get|sqs:GetQueueUrl|sqs:ReceiveMessage|eks:Describe|arc-zonal-shift:Get)/.test(
                    a,
                ),
        ),
    );

    it("grants no write action on every resource", () => {
        for (const s of doc.Statement.filter((st) => asList(st.Resource).includes("*"))) {
            for (const action of asList(s.Action)) {
                expect(action, s.Sid).to.match(
                    /^(ec2:Describe\w+|pricing:GetProducts|iam:ListInstanceProfiles|arc-zonal-shift:GetManagedResource)$/,
                );
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
        expect(passRole[0].Condition).to.deep.equal({
            StringEquals: { "iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"] },
        });
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

describe("karpenter AWS: the controller policy against Karpenter's reference statements", () => {
    /** The reference rendered independently of the program: plain text substitution. */
    const reference = (): Statement[] => {
        let text = JSON.stringify(KARPENTER_REFERENCE_POLICY.statements);
        for (const [placeholder, value] of Object.entries({
            "${AWS::Partition}": "aws",
            "${AWS::Region}": "eu-west-1",
            "${AWS::AccountId}": "111122223333",
            "${ClusterName}": "demo",
            "${KarpenterNodeRole.Arn}": "arn:aws:iam::111122223333:role/demo-karpenter-node",
            "${KarpenterInterruptionQueue.Arn}": "arn:aws:sqs:eu-west-1:111122223333:demo-karpenter",
        })) {
            text = text.split(placeholder).join(value);
        }
        return JSON.parse(text) as Statement[];
    };

    it("holds every reference statement, rendered for this cluster, and nothing else without a customer key", () => {
        const doc = controllerPolicyDocument(CTX);
        expect(JSON.stringify(doc)).to.not.include("${");
        expect(doc.Statement).to.deep.equal(reference());
    });

    it("lets Karpenter read instance status and placement groups (its health checks and placement need them)", () => {
        const reads = asList(bySid(controllerPolicyDocument(CTX), "AllowRegionalReadActions").Action);
        expect(reads).to.include.members(["ec2:DescribeInstanceStatus", "ec2:DescribePlacementGroups"]);
        expect(asList(bySid(controllerPolicyDocument(CTX), "AllowScopedEC2InstanceAccessActions").Resource)).to.include(
            "arn:aws:ec2:eu-west-1:*:placement-group/*",
        );
    });

    it("tracks the Karpenter minor every stack with Karpenter installs", () => {
        const checked = stacks().flatMap((stack) => {
            const karpenter = stackConfig(stack).karpenter;
            return karpenter.enabled ? [[stack, karpenter.chartVersion.split(".").slice(0, 2).join(".")]] : [];
        });
        for (const [stack, minor] of checked) {
            expect(minor, `${stack}: update components/karpenter/referencePolicy.ts to the template of this version`).to.equal(
                KARPENTER_REFERENCE_POLICY.version,
            );
        }
    });

    it("lets the controller use customer volume keys only through EC2 in its region, and grant only to AWS resources", () => {
        const key = "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab";
        const doc = controllerPolicyDocument({ ...CTX, customerKeyArns: [key] });
        expect(doc.Statement.slice(0, reference().length)).to.deep.equal(reference());
        const use = bySid(doc, "AllowEbsUseOfCustomerKeys");
        expect(use.Resource).to.deep.equal([key]);
        expect(use.Condition).to.deep.equal({
            StringEquals: { "kms:ViaService": "ec2.eu-west-1.amazonaws.com", "kms:CallerAccount": "111122223333" },
        });
        const grant = bySid(doc, "AllowEbsGrantsOnCustomerKeys");
        expect(grant.Action).to.equal("kms:CreateGrant");
        expect(grant.Condition?.Bool).to.deep.equal({ "kms:GrantIsForAWSResource": "true" });
        expect(grant.Condition?.StringEquals?.["kms:ViaService"]).to.equal("ec2.eu-west-1.amazonaws.com");
    });
});

describe("karpenter AWS: which pools launch Spot, and which volume keys they use (pure)", () => {
    const requirement = (operator: string, values: string[] = []) => ({
        requirements: [{ key: "karpenter.sh/capacity-type", operator, values } as never],
    });
    it("reads the capacity-type requirement the way Karpenter does (none means on-demand)", () => {
        expect(allowsSpot(requirement("In", ["spot", "on-demand"]))).to.equal(true);
        expect(allowsSpot(requirement("In", ["on-demand"]))).to.equal(false);
        expect(allowsSpot(requirement("NotIn", ["on-demand"]))).to.equal(true);
        expect(allowsSpot(requirement("NotIn", ["spot"]))).to.equal(false);
        expect(allowsSpot(requirement("Exists"))).to.equal(true);
        expect(allowsSpot(requirement("DoesNotExist"))).to.equal(false);
        expect(allowsSpot({ requirements: [] })).to.equal(false);
    });

    const pool = (nodeClass: string, capacity: string) => ({
        nodeClassRef: { name: nodeClass },
        requirements: [{ key: "karpenter.sh/capacity-type", operator: "In", values: [capacity] }],
        limits: { cpu: "8", memory: "32Gi" },
        disruption: { consolidateAfter: "1m" },
        terminationGracePeriod: "10m",
    });

    it("lists each customer key once, marked for Spot when any Spot pool's class uses it", () => {
        const config = karpenterSchema.parse({
            enabled: true,
            chartVersion: "1.14.1",
            nodeClasses: {
                plain: { amiAlias: "al2023@v20260512" },
                sealed: { amiAlias: "al2023@v20260512", rootVolume: { kmsKeyId: "1234abcd-12ab-34cd-56ef-1234567890ab" } },
                sealed2: { amiAlias: "al2023@v20260512", rootVolume: { kmsKeyId: "1234abcd-12ab-34cd-56ef-1234567890ab" } },
            },
            nodePools: { od: pool("sealed", "on-demand"), spot: pool("sealed2", "spot") },
        });
        expect(config.enabled).to.equal(true);
        expect(config.enabled && volumeKeys(config)).to.deep.equal([{ key: "1234abcd-12ab-34cd-56ef-1234567890ab", spot: true }]);
    });
});

describe("karpenter AWS: queue and trust policies (pure)", () => {
    it("lets only the interruption rules of this account send to the queue, and denies any use without TLS", () => {
        const rules = ["arn:aws:events:eu-west-1:111122223333:rule/demo-karp-spot"];
        const doc = eventQueuePolicy("arn:aws:sqs:eu-west-1:111122223333:demo-karpenter", rules);
        const allow = doc.Statement.filter((s) => s.Effect === "Allow");
        expect(allow).to.have.length(1);
        expect(allow[0].Principal).to.deep.equal({ Service: "events.amazonaws.com" });
        expect(allow[0].Action).to.equal("sqs:SendMessage");
        expect(allow[0].Condition).to.deep.equal({
            ArnEquals: { "aws:SourceArn": rules },
            StringEquals: { "aws:SourceAccount": "111122223333" },
        });
        const deny = doc.Statement.filter((s) => s.Effect === "Deny");
        expect(deny).to.have.length(1);
        expect(deny[0]).to.deep.include({ Principal: "*", Action: "sqs:*", Resource: "arn:aws:sqs:eu-west-1:111122223333:demo-karpenter" });
        expect(deny[0].Condition).to.deep.equal({ Bool: { "aws:SecureTransport": "false" } });
    });

    it("trusts EKS Pod Identity for one service account of one cluster only, pinned by name and ARN", () => {
        const [s] = podIdentityTrustPolicy("demo", "kube-system", "karpenter", {
            clusterArn: "arn:aws:eks:eu-west-1:111122223333:cluster/demo",
        }).Statement;
        expect(s.Principal).to.deep.equal({ Service: "pods.eks.amazonaws.com" });
        expect(s.Action).to.have.members(["sts:AssumeRole", "sts:TagSession"]);
        expect(s.Condition).to.deep.equal({
            StringEquals: {
                "aws:RequestTag/eks-cluster-arn": "arn:aws:eks:eu-west-1:111122223333:cluster/demo",
                "aws:RequestTag/eks-cluster-name": "demo",
                "aws:RequestTag/kubernetes-namespace": "kube-system",
                "aws:RequestTag/kubernetes-service-account": "karpenter",
            },
        });
    });

    it("names every interruption rule within EventBridge's 64 characters for the longest cluster name Karpenter allows", () => {
        // The node role bounds cluster names: `${clusterName}-karpenter-node` within IAM's 64.
        const longest = "c".repeat(64 - karpenterNames("").nodeRole.length);
        expect(karpenterNames(longest).nodeRole).to.have.length(64);
        for (const event of INTERRUPTION_EVENTS) {
            expect(interruptionRuleName(longest, event.key).length, event.key).to.be.at.most(64);
        }
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

    it("limits the controller role to kube-system/karpenter of this cluster, by the cluster's ARN", () => {
        const role = named(mocks.resources, "aws:iam/role:Role", "kp-controller");
        const [trust] = JSON.parse(role.props.assumeRolePolicy as string).Statement;
        expect(trust.Sid).to.equal("AllowEksPodIdentityForKarpenter");
        expect(trust.Condition).to.deep.equal({
            StringEquals: {
                "aws:RequestTag/eks-cluster-arn": "arn:aws:eks:us-east-1:123456789012:cluster/demo",
                "aws:RequestTag/eks-cluster-name": "demo",
                "aws:RequestTag/kubernetes-namespace": "kube-system",
                "aws:RequestTag/kubernetes-service-account": "karpenter",
            },
        });
    });

    it("accepts queue messages from its own five rules only, named statically so the policy is known at preview", () => {
        const doc = JSON.parse(named(mocks.resources, "aws:sqs/queuePolicy:QueuePolicy", "kp-interruption").props.policy as string);
        // In the policy in INTERRUPTION_EVENTS' order (rules with an alias register later).
        const names = INTERRUPTION_EVENTS.map((e) => interruptionRuleName("demo", e.key));
        expect(ofType(mocks.resources, "aws:cloudwatch/eventRule:EventRule").map((r) => r.props.name as string)).to.have.members(names);
        expect((doc as PolicyDocument).Statement[0].Condition).to.deep.equal({
            ArnEquals: { "aws:SourceArn": names.map((n) => `arn:aws:events:us-east-1:123456789012:rule/${n}`) },
            StringEquals: { "aws:SourceAccount": "123456789012" },
        });
    });

    it("keeps each rule's and target's state from before the rule keys were shortened, through an alias", () => {
        for (const type of ["aws:cloudwatch/eventRule:EventRule", "aws:cloudwatch/eventTarget:EventTarget"]) {
            for (const event of INTERRUPTION_EVENTS) {
                const resource = named(mocks.resources, type, `kp-${event.key}`);
                const expected = event.formerKey ? [resource.urn.replace(/::kp-\w+$/, `::kp-${event.formerKey}`)] : undefined;
                expect(resource.aliases, resource.name).to.deep.equal(expected);
            }
        }
        expect(INTERRUPTION_EVENTS.filter((e) => e.formerKey).map((e) => e.formerKey)).to.deep.equal([
            "scheduled-change",
            "spot-interruption",
            "state-change",
            "capacity-reservation-interruption",
        ]);
    });

    it("neither creates the account's Spot service-linked role nor grants keys unless asked", () => {
        expect(ofType(mocks.resources, "aws:iam/serviceLinkedRole:ServiceLinkedRole")).to.deep.equal([]);
        expect(ofType(mocks.resources, "aws:kms/grant:Grant")).to.deep.equal([]);
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
        // Named under the stack's IAM prefix, like every role the deploy role may manage (kernel/deployScope.ts).
        expect(policy.props.role).to.equal("demo-karpenter-controller");
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
            expect(target.props.rule, rule.name).to.equal(rule.props.name);
            expect(target.props.arn, rule.name).to.match(/queue\/kp-interruption$/);
            expect(target.options.dependsOn, rule.name).to.include("kp-interruption");
        }
    });
});

describe("karpenter AWS: Spot and customer volume keys", () => {
    let mocks: RecordingMocks;
    let aws: KarpenterAws;
    before(async () => {
        mocks = await useMocks("up");
        const cluster = new pulumi.ComponentResource("test:index:Cluster", "cp");
        aws = new KarpenterAws("kk", {
            clusterName: "demo",
            region: "us-east-1",
            cluster,
            createSpotServiceLinkedRole: true,
            volumeKeys: [
                { key: "1234abcd-12ab-34cd-56ef-1234567890ab", spot: true },
                { key: "arn:aws:kms:us-east-1:123456789012:key/mrk-0123456789abcdef0123456789abcdef", spot: false },
            ],
        });
        await settled();
    });

    it("creates the account's Spot service-linked role, kept when the stack goes, before any node launches", () => {
        const role = named(mocks.resources, "aws:iam/serviceLinkedRole:ServiceLinkedRole", "kk-spot");
        expect(role.props.awsServiceName).to.equal("spot.amazonaws.com");
        expect(role.options.retainOnDelete).to.equal(true);
        expect(aws.nodeReady.map((r) => (r as unknown as { __name: string }).__name)).to.include("kk-spot");
    });

    it("grants the Spot role the key of volumes Spot launches, after the role exists, and only that key", () => {
        const grants = ofType(mocks.resources, "aws:kms/grant:Grant");
        expect(grants).to.have.length(1);
        expect(grants[0].props).to.deep.include({
            keyId: "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
            granteePrincipal: "arn:aws:iam::123456789012:role/aws-service-role/spot.amazonaws.com/AWSServiceRoleForEC2Spot",
        });
        expect(grants[0].props.operations).to.include.members([
            "Decrypt",
            "GenerateDataKeyWithoutPlaintext",
            "CreateGrant",
            "ReEncryptFrom",
        ]);
        expect(grants[0].options.dependsOn).to.include("kk-spot");
    });

    it("lets the controller use both keys through EC2", () => {
        const doc = JSON.parse(
            named(mocks.resources, "aws:iam/rolePolicy:RolePolicy", "kk-controller").props.policy as string,
        ) as PolicyDocument;
        expect(bySid(doc, "AllowEbsUseOfCustomerKeys").Resource).to.deep.equal([
            "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
            "arn:aws:kms:us-east-1:123456789012:key/mrk-0123456789abcdef0123456789abcdef",
        ]);
    });
});

describe("KarpenterAws builders (pure)", () => {
    it("interruptionQueuePolicy: only this cluster's interruption rules may send, over TLS", () => {
        const doc = interruptionQueuePolicy(CTX, "demo", "demo-karpenter");
        const send = bySid(doc, "AllowEventBridgeRulesToSend");
        expect(send.Resource).to.equal("arn:aws:sqs:eu-west-1:111122223333:demo-karpenter");
        const senders = (send.Condition as { ArnEquals: { "aws:SourceArn": string[] } }).ArnEquals["aws:SourceArn"];
        expect(senders).to.have.members(
            INTERRUPTION_EVENTS.map((e) => `arn:aws:events:eu-west-1:111122223333:rule/${interruptionRuleName("demo", e.key)}`),
        );
        expect(bySid(doc, "DenyNonTLS").Effect).to.equal("Deny");
    });

    it("controllerTrustPolicy: EKS Pod Identity for kube-system/karpenter of this cluster only", () => {
        const trust = controllerTrustPolicy(CTX, "demo");
        const statement = trust.Statement[0];
        expect(statement.Principal).to.deep.equal({ Service: "pods.eks.amazonaws.com" });
        expect((statement.Condition as { StringEquals: Record<string, string> }).StringEquals).to.deep.equal({
            "aws:RequestTag/eks-cluster-arn": "arn:aws:eks:eu-west-1:111122223333:cluster/demo",
            "aws:RequestTag/eks-cluster-name": "demo",
            "aws:RequestTag/kubernetes-namespace": "kube-system",
            "aws:RequestTag/kubernetes-service-account": "karpenter",
        });
    });

    it("spotKeyGrants: one grant per key a Spot pool uses, named by the key id", () => {
        const grants = spotKeyGrants([
            { key: "arn:aws:kms:eu-west-1:111122223333:key/1234abcd", spot: true },
            { key: "5678efgh", spot: false },
            { key: "9999aaaa", spot: true },
        ]);
        expect(grants).to.deep.equal([
            { key: "arn:aws:kms:eu-west-1:111122223333:key/1234abcd", suffix: "1234abcd" },
            { key: "9999aaaa", suffix: "9999aaaa" },
        ]);
    });
});
