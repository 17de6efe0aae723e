import * as aws from "@pulumi/aws";
import * as eks from "@pulumi/eks";
import * as pulumi from "@pulumi/pulumi";
import { PLATFORM_CLUSTER_TAG } from "eks-platform-kernel";
import type { ComputeChoice } from "./compute/mode";
import { accountContext, stackKeyPolicy, stackPermissionsBoundary, trustPolicy } from "./iam";

export interface ClusterArgs {
    /** Static cluster name from config (never auto-named: tags and policies read it at preview). */
    clusterName: string;
    /** The deploy role (`access.deployer`): the only role the secrets key's policy lets administer it. */
    keyAdministrator: string;
    /** Kubernetes minor version, pinned per stack. */
    version: string;
    /** The upgrade policy at the end of standard support (`cluster.supportType`). */
    supportType: "STANDARD" | "EXTENDED";
    vpcId: pulumi.Input<string>;
    privateSubnetIds: pulumi.Input<string>[];
    publicSubnetIds: pulumi.Input<string>[];
    /** Endpoint exposure and the deployer's route to it (`cluster.endpoint` in stack config). */
    endpoint: { publicAccess: boolean; publicAccessCidrs: string[]; privateAccessCidrs: string[]; privateAccessSecurityGroupIds: string[] };
    logTypes: string[];
    logRetentionDays: number;
    serviceCidr: string;
    /** Pinned versions of the add-ons installed before any node exists (CNI, kube-proxy, Pod Identity agent). */
    addons: { vpcCni: string; kubeProxy: string; podIdentityAgent: string };
    /** Extra `configurationValues` for the VPC CNI add-on. Defaults to `{}`. */
    vpcCniConfiguration?: Record<string, unknown>;
    /** Protect the control plane and its KMS key from deletion. Defaults to `false`. */
    protect?: boolean;
    /**
     * The stack's compute mode (components/compute, e.g. EKS Auto Mode): its parts of the control
     * plane, and whether it runs the pre-compute add-ons itself (`runs` has `clusterAddons`). Defaults
     * to none, a standard cluster.
     */
    compute?: ComputeChoice;
}

/**
 * EKS gives whoever creates a cluster an admin access entry that Pulumi's state never sees, and
 * pulumi-eks 4.3 always asks for it (`bootstrapClusterCreatorAdminPermissions: true` on its
 * `aws.eks.Cluster`, with no argument to turn it off). Any entry the program then creates for the
 * same principal -- the deployer's, or an admin's when an admin runs the first `up` -- fails with
 * `ResourceInUseException`. This transform turns the bootstrap entry off on the child cluster, so
 * every access entry, the deployer's included, lives in state (components/access.ts). Transforms
 * reach the children of packaged components such as eks.Cluster (Pulumi docs, "transforms").
 * The setting is read at creation only: pulumi-eks ignores later changes to it.
 */
export const withoutCreatorAdminEntry: pulumi.ResourceTransform = (args) => {
    if (args.type !== "aws:eks/cluster:Cluster") {
        return undefined;
    }
    const accessConfig = (args.props.accessConfig ?? {}) as Record<string, unknown>;
    return { props: { ...args.props, accessConfig: { ...accessConfig, bootstrapClusterCreatorAdminPermissions: false } }, opts: args.opts };
};

/** A logical-name suffix for a CIDR or security group id: its characters, never its list position. Pure. */
export function routeKey(source: string): string {
    return source.replace(/[./]/g, "-");
}

/** Security groups, by role: their ids as the ingress rules reference them. */
export interface ClusterSecurityGroups<T> {
    controlPlane: T;
    nodes: T;
}

/**
 * The ingress rules between nodes and the control plane, keyed by a stable name (the logical name
 * of each rule). Pure: tests read them without mocks.
 */
export function nodeIngressRules(sg: ClusterSecurityGroups<pulumi.Input<string>>): [string, aws.vpc.SecurityGroupIngressRuleArgs][] {
    const tcp = (fromPort: number, toPort: number) => ({ ipProtocol: "tcp", fromPort, toPort });
    return [
        [
            "nodes-from-nodes",
            { securityGroupId: sg.nodes, referencedSecurityGroupId: sg.nodes, ipProtocol: "-1", description: "Node to node (pods, DNS)" },
        ],
        [
            "nodes-from-control-plane-443",
            { securityGroupId: sg.nodes, referencedSecurityGroupId: sg.controlPlane, ...tcp(443, 443), description: "Admission webhooks" },
        ],
        [
            "nodes-from-control-plane-kubelet",
            {
                securityGroupId: sg.nodes,
                referencedSecurityGroupId: sg.controlPlane,
                ...tcp(10250, 10250),
                description: "Kubelet API (logs, exec)",
            },
        ],
        [
            "nodes-from-control-plane-ephemeral",
            {
                securityGroupId: sg.nodes,
                referencedSecurityGroupId: sg.controlPlane,
                ...tcp(1025, 65535),
                description: "Webhooks and aggregated APIs on high ports",
            },
        ],
        [
            "control-plane-from-nodes",
            {
                securityGroupId: sg.controlPlane,
                referencedSecurityGroupId: sg.nodes,
                ...tcp(443, 443),
                description: "Nodes to the API server",
            },
        ],
    ];
}

