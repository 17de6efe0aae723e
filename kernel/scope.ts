/**
 * What the policies are judging: a Pulumi stack, or plain Kubernetes manifests handed to the
 * manifest gate. The gate says so with a stack tag (the analyzer's ConfigureStack carries tags to
 * `args.stackTags`), so messages about what is absent name the right input. This module imports
 * nothing: the gate reads it without loading the SDK.
 */

/** The stack tag the manifest gate sets to `manifests`. */
export const INPUT_TAG = "platform/input";
export const MANIFEST_INPUT = "manifests";

/** `in these manifests` for the manifest gate, else `in this stack`. */
export function inputScope(stackTags: ReadonlyMap<string, string> | undefined): string {
    return stackTags?.get(INPUT_TAG) === MANIFEST_INPUT ? "in these manifests" : "in this stack";
}

/**
 * Kinds (`group/Kind`) no policy reads beyond apiVersion, kind, name, namespace and labels, so
 * the manifest gate sends only those (`packProps` in tools/manifests.ts). A policy that starts
 * reading more of one of them must take it out of this list; the pack test runs every policy on
 * whole and trimmed objects of these kinds and requires the same verdicts.
 */
export const IDENTITY_ONLY_KINDS: ReadonlySet<string> = new Set(["apiextensions.k8s.io/CustomResourceDefinition", "/ConfigMap", "/Secret"]);
