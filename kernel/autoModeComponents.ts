/**
 * What EKS Auto Mode's own storage and load balancing answer to, and which load-balancer
 * annotations AWS documents them honouring or refusing: names only, one home for the program
 * (components/compute/autoMode.ts creates the StorageClass and IngressClass with them) and the tools
 * (tools/manifests/platformFit.ts judges manifests against an Auto Mode stack with them).
 *
 * Sources are EKS User Guide pages, https://docs.aws.amazon.com/eks/latest/userguide/<page>.html,
 * read in awsdocs/amazon-eks-user-guide `latest/ug/automode/<page>.adoc` at the revisions named:
 * - migrate-auto (@ 003e4a61, "reference" table): provisioner, IngressClass controller,
 *   loadBalancerClass, IngressClassParams API;
 * - auto-configure-alb (@ 1eb6aa42): the IngressClass, "Ingress annotations" not supported;
 * - auto-configure-nlb (@ 1eb6aa42): "Commonly used annotations" and "Service annotations" not
 *   supported, the cluster-default loadBalancerClass;
 * - auto-elb-example (@ 1a98af5c): an Ingress with `scheme` and `target-type`.
 * What none of them says is left undecided by the tools, never passed.
 */
import { LOAD_BALANCER_CONTROLLER_API } from "./loadBalancers";

/** The names EKS Auto Mode's components answer to (migrate-auto, "reference"). */
export const AUTO_MODE_COMPONENTS = {
    /** The StorageClass provisioner of Auto Mode's block storage (create-storage-class: EKS creates no StorageClass). */
    provisioner: "ebs.csi.eks.amazonaws.com",
    /** The IngressClass controller of Auto Mode's ALBs (auto-configure-alb). */
    ingressController: "eks.amazonaws.com/alb",
    /** The `loadBalancerClass` of Auto Mode's NLBs, "automatically set as the cluster default" for type LoadBalancer (auto-configure-nlb). */
    loadBalancerClass: "eks.amazonaws.com/nlb",
    /** The API of IngressClassParams (and TargetGroupBinding) under Auto Mode. */
    paramsApiVersion: "eks.amazonaws.com/v1",
    /** The label only Auto Mode's nodes carry (create-node-pool, "Supported labels"); its driver runs there alone. */
    computeTypeLabel: { key: "eks.amazonaws.com/compute-type", value: "auto" },
} as const;

/** One annotation AWS documents for Auto Mode: honoured, or refused (with what to use instead). */
interface AutoModeAnnotation {
    annotation: string;
    /** Only this value is meant (`auth-type: oidc`); every value when unset. */
    value?: string;
    verdict: "honoured" | "refused";
    /** For a refused one: what AWS says to use instead. */
    instead?: string;
    /** The EKS User Guide page that says so. */
    source: string;
}

const ALB = LOAD_BALANCER_CONTROLLER_API.ingressAnnotationPrefix;
const NLB = LOAD_BALANCER_CONTROLLER_API.serviceAnnotationPrefix;
const honoured = (annotation: string, source: string): AutoModeAnnotation => ({ annotation, verdict: "honoured", source });
const refused = (annotation: string, instead: string, source: string, value?: string): AutoModeAnnotation => ({
    annotation,
    ...(value === undefined ? {} : { value }),
    verdict: "refused",
    instead,
    source,
});
const ATTRIBUTES = `use ${NLB}attributes (or ${NLB}target-group-attributes)`;

/**
 * The Ingress and Service annotations AWS documents for Auto Mode. Any other annotation under
 * `alb.ingress.kubernetes.io/` or `service.beta.kubernetes.io/aws-load-balancer-` is one AWS says
 * nothing about ("EKS Auto Mode may not support all annotations", auto-configure-nlb): undecided.
 */
