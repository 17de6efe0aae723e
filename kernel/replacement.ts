/**
 * What an input change does to a live resource: which inputs force a replacement (delete and
 * re-create: new id, new addresses, drained nodes) and which roll the nodes behind it without
 * replacing it. The shape of the offline diff's knowledge (tools/render/replacements.ts): the program's
 * node-group kinds declare it for the resource types they own, the tools hold the rest.
 */

export interface ReplacementRule {
    /** Inputs whose change replaces the resource (dot paths; a change anywhere under one counts). */
    replaceOn: readonly string[];
    /** Inputs whose change rolls the resource's nodes (one by one, drained) without replacing it. */
    rollsNodesOn?: readonly string[];
    /**
     * Inputs the API refuses to change in place while the provider does not replace on them: the
     * provider sends the update and `pulumi up` fails (a Kubernetes field the API server makes
     * immutable that pulumi-kubernetes does not list as forceNew).
     */
    refusedOn?: readonly string[];
    /** Where the rule comes from. */
    source: string;
}

/**
 * The source of a rule read from the Terraform AWS provider, which the bridged Pulumi AWS provider
 * follows: it replaces a resource exactly where the schema marks the attribute `ForceNew`. Pure.
 */
export function terraformForceNew(resource: string, attributes: string): string {
    return `terraform-provider-aws ${resource} schema: ForceNew on ${attributes}`;
}