/**
 * The deployer's route to the private endpoint, as 443 ingress sources of the control plane's
 * group: each CIDR and security group of `cluster.endpoint`, keyed by the source itself (never
 * its list position, so removing one rule replaces no other). Pure.
 */
export function apiAccessSources(
    endpoint: ClusterArgs["endpoint"],
): { key: string; source: string; from: Partial<aws.vpc.SecurityGroupIngressRuleArgs> }[] {
    return [
        ...endpoint.privateAccessCidrs.map((block) => ({ key: routeKey(block), source: block, from: { cidrIpv4: block } })),
        ...endpoint.privateAccessSecurityGroupIds.map((sg) => ({ key: routeKey(sg), source: sg, from: { referencedSecurityGroupId: sg } })),
    ];
}

/** Tags of the node security group: the only group tagged for the cluster on a node's ENI, and Karpenter's discovery tag. Pure. */
export function nodeSecurityGroupTags(clusterName: string): Record<string, string> {
    return {
        Name: `${clusterName}-nodes`,
        [`kubernetes.io/cluster/${clusterName}`]: "owned",
        "karpenter.sh/discovery": clusterName,
    };
}

/**
 * The `eks.Cluster` arguments: private endpoint always on, API authentication mode, no default
 * node group or security groups, pinned add-ons managed by the program (none of EKS's unmanaged
 * defaults). Pure: `deps` carries the resources it references.
 */
export function controlPlaneArgs(
    args: ClusterArgs,
    deps: {
        controlPlaneSecurityGroup: aws.ec2.SecurityGroup;
        serviceRole: aws.iam.Role;
        kmsKeyArn: pulumi.Input<string>;
        /** The options the stack's compute mode sets (`ComputeClusterParts.options`). */
        compute?: Partial<eks.ClusterOptions>;
    },
): eks.ClusterOptions {
    return {
        ...deps.compute,
        name: args.clusterName,
        version: args.version,
        upgradePolicy: { supportType: args.supportType },
        vpcId: args.vpcId,
        privateSubnetIds: args.privateSubnetIds,
        // EKS Auto Mode's built-in pools launch into the cluster's own subnets (its default NodeClass),
        // and pulumi-eks 4.3.0 gives the cluster public and private ones alike
        // (nodejs/eks/cluster/cluster.ts): an Auto Mode cluster gets the private ones only. Its load
        // balancers find public subnets by their kubernetes.io/role/elb tag, not the cluster's list.
        // An in-place update on a live cluster (EKS UpdateClusterConfig, terraform-provider-aws 5.25).
        publicSubnetIds: deps.compute?.autoMode?.enabled === true ? undefined : args.publicSubnetIds,
        nodeAssociatePublicIpAddress: false,
        endpointPrivateAccess: true,
        endpointPublicAccess: args.endpoint.publicAccess,
        publicAccessCidrs: args.endpoint.publicAccess ? args.endpoint.publicAccessCidrs : undefined,
        authenticationMode: eks.AuthenticationMode.Api,
        skipDefaultNodeGroup: true,
        skipDefaultSecurityGroups: true,
        clusterSecurityGroup: deps.controlPlaneSecurityGroup,
        serviceRole: deps.serviceRole,
        createOidcProvider: true,
        encryptionConfigKeyArn: deps.kmsKeyArn,
        enabledClusterLogTypes: args.logTypes,
        kubernetesServiceIpAddressRange: args.serviceCidr,
        // Add-ons are managed by the Cluster component with pinned versions instead of EKS's unmanaged defaults.
        bootstrapSelfManagedAddons: false,
        useDefaultVpcCni: true,
        corednsAddonOptions: { enabled: false },
        kubeProxyAddonOptions: { enabled: false },
        deletionProtection: args.protect ?? false,
        tags: { "karpenter.sh/discovery": args.clusterName },
        // pulumi-eks 4.3.0 merges these into the cluster's own tags (nodejs/eks/cluster.ts): the deploy
        // role may call eks:CreateCluster, which takes no resource ARN, only with this tag in the request.
        clusterTags: { [PLATFORM_CLUSTER_TAG]: args.clusterName },
    };
}

