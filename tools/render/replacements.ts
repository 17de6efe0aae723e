/**
 * What an input change does to a live resource, per resource type this program registers: which
 * inputs force a replacement (delete and re-create: new id, new addresses, drained nodes), and
 * which roll the nodes behind a resource without replacing it. Data, with its source: the bridged
 * AWS provider replaces a resource exactly where the Terraform AWS provider's schema marks the
 * attribute `ForceNew` (pulumi-aws maps each Terraform attribute to the camelCase input).
 * Paths are dot-separated input paths (`launchTemplate.id`); a change anywhere under a listed
 * path counts. Keep this list to the types the program uses; an unlisted type is diffed as
 * update-only and the diff says so. The types a node-group kind owns (its node group or Auto
 * Scaling group, …) come with the kind (`components/nodegroups/kinds.ts`), not from this table.
 */
import { type ReplacementRule, terraformForceNew as tf } from "eks-platform-kernel";
import { withKindFacts } from "../../components/nodegroups/kinds";

export type { ReplacementRule } from "eks-platform-kernel";

/** The types no node-group kind owns. */
const TABLE: Readonly<Record<string, ReplacementRule>> = {
    "aws:ec2/vpc:Vpc": {
        replaceOn: ["cidrBlock", "ipv4IpamPoolId", "ipv4NetmaskLength"],
        source: tf("aws_vpc", "cidr_block, ipv4_ipam_pool_id, ipv4_netmask_length"),
    },
    "aws:ec2/subnet:Subnet": {
        replaceOn: [
            "cidrBlock",
            "availabilityZone",
            "availabilityZoneId",
            "vpcId",
            "outpostArn",
            "ipv4IpamPoolId",
            "ipv4NetmaskLength",
            "ipv6IpamPoolId",
            "ipv6Native",
            "ipv6NetmaskLength",
        ],
        source: tf(
            "aws_subnet",
            "cidr_block, availability_zone, availability_zone_id, vpc_id, outpost_arn, ipv4_ipam_pool_id, ipv4_netmask_length, ipv6_ipam_pool_id, ipv6_native, ipv6_netmask_length",
        ),
    },
    "aws:ec2/natGateway:NatGateway": {
        replaceOn: ["allocationId", "subnetId", "connectivityType", "privateIp", "availabilityMode", "vpcId"],
        source: tf("aws_nat_gateway", "allocation_id, subnet_id, connectivity_type, private_ip, availability_mode, vpc_id"),
    },
    "aws:ec2/eip:Eip": {
        replaceOn: ["domain", "address", "publicIpv4Pool", "networkBorderGroup", "ipamPoolId"],
        source: tf("aws_eip", "domain, address, public_ipv4_pool, network_border_group, ipam_pool_id"),
    },
    "aws:ec2/internetGateway:InternetGateway": { replaceOn: [], source: tf("aws_internet_gateway", "nothing (vpc_id re-attaches)") },
    "aws:ec2/routeTable:RouteTable": { replaceOn: ["vpcId"], source: tf("aws_route_table", "vpc_id") },
    "aws:ec2/routeTableAssociation:RouteTableAssociation": {
        replaceOn: ["subnetId", "gatewayId"],
        source: tf("aws_route_table_association", "subnet_id, gateway_id"),
    },
    "aws:ec2/securityGroup:SecurityGroup": {
        replaceOn: ["name", "namePrefix", "description", "vpcId"],
        source: tf("aws_security_group", "name, name_prefix, description, vpc_id"),
    },
    "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": { replaceOn: ["vpcId"], source: tf("aws_default_security_group", "vpc_id") },
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": {
        replaceOn: ["securityGroupId"],
        source: "terraform-provider-aws aws_vpc_security_group_ingress_rule schema: RequiresReplace on security_group_id",
    },
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": {
        replaceOn: ["securityGroupId"],
        source: "terraform-provider-aws aws_vpc_security_group_egress_rule schema: RequiresReplace on security_group_id",
    },
    "aws:ec2/vpcEndpoint:VpcEndpoint": {
        replaceOn: [
            "vpcId",
            "serviceName",
            "vpcEndpointType",
            "serviceRegion",
            "serviceNetworkArn",
            "resourceConfigurationArn",
            "dnsOptions.privateDnsPreference",
            "dnsOptions.privateDnsSpecifiedDomains",
        ],
        source: tf(
            "aws_vpc_endpoint",
            "vpc_id, service_name, vpc_endpoint_type, service_region, service_network_arn, resource_configuration_arn, dns_options.private_dns_preference, dns_options.private_dns_specified_domains",
        ),
    },
    "aws:ec2/flowLog:FlowLog": {
        replaceOn: [
            "vpcId",
            "subnetId",
            "logDestination",
            "logDestinationType",
            "trafficType",
            "iamRoleArn",
            "maxAggregationInterval",
            "logFormat",
            "destinationOptions",
            "deliverCrossAccountRole",
            "eniId",
            "regionalNatGatewayId",
            "transitGatewayId",
            "transitGatewayAttachmentId",
            // Newer than the schema read (which updates tags only): judged to replace too.
            "tagFieldSpecifications",
        ],
        source: tf("aws_flow_log", "every attribute but tags"),
    },
    // A template change is a new version, never a replacement; the groups that use it roll (their kinds' rules).
    "aws:ec2/launchTemplate:LaunchTemplate": { replaceOn: ["name", "namePrefix"], source: tf("aws_launch_template", "name, name_prefix") },
    // The Transit Gateway attachment the private API endpoint is reached through (components/network.ts):
    // its subnets and options are modified in place.
    "aws:ec2transitgateway/vpcAttachment:VpcAttachment": {
        replaceOn: ["transitGatewayId", "vpcId"],
        source: tf("aws_ec2_transit_gateway_vpc_attachment", "transit_gateway_id, vpc_id"),
    },
    "aws:iam/role:Role": { replaceOn: ["name", "namePrefix", "path"], source: tf("aws_iam_role", "name, name_prefix, path") },
    "aws:iam/rolePolicy:RolePolicy": {
        replaceOn: ["name", "namePrefix", "role"],
        source: tf("aws_iam_role_policy", "name, name_prefix, role"),
    },
    "aws:iam/serviceLinkedRole:ServiceLinkedRole": {
        replaceOn: ["awsServiceName", "customSuffix"],
        source: tf("aws_iam_service_linked_role", "aws_service_name, custom_suffix"),
    },
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": {
        replaceOn: ["role", "policyArn"],
        source: tf("aws_iam_role_policy_attachment", "role, policy_arn"),
    },
    "aws:kms/key:Key": {
        replaceOn: ["customerMasterKeySpec", "keyUsage", "multiRegion", "xksKeyId", "customKeyStoreId"],
        source: tf("aws_kms_key", "customer_master_key_spec, key_usage, multi_region, xks_key_id, custom_key_store_id"),
    },
    // A grant has no update: every argument is ForceNew.
    "aws:kms/grant:Grant": {
        replaceOn: [
            "constraints",
            "grantCreationTokens",
            "granteePrincipal",
            "keyId",
            "name",
            "operations",
            "retireOnDelete",
            "retiringPrincipal",
        ],
        source: tf("aws_kms_grant", "every attribute (it has no update)"),
    },
    "aws:kms/alias:Alias": { replaceOn: ["name", "namePrefix"], source: tf("aws_kms_alias", "name, name_prefix") },
    "aws:cloudwatch/logGroup:LogGroup": {
        replaceOn: ["name", "namePrefix", "logGroupClass"],
        source: tf("aws_cloudwatch_log_group", "name, name_prefix, log_group_class"),
    },
    "aws:cloudwatch/eventRule:EventRule": {
        replaceOn: ["name", "namePrefix", "eventBusName"],
        source: tf("aws_cloudwatch_event_rule", "name, name_prefix, event_bus_name"),
    },
    "aws:cloudwatch/eventTarget:EventTarget": {
        replaceOn: ["rule", "targetId", "eventBusName"],
        source: tf("aws_cloudwatch_event_target", "rule, target_id, event_bus_name"),
    },
    "aws:sqs/queue:Queue": { replaceOn: ["name", "namePrefix", "fifoQueue"], source: tf("aws_sqs_queue", "name, name_prefix, fifo_queue") },
    "aws:sqs/queuePolicy:QueuePolicy": { replaceOn: ["queueUrl"], source: tf("aws_sqs_queue_policy", "queue_url") },
    "aws:eks/accessEntry:AccessEntry": {
        replaceOn: ["clusterName", "principalArn", "type"],
        source: tf("aws_eks_access_entry", "cluster_name, principal_arn, type"),
    },
    "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": {
        replaceOn: ["clusterName", "principalArn", "policyArn", "accessScope"],
        source: tf("aws_eks_access_policy_association", "every attribute (it has no update)"),
    },
    "aws:eks/addon:Addon": { replaceOn: ["clusterName", "addonName"], source: tf("aws_eks_addon", "cluster_name, addon_name") },
    "aws:eks/podIdentityAssociation:PodIdentityAssociation": {
        replaceOn: ["clusterName", "namespace", "serviceAccount"],
        source: tf("aws_eks_pod_identity_association", "cluster_name, namespace, service_account"),
    },
    // pulumi-eks's Cluster component: its aws:eks/cluster:Cluster child is replaced, on these
    // component arguments (nodejs/eks/cluster/cluster.ts maps them). Its subnets
    // (vpc_config.subnet_ids) and security groups are updated in place (UpdateClusterConfig); a new
    // encryption key is no replacement either (only removing encryption_config is, and the program
    // always sets it); bootstrapSelfManagedAddons and the creator's admin permissions are ForceNew
    // upstream but the component ignores changes to them.
    "eks:index:Cluster": {
        replaceOn: ["name", "vpcId", "serviceRole", "kubernetesServiceIpAddressRange", "ipFamily"],
        source:
            tf("aws_eks_cluster", "name, role_arn, kubernetes_network_config.service_ipv4_cidr, kubernetes_network_config.ip_family") +
            "; a cluster cannot move to another VPC; vpc_config.subnet_ids, security_group_ids and encryption_config's key are updated in place",
    },
    // The EBS CSI driver's default class (components/addons/ebsCsi.ts): a new key or volume type is a new class.
    // A new reclaim policy or binding mode is refused by the API server, and pulumi-kubernetes does not
    // replace on either: the update fails.
    "kubernetes:storage.k8s.io/v1:StorageClass": {
        replaceOn: ["metadata.name", "metadata.namespace", "parameters", "provisioner"],
        refusedOn: ["reclaimPolicy", "volumeBindingMode"],
        source:
            "pulumi-kubernetes provider/pkg/provider/diff.go forceNew: StorageClass .parameters and .provisioner, and every object's name and namespace; " +
            "the API server forbids updates to reclaimPolicy and volumeBindingMode (ValidateStorageClassUpdate), which pulumi-kubernetes patches, so the update fails",
    },
    // The team namespaces' quotas (components/namespaces.ts): pulumi-kubernetes forces new on spec.scopes.
    "kubernetes:core/v1:ResourceQuota": {
        replaceOn: ["metadata.name", "metadata.namespace", "spec.scopes"],
        source: "pulumi-kubernetes provider/pkg/provider/diff.go forceNew: core/v1 ResourceQuota .spec.scopes, and every object's name and namespace",
    },
    "kubernetes:helm.sh/v3:Release": {
        replaceOn: ["name", "namespace"],
        source: "pulumi-kubernetes provider/pkg/provider/helm_release.go (helm.sh/v3 Release) Diff forceNewFields: .name, .namespace; every other input is a helm upgrade",
    },
};

