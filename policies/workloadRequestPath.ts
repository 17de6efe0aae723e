import {
    LOAD_BALANCER_CONTROLLER_API,
    REQUEST_PATH_TIMING,
    asNumeric,
    DEFAULT_TERMINATION_GRACE_SECONDS,
    field,
    fieldText,
    formatSeconds,
    inputScope,
    stringMap,
    path,
} from "eks-platform-kernel";
import {
    ContainerRef,
    describeWorkload,
    LoadBalancerFront,
    podExit,
    podSpecField,
    servesFor,
    readDrainWindows,
    readLoadBalancerFronts,
    readNamespace,
    readServices,
    readWorkloads,
    reportUndecided,
    serviceRoutes,
    servingContainers,
    servingServices,
    stopRouting,
    StopRouting,
    tightestWindow,
    undecided,
    UnmodelledFront,
    Verdicts,
    violation,
    Workload,
} from "eks-platform-evaluation";
import type { ReportViolation } from "@pulumi/policy";
import { declareStackPolicy, Knobs } from "./declare";
import { SPOT_NOTICE_KNOB } from "./knobs";

/** Config of `workload-request-path`. */
export interface WorkloadRequestPathConfig {
    /** Seconds an ALB keeps sending new requests to a deleted pod's ip target. Defaults to `15`. */
    albIpStopRoutingSeconds: number;
    /** Seconds an NLB keeps opening connections to a deleted pod's ip target. Defaults to `120`. */
    nlbIpStopRoutingSeconds: number;
    /** Seconds of notice before EC2 reclaims a Spot instance. Defaults to `120`. */
    spotNoticeSeconds: number;
}

const knobs: Knobs<WorkloadRequestPathConfig> = {
    albIpStopRoutingSeconds: {
        type: "integer",
        minimum: 0,
        default: REQUEST_PATH_TIMING.albIpStopRoutingSeconds,
        description: "Seconds an ALB keeps sending new requests to a deleted pod's ip target (controller reconcile and ALB propagation).",
    },
    nlbIpStopRoutingSeconds: {
        type: "integer",
        minimum: 0,
        default: REQUEST_PATH_TIMING.nlbIpStopRoutingSeconds,
        description:
            "Seconds an NLB keeps opening connections to a deregistered ip target (about two minutes, whatever the deregistration delay).",
    },
    spotNoticeSeconds: SPOT_NOTICE_KNOB,
};

/** A load balancer and the Service it reaches the pod through, for messages: `Ingress web → Service web` or `Service web (NLB)`. */
function describeFront(f: LoadBalancerFront): string {
    return f.via === `Service ${f.service.name}`
        ? `the ${f.type} of Service ${f.service.name}`
        : `the ${f.type} of ${f.via} (Service ${f.service.name})`;
}

/**
 * Pods that a load balancer of the AWS Load Balancer Controller sends requests to leave it without
 * dropping any: the preStop hook outlasts the time the load balancer keeps routing to a deleted pod
 * (`stopRouting`: an ALB's or NLB's ip target, a `Local` Service's node health check), the pod
 * outlives the target group's deregistration delay, that time fits the drain window of the nodes the
 * pod may run on (no NLB ip target on Spot), and ip targets get readiness gates from their
 * namespace. The path is the kernel's `readLoadBalancerFronts` (controller v2.13.3).
 */