/** The add-ons every node needs before it can become Ready, keyed by logical name. Pure. */
export function preComputeAddons(args: Pick<ClusterArgs, "addons" | "vpcCniConfiguration">): {
    key: string;
    addonName: string;
    addonVersion: string;
    configurationValues?: Record<string, unknown>;
}[] {
    return [
        { key: "vpc-cni", addonName: "vpc-cni", addonVersion: args.addons.vpcCni, configurationValues: args.vpcCniConfiguration },
        { key: "kube-proxy", addonName: "kube-proxy", addonVersion: args.addons.kubeProxy },
        { key: "pod-identity-agent", addonName: "eks-pod-identity-agent", addonVersion: args.addons.podIdentityAgent },
    ];
}

/**
 * The EKS control plane: `eks.Cluster` (OIDC, kubeconfig) with a KMS key for secrets envelope
 * encryption, its log group, IAM role and security groups built from `@pulumi/aws`, and the
 * managed add-ons every node needs before it can become Ready.
 */
export class Cluster extends pulumi.ComponentResource {
    /** The static cluster name. */
    public readonly name: string;
    public readonly version: string;
    public readonly serviceCidr: string;
    /** The `eks.Cluster`; depend on it for anything that needs the control plane to exist. */
    public readonly eks: eks.Cluster;
    public readonly endpoint: pulumi.Output<string>;
    public readonly certificateAuthority: pulumi.Output<string>;
    public readonly oidcProviderArn: pulumi.Output<string>;
    public readonly oidcProviderUrl: pulumi.Output<string>;
    /** The security group EKS creates and attaches to the control plane and managed nodes. */
    public readonly eksSecurityGroupId: pulumi.Output<string>;
    /** The node security group, the only one tagged `karpenter.sh/discovery`. */
    public readonly nodeSecurityGroupId: pulumi.Output<string>;
    public readonly kubeconfig: pulumi.Output<string>;
    /** The 443 ingress rules admitting the deployer's networks to the private endpoint. */
    public readonly apiAccessRules: aws.vpc.SecurityGroupIngressRule[] = [];
    public readonly kmsKeyArn: pulumi.Output<string>;
    /** Add-ons that must be active before nodes join. */
    public readonly addons: aws.eks.Addon[];
    /** The compute mode's node role name, with `compute` (EKS Auto Mode's). */
    public readonly computeNodeRoleName?: pulumi.Output<string>;

