import type { Policy } from "@pulumi/policy";

/** Every policy of the pack, in the order the CLI reports them. */
export const policies: Policy[] = [];
