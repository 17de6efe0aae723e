/**
 * The one table of each policy's enforcement level per environment: a row per policy, a column per
 * tier (`TIERS`), and each stack's tier (`STACK_TIERS`). A cell is what `--policy-pack-config`
 * takes for one policy: a level, or `{ enforcementLevel, <knob>: <value> }` with only the knobs that
 * tier sets apart from the policy's defaults (its declaration holds the defaults).
 *
 * `npm run docs` writes from it `policies/config/<stack>.json`, the file `pulumi preview
 * --policy-pack policies --policy-pack-config policies/config/<stack>.json` reads (the CLI takes
 * a file per stack, not a table); a test fails while a written file differs from the table, naming
 * the command. Adding a policy is one row here; adding a stack is one line of `STACK_TIERS`; a tier
 * of its own (a stack that should differ from every other) is a column.
 */
import type { EnforcementLevel } from "@pulumi/policy";

/** The environment tiers: one column each. */
export const TIERS = ["dev", "prod"] as const;

export type Tier = (typeof TIERS)[number];

/** A policy's setting in one tier, in the form `--policy-pack-config` takes for one policy. */
export type TierSetting = EnforcementLevel | ({ enforcementLevel: EnforcementLevel } & Record<string, unknown>);

/** The tier of each stack (`Pulumi.<stack>.yaml`): the stack's policy config is its tier's column. */
export const STACK_TIERS: Readonly<Record<string, Tier>> = {
    dev: "dev",
    "dev-auto": "dev",
    prod: "prod",
};

/** Each policy's setting in every tier, by policy name, in the order policies.ts registers them. */
export const POLICY_LEVELS: Readonly<Record<string, Readonly<Record<Tier, TierSetting>>>> = {
    // Workloads and safe drains
    "workload-resources": { dev: "advisory", prod: "mandatory" },
    "workload-termination-grace": { dev: "advisory", prod: "mandatory" },
    "workload-prestop-hook": { dev: "advisory", prod: "advisory" },
    "workload-request-path": { dev: "advisory", prod: "mandatory" },
    "workload-service-replicas": { dev: "advisory", prod: "mandatory" },
    "workload-pdb-required": { dev: "advisory", prod: "mandatory" },
    "pdb-allows-disruption": { dev: "advisory", prod: "mandatory" },
    "namespace-quota-required": { dev: "advisory", prod: "mandatory" },
    "drain-window": { dev: "advisory", prod: "mandatory" },
    "drain-rehearsal": { dev: "advisory", prod: "mandatory" },
    "api-versions-served": { dev: "mandatory", prod: "mandatory" },
    // Karpenter
    "karpenter-nodepool": { dev: "advisory", prod: "mandatory" },
    "karpenter-nodeclass": { dev: { enforcementLevel: "advisory", allowLatestAmi: true }, prod: "mandatory" },
    // Network, nodes and control plane
    "subnet-eks-tags": { dev: "mandatory", prod: "mandatory" },
    "vpc-dns": { dev: "mandatory", prod: "mandatory" },
    "node-role-policies": { dev: "mandatory", prod: "mandatory" },
    "node-launch-hardening": { dev: "mandatory", prod: "mandatory" },
    "nodegroup-update-config": { dev: "advisory", prod: "mandatory" },
    "cluster-hardening": { dev: "mandatory", prod: "mandatory" },
    // Tenancy and access
    "namespace-isolation": { dev: "advisory", prod: "mandatory" },
    "pod-security-standard": { dev: "advisory", prod: { enforcementLevel: "mandatory", defaultLevel: "restricted" } },
    "access-least-privilege": { dev: "advisory", prod: "mandatory" },
    "app-role-least-privilege": { dev: "advisory", prod: "mandatory" },
};
