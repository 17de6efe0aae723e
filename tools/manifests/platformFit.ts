/**
 * Does a workload run on what a stack builds? Reads what Kubernetes manifests rely on — the
 * StorageClasses of their claims, the IngressClass of an Ingress, the load balancer class and
 * annotations of a Service, the readiness-gate label of a namespace, the metrics behind an HPA —
 * and what a stack's rendered plan provides, and names every need the stack leaves unmet (a claim
 * that would stay Pending, a Service that would never get a load balancer). On EKS Auto Mode the
 * storage and load balancing are EKS's own (kernel/autoModeComponents.ts): an annotation AWS
 * documents as unsupported there is unmet, one AWS says nothing about is undecided — reported,
 * never passed. Pure.
 */
import { DEFAULT_CLASS_ANNOTATION, LOAD_BALANCER_CONTROLLER } from "../../components/addons";
import type { PlatformAddon } from "../../components/addons/addon";
import { REGISTERED_ADDONS } from "../../components/addons/registry";
import {
    asArray,
    asRecord,
    asString,
    AUTO_MODE_COMPONENTS,
    AUTO_MODE_READINESS_GATE,
    autoModeAnnotation,
    runsAutoMode,
    stringMap,
} from "eks-platform-kernel";
import type { ManifestObject } from "./manifests";

/** What a rendered stack offers workloads. */
export interface Platform {
    stack: string;
    /** StorageClasses by name; `served` when a driver for its provisioner is installed (or is EKS Auto Mode's). */
    storageClasses: Map<string, { provisioner: string; isDefault: boolean; served: boolean }>;
    /** IngressClasses by name; `served` when its controller is installed (or is EKS Auto Mode's). */
    ingressClasses: Map<string, { controller: string; isDefault: boolean; served: boolean }>;
    /** The `spec.loadBalancerClass` values served, and the one a type LoadBalancer Service without a class gets. */
    loadBalancerClasses: Map<string, { isDefault: boolean }>;
    /** The AWS Load Balancer Controller's class is served: its annotations are read. */
    loadBalancerController: boolean;
    /** EKS Auto Mode runs the cluster's storage and load balancing (the `eks:index:Cluster`'s `autoMode`). */
    autoMode: boolean;
    /** The resource metrics API (`metrics.k8s.io`) behind HPAs and `kubectl top`. */
    metricsApi: boolean;
}

/** A resource of a plan, as `npm run plan -- <stack> --format json` prints it. */
export interface PlanResource {
    type: string;
    name: string;
    props: Record<string, unknown>;
}

const IS_DEFAULT_INGRESS_CLASS = "ingressclass.kubernetes.io/is-default-class";
const LEGACY_INGRESS_CLASS = "kubernetes.io/ingress.class";
/** The in-tree annotation the AWS Load Balancer Controller still reads (deprecated for spec.loadBalancerSourceRanges). */
const SOURCE_RANGES_ANNOTATION = "service.beta.kubernetes.io/load-balancer-source-ranges";

function isHelmChart(r: PlanResource, chart: string): boolean {
    const name = asString(r.props.chart);
    return (
        (r.type === "kubernetes:helm.sh/v3:Release" || r.type === "kubernetes:helm.sh/v4:Chart") &&
        !!name &&
        name.split("/").pop() === chart
    );
}

function isEksAddon(r: PlanResource, addonName: string): boolean {
    return r.type === "aws:eks/addon:Addon" && r.props.addonName === addonName;
}

/**
 * Whether a plan's cluster runs on EKS Auto Mode, as the kernel reads it (`runsAutoMode`), for
 * pulumi-eks's cluster: pulumi-eks enables block storage and load balancing with the compute, all
 * or none. Pure.
 */
export function isAutoModeCluster(r: PlanResource): boolean {
    return r.type === "eks:index:Cluster" && runsAutoMode([r]);
}

/**
 * Whether a plan installs `addon`: its EKS add-on or its Helm chart, by the one name of its source
 * (the same software installed the other way provides the same). Pure.
 */
function installs(resources: readonly PlanResource[], addon: PlatformAddon): boolean {
    const name = "eksAddon" in addon.source ? addon.source.eksAddon : addon.source.helmChart;
    return resources.some((r) => isEksAddon(r, name) || isHelmChart(r, name));
}

