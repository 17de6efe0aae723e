/**
 * Block storage for workloads: the Amazon EBS CSI driver as an EKS managed add-on, its Pod
 * Identity role, the KMS key its volumes are encrypted with, and the cluster's default
 * StorageClass `gp3`.
 */
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { kubernetesMinor, PLATFORM_CLUSTER_TAG } from "eks-platform-kernel";
import type { PlatformAddon } from "./addon";
import type { AddonsConfig } from "./schema";
import { accountContext, stackKeyPolicy } from "../iam";
import { PodIdentityRole } from "../podIdentity";
import { PolicyStatement, podIdentityRoleName } from "../podIdentityPolicy";
import type { Placement } from "../nodegroups/schema";

/** Set on every standard stack; EKS Auto Mode runs its own driver (components/compute). */
type EbsCsiConfig = NonNullable<AddonsConfig["ebsCsiDriver"]>;

/** Names the driver is known by (EKS add-on, controller service account, CSI provisioner). */
export const EBS_CSI = {
    addonName: "aws-ebs-csi-driver",
    namespace: "kube-system",
    serviceAccount: "ebs-csi-controller-sa",
    provisioner: "ebs.csi.aws.com",
} as const;

/** The StorageClass annotation that makes a class the default of claims naming none. */
export const DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class";

/** The platform's default StorageClass. */
export const DEFAULT_STORAGE_CLASS = "gp3";

/**
 * Whether EKS marked its own `gp2` class (in-tree provisioner) as the default: on clusters created
 * at Kubernetes 1.29 or earlier. From 1.30 EKS still creates `gp2` but without the annotation, so
 * there is nothing to undo. Pure.
 */
export function legacyGp2IsDefault(kubernetesVersion: string): boolean {
    const minor = kubernetesMinor(kubernetesVersion);
    return Number.isInteger(minor) && minor < 30;
}

/**
 * The add-on's `configurationValues`: the controller on system nodes, two replicas (the add-on's
 * PodDisruptionBudget then allows one eviction at a time), resources; the add-on's own default
 * StorageClass off, since the platform's `gp3` class is the encrypted default. The node DaemonSet
 * keeps its default of tolerating every taint, so volumes attach on every node. Pure.
 */
export function ebsCsiConfigurationValues(config: EbsCsiConfig, placement: Placement): Record<string, unknown> {
    return {
        defaultStorageClass: { enabled: false },
        controller: {
            replicaCount: config.controller.replicas,
            nodeSelector: placement.nodeSelector,
            tolerations: placement.tolerations,
            resources: { requests: { ...config.controller.resources.requests }, limits: { ...config.controller.resources.limits } },
        },
    };
}

/** Which customer-managed key the driver's role may use, and how that key is named. */
export type VolumeKey =
    { kind: "alias"; alias: string; partition: string; region: string; accountId: string } | { kind: "arn"; arn: string };

/**
 * What the driver needs on a customer-managed key (AWS's EBS CSI documentation): grants for EC2
 * (only for AWS resources) and the data-key operations. The platform's own key is matched by its
 * alias rather than its ARN: the alias is known at preview, so the pack can judge the policy. Pure.
 */
export function volumeKeyStatements(key: VolumeKey): PolicyStatement[] {
    const scope =
        key.kind === "arn"
            ? { Resource: key.arn }
            : {
                  Resource: `arn:${key.partition}:kms:${key.region}:${key.accountId}:key/*`,
                  Condition: { "ForAnyValue:StringEquals": { "kms:ResourceAliases": key.alias } },
              };
    const merge = (condition: PolicyStatement["Condition"]) =>
        scope.Condition || condition ? { Condition: { ...(condition ?? {}), ...(scope.Condition ?? {}) } } : {};
    return [
        {
            Sid: "VolumeKeyGrants",
            Effect: "Allow",
            Action: ["kms:CreateGrant", "kms:ListGrants", "kms:RevokeGrant"],
            Resource: scope.Resource,
            ...merge({ Bool: { "kms:GrantIsForAWSResource": "true" } }),
        },
        {
            Sid: "VolumeKeyUse",
            Effect: "Allow",
            Action: ["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey"],
            Resource: scope.Resource,
            ...merge(undefined),
        },
    ];
}

/**
 * The default StorageClass: gp3, encrypted, bound only once a pod is scheduled (so the volume is
 * created in the pod's zone; EBS volumes cannot cross zones), expandable in place. Pure.
 */
export function gp3StorageClass(args: {
    reclaimPolicy: EbsCsiConfig["storageClass"]["reclaimPolicy"];
    kmsKeyId?: pulumi.Input<string>;
}): k8s.storage.v1.StorageClassArgs {
    return {
        metadata: { name: DEFAULT_STORAGE_CLASS, annotations: { [DEFAULT_CLASS_ANNOTATION]: "true" } },
        provisioner: EBS_CSI.provisioner,
        parameters: {
            type: "gp3",
            encrypted: "true",
            "csi.storage.k8s.io/fstype": "ext4",
            ...(args.kmsKeyId !== undefined ? { kmsKeyId: args.kmsKeyId } : {}),
        },
        reclaimPolicy: args.reclaimPolicy,
        volumeBindingMode: "WaitForFirstConsumer",
        allowVolumeExpansion: true,
    };
}

export interface EbsCsiDriverArgs {
    clusterName: string;
    region: string;
    kubernetesVersion: string;
    config: EbsCsiConfig;
    placement: Placement;
    provider: k8s.Provider;
    /** The EKS control plane. */
    cluster: pulumi.Resource;
    /** Protect the platform's volume key from deletion (it is needed to read every volume). Defaults to `false`. */
    protect?: boolean;
    /** The deploy role (`access.deployer`): the only role the platform volume key's policy lets administer it. */
    keyAdministrator: string;
}

