import type * as aws from "@pulumi/aws";
import type * as pulumi from "@pulumi/pulumi";

export interface LaunchTemplateSettings {
    clusterName: string;
    group: string;
    /** IMDSv2 hop limit. */
    metadataHopLimit: number;
    /** Root volume size in GiB. */
    diskSizeGiB: number;
    /** Security groups of the nodes. */
    securityGroupIds: pulumi.Input<string>[];
    /** Extra tags from config. */
    tags: Record<string, string>;
}

/** Root device of the EKS-optimized Amazon Linux AMIs (AL2023 and AL2). */
export const ROOT_DEVICE = "/dev/xvda";

/** Tags every node instance and volume carries: its name, cluster ownership and the config's extras. Pure. */
export function nodeTags(settings: Pick<LaunchTemplateSettings, "clusterName" | "group" | "tags">): Record<string, string> {
    return {
        ...settings.tags,
        Name: `${settings.clusterName}-${settings.group}`,
        [`kubernetes.io/cluster/${settings.clusterName}`]: "owned",
        "platform/node-group": settings.group,
    };
}

/**
 * Launch template inputs shared by managed and self-managed groups: IMDSv2 only, an encrypted gp3
 * root volume, and tags propagated to instances and volumes. No `imageId` and
 * no user data: the self-managed group adds both; a managed group leaves the AMI to EKS. Pure.
 */
export function launchTemplateArgs(settings: LaunchTemplateSettings): aws.ec2.LaunchTemplateArgs {
    const tags = nodeTags(settings);
    return {
        description: `EKS ${settings.clusterName} node group ${settings.group}`,
        updateDefaultVersion: true,
        vpcSecurityGroupIds: settings.securityGroupIds,
        metadataOptions: {
            httpEndpoint: "enabled",
            httpTokens: "required",
            httpPutResponseHopLimit: settings.metadataHopLimit,
            instanceMetadataTags: "disabled",
        },
        blockDeviceMappings: [
            {
                deviceName: ROOT_DEVICE,
                ebs: {
                    volumeType: "gp3",
                    volumeSize: settings.diskSizeGiB,
                    encrypted: "true",
                    deleteOnTermination: "true",
                    iops: 3000,
                    throughput: 125,
                },
            },
        ],
        tagSpecifications: ["instance", "volume"].map((resourceType) => ({ resourceType, tags })),
        tags,
    };
}
