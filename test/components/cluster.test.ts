import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import { expect } from "chai";
import {
    apiAccessSources,
    Cluster,
    controlPlaneArgs,
    nodeIngressRules,
    nodeSecurityGroupTags,
    preComputeAddons,
    withoutCreatorAdminEntry,
} from "../../components/cluster";
import { RecordingMocks } from "../../tools/render/offline";
import { named, ofType, promiseOf, settled, useMocks } from "../mocks";

describe("Cluster component", () => {
    let mocks: RecordingMocks;
    let cluster: Cluster;
    before(async () => {
        mocks = await useMocks("up");
        cluster = new Cluster("cp", {
            clusterName: "demo",
            keyAdministrator: "arn:aws:iam::123456789012:role/deployer",
            version: "1.34",
            supportType: "EXTENDED",
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
        // The upgrade policy is the stack's choice, passed through (EKS UpgradePolicy.supportType).
        expect(eks.props.upgradePolicy).to.deep.equal({ supportType: "EXTENDED" });
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

describe("Cluster builders (pure)", () => {
    const endpoint = {
        publicAccess: true,
        publicAccessCidrs: ["203.0.113.0/24"],
        privateAccessCidrs: ["10.99.0.0/16", "10.98.0.0/16"],
        privateAccessSecurityGroupIds: ["sg-0123456789abcdef0"],
    };
    const args = {
        clusterName: "demo",
        keyAdministrator: "arn:aws:iam::123456789012:role/deployer",
        version: "1.34",
        supportType: "STANDARD" as const,
        vpcId: "vpc-1",
        privateSubnetIds: ["subnet-p1"],
        publicSubnetIds: ["subnet-u1"],
        endpoint,
        logTypes: ["audit"],
        logRetentionDays: 30,
        serviceCidr: "172.20.0.0/16",
        addons: { vpcCni: "v1.20.4-eksbuild.1", kubeProxy: "v1.34.0-eksbuild.2", podIdentityAgent: "v1.3.8-eksbuild.2" },
    };

    it("nodeIngressRules: nodes talk to each other, the control plane reaches kubelets and webhooks, nodes reach the API on 443 only", () => {
        const rules = Object.fromEntries(nodeIngressRules({ controlPlane: "sg-cp", nodes: "sg-nodes" }));
        expect(Object.keys(rules)).to.have.members([
            "nodes-from-nodes",
            "nodes-from-control-plane-443",
            "nodes-from-control-plane-kubelet",
            "nodes-from-control-plane-ephemeral",
            "control-plane-from-nodes",
        ]);
        expect(rules["control-plane-from-nodes"]).to.include({
            securityGroupId: "sg-cp",
            referencedSecurityGroupId: "sg-nodes",
            fromPort: 443,
            toPort: 443,
        });
        expect(rules["nodes-from-control-plane-kubelet"]).to.include({
            securityGroupId: "sg-nodes",
            referencedSecurityGroupId: "sg-cp",
            fromPort: 10250,
            toPort: 10250,
        });
        expect(rules["nodes-from-nodes"]).to.include({
            securityGroupId: "sg-nodes",
            referencedSecurityGroupId: "sg-nodes",
            ipProtocol: "-1",
        });
        // No rule admits an address range: every source is one of the two groups.
        for (const rule of Object.values(rules)) {
            expect(rule).to.not.have.property("cidrIpv4");
        }
    });

    it("apiAccessSources: one 443 source per CIDR and group, keyed by the source, so removing one renames no other", () => {
        const all = apiAccessSources(endpoint);
        expect(all.map((s) => s.key)).to.deep.equal(["10-99-0-0-16", "10-98-0-0-16", "sg-0123456789abcdef0"]);
        expect(all[2].from).to.deep.equal({ referencedSecurityGroupId: "sg-0123456789abcdef0" });
        const fewer = apiAccessSources({ ...endpoint, privateAccessCidrs: ["10.98.0.0/16"] });
        expect(fewer.map((s) => s.key)).to.deep.equal(["10-98-0-0-16", "sg-0123456789abcdef0"]);
        expect(fewer[0].from).to.deep.equal({ cidrIpv4: "10.98.0.0/16" });
    });

    it("controlPlaneArgs: private endpoint always on, public CIDRs only with a public endpoint, deletion protection follows protect", () => {
        const deps = {
            controlPlaneSecurityGroup: {} as aws.ec2.SecurityGroup,
            serviceRole: {} as aws.iam.Role,
            kmsKeyArn: "arn:aws:kms:us-east-1:111122223333:key/k",
        };
        const open = controlPlaneArgs(args, deps);
        expect(open).to.include({ name: "demo", endpointPrivateAccess: true, endpointPublicAccess: true, deletionProtection: false });
        expect(open.publicAccessCidrs).to.deep.equal(["203.0.113.0/24"]);
        expect(open).to.include({ authenticationMode: "API", bootstrapSelfManagedAddons: false, skipDefaultNodeGroup: true });
        expect(open.encryptionConfigKeyArn).to.equal(deps.kmsKeyArn);
        const closed = controlPlaneArgs({ ...args, endpoint: { ...endpoint, publicAccess: false }, protect: true }, deps);
        expect(closed).to.include({ endpointPublicAccess: false, deletionProtection: true });
        expect(closed.publicAccessCidrs).to.equal(undefined);
        // The cluster carries the stack's tag: the deploy role may create a cluster only with it.
        expect(open.clusterTags).to.deep.equal({ "platform/cluster": "demo" });
    });

    it("controlPlaneArgs: an Auto Mode cluster gets the private subnets only (its built-in pools launch into the cluster's subnets)", () => {
        const deps = {
            controlPlaneSecurityGroup: {} as aws.ec2.SecurityGroup,
            serviceRole: {} as aws.iam.Role,
            kmsKeyArn: "arn:aws:kms:us-east-1:111122223333:key/k",
        };
        expect(controlPlaneArgs(args, deps).publicSubnetIds).to.deep.equal(args.publicSubnetIds);
        const auto = controlPlaneArgs(args, { ...deps, compute: { autoMode: { enabled: true } } });
        expect(auto.publicSubnetIds).to.equal(undefined);
        expect(auto.privateSubnetIds).to.deep.equal(args.privateSubnetIds);
        expect(controlPlaneArgs(args, { ...deps, compute: { autoMode: { enabled: false } } }).publicSubnetIds).to.deep.equal(
            args.publicSubnetIds,
        );
    });

    it("preComputeAddons: the CNI (with its configuration), kube-proxy and the Pod Identity agent, at their pinned versions", () => {
        const addons = preComputeAddons({ ...args, vpcCniConfiguration: { enableNetworkPolicy: "true" } });
        expect(addons.map((a) => [a.key, a.addonName, a.addonVersion])).to.deep.equal([
            ["vpc-cni", "vpc-cni", "v1.20.4-eksbuild.1"],
            ["kube-proxy", "kube-proxy", "v1.34.0-eksbuild.2"],
            ["pod-identity-agent", "eks-pod-identity-agent", "v1.3.8-eksbuild.2"],
        ]);
        expect(addons[0].configurationValues).to.deep.equal({ enableNetworkPolicy: "true" });
        expect(addons[1].configurationValues).to.equal(undefined);
    });

    it("nodeSecurityGroupTags: the cluster tag and Karpenter's discovery tag", () => {
        expect(nodeSecurityGroupTags("demo")).to.deep.equal({
            Name: "demo-nodes",
            "kubernetes.io/cluster/demo": "owned",
            "karpenter.sh/discovery": "demo",
        });
    });
});
