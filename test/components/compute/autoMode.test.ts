/**
 * EKS Auto Mode in the program (components/compute/autoMode.ts, through the Cluster's and the add-ons' `compute`):
 * the cluster's compute, storage and load balancing switched on together, its roles, the custom
 * NodeClasses and NodePools, and none of the components Auto Mode runs itself.
 */
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import { PLATFORM_CLUSTER_TAG } from "eks-platform-kernel";
import { ComputeAddons, addonPlacement } from "../../../components/addons";
import { Cluster } from "../../../components/cluster";
import { computeChoice } from "../../../components/compute";
import {
    AUTO_MODE_CLUSTER_POLICIES,
    AutoModeAddons,
    autoModeComputeConfig,
    autoModeIngressClass,
    AutoModeNodePools,
    autoModeNodeIngressStatement,
    autoModeStorageClass,
    autoModeTagStatements,
    autoVolumeKeyAlias,
    autoNodeRoleName,
    createAutoNodeRole,
    networkPolicyControllerConfigMap,
    renderAutoNodeClass,
    renderAutoNodePool,
} from "../../../components/compute/autoMode";
import { autoModeSchema, type EnabledAutoModeConfig } from "../../../components/compute/autoMode.schema";
import type { PolicyDocument } from "../../../components/iam";
import { authorizationProblems } from "../../../tools/roles/authorizationData";
import { RecordingMocks, runInStack } from "../../../tools/render/offline";
import { ADDONS } from "../addons/fixtures";
import { named, ofType, promiseOf, settled, useMocks } from "../../mocks";

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

/** What an AutoModeAddons needs besides its provider: the account's EBS key here (the key's own cases below). */
const KEYS = { clusterName: "demo", keyAdministrator: "arn:aws:iam::123456789012:role/deployer" };

