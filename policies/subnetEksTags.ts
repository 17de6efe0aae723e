import type { PolicyResource } from "@pulumi/policy";
import { asString, field, isTrue, keysOf } from "eks-platform-kernel";
import { EKS_CLUSTER_TYPES, Verdicts, violation } from "eks-platform-evaluation";
import { declareStackPolicy, Knobs } from "./declare";

/** Config of `subnet-eks-tags`. */
export interface SubnetEksTagsConfig {
    /**
     * The cluster whose tag every subnet must carry. Empty: the EKS cluster(s) of the same stack;
     * set it for a VPC whose cluster lives in another stack. Defaults to `""`.
     */
    clusterName: string;
}

const knobs: Knobs<SubnetEksTagsConfig> = {
    clusterName: {
        type: "string",
        default: "",
        description:
            "Require the tag kubernetes.io/cluster/<clusterName>; empty takes the name of the EKS cluster(s) in the same stack (set it for a VPC shared with a cluster of another stack).",
    },
};

const CLUSTER_TAG = "kubernetes.io/cluster/";
const SUBNET = "aws:ec2/subnet:Subnet";

/** The clusters whose tag the subnets need: names known at preview, and whether some name is not. */
function clustersOf(resources: readonly PolicyResource[], verdicts: Verdicts): { names: string[]; unknown: string[] } {
    const names = new Set<string>();
    const unknown: string[] = [];
    for (const r of resources.filter((x) => EKS_CLUSTER_TYPES.has(x.type))) {
        const read = verdicts.read(`cluster ${r.name} name`, () => ({ name: asString(field(r.props, "name")) }));
        if (read?.name) {
            names.add(read.name);
        } else {
            // Unknown at preview, or left to auto-naming (known only after apply).
            unknown.push(r.name);
        }
    }
    return { names: [...names], unknown };
}

/**
 * Subnets carry the tags EKS, the AWS Load Balancer Controller and Karpenter discover them by:
 * `kubernetes.io/cluster/<name>` (owned/shared) for the cluster of the same stack (or the
 * `clusterName` knob), and `kubernetes.io/role/elb=1` on public subnets (`mapPublicIpOnLaunch` or
 * tag `tier=public`) or `kubernetes.io/role/internal-elb=1` on the others. The cluster name is read
 * from the stack so a renamed cluster needs no policy config; a stack with subnets but no cluster
 * and no knob leaves the cluster tag undecided, never passed.
 */
export const subnetEksTags = declareStackPolicy<SubnetEksTagsConfig>({
    name: "subnet-eks-tags",
    description: "Subnets carry the cluster tag and the public (elb) or private (internal-elb) load balancer role tag.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires: "the tag of the stack's own cluster on every subnet, `elb` / `internal-elb` role tags by tier",
        checks: "every `aws:ec2/subnet:Subnet` has `kubernetes.io/cluster/<name>` = owned/shared for an EKS cluster of the same stack (`eks:index:Cluster` or `aws:eks/cluster:Cluster`, by its `name`) or the `clusterName` knob; a stack with subnets but neither leaves that check undecided, never passed; public subnets (`mapPublicIpOnLaunch`, or tag `tier: public`) `kubernetes.io/role/elb=1`, the others `kubernetes.io/role/internal-elb=1`",
        knobs: { clusterName: "empty: the name of the stack's own cluster" },
    },
    validateStack: (args, reportViolation, config) => {
        const subnets = args.resources.filter((r) => r.type === SUBNET);
        if (subnets.length === 0) {
            args.notApplicable(`no ${SUBNET} in this stack: nothing was checked`);
        }
        const verdicts = new Verdicts();
        const clusters = config.clusterName ? { names: [config.clusterName], unknown: [] } : clustersOf(args.resources, verdicts);
        const wanted = clusters.names.map((n) => `${CLUSTER_TAG}${n}`);
        for (const r of subnets) {
            const subject = `Subnet ${r.name}`;
            verdicts.judge(subject, () => {
                const tags = field(r.props, "tags");
                const good = keysOf(tags)
                    .filter((k) => wanted.includes(k))
                    .filter((k) => ["owned", "shared"].includes(asString(field(tags, k)) ?? ""));
                if (good.length > 0) {
                    // Tagged for a cluster of this stack.
                } else if (clusters.unknown.length > 0) {
                    // The untagged cluster may be the one whose name is not known yet.
                    verdicts.leaveUndecided(`${subject} cluster tag`, [clusters.unknown[0], "name"]);
                } else if (wanted.length === 0) {
                    verdicts.cannotDecide(
                        `${subject} cluster tag`,
                        "no EKS cluster in this stack (eks:index:Cluster or aws:eks/cluster:Cluster) names the cluster whose kubernetes.io/cluster/<name> tag the subnets need; for a VPC whose cluster lives in another stack, set subnet-eks-tags.clusterName in the policy config",
                    );
                } else {
                    const key = wanted.join(" or ");
                    reportViolation(
                        violation(
                            `${subject} has no tag ${key} with value owned or shared`,
                            "the AWS Load Balancer Controller and EKS discover subnets by this tag: load balancers for Services and Ingresses fail with 'unable to resolve at least one subnet'",
                            `add tag ${wanted[0]}: shared (owned if only this cluster uses the subnet), with the static cluster name`,
                        ),
                        r.urn,
                    );
                }
                const isPublic = isTrue(field(r.props, "mapPublicIpOnLaunch")) || asString(field(tags, "tier")) === "public";
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
                        r.urn,
                    );
                }
            });
        }
        verdicts.finish();
    },
});
