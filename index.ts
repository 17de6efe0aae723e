/**
 * The EKS platform, one stack per environment. This file only wires components together in the
 * order data flows: config → network (its interface endpoints, the deployer's route) → cluster →
 * access (entries, Kubernetes provider) → node groups → Karpenter or a compute mode's pools → add-ons
 * that need nodes → namespaces and their service accounts' AWS roles → outputs.
 */
import * as pulumi from "@pulumi/pulumi";
import { Access } from "./components/access";
import { ComputeAddons } from "./components/addons";
import { Cluster } from "./components/cluster";
import { computeChoice } from "./components/compute";
import { loadStackConfig } from "./components/config";
import { InterfaceEndpoints } from "./components/endpoints";
import { controllerPlacement, Karpenter } from "./components/karpenter";
import { Namespaces } from "./components/namespaces";
import { Network } from "./components/network";
import { NodeGroups } from "./components/nodegroups";
import { ServiceAccountRoles } from "./components/serviceAccountRoles";

// Validates every key first: a bad stack file throws one error listing every problem, before any
// resource is registered.
const config = loadStackConfig();
// The stack's compute mode (components/compute: EKS Auto Mode), or none for a standard cluster.
const compute = computeChoice(config);

const network = new Network("network", {
    clusterName: config.clusterName,
    region: config.region,
    ...config.network,
    // The deployer's networks reach the private API endpoint through the Transit Gateway.
    transitGateway: config.network.transitGatewayId
        ? { id: config.network.transitGatewayId, destinations: config.cluster.endpoint.privateAccessCidrs }
        : undefined,
});

const endpoints = config.network.interfaceEndpoints.enabled
    ? new InterfaceEndpoints("endpoints", {
          clusterName: config.clusterName,
          region: config.region,
          vpcId: network.vpcId,
          vpcCidr: network.vpcCidr,
          privateSubnetIdsByAz: network.privateSubnetIdsByAz,
          services: config.network.interfaceEndpoints.services,
      })
    : undefined;

const cluster = new Cluster("cluster", {
    clusterName: config.clusterName,
    // The secrets key's policy lets the deploy role administer it (components/iam.ts, stackKeyPolicy).
    keyAdministrator: config.access.deployer,
    version: config.cluster.version,
    supportType: config.cluster.supportType,
    vpcId: network.vpcId,
    privateSubnetIds: network.privateSubnetIds,
    publicSubnetIds: network.publicSubnetIds,
    endpoint: config.cluster.endpoint,
    logTypes: config.cluster.logTypes,
    logRetentionDays: config.cluster.logRetentionDays,
    serviceCidr: config.cluster.serviceCidr,
    addons: config.cluster.addons,
    // The VPC CNI enforces NetworkPolicies (the namespaces' default-deny rules) itself.
    vpcCniConfiguration: { enableNetworkPolicy: "true" },
    protect: config.cluster.protect,
    // A compute mode's parts of the control plane, and the add-ons node groups beside it still need.
    compute,
});

// Every access entry, the deployer's included, and the Kubernetes provider, which waits for the
// runner's admin entry and its network path to the API server.
const access = new Access(
    "access",
    {
        clusterName: config.clusterName,
        access: config.access,
        namespaces: config.namespaces,
        cluster,
        apiRoute: [...cluster.apiAccessRules, ...network.deployerRoute],
        // The provider was the Cluster component's until the deploy path moved it here.
        formerProvider: { name: "cluster-k8s", parent: cluster },
    },
    { dependsOn: [cluster] },
);

const nodeGroups = new NodeGroups("nodegroups", {
    cluster,
    provider: access.provider,
    groups: config.nodeGroups,
    region: config.region,
    vpcCidr: config.network.vpcCidr,
    privateSubnetIds: network.privateSubnetIds,
    // GPU pools need the NVIDIA device plugin the node groups install.
    nodePools: config.karpenter.enabled ? config.karpenter.nodePools : {},
});

// Karpenter's controller runs where its nodeSelector points, never on nodes it launches itself:
// its Helm release waits for exactly the node groups it can be scheduled on.
const karpenter = config.karpenter.enabled
    ? new Karpenter("karpenter", {
          clusterName: config.clusterName,
          region: config.region,
          cluster: cluster.eks,
          provider: access.provider,
          config: config.karpenter,
          systemNodes: nodeGroups.nodesFor(controllerPlacement(config.karpenter.controller)),
      })
    : undefined;

// A compute mode's own pools (EKS Auto Mode's custom NodeClasses and NodePools).
const computePools = compute?.pools({ clusterName: config.clusterName, cluster: cluster.eks, provider: access.provider });

// CoreDNS, storage, metrics and load balancers need nodes to become healthy: they wait for the
// node groups themselves (not for the charts installed on them, whose pods need DNS).
const computeAddons = new ComputeAddons(
    "addons",
    {
        clusterName: config.clusterName,
        region: config.region,
        vpcId: network.vpcId,
        kubernetesVersion: config.cluster.version,
        coreDnsVersion: config.cluster.addons.coreDns,
        addons: config.addons,
        provider: access.provider,
        cluster: cluster.eks,
        hasSystemNodes: nodeGroups.hasSystemNodes,
        protect: config.cluster.protect,
        keyAdministrator: config.access.deployer,
        // None of what the compute mode runs itself (EKS Auto Mode: storage, load balancing, CoreDNS without node groups).
        compute,
    },
    { dependsOn: [cluster, ...nodeGroups.nodes, ...(computePools ? [computePools] : [])] },
);

const namespaces = new Namespaces("namespaces", {
    namespaces: config.namespaces,
    kubernetesVersion: config.cluster.version,
    provider: access.provider,
});

const serviceAccountRoles = new ServiceAccountRoles("service-accounts", {
    clusterName: config.clusterName,
    region: config.region,
    namespaces: config.namespaces,
    cluster: cluster.eks,
});

export const vpcId = network.vpcId;
export const privateSubnetIds = network.privateSubnetIds;
export const publicSubnetIds = network.publicSubnetIds;
export const clusterName = cluster.name;
export const clusterEndpoint = cluster.endpoint;
export const oidcProviderArn = cluster.oidcProviderArn;
export const kubeconfig = pulumi.secret(cluster.kubeconfig);
export const namespaceNames = namespaces.names;
export const accessPrincipals = access.principals;
export const deployedBy = access.runner;
// null where the compute mode runs them itself.
export const coreDnsAddon = computeAddons.coreDns?.addonName ?? null;
export const loadBalancerControllerRoleArn = computeAddons.installed.loadBalancerController?.role.arn ?? null;
export const serviceAccountRoleArns = serviceAccountRoles.roleArns;
export const interfaceEndpointIds = endpoints?.endpointIds ?? null;
export const nodeGroupNames = nodeGroups.nodeGroupNames;
export const autoScalingGroupNames = nodeGroups.autoScalingGroupNames;
export const nodeRoleNames = nodeGroups.nodeRoleNames;
// null, not undefined, where a stack has no self-managed group or no Karpenter: the runtime warns
// at every run about an undefined output, and a StackReference reads null as "not here".
export const terminationHandlerQueueUrl = nodeGroups.terminationHandlerQueueUrl ?? null;
export const karpenterInterruptionQueue = karpenter?.interruptionQueueName ?? null;
export const autoModeNodeRoleName = cluster.computeNodeRoleName ?? null;
