import { asArray, asString, field, isAwsReservedTagKey, karpenterRestrictedTag, keysOf, path } from "eks-platform-kernel";
import {
    EBS_WHY,
    hopLimitViolation,
    IMDS_WHY,
    karpenterVersion,
    karpenterVersionViolation,
    MAX_HOP_LIMIT,
    objectName,
    unencryptedBlockDevices,
    Verdicts,
    violation,
} from "eks-platform-evaluation";
import { declareResourcePolicy, Knobs } from "./declare";

/** Config of `karpenter-nodeclass`. */
export interface KarpenterNodeClassConfig {
    /** Allow `amiSelectorTerms` aliases such as `al2023@latest`. Defaults to `false`. */
    allowLatestAmi: boolean;
    /** Highest allowed `metadataOptions.httpPutResponseHopLimit`. Defaults to `1`. */
    maxHopLimit: number;
}

const knobs: Knobs<KarpenterNodeClassConfig> = {
    allowLatestAmi: {
        type: "boolean",
        default: false,
        description: "Allow AMI aliases pinned to @latest (every node is replaced on each AMI release).",
    },
    maxHopLimit: MAX_HOP_LIMIT,
};

// AMI alias families the Karpenter v1 EC2NodeClass CRD accepts (its CEL rules on
// amiSelectorTerms[].alias; windows2025 per @kubernetes-models/karpenter 2.0.0, generated from
// the CRD). Windows families accept only `@latest`: Karpenter resolves them from SSM's latest
// parameter and refuses a pinned version ("windows families may only specify version 'latest'").
const ALIAS_FAMILIES = ["al2", "al2023", "bottlerocket", "windows2019", "windows2022", "windows2025"];
const LATEST_ONLY = new Set(["windows2019", "windows2022", "windows2025"]);
const ALIAS_FORMAT = /^[a-zA-Z0-9]+@.+$/;
const REFUSED = "the API server refuses the EC2NodeClass (its CRD validation), so the NodePools that use it launch no node";

/**
 * EC2NodeClasses pin their AMI, leave Karpenter's own tags alone, keep IMDSv2 and encrypt volumes.
 * An EC2NodeClass of another API version (v1beta1) gets one violation saying to migrate.
 */
