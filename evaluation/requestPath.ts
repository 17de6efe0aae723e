/**
 * What routes requests to a pod from outside the cluster, as the AWS Load Balancer Controller
 * builds it (v2.13.3, the release the platform installs), and how long each load balancer keeps
 * routing to a pod after it is told to stop. `workload-request-path` judges a pod's exit against
 * it; the drain rehearsal puts its phases in the timeline.
 *
 * Read at kubernetes-sigs/aws-load-balancer-controller v2.13.3:
 * - Which Services the controller serves: `pkg/service/service_utils.go` `IsServiceSupported` (its
 *   `spec.loadBalancerClass`, or without one the `aws-load-balancer-type` annotation `nlb-ip`, or
 *   `external` with a target type); the platform turns on the Service mutator webhook, which sets
 *   the controller's class on every new `type: LoadBalancer` Service without one
 *   (`webhooks/core/service_mutator.go`).
 * - NLB target type: `pkg/service/model_build_target_group.go` `buildTargetType` (`ip` for
 *   `aws-load-balancer-type: nlb-ip` or `aws-load-balancer-nlb-target-type: ip`, else `instance`).
 * - ALB target type and attributes: `pkg/ingress/model_build_target_group.go`: the annotations of
 *   the backend Service and of the Ingress merged with `algorithm.MergeStringMap(svc, ing)`, so a
 *   key on the Service replaces the Ingress's whole value (not attribute by attribute); an
 *   IngressClassParams `spec.targetType` overrides both; the default is the controller's
 *   `--default-target-type`, `instance` (the chart's default, which the platform keeps).
 * - String maps (`target-group-attributes`): `pkg/annotations/parser.go`
 *   `ParseStringMapAnnotation` (comma-separated `key=value`, each pair trimmed, nothing else).
 * - Health check defaults: docs/guide/ingress/annotations.md (ALB: interval 15 s, unhealthy
 *   threshold 2) and docs/guide/service/annotations.md (NLB: interval 10 s, unhealthy threshold 3).
 * - Readiness gates only for `ip` targets: docs/deploy/pod_readiness_gate.md.
 */
import {
    asArray,
    asNumber,
    asString,
    AUTO_MODE_COMPONENTS,
    field,
    LOAD_BALANCER_CONTROLLER_API,
    type LoadBalancerType,
    path,
    REQUEST_PATH_TIMING,
    runsAutoMode,
    stringMap,
} from "eks-platform-kernel";
import { ContainerRef, containersOf, kubernetesKind, namespaceOf, objectName, PreStopSleep, preStopSleep } from "./kubernetes";
import type { Service, ServicePort, StackResource } from "./stack";
import type { Verdicts } from "./verdicts";

/** A value of the path read off an object: the value and what set it (for messages). */
interface Sourced<T> {
    value: T;
    /** `annotation alb.ingress.kubernetes.io/target-type on Service web`, `the ELB default`, … */
    from: string;
}

/** One load balancer sending requests to a Service's pods. */
export interface LoadBalancerFront {
    type: LoadBalancerType;
    /** The object that makes the controller build it: `Ingress web` or `Service web`. */
    via: string;
    /** Its URN, where a finding about its settings belongs. */
    urn?: string;
    /** The object whose annotation the fix goes on: the Service for an NLB, the Ingress (or the Service, which overrides it) for an ALB. */
    service: Service;
    /** The Service ports it sends to (an Ingress backend names one). */
    ports: ServicePort[];
    targetType: Sourced<"ip" | "instance">;
    /** `deregistration_delay.timeout_seconds`; a value ELB refuses is kept as written, with `invalid` saying why. */
    deregistrationDelay: Sourced<number> & { invalid?: string };
    /** The annotation that carries the target group attributes, for fixes. */
    attributesAnnotation: string;
    healthCheck: Sourced<{ intervalSeconds: number; unhealthyThreshold: number }>;
}

/** `a=b,c=d` as the controller parses a stringMap annotation, or why it cannot. */
export function parseStringMapAnnotation(raw: string): Record<string, string> | { error: string } {
    const out: Record<string, string> = {};
    for (const part of raw.split(",").map((p) => p.trim())) {
        if (part === "") {
            continue;
        }
        const eq = part.indexOf("=");
        if (eq <= 0) {
            return { error: `"${part}" is not a key=value pair` };
        }
        out[part.slice(0, eq)] = part.slice(eq + 1);
    }
    return out;
}

const DELAY_KEY = "deregistration_delay.timeout_seconds";

