import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import { expect } from "chai";
import { Cluster } from "../components/cluster";
import { RecordingMocks } from "../tools/offline";
import { named, ofType, promiseOf, settled, useMocks } from "./mocks";

describe("Cluster component", () => {
    let mocks: RecordingMocks;
    let cluster: Cluster;
    before(async () => {
        mocks = await useMocks("up");
        cluster = new Cluster("cp", {
            clusterName: "demo",
            version: "1.34",
            vpcId: "vpc-1",
            privateSubnetIds: ["subnet-p1", "subnet-p2"],
            publicSubnetIds: ["subnet-u1", "subnet-u2"],
            endpoint: { publicAccess: false, publicAccessCidrs: [] },
            logTypes: ["api", "audit", "authenticator"],
            logRetentionDays: 90,
            serviceCidr: "172.20.0.0/16",
            addons: { vpcCni: "v1.20.4-eksbuild.1", kubeProxy: "v1.34.0-eksbuild.2", podIdentityAgent: "v1.3.8-eksbuild.2" },
            protect: true,
        });
        await settled();
    });

    it("creates the control plane from config: static name, pinned version, API auth, no default node group", () => {
        const eks = named(mocks.resources, "eks:index:Cluster", "cp-eks");
        expect(eks.props).to.include({
            name: "demo",
            version: "1.34",
            authenticationMode: "API",
            skipDefaultNodeGroup: true,
            endpointPrivateAccess: true,
            endpointPublicAccess: false,
            createOidcProvider: true,
            kubernetesServiceIpAddressRange: "172.20.0.0/16",
            bootstrapSelfManagedAddons: false,
            deletionProtection: true,
        });
        expect(eks.props.privateSubnetIds).to.deep.equal(["subnet-p1", "subnet-p2"]);
        expect(eks.props.enabledClusterLogTypes).to.deep.equal(["api", "audit", "authenticator"]);
        expect(eks.props).to.not.have.property("publicAccessCidrs");
        expect(eks.options.protect).to.equal(true);
    });

    it("encrypts secrets with its own rotating KMS key, protected like the cluster", () => {
        const key = named(mocks.resources, "aws:kms/key:Key", "cp-secrets");
        expect(key.props.enableKeyRotation).to.equal(true);
        expect(key.options.protect).to.equal(true);
        const eks = named(mocks.resources, "eks:index:Cluster", "cp-eks");
        expect(eks.props.encryptionConfigKeyArn).to.match(/^arn:aws:mock:.*key\/cp-secrets$/);
    });

    it("creates the log group EKS writes to, with a retention, before the cluster", () => {
        const group = named(mocks.resources, "aws:cloudwatch/logGroup:LogGroup", "cp-logs");
        expect(group.props).to.include({ name: "/aws/eks/demo/cluster", retentionInDays: 90 });
        expect(named(mocks.resources, "eks:index:Cluster", "cp-eks").options.dependsOn).to.include("cp-logs");
    });

    it("tags exactly one security group for Karpenter discovery", () => {
        const tagged = ofType(mocks.resources, "aws:ec2/securityGroup:SecurityGroup").filter(
            (sg) => (sg.props.tags as Record<string, string> | undefined)?.["karpenter.sh/discovery"] === "demo",
        );
        expect(tagged.map((t) => t.name)).to.deep.equal(["cp-nodes"]);
    });

    it("lets nodes reach the API server and the control plane reach kubelets", () => {
        const rules = ofType(mocks.resources, "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule");
        const toControlPlane = rules.find((r) => r.name === "cp-control-plane-from-nodes");
        expect(toControlPlane?.props).to.include({ ipProtocol: "tcp", fromPort: 443, toPort: 443 });
        expect(rules.find((r) => r.name === "cp-nodes-from-control-plane-kubelet")?.props).to.include({ fromPort: 10250, toPort: 10250 });
    });

    it("installs the pre-compute add-ons at pinned versions after the control plane", () => {
        const addons = ofType(mocks.resources, "aws:eks/addon:Addon");
        expect(addons.map((a) => [a.props.addonName, a.props.addonVersion])).to.have.deep.members([
            ["vpc-cni", "v1.20.4-eksbuild.1"],
            ["kube-proxy", "v1.34.0-eksbuild.2"],
            ["eks-pod-identity-agent", "v1.3.8-eksbuild.2"],
        ]);
        for (const a of addons) {
            expect(a.props.clusterName).to.equal("demo");
            expect(a.options.dependsOn).to.include("cp-eks");
        }
    });

    it("gives the control plane a role with only the EKS cluster policy", () => {
        const attachments = ofType(mocks.resources, "aws:iam/rolePolicyAttachment:RolePolicyAttachment");
        expect(attachments.map((a) => a.props.policyArn)).to.deep.equal([aws.iam.ManagedPolicy.AmazonEKSClusterPolicy]);
    });

    it("exports the kubeconfig as a secret and the endpoint from the cluster", async () => {
        expect(await pulumi.isSecret(cluster.kubeconfig)).to.equal(true);
        expect(await promiseOf(cluster.endpoint)).to.match(/^https:\/\/.*\.eks\.amazonaws\.com$/);
        expect(await promiseOf(cluster.eksSecurityGroupId)).to.match(/^sg-/);
    });
});
