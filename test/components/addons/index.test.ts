import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import { ComputeAddons } from "../../../components/addons";
import { EbsCsiDriver, gp3StorageClass, legacyGp2IsDefault, volumeKeyStatements } from "../../../components/addons/ebsCsi";
import { loadBalancerControllerValues } from "../../../components/addons/loadBalancerController";
import { LOAD_BALANCER_CONTROLLER_RELEASES } from "../../../components/addons/loadBalancerControllerReleases";
import { systemPlacement } from "../../../components/nodegroups/scheduling";
import { addonsSchema } from "../../../components/config/addons";
import { InterfaceEndpoints } from "../../../components/endpoints";
import { allowsEverything, isPolicyArn, podIdentityRoleName, policyArnKey } from "../../../components/podIdentityPolicy";
import { ServiceAccountRoles } from "../../../components/serviceAccountRoles";
import { statementFindings } from "eks-platform-policies";
import { RecordedResource, RecordingMocks } from "../../../tools/offline";
import { NOT_API_OBJECTS, validateKubernetesObject } from "../../../tools/schema";
import { named, ofType, settled, useMocks } from "../../mocks";

/** A fixture `addons` section with every default applied, as the config module hands it on. */
const ADDONS = addonsSchema.parse({
    ebsCsiDriver: { version: "v1.60.0-eksbuild.1" },
    loadBalancerController: { chartVersion: Object.keys(LOAD_BALANCER_CONTROLLER_RELEASES)[0] },
    metricsServer: { version: "v0.8.0-eksbuild.2" },
});
const ACCOUNT = "123456789012"; // the mock engine's account
const json = (value: unknown) => JSON.parse(String(value)) as Record<string, any>;

async function expectValidKubernetesObjects(resources: readonly RecordedResource[]): Promise<void> {
    const objects = resources.filter((r) => r.type.startsWith("kubernetes:") && !NOT_API_OBJECTS.has(r.type));
    expect(objects.length).to.be.greaterThan(0);
    for (const o of objects) {
        await validateKubernetesObject(o.type, o.props);
    }
}

describe("Pod Identity documents and names (pure)", () => {
    it("names roles <cluster>-<purpose>, cut to IAM's 64 characters with a hash that keeps them apart", () => {
        expect(podIdentityRoleName("acme", "shop-reports")).to.equal("acme-shop-reports");
        const cluster = "c".repeat(50);
        const a = podIdentityRoleName(cluster, "payments-settlement-exporter");
        const b = podIdentityRoleName(cluster, "payments-settlement-importer");
        expect(a)
            .to.have.length(64)
            .and.match(/-[0-9a-f]{8}$/);
        expect(b).to.have.length(64);
        expect(a).to.not.equal(b);
        expect(podIdentityRoleName(cluster, "payments-settlement-exporter")).to.equal(a);
        expect(podIdentityRoleName("a", "b".repeat(62)))
            .to.have.length(64)
            .and.not.match(/-[0-9a-f]{8}$/);
    });

    it("keys managed policy ARNs by account, path and name", () => {
        expect(policyArnKey("arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy")).to.equal(
            "aws-service-role-AmazonEBSCSIDriverPolicy",
        );
        expect(policyArnKey("arn:aws:iam::111122223333:policy/teams/shop/reports-read")).to.equal("111122223333-teams-shop-reports-read");
        expect(isPolicyArn("arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess")).to.equal(true);
        expect(isPolicyArn("arn:aws:iam::111122223333:role/admin")).to.equal(false);
        expect(isPolicyArn("AmazonS3ReadOnlyAccess")).to.equal(false);
    });

    it("calls Allow of * or *:* on Resource * administrator access, and nothing narrower", () => {
        expect(allowsEverything({ Effect: "Allow", Action: "*", Resource: "*" })).to.equal(true);
        expect(allowsEverything({ Effect: "Allow", Action: ["s3:GetObject", "*:*"], Resource: ["arn:aws:s3:::b/*", "*"] })).to.equal(true);
        expect(allowsEverything({ Effect: "Deny", Action: "*", Resource: "*" })).to.equal(false);
        expect(allowsEverything({ Effect: "Allow", Action: "*", Resource: "arn:aws:s3:::b/*" })).to.equal(false);
        expect(allowsEverything({ Effect: "Allow", Action: "s3:*", Resource: "*" })).to.equal(false);
    });
});

