/** What the add-on tests share. */
import { LOAD_BALANCER_CONTROLLER_RELEASES } from "../../../components/addons/loadBalancerControllerReleases";
import { addonsSchema } from "../../../components/config/addons";

/** A fixture `addons` section with every default applied, as the config module hands it on. */
export const ADDONS = addonsSchema.parse({
    ebsCsiDriver: { version: "v1.60.0-eksbuild.1" },
    loadBalancerController: { chartVersion: Object.keys(LOAD_BALANCER_CONTROLLER_RELEASES)[0] },
    metricsServer: { version: "v0.8.0-eksbuild.2" },
});
