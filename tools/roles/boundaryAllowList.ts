/**
 * What the roles of a stack may ever do, whatever their own policies say: the allow-list of the
 * stack's permissions boundary (tools/roles/deployRole.ts `permissionsBoundary`). A boundary is a
 * ceiling only as an allow-list: "allow `*` minus a list" lets a role the deploy role mints reach
 * every service the list forgets (EKS on other clusters, STS, SSM commands, Lambda). So each
 * statement below names the roles that need it and where that need was read; a service no
 * statement names is out of every stack role's reach. EKS, Auto Scaling groups, queues, log groups
 * and Karpenter's instance profiles are the stack's own (names under its cluster); EC2 and load
 * balancers carry ids, not names, and stay on `*`: isolating them is the account's job (one
 * account per environment, docs/bootstrap.md, step 1).
 *
 * Read for: the AWS-managed policies the program attaches (tools/roles/data/managedPolicies.ts), the
 * Karpenter controller's (components/karpenter/aws.ts, Karpenter v1.14.1), the AWS Load Balancer
 * Controller's (components/addons/data/), the EBS CSI driver's and Auto Mode's volume-key
 * statements (components/addons/ebsCsi.ts), NTH's (components/nodegroups/nth.ts) and the flow
 * logs' (components/network.ts). test/tools/boundary.simulation.test.ts simulates every action of
 * every one of them under each stack's boundary. Pure.
 */
import { PLATFORM_CLUSTER_TAG, stackNamePrefix } from "eks-platform-kernel";
import type { PolicyStatement } from "../../components/iam";

/** Where a stack's roles live: the ARNs the allow-list names. */
export interface BoundaryScope {
    partition: string;
    account: string;
    region: string;
    clusterName: string;
    /** The KMS keys the stack file names by ARN for volumes (a StorageClass's, a NodeClass's). Defaults to none. */
    volumeKeyArns?: readonly string[];
}

/** What encrypted volumes need of their key: grants for EC2 and the data-key operations. */
const VOLUME_KEY_ACTIONS = [
    "kms:CreateGrant",
    "kms:Decrypt",
    "kms:DescribeKey",
    "kms:Encrypt",
    "kms:GenerateDataKey*",
    "kms:ListGrants",
    "kms:ReEncrypt*",
    "kms:RevokeGrant",
];

const allow = (Sid: string, Action: string[], Resource: string | string[], Condition?: PolicyStatement["Condition"]): PolicyStatement => ({
    Sid,
    Effect: "Allow",
    Action,
    Resource,
    ...(Condition ? { Condition } : {}),
});