export const workloadRequestPath = declareStackPolicy<WorkloadRequestPathConfig>({
    name: "workload-request-path",
    description:
        "Pods behind a load balancer stop receiving requests before they stop serving: preStop, grace period, deregistration delay, drain window and readiness gates fit the load balancer in front.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires:
            "for pods an ALB or NLB of the AWS Load Balancer Controller sends to: a preStop sleep at least as long as the load balancer keeps routing to a deleted pod, a grace period at least the deregistration delay, a drain window longer than that routing time, readiness gates for ip targets",
        checks: "for each load balancer of the AWS Load Balancer Controller (an Ingress of its class, a `type: LoadBalancer` Service it serves) and each container its Service port reaches (see \"Which Service ports carry traffic\"): the preStop sleep is at least the time the load balancer keeps sending new requests to a deleted pod (ALB ip targets `albIpStopRoutingSeconds`, NLB ip targets `nlbIpStopRoutingSeconds`, `instance` targets with `externalTrafficPolicy: Local` the node health check's interval × unhealthy threshold; `instance` targets with `Cluster` reach the pod through kube-proxy, which `workload-prestop-hook` covers); for ip targets the grace period (30 s when unset) is at least the target group's `deregistration_delay.timeout_seconds` (300 s when unset; a Service's annotation replaces an Ingress's whole value) and the namespace carries `elbv2.k8s.aws/pod-readiness-gate-inject: enabled`; the tightest drain window of the nodes the pod can be scheduled on (as `drain-window` reads them) is longer than the routing time (undecided for a routing time of a Spot notice or more when the input holds none of the nodes, as plain manifests without a profile, unless the pods are pinned to on-demand); a sleep or namespace that cannot be seen is undecided; so is every load balancer of EKS Auto Mode's own (an Ingress of an IngressClass of controller `eks.amazonaws.com/alb`, a Service of `loadBalancerClass: eks.amazonaws.com/nlb`, which is the default class on a cluster of the input that runs Auto Mode), whose request path is not published",
    },
    validateStack: (args, reportViolation, config) => {
        const verdicts = new Verdicts();
        const services = readServices(args.resources, verdicts);
        const autoModeFronts: UnmodelledFront[] = [];
        const fronts = readLoadBalancerFronts(args.resources, services, verdicts, autoModeFronts);
        const windows = readDrainWindows(args.resources, verdicts, config.spotNoticeSeconds);
        const namespaces = new Map<string, Record<string, string>>();
        // A Namespace unknown at preview may be the one a workload is in: its labels wait for apply.
        let unreadNamespace = false;
        for (const r of args.resources) {
            if (r.type === "kubernetes:core/v1:Namespace") {
                const ns = readNamespace(r, verdicts);
                const labels = ns && verdicts.read(`Namespace ${ns.name}`, () => stringMap(path(ns.props, "metadata", "labels")));
                if (ns && labels) {
                    namespaces.set(ns.name, labels);
                } else {
                    unreadNamespace = true;
                }
            }
        }
        const undecidedNamespaces = new Set<string>();
        const gate = LOAD_BALANCER_CONTROLLER_API.readinessGateLabel;
        // Nodes the input does not hold (plain manifests without a platform profile) may be Spot.
        const windowsUnseen = windows.length === 0 && !args.resources.some((r) => r.type.startsWith("aws:"));
        for (const { workload: w, services: selecting } of servingServices(readWorkloads(args.resources, verdicts), services)) {
            const mine = fronts.filter((f) => selecting.includes(f.service));
            if (mine.length === 0) {
                continue;
            }
            const subject = describeWorkload(w);
            verdicts.judge(subject, () => {
                const raw = field(w.podSpec, "terminationGracePeriodSeconds");
                // A value the API server refuses is workload-termination-grace's to report.
                const grace = raw === undefined || raw === null ? DEFAULT_TERMINATION_GRACE_SECONDS : asNumeric(raw);
                const graceKey = fieldText(podSpecField(w.kind, "terminationGracePeriodSeconds"));
                let gateReported = false;
                for (const front of mine) {
                    const routed = serviceRoutes(servingContainers(w.podSpec), [{ ...front.service, ports: front.ports }]);
                    if (routed.size === 0) {
                        continue;
                    }
                    const lb = describeFront(front);
                    const stop = stopRouting(front, config);
                    const tight = tightestWindow(w.podSpec, windows);
                    // The gaps of the pod's exit that do not depend on its containers' preStop.
                    const gaps = podExit({ front, stop, preStopSeconds: 0, graceSeconds: grace ?? 0, window: tight }).gaps;
                    if (stop) {
                        checkPreStop(w, subject, front, stop, [...routed.keys()], reportViolation);
                        if (tight && gaps.some((g) => g.kind === "window")) {
                            reportViolation(
                                violation(
                                    `${subject} is sent requests by ${lb}, which keeps routing to a deleted pod for ${stop.seconds} s, but its pods may run on nodes of ${tight.source} with a ${formatSeconds(tight.seconds)} drain window`,
                                    `${stop.why}; ${tight.how}, so no preStop and grace period fit between them: the node can be gone while the load balancer still routes requests to the pod`,
                                    front.targetType.value === "ip" && front.type === "NLB"
                                        ? `keep these pods off such nodes (e.g. nodeSelector karpenter.sh/capacity-type: on-demand), or put them behind an ALB (an Ingress of class ${LOAD_BALANCER_CONTROLLER_API.ingressClass}) or NLB instance targets with externalTrafficPolicy: Cluster`
                                        : `keep these pods off such nodes, or lengthen the nodes' window above ${stop.seconds} s`,
                                    podSpecField(w.kind, "nodeSelector"),
                                ),
                                w.urn,
                            );
                        } else if (windowsUnseen && stop.seconds >= config.spotNoticeSeconds && !pinnedOnDemand(w.podSpec)) {
                            reportUndecided(
                                reportViolation,
                                undecided(
                                    `${subject} is sent requests by ${lb}, which keeps routing to a deleted pod for ${stop.seconds} s, and the input holds none of the nodes it runs on`,
                                    `on a Spot node (a ${config.spotNoticeSeconds} s notice) or a NodePool with a shorter terminationGracePeriod the node is gone before routing stops; whether the pods can land on one cannot be seen`,
                                    "check with the platform's profile (policy:check --platform), or pin the pods to on-demand nodes (nodeSelector karpenter.sh/capacity-type: on-demand)",
                                    podSpecField(w.kind, "nodeSelector"),
                                ),
                                w.urn,
                            );
                        }
                    }
                    if (front.targetType.value !== "ip") {
                        continue;
                    }
                    const delay = front.deregistrationDelay;
                    if (delay.invalid) {
                        reportViolation(
                            violation(
                                `${lb} sets ${delay.from.replace(/^annotation /, "")}, which is refused: ${delay.invalid}`,
                                "the target group keeps its old deregistration delay (300 s on a new one) or the load balancer is not reconciled at all",
                                `write ${front.attributesAnnotation} as comma-separated key=value pairs, with deregistration_delay.timeout_seconds an integer from 0 to ${REQUEST_PATH_TIMING.maxDeregistrationDelaySeconds} at most the pods' grace period`,
                            ),
                            front.urn ?? w.urn,
                        );
                    } else if (grace !== undefined && gaps.some((g) => g.kind === "deregistrationDelay")) {
                        reportViolation(
                            violation(
                                `${subject} has a termination grace period of ${grace} s, shorter than the ${delay.value} s deregistration delay of ${lb} (${delay.from})`,
                                "the target group keeps the pod's connections open for the whole delay, but the pod is killed when its grace period ends: requests still on those connections fail, and the pod's IP may be given to a new pod while its old target is still draining",
                                `set deregistration_delay.timeout_seconds to at most ${grace} in ${front.attributesAnnotation} (on the ${front.type === "ALB" ? "Ingress, or on the Service, whose value replaces the Ingress's whole annotation" : "Service"}), or raise ${graceKey} to at least ${delay.value}`,
                                podSpecField(w.kind, "terminationGracePeriodSeconds"),
                            ),
                            w.urn,
                        );
                    }
                    const labels = namespaces.get(w.namespace);
                    if (labels === undefined && unreadNamespace) {
                        verdicts.leaveUndecided(`${subject} (labels of namespace ${w.namespace})`, ["metadata", "labels"]);
                    } else if (labels === undefined) {
                        undecidedNamespaces.add(w.namespace);
                    } else if (labels[gate] !== "enabled" && !gateReported) {
                        gateReported = true;
                        reportViolation(
                            violation(
                                `${subject} is an ip target of ${lb}, but namespace ${w.namespace} does not carry the label ${gate}: enabled`,
                                "without the controller's readiness gate a new pod is Ready as soon as its own probe passes, before the load balancer has registered it healthy: a rollout with surge or a drain the PodDisruptionBudget lets through can leave the target group with no healthy target",
                                `label namespace ${w.namespace} with ${gate}: enabled (the platform's namespaces do by default: readinessGates in the stack config), then recreate the pods: the gate is injected at pod creation`,
                            ),
                            w.urn,
                        );
                    }
                }
            });
        }
        for (const ns of undecidedNamespaces) {
            reportUndecided(
                reportViolation,
                undecided(
                    `namespace ${ns} holds ip targets of the AWS Load Balancer Controller but is not in the input`,
                    `whether it carries ${gate}: enabled (readiness gates that hold a rollout until the new pod is healthy in its target group) cannot be seen`,
                    "include the Namespace in the input, or check with a platform profile (policy:check --platform)",
                ),
            );
        }
        for (const front of autoModeFronts) {
            // EKS Auto Mode's controller is AWS's own; what it keeps routing to a deleted pod is not published.
            verdicts.judge(front.subject, () =>
                reportUndecided(
                    reportViolation,
                    undecided(
                        `${front.subject} is served by EKS Auto Mode's load balancing (${front.by}), whose request path this policy does not model`,
                        "the routing and deregistration times here are the AWS Load Balancer Controller's, read in its source; AWS publishes neither the source nor these times for Auto Mode's controller",
                        "give the pods a preStop sleep and grace period that fit the AWS Load Balancer Controller's times (docs/policies.md, workload-request-path), and confirm them on an Auto Mode cluster",
                    ),
                    front.urn,
                ),
            );
        }
        verdicts.finish();
        if (fronts.length === 0) {
            args.notApplicable(
                `no load balancer of the AWS Load Balancer Controller ${inputScope(args.stackTags)} (no Ingress of its class, no type: LoadBalancer Service it serves): nothing was checked`,
            );
        }
        if (verdicts.evaluated === 0) {
            args.notApplicable(
                `no long-running workload ${inputScope(args.stackTags)} is selected by a Service a load balancer of the AWS Load Balancer Controller sends to: nothing was checked`,
            );
        }
    },
});

