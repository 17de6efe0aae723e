/**
 * What the policies are judging: a Pulumi stack, or plain Kubernetes manifests handed to the
 * manifest gate. The gate says so with a stack tag (the analyzer's ConfigureStack carries tags to
 * `args.stackTags`), so messages about what is absent name the right input. This module imports
 * nothing: the gate reads it without loading the SDK.
 */

/**
 * The stack tag the manifest gate sets: `manifests` for manifests alone (the platform's nodes and
 * namespaces live elsewhere), `manifests-on-platform` for manifests beside a platform profile's
 * context (tools/manifests/platformProfile.ts: the platform's nodes, namespaces and add-ons are in the input).
 */
export const INPUT_TAG = "platform/input";
export const MANIFEST_INPUT = "manifests";
export const PLATFORM_INPUT = "manifests-on-platform";

/** `in these manifests` for the manifest gate, `in these manifests and their platform` with a profile, else `in this stack`. */
export function inputScope(stackTags: ReadonlyMap<string, string> | undefined): string {
    const input = stackTags?.get(INPUT_TAG);
    return input === MANIFEST_INPUT
        ? "in these manifests"
        : input === PLATFORM_INPUT
          ? "in these manifests and their platform"
          : "in this stack";
}

/**
 * Kinds (`group/Kind`) no policy reads beyond apiVersion, kind, name, namespace and labels, so
 * the manifest gate sends only those (`packProps` in tools/manifests/manifests.ts). A policy that starts
 * reading more of one of them must take it out of this list; the pack test runs every policy on
 * whole and trimmed objects of these kinds and requires the same verdicts.
 */
export const IDENTITY_ONLY_KINDS: ReadonlySet<string> = new Set(["apiextensions.k8s.io/CustomResourceDefinition", "/ConfigMap", "/Secret"]);
