/**
 * What the deploy role must be allowed to do for each resource type the program registers: the
 * AWS API calls the provider makes to create, read (refresh and the waiters after a create),
 * update and delete it, tags included, and what AWS authorizes on the caller beside the call
 * itself (a role passed in a parameter, the launch template an Auto Scaling group uses). Data,
 * with its source: the bridged AWS provider (@pulumi/aws 7.48.0) runs terraform-provider-aws 6.x,
 * so each entry names the upstream resource file whose SDK calls it lists; IAM action names are
 * the SDK operation names (Service Authorization Reference).
 *
 * `scope` says where the actions are allowed (tools/roles/deployRole.ts turns it into ARNs of the
 * stack's own names); `passesRole` the service a role of the stack is passed to. Types that make
 * no AWS call (components, Kubernetes objects, the Kubernetes provider) are `none`. A type the
 * program registers without an entry here stops `npm run deployer-policy` with its name: a
 * deploy role that lacks an action fails the first `up` half-way.
 */

/**
 * Where a type's actions are allowed:
 * - `ec2`: `*`. EC2 ARNs carry ids, never the stack's names; its tag conditions would need every
 *   call to carry or find the stack's tag, which default security groups and rule resources do not.
 *   Isolation between stacks for EC2 is the account's (docs/roles.md).
 * - `eks`: the cluster's ARN and its node groups', add-ons', access entries' and Pod Identity
 *   associations' (all name the cluster).
 * - `clusters`: `eks:CreateCluster`, which takes no resource ARN (Service Authorization Reference,
 *   Amazon EKS: "*" only), allowed only with the stack's `platform/cluster` tag in the request.
 * - `roles`, `instanceProfiles`: names under the stack's IAM prefix (kernel/deployScope.ts); for
 *   instance profiles also the path Karpenter creates its own under when the plan has an
 *   EC2NodeClass (`/karpenter/<region>/<cluster>/<nodeclass uid>/<cluster>_<hash>`, Karpenter
 *   v1.14.1 pkg/controllers/nodeclass/instanceprofile.go): deleting the node role removes it from them.
 * - `oidcProviders`: the region's EKS OIDC issuers (their ARN holds a random id, not the cluster).
 * - `serviceLinkedRoles`: `iam:CreateServiceLinkedRole` for the named services only.
 * - `keys`: key creation with the stack's tag, and the tags of a key being created (KMS authorizes
 *   `kms:TagResource` for tags given to CreateKey): only the stack's tag key and its default tags'
 *   keys, the stack's tag set to its cluster, never over another cluster's tag; administration is
 *   granted by each key's own policy (components/iam.ts, `stackKeyPolicy`), never here.
 * - `aliases`: the stack's aliases (`alias/eks/<cluster>-…`).
 * - `grants`: the customer keys the plan grants on (EC2NodeClass volume keys).
 * - `logGroups`, `queues`, `eventRules`, `autoScalingGroups`: the stack's names.
 * - `ssm`: AWS's public parameters (`/aws/service/…`, AMI releases).
 * - `serviceLinkedRoleReads`: reading the account's service-linked roles (`role/aws-service-role/…`).
 * - `any`: read-only calls IAM cannot scope (`sts:GetCallerIdentity`, catalogue lookups).
 * - `none`: no AWS call.
 */
export type DeployScope =
    | "ec2"
    | "eks"
    | "clusters"
    | "roles"
    | "instanceProfiles"
    | "oidcProviders"
    | "serviceLinkedRoles"
    | "keys"
    | "aliases"
    | "grants"
    | "logGroups"
    | "queues"
    | "eventRules"
    | "autoScalingGroups"
    | "ssm"
    | "serviceLinkedRoleReads"
    | "any"
    | "none";

export interface DeployerActions {
    /** IAM actions of the provider's create, read, update and delete (tags included), sorted. */
    readonly actions: readonly string[];
    readonly scope: DeployScope;
    /** Actions of the same type on other scopes (e.g. a node group's launch-template reads on EC2). */
    readonly also?: Readonly<Partial<Record<DeployScope, readonly string[]>>>;
    /** The service a role of the stack is passed to (`iam:PassRole` with `iam:PassedToService`). */
    readonly passesRole?: string;
    /** Whether the key's own policy grants the provider's calls on the key (components/iam.ts, KEY_ADMINISTRATION_ACTIONS). */
    readonly byKeyPolicy?: boolean;
    /** Whether a call of this type passes a role without `iam:PassedToService` in the request. */
    readonly passesRoleWithoutService?: boolean;
    /**
     * The input that holds the name the scope's ARN is matched on, for scopes by name: `name` for
     * the resource that owns the name, the owner's name for what attaches to it (a role policy's
     * `role`, an event target's `rule`).
     */
    readonly namedBy?: string;
    /** The service whose service-linked role the first create of this type makes, on the caller's rights. */
    readonly createsServiceLinkedRole?: string;
    /** Where the actions were read. */
    readonly source: string;
}

