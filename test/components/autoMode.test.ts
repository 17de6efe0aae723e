/**
 * EKS Auto Mode in the program (components/autoMode.ts, the Cluster's `autoMode`, the add-ons'):
 * the cluster's compute, storage and load balancing switched on together, its roles, the custom
 * NodeClasses and NodePools, and none of the components Auto Mode runs itself.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import { ComputeAddons, addonPlacement } from "../../components/addons";
import {
    AUTO_MODE_CLUSTER_POLICIES,
    autoModeComputeConfig,
    AutoModeNodePools,
    autoNodeRoleName,
    renderAutoNodeClass,
    renderAutoNodePool,
} from "../../components/autoMode";
import { Cluster } from "../../components/cluster";
import { autoModeSchema, type EnabledAutoModeConfig } from "../../components/config/autoMode";
import { RecordingMocks } from "../../tools/offline";
import { ADDONS } from "./addons/fixtures";
import { named, ofType, settled, useMocks } from "../mocks";

const config = (builtInPools: string[]): EnabledAutoModeConfig =>
    autoModeSchema.parse({
        enabled: true,
        builtInPools,
        nodeClasses: { platform: { tags: { team: "a" } } },
        nodePools: {
            general: {
                nodeClassRef: { name: "platform" },
                requirements: [{ key: "eks.amazonaws.com/instance-category", operator: "In", values: ["c", "m"] }],
                limits: { cpu: "16", memory: "64Gi" },
                disruption: { consolidateAfter: "1m" },
                expireAfter: "168h",
                terminationGracePeriod: "30m",
            },
        },
    }) as EnabledAutoModeConfig;

const clusterArgs = (autoMode?: { builtInPools: string[]; nodeGroups: boolean }) => ({
    clusterName: "demo",
    keyAdministrator: "arn:aws:iam::123456789012:role/deployer",
    version: "1.34",
    supportType: "STANDARD" as const,
    vpcId: "vpc-1",
    privateSubnetIds: ["subnet-p1"],
    publicSubnetIds: ["subnet-u1"],
    endpoint: { publicAccess: false, publicAccessCidrs: [], privateAccessCidrs: [], privateAccessSecurityGroupIds: [] },
    logTypes: ["audit"],
    logRetentionDays: 90,
    serviceCidr: "172.20.0.0/16",
    addons: { vpcCni: "v1.20.4-eksbuild.1", kubeProxy: "v1.34.0-eksbuild.2", podIdentityAgent: "v1.3.8-eksbuild.2" },
    autoMode,
});

describe("EKS Auto Mode: the rendered objects", () => {
    it("sends the node role with the built-in pools, and neither without one (AWS refuses one without the other)", () => {
        expect(autoModeComputeConfig(["system"], "arn:aws:iam::1:role/r")).to.deep.equal({
            enabled: true,
            nodePools: ["system"],
            nodeRoleArn: "arn:aws:iam::1:role/r",
        });
        expect(autoModeComputeConfig([], "arn:aws:iam::1:role/r")).to.deep.equal({ enabled: true, nodePools: [] });
    });

    it("renders a NodeClass on the node role, the private subnets and node group by discovery tag, and a pool on it", () => {
        const c = config(["system"]);
        expect(
            renderAutoNodeClass("platform", c.nodeClasses.platform, { clusterName: "demo", nodeRoleName: autoNodeRoleName("demo") }),
        ).to.deep.equal({
            apiVersion: "eks.amazonaws.com/v1",
            kind: "NodeClass",
            metadata: { name: "platform", labels: { "app.kubernetes.io/managed-by": "pulumi" } },
            spec: {
                role: "demo-auto-node",
                subnetSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
                securityGroupSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
                ephemeralStorage: { size: "80Gi", iops: 3000, throughput: 125 },
                networkPolicy: "DefaultAllow",
                tags: { team: "a" },
            },
        });
        const poolObject = renderAutoNodePool("general", c.nodePools.general);
        expect(poolObject.apiVersion).to.equal("karpenter.sh/v1");
        expect(poolObject.spec.template.spec.nodeClassRef).to.deep.equal({
            group: "eks.amazonaws.com",
            kind: "NodeClass",
            name: "platform",
        });
        expect(poolObject.spec.template.spec).to.include({ expireAfter: "168h", terminationGracePeriod: "30m" });
    });

    it("places the add-ons on the built-in system pool only where no system node group exists", () => {
        expect(addonPlacement(false, { coreDns: false, systemPool: true })).to.deep.equal({
            nodeSelector: { "karpenter.sh/nodepool": "system" },
            tolerations: [{ key: "CriticalAddonsOnly", operator: "Exists" }],
        });
        expect(addonPlacement(true, { coreDns: true, systemPool: true }).nodeSelector).to.deep.equal({ "platform/role": "system" });
        expect(addonPlacement(false, { coreDns: false, systemPool: false }).nodeSelector).to.deep.equal({});
    });
});

describe("EKS Auto Mode: the Cluster", () => {
    let mocks: RecordingMocks;
    before(async () => {
        mocks = await useMocks("preview");
        new Cluster("auto", clusterArgs({ builtInPools: ["system"], nodeGroups: false }));
        new Cluster("beside", clusterArgs({ builtInPools: [], nodeGroups: true }));
        new Cluster("standard", clusterArgs());
        await settled();
    });

    it("turns on compute, storage and load balancing through pulumi-eks, with the program's node role, never one of pulumi-eks's", () => {
        const eks = named(mocks.resources, "eks:index:Cluster", "auto-eks");
        expect(eks.props.autoMode).to.deep.equal({
            enabled: true,
            createNodeRole: false,
            computeConfig: { enabled: true, nodePools: ["system"], nodeRoleArn: "arn:aws:iam::123456789012:role/demo-auto-node" },
        });
        expect(named(mocks.resources, "eks:index:Cluster", "beside-eks").props.autoMode).to.deep.equal({
            enabled: true,
            createNodeRole: false,
            computeConfig: { enabled: true, nodePools: [] },
        });
        expect(named(mocks.resources, "eks:index:Cluster", "standard-eks").props).to.not.have.property("autoMode");
        // The cluster waits for its roles' policies: EKS checks them when it creates the cluster.
        const dependsOn = named(mocks.resources, "eks:index:Cluster", "auto-eks").options.dependsOn ?? [];
        expect(dependsOn).to.include.members([...AUTO_MODE_CLUSTER_POLICIES.map((p) => `auto-control-plane-${p}`), "auto-auto-node"]);
    });

    it("gives the cluster role Auto Mode's four policies and the node role its two, with the stack's boundary", () => {
        const attached = (role: string) =>
            ofType(mocks.resources, "aws:iam/rolePolicyAttachment:RolePolicyAttachment")
                .filter((a) => a.props.role === role)
                .map((a) => String(a.props.policyArn).split("/").pop());
        expect(attached("demo-control-plane")).to.include.members(["AmazonEKSClusterPolicy", ...AUTO_MODE_CLUSTER_POLICIES]);
        const nodeRole = ofType(mocks.resources, "aws:iam/role:Role").find((r) => r.name === "auto-auto-node");
        expect(nodeRole?.props).to.include({ name: "demo-auto-node" });
        expect(nodeRole?.props.permissionsBoundary).to.match(/:policy\/demo-boundary$/);
        expect(JSON.parse(String(nodeRole?.props.assumeRolePolicy)).Statement[0].Principal).to.deep.equal({ Service: "ec2.amazonaws.com" });
        expect(new Set(attached("demo-auto-node"))).to.deep.equal(
            new Set(["AmazonEKSWorkerNodeMinimalPolicy", "AmazonEC2ContainerRegistryPullOnly"]),
        );
        // A standard cluster gets none of it.
        expect(ofType(mocks.resources, "aws:iam/role:Role").filter((r) => r.name === "standard-auto-node")).to.deep.equal([]);
    });

    it("installs the VPC CNI, kube-proxy and Pod Identity add-ons only where node groups run beside Auto Mode", () => {
        const addons = (prefix: string) =>
            ofType(mocks.resources, "aws:eks/addon:Addon")
                .filter((a) => a.name.startsWith(`${prefix}-`))
                .map((a) => a.props.addonName);
        expect(addons("auto")).to.deep.equal([]);
        expect(addons("beside")).to.have.members(["vpc-cni", "kube-proxy", "eks-pod-identity-agent"]);
        expect(addons("standard")).to.have.members(["vpc-cni", "kube-proxy", "eks-pod-identity-agent"]);
    });
});

describe("EKS Auto Mode: pools and add-ons", () => {
    let mocks: RecordingMocks;
    before(async () => {
        mocks = await useMocks("preview");
        const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
        const cluster = new pulumi.ComponentResource("test:index:Cluster", "cp");
        new AutoModeNodePools("with-builtin", { clusterName: "demo", config: config(["system"]), cluster, provider });
        new AutoModeNodePools("custom-only", { clusterName: "demo", config: config([]), cluster, provider });
        new ComputeAddons("addons", {
            clusterName: "demo",
            region: "us-east-1",
            vpcId: "vpc-1",
            kubernetesVersion: "1.34",
            coreDnsVersion: "v1.12.3-eksbuild.1",
            addons: { metricsServer: ADDONS.metricsServer },
            provider,
            cluster,
            hasSystemNodes: false,
            keyAdministrator: "arn:aws:iam::123456789012:role/deployer",
            autoMode: { coreDns: false, systemPool: true },
        });
        await settled();
    });

    it("creates each NodeClass and NodePool once, each pool after its class", () => {
        const classes = mocks.resources.filter((r) => r.type === "kubernetes:eks.amazonaws.com/v1:NodeClass");
        expect(classes.map((c) => c.name).sort()).to.deep.equal(["custom-only-class-platform", "with-builtin-class-platform"]);
        const pool = named(mocks.resources, "kubernetes:karpenter.sh/v1:NodePool", "with-builtin-pool-general");
        expect(pool.options.dependsOn).to.deep.equal(["with-builtin-class-platform"]);
    });

    it("creates the node role's EC2 access entry with AmazonEKSAutoNodePolicy only without a built-in pool (EKS creates it otherwise)", () => {
        const entries = ofType(mocks.resources, "aws:eks/accessEntry:AccessEntry");
        expect(entries.map((e) => [e.name, e.props.type, e.props.principalArn])).to.deep.equal([
            ["custom-only-node-entry", "EC2", "arn:aws:iam::123456789012:role/demo-auto-node"],
        ]);
        const association = named(
            mocks.resources,
            "aws:eks/accessPolicyAssociation:AccessPolicyAssociation",
            "custom-only-node-entry-policy",
        );
        expect(association.props).to.deep.include({
            policyArn: "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy",
            accessScope: { type: "cluster" },
        });
        // The classes wait for the entry: a node launched before it cannot join.
        expect(
            named(mocks.resources, "kubernetes:eks.amazonaws.com/v1:NodeClass", "custom-only-class-platform").options.dependsOn,
        ).to.include.members(["custom-only-node-entry", "custom-only-node-entry-policy"]);
    });

    it("installs neither the EBS CSI driver, the LB controller nor CoreDNS, and creates the gp3 StorageClass and alb IngressClass for Auto Mode's", () => {
        const types = mocks.resources.map((r) => r.type);
        expect(ofType(mocks.resources, "aws:eks/addon:Addon").map((a) => a.props.addonName)).to.deep.equal(["metrics-server"]);
        expect(types).to.not.include("kubernetes:helm.sh/v3:Release");
        const sc = named(mocks.resources, "kubernetes:storage.k8s.io/v1:StorageClass", "addons-auto-mode-gp3");
        expect(sc.props).to.deep.include({ provisioner: "ebs.csi.eks.amazonaws.com", volumeBindingMode: "WaitForFirstConsumer" });
        const ic = named(mocks.resources, "kubernetes:networking.k8s.io/v1:IngressClass", "addons-auto-mode-ingress-class");
        expect((ic.props.spec as { controller: string }).controller).to.equal("eks.amazonaws.com/alb");
        expect(ic.options.dependsOn).to.deep.equal(["addons-auto-mode-ingress-params"]);
        // No VPC CNI add-on owns it here: the network policy controller's ConfigMap turns enforcement on.
        expect(named(mocks.resources, "kubernetes:core/v1:ConfigMap", "addons-auto-mode-network-policy").props.data).to.deep.equal({
            "enable-network-policy-controller": "true",
        });
        const metrics = named(mocks.resources, "aws:eks/addon:Addon", "addons-metrics-server");
        expect(JSON.parse(String(metrics.props.configurationValues)).nodeSelector).to.deep.equal({ "karpenter.sh/nodepool": "system" });
    });
});
