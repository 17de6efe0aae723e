/**
 * The rollout methods, one module each, and the changes of a group they replay: its rollout (an
 * EKS managed node group update, an ASG instance refresh, Karpenter drift) and any other change
 * its kind goes through (an EKS Auto Mode pool's forced expiry). A new kind of rollout is one
 * module and one entry here.
 */
import type { Cluster } from "../cluster";
import type { GroupModel } from "../model";
import type { GroupReport } from "../report";
import { asgRefresh } from "./asgRefresh";
import { autoModeExpiry } from "./autoModeExpiry";
import { karpenterDrift } from "./karpenterDrift";
import { managedUpdate } from "./managedUpdate";
import type { RolloutMethod } from "./method";

export type { RolloutMethod } from "./method";

/** Every method, in the order a group's reports list them: its rollout first. */
export const ROLLOUT_METHODS: readonly RolloutMethod[] = [managedUpdate, asgRefresh, karpenterDrift, autoModeExpiry];

/**
 * Replays each change of `group` that a method applies to, each on its own copy of the placed
 * cluster: its rollout, then its other changes. Every kind of group has exactly one rollout.
 */
export function replays(initial: Cluster, group: GroupModel): GroupReport[] {
    const methods = ROLLOUT_METHODS.filter((m) => m.appliesTo(group));
    const rollouts = methods.filter((m) => m.change === undefined).length;
    if (rollouts !== 1) {
        throw new Error(`${rollouts} rollout methods apply to ${group.kind} group ${group.name}: exactly one must`);
    }
    return methods.map((m) => m.replay(initial.clone(), group));
}