/** What a stack's plan provides: what the registered add-ons it installs provide (components/addons/registry.ts), and EKS Auto Mode's. Pure. */
export function platformOf(
    stack: string,
    resources: readonly PlanResource[],
    addons: readonly PlatformAddon[] = REGISTERED_ADDONS,
): Platform {
    const provided = addons.filter((a) => installs(resources, a)).map((a) => a.provides);
    const autoMode = resources.some(isAutoModeCluster);
    const drivers: Record<string, boolean> = { [AUTO_MODE_COMPONENTS.provisioner]: autoMode };
    const controllers: Record<string, boolean> = { [AUTO_MODE_COMPONENTS.ingressController]: autoMode };
    for (const p of addons.map((a) => a.provides)) {
        for (const provisioner of p.storageProvisioners ?? []) {
            drivers[provisioner] = (drivers[provisioner] ?? false) || provided.includes(p);
        }
        for (const controller of p.ingressControllers ?? []) {
            controllers[controller] = (controllers[controller] ?? false) || provided.includes(p);
        }
    }
    // Auto Mode's class is "automatically set as the cluster default" (auto-configure-nlb); the
    // controller's webhook sets its own on new LoadBalancer Services (kernel/loadBalancers.ts).
    const loadBalancerClasses = new Map<string, { isDefault: boolean }>();
    if (autoMode) {
        loadBalancerClasses.set(AUTO_MODE_COMPONENTS.loadBalancerClass, { isDefault: true });
    }
    const served = provided.flatMap((p) => (p.loadBalancerClass === undefined ? [] : [p.loadBalancerClass]));
    for (const loadBalancerClass of served) {
        loadBalancerClasses.set(loadBalancerClass, { isDefault: !autoMode });
    }
    const platform: Platform = {
        stack,
        storageClasses: new Map(),
        ingressClasses: new Map(),
        loadBalancerClasses,
        loadBalancerController: served.includes(LOAD_BALANCER_CONTROLLER.loadBalancerClass),
        autoMode,
        metricsApi: provided.some((p) => p.metricsApi === true),
    };
    for (const r of resources) {
        const name = asString(asRecord(r.props.metadata)?.name);
        const annotations = stringMap(asRecord(r.props.metadata)?.annotations);
        if (r.type === "kubernetes:storage.k8s.io/v1:StorageClass" && name) {
            const provisioner = asString(r.props.provisioner) ?? "";
            platform.storageClasses.set(name, {
                provisioner,
                isDefault: annotations[DEFAULT_CLASS_ANNOTATION] === "true",
                served: drivers[provisioner] ?? false,
            });
        }
        if (r.type === "kubernetes:networking.k8s.io/v1:IngressClass" && name) {
            const controller = asString(asRecord(r.props.spec)?.controller) ?? "";
            platform.ingressClasses.set(name, {
                controller,
                isDefault: annotations[IS_DEFAULT_INGRESS_CLASS] === "true",
                served: controllers[controller] ?? false,
            });
        }
    }
    return platform;
}

/** Something a manifest object relies on. */
export type Requirement =
    | { kind: "storageClass"; name: string }
    | { kind: "defaultStorageClass" }
    | { kind: "ingressClass"; name: string }
    | { kind: "defaultIngressClass" }
    | { kind: "loadBalancerClass"; name: string }
    /** An annotation a load balancer controller reads, on an Ingress (of class `className`) or a LoadBalancer Service (of `spec.loadBalancerClass` `className`). */
    | { kind: "loadBalancerAnnotation"; on: "Ingress" | "Service"; annotation: string; value: string; className?: string }
    /** A namespace label asking a load balancer controller to inject target-health readiness gates. */
    | { kind: "readinessGate"; label: string }
    | { kind: "metricsApi" }
    | { kind: "customMetrics"; type: string };

/** One requirement of one object, and where it comes from. */
export interface Need {
    file: string;
    line: number;
    /** `Kind namespace/name`. */
    object: string;
    /** The field or annotation that creates the need, e.g. `volumeClaimTemplates[data]`. */
    via: string;
    requires: Requirement;
}

function podSpecOf(kind: string, spec: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    if (kind === "Pod") {
        return spec;
    }
    if (kind === "CronJob") {
        return asRecord(asRecord(asRecord(asRecord(spec?.jobTemplate)?.spec)?.template)?.spec);
    }
    return asRecord(asRecord(spec?.template)?.spec);
}

