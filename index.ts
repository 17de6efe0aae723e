/**
 * The EKS platform, one stack per environment. This file only wires components together in the
 * order data flows: config → network → cluster → compute → cluster add-ons → namespaces → outputs.
 */
import * as pulumi from "@pulumi/pulumi";
import { Access } from "./components/access";
import { ComputeAddons } from "./components/addons";
import { Cluster } from "./components/cluster";
import { loadStackConfig } from "./components/config";
import { Namespaces } from "./components/namespaces";
import { Network } from "./components/network";

// Validates every key first: a bad stack file throws one error listing every problem, before any
// resource is registered.
const config = loadStackConfig();

const network = new Network("network", {
    clusterName: config.clusterName,
    region: config.region,
    ...config.network,
});

const cluster = new Cluster("cluster", {
    clusterName: config.clusterName,
    version: config.cluster.version,
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
});

const access = new Access(
    "access",
    { clusterName: config.clusterName, access: config.access, namespaces: config.namespaces },
    { dependsOn: [cluster] },
);

const computeAddons = new ComputeAddons(
    "addons",
    { clusterName: config.clusterName, coreDnsVersion: config.cluster.addons.coreDns },
    { dependsOn: [cluster] },
);

const namespaces = new Namespaces("namespaces", {
    namespaces: config.namespaces,
    kubernetesVersion: config.cluster.version,
    provider: cluster.provider,
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
export const coreDnsAddon = computeAddons.coreDns.addonName;
