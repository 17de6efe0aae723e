/**
 * Karpenter's reference controller permissions, kept as data: every statement of the controller
 * policies (NodeLifecycle, IAMIntegration, EKSIntegration, Interruption, ZonalShift,
 * ResourceDiscovery) in the getting-started CloudFormation template of the Karpenter version this
 * platform installs. Placeholders are the template's own.
 *
 * To move to another Karpenter minor: open the same file at that version's tag, replace the
 * statements and `version`, and run the tests (they compare `karpenter.chartVersion` of every
 * stack with `version`, and the rendered controller policy with these statements).
 */
import type { PolicyStatement } from "../iam";

/** What a launch creates: the template lists them twice (creation with tags, tagging on creation). */
const LAUNCHED_RESOURCES = [
    "arn:${AWS::Partition}:ec2:${AWS::Region}:*:fleet/*",
    "arn:${AWS::Partition}:ec2:${AWS::Region}:*:instance/*",
    "arn:${AWS::Partition}:ec2:${AWS::Region}:*:volume/*",
    "arn:${AWS::Partition}:ec2:${AWS::Region}:*:network-interface/*",
    "arn:${AWS::Partition}:ec2:${AWS::Region}:*:launch-template/*",
    "arn:${AWS::Partition}:ec2:${AWS::Region}:*:spot-instances-request/*",
];

/** Resources of this cluster that Karpenter created for a NodePool: the template's repeated condition. */
const TAGGED_FOR_A_NODEPOOL = {
    StringEquals: { "aws:ResourceTag/kubernetes.io/cluster/${ClusterName}": "owned" },
    StringLike: { "aws:ResourceTag/karpenter.sh/nodepool": "*" },
};