const TF = "hashicorp/terraform-provider-aws (v6, bridged by @pulumi/aws 7.48.0)";

/** The provider's source for `file` (under internal/service/). */
function tf(file: string, note?: string): string {
    return `${TF} internal/service/${file}${note ? `; ${note}` : ""}`;
}

/** Read calls every EC2 resource's refresh and waiters make, and its tag calls. */
const EC2_TAGS = ["ec2:CreateTags", "ec2:DeleteTags"];

export const DEPLOYER_ACTIONS: Readonly<Record<string, DeployerActions>> = {
    // The network.
    "aws:ec2/vpc:Vpc": {
        actions: [
            "ec2:CreateVpc",
            "ec2:DeleteVpc",
            "ec2:DescribeVpcAttribute",
            "ec2:DescribeVpcs",
            "ec2:ModifyVpcAttribute",
            "ec2:DescribeNetworkAcls",
            "ec2:DescribeRouteTables",
            "ec2:DescribeSecurityGroups",
            "ec2:ModifyVpcTenancy",
            "ec2:AssociateVpcCidrBlock",
            "ec2:DisassociateVpcCidrBlock",
            ...EC2_TAGS,
        ],
        scope: "ec2",
        source: tf("ec2/vpc_.go", "the default network ACL, route table and security group are read after create"),
    },
    "aws:ec2/subnet:Subnet": {
        actions: [
            "ec2:CreateSubnet",
            "ec2:DeleteSubnet",
            "ec2:DescribeSubnets",
            "ec2:ModifySubnetAttribute",
            "ec2:AssociateSubnetCidrBlock",
            "ec2:DisassociateSubnetCidrBlock",
            // Delete removes the network interfaces left in the subnet first.
            "ec2:DescribeNetworkInterfaces",
            "ec2:DetachNetworkInterface",
            "ec2:DeleteNetworkInterface",
            ...EC2_TAGS,
        ],
        scope: "ec2",
        source: tf("ec2/vpc_subnet.go"),
    },
    "aws:ec2/internetGateway:InternetGateway": {
        actions: [
            "ec2:AttachInternetGateway",
            "ec2:CreateInternetGateway",
            "ec2:DeleteInternetGateway",
            "ec2:DescribeInternetGateways",
            "ec2:DetachInternetGateway",
            ...EC2_TAGS,
        ],
        scope: "ec2",
        source: tf("ec2/vpc_internet_gateway.go"),
    },
    "aws:ec2/eip:Eip": {
        actions: [
            "ec2:AllocateAddress",
            "ec2:DescribeAddresses",
            "ec2:DescribeAddressesAttribute",
            "ec2:ReleaseAddress",
            "ec2:AssociateAddress",
            "ec2:DisassociateAddress",
            ...EC2_TAGS,
        ],
        scope: "ec2",
        source: tf("ec2/ec2_eip.go"),
    },
    "aws:ec2/natGateway:NatGateway": {
        actions: [
            "ec2:CreateNatGateway",
            "ec2:DeleteNatGateway",
            "ec2:DescribeNatGateways",
            "ec2:AssociateNatGatewayAddress",
            "ec2:DisassociateNatGatewayAddress",
            "ec2:AssignPrivateNatGatewayAddress",
            "ec2:UnassignPrivateNatGatewayAddress",
            ...EC2_TAGS,
        ],
        scope: "ec2",
        source: tf("ec2/vpc_nat_gateway.go"),
    },
    "aws:ec2/routeTable:RouteTable": {
        actions: [
            "ec2:CreateRoute",
            "ec2:CreateRouteTable",
            "ec2:DeleteRoute",
            "ec2:DeleteRouteTable",
            "ec2:DescribeRouteTables",
            "ec2:ReplaceRoute",
            "ec2:DisableVgwRoutePropagation",
            "ec2:EnableVgwRoutePropagation",
            "ec2:DescribeNetworkInterfaces",
            "ec2:DisassociateRouteTable",
            ...EC2_TAGS,
        ],
        scope: "ec2",
        source: tf("ec2/vpc_route_table.go", "inline routes are created, replaced and deleted one by one"),
    },
    "aws:ec2/routeTableAssociation:RouteTableAssociation": {
        actions: ["ec2:AssociateRouteTable", "ec2:DescribeRouteTables", "ec2:DisassociateRouteTable", "ec2:ReplaceRouteTableAssociation"],
        scope: "ec2",
        source: tf("ec2/vpc_route_table_association.go"),
    },
    "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": {
        actions: [
            "ec2:DescribeSecurityGroups",
            "ec2:RevokeSecurityGroupEgress",
            "ec2:RevokeSecurityGroupIngress",
            "ec2:AuthorizeSecurityGroupEgress",
            "ec2:AuthorizeSecurityGroupIngress",
            ...EC2_TAGS,
        ],
        scope: "ec2",
        source: tf("ec2/vpc_default_security_group.go", "adopts the VPC's group and revokes its rules"),
    },
    "aws:ec2/securityGroup:SecurityGroup": {
        actions: [
            "ec2:AuthorizeSecurityGroupEgress",
            "ec2:AuthorizeSecurityGroupIngress",
            "ec2:CreateSecurityGroup",
            "ec2:DeleteSecurityGroup",
            "ec2:DescribeNetworkInterfaces",
            "ec2:DescribeSecurityGroups",
            "ec2:RevokeSecurityGroupEgress",
            "ec2:RevokeSecurityGroupIngress",
            "ec2:UpdateSecurityGroupRuleDescriptionsEgress",
            "ec2:UpdateSecurityGroupRuleDescriptionsIngress",
            "ec2:DetachNetworkInterface",
            "ec2:DeleteNetworkInterface",
            ...EC2_TAGS,
        ],
        scope: "ec2",
        source: tf("ec2/vpc_security_group.go", "the default egress rule is revoked after create; ENIs are read before delete"),
    },
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": {
        actions: [
            "ec2:AuthorizeSecurityGroupIngress",
            "ec2:DescribeSecurityGroupRules",
            "ec2:ModifySecurityGroupRules",
            "ec2:RevokeSecurityGroupIngress",
            ...EC2_TAGS,
        ],
        scope: "ec2",
        source: tf("ec2/vpc_security_group_ingress_rule.go"),
    },
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": {
        actions: [
            "ec2:AuthorizeSecurityGroupEgress",
            "ec2:DescribeSecurityGroupRules",
            "ec2:ModifySecurityGroupRules",
            "ec2:RevokeSecurityGroupEgress",
            ...EC2_TAGS,
        ],
        scope: "ec2",
        source: tf("ec2/vpc_security_group_egress_rule.go"),
    },
    "aws:ec2/vpcEndpoint:VpcEndpoint": {
        actions: [
            "ec2:CreateVpcEndpoint",
            "ec2:DeleteVpcEndpoints",
            "ec2:DescribePrefixLists",
            "ec2:DescribeNetworkInterfaces",
            "ec2:DescribeVpcEndpoints",
            "ec2:ModifyVpcEndpoint",
            ...EC2_TAGS,
        ],
        scope: "ec2",
        // With private DNS, EC2 associates its private hosted zone with the VPC on the caller's rights:
        // the Service Authorization Reference lists it as a dependent action of CreateVpcEndpoint (not
        // confirmed against an account here; issue #26's preflight is to check it).
        also: { any: ["route53:AssociateVPCWithHostedZone"] },
        source: tf("ec2/vpc_endpoint.go", "the service is looked up before create; Gateway endpoints read the prefix list"),
    },
    "aws:ec2/flowLog:FlowLog": {
        actions: ["ec2:CreateFlowLogs", "ec2:DeleteFlowLogs", "ec2:DescribeFlowLogs", ...EC2_TAGS],
        scope: "ec2",
        passesRole: "vpc-flow-logs.amazonaws.com",
        source: tf("ec2/vpc_flow_log.go", "deliver_logs_permission_arn is passed to VPC Flow Logs"),
    },
    "aws:ec2transitgateway/vpcAttachment:VpcAttachment": {
        actions: [
            "ec2:CreateTransitGatewayVpcAttachment",
            "ec2:DeleteTransitGatewayVpcAttachment",
            "ec2:AssociateTransitGatewayRouteTable",
            "ec2:DisassociateTransitGatewayRouteTable",
            "ec2:EnableTransitGatewayRouteTablePropagation",
            "ec2:DisableTransitGatewayRouteTablePropagation",
            "ec2:DescribeTransitGatewayVpcAttachments",
            "ec2:DescribeTransitGateways",
            "ec2:GetTransitGatewayRouteTableAssociations",
            "ec2:GetTransitGatewayRouteTablePropagations",
            "ec2:ModifyTransitGatewayVpcAttachment",
            ...EC2_TAGS,
        ],
        scope: "ec2",
        // Amazon VPC Transit Gateways, "Service-linked role for transit gateways": made by the first attachment.
        createsServiceLinkedRole: "transitgateway.amazonaws.com",
        source: tf("ec2/transitgateway_vpc_attachment.go", "the default route table association and propagation are read"),
    },
    "aws:ec2/launchTemplate:LaunchTemplate": {
        actions: [
            "ec2:CreateLaunchTemplate",
            "ec2:CreateLaunchTemplateVersion",
            "ec2:DeleteLaunchTemplate",
            "ec2:DescribeLaunchTemplateVersions",
            "ec2:DescribeLaunchTemplates",
            "ec2:ModifyLaunchTemplate",
            ...EC2_TAGS,
        ],
        scope: "ec2",
        source: tf("ec2/ec2_launch_template.go", "an update creates a version and makes it the default"),
    },

    // EKS.
    "eks:index:Cluster": {
        // pulumi-eks 4.3.0's component: with the program's arguments it creates the EKS cluster and
        // the OIDC provider (its other children are turned off: skipDefaultNodeGroup,
        // skipDefaultSecurityGroups, the default add-ons, the creator's admin entry).
        actions: [
            "eks:AssociateEncryptionConfig",
            "eks:DeleteCluster",
            "eks:DescribeCluster",
            "eks:DescribeUpdate",
            "eks:TagResource",
            "eks:UntagResource",
            "eks:UpdateClusterConfig",
            "eks:UpdateClusterVersion",
        ],
        scope: "eks",
        also: {
            clusters: ["eks:CreateCluster"],
            oidcProviders: [
                "iam:AddClientIDToOpenIDConnectProvider",
                "iam:RemoveClientIDFromOpenIDConnectProvider",
                "iam:CreateOpenIDConnectProvider",
                "iam:DeleteOpenIDConnectProvider",
                "iam:GetOpenIDConnectProvider",
                "iam:TagOpenIDConnectProvider",
                "iam:UntagOpenIDConnectProvider",
                "iam:UpdateOpenIDConnectProviderThumbprint",
            ],
        },
        passesRole: "eks.amazonaws.com",
        createsServiceLinkedRole: "eks.amazonaws.com",
        source: `pulumi/pulumi-eks v4.3.0 nodejs/eks/cluster.ts (the cluster and its OIDC provider); ${tf("eks/cluster.go")}; ${tf("iam/openid_connect_provider.go")}`,
    },
    "aws:eks/addon:Addon": {
        actions: [
            "eks:CreateAddon",
            "eks:DeleteAddon",
            "eks:DescribeAddon",
            "eks:DescribePodIdentityAssociation",
            "eks:DescribeUpdate",
            "eks:TagResource",
            "eks:UntagResource",
            "eks:UpdateAddon",
        ],
        scope: "eks",
        // Its podIdentityAssociations pass their roles: to EKS, per the Service Authorization Reference's
        // row for CreateAddon.
        passesRole: "eks.amazonaws.com",
        source: tf("eks/addon.go"),
    },
    "aws:eks/nodeGroup:NodeGroup": {
        actions: [
            "eks:CreateNodegroup",
            "eks:DeleteNodegroup",
            "eks:DescribeNodegroup",
            "eks:DescribeUpdate",
            "eks:TagResource",
            "eks:UntagResource",
            "eks:UpdateNodegroupConfig",
            "eks:UpdateNodegroupVersion",
        ],
        scope: "eks",
        // EKS launches the group's instances with its own service-linked role, but checks that the
        // caller may launch from the group's launch template: with `tagSpecifications` (this
        // program's templates tag instances and volumes) the caller needs ec2:RunInstances and
        // ec2:CreateTags (EKS User Guide, "Customize managed nodes with launch templates").
        also: { ec2: ["ec2:CreateTags", "ec2:DescribeLaunchTemplateVersions", "ec2:RunInstances"] },
        passesRole: "eks.amazonaws.com",
        createsServiceLinkedRole: "eks-nodegroup.amazonaws.com",
        source: `${tf("eks/node_group.go")}; Amazon EKS User Guide, "Customize managed nodes with launch templates" (the caller's launch-template permissions)`,
    },
    "aws:eks/accessEntry:AccessEntry": {
        actions: [
            "eks:CreateAccessEntry",
            "eks:DeleteAccessEntry",
            "eks:DescribeAccessEntry",
            "eks:TagResource",
            "eks:UntagResource",
            "eks:UpdateAccessEntry",
        ],
        scope: "eks",
        // The Service Authorization Reference lists iam:PassRole (to EC2) as a dependent action: an
        // EC2_LINUX entry names a node role, which is the stack's.
        passesRole: "ec2.amazonaws.com",
        source: tf("eks/access_entry.go"),
    },
    "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": {
        actions: ["eks:AssociateAccessPolicy", "eks:DisassociateAccessPolicy", "eks:ListAssociatedAccessPolicies"],
        scope: "eks",
        source: tf("eks/access_policy_association.go"),
    },
    "aws:eks/podIdentityAssociation:PodIdentityAssociation": {
        actions: [
            "eks:CreatePodIdentityAssociation",
            "eks:DeletePodIdentityAssociation",
            "eks:DescribePodIdentityAssociation",
            "eks:TagResource",
            "eks:UntagResource",
            "eks:UpdatePodIdentityAssociation",
        ],
        scope: "eks",
        passesRole: "pods.eks.amazonaws.com",
        source: `${tf("eks/pod_identity_association.go")}; Amazon EKS User Guide, "Assign an IAM role to a Kubernetes service account" (iam:PassRole)`,
    },

    // IAM.
    "aws:iam/role:Role": {
        actions: [
            "iam:CreateRole",
            "iam:DeleteRole",
            "iam:DeleteRolePolicy",
            "iam:DetachRolePolicy",
            "iam:GetRole",
            "iam:GetRolePolicy",
            "iam:ListAttachedRolePolicies",
            "iam:ListInstanceProfilesForRole",
            "iam:ListRolePolicies",
            "iam:PutRolePermissionsBoundary",
            "iam:TagRole",
            "iam:UntagRole",
            "iam:UpdateAssumeRolePolicy",
            "iam:UpdateRole",
            "iam:UpdateRoleDescription",
        ],
        scope: "roles",
        namedBy: "name",
        // Deleting a role first removes it from every instance profile that holds it: an action on
        // the profile, not the role (Service Authorization Reference, IAM), Karpenter's included.
        also: { instanceProfiles: ["iam:RemoveRoleFromInstanceProfile"] },
        source: tf(
            "iam/role.go",
            "delete detaches policies and removes instance profiles first; iam:DeleteRolePermissionsBoundary, called when a boundary is removed, is never granted: a role of the stack keeps it",
        ),
    },
    "aws:iam/rolePolicy:RolePolicy": {
        actions: ["iam:DeleteRolePolicy", "iam:GetRolePolicy", "iam:PutRolePolicy"],
        scope: "roles",
        namedBy: "role",
        source: tf("iam/role_policy.go"),
    },
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": {
        actions: ["iam:AttachRolePolicy", "iam:DetachRolePolicy", "iam:ListAttachedRolePolicies"],
        scope: "roles",
        namedBy: "role",
        source: tf("iam/role_policy_attachment.go"),
    },
    "aws:iam/instanceProfile:InstanceProfile": {
        actions: [
            "iam:AddRoleToInstanceProfile",
            "iam:CreateInstanceProfile",
            "iam:DeleteInstanceProfile",
            "iam:GetInstanceProfile",
            "iam:GetRole",
            "iam:RemoveRoleFromInstanceProfile",
            "iam:TagInstanceProfile",
            "iam:UntagInstanceProfile",
        ],
        scope: "instanceProfiles",
        namedBy: "name",
        // AddRoleToInstanceProfile passes the role with no iam:PassedToService in the request
        // (tools/roles/deployRole.ts then allows PassRole of the stack's roles when the key is absent).
        passesRole: "ec2.amazonaws.com",
        passesRoleWithoutService: true,
        source: tf("iam/instance_profile.go", "adding a role to a profile passes it (to EC2, at launch)"),
    },
    "aws:iam/serviceLinkedRole:ServiceLinkedRole": {
        actions: ["iam:CreateServiceLinkedRole"],
        scope: "serviceLinkedRoles",
        // retainOnDelete: the program never deletes it; reads and description updates are on the role.
        also: { any: ["iam:GetRole"] },
        source: tf("iam/service_linked_role.go"),
    },

    // KMS.
    "aws:kms/key:Key": {
        actions: ["kms:CreateKey", "kms:TagResource"],
        scope: "keys",
        // The provider's other calls on the key (describe, policy, rotation, tags, deletion) are
        // granted by the key's own policy: KEY_ADMINISTRATION_ACTIONS.
        byKeyPolicy: true,
        source: `${tf("kms/key.go")}; AWS KMS Developer Guide, "Tagging keys" (creating a key with tags needs kms:TagResource)`,
    },
    "aws:kms/alias:Alias": {
        actions: ["kms:CreateAlias", "kms:DeleteAlias", "kms:UpdateAlias"],
        scope: "aliases",
        // The key side of an alias call is authorized by the key's policy.
        byKeyPolicy: true,
        namedBy: "name",
        also: { any: ["kms:ListAliases"] },
        source: `${tf("kms/alias.go")}; AWS KMS Developer Guide, "Controlling access to aliases" (the key side is in the key's policy)`,
    },
    "aws:kms/grant:Grant": {
        actions: ["kms:CreateGrant", "kms:ListGrants", "kms:RetireGrant", "kms:RevokeGrant"],
        scope: "grants",
        source: tf("kms/grant.go"),
    },

    // Logs, queues, events.
    "aws:cloudwatch/logGroup:LogGroup": {
        actions: [
            "logs:CreateLogGroup",
            "logs:DeleteLogGroup",
            "logs:DeleteRetentionPolicy",
            "logs:ListTagsForResource",
            "logs:PutRetentionPolicy",
            "logs:PutLogGroupDeletionProtection",
            "logs:AssociateKmsKey",
            "logs:DisassociateKmsKey",
            "logs:TagResource",
            "logs:UntagResource",
        ],
        scope: "logGroups",
        namedBy: "name",
        also: { any: ["logs:DescribeLogGroups"] },
        source: tf("logs/group.go"),
    },
    "aws:sqs/queue:Queue": {
        actions: [
            "sqs:CreateQueue",
            "sqs:DeleteQueue",
            "sqs:GetQueueAttributes",
            "sqs:ListQueueTags",
            "sqs:SetQueueAttributes",
            "sqs:TagQueue",
            "sqs:UntagQueue",
        ],
        scope: "queues",
        namedBy: "name",
        source: tf("sqs/queue.go"),
    },
    "aws:sqs/queuePolicy:QueuePolicy": {
        actions: ["sqs:GetQueueAttributes", "sqs:SetQueueAttributes"],
        scope: "queues",
        source: tf("sqs/queue_policy.go"),
    },
    "aws:cloudwatch/eventRule:EventRule": {
        actions: [
            "events:DeleteRule",
            "events:DescribeRule",
            "events:ListTagsForResource",
            "events:PutRule",
            "events:TagResource",
            "events:UntagResource",
        ],
        scope: "eventRules",
        namedBy: "name",
        source: tf("events/rule.go"),
    },
    "aws:cloudwatch/eventTarget:EventTarget": {
        actions: ["events:ListTargetsByRule", "events:PutTargets", "events:RemoveTargets"],
        scope: "eventRules",
        namedBy: "rule",
        source: tf("events/target.go"),
    },

    // Auto Scaling (self-managed node groups).
    "aws:autoscaling/group:Group": {
        actions: [
            "autoscaling:CreateAutoScalingGroup",
            "autoscaling:CreateOrUpdateTags",
            "autoscaling:DeleteAutoScalingGroup",
            "autoscaling:DeleteTags",
            "autoscaling:SetInstanceProtection",
            "autoscaling:StartInstanceRefresh",
            "autoscaling:CancelInstanceRefresh",
            "autoscaling:UpdateAutoScalingGroup",
            "autoscaling:PutWarmPool",
            "autoscaling:DeleteWarmPool",
            "autoscaling:SuspendProcesses",
            "autoscaling:ResumeProcesses",
            "autoscaling:EnableMetricsCollection",
            "autoscaling:DisableMetricsCollection",
            "autoscaling:PutLifecycleHook",
            "autoscaling:AttachLoadBalancers",
            "autoscaling:DetachLoadBalancers",
            "autoscaling:AttachLoadBalancerTargetGroups",
            "autoscaling:DetachLoadBalancerTargetGroups",
            "autoscaling:AttachTrafficSources",
            "autoscaling:DetachTrafficSources",
        ],
        scope: "autoScalingGroups",
        namedBy: "name",
        also: {
            any: [
                "autoscaling:DescribeAutoScalingGroups",
                "autoscaling:DescribeInstanceRefreshes",
                "autoscaling:DescribeLoadBalancerTargetGroups",
                "autoscaling:DescribeLoadBalancers",
                "autoscaling:DescribeTrafficSources",
                "autoscaling:DescribeScalingActivities",
                "autoscaling:DescribeWarmPool",
            ],
            // Auto Scaling checks the caller may launch from the template (EC2 Auto Scaling User Guide,
            // "Permissions to use launch templates").
            ec2: ["ec2:CreateTags", "ec2:DescribeLaunchTemplateVersions", "ec2:DescribeLaunchTemplates", "ec2:RunInstances"],
        },
        passesRole: "ec2.amazonaws.com",
        createsServiceLinkedRole: "autoscaling.amazonaws.com",
        source: `${tf("autoscaling/group.go")}; Amazon EC2 Auto Scaling User Guide, "Control the use of launch templates in Auto Scaling groups"`,
    },
    "aws:autoscaling/lifecycleHook:LifecycleHook": {
        actions: ["autoscaling:DeleteLifecycleHook", "autoscaling:PutLifecycleHook"],
        scope: "autoScalingGroups",
        namedBy: "autoScalingGroupName",
        also: { any: ["autoscaling:DescribeLifecycleHooks"] },
        source: tf("autoscaling/lifecycle_hook.go"),
    },

    // No AWS call: the program's components, Kubernetes objects (reached through the cluster's
    // access entry), the providers.
    "pulumi:providers:kubernetes": { actions: [], scope: "none", source: "a provider: no AWS resource" },
};