export const AUTO_MODE_ANNOTATIONS: readonly AutoModeAnnotation[] = [
    // An ALB Ingress: the User Guide's own example sets these two (auto-elb-example).
    honoured(`${ALB}scheme`, "auto-elb-example"),
    honoured(`${ALB}target-type`, "auto-elb-example"),
    // auto-configure-alb, "Ingress annotations".
    refused("kubernetes.io/ingress.class", "use spec.ingressClassName", "auto-configure-alb"),
    refused(`${ALB}group.name`, "set group.name in the IngressClassParams of the IngressClass", "auto-configure-alb"),
    refused(`${ALB}waf-acl-id`, "use WAF v2", "auto-configure-alb"),
    refused(`${ALB}web-acl-id`, "use WAF v2", "auto-configure-alb"),
    refused(`${ALB}shield-advanced-protection`, "none: Shield integration is disabled", "auto-configure-alb"),
    refused(`${ALB}auth-type`, "none: OIDC authentication is not supported", "auto-configure-alb", "oidc"),
    // An NLB Service: "Commonly used annotations supported by EKS Auto Mode" (auto-configure-nlb),
    // and the two attribute annotations its migration notes point to.
    ...[
        "nlb-target-type",
        "scheme",
        "healthcheck-protocol",
        "healthcheck-path",
        "healthcheck-port",
        "subnets",
        "ssl-cert",
        "ssl-ports",
        "additional-resource-tags",
        "ip-address-type",
        "attributes",
        "target-group-attributes",
    ].map((a) => honoured(`${NLB}${a}`, "auto-configure-nlb")),
    // auto-configure-nlb, "Service annotations" not supported. Its table of common annotations also
    // lists aws-load-balancer-type and load-balancer-source-ranges; the explicit "Not supported"
    // rows are taken, so a manifest relying on them is refused rather than passed.
    refused("service.beta.kubernetes.io/load-balancer-source-ranges", "use spec.loadBalancerSourceRanges", "auto-configure-nlb"),
    refused(`${NLB}type`, "use spec.loadBalancerClass", "auto-configure-nlb"),
    refused(`${NLB}internal`, `use ${NLB}scheme`, "auto-configure-nlb"),
    ...[
        "proxy-protocol",
        "access-log-enabled",
        "access-log-s3-bucket-name",
        "access-log-s3-bucket-prefix",
        "cross-zone-load-balancing-enabled",
    ].map((a) => refused(`${NLB}${a}`, ATTRIBUTES, "auto-configure-nlb")),
];

/**
 * Pod readiness gates on Auto Mode. The EKS User Guide's Auto Mode pages do not mention them (no
 * "readiness" in latest/ug/automode at 4d52b4d0, nor in auto-configure-alb/-nlb @ 1eb6aa42), so
 * whether Auto Mode injects a target-health gate for either label is undecided. Users report
 * (not AWS documentation) that Auto Mode's webhook, `eks-load-balancing-webhook`, selects
 * namespaces labelled `eks.amazonaws.com/pod-readiness-gate-inject: enabled` and not the AWS Load
 * Balancer Controller's `elbv2.k8s.aws/pod-readiness-gate-inject`.
 */
export const AUTO_MODE_READINESS_GATE = {
    /** The label the AWS Load Balancer Controller's webhook reads (its docs, deploy/pod_readiness_gate). */
    controllerLabel: LOAD_BALANCER_CONTROLLER_API.readinessGateLabel,
    /** The label users report Auto Mode reading: unconfirmed by AWS. */
    reportedLabel: "eks.amazonaws.com/pod-readiness-gate-inject",
    confirmed: false,
} as const;

/** What AWS documents for `annotation` (with `value`) on Auto Mode, or undefined when it says nothing. Pure. */
export function autoModeAnnotation(annotation: string, value: string): AutoModeAnnotation | undefined {
    return AUTO_MODE_ANNOTATIONS.find((a) => a.annotation === annotation && (a.value === undefined || a.value === value.trim()));
}
