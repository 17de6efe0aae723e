import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import { ComputeAddons } from "../../../components/addons";
import { clusterScopedPolicy } from "../../../components/addons/loadBalancerController";
import { LOAD_BALANCER_CONTROLLER_RELEASES } from "../../../components/addons/loadBalancerControllerReleases";
import type { PolicyDocument } from "../../../components/iam";
import { RecordedResource, RecordingMocks } from "../../../tools/render/offline";
import { NOT_API_OBJECTS, validateKubernetesObject } from "../../../tools/gate/schema";
import { ACCOUNT, json, named, ofType, settled, useMocks } from "../../mocks";
import { ADDONS } from "./fixtures";

async function expectValidKubernetesObjects(resources: readonly RecordedResource[]): Promise<void> {
    const objects = resources.filter((r) => r.type.startsWith("kubernetes:") && !NOT_API_OBJECTS.has(r.type));
    expect(objects.length).to.be.greaterThan(0);
    for (const o of objects) {
        await validateKubernetesObject(o.type, o.props);
    }
}

describe("ComputeAddons component", () => {
    let mocks: RecordingMocks;
    before(async () => {
        mocks = await useMocks("preview");
        const cluster = new pulumi.ComponentResource("test:index:Cluster", "cp");
        new ComputeAddons("addons", {
            clusterName: "acme",
            keyAdministrator: "arn:aws:iam::123456789012:role/deployer",
            region: "us-east-1",
            vpcId: "vpc-0123",
            kubernetesVersion: "1.34",
            coreDnsVersion: "v1.12.3-eksbuild.1",
            addons: ADDONS,
            provider: new k8s.Provider("k8s", { kubeconfig: "{}" }),
            cluster,
            hasSystemNodes: true,
            protect: true,
        });
        await settled();
    });

    it("installs the EBS CSI add-on pinned, its controller on system nodes, with the Pod Identity association on the add-on", () => {
        const addon = named(mocks.resources, "aws:eks/addon:Addon", "addons-ebs-csi-addon");
        expect(addon.props).to.include({ addonName: "aws-ebs-csi-driver", addonVersion: "v1.60.0-eksbuild.1", clusterName: "acme" });
        expect(addon.props.podIdentityAssociations).to.deep.equal([
            { roleArn: `arn:aws:iam::${ACCOUNT}:role/acme-ebs-csi-driver`, serviceAccount: "ebs-csi-controller-sa" },
        ]);
        const values = json(addon.props.configurationValues);
        expect(values.defaultStorageClass).to.deep.equal({ enabled: false });
        expect(values.controller).to.deep.include({ replicaCount: 2, nodeSelector: { "platform/role": "system" } });
        expect(addon.options.dependsOn).to.include.members(["addons-ebs-csi-iam-role", "addons-ebs-csi-iam-inline"]);
        expect(
            ofType(mocks.resources, "aws:eks/podIdentityAssociation:PodIdentityAssociation").map((a) => a.props.serviceAccount),
        ).to.not.include("ebs-csi-controller-sa");
    });

    it("gives the EBS CSI role AmazonEBSCSIDriverPolicy and the grants on the platform key, whose alias it names", () => {
        const role = named(mocks.resources, "aws:iam/role:Role", "addons-ebs-csi-iam-role");
        expect(role.props.name).to.equal("acme-ebs-csi-driver");
        const trust = json(role.props.assumeRolePolicy).Statement[0];
        expect(trust.Condition.StringEquals).to.deep.include({
            "aws:RequestTag/kubernetes-namespace": "kube-system",
            "aws:RequestTag/kubernetes-service-account": "ebs-csi-controller-sa",
        });
        const attachment = named(
            mocks.resources,
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
            "addons-ebs-csi-iam-aws-service-role-AmazonEBSCSIDriverPolicy",
        );
        expect(attachment.props).to.deep.equal({
            role: "acme-ebs-csi-driver",
            policyArn: "arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy",
        });
        const alias = named(mocks.resources, "aws:kms/alias:Alias", "addons-ebs-csi-key");
        const inline = json(named(mocks.resources, "aws:iam/rolePolicy:RolePolicy", "addons-ebs-csi-iam-inline").props.policy);
        for (const s of inline.Statement) {
            expect(s.Condition["ForAnyValue:StringEquals"]["kms:ResourceAliases"]).to.equal(alias.props.name);
        }
    });

    it("creates the volume key rotated, with a 30-day window, protected when the cluster is", () => {
        const key = named(mocks.resources, "aws:kms/key:Key", "addons-ebs-csi-key");
        expect(key.props).to.include({ enableKeyRotation: true, deletionWindowInDays: 30 });
        expect(key.options.protect).to.equal(true);
    });

    it("makes gp3 the only class it marks default, encrypted with the platform key, after the driver; leaves gp2 alone on 1.34", () => {
        const classes = ofType(mocks.resources, "kubernetes:storage.k8s.io/v1:StorageClass");
        expect(classes.map((c) => (c.props.metadata as { name: string }).name)).to.deep.equal(["gp3"]);
        expect((classes[0].props.parameters as Record<string, string>).kmsKeyId).to.be.a("string");
        expect(classes[0].options.dependsOn).to.include("addons-ebs-csi-addon");
        expect(ofType(mocks.resources, "kubernetes:storage.k8s.io/v1:StorageClassPatch")).to.deep.equal([]);
    });

    it("runs metrics-server as the pinned community add-on: 2 replicas, a PDB allowing one eviction, resources, system nodes", () => {
        const addon = named(mocks.resources, "aws:eks/addon:Addon", "addons-metrics-server");
        expect(addon.props).to.include({ addonName: "metrics-server", addonVersion: "v0.8.0-eksbuild.2" });
        expect(json(addon.props.configurationValues)).to.deep.equal({
            replicas: 2,
            podDisruptionBudget: { enabled: true, maxUnavailable: 1 },
            resources: ADDONS.metricsServer.resources,
            nodeSelector: { "platform/role": "system" },
            tolerations: [{ key: "CriticalAddonsOnly", operator: "Exists" }],
        });
    });

    it("installs the load balancer controller chart pinned, after its Pod Identity association and CoreDNS", () => {
        const release = named(mocks.resources, "kubernetes:helm.sh/v3:Release", "addons-load-balancer-controller-release");
        expect(release.props).to.deep.include({
            chart: "aws-load-balancer-controller",
            version: ADDONS.loadBalancerController.chartVersion,
            namespace: "kube-system",
            repositoryOpts: { repo: "https://aws.github.io/eks-charts" },
        });
        expect(release.options.dependsOn).to.include.members([
            "addons-load-balancer-controller-iam-association",
            "addons-load-balancer-controller-iam-inline",
            "addons-coredns",
        ]);
        const association = named(
            mocks.resources,
            "aws:eks/podIdentityAssociation:PodIdentityAssociation",
            "addons-load-balancer-controller-iam-association",
        );
        expect(association.props).to.deep.equal({
            clusterName: "acme",
            namespace: "kube-system",
            serviceAccount: "aws-load-balancer-controller",
            roleArn: `arn:aws:iam::${ACCOUNT}:role/acme-aws-load-balancer-controller`,
        });
        expect(association.options.dependsOn).to.include("cp");
    });

    it("gives the controller's role the upstream policy of its release, statement for statement, confined to this cluster", () => {
        const inline = named(mocks.resources, "aws:iam/rolePolicy:RolePolicy", "addons-load-balancer-controller-iam-inline");
        expect(inline.props.role).to.equal("acme-aws-load-balancer-controller");
        const upstream = LOAD_BALANCER_CONTROLLER_RELEASES[ADDONS.loadBalancerController.chartVersion].policy;
        const doc = json(inline.props.policy) as PolicyDocument;
        expect(doc).to.deep.equal(clusterScopedPolicy(upstream, "acme"));
        // Every action and resource of upstream, none added.
        expect(doc.Statement.map(({ Effect, Action, Resource }) => ({ Effect, Action, Resource }))).to.deep.equal(
            upstream.Statement.map(({ Effect, Action, Resource }) => ({ Effect, Action, Resource })),
        );
    });

    it("creates the alb IngressClass for the controller", () => {
        const ingressClass = named(
            mocks.resources,
            "kubernetes:networking.k8s.io/v1:IngressClass",
            "addons-load-balancer-controller-ingress-class",
        );
        expect(ingressClass.props).to.deep.include({ metadata: { name: "alb" }, spec: { controller: "ingress.k8s.aws/alb" } });
    });

    it("emits only Kubernetes objects that pass the official schemas", async () => {
        await expectValidKubernetesObjects(mocks.resources);
    });
});