/** The need of one claim spec: its class, or the default class when it names none (`""` binds statically). */
function claimNeed(claimSpec: unknown): Requirement | undefined {
    const storageClassName = asRecord(claimSpec)?.storageClassName;
    if (storageClassName === undefined || storageClassName === null) {
        return { kind: "defaultStorageClass" };
    }
    return typeof storageClassName === "string" && storageClassName !== "" ? { kind: "storageClass", name: storageClassName } : undefined;
}

/** What the objects of some manifests rely on the cluster to provide. Pure. */
export function needsOf(objects: readonly ManifestObject[]): Need[] {
    const needs: Need[] = [];
    for (const { file, line, object } of objects) {
        const kind = String(object.kind);
        const meta = asRecord(object.metadata);
        const ns = asString(meta?.namespace);
        const id = `${kind} ${ns ? `${ns}/` : ""}${asString(meta?.name) ?? "(unnamed)"}`;
        const add = (via: string, requires: Requirement | undefined) => {
            if (requires) {
                needs.push({ file, line, object: id, via, requires });
            }
        };
        const spec = asRecord(object.spec);
        const annotations = stringMap(meta?.annotations);
        const lbAnnotations = (on: "Ingress" | "Service", className: string | undefined, names: (a: string) => boolean) =>
            Object.entries(annotations)
                .filter(([a]) => names(a))
                .forEach(([annotation, value]) =>
                    add(`annotation ${annotation}`, {
                        kind: "loadBalancerAnnotation",
                        on,
                        annotation,
                        value,
                        ...(className === undefined ? {} : { className }),
                    }),
                );

        if (kind === "PersistentVolumeClaim") {
            add("spec.storageClassName", claimNeed(spec));
        }
        if (kind === "StatefulSet") {
            asArray(spec?.volumeClaimTemplates).forEach((t, i) =>
                add(`volumeClaimTemplates[${asString(asRecord(asRecord(t)?.metadata)?.name) ?? i}]`, claimNeed(asRecord(t)?.spec)),
            );
        }
        for (const volume of asArray(podSpecOf(kind, spec)?.volumes)) {
            const template = asRecord(asRecord(asRecord(volume)?.ephemeral)?.volumeClaimTemplate);
            if (template) {
                add(`ephemeral volume ${asString(asRecord(volume)?.name) ?? "(unnamed)"}`, claimNeed(template.spec));
            }
        }
        if (kind === "Ingress") {
            // The deprecated annotation still names the class where spec.ingressClassName is unset.
            const fromSpec = asString(spec?.ingressClassName);
            const className = fromSpec ?? annotations[LEGACY_INGRESS_CLASS];
            add(
                fromSpec ? "spec.ingressClassName" : className ? `annotation ${LEGACY_INGRESS_CLASS}` : "no ingressClassName",
                className ? { kind: "ingressClass", name: className } : { kind: "defaultIngressClass" },
            );
            lbAnnotations(
                "Ingress",
                className,
                (a) => a.startsWith(LOAD_BALANCER_CONTROLLER.ingressAnnotationPrefix) || a === LEGACY_INGRESS_CLASS,
            );
        }
        if (kind === "Service" && spec?.type === "LoadBalancer") {
            const lbClass = asString(spec.loadBalancerClass);
            if (lbClass) {
                add("spec.loadBalancerClass", { kind: "loadBalancerClass", name: lbClass });
            }
            lbAnnotations(
                "Service",
                lbClass,
                (a) => a.startsWith(LOAD_BALANCER_CONTROLLER.serviceAnnotationPrefix) || a === SOURCE_RANGES_ANNOTATION,
            );
        }
        if (kind === "Namespace") {
            const labels = stringMap(meta?.labels);
            for (const label of [AUTO_MODE_READINESS_GATE.controllerLabel, AUTO_MODE_READINESS_GATE.reportedLabel]) {
                if (labels[label] === "enabled") {
                    add(`label ${label}`, { kind: "readinessGate", label });
                }
            }
        }
        if (kind === "HorizontalPodAutoscaler") {
            const metrics = asArray(spec?.metrics);
            if (metrics.length === 0) {
                // Without metrics (or with autoscaling/v1's CPU target) an HPA scales on CPU utilisation.
                add("CPU utilisation (the default target)", { kind: "metricsApi" });
            }
            for (const metric of metrics) {
                const type = asString(asRecord(metric)?.type) ?? "";
                add(
                    `metric type ${type}`,
                    type === "Resource" || type === "ContainerResource" ? { kind: "metricsApi" } : { kind: "customMetrics", type },
                );
            }
        }
    }
    return needs;
}

