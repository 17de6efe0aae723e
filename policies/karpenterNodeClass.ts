import type { PolicyConfigSchema, ResourceValidationPolicy } from "@pulumi/policy";
import { readConfig } from "./lib/config";
import { isKind, objectName } from "./lib/kubernetes";
import { asArray, asString, field, keysOf, path } from "./lib/values";
import { EBS_WHY, IMDS_WHY, unencryptedBlockDevices } from "./lib/nodeHardening";
import { Verdicts, violation } from "./lib/verdicts";

/** Config of `karpenter-nodeclass`. */
export interface KarpenterNodeClassConfig {
    /** Allow `amiSelectorTerms` aliases such as `al2023@latest`. Defaults to `false`. */
    allowLatestAmi: boolean;
}

const configSchema: PolicyConfigSchema = {
    properties: {
        allowLatestAmi: {
            type: "boolean",
            default: false,
            description: "Allow AMI aliases pinned to @latest (every node is replaced on each AMI release).",
        },
    },
};

// Tag keys Karpenter sets itself; EC2NodeClass validation rejects them in spec.tags.
const RESTRICTED_PREFIXES = ["kubernetes.io/cluster/", "karpenter.sh/", "karpenter.k8s.aws/"];
const RESTRICTED_KEYS = ["eks:eks-cluster-name"];

/** EC2NodeClasses pin their AMI, leave Karpenter's own tags alone, keep IMDSv2 and encrypt volumes. */
export const karpenterNodeClass: ResourceValidationPolicy = {
    name: "karpenter-nodeclass",
    description: "EC2NodeClasses pin their AMI, set no reserved tags, require IMDSv2 and encrypt block devices.",
    enforcementLevel: "mandatory",
    configSchema,
    validateResource: (args, reportViolation) => {
        if (!args.type.startsWith("kubernetes:") || !isKind(args.type, args.props, "karpenter.k8s.aws", "EC2NodeClass")) {
            args.notApplicable("not a Karpenter EC2NodeClass");
        }
        const config = readConfig<KarpenterNodeClassConfig>("karpenter-nodeclass", configSchema, args.getConfig());
        const verdicts = new Verdicts();
        const name = verdicts.read(args.name, () => objectName(args.props, args.name)) ?? args.name;
        const subject = `EC2NodeClass ${name}`;
        const spec = verdicts.read(subject, () => field(args.props, "spec"));
        verdicts.judge(`${subject} amiSelectorTerms`, () => {
            if (config.allowLatestAmi) {
                return;
            }
            for (const term of asArray(field(spec, "amiSelectorTerms"))) {
                const alias = asString(field(term, "alias"));
                if (alias && /@latest$/i.test(alias)) {
                    reportViolation(
                        violation(
                            `${subject} selects its AMI with alias ${alias}`,
                            "every AMI release drifts every node of this class: Karpenter replaces them all, draining the whole fleet with no code change",
                            `pin the version, e.g. ${alias.replace(/@latest$/i, "@v20250101")}, and bump it deliberately (or set allowLatestAmi: true for this policy in a non-production stack)`,
                        ),
                    );
                }
            }
        });
        verdicts.judge(`${subject} tags`, () => {
            const reserved = keysOf(field(spec, "tags")).filter(
                (k) => RESTRICTED_KEYS.includes(k) || RESTRICTED_PREFIXES.some((p) => k.startsWith(p)),
            );
            if (reserved.length > 0) {
                reportViolation(
                    violation(
                        `${subject} sets reserved tag${reserved.length > 1 ? "s" : ""} ${reserved.join(", ")} in spec.tags`,
                        "Karpenter owns these tags to find and clean up its instances; the API server rejects the EC2NodeClass, so its NodePools launch nothing",
                        `remove ${reserved.join(", ")} from spec.tags`,
                    ),
                );
            }
        });
        verdicts.judge(`${subject} metadataOptions`, () => {
            const tokens = path(spec, "metadataOptions", "httpTokens");
            if (tokens !== undefined && tokens !== null && tokens !== "required") {
                reportViolation(
                    violation(
                        `${subject} sets metadataOptions.httpTokens to ${JSON.stringify(tokens)}`,
                        IMDS_WHY,
                        'set metadataOptions.httpTokens: "required" (Karpenter\'s default) or drop the override',
                    ),
                );
            }
        });
        verdicts.judge(`${subject} blockDeviceMappings`, () => {
            for (const { index, device } of unencryptedBlockDevices(field(spec, "blockDeviceMappings"))) {
                reportViolation(
                    violation(
                        `${subject} block device ${device} is not encrypted (ebs.encrypted is not true)`,
                        EBS_WHY,
                        `set blockDeviceMappings[${index}].ebs.encrypted: true (optionally with kmsKeyID)`,
                    ),
                );
            }
        });
        verdicts.finish();
    },
};