/**
 * The read-only calls of `npm run preflight` (tools/preflight/preflightChecks.ts) that IAM cannot scope to a
 * resource, besides `ssm:GetParameter` (AWS's public parameters) and `iam:GetRole` (the account's
 * service-linked roles). The preview role (docs/roles.md) and the deploy role (tools/roles/deployRole.ts) get them.
 */
export const PREFLIGHT_READS: readonly string[] = [
    "ec2:DescribeInstanceTypeOfferings",
    "ec2:DescribeTransitGatewayVpcAttachments",
    "ec2:DescribeTransitGateways",
    "ec2:SearchTransitGatewayRoutes",
    "eks:DescribeAddonConfiguration",
    "eks:DescribeAddonVersions",
    "servicequotas:GetServiceQuota",
    "sts:GetCallerIdentity",
];

/** Calls the program makes whatever it registers: the provider's own start and the invokes (components/iam.ts, selfManaged.ts). */
export const DEPLOYER_INVOKES: readonly { readonly actions: readonly string[]; readonly scope: DeployScope; readonly source: string }[] = [
    {
        actions: ["sts:GetCallerIdentity"],
        scope: "any",
        source: "the AWS provider's Configure and aws.getCallerIdentity (components/iam.ts, awsContext)",
    },
    { actions: ["ssm:GetParameter"], scope: "ssm", source: "aws.ssm.getParameter of AMI releases (components/nodegroups/selfManaged.ts)" },
    // `npm run preflight` before `up` (tools/preflight/preflightChecks.ts): reads only.
    {
        actions: PREFLIGHT_READS,
        scope: "any",
        source: "npm run preflight (tools/preflight/preflightChecks.ts), run by the deploy job before up",
    },
    {
        actions: ["iam:GetRole"],
        scope: "serviceLinkedRoleReads",
        source: "npm run preflight: whether the stack's service-linked roles exist",
    },
];

/**
 * Types that make no AWS call: the program's components (`platform:…`) and everything of the
 * Kubernetes provider (objects and Helm releases, reached through the deploy role's access entry;
 * charts come from public registries).
 */
export function makesNoAwsCall(type: string): boolean {
    return type.startsWith("platform:") || type.startsWith("kubernetes:");
}