/** The boundary's Allow statements for a stack. */
export function boundaryAllowList(scope: BoundaryScope): PolicyStatement[] {
    const { partition: p, account: a, region: r, clusterName: c } = scope;
    const prefix = stackNamePrefix(c);
    return [
        // Nodes (AmazonEKSWorkerNodePolicy, AmazonEKS_CNI_Policy), Karpenter, the EBS CSI driver, the LB
        // controller, Auto Mode and the cluster role (AmazonEKSClusterPolicy) all work on EC2 and ELB.
        allow("Ec2AndLoadBalancers", ["ec2:*", "elasticloadbalancing:*"], "*"),
        // Image pulls (AmazonEC2ContainerRegistryReadOnly / PullOnly): reads, and the pull-through cache's import.
        allow(
            "ImagePulls",
            [
                "ecr:BatchCheckLayerAvailability",
                "ecr:BatchGetImage",
                "ecr:BatchImportUpstreamImage",
                "ecr:Describe*",
                "ecr:Get*",
                "ecr:List*",
            ],
            "*",
        ),
        // Nodes and Karpenter describe their cluster; pods exchange tokens with it (eks-auth). Never
        // another cluster, never a write: a role that could create an access entry would make itself admin.
        allow(
            "OwnClusterReads",
            ["eks-auth:AssumeRoleForPodIdentity", "eks:Describe*", "eks:List*"],
            [
                `arn:${p}:eks:${r}:${a}:cluster/${c}`,
                `arn:${p}:eks:${r}:${a}:nodegroup/${c}/*`,
                `arn:${p}:eks:${r}:${a}:addon/${c}/*`,
                `arn:${p}:eks:${r}:${a}:access-entry/${c}/*`,
                `arn:${p}:eks:${r}:${a}:podidentityassociation/${c}/*`,
            ],
        ),
        // NTH completes its lifecycle hooks; AmazonEKSClusterPolicy updates the stack's groups.
        allow(
            "OwnAutoScalingGroups",
            ["autoscaling:CompleteLifecycleAction", "autoscaling:RecordLifecycleActionHeartbeat", "autoscaling:UpdateAutoScalingGroup"],
            `arn:${p}:autoscaling:${r}:${a}:autoScalingGroup:*:autoScalingGroupName/${prefix}*`,
        ),
        // Karpenter's and NTH's interruption queues.
        allow(
            "OwnQueues",
            ["sqs:ChangeMessageVisibility", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
            `arn:${p}:sqs:${r}:${a}:${prefix}*`,
        ),
        // The flow logs' delivery role.
        allow(
            "OwnLogGroups",
            ["logs:CreateLogStream", "logs:DescribeLogStreams", "logs:PutLogEvents"],
            `arn:${p}:logs:${r}:${a}:log-group:/aws/*/${c}/*`,
        ),
        // Encrypted volumes (the EBS CSI driver, Auto Mode's storage, Karpenter's node volumes): grants
        // and data keys of the stack's own keys (tagged with its cluster: components/iam.ts) and of the
        // keys its stack file names by ARN; never another stack's. The stacks' secrets keys are denied
        // by alias besides (the boundary's NoStackSecrets).
        allow("OwnVolumeKeys", VOLUME_KEY_ACTIONS, `arn:${p}:kms:${r}:${a}:key/*`, {
            StringEquals: { [`aws:ResourceTag/${PLATFORM_CLUSTER_TAG}`]: c },
        }),
        ...(scope.volumeKeyArns !== undefined && scope.volumeKeyArns.length > 0
            ? [allow("GivenVolumeKeys", VOLUME_KEY_ACTIONS, [...scope.volumeKeyArns].sort())]
            : []),
        // Karpenter's own instance profiles, under its cluster's path (Karpenter v1.14.1
        // pkg/controllers/nodeclass/instanceprofile.go), and Auto Mode's (AmazonEKSComputePolicy: `eks*`).
        allow(
            "NodeInstanceProfiles",
            [
                "iam:AddRoleToInstanceProfile",
                "iam:CreateInstanceProfile",
                "iam:DeleteInstanceProfile",
                "iam:GetInstanceProfile",
                "iam:RemoveRoleFromInstanceProfile",
                "iam:TagInstanceProfile",
            ],
            [`arn:${p}:iam::${a}:instance-profile/karpenter/${r}/${c}/*`, `arn:${p}:iam::${a}:instance-profile/eks*`],
        ),
        // Karpenter and Auto Mode launch nodes with the stack's node roles.
        allow("PassNodeRoles", ["iam:PassRole"], `arn:${p}:iam::${a}:role/${prefix}*`, {
            StringEquals: { "iam:PassedToService": "ec2.amazonaws.com" },
        }),
        // The LB controller, AmazonEKSClusterPolicy and Auto Mode's load balancing and compute policies.
        allow("ServiceLinkedRoles", ["iam:CreateServiceLinkedRole"], `arn:${p}:iam::${a}:role/aws-service-role/*`, {
            StringEquals: { "iam:AWSServiceName": ["elasticloadbalancing.amazonaws.com", "spot.amazonaws.com"] },
        }),
        // Reads IAM cannot scope: Karpenter's prices and zonal shifts, Auto Scaling (NTH,
        // AmazonEKSClusterPolicy), the LB controller's certificates, Cognito clients, web ACLs and
        // Shield, instance profile listings.
        allow(
            "Lookups",
            [
                "acm:DescribeCertificate",
                "acm:ListCertificates",
                "arc-zonal-shift:GetManagedResource",
                "autoscaling:Describe*",
                "cognito-idp:DescribeUserPoolClient",
                "iam:GetServerCertificate",
                "iam:ListInstanceProfiles",
                "iam:ListServerCertificates",
                "pricing:GetProducts",
                "shield:DescribeProtection",
                "shield:GetSubscriptionState",
                "waf-regional:GetWebACL",
                "waf-regional:GetWebACLForResource",
                "wafv2:GetWebACL",
                "wafv2:GetWebACLForResource",
            ],
            "*",
        ),
        // The LB controller and Auto Mode attach web ACLs and Shield protection to their load balancers.
        allow(
            "LoadBalancerProtection",
            [
                "shield:CreateProtection",
                "shield:DeleteProtection",
                "shield:TagResource",
                "waf-regional:AssociateWebACL",
                "waf-regional:DisassociateWebACL",
                "wafv2:AssociateWebACL",
                "wafv2:DisassociateWebACL",
            ],
            "*",
        ),
        // AWS's public parameters (AMI releases: Karpenter's and Auto Mode's node images). Not the
        // account's own parameters: a SecureString of another stack is no node's business.
        allow("PublicParameters", ["ssm:GetParameter", "ssm:GetParameters"], `arn:${p}:ssm:${r}::parameter/aws/service/*`),
        // Nodes' SSM agent (AmazonSSMManagedInstanceCore): the agent's side only. ssm:SendCommand and
        // ssm:StartSession, which run commands on nodes, are no agent call and stay out.
        allow(
            "NodeAgent",
            [
                "ec2messages:*",
                "ssm:DescribeAssociation",
                "ssm:DescribeDocument",
                "ssm:GetDeployablePatchSnapshotForInstance",
                "ssm:GetDocument",
                "ssm:GetManifest",
                "ssm:ListAssociations",
                "ssm:ListInstanceAssociations",
                "ssm:PutComplianceItems",
                "ssm:PutConfigurePackageResult",
                "ssm:PutInventory",
                "ssm:UpdateAssociationStatus",
                "ssm:UpdateInstanceAssociationStatus",
                "ssm:UpdateInstanceInformation",
                "ssmmessages:*",
            ],
            "*",
        ),
    ];
}