export class EbsCsiDriver extends pulumi.ComponentResource {
    public readonly addon: aws.eks.Addon;
    public readonly role: PodIdentityRole;
    public readonly storageClass: k8s.storage.v1.StorageClass;
    /** The platform's volume key, when `kmsKey` is `platform`. */
    public readonly key?: aws.kms.Key;

    constructor(name: string, args: EbsCsiDriverArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:addons:EbsCsiDriver", name, {}, opts);
        const parent = { parent: this };
        const kmsKey = args.config.storageClass.kmsKey;
        let kmsKeyId: pulumi.Input<string> | undefined;
        let statements: pulumi.Output<PolicyStatement[]> | undefined;
        if (kmsKey === "platform") {
            const alias = `alias/eks/${args.clusterName}-ebs`;
            this.key = new aws.kms.Key(
                `${name}-key`,
                {
                    description: `Encryption of EBS volumes of EKS cluster ${args.clusterName}`,
                    enableKeyRotation: true,
                    deletionWindowInDays: 30,
                    // The deploy role administers only keys with this tag (kernel/deployScope.ts).
                    tags: { [PLATFORM_CLUSTER_TAG]: args.clusterName },
                    policy: accountContext(parent).apply((c) => JSON.stringify(stackKeyPolicy(c, args.keyAdministrator))),
                },
                { parent: this, protect: args.protect ?? false },
            );
            new aws.kms.Alias(`${name}-key`, { name: alias, targetKeyId: this.key.keyId }, parent);
            kmsKeyId = this.key.arn;
            statements = accountContext(parent).apply((c) => volumeKeyStatements({ kind: "alias", alias, ...c, region: args.region }));
        } else if (kmsKey !== "aws-managed") {
            kmsKeyId = kmsKey;
            statements = pulumi.output(volumeKeyStatements({ kind: "arn", arn: kmsKey }));
        }

        this.role = new PodIdentityRole(
            `${name}-iam`,
            {
                clusterName: args.clusterName,
                region: args.region,
                namespace: EBS_CSI.namespace,
                serviceAccount: EBS_CSI.serviceAccount,
                roleName: podIdentityRoleName(args.clusterName, "ebs-csi-driver"),
                description: `Amazon EBS CSI driver of EKS cluster ${args.clusterName}`,
                policyArns: [aws.iam.ManagedPolicy.AmazonEBSCSIDriverPolicy],
                inlinePolicy: statements?.apply((Statement) => ({ Version: "2012-10-17" as const, Statement })),
                // The add-on declares the association itself.
                associate: false,
                cluster: args.cluster,
            },
            parent,
        );
        this.addon = new aws.eks.Addon(
            `${name}-addon`,
            {
                clusterName: args.clusterName,
                addonName: EBS_CSI.addonName,
                addonVersion: args.config.version,
                resolveConflictsOnCreate: "OVERWRITE",
                resolveConflictsOnUpdate: "PRESERVE",
                configurationValues: JSON.stringify(ebsCsiConfigurationValues(args.config, args.placement)),
                podIdentityAssociations: [{ roleArn: this.role.arn, serviceAccount: EBS_CSI.serviceAccount }],
            },
            { parent: this, dependsOn: this.role.ready },
        );
        // Parameters of a StorageClass are immutable: a changed key replaces the class (same name,
        // so the old one goes first). Volumes already provisioned keep their key.
        this.storageClass = new k8s.storage.v1.StorageClass(
            `${name}-${DEFAULT_STORAGE_CLASS}`,
            gp3StorageClass({ reclaimPolicy: args.config.storageClass.reclaimPolicy, kmsKeyId }),
            { parent: this, provider: args.provider, dependsOn: [this.addon], deleteBeforeReplace: true },
        );
        if (legacyGp2IsDefault(args.kubernetesVersion)) {
            new k8s.storage.v1.StorageClassPatch(
                `${name}-gp2-not-default`,
                {
                    metadata: {
                        name: "gp2",
                        // EKS created gp2 and owns the field: take it over.
                        annotations: { [DEFAULT_CLASS_ANNOTATION]: "false", "pulumi.com/patchForce": "true" },
                    },
                },
                { parent: this, provider: args.provider },
            );
        }
        this.registerOutputs({ addon: this.addon.id, roleArn: this.role.arn });
    }
}

/** The driver as the registry (registry.ts) knows it. */
export const ebsCsiDriver: PlatformAddon<"ebsCsiDriver", EbsCsiDriver> = {
    key: "ebsCsiDriver",
    label: "Amazon EBS CSI driver",
    source: { eksAddon: EBS_CSI.addonName },
    replaceable: true,
    preflightConfigKeys: { [EBS_CSI.addonName]: "addons.ebsCsiDriver.version" },
    // In-tree EBS claims are served by the CSI driver too (CSI migration, on by default since 1.23).
    provides: { storageProvisioners: [EBS_CSI.provisioner, "kubernetes.io/aws-ebs"] },
    resourceTypes: [
        "aws:eks/addon:Addon",
        "aws:iam/role:Role",
        "aws:iam/rolePolicy:RolePolicy",
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
        "aws:kms/alias:Alias",
        "aws:kms/key:Key",
    ],
    example: { version: "v1.60.0-eksbuild.1" },
    install: (ctx, config) =>
        new EbsCsiDriver(
            `${ctx.name}-ebs-csi`,
            {
                clusterName: ctx.clusterName,
                region: ctx.region,
                kubernetesVersion: ctx.kubernetesVersion,
                config,
                placement: ctx.placement,
                provider: ctx.provider,
                cluster: ctx.cluster,
                protect: ctx.protect,
                keyAdministrator: ctx.keyAdministrator,
            },
            { parent: ctx.parent },
        ),
};