/** The deregistration delay an attributes annotation sets (`annotations[key]`), or the ELB default. */
function deregistrationDelay(annotations: Record<string, string>, key: string, where: string): Sourced<number> & { invalid?: string } {
    const raw = annotations[key];
    const fallback = {
        value: REQUEST_PATH_TIMING.defaultDeregistrationDelaySeconds,
        from: "the ELB default (no deregistration_delay.timeout_seconds set)",
    };
    if (raw === undefined) {
        return fallback;
    }
    const from = `annotation ${key} on ${where}`;
    const parsed = parseStringMapAnnotation(raw);
    if ("error" in parsed) {
        return { ...fallback, from, invalid: `the controller cannot parse it (${parsed.error}), so it reconciles no load balancer` };
    }
    const value = parsed[DELAY_KEY];
    if (value === undefined) {
        return { ...fallback, from: `the ELB default (${from} does not set ${DELAY_KEY})` };
    }
    const seconds = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!(seconds <= REQUEST_PATH_TIMING.maxDeregistrationDelaySeconds)) {
        return {
            value: seconds,
            from,
            invalid: `ELB refuses ${DELAY_KEY}=${value} (an integer from 0 to ${REQUEST_PATH_TIMING.maxDeregistrationDelaySeconds})`,
        };
    }
    return { value: seconds, from };
}

/** A whole number of seconds from an annotation, or the default. */
function intAnnotation(annotations: Record<string, string>, key: string, fallback: number): number {
    const raw = annotations[key];
    return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : fallback;
}

/** The health check an annotation set gives a target group (`prefix` + `interval`/`unhealthy` suffixes). */
function healthCheck(
    type: LoadBalancerType,
    annotations: Record<string, string>,
    intervalKey: string,
    thresholdKey: string,
): Sourced<{ intervalSeconds: number; unhealthyThreshold: number }> {
    const d = REQUEST_PATH_TIMING.healthCheck[type];
    const set = [intervalKey, thresholdKey].filter((k) => annotations[k] !== undefined);
    return {
        value: {
            intervalSeconds: intAnnotation(annotations, intervalKey, d.intervalSeconds),
            unhealthyThreshold: intAnnotation(annotations, thresholdKey, d.unhealthyThreshold),
        },
        from: set.length > 0 ? `annotation ${set.join(" and ")}` : `the controller's ${type} defaults`,
    };
}

/** An NLB the controller builds for a `type: LoadBalancer` Service, or `undefined` when it does not serve it. */
function serviceFront(svc: Service): LoadBalancerFront | undefined {
    if (svc.type !== "LoadBalancer") {
        return undefined;
    }
    const api = LOAD_BALANCER_CONTROLLER_API;
    const p = api.serviceAnnotationPrefix;
    const a = svc.annotations;
    // With no class the platform's mutator webhook sets the controller's class on create.
    if (svc.loadBalancerClass !== undefined && svc.loadBalancerClass !== api.loadBalancerClass) {
        return undefined;
    }
    const lbType = a[`${p}type`];
    const target = a[`${p}nlb-target-type`];
    const ip = lbType === "nlb-ip" || target === "ip";
    const where = `Service ${svc.name}`;
    return {
        type: "NLB",
        via: where,
        urn: svc.urn,
        service: svc,
        ports: svc.ports,
        targetType: {
            value: ip ? "ip" : "instance",
            from: ip
                ? `annotation ${lbType === "nlb-ip" ? `${p}type: nlb-ip` : `${p}nlb-target-type: ip`}`
                : target === undefined
                  ? "the controller's default (no nlb-target-type annotation)"
                  : `annotation ${p}nlb-target-type: ${target}`,
        },
        deregistrationDelay: deregistrationDelay(a, `${p}target-group-attributes`, where),
        attributesAnnotation: `${p}target-group-attributes`,
        healthCheck: healthCheck("NLB", a, `${p}healthcheck-interval`, `${p}healthcheck-unhealthy-threshold`),
    };
}

/** An IngressClass of the input: its controller and the IngressClassParams it names. */
interface IngressClassInfo {
    controller: string;
    isDefault: boolean;
    params?: string;
}

/** The backends of an Ingress: Service names and the port each names (number or name). */
function ingressBackends(spec: unknown): { service: string; port: { number?: number; name?: string } }[] {
    const out: { service: string; port: { number?: number; name?: string } }[] = [];
    const add = (backend: unknown) => {
        const name = asString(path(backend, "service", "name"));
        if (name) {
            out.push({
                service: name,
                port: {
                    number: asNumber(path(backend, "service", "port", "number")),
                    name: asString(path(backend, "service", "port", "name")),
                },
            });
        }
    };
    add(field(spec, "defaultBackend"));
    for (const rule of asArray(field(spec, "rules"))) {
        for (const p of asArray(path(rule, "http", "paths"))) {
            add(field(p, "backend"));
        }
    }
    return out;
}