export const KARPENTER_REFERENCE_POLICY = {
    /** The Karpenter minor version these statements are from. */
    version: "1.14",
    source: "https://github.com/aws/karpenter-provider-aws/blob/e0834c2bd02ed804561d5748ab92f5c2b8f86d60/website/content/en/v1.14/getting-started/getting-started-with-karpenter/cloudformation.yaml",
    statements: [
        // NodeLifecyclePolicy
        {
            Sid: "AllowScopedEC2InstanceAccessActions",
            Effect: "Allow",
            Resource: [
                "arn:${AWS::Partition}:ec2:${AWS::Region}::image/*",
                "arn:${AWS::Partition}:ec2:${AWS::Region}::snapshot/*",
                "arn:${AWS::Partition}:ec2:${AWS::Region}:*:security-group/*",
                "arn:${AWS::Partition}:ec2:${AWS::Region}:*:subnet/*",
                "arn:${AWS::Partition}:ec2:${AWS::Region}:*:capacity-reservation/*",
                "arn:${AWS::Partition}:ec2:${AWS::Region}:*:placement-group/*",
            ],
            Action: ["ec2:RunInstances", "ec2:CreateFleet"],
        },
        {
            Sid: "AllowScopedEC2LaunchTemplateAccessActions",
            Effect: "Allow",
            Resource: "arn:${AWS::Partition}:ec2:${AWS::Region}:*:launch-template/*",
            Action: ["ec2:RunInstances", "ec2:CreateFleet"],
            Condition: TAGGED_FOR_A_NODEPOOL,
        },
        {
            Sid: "AllowScopedEC2InstanceActionsWithTags",
            Effect: "Allow",
            Resource: LAUNCHED_RESOURCES,
            Action: ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
            Condition: {
                StringEquals: {
                    "aws:RequestTag/kubernetes.io/cluster/${ClusterName}": "owned",
                    "aws:RequestTag/eks:eks-cluster-name": "${ClusterName}",
                },
                StringLike: { "aws:RequestTag/karpenter.sh/nodepool": "*" },
            },
        },
        {
            Sid: "AllowScopedResourceCreationTagging",
            Effect: "Allow",
            Resource: LAUNCHED_RESOURCES,
            Action: "ec2:CreateTags",
            Condition: {
                StringEquals: {
                    "aws:RequestTag/kubernetes.io/cluster/${ClusterName}": "owned",
                    "aws:RequestTag/eks:eks-cluster-name": "${ClusterName}",
                    "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"],
                },
                StringLike: { "aws:RequestTag/karpenter.sh/nodepool": "*" },
            },
        },
        {
            Sid: "AllowScopedResourceTagging",
            Effect: "Allow",
            Resource: "arn:${AWS::Partition}:ec2:${AWS::Region}:*:instance/*",
            Action: "ec2:CreateTags",
            Condition: {
                StringEquals: { "aws:ResourceTag/kubernetes.io/cluster/${ClusterName}": "owned" },
                StringLike: { "aws:ResourceTag/karpenter.sh/nodepool": "*" },
                StringEqualsIfExists: { "aws:RequestTag/eks:eks-cluster-name": "${ClusterName}" },
                "ForAllValues:StringEquals": { "aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"] },
            },
        },
        {
            Sid: "AllowScopedDeletion",
            Effect: "Allow",
            Resource: [
                "arn:${AWS::Partition}:ec2:${AWS::Region}:*:instance/*",
                "arn:${AWS::Partition}:ec2:${AWS::Region}:*:launch-template/*",
            ],
            Action: ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
            Condition: TAGGED_FOR_A_NODEPOOL,
        },
        // IAMIntegrationPolicy
        {
            Sid: "AllowPassingInstanceRole",
            Effect: "Allow",
            Resource: "${KarpenterNodeRole.Arn}",
            Action: "iam:PassRole",
            Condition: { StringEquals: { "iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"] } },
        },
        {
            Sid: "AllowScopedInstanceProfileCreationActions",
            Effect: "Allow",
            Resource: "arn:${AWS::Partition}:iam::${AWS::AccountId}:instance-profile/*",
            Action: ["iam:CreateInstanceProfile"],
            Condition: {
                StringEquals: {
                    "aws:RequestTag/kubernetes.io/cluster/${ClusterName}": "owned",
                    "aws:RequestTag/eks:eks-cluster-name": "${ClusterName}",
                    "aws:RequestTag/topology.kubernetes.io/region": "${AWS::Region}",
                },
                StringLike: { "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*" },
            },
        },
        {
            Sid: "AllowScopedInstanceProfileTagActions",
            Effect: "Allow",
            Resource: "arn:${AWS::Partition}:iam::${AWS::AccountId}:instance-profile/*",
            Action: ["iam:TagInstanceProfile"],
            Condition: {
                StringEquals: {
                    "aws:ResourceTag/kubernetes.io/cluster/${ClusterName}": "owned",
                    "aws:ResourceTag/topology.kubernetes.io/region": "${AWS::Region}",
                    "aws:RequestTag/kubernetes.io/cluster/${ClusterName}": "owned",
                    "aws:RequestTag/eks:eks-cluster-name": "${ClusterName}",
                    "aws:RequestTag/topology.kubernetes.io/region": "${AWS::Region}",
                },
                StringLike: {
                    "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
                    "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*",
                },
            },
        },
        {
            Sid: "AllowScopedInstanceProfileActions",
            Effect: "Allow",
            Resource: "arn:${AWS::Partition}:iam::${AWS::AccountId}:instance-profile/*",
            Action: ["iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"],
            Condition: {
                StringEquals: {
                    "aws:ResourceTag/kubernetes.io/cluster/${ClusterName}": "owned",
                    "aws:ResourceTag/topology.kubernetes.io/region": "${AWS::Region}",
                },
                StringLike: { "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*" },
            },
        },
        // EKSIntegrationPolicy
        {
            Sid: "AllowAPIServerEndpointDiscovery",
            Effect: "Allow",
            Resource: "arn:${AWS::Partition}:eks:${AWS::Region}:${AWS::AccountId}:cluster/${ClusterName}",
            Action: "eks:DescribeCluster",
        },
        // InterruptionPolicy
        {
            Sid: "AllowInterruptionQueueActions",
            Effect: "Allow",
            Resource: "${KarpenterInterruptionQueue.Arn}",
            Action: ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
        },
        // ZonalShiftPolicy
        {
            Sid: "AllowZonalShiftStatusReadOnly",
            Effect: "Allow",
            Resource: "*",
            Action: ["arc-zonal-shift:GetManagedResource"],
            Condition: {
                StringEquals: {
                    "arc-zonal-shift:ResourceIdentifier":
                        "arn:${AWS::Partition}:eks:${AWS::Region}:${AWS::AccountId}:cluster/${ClusterName}",
                },
            },
        },
        // ResourceDiscoveryPolicy
        {
            Sid: "AllowRegionalReadActions",
            Effect: "Allow",
            Resource: "*",
            Action: [
                "ec2:DescribeCapacityReservations",
                "ec2:DescribeImages",
                "ec2:DescribeInstances",
                "ec2:DescribeInstanceStatus",
                "ec2:DescribeInstanceTypeOfferings",
                "ec2:DescribeInstanceTypes",
                "ec2:DescribeLaunchTemplates",
                "ec2:DescribePlacementGroups",
                "ec2:DescribeSecurityGroups",
                "ec2:DescribeSpotPriceHistory",
                "ec2:DescribeSubnets",
            ],
            Condition: { StringEquals: { "aws:RequestedRegion": "${AWS::Region}" } },
        },
        {
            Sid: "AllowSSMReadActions",
            Effect: "Allow",
            Resource: "arn:${AWS::Partition}:ssm:${AWS::Region}::parameter/aws/service/*",
            Action: "ssm:GetParameter",
        },
        { Sid: "AllowPricingReadActions", Effect: "Allow", Resource: "*", Action: "pricing:GetProducts" },
        { Sid: "AllowUnscopedInstanceProfileListAction", Effect: "Allow", Resource: "*", Action: "iam:ListInstanceProfiles" },
        {
            Sid: "AllowInstanceProfileReadActions",
            Effect: "Allow",
            Resource: "arn:${AWS::Partition}:iam::${AWS::AccountId}:instance-profile/*",
            Action: "iam:GetInstanceProfile",
        },
    ] satisfies PolicyStatement[],
};

