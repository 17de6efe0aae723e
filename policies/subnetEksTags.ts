import { PolicyConfigSchema, ResourceValidationPolicy, validateResourceOfType } from "@pulumi/policy";
import { readConfig } from "./lib/config";
import { resourceType } from "./lib/resourceType";
import { asString, field, isTrue, keysOf } from "./lib/values";
import { Verdicts, violation } from "./lib/verdicts";

/** Config of `subnet-eks-tags`. */
export interface SubnetEksTagsConfig {
    /** The cluster whose tag every subnet must carry; empty accepts any cluster. Defaults to `""`. */
    clusterName: string;
}

const configSchema: PolicyConfigSchema = {
    properties: {
        clusterName: {
            type: "string",
            default: "",
            description: "Require the tag kubernetes.io/cluster/<clusterName>; empty accepts any cluster name.",
        },
    },
};

const CLUSTER_TAG = "kubernetes.io/cluster/";

/**
 * Subnets carry the tags EKS, the AWS Load Balancer Controller and Karpenter discover them by:
 * `kubernetes.io/cluster/<name>` (owned/shared), and `kubernetes.io/role/elb=1` on public subnets
 * (`mapPublicIpOnLaunch` or tag `tier=public`) or `kubernetes.io/role/internal-elb=1` on the others.
 */
export const subnetEksTags: ResourceValidationPolicy = {
    name: "subnet-eks-tags",
    description: "Subnets carry the cluster tag and the public (elb) or private (internal-elb) load balancer role tag.",
    enforcementLevel: "mandatory",
    configSchema,
    validateResource: validateResourceOfType(resourceType("aws:ec2/subnet:Subnet"), (props, args, reportViolation) => {
        const config = readConfig<SubnetEksTagsConfig>("subnet-eks-tags", configSchema, args.getConfig());
        const verdicts = new Verdicts();
        const subject = `Subnet ${args.name}`;
        verdicts.judge(subject, () => {
            const tags = field(props, "tags");
            const clusterKeys = keysOf(tags).filter((k) => k.startsWith(CLUSTER_TAG));
            const wanted = config.clusterName ? [`${CLUSTER_TAG}${config.clusterName}`] : clusterKeys;
            const good = wanted.filter((k) => ["owned", "shared"].includes(asString(field(tags, k)) ?? ""));
            if (good.length === 0) {
                const key = config.clusterName ? `${CLUSTER_TAG}${config.clusterName}` : `${CLUSTER_TAG}<cluster name>`;
                reportViolation(
                    violation(
                        `${subject} has no tag ${key} with value owned or shared`,
                        "the AWS Load Balancer Controller and EKS discover subnets by this tag: load balancers for Services and Ingresses fail with 'unable to resolve at least one subnet'",
                        `add tag ${key}: shared (owned if only this cluster uses the subnet), with the static cluster name`,
                    ),
                );
            }
            const isPublic = isTrue(field(props, "mapPublicIpOnLaunch")) || asString(field(tags, "tier")) === "public";
            const roleKey = isPublic ? "kubernetes.io/role/elb" : "kubernetes.io/role/internal-elb";
            if (asString(field(tags, roleKey)) !== "1") {
                reportViolation(
                    violation(
                        `${isPublic ? "Public" : "Private"} ${subject} lacks tag ${roleKey}=1`,
                        isPublic
                            ? "internet-facing load balancers are placed only in subnets tagged kubernetes.io/role/elb, so public Services and Ingresses get no load balancer"
                            : "internal load balancers are placed only in subnets tagged kubernetes.io/role/internal-elb, so internal Services get no load balancer (or land in the wrong subnets)",
                        `add tag ${roleKey}: "1"${isPublic ? "" : " (public subnets: set tier: public or mapPublicIpOnLaunch and tag kubernetes.io/role/elb instead)"}`,
                    ),
                );
            }
        });
        verdicts.finish();
    }),
};
