import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import { expect } from "chai";
import { Cluster, withoutCreatorAdminEntry } from "../components/cluster";
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
            endpoint: {
                publicAccess: false,
                publicAccessCidrs: [],
                privateAccessCidrs: ["10.99.0.0/16"],
                privateAccessSecurityGroupIds: ["sg-0123456789abcdef0"],
            },
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

    it("admits the deployer's networks and security groups to the private endpoint on 443, and nothing else new", () => {
        const fromDeployer = ofType(mocks.resources, "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule").filter(
            (r) => r.props.securityGroupId === "cp-control-plane-id" && r.props.referencedSecurityGroupId !== "cp-nodes-id",
        );
        expect(fromDeployer.map((r) => [r.name, r.props.cidrIpv4 ?? r.props.referencedSecurityGroupId])).to.have.deep.members([
            ["cp-control-plane-from-10-99-0-0-16", "10.99.0.0/16"],
            ["cp-control-plane-from-sg-0123456789abcdef0", "sg-0123456789abcdef0"],
        ]);
        for (const rule of fromDeployer) {
            expect(rule.props, rule.name).to.include({ ipProtocol: "tcp", fromPort: 443, toPort: 443 });
        }
        expect(cluster.apiAccessRules).to.have.length(2);
    });

    it("asks for no cluster-creator admin entry outside Pulumi's state", async () => {
        const transforms = mocks.transforms.get("eks:index:Cluster::cp-eks") ?? [];
        expect(transforms).to.include(withoutCreatorAdminEntry);
        // What pulumi-eks 4.3 registers for its child cluster (cluster.ts of pulumi-eks):
        const child = {
            custom: true,
            type: "aws:eks/cluster:Cluster",
            name: "cp-eks-eksCluster",
            props: { name: "demo", accessConfig: { authenticationMode: "API", bootstrapClusterCreatorAdminPermissions: true } },
            opts: {},
        };
        const result = await withoutCreatorAdminEntry(child);
        expect(result?.props.accessConfig).to.deep.equal({ authenticationMode: "API", bootstrapClusterCreatorAdminPermissions: false });
        expect(result?.props.name).to.equal("demo");
        expect(await withoutCreatorAdminEntry({ ...child, type: "aws:eks/addon:Addon" })).to.equal(undefined);
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
