/**
 * NodePools and EC2NodeClasses from stack config, rendered by pure functions into the typed
 * shapes of ./types and registered as Karpenter v1 custom resources after the CRDs exist.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { NODE_CLASS_GROUP, NODE_CLASS_KIND, type NodeClassConfig, type NodePoolConfig } from "./schema";
import type { EC2NodeClassObject, NodeClassReference, NodePoolObject, NodeRequirement } from "./types";

/** Root device of AL2023 AMIs. */
export const AL2023_ROOT_DEVICE = "/dev/xvda";

const MANAGED_BY = { "app.kubernetes.io/managed-by": "pulumi" };

/** The NodePool object for one entry of `karpenter.nodePools` (or of `autoMode.nodePools`, whose reference names Auto Mode's NodeClass). Pure. */
export function renderNodePool(
    name: string,
    pool: Omit<NodePoolConfig, "nodeClassRef"> & { nodeClassRef: NodeClassReference },
): NodePoolObject {
    const requirements = pool.requirements.map((r): NodeRequirement => ({
        key: r.key,
        operator: r.operator,
        ...(r.values.length > 0 ? { values: [...r.values] } : {}),
        ...(r.minValues !== undefined ? { minValues: r.minValues } : {}),
    }));
    return {
        apiVersion: "karpenter.sh/v1",
        kind: "NodePool",
        metadata: { name, labels: MANAGED_BY },
        spec: {
            ...(pool.weight !== undefined ? { weight: pool.weight } : {}),
            template: {
                ...(Object.keys(pool.labels).length > 0 ? { metadata: { labels: { ...pool.labels } } } : {}),
                spec: {
                    // Always the full reference: Karpenter v1 rejects `{ name }` alone; a name-only one is Karpenter's EC2NodeClass.
                    nodeClassRef: {
                        group: pool.nodeClassRef.group ?? NODE_CLASS_GROUP,
                        kind: pool.nodeClassRef.kind ?? NODE_CLASS_KIND,
                        name: pool.nodeClassRef.name,
                    } as NodeClassReference,
                    requirements,
                    ...(pool.taints.length > 0 ? { taints: pool.taints.map((t) => ({ ...t })) } : {}),
                    expireAfter: pool.expireAfter,
                    terminationGracePeriod: pool.terminationGracePeriod,
                },
            },
            limits: { ...pool.limits },
            disruption: {
                consolidationPolicy: pool.disruption.consolidationPolicy,
                consolidateAfter: pool.disruption.consolidateAfter,
                budgets: pool.disruption.budgets.map((b) => ({ ...b })),
            },
        },
    };
}

export interface NodeClassContext {
    clusterName: string;
    /** Static node role name; Karpenter derives the instance profile from it. */
    nodeRoleName: string;
}

/** The EC2NodeClass object for one entry of `karpenter.nodeClasses`. Pure. */
export function renderEC2NodeClass(name: string, nodeClass: NodeClassConfig, ctx: NodeClassContext): EC2NodeClassObject {
    // The same tag the network and cluster components put on private subnets and on exactly one
    // security group (several tagged groups break the AWS Load Balancer Controller).
    const discovery = [{ tags: { "karpenter.sh/discovery": ctx.clusterName } }];
    const volume = nodeClass.rootVolume;
    return {
        apiVersion: "karpenter.k8s.aws/v1",
        kind: "EC2NodeClass",
        metadata: { name, labels: MANAGED_BY },
        spec: {
            role: ctx.nodeRoleName,
            amiSelectorTerms: [{ alias: nodeClass.amiAlias }],
            subnetSelectorTerms: discovery,
            securityGroupSelectorTerms: discovery,
            metadataOptions: {
                httpEndpoint: "enabled",
                httpPutResponseHopLimit: nodeClass.httpPutResponseHopLimit,
                httpTokens: "required",
            },
            blockDeviceMappings: [
                {
                    deviceName: AL2023_ROOT_DEVICE,
                    rootVolume: true,
                    ebs: {
                        volumeSize: volume.size,
                        volumeType: "gp3",
                        iops: volume.iops,
                        throughput: volume.throughput,
                        encrypted: true,
                        deleteOnTermination: true,
                        ...(volume.kmsKeyId ? { kmsKeyID: volume.kmsKeyId } : {}),
                    },
                },
            ],
            detailedMonitoring: nodeClass.detailedMonitoring,
            associatePublicIPAddress: false,
            ...(Object.keys(nodeClass.tags).length > 0 ? { tags: { ...nodeClass.tags } } : {}),
        },
    };
}

export interface KarpenterNodePoolsArgs extends NodeClassContext {
    nodePools: Record<string, NodePoolConfig>;
    nodeClasses: Record<string, NodeClassConfig>;
    /** Kubernetes provider of the target cluster. */
    provider: k8s.Provider;
    /**
     * The Helm releases installing the CRDs and the controller: every custom resource waits for
     * them, and on destroy is deleted first, while the controller can still drain its nodes.
     */
    releases: pulumi.Resource[];
    /** What a launched node needs to join (node role policies, access entry). Defaults to `[]`. */
    nodeReady?: pulumi.Resource[];
}

/** The cluster's EC2NodeClasses and NodePools; each pool waits for the class it references. */
export class KarpenterNodePools extends pulumi.ComponentResource {
    public readonly nodeClasses: Record<string, k8s.apiextensions.CustomResource> = {};
    public readonly nodePools: Record<string, k8s.apiextensions.CustomResource> = {};

    constructor(name: string, args: KarpenterNodePoolsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:karpenter:KarpenterNodePools", name, {}, opts);
        for (const [className, config] of Object.entries(args.nodeClasses)) {
            const object = renderEC2NodeClass(className, config, args);
            this.nodeClasses[className] = new k8s.apiextensions.CustomResource(`${name}-class-${className}`, object, {
                parent: this,
                provider: args.provider,
                dependsOn: [...args.releases, ...(args.nodeReady ?? [])],
            });
        }
        for (const [poolName, config] of Object.entries(args.nodePools)) {
            const nodeClass = this.nodeClasses[config.nodeClassRef.name];
            this.nodePools[poolName] = new k8s.apiextensions.CustomResource(`${name}-pool-${poolName}`, renderNodePool(poolName, config), {
                parent: this,
                provider: args.provider,
                dependsOn: [...args.releases, ...(nodeClass ? [nodeClass] : [])],
            });
        }
        this.registerOutputs({ nodeClasses: Object.keys(this.nodeClasses), nodePools: Object.keys(this.nodePools) });
    }
}
