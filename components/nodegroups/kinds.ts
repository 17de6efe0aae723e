/**
 * The registry of node-group kinds. Each kind is one module for its config half
 * (`<kind>.schema.ts`: schema, checks, AMI facts; registered in `NODE_GROUP_KIND_SCHEMAS`,
 * schema.ts, which the stack config reads) and one for the rest (`<kind>.ts`: its component and
 * the facts the tools need, spreading its config half; registered here). The `NodeGroups`
 * component, the offline plan, diff and replacement rules read `NODE_GROUP_KINDS` instead of
 * branching on `kind`; the compiler holds it to `NODE_GROUP_KIND_SCHEMAS`, kind for kind, and
 * test/components/nodegroups/kinds.test.ts fails when a registered kind lacks a part. A GPU group
 * is not a kind: it is a managed group with an NVIDIA AMI type (`isGpuGroup`).
 */
import type { z } from "zod";
import type { KindResourceType, NodeGroupKind } from "./kind";
import { managedKind } from "./managed";
import type { NodeGroupKindSchema } from "./common.schema";
import type { NODE_GROUP_KIND_SCHEMAS, NodeGroupConfig } from "./schema";
import { selfManagedKind } from "./selfManaged";

/** A kind for each config half of `T`, in its order. */
type KindsOf<T extends readonly NodeGroupKindSchema[]> = {
    readonly [I in keyof T]: T[I] extends NodeGroupKindSchema<infer S> ? NodeGroupKind<S> : never;
};

/**
 * The kinds, each with its config half, in the order of `NODE_GROUP_KIND_SCHEMAS` (the order the
 * docs list them). Adding a kind is its two modules, its entry there and its entry here.
 */
export const NODE_GROUP_KINDS = [managedKind, selfManagedKind] as const satisfies KindsOf<typeof NODE_GROUP_KIND_SCHEMAS>;

/** The registered kind of a validated group. */
export function kindOf(config: Pick<NodeGroupConfig, "kind">): NodeGroupKind<z.ZodObject, NodeGroupConfig> {
    const kind = NODE_GROUP_KINDS.find((k) => k.kind === config.kind);
    if (!kind) {
        throw new Error(`no node-group kind ${config.kind} is registered (components/nodegroups/kinds.ts)`);
    }
    return kind;
}

/**
 * The resource types the kinds own, merged. A type two kinds declare differently has no single
 * answer, so the merge refuses it. Pure.
 */
export function kindResourceTypes(kinds: readonly NodeGroupKind[] = NODE_GROUP_KINDS): Record<string, KindResourceType> {
    const merged: Record<string, KindResourceType> = {};
    const owner: Record<string, string> = {};
    for (const kind of kinds) {
        for (const [type, facts] of Object.entries(kind.resourceTypes)) {
            if (merged[type] !== undefined && JSON.stringify(merged[type]) !== JSON.stringify(facts)) {
                throw new Error(`node-group kinds ${owner[type]} and ${kind.kind} declare ${type} differently`);
            }
            merged[type] = facts;
            owner[type] = kind.kind;
        }
    }
    return merged;
}

/**
 * `table` (a tool's facts per resource type) with `pick` of each type the kinds own added. A type in
 * both would have two homes and two answers, so this refuses it, naming `where` the table lives.
 */
export function withKindFacts<T>(
    table: Readonly<Record<string, T>>,
    pick: (facts: KindResourceType) => T | undefined,
    where: string,
): Record<string, T> {
    const owned = Object.entries(kindResourceTypes()).flatMap(([type, facts]) => {
        const picked = pick(facts);
        return picked === undefined ? [] : [[type, picked] as const];
    });
    const twice = owned.filter(([type]) => table[type] !== undefined).map(([type]) => type);
    if (twice.length > 0) {
        throw new Error(`${twice.join(", ")}: in ${where} and in a node-group kind (components/nodegroups/kinds.ts); keep one`);
    }
    return { ...table, ...Object.fromEntries(owned) };
}
