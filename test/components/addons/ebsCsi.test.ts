import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import { EbsCsiDriver, gp3StorageClass, legacyGp2IsDefault, volumeKeyStatements } from "../../../components/addons/ebsCsi";
import { systemPlacement } from "../../../components/nodegroups/schema";
import { RecordingMocks } from "../../../tools/render/offline";
import { validateKubernetesObject } from "../../../tools/gate/schema";
import { json, named, settled, useMocks } from "../../mocks";
import { ADDONS } from "./fixtures";

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

describe("EbsCsiDriver component: other keys and older clusters", () => {
    let mocks: RecordingMocks;
    const make = (name: string, kmsKey: string, version: string) =>
        new EbsCsiDriver(name, {
            clusterName: "acme",
            keyAdministrator: "arn:aws:iam::123456789012:role/deployer",
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
