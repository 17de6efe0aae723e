/**
 * The AWS Load Balancer Controller as the platform installs it (v2.13.3) and the timing of the
 * load balancers it builds: names and numbers only, so the program (its namespaces' labels, the
 * controller's IngressClass) and the pack's request-path rules (evaluation/requestPath.ts) read the
 * same ones. Sources are named next to each value; evaluation/requestPath.ts names the controller
 * source its rules were read at.
 */

/** Names the AWS Load Balancer Controller reads: one home for the program, the pack and the tools. */
export const LOAD_BALANCER_CONTROLLER_API = {
    /** The controller release these rules were read at. */
    version: "v2.13.3",
    /** The IngressClass the platform creates, and the controller it names. */
    ingressClass: "alb",
    ingressController: "ingress.k8s.aws/alb",
    /** The `spec.loadBalancerClass` the controller serves (its webhook sets it on new LoadBalancer Services). */
    loadBalancerClass: "service.k8s.aws/nlb",
    /** Service and Ingress annotations the controller reads. */
    serviceAnnotationPrefix: "service.beta.kubernetes.io/aws-load-balancer-",
    ingressAnnotationPrefix: "alb.ingress.kubernetes.io/",
    /** Namespace label that turns on target-health readiness gates (the controller's pod webhook). */
    readinessGateLabel: "elbv2.k8s.aws/pod-readiness-gate-inject",
    /** The tag the controller puts on every AWS resource it creates, valued with its `--cluster-name` (pkg/deploy/tracking/provider.go, `StackTags`; pkg/shared_constants/tag_keys.go). */
    clusterTag: "elbv2.k8s.aws/cluster",
} as const;

/**
 * How long the path keeps routing to a pod once it is told to stop, and the defaults that decide
 * it. Seconds; each with where it comes from. The stop-routing times are not documented by AWS:
 * they are what users measured, and the pack uses the upper end so a verdict never passes by
 * accident. `workload-request-path` takes them as knobs for a fork that measured its own.
 */
export const REQUEST_PATH_TIMING = {
    /**
     * ALB, `ip` targets: the controller deregisters the pod after its TargetGroupBinding reconcile
     * sees the endpoint change (a few seconds), and the ALB then stops sending new requests to
     * the draining target within seconds (aws-load-balancer-controller#2131, #1719: 5–10 s
     * measured). 15 s covers both.
     */
    albIpStopRoutingSeconds: 15,
    /**
     * NLB, `ip` targets: new connections keep arriving for about two minutes after
     * DeregisterTargets, whatever the deregistration delay (aws-load-balancer-controller#2366,
     * #3270; aws/containers-roadmap#470: "the effective minimum delay seems to be 120 seconds").
     */
    nlbIpStopRoutingSeconds: 120,
    /** ELB target group attribute `deregistration_delay.timeout_seconds`: default 300, range 0–3600 (ELB user guides, target group attributes). */
    defaultDeregistrationDelaySeconds: 300,
    maxDeregistrationDelaySeconds: 3600,
    /** Target group health checks as the controller creates them when no annotation sets them. */
    healthCheck: {
        ALB: { intervalSeconds: 15, unhealthyThreshold: 2 },
        NLB: { intervalSeconds: 10, unhealthyThreshold: 3 },
    },
} as const;

export type LoadBalancerType = "ALB" | "NLB";