describe("EBS CSI driver (pure)", () => {
    it("undoes EKS's gp2 default only on clusters created before Kubernetes 1.30", () => {
        expect(legacyGp2IsDefault("1.29")).to.equal(true);
        expect(legacyGp2IsDefault("1.30")).to.equal(false);
        expect(legacyGp2IsDefault("1.34")).to.equal(false);
    });

    it("grants the KMS operations AWS documents for a customer-managed key, grants only for AWS resources", () => {
        const [grants, use] = volumeKeyStatements({ kind: "arn", arn: "arn:aws:kms:us-east-1:111122223333:key/k-1" });
        expect(grants).to.deep.include({
            Action: ["kms:CreateGrant", "kms:ListGrants", "kms:RevokeGrant"],
            Resource: "arn:aws:kms:us-east-1:111122223333:key/k-1",
        });
        expect(grants.Condition).to.deep.equal({ Bool: { "kms:GrantIsForAWSResource": "true" } });
        expect(use.Action).to.include.members(["kms:Encrypt", "kms:Decrypt", "kms:GenerateDataKey*", "kms:DescribeKey"]);
        expect(use.Condition).to.equal(undefined);
    });

    it("reaches the platform's own key by its alias, known at preview, in this account and region only", () => {
        const statements = volumeKeyStatements({
            kind: "alias",
            alias: "alias/eks/acme-ebs",
            partition: "aws",
            region: "eu-west-1",
            accountId: "111122223333",
        });
        for (const s of statements) {
            expect(s.Resource).to.equal("arn:aws:kms:eu-west-1:111122223333:key/*");
            expect(s.Condition?.["ForAnyValue:StringEquals"]).to.deep.equal({ "kms:ResourceAliases": "alias/eks/acme-ebs" });
        }
        expect(statements[0].Condition?.Bool).to.deep.equal({ "kms:GrantIsForAWSResource": "true" });
    });

    for (const kmsKeyId of [undefined, "arn:aws:kms:us-east-1:111122223333:key/k-1"]) {
        it(`renders a default, encrypted, zone-aware, expandable gp3 class that passes the StorageClass schema (${kmsKeyId ? "own key" : "account key"})`, async () => {
            const sc = gp3StorageClass({ reclaimPolicy: "Retain", kmsKeyId }) as Record<string, any>;
            expect(sc.metadata.annotations).to.deep.equal({ "storageclass.kubernetes.io/is-default-class": "true" });
            expect(sc).to.deep.include({
                provisioner: "ebs.csi.aws.com",
                volumeBindingMode: "WaitForFirstConsumer",
                allowVolumeExpansion: true,
                reclaimPolicy: "Retain",
            });
            expect(sc.parameters).to.deep.include({ type: "gp3", encrypted: "true" });
            expect(sc.parameters.kmsKeyId).to.equal(kmsKeyId);
            await validateKubernetesObject("kubernetes:storage.k8s.io/v1:StorageClass", sc);
        });
    }
});

describe("AWS Load Balancer Controller (pure)", () => {
    it("keeps, for every release, upstream's policy at that release's tag: a valid document with nothing too broad", () => {
        for (const [chart, release] of Object.entries(LOAD_BALANCER_CONTROLLER_RELEASES)) {
            expect(release.policySource, chart).to.equal(
                `https://raw.githubusercontent.com/kubernetes-sigs/aws-load-balancer-controller/${release.appVersion}/docs/install/iam_policy.json`,
            );
            expect(release.policy.Version, chart).to.equal("2012-10-17");
            expect(release.policy.Statement.length, chart).to.be.greaterThan(10);
            for (const s of release.policy.Statement) {
                expect(statementFindings(s), JSON.stringify(s)).to.deep.equal([]);
                expect(s.Effect).to.equal("Allow");
            }
            // The statements upstream scopes to resources the controller tagged for a cluster.
            expect(JSON.stringify(release.policy)).to.include('"aws:ResourceTag/elbv2.k8s.aws/cluster":"false"');
            // An inline role policy holds at most 10,240 characters without whitespace.
            expect(JSON.stringify(release.policy).length).to.be.lessThan(10_240);
        }
    });

    it("pins the controller, gives it region and VPC (no IMDS hop from a pod), two replicas with a PDB, on system nodes", () => {
        const values = loadBalancerControllerValues({
            clusterName: "acme",
            region: "eu-west-1",
            vpcId: "vpc-1",
            config: ADDONS.loadBalancerController,
            placement: systemPlacement(true),
        });
        expect(values).to.deep.include({
            clusterName: "acme",
            region: "eu-west-1",
            vpcId: "vpc-1",
            replicaCount: 2,
            podDisruptionBudget: { maxUnavailable: 1 },
            image: { tag: LOAD_BALANCER_CONTROLLER_RELEASES[ADDONS.loadBalancerController.chartVersion].appVersion },
            nodeSelector: { "platform/role": "system" },
            tolerations: [{ key: "CriticalAddonsOnly", operator: "Exists" }],
        });
        expect(values.resources).to.deep.equal(ADDONS.loadBalancerController.resources);
    });

    it("fails open on the pod webhook (pods evicted by a drain are still recreated) and closed on the Service webhook", () => {
        const values = loadBalancerControllerValues({
            clusterName: "acme",
            region: "eu-west-1",
            vpcId: "vpc-1",
            config: ADDONS.loadBalancerController,
            placement: systemPlacement(false),
        });
        expect(values).to.deep.include({
            podMutatorWebhookConfig: { failurePolicy: "Ignore" },
            serviceMutatorWebhookConfig: { failurePolicy: "Fail" },
        });
        expect(values.nodeSelector).to.deep.equal({});
    });
});

