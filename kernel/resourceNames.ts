/**
 * Names of extended resources (`nvidia.com/gpu`, `amd.com/gpu`, `aws.amazon.com/neuron`,
 * `vpc.amazonaws.com/efa`): the resources a device plugin advertises on a node beyond CPU and
 * memory, which pods request and NodePool limits cap. Pure; never throws.
 *
 * The rule is Kubernetes' `IsExtendedResourceName` (k8s.io/kubernetes `pkg/apis/core/helper`
 * helpers.go): a name with a domain (`<domain>/<name>`) outside `kubernetes.io/`, not starting
 * with `requests.`, that is still a qualified name once quotas prefix it (`requests.<name>`).
 * Such resources are counted in whole units (`IsIntegerResourceName` there): the API server
 * refuses a fractional request of one.
 */
import { labelKeyProblem } from "./selector";

/** Why `name` is not an extended resource name, or `undefined`. */
export function extendedResourceNameProblem(name: string): string | undefined {
    const quoted = JSON.stringify(name);
    if (!name.includes("/")) {
        return `${quoted} has no domain (an extended resource is named <domain>/<name>)`;
    }
    if (name.includes("kubernetes.io/")) {
        return `${quoted} is in the kubernetes.io domain, which Kubernetes keeps for its own resources`;
    }
    if (name.startsWith("requests.")) {
        return `${quoted} starts with "requests.", the prefix ResourceQuotas put before resource names`;
    }
    if (labelKeyProblem(`requests.${name}`) !== undefined) {
        return `${quoted} is not a qualified name: a lower-case DNS domain, "/", then up to 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`;
    }
    return undefined;
}

/** True for an extended resource name (`nvidia.com/gpu`): what the scheduler counts beside CPU and memory, never overcommitted. */
export function isExtendedResourceName(name: string): boolean {
    return extendedResourceNameProblem(name) === undefined;
}
