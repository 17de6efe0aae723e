import { validateResourceOfType } from "@pulumi/policy";
import { resourceType, violation } from "eks-platform-evaluation";
import { asNumeric, asRecord, field, path } from "eks-platform-kernel";
import { declareResourcePolicy } from "./declare";

const ALL_AT_ONCE =
    "an upgrade may drain every node of the group at once: all its pods are evicted together, and those without a PodDisruptionBudget go down until they are rescheduled";

/**
 * Managed node groups set `updateConfig` with a max unavailable that leaves part of the group
 * running during an upgrade, in the range EKS accepts (1–100, one of the two fields). Only what
 * the user can change is flagged: `maxUnavailablePercentage: 100`, or a `maxUnavailable` count
 * that is every node at any size the group may have (≥ `scalingConfig.maxSize`, when the group
 * may hold more than one node). `desiredSize` is not compared: an autoscaler moves it, and a
 * one-node group cannot do better than one node (EKS's minimum, also what 33% rounds to).
 */
export const nodegroupUpdateConfig = declareResourcePolicy({
    name: "nodegroup-update-config",
    description: "Managed node groups set updateConfig with a max unavailable that never takes the whole group at once.",
    enforcementLevel: "mandatory",
    docs: {
        requires:
            "managed node groups set a valid `updateConfig` that never takes the whole group at once (not 100%, no `maxUnavailable` ≥ `maxSize`)",
        checks: "managed node groups set `updateConfig` with one of `maxUnavailable` / `maxUnavailablePercentage`, a whole number 1–100 (what EKS accepts); not `maxUnavailablePercentage: 100`, nor a `maxUnavailable` ≥ `scalingConfig.maxSize` when that is 2 or more (every node at any size); `desiredSize` is not compared (an autoscaler moves it, and one node is the minimum for a one-node group)",
    },
    validateResource: validateResourceOfType(resourceType("aws:eks/nodeGroup:NodeGroup"), (props, args, reportViolation) => {
        const subject = `NodeGroup ${args.name}`;
        const update = asRecord(field(props, "updateConfig"));
        const rawCount = field(update, "maxUnavailable");
        const rawPercent = field(update, "maxUnavailablePercentage");
        const count = asNumeric(rawCount);
        const percent = asNumeric(rawPercent);
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
        if (count !== undefined && percent !== undefined) {
            reportViolation(
                violation(
                    `${subject} sets both updateConfig.maxUnavailable and updateConfig.maxUnavailablePercentage`,
                    "EKS accepts only one of them and rejects the node group, so it is not created or updated",
                    "keep one: maxUnavailablePercentage: 33, or maxUnavailable: 1 for small groups",
                ),
            );
            return;
        }
        for (const [key, value] of [
            ["maxUnavailable", count],
            ["maxUnavailablePercentage", percent],
        ] as const) {
            if (value !== undefined && (!Number.isInteger(value) || value < 1 || value > 100)) {
                reportViolation(
                    violation(
                        `${subject} sets updateConfig.${key} to ${JSON.stringify(key === "maxUnavailable" ? rawCount : rawPercent)}, outside the whole numbers 1 to 100 EKS accepts`,
                        "EKS rejects the node group, so it is not created or updated",
                        key === "maxUnavailable"
                            ? "set maxUnavailable to 1 or more (1 for small groups)"
                            : "set maxUnavailablePercentage between 1 and 99 (33 is common)",
                    ),
                );
                return;
            }
        }
        if (percent === 100) {
            reportViolation(
                violation(
                    `${subject} sets updateConfig.maxUnavailablePercentage to 100`,
                    ALL_AT_ONCE,
                    "set maxUnavailablePercentage below 100 (33 is common)",
                ),
            );
        }
        const maxSize = asNumeric(path(props, "scalingConfig", "maxSize"));
        if (count !== undefined && maxSize !== undefined && maxSize >= 2 && count >= maxSize) {
            reportViolation(
                violation(
                    `${subject} sets updateConfig.maxUnavailable to ${count}, every node the group may hold (scalingConfig.maxSize ${maxSize})`,
                    ALL_AT_ONCE,
                    `set maxUnavailable below ${maxSize} (1 for small groups), or use maxUnavailablePercentage: 33`,
                ),
            );
        }
    }),
});