/** A load balancer this model does not cover: one EKS Auto Mode's own controller builds. */
export interface UnmodelledFront {
    /** `Ingress <namespace>/<name>` or `Service <namespace>/<name>`. */
    subject: string;
    /** The controller or class that serves it. */
    by: string;
    urn?: string;
}

/**
 * Every load balancer the AWS Load Balancer Controller builds for the input's Services and
 * Ingresses, each with the Service it sends to: NLBs for `type: LoadBalancer` Services it serves,
 * ALBs for Ingresses of its class (named by `spec.ingressClassName`, the deprecated
 * `kubernetes.io/ingress.class` annotation, or the default IngressClass). A class the input does
 * not define counts as the controller's when it is the platform's `alb`. Objects unknown at
 * preview are left undecided in `verdicts`. The Ingresses and Services EKS Auto Mode's load
 * balancing serves instead (an IngressClass of controller `eks.amazonaws.com/alb`, resolved the same
 * way; `loadBalancerClass: eks.amazonaws.com/nlb`, which is the default class of a `type:
 * LoadBalancer` Service on a cluster of the input that runs Auto Mode) go to `unmodelled`: their
 * request path is not published.
 */
export function readLoadBalancerFronts(
    resources: readonly StackResource[],
    services: readonly Service[],
    verdicts: Verdicts,
    unmodelled: UnmodelledFront[] = [],
): LoadBalancerFront[] {
    const api = LOAD_BALANCER_CONTROLLER_API;
    // Auto Mode makes its class the cluster's default for a Service that names none (auto-configure-nlb).
    const autoMode = verdicts.read("EKS Auto Mode (computeConfig.enabled)", () => runsAutoMode(resources)) === true;
    const autoModeClass = (s: Service) =>
        s.type === "LoadBalancer" &&
        (s.loadBalancerClass === AUTO_MODE_COMPONENTS.loadBalancerClass || (s.loadBalancerClass === undefined && autoMode));
    const out: LoadBalancerFront[] = services
        .filter((s) => !autoModeClass(s))
        .map(serviceFront)
        .filter((f): f is LoadBalancerFront => f !== undefined);
    for (const s of services.filter(autoModeClass)) {
        unmodelled.push({
            subject: `Service ${s.namespace}/${s.name}`,
            by:
                s.loadBalancerClass === undefined
                    ? `${AUTO_MODE_COMPONENTS.loadBalancerClass}, the cluster's default class`
                    : AUTO_MODE_COMPONENTS.loadBalancerClass,
            urn: s.urn,
        });
    }
    const classes = new Map<string, IngressClassInfo>();
    const params = new Map<string, string>();
    const ingresses: StackResource[] = [];
    for (const r of resources) {
        const k = kubernetesKind(r.type, r.props);
        if (k?.group === "networking.k8s.io" && k.kind === "IngressClass") {
            verdicts.read(`IngressClass ${r.name}`, () => {
                const kind = asString(path(r.props, "spec", "parameters", "kind"));
                classes.set(objectName(r.props, r.name), {
                    controller: asString(path(r.props, "spec", "controller")) ?? "",
                    isDefault:
                        stringMap(path(r.props, "metadata", "annotations"))["ingressclass.kubernetes.io/is-default-class"] === "true",
                    params: kind === "IngressClassParams" ? asString(path(r.props, "spec", "parameters", "name")) : undefined,
                });
            });
        } else if (k?.group === "elbv2.k8s.aws" && k.kind === "IngressClassParams") {
            verdicts.read(`IngressClassParams ${r.name}`, () => {
                const t = asString(path(r.props, "spec", "targetType"));
                if (t) {
                    params.set(objectName(r.props, r.name), t);
                }
            });
        } else if (k?.group === "networking.k8s.io" && k.kind === "Ingress") {
            ingresses.push(r);
        }
    }
    const byName = new Map(services.map((s) => [`${s.namespace}/${s.name}`, s]));
    for (const r of ingresses) {
        verdicts.read(`Ingress ${r.name}`, () => {
            const annotations = stringMap(path(r.props, "metadata", "annotations"));
            const spec = field(r.props, "spec");
            const named = asString(field(spec, "ingressClassName")) ?? annotations["kubernetes.io/ingress.class"];
            const cls = named !== undefined ? classes.get(named) : [...classes.values()].find((c) => c.isDefault);
            const ours = cls ? cls.controller === api.ingressController : named === api.ingressClass;
            const name = objectName(r.props, r.name);
            const namespace = namespaceOf(r.props);
            if (cls?.controller === AUTO_MODE_COMPONENTS.ingressController) {
                unmodelled.push({ subject: `Ingress ${namespace}/${name}`, by: cls.controller, urn: r.urn });
            }
            if (!ours) {
                return;
            }
            const classTarget = cls?.params !== undefined ? params.get(cls.params) : undefined;
            const seen = new Set<string>();
            for (const b of ingressBackends(spec)) {
                const svc = byName.get(`${namespace}/${b.service}`);
                const ports =
                    svc?.ports.filter((p) => (b.port.number !== undefined ? p.port === b.port.number : p.name === b.port.name)) ?? [];
                const key = `${b.service}:${b.port.number ?? b.port.name}`;
                if (!svc || ports.length === 0 || seen.has(key)) {
                    continue;
                }
                seen.add(key);
                const p = api.ingressAnnotationPrefix;
                // algorithm.MergeStringMap(svc.Annotations, ing.Annotations): the Service's key wins, whole.
                const merged = { ...annotations, ...svc.annotations };
                const on = (key: string) => (svc.annotations[key] !== undefined ? `Service ${svc.name}` : `Ingress ${name}`);
                const targetKey = `${p}target-type`;
                const annotated = merged[targetKey];
                const target = classTarget ?? annotated ?? "instance";
                const attributes = `${p}target-group-attributes`;
                out.push({
                    type: "ALB",
                    via: `Ingress ${name}`,
                    urn: r.urn,
                    service: svc,
                    ports,
                    targetType: {
                        value: target === "ip" ? "ip" : "instance",
                        from:
                            classTarget !== undefined
                                ? `IngressClassParams ${cls?.params} spec.targetType`
                                : annotated !== undefined
                                  ? `annotation ${targetKey}: ${annotated} on ${on(targetKey)}`
                                  : "the controller's default (no target-type annotation)",
                    },
                    deregistrationDelay: deregistrationDelay(merged, attributes, on(attributes)),
                    attributesAnnotation: attributes,
                    healthCheck: healthCheck("ALB", merged, `${p}healthcheck-interval-seconds`, `${p}unhealthy-threshold-count`),
                });
            }
        });
    }
    return out;
}

