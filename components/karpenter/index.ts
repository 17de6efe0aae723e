import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { EnabledKarpenterConfig } from "./schema";
import { KarpenterAws, volumeKeys } from "./aws";
import { KarpenterController } from "./controller";
import { KarpenterNodePools } from "./nodePools";

export { KarpenterAws } from "./aws";
export { KarpenterController } from "./controller";
export { KarpenterNodePools } from "./nodePools";
export { controllerPlacement } from "./schema";

export interface KarpenterArgs {
    /** Static cluster name. */
    clusterName: string;
    /** AWS region of the cluster. */
    region: string;
    /** The EKS control plane (`Cluster.eks`): access entries and Pod Identity associations need it. */
    cluster: pulumi.Resource;
    /** Kubernetes provider of the cluster. */
    provider: k8s.Provider;
    /** The validated `karpenter` section of stack config. */
    config: EnabledKarpenterConfig;
    /**
     * The node groups the controller can be scheduled on (`NodeGroups.nodesFor(controllerPlacement(…))`):
     * the Helm release waits for them, or its pods stay Pending and the install times out. Defaults to `[]`.
     */
    systemNodes?: pulumi.Resource[];
}

/**
 * Karpenter for one cluster: AWS side (IAM, Pod Identity, interruption queue), the controller
 * from its Helm charts, and the NodePools/EC2NodeClasses of stack config, in that order.
 */
export class Karpenter extends pulumi.ComponentResource {
    public readonly aws: KarpenterAws;
    public readonly controller: KarpenterController;
    public readonly pools: KarpenterNodePools;
    /** Static name of the interruption queue. */
    public readonly interruptionQueueName: string;
    /** Static name of the node role. */
    public readonly nodeRoleName: string;

    constructor(name: string, args: KarpenterArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:karpenter:Karpenter", name, {}, opts);
        const parent = { parent: this };
        this.aws = new KarpenterAws(
            `${name}-aws`,
            {
                clusterName: args.clusterName,
                region: args.region,
                cluster: args.cluster,
                volumeKeys: volumeKeys(args.config),
                createSpotServiceLinkedRole: args.config.createSpotServiceLinkedRole,
            },
            parent,
        );
        this.controller = new KarpenterController(
            `${name}-controller`,
            {
                clusterName: args.clusterName,
                region: args.region,
                interruptionQueue: this.aws.queueName,
                controller: args.config.controller,
                chartVersion: args.config.chartVersion,
                provider: args.provider,
                controllerDependsOn: [...this.aws.controllerReady, ...(args.systemNodes ?? [])],
            },
            parent,
        );
        this.pools = new KarpenterNodePools(
            `${name}-pools`,
            {
                clusterName: args.clusterName,
                nodeRoleName: this.aws.nodeRoleName,
                nodePools: args.config.nodePools,
                nodeClasses: args.config.nodeClasses,
                provider: args.provider,
                releases: [this.controller.crds, this.controller.release],
                nodeReady: this.aws.nodeReady,
            },
            parent,
        );
        this.interruptionQueueName = this.aws.queueName;
        this.nodeRoleName = this.aws.nodeRoleName;
        this.registerOutputs({ interruptionQueueName: this.interruptionQueueName, nodeRoleName: this.nodeRoleName });
    }
}