describe("ComputeAddons component", () => {
    let mocks: RecordingMocks;
    before(async () => {
        mocks = await useMocks("preview");
        const cluster = new pulumi.ComponentResource("test:index:Cluster", "cp");
        new ComputeAddons("addons", {
            clusterName: "acme",
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

    it("gives the controller's role exactly the upstream policy of its release", () => {
        const inline = named(mocks.resources, "aws:iam/rolePolicy:RolePolicy", "addons-load-balancer-controller-iam-inline");
        expect(inline.props.role).to.equal("acme-aws-load-balancer-controller");
        expect(json(inline.props.policy)).to.deep.equal(
            LOAD_BALANCER_CONTROLLER_RELEASES[ADDONS.loadBalancerController.chartVersion].policy,
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

describe("EbsCsiDriver component: other keys and older clusters", () => {
    let mocks: RecordingMocks;
    const make = (name: string, kmsKey: string, version: string) =>
        new EbsCsiDriver(name, {
            clusterName: "acme",
            region: "us-east-1",
            kubernetesVersion: version,
            config: { ...ADDONS.ebsCsiDriver, storageClass: { kmsKey, reclaimPolicy: "Delete" } },
            placement: systemPlacement(false),
            provider: new k8s.Provider(`${name}-k8s`, { kubeconfig: "{}" }),
            cluster: new pulumi.ComponentResource("test:index:Cluster", `${name}-cp`),
        });
    before(async () => {
        mocks = await useMocks("preview");
        make("managed", "aws-managed", "1.34");
        make("byok", "arn:aws:kms:us-east-1:111122223333:key/k-1", "1.29");
        await settled();
    });

    it("with the account's AWS-managed key: no key, no KMS permissions, no kmsKeyId", () => {
        expect(mocks.resources.filter((r) => r.name.startsWith("managed-") && r.type === "aws:kms/key:Key")).to.deep.equal([]);
        expect(mocks.resources.filter((r) => r.name === "managed-iam-inline")).to.deep.equal([]);
        const sc = named(mocks.resources, "kubernetes:storage.k8s.io/v1:StorageClass", "managed-gp3");
        expect(sc.props.parameters).to.not.have.property("kmsKeyId");
    });

    it("with another customer-managed key: grants on that key only, and the class names it", () => {
        const inline = json(named(mocks.resources, "aws:iam/rolePolicy:RolePolicy", "byok-iam-inline").props.policy);
        expect(inline.Statement.map((s: { Resource: string }) => s.Resource)).to.deep.equal(
            Array(2).fill("arn:aws:kms:us-east-1:111122223333:key/k-1"),
        );
        const sc = named(mocks.resources, "kubernetes:storage.k8s.io/v1:StorageClass", "byok-gp3");
        expect((sc.props.parameters as Record<string, string>).kmsKeyId).to.equal("arn:aws:kms:us-east-1:111122223333:key/k-1");
    });

    it("on a cluster created before 1.30, takes the default annotation off EKS's gp2 (forcing the field EKS owns)", async () => {
        const patch = named(mocks.resources, "kubernetes:storage.k8s.io/v1:StorageClassPatch", "byok-gp2-not-default");
        expect((patch.props.metadata as Record<string, unknown>).annotations).to.deep.equal({
            "storageclass.kubernetes.io/is-default-class": "false",
            "pulumi.com/patchForce": "true",
        });
        expect(mocks.resources.filter((r) => r.name === "managed-gp2-not-default")).to.deep.equal([]);
        // Applied to the gp2 class EKS created (in-tree provisioner), the result is a valid StorageClass.
        await validateKubernetesObject("kubernetes:storage.k8s.io/v1:StorageClass", {
            ...patch.props,
            provisioner: "kubernetes.io/aws-ebs",
        });
    });
});

describe("ServiceAccountRoles component", () => {
    let mocks: RecordingMocks;
    const statements = [{ Effect: "Allow" as const, Action: ["sqs:ReceiveMessage"], Resource: "arn:aws:sqs:us-east-1:111122223333:jobs" }];
    before(async () => {
        mocks = await useMocks("preview");
        new ServiceAccountRoles("sa", {
            clusterName: "acme",
            region: "us-east-1",
            namespaces: {
                analytics: {
                    serviceAccounts: { reports: { policyArns: ["arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess"], statements: [] } },
                },
                shop: { serviceAccounts: { worker: { policyArns: [], statements } } },
                empty: { serviceAccounts: {} },
            },
            cluster: new pulumi.ComponentResource("test:index:Cluster", "cp"),
        });
        await settled();
    });

    it("gives serviceAccounts.reports a role only analytics/reports of this cluster can assume, and the association that hands it over", () => {
        const role = named(mocks.resources, "aws:iam/role:Role", "sa-analytics-reports-role");
        expect(role.props.name).to.equal("acme-analytics-reports");
        const trust = json(role.props.assumeRolePolicy).Statement[0];
        expect(trust.Principal).to.deep.equal({ Service: "pods.eks.amazonaws.com" });
        expect(trust.Condition).to.deep.equal({
            StringEquals: {
                "aws:RequestTag/eks-cluster-arn": "arn:aws:eks:us-east-1:123456789012:cluster/acme",
                "aws:RequestTag/eks-cluster-name": "acme",
                "aws:RequestTag/kubernetes-namespace": "analytics",
                "aws:RequestTag/kubernetes-service-account": "reports",
            },
        });
        const association = named(
            mocks.resources,
            "aws:eks/podIdentityAssociation:PodIdentityAssociation",
            "sa-analytics-reports-association",
        );
        expect(association.props).to.deep.equal({
            clusterName: "acme",
            namespace: "analytics",
            serviceAccount: "reports",
            roleArn: `arn:aws:iam::${ACCOUNT}:role/acme-analytics-reports`,
        });
        expect(association.options.dependsOn).to.include.members(["cp", "sa-analytics-reports-role"]);
        const attachment = named(
            mocks.resources,
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
            "sa-analytics-reports-aws-AmazonS3ReadOnlyAccess",
        );
        expect(attachment.props).to.deep.equal({
            role: "acme-analytics-reports",
            policyArn: "arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess",
        });
        expect(mocks.resources.filter((r) => r.name === "sa-analytics-reports-inline")).to.deep.equal([]);
    });

    it("puts statements in one inline policy of the role", () => {
        const inline = named(mocks.resources, "aws:iam/rolePolicy:RolePolicy", "sa-shop-worker-inline");
        expect(inline.props.role).to.equal("acme-shop-worker");
        expect(json(inline.props.policy)).to.deep.equal({ Version: "2012-10-17", Statement: statements });
    });

    it("creates nothing for a namespace without service accounts", () => {
        expect(ofType(mocks.resources, "aws:iam/role:Role")).to.have.length(2);
        expect(mocks.resources.filter((r) => r.name.startsWith("sa-empty"))).to.deep.equal([]);
    });
});

describe("InterfaceEndpoints component", () => {
    let mocks: RecordingMocks;
    before(async () => {
        mocks = await useMocks("up");
        new InterfaceEndpoints("ep", {
            clusterName: "acme",
            region: "eu-west-1",
            vpcId: "vpc-1",
            vpcCidr: "10.30.0.0/16",
            // Out of order on purpose: subnets follow the AZ names, never map order.
            privateSubnetIdsByAz: { "eu-west-1b": "subnet-b", "eu-west-1a": "subnet-a" },
            services: ["ecr.api", "eks-auth"],
        });
        await settled();
    });

    it("creates one interface endpoint per service, named by the service, with private DNS in every private subnet", () => {
        const endpoints = ofType(mocks.resources, "aws:ec2/vpcEndpoint:VpcEndpoint");
        expect(endpoints.map((e) => e.name)).to.deep.equal(["ep-ecr.api", "ep-eks-auth"]);
        for (const e of endpoints) {
            expect(e.props).to.deep.include({
                vpcEndpointType: "Interface",
                privateDnsEnabled: true,
                subnetIds: ["subnet-a", "subnet-b"],
                vpcId: "vpc-1",
            });
            expect(e.props.securityGroupIds).to.deep.equal(["ep-sg-id"]);
        }
        expect(endpoints.map((e) => e.props.serviceName)).to.deep.equal([
            "com.amazonaws.eu-west-1.ecr.api",
            "com.amazonaws.eu-west-1.eks-auth",
        ]);
    });

    it("admits only HTTPS from the VPC to the endpoints' own security group", () => {
        const rules = ofType(mocks.resources, "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule");
        expect(rules.map((r) => r.props)).to.deep.equal([
            {
                securityGroupId: "ep-sg-id",
                cidrIpv4: "10.30.0.0/16",
                ipProtocol: "tcp",
                fromPort: 443,
                toPort: 443,
                description: "HTTPS from the VPC",
            },
        ]);
    });
});