/** The stop-routing times a judge uses: the defaults above, or a fork's measured ones. */
interface StopRoutingTimes {
    albIpStopRoutingSeconds: number;
    nlbIpStopRoutingSeconds: number;
}

/** How long a load balancer keeps sending new requests to a pod after the pod is deleted, and why. */
export interface StopRouting {
    seconds: number;
    why: string;
}

/**
 * How long `front` keeps sending new requests to a pod once the pod is deleted (its endpoint
 * leaves the EndpointSlices at once), or `undefined` when the pod is not its target: `instance`
 * targets with `externalTrafficPolicy: Cluster` reach the pod through kube-proxy on every node,
 * which stops forwarding to it within seconds (the preStop advisory's case), and the node itself
 * is taken out when its drain starts (the controller's `IsNodeSuitableAsTrafficProxy` skips nodes
 * tainted `karpenter.sh/disrupted` or `ToBeDeletedByClusterAutoscaler`; EKS labels a managed
 * group's node `node.kubernetes.io/exclude-from-external-load-balancers`, and so does NTH with
 * `excludeFromLoadBalancers`). With `Local` the load balancer sends to the pod's node until that
 * node's health check fails: kube-proxy's `healthCheckNodePort` answers 503 once the node has no
 * serving endpoint left, and the target group needs `unhealthyThreshold` failed checks
 * `intervalSeconds` apart to see it.
 */
export function stopRouting(front: LoadBalancerFront, times: StopRoutingTimes): StopRouting | undefined {
    if (front.targetType.value === "ip") {
        return front.type === "ALB"
            ? {
                  seconds: times.albIpStopRoutingSeconds,
                  why: `the controller deregisters an ip target after its reconcile and the ALB stops sending new requests to it up to ${times.albIpStopRoutingSeconds} s after the pod is deleted`,
              }
            : {
                  seconds: times.nlbIpStopRoutingSeconds,
                  why: `an NLB keeps opening new connections to a deregistered ip target for about ${times.nlbIpStopRoutingSeconds} s, whatever its deregistration delay`,
              };
    }
    if (front.service.externalTrafficPolicy === "Local") {
        const h = front.healthCheck.value;
        return {
            seconds: h.intervalSeconds * h.unhealthyThreshold,
            why: `with externalTrafficPolicy: Local the ${front.type} sends to the pod's node until the node fails ${h.unhealthyThreshold} health checks ${h.intervalSeconds} s apart (${front.healthCheck.from})`,
        };
    }
    return undefined;
}

