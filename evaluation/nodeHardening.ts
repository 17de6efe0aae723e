/**
 * What every node launch definition must get right, whichever API declares it (an EC2 launch
 * template, a Karpenter EC2NodeClass): the consequences are the same, so the words are too.
 */
import type { PolicyConfigJSONSchema } from "@pulumi/policy/schema";
import { asArray, asString, field, isTrue } from "eks-platform-kernel";
import { violation } from "./verdicts";

/** Why IMDSv1 must stay off on nodes. */
export const IMDS_WHY =
    "with IMDSv1 allowed, any pod reached by SSRF can read the node role's credentials from the instance metadata service";

/** Why node volumes must be encrypted. */
export const EBS_WHY =
    "node volumes hold container images, emptyDir data and logs; unencrypted they depend on the account's default and fail encryption-at-rest controls";

/**
 * The block device mappings whose EBS volume is not encrypted (`encrypted` neither `true` nor
 * `"true"`), with their index and device name. Mappings without `ebs` (instance store) are skipped.
 */
export function unencryptedBlockDevices(mappings: unknown): { index: number; device: string }[] {
    const out: { index: number; device: string }[] = [];
    asArray(mappings).forEach((mapping, index) => {
        const ebs = field(mapping, "ebs");
        if (ebs !== undefined && !isTrue(field(ebs, "encrypted"))) {
            out.push({ index, device: asString(field(mapping, "deviceName")) ?? `#${index}` });
        }
    });
    return out;
}

/**
 * The `maxHopLimit` knob of every policy that judges node launch settings. A container on the pod
 * network is two hops from the instance metadata service, a hostNetwork pod or the node itself one:
 * with a hop limit of 1 only the node (and hostNetwork pods, which are the node's already) reaches
 * IMDS. 2 is for clusters whose pod-network containers must read instance metadata (old AWS SDKs
 * without IRSA or Pod Identity); more than 2 reaches nothing further, so the knob stops there.
 */
export const MAX_HOP_LIMIT: PolicyConfigJSONSchema & { default: number; description: string } = {
    type: "integer",
    minimum: 1,
    maximum: 2,
    default: 1,
    description:
        "Highest allowed metadataOptions.httpPutResponseHopLimit: 1 keeps pod-network containers off the node role's credentials; 2 lets them read instance metadata.",
};

/** The violation for a hop limit above `max` (the policy's `maxHopLimit`). */
export function hopLimitViolation(subject: string, key: string, value: unknown, max: number): string {
    return violation(
        `${subject} sets ${key} to ${JSON.stringify(value)}, above ${max}`,
        "a container on the pod network is two hops from the instance metadata service: with a hop limit of 2 every pod can read the node role's credentials and act as the node (pull any image, describe the account's EC2, attach ENIs), whatever its own service account allows",
        `set ${key}: 1 (pods get AWS credentials from EKS Pod Identity or IRSA; hostNetwork pods reach IMDS in one hop), or raise this policy's maxHopLimit to 2 where pods must read instance metadata`,
    );
}