function describe(r: Requirement): string {
    switch (r.kind) {
        case "storageClass":
            return `StorageClass "${r.name}"`;
        case "defaultStorageClass":
            return "a default StorageClass";
        case "ingressClass":
            return `IngressClass "${r.name}"`;
        case "defaultIngressClass":
            return "a default IngressClass";
        case "loadBalancerClass":
            return `loadBalancerClass "${r.name}"`;
        case "loadBalancerAnnotation":
            return `a load balancer controller that honours ${r.annotation}`;
        case "readinessGate":
            return `a load balancer controller that injects readiness gates for ${r.label}`;
        case "metricsApi":
            return "the resource metrics API (metrics-server)";
        case "customMetrics":
            return `a custom or external metrics API (HPA metric type ${r.type})`;
    }
}

/**
 * Which load balancing reads an annotation: the controller of its object's class (another
 * controller's class: not a load balancer annotation of this platform's), else what the stack runs.
 */
function readerOf(
    r: Extract<Requirement, { kind: "loadBalancerAnnotation" }>,
    p: Platform,
): "controller" | "autoMode" | "other" | undefined {
    const ours = (name: string | undefined, controller: string, autoMode: string) =>
        name === undefined ? undefined : name === controller ? "controller" : name === autoMode ? "autoMode" : "other";
    const reader =
        r.on === "Ingress"
            ? ours(
                  (r.className === undefined ? [...p.ingressClasses.values()].find((x) => x.isDefault) : p.ingressClasses.get(r.className))
                      ?.controller,
                  LOAD_BALANCER_CONTROLLER.ingressController,
                  AUTO_MODE_COMPONENTS.ingressController,
              )
            : ours(
                  r.className ?? [...p.loadBalancerClasses].find(([, c]) => c.isDefault)?.[0],
                  LOAD_BALANCER_CONTROLLER.loadBalancerClass,
                  AUTO_MODE_COMPONENTS.loadBalancerClass,
              );
    return reader ?? (p.loadBalancerController ? "controller" : p.autoMode ? "autoMode" : undefined);
}

/** A gap: why a requirement is not met, `undecided` when AWS documents nothing either way. */
interface Gap {
    why: string;
    undecided: boolean;
}
const unmetBecause = (why: string): Gap => ({ why, undecided: false });
const undecidedBecause = (why: string): Gap => ({ why: `undecided: ${why}`, undecided: true });

/** What EKS Auto Mode does with an annotation, as AWS documents it (kernel/autoModeComponents.ts). */
function autoModeGap(r: Extract<Requirement, { kind: "loadBalancerAnnotation" }>): Gap | undefined {
    const page = r.on === "Ingress" ? "auto-configure-alb" : "auto-configure-nlb";
    const doc = autoModeAnnotation(r.annotation, r.value);
    if (doc?.verdict === "honoured") {
        return undefined;
    }
    if (doc) {
        return unmetBecause(`EKS Auto Mode does not support it (EKS User Guide, ${doc.source}): ${doc.instead ?? "none"}`);
    }
    return undecidedBecause(
        `the EKS User Guide (${page}) does not say whether EKS Auto Mode honours it; confirm it on an Auto Mode cluster, then waive platform-fit with what you saw`,
    );
}