/** One moment of a pod's exit, in seconds after its deletion. */
export interface ExitPhase {
    at: number;
    what: string;
}

/** A stretch of a pod's exit in which requests fail, and why. */
export interface ExitGap {
    kind: "preStop" | "deregistrationDelay" | "window";
    from: number;
    to: number;
    why: string;
}

/**
 * A pod's exit on its request path, in seconds after the pod is deleted (a drain's eviction, a
 * rolling update, Karpenter's deletion at a node's end): when the load balancer stops routing to
 * it (`stop`, `undefined` when only kube-proxy does), when its preStop ends and the app gets
 * SIGTERM, when the target group's deregistration delay ends (ip targets), when the grace period
 * ends, and when the node goes (`window`). The gaps are where requests fail: the app stops before
 * routing does, the pod dies before its target has drained, or the node goes before routing stops.
 */
export function podExit(args: {
    front: LoadBalancerFront;
    stop: StopRouting | undefined;
    preStopSeconds: number;
    graceSeconds: number;
    window?: { seconds: number; source: string };
}): { phases: ExitPhase[]; gaps: ExitGap[] } {
    const { front, stop, preStopSeconds: p, graceSeconds: g, window } = args;
    const ip = front.targetType.value === "ip";
    const delay = front.deregistrationDelay;
    const phases: ExitPhase[] = [
        {
            at: 0,
            what: ip
                ? `pod deleted: its endpoint leaves the EndpointSlices, the controller deregisters its ${front.type} target (draining)`
                : `pod deleted: its endpoint leaves the EndpointSlices; kube-proxy stops forwarding to it within seconds`,
        },
    ];
    if (stop) {
        phases.push({ at: stop.seconds, what: `the ${front.type} sends it no more new requests (${stop.why})` });
    }
    phases.push({
        at: p,
        what: p > 0 ? "preStop ends: SIGTERM, the app stops accepting and finishes its requests" : "SIGTERM at once (no preStop sleep)",
    });
    if (ip && delay.invalid === undefined) {
        phases.push({ at: delay.value, what: `deregistration delay ends (${delay.from}): the target group drops the pod's connections` });
    }
    phases.push({ at: g, what: "grace period ends: SIGKILL" });
    if (window) {
        phases.push({
            at: window.seconds,
            what: `the node's drain window ends (${window.source}): the node is gone at the latest this long after its drain began`,
        });
    }
    phases.sort((a, b) => a.at - b.at);
    const gaps: ExitGap[] = [];
    if (stop && p < stop.seconds) {
        gaps.push({ kind: "preStop", from: p, to: stop.seconds, why: "new requests reach an app that has stopped accepting" });
    }
    if (ip && delay.invalid === undefined && delay.value > g) {
        gaps.push({
            kind: "deregistrationDelay",
            from: g,
            to: delay.value,
            why: "the pod is killed while its target still holds connections",
        });
    }
    if (stop && window && window.seconds <= stop.seconds) {
        gaps.push({
            kind: "window",
            from: window.seconds,
            to: stop.seconds,
            why: "the node is gone while the load balancer still routes to the pod",
        });
    }
    return { phases, gaps };
}

/**
 * How long after its pod's deletion container `c` keeps serving: its preStop sleep, and for a
 * native sidecar at least the longest preStop of the regular containers (the kubelet stops native
 * sidecars only after every regular container has exited: Kubernetes sidecar containers). The
 * sleeps that cannot be read or are only known at run time are listed as `preStopSleep` lists them.
 */
export function servesFor(podSpec: unknown, c: ContainerRef): PreStopSleep {
    const own = preStopSleep(c.spec);
    if (!c.sidecar) {
        return own;
    }
    const regular = containersOf(podSpec)
        .filter((x) => x.role === "container")
        .map((x) => preStopSleep(x.spec));
    return {
        seconds: Math.max(own.seconds, ...regular.map((s) => s.seconds)),
        unreadable: own.unreadable,
        runtime: [...own.runtime, ...regular.flatMap((s) => s.runtime)],
    };
}
