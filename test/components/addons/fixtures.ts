/** What the add-on tests share. */
import { LOAD_BALANCER_CONTROLLER_RELEASES } from "../../../components/addons/loadBalancerControllerReleases";
import { type AddonsConfig, addonsSchema } from "../../../components/addons/schema";

/** A standard stack's `addons`: every add-on set (only EKS Auto Mode leaves two out). */
type StandardAddons = { [K in keyof AddonsConfig]-?: NonNullable<AddonsConfig[K]> };

/** A fixture `addons` section with every default applied, as the config module hands it on. */
export const ADDONS = addonsSchema.parse({
    ebsCsiDriver: { version: "v1.60.0-eksbuild.1" },
    loadBalancerController: { chartVersion: Object.keys(LOAD_BALANCER_CONTROLLER_RELEASES)[0] },
    metricsServer: { version: "v0.8.0-eksbuild.2" },
}) as StandardAddons;