/** The rule of every type the program registers: the table's, and those of the node-group kinds' own types. */
export const REPLACEMENT_RULES: Readonly<Record<string, ReplacementRule>> = withKindFacts(
    TABLE,
    (t) => t.replacement,
    "tools/render/replacements.ts",
);

/**
 * The types the program registers that hold no rule on purpose, each with why; a prefix ending in
 * `:` covers a package. Every other registered type has a rule (test/tools/replacements*.test.ts).
 */
export const NO_RULE_NEEDED: Readonly<Record<string, string>> = {
    "platform:": "the program's own component resources: no cloud state of their own, a change reaches the children that hold it",
    "pulumi:providers:kubernetes":
        "pulumi-kubernetes DiffConfig replaces the provider only when the kubeconfig's active cluster changes (a replaced eks:index:Cluster, which the diff already shows) or clusterIdentifier does; the program sets no clusterIdentifier",
};

/** Why a registered type needs no rule, or undefined when it needs one. */
export function noRuleNeeded(type: string): string | undefined {
    const key = Object.keys(NO_RULE_NEEDED).find((k) => (k.endsWith(":") ? type.startsWith(k) : type === k));
    return key === undefined ? undefined : NO_RULE_NEEDED[key];
}

/** Every Kubernetes object is replaced when its name or namespace changes (pulumi-kubernetes). */
export const KUBERNETES_REPLACE_ON: readonly string[] = ["metadata.name", "metadata.namespace"];

/** The rule for a type: its entry, the Kubernetes rule for `kubernetes:` types, or none. */
export function replacementRule(type: string): ReplacementRule | undefined {
    const rule = REPLACEMENT_RULES[type];
    if (rule) {
        return rule;
    }
    return type.startsWith("kubernetes:") && !type.startsWith("kubernetes:helm.sh/")
        ? { replaceOn: KUBERNETES_REPLACE_ON, source: "pulumi-kubernetes: metadata.name and metadata.namespace are immutable" }
        : undefined;
}