    constructor(name: string, args: ClusterArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:cluster:Cluster", name, {}, opts);
        const parent = { parent: this };
        const protect = args.protect ?? false;

        const kmsKey = new aws.kms.Key(
            `${name}-secrets`,
            {
                description: `Envelope encryption of Kubernetes secrets in EKS cluster ${args.clusterName}`,
                enableKeyRotation: true,
                deletionWindowInDays: 30,
                // The deploy role administers only keys with this tag (kernel/deployScope.ts).
                tags: { [PLATFORM_CLUSTER_TAG]: args.clusterName },
                policy: accountContext(parent).apply((c) => JSON.stringify(stackKeyPolicy(c, args.keyAdministrator))),
            },
            { parent: this, protect },
        );
        new aws.kms.Alias(`${name}-secrets`, { name: `alias/eks/${args.clusterName}-secrets`, targetKeyId: kmsKey.keyId }, parent);

        // Created before the cluster so EKS writes into a group with a retention (its own never expires).
        const logGroup = new aws.cloudwatch.LogGroup(
            `${name}-logs`,
            { name: `/aws/eks/${args.clusterName}/cluster`, retentionInDays: args.logRetentionDays },
            parent,
        );

        // A static name: policies link attachments to roles by name, which is known at preview.
        const role = new aws.iam.Role(
            `${name}-control-plane`,
            {
                name: `${args.clusterName}-control-plane`,
                assumeRolePolicy: JSON.stringify(trustPolicy("eks.amazonaws.com")),
                permissionsBoundary: stackPermissionsBoundary(args.clusterName, parent),
            },
            parent,
        );
        const rolePolicy = new aws.iam.RolePolicyAttachment(
            `${name}-control-plane`,
            { role: role.name, policyArn: aws.iam.ManagedPolicy.AmazonEKSClusterPolicy },
            parent,
        );

        const controlPlaneSg = new aws.ec2.SecurityGroup(
            `${name}-control-plane`,
            {
                vpcId: args.vpcId,
                description: `EKS ${args.clusterName} control plane ENIs`,
                tags: { Name: `${args.clusterName}-control-plane` },
            },
            parent,
        );
        // The one security group of every node (launch templates and Karpenter's discovery tag):
        // load balancer controllers need exactly one group tagged kubernetes.io/cluster/<name> on
        // each node ENI, and EKS tags the cluster group it creates that way too, so nodes never
        // carry that one.
        const nodeSg = new aws.ec2.SecurityGroup(
            `${name}-nodes`,
            { vpcId: args.vpcId, description: `EKS ${args.clusterName} nodes`, tags: nodeSecurityGroupTags(args.clusterName) },
            parent,
        );
        // The compute mode's parts: policies on this same role (it cannot be swapped on a live cluster), its node role.
        const compute = args.compute?.withCluster({
            name,
            clusterName: args.clusterName,
            role,
            nodeSecurityGroupArn: nodeSg.arn,
            parent: this,
        });
        for (const [rule, ruleArgs] of nodeIngressRules({ controlPlane: controlPlaneSg.id, nodes: nodeSg.id })) {
            new aws.vpc.SecurityGroupIngressRule(`${name}-${rule}`, ruleArgs, parent);
        }
        // The deployer's route to the private endpoint: `pulumi up` creates Kubernetes resources
        // from wherever it runs, and EKS's own cluster group admits only the cluster itself.
        for (const { key, source, from } of apiAccessSources(args.endpoint)) {
            this.apiAccessRules.push(
                new aws.vpc.SecurityGroupIngressRule(
                    `${name}-control-plane-from-${key}`,
                    {
                        securityGroupId: controlPlaneSg.id,
                        ipProtocol: "tcp",
                        fromPort: 443,
                        toPort: 443,
                        description: `Deployer route to the private API endpoint (${source})`,
                        ...from,
                    },
                    parent,
                ),
            );
        }
        for (const [sgName, sg] of [
            ["control-plane", controlPlaneSg],
            ["nodes", nodeSg],
        ] as const) {
            new aws.vpc.SecurityGroupEgressRule(
                `${name}-${sgName}-egress`,
                { securityGroupId: sg.id, ipProtocol: "-1", cidrIpv4: "0.0.0.0/0", description: "All egress (NAT, AWS APIs)" },
                parent,
            );
        }

        this.eks = new eks.Cluster(
            `${name}-eks`,
            controlPlaneArgs(args, {
                controlPlaneSecurityGroup: controlPlaneSg,
                serviceRole: role,
                kmsKeyArn: kmsKey.arn,
                compute: compute?.options,
            }),
            {
                parent: this,
                protect,
                dependsOn: [logGroup, rolePolicy, ...(compute?.dependsOn ?? [])],
                transforms: [withoutCreatorAdminEntry],
            },
        );

        const eksCluster = this.eks.eksCluster;
        this.name = args.clusterName;
        this.version = args.version;
        this.serviceCidr = args.serviceCidr;
        this.endpoint = eksCluster.apply((c) => c.endpoint);
        this.certificateAuthority = eksCluster.apply((c) => c.certificateAuthority.data);
        this.eksSecurityGroupId = eksCluster.apply((c) => c.vpcConfig.clusterSecurityGroupId);
        this.oidcProviderArn = this.eks.oidcProviderArn;
        this.oidcProviderUrl = this.eks.oidcProviderUrl;
        this.nodeSecurityGroupId = nodeSg.id;
        this.kmsKeyArn = kmsKey.arn;
        this.kubeconfig = pulumi.secret(this.eks.kubeconfigJson);

        this.computeNodeRoleName = compute?.nodeRoleName;
        // A compute mode may run networking and Pod Identity itself (EKS Auto Mode, without node groups beside it).
        const installed = args.compute?.runs.has("clusterAddons") ? [] : preComputeAddons(args);
        this.addons = installed.map(
            ({ key, addonName, addonVersion, configurationValues }) =>
                new aws.eks.Addon(
                    `${name}-${key}`,
                    {
                        clusterName: args.clusterName,
                        addonName,
                        addonVersion,
                        resolveConflictsOnCreate: "OVERWRITE",
                        // Keep settings someone changed in the cluster rather than silently reverting them.
                        resolveConflictsOnUpdate: "PRESERVE",
                        configurationValues: configurationValues ? JSON.stringify(configurationValues) : undefined,
                    },
                    { parent: this, dependsOn: [this.eks] },
                ),
        );

        this.registerOutputs({
            name: this.name,
            endpoint: this.endpoint,
            oidcProviderArn: this.oidcProviderArn,
            nodeSecurityGroupId: this.nodeSecurityGroupId,
            kubeconfig: this.kubeconfig,
        });
    }
}
