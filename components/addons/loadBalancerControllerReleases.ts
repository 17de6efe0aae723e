/**
 * AWS Load Balancer Controller releases the platform can install: each chart version with the
 * controller version it ships and the IAM policy upstream publishes for that controller version.
 * The policy is data, copied statement for statement from the upstream file at the release tag;
 * a new release is one new JSON file, one entry here and its chart version in
 * `LOAD_BALANCER_CONTROLLER_CHART_VERSIONS` (components/addons/schema.ts: the config refuses
 * chart versions not listed there; this table fails to compile unless it holds exactly those).
 */
import type { PolicyDocument } from "../podIdentityPolicy";
import type { LoadBalancerControllerChartVersion } from "./schema";
import v2_13_3 from "./data/aws-load-balancer-controller-v2.13.3-iam_policy.json";

export interface LoadBalancerControllerRelease {
    /** The controller image tag the chart version ships (`appVersion` of the chart). */
    appVersion: string;
    /** Where the policy comes from: upstream's iam_policy.json at the release tag (aws partition). */
    policySource: string;
    /** The controller's IAM policy, as upstream publishes it. */
    policy: PolicyDocument;
}

/**
 * Chart `aws-load-balancer-controller` of https://aws.github.io/eks-charts, by chart version.
 * 1.13.3 / v2.13.3: released 2025-06-16 (aws/eks-charts#1223); requires Kubernetes 1.22+. The
 * policy was read offline, from aws-cdk's verbatim copy of that upstream file
 * (packages/aws-cdk-lib/aws-eks-v2/lib/addons/alb-iam_policy-v2.13.3.json): the stored copies of
 * the upstream repository could not be tied to the tag. Diff it once against `policySource`
 * before the first `pulumi up` (docs/addons.md shows the command).
 */
export const LOAD_BALANCER_CONTROLLER_RELEASES: Readonly<Record<string, LoadBalancerControllerRelease>> = {
    "1.13.3": {
        appVersion: "v2.13.3",
        policySource: "https://raw.githubusercontent.com/kubernetes-sigs/aws-load-balancer-controller/v2.13.3/docs/install/iam_policy.json",
        policy: v2_13_3 as PolicyDocument,
    },
} satisfies Record<LoadBalancerControllerChartVersion, LoadBalancerControllerRelease>;