/** The compute choice of a stack on Auto Mode with `builtInPools`, with or without an enabled node group beside. */
const choiceOf = (builtInPools: string[], nodeGroups: boolean) =>
    computeChoice({
        clusterName: "demo",
        region: "us-east-1",
        nodeGroups: nodeGroups ? { g: { enabled: true } } : {},
        autoMode: config(builtInPools),
    });

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
    compute: autoMode ? choiceOf(autoMode.builtInPools, autoMode.nodeGroups) : undefined,
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
        // Without tags of its own, a NodeClass carries none (Auto Mode's own only), and its network policy as configured.
        const bare = autoModeSchema.parse({
            enabled: true,
            nodeClasses: { bare: { networkPolicy: "DefaultDeny" } },
            nodePools: {},
        }) as EnabledAutoModeConfig;
        expect(
            renderAutoNodeClass("bare", bare.nodeClasses.bare, { clusterName: "demo", nodeRoleName: "demo-auto-node" }).spec,
        ).to.deep.equal({
            role: "demo-auto-node",
            subnetSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
            securityGroupSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
            ephemeralStorage: { size: "80Gi", iops: 3000, throughput: 125 },
            networkPolicy: "DefaultDeny",
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

    it("tells the cluster and the add-ons of a stack's Auto Mode what it runs itself: CoreDNS and the cluster's add-ons only without a node group beside", () => {
        const groups = (...enabled: boolean[]) => Object.fromEntries(enabled.map((e, i) => [`g${i}`, { enabled: e }]));
        expect(
            computeChoice({ clusterName: "demo", region: "us-east-1", autoMode: { enabled: false }, nodeGroups: groups(true) }),
        ).to.equal(undefined);
        const beside = computeChoice({
            clusterName: "demo",
            region: "us-east-1",
            autoMode: config(["system"]),
            nodeGroups: groups(false, true),
        });
        expect([beside?.mode, beside?.nodeGroups, [...(beside?.runs ?? [])].sort()]).to.deep.equal([
            "autoMode",
            true,
            ["ebsCsiDriver", "loadBalancerController"],
        ]);
        const alone = computeChoice({ clusterName: "demo", region: "us-east-1", autoMode: config([]), nodeGroups: groups(false) });
        expect([alone?.nodeGroups, [...(alone?.runs ?? [])].sort()]).to.deep.equal([
            false,
            ["clusterAddons", "coreDns", "ebsCsiDriver", "loadBalancerController"],
        ]);
    });

    it("places the add-ons on the built-in system pool only where no system node group exists", () => {
        expect(addonPlacement(false, choiceOf(["system"], false))).to.deep.equal({
            nodeSelector: { "karpenter.sh/nodepool": "system" },
            tolerations: [{ key: "CriticalAddonsOnly", operator: "Exists" }],
        });
        expect(addonPlacement(true, choiceOf(["system"], true)).nodeSelector).to.deep.equal({
            "platform/role": "system",
        });
        expect(addonPlacement(false, choiceOf(["general-purpose"], false)).nodeSelector).to.deep.equal({});
        expect(addonPlacement(false, undefined).nodeSelector).to.deep.equal({});
    });

    it("renders the default gp3 StorageClass on Auto Mode's provisioner: encrypted, on Auto Mode's nodes only, bound where the pod lands, expandable", () => {
        const gp3 = (reclaimPolicy: string) => ({
            metadata: { name: "gp3", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
            provisioner: "ebs.csi.eks.amazonaws.com",
            parameters: { type: "gp3", encrypted: "true" },
            // A node group beside Auto Mode runs no Auto Mode driver: its volumes could never attach there.
            allowedTopologies: [{ matchLabelExpressions: [{ key: "eks.amazonaws.com/compute-type", values: ["auto"] }] }],
            reclaimPolicy,
            volumeBindingMode: "WaitForFirstConsumer",
            allowVolumeExpansion: true,
        });
        expect(autoModeStorageClass()).to.deep.equal(gp3("Delete"));
        expect(autoModeStorageClass({ reclaimPolicy: "Retain" })).to.deep.equal(gp3("Retain"));
    });

    it("renders the alb IngressClass on Auto Mode's controller, with its IngressClassParams under eks.amazonaws.com", () => {
        expect(autoModeIngressClass()).to.deep.equal({
            params: { apiVersion: "eks.amazonaws.com/v1", kind: "IngressClassParams", metadata: { name: "alb" }, spec: {} },
            ingressClass: {
                metadata: { name: "alb" },
                spec: {
                    controller: "eks.amazonaws.com/alb",
                    parameters: { apiGroup: "eks.amazonaws.com", kind: "IngressClassParams", name: "alb" },
                },
            },
        });
    });

    it("renders the ConfigMap that turns on Auto Mode's network policy controller in kube-system", () => {
        expect(networkPolicyControllerConfigMap()).to.deep.equal({
            metadata: { name: "amazon-vpc-cni", namespace: "kube-system" },
            data: { "enable-network-policy-controller": "true" },
        });
    });
});

describe("EKS Auto Mode: the Cluster", () => {
    let mocks: RecordingMocks;
    // beforeEach, not before: Stryker's per-test coverage credits what a `before` hook runs to the
    // test that ran last, so the program's objects would be checked by none of the tests below.
    beforeEach(async () => {
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

    it("keeps its parts of the control plane under the Cluster, where their URNs have always been", () => {
        for (const policy of AUTO_MODE_CLUSTER_POLICIES) {
            expect(
                named(mocks.resources, "aws:iam/rolePolicyAttachment:RolePolicyAttachment", `auto-control-plane-${policy}`).options.parent,
            ).to.equal("auto");
        }
        expect(named(mocks.resources, "aws:iam/role:Role", "auto-auto-node").options.parent).to.equal("auto");
        expect(named(mocks.resources, "aws:iam/rolePolicy:RolePolicy", "auto-control-plane-auto-volume-key").options.parent).to.equal(
            "auto",
        );
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
    let nodeRole: ReturnType<typeof createAutoNodeRole>;
    let nodeRoleArn: string;
    // beforeEach, not before: Stryker's per-test coverage credits what a `before` hook runs to the
    // test that ran last, so the program's objects would be checked by none of the tests below.
    beforeEach(async () => {
        mocks = await useMocks("preview");
        const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
        const cluster = new pulumi.ComponentResource("test:index:Cluster", "cp");
        new AutoModeNodePools("with-builtin", { clusterName: "demo", config: config(["system"]), cluster, provider });
        new AutoModeNodePools("custom-only", { clusterName: "demo", config: config([]), cluster, provider });
        new AutoModeAddons("own-cni", { provider, networkPolicyController: false, ...KEYS });
        new AutoModeAddons("no-cni", { provider, ...KEYS });
        const parent = new pulumi.ComponentResource("test:index:Parent", "role-parent");
        nodeRole = createAutoNodeRole("direct", "demo", parent);
        nodeRoleArn = await promiseOf(nodeRole.arn);
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
            compute: choiceOf(["system"], false),
        });
        await settled();
    });

    it("builds, through the stack's choice, its classes under the add-ons and its pools at the root, as `auto-mode`", async () => {
        const choice = choiceOf([], true);
        const provider = new k8s.Provider("k8s-choice", { kubeconfig: "{}" });
        const parent = new pulumi.ComponentResource("test:index:Addons", "via");
        const cp = new pulumi.ComponentResource("test:index:Cluster", "cp-choice");
        const addons = choice?.withAddons({
            name: "via",
            clusterName: "demo",
            provider,
            keyAdministrator: "arn:aws:iam::1:role/d",
            parent,
        });
        const pools = choice?.pools({ clusterName: "demo", cluster: cp, provider });
        await settled();
        expect(addons).to.be.instanceOf(AutoModeAddons);
        expect(named(mocks.resources, "platform:addons:AutoModeAddons", "via-auto-mode").options.parent).to.equal("via");
        // A node group beside: the VPC CNI add-on owns the network policy ConfigMap.
        expect(mocks.resources.filter((r) => r.name === "via-auto-mode-network-policy")).to.deep.equal([]);
        expect(pools).to.be.instanceOf(AutoModeNodePools);
        expect(named(mocks.resources, "platform:autoMode:AutoModeNodePools", "auto-mode").options.parent).to.equal(undefined);
        expect(named(mocks.resources, "kubernetes:karpenter.sh/v1:NodePool", "auto-mode-pool-general").props).to.be.an("object");
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

    it("gives the node entry its type, its tag and a replacement that deletes first (an entry per principal), after the control plane", () => {
        const entry = named(mocks.resources, "aws:eks/accessEntry:AccessEntry", "custom-only-node-entry");
        expect(entry.props).to.deep.equal({
            clusterName: "demo",
            principalArn: "arn:aws:iam::123456789012:role/demo-auto-node",
            type: "EC2",
            tags: { "platform/access-scope": "auto-mode-nodes" },
        });
        expect(entry.options).to.deep.include({ deleteBeforeReplace: true, dependsOn: ["cp"] });
        const association = named(
            mocks.resources,
            "aws:eks/accessPolicyAssociation:AccessPolicyAssociation",
            "custom-only-node-entry-policy",
        );
        expect(association.props).to.deep.equal({
            clusterName: "demo",
            principalArn: "arn:aws:iam::123456789012:role/demo-auto-node",
            policyArn: "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy",
            accessScope: { type: "cluster" },
        });
        expect(association.options.deleteBeforeReplace).to.equal(true);
        expect(named(mocks.resources, "platform:autoMode:AutoModeNodePools", "custom-only").type).to.equal(
            "platform:autoMode:AutoModeNodePools",
        );
        for (const [type, child] of [
            ["aws:eks/accessEntry:AccessEntry", "custom-only-node-entry"],
            ["aws:eks/accessPolicyAssociation:AccessPolicyAssociation", "custom-only-node-entry-policy"],
            ["kubernetes:eks.amazonaws.com/v1:NodeClass", "custom-only-class-platform"],
            ["kubernetes:karpenter.sh/v1:NodePool", "custom-only-pool-general"],
        ]) {
            expect(named(mocks.resources, type, child).options.parent, child).to.equal("custom-only");
        }
        // With a built-in pool EKS creates the entry: the classes wait for nothing, the pools for their class.
        expect(
            named(mocks.resources, "kubernetes:eks.amazonaws.com/v1:NodeClass", "with-builtin-class-platform").options,
        ).to.not.have.property("dependsOn");
        expect(named(mocks.resources, "kubernetes:karpenter.sh/v1:NodePool", "custom-only-pool-general").options.dependsOn).to.deep.equal([
            "custom-only-class-platform",
        ]);
    });

    it("creates the node role by its static name, trusted by EC2, under the stack's boundary, with its two policies", () => {
        const role = named(mocks.resources, "aws:iam/role:Role", "direct-auto-node");
        expect(role.props).to.deep.include({
            name: "demo-auto-node",
            description: "EKS Auto Mode nodes of demo",
            permissionsBoundary: "arn:aws:iam::123456789012:policy/demo-boundary",
        });
        expect(JSON.parse(String(role.props.assumeRolePolicy))).to.deep.equal({
            Version: "2012-10-17",
            Statement: [{ Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" }],
        });
        expect(role.options.parent).to.equal("role-parent");
        const attachments = ofType(mocks.resources, "aws:iam/rolePolicyAttachment:RolePolicyAttachment").filter((a) =>
            a.name.startsWith("direct-auto-node-"),
        );
        expect(attachments.map((a) => [a.name, a.props.role, a.props.policyArn, a.options.parent])).to.have.deep.members([
            [
                "direct-auto-node-AmazonEKSWorkerNodeMinimalPolicy",
                "demo-auto-node",
                "arn:aws:iam::aws:policy/AmazonEKSWorkerNodeMinimalPolicy",
                "role-parent",
            ],
            [
                "direct-auto-node-AmazonEC2ContainerRegistryPullOnly",
                "demo-auto-node",
                "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
                "role-parent",
            ],
        ]);
        expect(nodeRole.attachments).to.have.length(2);
        // Known at preview, from the static name (the role's own ARN is not yet).
        expect(nodeRoleArn).to.equal("arn:aws:iam::123456789012:role/demo-auto-node");
    });

    it("creates the StorageClass, IngressClassParams and IngressClass as rendered, and the network policy ConfigMap only where no VPC CNI add-on owns it", () => {
        expect(named(mocks.resources, "kubernetes:storage.k8s.io/v1:StorageClass", "no-cni-gp3").props).to.deep.include({
            metadata: { name: "gp3", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
            parameters: { type: "gp3", encrypted: "true" },
            reclaimPolicy: "Delete",
            allowVolumeExpansion: true,
        });
        expect(named(mocks.resources, "kubernetes:eks.amazonaws.com/v1:IngressClassParams", "no-cni-ingress-params").props).to.deep.include(
            {
                apiVersion: "eks.amazonaws.com/v1",
                kind: "IngressClassParams",
                metadata: { name: "alb" },
            },
        );
        expect(named(mocks.resources, "kubernetes:core/v1:ConfigMap", "no-cni-network-policy").props).to.deep.include({
            metadata: { name: "amazon-vpc-cni", namespace: "kube-system" },
            data: { "enable-network-policy-controller": "true" },
        });
        expect(ofType(mocks.resources, "kubernetes:core/v1:ConfigMap").map((c) => c.name)).to.not.include("own-cni-network-policy");
        // Each under its component.
        expect(named(mocks.resources, "platform:addons:AutoModeAddons", "no-cni").type).to.equal("platform:addons:AutoModeAddons");
        for (const [type, child] of [
            ["kubernetes:storage.k8s.io/v1:StorageClass", "no-cni-gp3"],
            ["kubernetes:eks.amazonaws.com/v1:IngressClassParams", "no-cni-ingress-params"],
            ["kubernetes:networking.k8s.io/v1:IngressClass", "no-cni-ingress-class"],
            ["kubernetes:core/v1:ConfigMap", "no-cni-network-policy"],
        ]) {
            expect(named(mocks.resources, type, child).options.parent, child).to.equal("no-cni");
        }
        expect(
            named(mocks.resources, "kubernetes:networking.k8s.io/v1:IngressClass", "no-cni-ingress-class").options.dependsOn,
        ).to.deep.equal(["no-cni-ingress-params"]);
        expect(named(mocks.resources, "kubernetes:storage.k8s.io/v1:StorageClass", "own-cni-gp3").props.provisioner).to.equal(
            "ebs.csi.eks.amazonaws.com",
        );
    });
});

describe("EKS Auto Mode: the volume key", () => {
    const GIVEN = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
    const DEPLOYER = "arn:aws:iam::123456789012:role/deployer";
    const json = (text: unknown) => JSON.parse(String(text)) as { Statement: Record<string, any>[] };
    let mocks: RecordingMocks;
    // beforeEach, not before (see "pools and add-ons").
    beforeEach(async () => {
        mocks = await useMocks("preview");
        const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
        for (const [name, kmsKey] of [
            ["own", "platform"],
            ["given", GIVEN],
            ["account", "aws-managed"],
        ]) {
            const parent = new pulumi.ComponentResource("test:index:Parent", name);
            const role = new aws.iam.Role(`${name}-cp`, { name: `${name}-control-plane`, assumeRolePolicy: "{}" }, { parent });
            const autoMode = autoModeSchema.parse({ enabled: true, storageClass: { kmsKey } }) as EnabledAutoModeConfig;
            const choice = computeChoice({ clusterName: "demo", region: "us-east-1", nodeGroups: {}, autoMode });
            choice?.withCluster({ name, clusterName: "demo", role, parent });
            choice?.withAddons({ name, clusterName: "demo", provider, keyAdministrator: DEPLOYER, protect: true, parent });
        }
        // A stack that does not protect its cluster (dev) leaves its key unprotected too.
        new AutoModeAddons("loose", {
            provider,
            clusterName: "demo",
            keyAdministrator: DEPLOYER,
            storageClass: { kmsKey: "platform", reclaimPolicy: "Retain" },
        });
        await settled();
    });

    it("defaults to the platform's own key, and takes the account's key or another by ARN", () => {
        expect(autoModeSchema.parse({ enabled: true })).to.deep.include({ storageClass: { kmsKey: "platform", reclaimPolicy: "Delete" } });
        expect(autoModeSchema.safeParse({ enabled: true, storageClass: { kmsKey: "alias/mine" } }).success).to.equal(false);
    });

    it("creates the platform's key rotated, with a 30-day window, tagged for the deploy role, protected, under an alias of its own", () => {
        const key = named(mocks.resources, "aws:kms/key:Key", "own-auto-mode-key");
        expect(key.props).to.include({ enableKeyRotation: true, deletionWindowInDays: 30 });
        expect(key.props.tags).to.deep.equal({ [PLATFORM_CLUSTER_TAG]: "demo" });
        expect(key.options.protect).to.equal(true);
        expect(named(mocks.resources, "aws:kms/key:Key", "loose-key").options.protect ?? false).to.equal(false);
        expect(key.props.description).to.equal("Encryption of EBS volumes of EKS Auto Mode cluster demo");
        const admin = json(key.props.policy).Statement.find((st) => st.Principal?.AWS === DEPLOYER);
        expect(admin, "the deploy role administers the key").to.not.equal(undefined);
        // Not the EBS CSI driver's alias: a stack switching to Auto Mode holds both keys a while.
        const alias = named(mocks.resources, "aws:kms/alias:Alias", "own-auto-mode-key");
        expect(alias.props.name).to.equal(autoVolumeKeyAlias("demo"));
        expect(alias.options.parent).to.equal("own-auto-mode");
        expect(autoVolumeKeyAlias("demo")).to.equal("alias/eks/demo-auto-ebs");
        expect(ofType(mocks.resources, "aws:kms/key:Key").map((k) => k.name)).to.have.members(["own-auto-mode-key", "loose-key"]);
    });

    it("encrypts the StorageClass with the key in use, and replaces it deleting first (same name)", () => {
        const sc = (name: string) => named(mocks.resources, "kubernetes:storage.k8s.io/v1:StorageClass", `${name}-auto-mode-gp3`);
        expect((sc("own").props.parameters as Record<string, string>).kmsKeyId).to.be.a("string");
        expect((sc("given").props.parameters as Record<string, string>).kmsKeyId).to.equal(GIVEN);
        expect(sc("account").props.parameters).to.not.have.property("kmsKeyId");
        expect(named(mocks.resources, "kubernetes:storage.k8s.io/v1:StorageClass", "loose-gp3").props.reclaimPolicy).to.equal("Retain");
        for (const name of ["own", "given", "account"]) {
            expect(sc(name).options.deleteBeforeReplace, name).to.equal(true);
        }
    });

    it("lets the cluster role use the key as Auto Mode's driver does: grants for AWS resources only, the data-key operations, on that key alone", () => {
        const inline = (name: string) =>
            ofType(mocks.resources, "aws:iam/rolePolicy:RolePolicy").find((p) => p.name === `${name}-control-plane-auto-volume-key`);
        expect(JSON.parse(String(inline("own")?.props.policy))).to.have.property("Version", "2012-10-17");
        const own = json(inline("own")?.props.policy).Statement;
        expect(inline("own")?.props.role).to.equal("own-control-plane");
        for (const st of own) {
            expect(st.Resource).to.equal("arn:aws:kms:us-east-1:123456789012:key/*");
            expect(st.Condition["ForAnyValue:StringEquals"]).to.deep.equal({ "kms:ResourceAliases": "alias/eks/demo-auto-ebs" });
        }
        const grants = own.find((st) => (st.Action as string[]).includes("kms:CreateGrant"));
        expect(grants?.Condition.Bool).to.deep.equal({ "kms:GrantIsForAWSResource": "true" });
        expect(own.flatMap((st) => st.Action as string[])).to.include.members([
            "kms:Encrypt",
            "kms:Decrypt",
            "kms:GenerateDataKey*",
            "kms:DescribeKey",
        ]);
        expect(json(inline("given")?.props.policy).Statement.map((st) => st.Resource)).to.deep.equal([GIVEN, GIVEN]);
        expect(inline("account"), "the account's EBS key needs no grant").to.equal(undefined);
    });
});

describe("EKS Auto Mode: a NodeClass's user tags (EKS User Guide, Custom AWS tags for EKS Auto resources)", () => {
    const json = (text: unknown) => JSON.parse(String(text)) as PolicyDocument;
    const NODE_SG = "arn:aws:ec2:us-east-1:123456789012:security-group/sg-0nodes";
    let mocks: RecordingMocks;
    // beforeEach, not before (see "pools and add-ons").
    beforeEach(async () => {
        mocks = await useMocks("preview");
        for (const [name, tags] of [
            ["tagged", { team: "a" }],
            ["plain", {}],
        ] as const) {
            const parent = new pulumi.ComponentResource("test:index:Parent", name);
            const role = new aws.iam.Role(`${name}-cp`, { name: `${name}-control-plane`, assumeRolePolicy: "{}" }, { parent });
            const autoMode = autoModeSchema.parse({ enabled: true, nodeClasses: { platform: { tags } } }) as EnabledAutoModeConfig;
            computeChoice({ clusterName: "demo", region: "us-east-1", nodeGroups: {}, autoMode })?.withCluster({
                name,
                clusterName: "demo",
                role,
                ...(name === "tagged" ? { nodeSecurityGroupArn: NODE_SG } : {}),
                parent,
            });
        }
        await settled();
    });

    it("gives the cluster role the documented tagging statements only where a NodeClass sets tags, scoped to the cluster's own tag", () => {
        const inline = (name: string) =>
            ofType(mocks.resources, "aws:iam/rolePolicy:RolePolicy").find((p) => p.name === `${name}-control-plane-auto-tags`);
        expect(inline("plain"), "no user tags, no statement").to.equal(undefined);
        expect(inline("tagged")?.props.role).to.equal("tagged-control-plane");
        const doc = json(inline("tagged")?.props.policy);
        expect(doc.Statement.map((st) => st.Sid)).to.deep.equal(["Compute", "Storage", "Networking"]);
        for (const st of doc.Statement) {
            expect(st.Condition?.StringEquals, st.Sid).to.deep.equal({ "aws:RequestTag/eks:eks-cluster-name": "demo" });
        }
        expect(doc.Statement[0].Action).to.include.members(["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"]);
        expect(doc.Statement[1].Resource).to.deep.equal([
            "arn:aws:ec2:us-east-1:123456789012:volume/*",
            "arn:aws:ec2:us-east-1::snapshot/*",
        ]);
    });

    it("lets the cluster role open the nodes' own security group to Auto Mode's load balancers, that group alone", () => {
        const inline = (name: string) =>
            ofType(mocks.resources, "aws:iam/rolePolicy:RolePolicy").find((p) => p.name === `${name}-control-plane-auto-node-ingress`);
        expect(inline("plain"), "no node group given, no statement").to.equal(undefined);
        expect(json(inline("tagged")?.props.policy).Statement).to.deep.equal([autoModeNodeIngressStatement(NODE_SG)]);
        expect(autoModeNodeIngressStatement(NODE_SG)).to.deep.equal({
            Sid: "LoadBalancersToNodes",
            Effect: "Allow",
            Action: ["ec2:AuthorizeSecurityGroupIngress", "ec2:RevokeSecurityGroupIngress"],
            Resource: NODE_SG,
        });
    });

    it("writes statements AWS's authorization data accepts: actions, keys and resources", async () => {
        const doc: PolicyDocument = {
            Version: "2012-10-17",
            Statement: [
                ...autoModeTagStatements("demo", { partition: "aws", accountId: "123456789012", region: "us-east-1" }),
                autoModeNodeIngressStatement(NODE_SG),
            ],
        };
        expect(await authorizationProblems(doc)).to.deep.equal([]);
    });
});

describe("EKS Auto Mode: another partition", () => {
    /** The mock engine in AWS GovCloud (US). */
    class GovCloudMocks extends RecordingMocks {
        call(args: pulumi.runtime.MockCallArgs): Record<string, unknown> {
            return args.token === "aws:index/getPartition:getPartition"
                ? { partition: "aws-us-gov", dnsSuffix: "amazonaws.com", id: "aws-us-gov" }
                : super.call(args);
        }
    }
    let mocks: RecordingMocks;
    // beforeEach, not before: Stryker's per-test coverage credits what a `before` hook runs to the
    // test that ran last, so the program's objects would be checked by none of the tests below.
    beforeEach(async () => {
        mocks = new GovCloudMocks("preview", "us-gov-west-1");
        pulumi.runtime.setAllConfig({ "aws:region": "us-gov-west-1" });
        await pulumi.runtime.setMocks(mocks, "eks-platform", "test", true);
        await runInStack(mocks, () => undefined);
        const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
        const cluster = new pulumi.ComponentResource("test:index:Cluster", "cp");
        new AutoModeNodePools("gov", { clusterName: "demo", config: config([]), cluster, provider });
        const role = new aws.iam.Role("gov-cp", { name: "demo-control-plane", assumeRolePolicy: "{}" });
        choiceOf([], false)?.withCluster({ name: "gov", clusterName: "demo", role, parent: cluster });
        await settled();
    });

    it("attaches the cluster role's and the node role's managed policies in that partition", () => {
        const arns = ofType(mocks.resources, "aws:iam/rolePolicyAttachment:RolePolicyAttachment").map((a) => String(a.props.policyArn));
        expect(arns).to.have.length(AUTO_MODE_CLUSTER_POLICIES.length + 2);
        for (const arn of arns) {
            expect(arn).to.match(/^arn:aws-us-gov:iam::aws:policy\/[A-Za-z0-9]+$/);
        }
    });

    it("associates AmazonEKSAutoNodePolicy in the node role's partition", () => {
        const entry = named(mocks.resources, "aws:eks/accessEntry:AccessEntry", "gov-node-entry");
        expect(entry.props.principalArn).to.equal("arn:aws-us-gov:iam::123456789012:role/demo-auto-node");
        const association = named(mocks.resources, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation", "gov-node-entry-policy");
        expect(association.props.policyArn).to.equal("arn:aws-us-gov:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy");
    });
});
