/**
 * Add-ons whose pods need nodes to become healthy, created after the node groups (pass them in
 * `dependsOn`; created earlier, an add-on stays DEGRADED and times out). `ComputeAddons` installs
 * CoreDNS and every add-on of the registry (registry.ts), naming none of them:
 *
 * - addon.ts                    what an add-on declares (`PlatformAddon`): its section of `addons`,
 *                               its component, its source (the key of its pods model in the
 *                               rehearsal), preflight config keys, what it provides workloads, the
 *                               AWS resource types it creates
 * - registry.ts                 the registered add-ons, in the order they are installed
 * - schema.ts                   `addons` in stack config: one section per registered add-on
 * - ebsCsi.ts                   EBS CSI driver (EKS add-on), Pod Identity role, volume KMS key,
 *                               the default encrypted `gp3` StorageClass
 * - loadBalancerController.ts   AWS Load Balancer Controller (Helm), Pod Identity role with the
 *                               upstream policy (loadBalancerControllerReleases.ts), `alb` IngressClass
 * - metricsServer.ts            Metrics Server (EKS community add-on), 2 replicas, PDB
 * - coreDns.ts                  CoreDNS (EKS add-on), 2 replicas, PDB; no registry entry: it is
 *                               pinned with the cluster (`cluster.addons.coreDns`), not in `addons`
 *
 * Where the controllers run: `addonPlacement`, the system node group unless the compute mode
 * places them. A compute mode (components/compute) may run some add-ons itself
 * (`ComputeChoice.runs`, for those the registry marks `replaceable`): the program then installs
 * none of them, and the mode adds its own parts here (EKS Auto Mode: the `gp3` StorageClass, the
 * `alb` IngressClass and its IngressClassParams). Adding an add-on: docs/extending.md, "Add an add-on".
 */
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { AddonsConfig } from "./schema";
import type { ComputeChoice, PlatformPart } from "../compute/mode";
import type { AddonContext, AddonKey } from "./addon";
import type { ReplaceableAddon } from "../compute/mode.schema";
import { coreDnsAddon } from "./coreDns";
import { type InstalledAddons, REGISTERED_ADDONS } from "./registry";
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
    /**
     * Each registered add-on's component (registry.ts), by its section key; none where the compute
     * mode runs it itself (EKS Auto Mode: the EBS CSI driver and the load balancer controller).
     */
    public readonly installed: InstalledAddons;
    /** The compute mode's own parts (EKS Auto Mode's StorageClass and IngressClass); only with one. */
    public readonly compute?: pulumi.Resource;

    constructor(name: string, args: ComputeAddonsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:cluster:ComputeAddons", name, {}, opts);
        const placement = addonPlacement(args.hasSystemNodes, args.compute);
        const runs = (part: PlatformPart) => args.compute?.runs.has(part) ?? false;
        if (!runs("coreDns")) {
            this.coreDns = coreDnsAddon(name, { clusterName: args.clusterName, version: args.coreDnsVersion }, this);
        }
        const ctx: AddonContext = {
            name,
            parent: this,
            clusterName: args.clusterName,
            region: args.region,
            vpcId: args.vpcId,
            kubernetesVersion: args.kubernetesVersion,
            provider: args.provider,
            cluster: args.cluster,
            placement,
            protect: args.protect,
            keyAdministrator: args.keyAdministrator,
            coreDns: this.coreDns,
        };
        const installed: Partial<Record<AddonKey, pulumi.Resource>> = {};
        for (const addon of REGISTERED_ADDONS) {
            if (addon.replaceable && runs(addon.key as ReplaceableAddon)) {
                continue;
            }
            const config = args.addons[addon.key];
            if (config === undefined) {
                throw new Error(`addons.${addon.key} is required unless the compute mode runs its own (components/compute)`);
            }
            installed[addon.key] = addon.install(ctx, config);
        }
        this.installed = installed as InstalledAddons;
        this.compute = args.compute?.withAddons({
            name,
            clusterName: args.clusterName,
            provider: args.provider,
            keyAdministrator: args.keyAdministrator,
            protect: args.protect,
            parent: this,
        });
        this.registerOutputs({
            coreDns: this.coreDns?.id,
            ebsCsi: this.installed.ebsCsiDriver?.addon.id,
            metricsServer: this.installed.metricsServer?.id,
            loadBalancerControllerRole: this.installed.loadBalancerController?.role.arn,
        });
    }
}
