/**
 * `nodeGroups` in stack config: a map of groups keyed by name, each of a registered kind
 * (`components/nodegroups/kinds.ts`). Each kind's module owns its schema and its own checks; the
 * checks every group gets live in `components/nodegroups/common.ts`. What spans the groups, or
 * needs the cluster, is checked here.
 */
import { kubernetesMinor, parseReleaseVersion } from "eks-platform-kernel";
import { z } from "zod";
import { commonClusterProblems, commonGroupProblems, GroupProblem } from "../nodegroups/common";
import { kindOf, kindSchemas, NODE_GROUP_KINDS } from "../nodegroups/kinds";
import { longestNthRuleName } from "../nodegroups/nth";
import { dnsLabel } from "./common";

export type { NodeGroupConfig } from "../nodegroups/kinds";
export type { ManagedNodeGroupConfig } from "../nodegroups/managed";
export type { SelfManagedNodeGroupConfig } from "../nodegroups/selfManaged";

// The shared checks first, then the kind's own: the error lists them in this order.
const nodeGroupSchema = z.discriminatedUnion("kind", kindSchemas(NODE_GROUP_KINDS)).superRefine((g, ctx) => {
    const kind = kindOf(g);
    for (const [path, message] of [...commonGroupProblems(g, kind.ami(g)), ...kind.problems(g)]) {
        ctx.addIssue({ code: "custom", path, message });
    }
});

/** `nodeGroups` in stack config: a map keyed by node group name. */
export const nodeGroupsSchema = z.record(dnsLabel, nodeGroupSchema);

export type NodeGroupsConfig = z.output<typeof nodeGroupsSchema>;

/**
 * Checks node groups against the cluster they join: things the node group section alone cannot
 * know. Returns `[path, message]` pairs relative to `nodeGroups`. Pure.
 */
export function nodeGroupClusterProblems(groups: NodeGroupsConfig, cluster: { name: string; version: string }): GroupProblem[] {
    const problems: GroupProblem[] = [];
    const clusterMinor = kubernetesMinor(cluster.version);
    // One minor at a time: nodes are never newer than the control plane, so a control plane at
    // most one minor above the newest pinned node group is at most one minor above where it was.
    const pinned = Object.entries(groups)
        .filter(([, g]) => g.enabled && g.releaseVersion !== undefined)
        .map(([name, g]) => [name, kubernetesMinor(parseReleaseVersion(g.releaseVersion as string)?.minor ?? "")] as const)
        .filter(([, minor]) => !Number.isNaN(minor));
    const newest = Math.max(...pinned.map(([, minor]) => minor));
    if (pinned.length > 0 && clusterMinor > newest + 1) {
        problems.push([
            [pinned.find(([, minor]) => minor === newest)![0], "releaseVersion"],
            `the newest node group runs 1.${newest} but cluster.version is ${cluster.version}: EKS upgrades the control plane one minor at a time; go to 1.${newest + 1}, move the node groups to it, then continue (docs/changes.md#kubernetes-upgrades)`,
        ]);
    }
    const firstDrainedByNth = Object.entries(groups).find(([, g]) => g.enabled && kindOf(g).needsTerminationHandler)?.[0];
    const nthRule = longestNthRuleName(cluster.name);
    if (firstDrainedByNth !== undefined && nthRule.length > 64) {
        problems.push([
            [firstDrainedByNth],
            `needs the Node Termination Handler, whose EventBridge rule ${nthRule} exceeds EventBridge's 64 characters; shorten the cluster name to at most ${64 - (nthRule.length - cluster.name.length)} characters`,
        ]);
    }
    for (const [name, g] of Object.entries(groups)) {
        problems.push(...commonClusterProblems(name, g, kindOf(g).ami(g), cluster));
    }
    return problems;
}
