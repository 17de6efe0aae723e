/**
 * Add-ons whose pods need nodes to become healthy, created after the node groups (pass them in
 * `dependsOn`; created earlier, an add-on stays DEGRADED and times out). Each lives in its own
 * module:
 *
 * - coreDns.ts                  CoreDNS (EKS add-on), 2 replicas, PDB
 * - ebsCsi.ts                   EBS CSI driver (EKS add-on), Pod Identity role, volume KMS key,
 *                               the default encrypted `gp3` StorageClass
 * - loadBalancerController.ts   AWS Load Balancer Controller (Helm), Pod Identity role with the
 *                               upstream policy (loadBalancerControllerReleases.ts), `alb` IngressClass
 * - metricsServer.ts            Metrics Server (EKS community add-on), 2 replicas, PDB
 * - placement.ts                where the controllers run: the system node group
 *
 * A compute mode (components/compute) may run some of these itself (`ComputeChoice.runs`): the
 * program then installs none of them, and the mode adds its own parts here (EKS Auto Mode: the
 * `gp3` StorageClass, the `alb` IngressClass and its IngressClassParams).
 */
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { AddonsConfig } from "./schema";
import type { ComputeChoice, PlatformPart } from "../compute/mode";
import { coreDnsAddon } from "./coreDns";
import { EbsCsiDriver } from "./ebsCsi";
import { LoadBalancerController } from "./loadBalancerController";
import { metricsServerAddon } from "./metricsServer";
import { type Placement, systemPlacement } from "../nodegroups/schema";

export { EBS_CSI, DEFAULT_STORAGE_CLASS, DEFAULT_CLASS_ANNOTATION } from "./ebsCsi";
export { LOAD_BALANCER_CONTROLLER } from "./loadBalancerController";
export { METRICS_SERVER_ADDON } from "./metricsServer";

export interface ComputeAddonsArgs {
    clusterName: string;
    region: string;
    vpcId: pulumi.Input<string>;
    kubernetesVersion: string;
    /** Pinned CoreDNS add-on version. */
    coreDnsVersion: string;
    /** The validated `addons` section of stack config. */
    addons: AddonsConfig;
    provider: k8s.Provider;
    /** The EKS control plane (Pod Identity associations need it). */
    cluster: pulumi.Resource;
    /** Whether a node group carries the system label; controllers are pinned there when it does. */
    hasSystemNodes: boolean;
    /** Protect the volume encryption key from deletion. Defaults to `false`. */
    protect?: boolean;
    /** The deploy role (`access.deployer`): it administers the platform volume key (components/iam.ts, stackKeyPolicy). */
    keyAdministrator: string;
    /**
     * The stack's compute mode (components/compute): what it runs itself is not installed here
     * (EKS Auto Mode: the EBS CSI driver and the load balancer controller, and CoreDNS unless node
     * groups run beside it), its own parts are added (`withAddons`), and it may place the
     * controllers (Auto Mode's built-in `system` pool where no system node group exists). Defaults
     * to none, a standard cluster.
     */
    compute?: ComputeChoice;
}

/** Where the platform's controllers run: where the compute mode puts them, else the system node group. Pure. */
export function addonPlacement(hasSystemNodes: boolean, compute: ComputeChoice | undefined): Placement {
    return compute?.placement(hasSystemNodes) ?? systemPlacement(hasSystemNodes);
}

export class ComputeAddons extends pulumi.ComponentResource {
    /** The CoreDNS add-on; none where the compute mode runs CoreDNS (EKS Auto Mode without node groups). */
    public readonly coreDns?: aws.eks.Addon;
    /** The EBS CSI driver; none where the compute mode runs its own (EKS Auto Mode). */
    public readonly ebsCsi?: EbsCsiDriver;
    public readonly metricsServer: aws.eks.Addon;
    /** The AWS Load Balancer Controller; none where the compute mode runs its own load balancing (EKS Auto Mode). */
    public readonly loadBalancerController?: LoadBalancerController;
    /** The compute mode's own parts (EKS Auto Mode's StorageClass and IngressClass); only with one. */
    public readonly compute?: pulumi.Resource;

    constructor(name: string, args: ComputeAddonsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:cluster:ComputeAddons", name, {}, opts);
        const placement = addonPlacement(args.hasSystemNodes, args.compute);
        const runs = (part: PlatformPart) => args.compute?.runs.has(part) ?? false;
        if (!runs("coreDns")) {
            this.coreDns = coreDnsAddon(name, { clusterName: args.clusterName, version: args.coreDnsVersion }, this);
        }
        this.metricsServer = metricsServerAddon(
            name,
            { clusterName: args.clusterName, config: args.addons.metricsServer, placement },
            this,
        );
        this.compute = args.compute?.withAddons({
            name,
            clusterName: args.clusterName,
            provider: args.provider,
            keyAdministrator: args.keyAdministrator,
            protect: args.protect,
            parent: this,
        });
        if (!runs("ebsCsiDriver")) {
            if (args.addons.ebsCsiDriver === undefined) {
                throw new Error("addons.ebsCsiDriver is required unless the compute mode runs its own (components/compute)");
            }
            this.ebsCsi = new EbsCsiDriver(
                `${name}-ebs-csi`,
                {
                    clusterName: args.clusterName,
                    region: args.region,
                    kubernetesVersion: args.kubernetesVersion,
                    config: args.addons.ebsCsiDriver,
                    placement,
                    provider: args.provider,
                    cluster: args.cluster,
                    protect: args.protect,
                    keyAdministrator: args.keyAdministrator,
                },
                { parent: this },
            );
        }
        if (!runs("loadBalancerController")) {
            if (args.addons.loadBalancerController === undefined) {
                throw new Error("addons.loadBalancerController is required unless the compute mode runs its own (components/compute)");
            }
            // The controller calls AWS APIs by name: it starts once CoreDNS serves.
            this.loadBalancerController = new LoadBalancerController(
                `${name}-load-balancer-controller`,
                {
                    clusterName: args.clusterName,
                    region: args.region,
                    vpcId: args.vpcId,
                    config: args.addons.loadBalancerController,
                    placement,
                    provider: args.provider,
                    cluster: args.cluster,
                    releaseDependsOn: this.coreDns ? [this.coreDns] : [],
                },
                { parent: this },
            );
        }
        this.registerOutputs({
            coreDns: this.coreDns?.id,
            ebsCsi: this.ebsCsi?.addon.id,
            metricsServer: this.metricsServer.id,
            loadBalancerControllerRole: this.loadBalancerController?.role.arn,
        });
    }
}