/** Values of the template's placeholders for one cluster. */
export interface ReferencePolicyValues {
    partition: string;
    region: string;
    accountId: string;
    clusterName: string;
    nodeRoleArn: string;
    queueArn: string;
}

/**
 * The reference statements with every placeholder, in values and in condition keys, replaced.
 * Throws on a placeholder it does not know, so a statement copied from a newer template with a
 * new parameter fails loudly instead of reaching IAM as text. Pure.
 */
export function renderReferenceStatements(values: ReferencePolicyValues): PolicyStatement[] {
    const placeholders: Record<string, string> = {
        "AWS::Partition": values.partition,
        "AWS::Region": values.region,
        "AWS::AccountId": values.accountId,
        ClusterName: values.clusterName,
        "KarpenterNodeRole.Arn": values.nodeRoleArn,
        "KarpenterInterruptionQueue.Arn": values.queueArn,
    };
    const fill = (text: string): string =>
        text.replace(/\$\{([^}]+)\}/g, (_match, name: string) => {
            const value = placeholders[name];
            if (value === undefined) {
                throw new Error(
                    `Karpenter reference policy: unknown placeholder \${${name}} (known: ${Object.keys(placeholders).join(", ")})`,
                );
            }
            return value;
        });
    const render = (value: unknown): unknown => {
        if (typeof value === "string") {
            return fill(value);
        }
        if (Array.isArray(value)) {
            return value.map(render);
        }
        if (value && typeof value === "object") {
            return Object.fromEntries(Object.entries(value).map(([key, inner]) => [fill(key), render(inner)]));
        }
        return value;
    };
    return KARPENTER_REFERENCE_POLICY.statements.map((s) => render(s) as PolicyStatement);
}
