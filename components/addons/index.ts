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
 * - autoMode.ts                 on EKS Auto Mode, instead of the EBS CSI driver and the load
 *                               balancer controller (which EKS runs): the `gp3` StorageClass, the
 *                               `alb` IngressClass and its IngressClassParams
 * - placement.ts                where the controllers run: the system node group
 */
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { AddonsConfig } from "../config";
import type { AutoModeChoice } from "../autoMode";
import { AutoModeAddons } from "./autoMode";
import { coreDnsAddon } from "./coreDns";
import { EbsCsiDriver } from "./ebsCsi";
import { LoadBalancerController } from "./loadBalancerController";
import { metricsServerAddon } from "./metricsServer";
import { CRITICAL_ADDONS_ONLY, type Placement, systemPlacement } from "../nodegroups/scheduling";

export { EBS_CSI, DEFAULT_STORAGE_CLASS, DEFAULT_CLASS_ANNOTATION } from "./ebsCsi";
export { LOAD_BALANCER_CONTROLLER } from "./loadBalancerController";
export { METRICS_SERVER_ADDON } from "./metricsServer";
export { AUTO_MODE_COMPONENTS } from "./autoMode";

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
     * EKS Auto Mode (components/autoMode.ts, `autoModeChoice`): EKS runs CoreDNS, the EBS CSI driver
     * and the load balancer controller, and this component creates the StorageClass and
     * IngressClass for them; the CoreDNS add-on stays for node groups beside Auto Mode (EKS's runs
     * on Auto Mode nodes only), and the metrics server goes on the built-in `system` pool where no
     * system node group exists. Defaults to off.
     */
    autoMode?: AutoModeChoice;
}

/**
 * Where the platform's controllers run: the system node group, or on EKS Auto Mode without one
 * the built-in `system` pool (its nodes carry the pool's label and the CriticalAddonsOnly taint,
 * set-builtin-node-pools.adoc). Pure.
 */
export function addonPlacement(hasSystemNodes: boolean, autoMode: ComputeAddonsArgs["autoMode"]): Placement {
    if (!hasSystemNodes && autoMode?.builtInPools.includes("system")) {
        return { nodeSelector: { "karpenter.sh/nodepool": "system" }, tolerations: [CRITICAL_ADDONS_ONLY] };
    }
    return systemPlacement(hasSystemNodes);
}

export class ComputeAddons extends pulumi.ComponentResource {
    /** The CoreDNS add-on; none on EKS Auto Mode without node groups (EKS runs CoreDNS). */
    public readonly coreDns?: aws.eks.Addon;
    /** The EBS CSI driver; none on EKS Auto Mode. */
    public readonly ebsCsi?: EbsCsiDriver;
    public readonly metricsServer: aws.eks.Addon;
    /** The AWS Load Balancer Controller; none on EKS Auto Mode. */
    public readonly loadBalancerController?: LoadBalancerController;
    /** The StorageClass and IngressClass of EKS Auto Mode's components; only on Auto Mode. */
    public readonly autoMode?: AutoModeAddons;

    constructor(name: string, args: ComputeAddonsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:cluster:ComputeAddons", name, {}, opts);
        const placement = addonPlacement(args.hasSystemNodes, args.autoMode);
        if (args.autoMode === undefined || args.autoMode.nodeGroups) {
            this.coreDns = coreDnsAddon(name, { clusterName: args.clusterName, version: args.coreDnsVersion }, this);
        }
        this.metricsServer = metricsServerAddon(
            name,
            { clusterName: args.clusterName, config: args.addons.metricsServer, placement },
            this,
        );
        if (args.autoMode !== undefined) {
            // With node groups beside, the VPC CNI add-on (enableNetworkPolicy) owns the controller's ConfigMap.
            this.autoMode = new AutoModeAddons(
                `${name}-auto-mode`,
                { provider: args.provider, networkPolicyController: !args.autoMode.nodeGroups },
                { parent: this },
            );
            this.registerOutputs({ coreDns: this.coreDns?.id, metricsServer: this.metricsServer.id });
            return;
        }
        if (args.addons.ebsCsiDriver === undefined || args.addons.loadBalancerController === undefined) {
            throw new Error(
                "addons.ebsCsiDriver and addons.loadBalancerController are required without autoMode (components/config/autoMode.ts)",
            );
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
        this.registerOutputs({
            coreDns: this.coreDns?.id,
            ebsCsi: this.ebsCsi.addon.id,
            metricsServer: this.metricsServer.id,
            loadBalancerControllerRole: this.loadBalancerController.role.arn,
        });
    }
}
