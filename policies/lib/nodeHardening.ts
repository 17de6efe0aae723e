/**
 * What every node launch definition must get right, whichever API declares it (an EC2 launch
 * template, a Karpenter EC2NodeClass): the consequences are the same, so the words are too.
 */
import { asArray, asString, field, isTrue } from "./values";

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
