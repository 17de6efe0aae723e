/**
 * What the policies are judging: a Pulumi stack, or plain Kubernetes manifests handed to the
 * manifest gate. The gate says so with a stack tag (the analyzer's ConfigureStack carries tags to
 * `args.stackTags`), so messages about what is absent name the right input.
 */

/** The stack tag the manifest gate sets to `manifests`. */
export const INPUT_TAG = "platform/input";
export const MANIFEST_INPUT = "manifests";

/** `in these manifests` for the manifest gate, else `in this stack`. */
export function inputScope(stackTags: ReadonlyMap<string, string> | undefined): string {
    return stackTags?.get(INPUT_TAG) === MANIFEST_INPUT ? "in these manifests" : "in this stack";
}
