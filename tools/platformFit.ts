/**
 * Does a workload run on what a stack builds? Reads what Kubernetes manifests rely on — the
 * StorageClasses of their claims, the IngressClass of an Ingress, the load balancer class and
 * annotations of a Service, the metrics behind an HPA — and what a stack's rendered plan provides,
 * and names every need the stack leaves unmet (a claim that would stay Pending, a Service that
 * would never get a load balancer). Pure.
 */
import { DEFAULT_CLASS_ANNOTATION, EBS_CSI, LOAD_BALANCER_CONTROLLER, METRICS_SERVER_ADDON } from "../components/addons";
import { asArray, asRecord, asString, stringMap } from "eks-platform-kernel";
import type { ManifestObject } from "./manifests";

/** What a rendered stack offers workloads. */
export interface Platform {
    stack: string;
    /** StorageClasses by name; `served` when a driver for its provisioner is installed. */
    storageClasses: Map<string, { provisioner: string; isDefault: boolean; served: boolean }>;
    /** IngressClasses by name; `served` when its controller is installed. */
    ingressClasses: Map<string, { controller: string; isDefault: boolean; served: boolean }>;
    loadBalancerController: boolean;
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

/** What a stack's plan provides. Pure. */
export function platformOf(stack: string, resources: readonly PlanResource[]): Platform {
    const ebsCsi = resources.some((r) => isEksAddon(r, EBS_CSI.addonName) || isHelmChart(r, EBS_CSI.addonName));
    const loadBalancerController = resources.some((r) => isHelmChart(r, LOAD_BALANCER_CONTROLLER.chart));
    // In-tree EBS claims are served by the CSI driver too (CSI migration, on by default since 1.23).
    const drivers: Record<string, boolean> = { [EBS_CSI.provisioner]: ebsCsi, "kubernetes.io/aws-ebs": ebsCsi };
    const controllers: Record<string, boolean> = { [LOAD_BALANCER_CONTROLLER.ingressController]: loadBalancerController };
    const platform: Platform = {
        stack,
        storageClasses: new Map(),
        ingressClasses: new Map(),
        loadBalancerController,
        metricsApi: resources.some((r) => isEksAddon(r, METRICS_SERVER_ADDON) || isHelmChart(r, "metrics-server")),
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
    | { kind: "loadBalancerController" }
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
        const lbcAnnotations = (prefix: string) =>
            Object.keys(annotations)
                .filter((a) => a.startsWith(prefix))
                .forEach((a) => add(`annotation ${a}`, { kind: "loadBalancerController" }));

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
            lbcAnnotations(LOAD_BALANCER_CONTROLLER.ingressAnnotationPrefix);
        }
        if (kind === "Service" && spec?.type === "LoadBalancer") {
            const lbClass = asString(spec.loadBalancerClass);
            if (lbClass) {
                add("spec.loadBalancerClass", { kind: "loadBalancerClass", name: lbClass });
            }
            lbcAnnotations(LOAD_BALANCER_CONTROLLER.serviceAnnotationPrefix);
        }
        if (kind === "Namespace" && stringMap(meta?.labels)[LOAD_BALANCER_CONTROLLER.readinessGateLabel] === "enabled") {
            add(`label ${LOAD_BALANCER_CONTROLLER.readinessGateLabel}`, { kind: "loadBalancerController" });
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
        case "loadBalancerController":
            return "the AWS Load Balancer Controller";
        case "metricsApi":
            return "the resource metrics API (metrics-server)";
        case "customMetrics":
            return `a custom or external metrics API (HPA metric type ${r.type})`;
    }
}

/** Why the platform leaves a requirement unmet, or `undefined` when it meets it. Pure. */
function gap(r: Requirement, p: Platform): string | undefined {
    const classes = (map: Map<string, { served: boolean }>) =>
        [...map]
            .filter(([, c]) => c.served)
            .map(([n]) => n)
            .join(", ") || "none";
    switch (r.kind) {
        case "storageClass": {
            const c = p.storageClasses.get(r.name);
            return !c
                ? `it has ${classes(p.storageClasses)}`
                : c.served
                  ? undefined
                  : `no driver for its provisioner ${c.provisioner} is installed`;
        }
        case "defaultStorageClass":
            return [...p.storageClasses.values()].some((c) => c.isDefault && c.served)
                ? undefined
                : `none is marked default (it has ${classes(p.storageClasses)})`;
        case "ingressClass": {
            const c = p.ingressClasses.get(r.name);
            return !c ? `it has ${classes(p.ingressClasses)}` : c.served ? undefined : `no controller for ${c.controller} is installed`;
        }
        case "defaultIngressClass":
            return [...p.ingressClasses.values()].some((c) => c.isDefault && c.served)
                ? undefined
                : `none is marked default (it has ${classes(p.ingressClasses)})`;
        case "loadBalancerClass":
            return r.name === LOAD_BALANCER_CONTROLLER.loadBalancerClass && p.loadBalancerController
                ? undefined
                : "no controller serving it is installed";
        case "loadBalancerController":
            return p.loadBalancerController ? undefined : "it is not installed";
        case "metricsApi":
            return p.metricsApi ? undefined : "metrics-server is not installed";
        case "customMetrics":
            return "the platform installs no custom or external metrics adapter";
    }
}

/**
 * One message per need the stack leaves unmet, naming the manifest, the object, what it relies on
 * and why the stack does not provide it. Empty when everything is provided. Pure.
 */
export function unmetNeeds(needs: readonly Need[], platform: Platform): string[] {
    return unmet(needs, platform).map(
        ({ need: n, what, why }) =>
            `${n.file}:${n.line} ${n.object} (${n.via}) needs ${what}, which stack ${platform.stack} does not provide: ${why}`,
    );
}

/** The needs the stack leaves unmet, each with what it needs (`StorageClass "fast"`) and why the stack does not provide it. Pure. */
export function unmet(needs: readonly Need[], platform: Platform): { need: Need; what: string; why: string }[] {
    return needs.flatMap((n) => {
        const why = gap(n.requires, platform);
        return why === undefined ? [] : [{ need: n, what: describe(n.requires), why }];
    });
}