/** A pod whose node selector keeps it off Spot (Karpenter's and EKS managed groups' capacity-type labels). */
function pinnedOnDemand(podSpec: unknown): boolean {
    const selector = stringMap(field(podSpec, "nodeSelector"));
    return selector["karpenter.sh/capacity-type"] === "on-demand" || selector["eks.amazonaws.com/capacityType"] === "ON_DEMAND";
}

/** The preStop sleep of each routed container against the time the load balancer keeps routing to a deleted pod. */
function checkPreStop(
    w: Workload,
    subject: string,
    front: LoadBalancerFront,
    stop: StopRouting,
    routed: ContainerRef[],
    reportViolation: ReportViolation,
): void {
    const lb = describeFront(front);
    for (const c of routed) {
        const sleep = servesFor(w.podSpec, c);
        const hook = podSpecField(w.kind, ...c.at, "lifecycle", "preStop");
        if (sleep.unreadable.length > 0) {
            continue; // workload-termination-grace reports a sleep that cannot run as written.
        }
        const { seconds, runtime } = sleep;
        if (!podExit({ front, stop, preStopSeconds: seconds, graceSeconds: 0 }).gaps.some((g) => g.kind === "preStop")) {
            continue;
        }
        if (runtime.length > 0) {
            reportUndecided(
                reportViolation,
                undecided(
                    `${subject} container "${c.name}" sleeps ${runtime.join(" ")} in its preStop hook, a length only known at run time, and ${lb} keeps routing to a deleted pod for ${stop.seconds} s`,
                    "whether the pod keeps serving until the load balancer stops sending to it cannot be seen in the object",
                    `write the sleep as a literal duration of at least ${stop.seconds} s (lifecycle.preStop.sleep.seconds: ${stop.seconds})`,
                    hook,
                ),
                w.urn,
            );
            continue;
        }
        reportViolation(
            violation(
                `${subject} ${c.sidecar ? "sidecar container" : "container"} "${c.name}" gets SIGTERM ${seconds} s after its pod is deleted (${seconds > 0 ? "its preStop sleep" : "no preStop sleep"}), but ${lb} keeps sending it new requests for ${stop.seconds} s`,
                `${stop.why}; requests that arrive after the app stops accepting fail`,
                `make the preStop sleep at least ${stop.seconds} s (lifecycle.preStop.sleep.seconds: ${stop.seconds}, or exec ["sleep", "${stop.seconds}"]) and keep terminationGracePeriodSeconds above it plus the longest request`,
                hook,
            ),
            w.urn,
        );
    }
}