export const karpenterNodeClass = declareResourcePolicy<KarpenterNodeClassConfig, string | undefined>({
    name: "karpenter-nodeclass",
    description:
        "EC2NodeClasses use the v1 API, pin their AMI (Windows: @latest), set no restricted or aws: tags, require IMDSv2 with a low hop limit and encrypt block devices.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires:
            "the v1 API; no `@latest` AMI alias (Windows families: only `@latest`), no tags Karpenter or EC2 reserve, IMDSv2 with a hop limit ≤ `maxHopLimit`, encrypted volumes",
        checks: "EC2NodeClass: no `@latest` AMI alias, except the Windows families (`windows2019`, `windows2022`, `windows2025`), which Karpenter accepts only at `@latest` (a pinned Windows alias is reported as refused); no alias Karpenter's CRD refuses (not `family@version`, or a family other than `al2`, `al2023`, `bottlerocket`, `windows2019`, `windows2022`, `windows2025`); no `spec.tags` key the v1 CRD restricts (empty, starting with `kubernetes.io/cluster`, or exactly `eks:eks-cluster-name`, `karpenter.sh/nodepool`, `karpenter.sh/nodeclaim`, `karpenter.k8s.aws/ec2nodeclass`; others such as `karpenter.sh/discovery` are fine) and none under `aws:` (EC2 refuses them); `metadataOptions.httpTokens` not relaxed; `metadataOptions.httpPutResponseHopLimit` at most `maxHopLimit` (unset is Karpenter's default, 1); every EBS block device `encrypted: true`; an EC2NodeClass of another API version (v1beta1) gets one violation to migrate instead",
    },
    select: (args) => {
        const version = args.type.startsWith("kubernetes:")
            ? karpenterVersion(args.type, args.props, "karpenter.k8s.aws", "EC2NodeClass")
            : undefined;
        if (version === undefined) {
            args.notApplicable("not a Karpenter EC2NodeClass");
        }
        return version;
    },
    validateResource: (args, reportViolation, config, version) => {
        const verdicts = new Verdicts();
        const name = verdicts.read(args.name, () => objectName(args.props, args.name)) ?? args.name;
        const subject = `EC2NodeClass ${name}`;
        if (version !== "v1") {
            reportViolation(
                karpenterVersionViolation(
                    subject,
                    "karpenter.k8s.aws",
                    version as string,
                    "amiSelectorTerms is required, an alias such as al2023@v20250115 replaces amiFamily",
                ),
            );
            verdicts.finish();
            return;
        }
        const spec = verdicts.read(subject, () => field(args.props, "spec"));
        verdicts.judge(`${subject} amiSelectorTerms`, () => {
            for (const term of asArray(field(spec, "amiSelectorTerms"))) {
                const alias = asString(field(term, "alias"));
                if (alias === undefined) {
                    continue;
                }
                const [family, version] = [alias.slice(0, alias.indexOf("@")), alias.slice(alias.indexOf("@") + 1)];
                if (!ALIAS_FORMAT.test(alias)) {
                    reportViolation(
                        violation(
                            `${subject} alias ${JSON.stringify(alias)} is not written family@version`,
                            REFUSED,
                            "write the alias as family@version, e.g. al2023@v20250115",
                        ),
                    );
                } else if (!ALIAS_FAMILIES.includes(family)) {
                    reportViolation(
                        violation(
                            `${subject} alias ${JSON.stringify(alias)} names family ${family}, which Karpenter does not know (${ALIAS_FAMILIES.join(", ")})`,
                            REFUSED,
                            `use one of those families (lower case), or select the AMI by id, name, tags or ssmParameter instead of an alias`,
                        ),
                    );
                } else if (LATEST_ONLY.has(family) && version !== "latest") {
                    reportViolation(
                        violation(
                            `${subject} pins Windows alias ${alias}, but Karpenter accepts only latest for the Windows families`,
                            REFUSED,
                            `select ${family}@latest; to hold Windows nodes on one AMI, select it by id or name instead of an alias`,
                        ),
                    );
                } else if (!LATEST_ONLY.has(family) && version === "latest" && !config.allowLatestAmi) {
                    reportViolation(
                        violation(
                            `${subject} selects its AMI with alias ${alias}`,
                            "every AMI release drifts every node of this class: Karpenter replaces them all, draining the whole fleet with no code change",
                            `pin the version, e.g. ${family}@v20250101, and bump it deliberately (or set allowLatestAmi: true for this policy in a non-production stack)`,
                        ),
                    );
                }
            }
        });
        verdicts.judge(`${subject} tags`, () => {
            const keys = keysOf(field(spec, "tags"));
            const restricted = keys.map(karpenterRestrictedTag).filter((k): k is string => k !== undefined);
            if (restricted.length > 0) {
                reportViolation(
                    violation(
                        `${subject} sets restricted tag${restricted.length > 1 ? "s" : ""} ${restricted.join(", ")} in spec.tags`,
                        "Karpenter sets these tags itself to find, count and clean up its instances, and the EC2NodeClass CRD's validation rejects them: the API server refuses the EC2NodeClass, so its NodePools launch nothing",
                        `remove ${restricted.length > 1 ? "these keys" : "this key"} from spec.tags (other keys under karpenter.sh/, such as karpenter.sh/discovery, are fine)`,
                    ),
                );
            }
            const reserved = keys.filter(isAwsReservedTagKey);
            if (reserved.length > 0) {
                reportViolation(
                    violation(
                        `${subject} sets tag${reserved.length > 1 ? "s" : ""} ${reserved.join(", ")} in spec.tags, under the aws: prefix AWS reserves for itself`,
                        "EC2 refuses user tags starting with aws: (in any letter case), so every instance launch of this class fails and its NodePools get no nodes",
                        `rename ${reserved.join(", ")} without the aws: prefix, or drop ${reserved.length > 1 ? "them" : "it"}`,
                    ),
                );
            }
        });
        verdicts.judge(`${subject} metadataOptions`, () => {
            // Unset, Karpenter launches with a hop limit of 1 (the CRD's default).
            const hops = path(spec, "metadataOptions", "httpPutResponseHopLimit");
            if (hops !== undefined && hops !== null && !(typeof hops === "number" && hops <= config.maxHopLimit)) {
                reportViolation(hopLimitViolation(subject, "metadataOptions.httpPutResponseHopLimit", hops, config.maxHopLimit));
            }
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
});
