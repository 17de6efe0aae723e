import { ResourceValidationPolicy, validateResourceOfType } from "@pulumi/policy";
import { resourceType } from "./lib/resourceType";
import { asNumeric, asRecord, field, path } from "./lib/values";
import { violation } from "./lib/verdicts";

/** Managed node groups set `updateConfig` with a max unavailable below 100% of the group. */
export const nodegroupUpdateConfig: ResourceValidationPolicy = {
    name: "nodegroup-update-config",
    description: "Managed node groups set updateConfig with max unavailable below 100% of the group.",
    enforcementLevel: "mandatory",
    validateResource: validateResourceOfType(resourceType("aws:eks/nodeGroup:NodeGroup"), (props, args, reportViolation) => {
        const subject = `NodeGroup ${args.name}`;
        const update = asRecord(field(props, "updateConfig"));
        const count = asNumeric(field(update, "maxUnavailable"));
        const percent = asNumeric(field(update, "maxUnavailablePercentage"));
        if (!update || (count === undefined && percent === undefined)) {
            reportViolation(
                violation(
                    `${subject} sets no updateConfig.maxUnavailable or updateConfig.maxUnavailablePercentage`,
                    "the rollout speed of every AMI and Kubernetes upgrade is left to the provider default instead of being sized to the group's spare capacity and its PodDisruptionBudgets",
                    "set updateConfig: { maxUnavailablePercentage: 33 } (or maxUnavailable: 1 for small groups)",
                ),
            );
            return;
        }
        if (percent !== undefined && percent >= 100) {
            reportViolation(
                violation(
                    `${subject} sets updateConfig.maxUnavailablePercentage to ${percent}`,
                    "an upgrade may take every node of the group down at once: all its pods are evicted together and the services on it go down",
                    "set maxUnavailablePercentage below 100 (33 is common)",
                ),
            );
        }
        const desired = asNumeric(path(props, "scalingConfig", "desiredSize"));
        if (count !== undefined && desired !== undefined && count >= desired) {
            reportViolation(
                violation(
                    `${subject} sets updateConfig.maxUnavailable to ${count}, all ${desired} desired nodes`,
                    "an upgrade may take every node of the group down at once: all its pods are evicted together and the services on it go down",
                    `set maxUnavailable below ${desired}, or use maxUnavailablePercentage: 33`,
                ),
            );
        }
    }),
};