/** Why the platform leaves a requirement unmet (or cannot tell), or `undefined` when it meets it. Pure. */
function gap(r: Requirement, p: Platform): Gap | undefined {
    const classes = (map: Map<string, { served: boolean }>) =>
        [...map]
            .filter(([, c]) => c.served)
            .map(([n]) => n)
            .join(", ") || "none";
    const lbClasses = [...p.loadBalancerClasses.keys()].join(", ") || "none";
    const missing = (why: string | undefined) => (why === undefined ? undefined : unmetBecause(why));
    switch (r.kind) {
        case "storageClass": {
            const c = p.storageClasses.get(r.name);
            return missing(
                !c
                    ? `it has ${classes(p.storageClasses)}`
                    : c.served
                      ? undefined
                      : `no driver for its provisioner ${c.provisioner} is installed`,
            );
        }
        case "defaultStorageClass":
            return missing(
                [...p.storageClasses.values()].some((c) => c.isDefault && c.served)
                    ? undefined
                    : `none is marked default (it has ${classes(p.storageClasses)})`,
            );
        case "ingressClass": {
            const c = p.ingressClasses.get(r.name);
            return missing(
                !c ? `it has ${classes(p.ingressClasses)}` : c.served ? undefined : `no controller for ${c.controller} is installed`,
            );
        }
        case "defaultIngressClass":
            return missing(
                [...p.ingressClasses.values()].some((c) => c.isDefault && c.served)
                    ? undefined
                    : `none is marked default (it has ${classes(p.ingressClasses)})`,
            );
        case "loadBalancerClass":
            if (p.loadBalancerClasses.has(r.name)) {
                return undefined;
            }
            if (r.name === LOAD_BALANCER_CONTROLLER.loadBalancerClass && p.autoMode) {
                return unmetBecause(
                    `it is the AWS Load Balancer Controller's class, which the stack does not install; on EKS Auto Mode use ${AUTO_MODE_COMPONENTS.loadBalancerClass} (the cluster default: leaving spec.loadBalancerClass unset gets it)`,
                );
            }
            if (r.name === AUTO_MODE_COMPONENTS.loadBalancerClass) {
                return unmetBecause(`it is EKS Auto Mode's class, and the stack is not on EKS Auto Mode (the stack serves ${lbClasses})`);
            }
            return unmetBecause(`no controller serving it is installed (the stack serves ${lbClasses})`);
        case "loadBalancerAnnotation":
            switch (readerOf(r, p)) {
                case "controller":
                    return p.loadBalancerController
                        ? undefined
                        : unmetBecause("the AWS Load Balancer Controller reads it, and the stack does not install it");
                case "autoMode":
                    return p.autoMode ? autoModeGap(r) : unmetBecause("EKS Auto Mode reads it, and the stack is not on EKS Auto Mode");
                case "other":
                    return undefined;
                case undefined:
                    return unmetBecause("the stack installs no AWS Load Balancer Controller and is not on EKS Auto Mode");
            }
            break;
        case "readinessGate":
            if (r.label === AUTO_MODE_READINESS_GATE.controllerLabel) {
                if (p.loadBalancerController) {
                    return undefined;
                }
                return p.autoMode
                    ? undecidedBecause(
                          `the EKS User Guide does not say whether EKS Auto Mode injects readiness gates for it (users report Auto Mode reading ${AUTO_MODE_READINESS_GATE.reportedLabel} instead, unconfirmed by AWS)`,
                      )
                    : unmetBecause("the AWS Load Balancer Controller reads it, and the stack does not install it");
            }
            return p.autoMode
                ? undecidedBecause("users report EKS Auto Mode injecting readiness gates for it; the EKS User Guide does not document it")
                : unmetBecause(
                      `only EKS Auto Mode is reported to read it, and the stack is not on EKS Auto Mode (the AWS Load Balancer Controller reads ${AUTO_MODE_READINESS_GATE.controllerLabel})`,
                  );
        case "metricsApi":
            return missing(p.metricsApi ? undefined : "metrics-server is not installed");
        case "customMetrics":
            return unmetBecause("the platform installs no custom or external metrics adapter");
    }
    return undefined;
}

/**
 * One message per need the stack leaves unmet or undecided, naming the manifest, the object, what
 * it relies on and why the stack does not (or may not) provide it. Empty when everything is
 * provided. Pure.
 */
export function unmetNeeds(needs: readonly Need[], platform: Platform): string[] {
    return unmet(needs, platform).map(
        ({ need: n, what, why }) =>
            `${n.file}:${n.line} ${n.object} (${n.via}) needs ${what}, which stack ${platform.stack} does not provide: ${why}`,
    );
}

/**
 * The needs the stack leaves unmet, each with what it needs (`StorageClass "fast"`) and why the
 * stack does not provide it; `undecided` when AWS documents nothing either way (its `why` starts
 * `undecided:`), so a reader that treats every entry as unmet never passes one by accident. Pure.
 */
export function unmet(needs: readonly Need[], platform: Platform): { need: Need; what: string; why: string; undecided: boolean }[] {
    return needs.flatMap((n) => {
        const g = gap(n.requires, platform);
        return g === undefined ? [] : [{ need: n, what: describe(n.requires), why: g.why, undecided: g.undecided }];
    });
}
