/**
 * tools/manifests/platformFit.ts rule by rule, on small hand-built objects and plans: what each Kubernetes
 * field makes a workload rely on, what a plan resource provides, and the reason given when a need
 * is unmet. The stack-wide cases are in platformFit.test.ts.
 */
import { expect } from "chai";
import { AUTO_MODE_ANNOTATIONS } from "eks-platform-kernel";
import { Need, needsOf, PlanResource, platformOf, unmet, unmetNeeds } from "../../../tools/manifests/platformFit";

const objects = (...list: Record<string, unknown>[]) => list.map((object, i) => ({ file: "f.yaml", line: i + 1, object }));
/** Each need as `object | via | requirement`, the requirement's fields joined. */
const needs = (...list: Record<string, unknown>[]) =>
    needsOf(objects(...list)).map((n) => `${n.object} | ${n.via} | ${Object.values(n.requires).join(" ")}`);

const storageClass = (
    name: string | undefined,
    provisioner: string | undefined,
    annotations: Record<string, string> = {},
): PlanResource => ({
    type: "kubernetes:storage.k8s.io/v1:StorageClass",
    name: `sc-${name}`,
    props: { metadata: { name, annotations }, ...(provisioner === undefined ? {} : { provisioner }) },
});
const ingressClass = (name: string, controller: string | undefined, annotations: Record<string, string> = {}): PlanResource => ({
    type: "kubernetes:networking.k8s.io/v1:IngressClass",
    name: `ic-${name}`,
    props: { metadata: { name, annotations }, ...(controller === undefined ? {} : { spec: { controller } }) },
});
const DEFAULT_SC = { "storageclass.kubernetes.io/is-default-class": "true" };
const DEFAULT_IC = { "ingressclass.kubernetes.io/is-default-class": "true" };
const ebsAddon: PlanResource = { type: "aws:eks/addon:Addon", name: "ebs", props: { addonName: "aws-ebs-csi-driver" } };
const lbcRelease: PlanResource = { type: "kubernetes:helm.sh/v3:Release", name: "lbc", props: { chart: "aws-load-balancer-controller" } };
const need = (requires: Need["requires"]): Need => ({ file: "f.yaml", line: 1, object: "Pod app/web", via: "x", requires });

describe("tools/manifests/platformFit.ts needsOf: what a manifest relies on, field by field", () => {
    it('takes the default class for a claim whose storageClassName is unset or null, none for "" or a non-string (Kubernetes PVC storageClassName, DefaultStorageClass admission)', () => {
        const pvc = (name: string, spec?: Record<string, unknown>) => ({ kind: "PersistentVolumeClaim", metadata: { name }, spec });
        expect(
            needs(
                pvc("unset", {}),
                pvc("null", { storageClassName: null }),
                pvc("nospec"),
                pvc("static", { storageClassName: "" }),
                pvc("number", { storageClassName: 5 }),
                pvc("gp3", { storageClassName: "gp3" }),
            ),
        ).to.deep.equal([
            "PersistentVolumeClaim unset | spec.storageClassName | defaultStorageClass",
            "PersistentVolumeClaim null | spec.storageClassName | defaultStorageClass",
            "PersistentVolumeClaim nospec | spec.storageClassName | defaultStorageClass",
            "PersistentVolumeClaim gp3 | spec.storageClassName | storageClass gp3",
        ]);
    });

    it("names an object Kind namespace/name, `(unnamed)` without metadata, and reads objects with no metadata or spec without failing", () => {
        expect(
            needs(
                { kind: "PersistentVolumeClaim", spec: {} },
                { kind: "Ingress" },
                { kind: "Service" },
                { kind: "Namespace" },
                { kind: "StatefulSet" },
                { kind: "HorizontalPodAutoscaler", metadata: { name: "hpa", namespace: "shop" } },
            ),
        ).to.deep.equal([
            "PersistentVolumeClaim (unnamed) | spec.storageClassName | defaultStorageClass",
            "Ingress (unnamed) | no ingressClassName | defaultIngressClass",
            "HorizontalPodAutoscaler shop/hpa | CPU utilisation (the default target) | metricsApi",
        ]);
    });

    it("finds generic ephemeral volumes in the pod spec of a Pod (spec), a Deployment (spec.template.spec) and a CronJob (spec.jobTemplate.spec.template.spec) (Kubernetes ephemeral volumes)", () => {
        const volumes = [
            { name: "scratch", ephemeral: { volumeClaimTemplate: { spec: { storageClassName: "io2" } } } },
            { ephemeral: { volumeClaimTemplate: { spec: {} } } },
            { name: "empty", emptyDir: {} },
            "not-a-volume",
        ];
        expect(
            needs(
                { kind: "Pod", metadata: { name: "p" }, spec: { volumes } },
                { kind: "Deployment", metadata: { name: "d" }, spec: { template: { spec: { volumes } } } },
                // A Deployment's spec holds no volumes of its own: only its template's count.
                { kind: "Deployment", metadata: { name: "flat" }, spec: { volumes } },
                { kind: "CronJob", metadata: { name: "c" }, spec: { jobTemplate: { spec: { template: { spec: { volumes } } } } } },
            ),
        ).to.deep.equal([
            "Pod p | ephemeral volume scratch | storageClass io2",
            "Pod p | ephemeral volume (unnamed) | defaultStorageClass",
            "Deployment d | ephemeral volume scratch | storageClass io2",
            "Deployment d | ephemeral volume (unnamed) | defaultStorageClass",
            "CronJob c | ephemeral volume scratch | storageClass io2",
            "CronJob c | ephemeral volume (unnamed) | defaultStorageClass",
        ]);
        // A CronJob cut short at any level has no pod spec, and no need.
        const cut = [{}, { jobTemplate: {} }, { jobTemplate: { spec: {} } }, { jobTemplate: { spec: { template: {} } } }];
        expect(needs({ kind: "CronJob" }, ...cut.map((spec) => ({ kind: "CronJob", spec })))).to.deep.equal([]);
    });

    it("reads a StatefulSet's volumeClaimTemplates by name, by index when unnamed (Kubernetes StatefulSet volumeClaimTemplates)", () => {
        const templates = [{ metadata: { name: "data" }, spec: { storageClassName: "gp3" } }, { spec: {} }, null];
        expect(needs({ kind: "StatefulSet", spec: { volumeClaimTemplates: templates } })).to.deep.equal([
            "StatefulSet (unnamed) | volumeClaimTemplates[data] | storageClass gp3",
            "StatefulSet (unnamed) | volumeClaimTemplates[1] | defaultStorageClass",
            "StatefulSet (unnamed) | volumeClaimTemplates[2] | defaultStorageClass",
        ]);
        // Only a StatefulSet has claim templates.
        expect(needs({ kind: "Deployment", spec: { volumeClaimTemplates: templates } })).to.deep.equal([]);
    });

    it("takes an Ingress's class from spec.ingressClassName, else from the deprecated kubernetes.io/ingress.class annotation, else the default class (Kubernetes Ingress ingressClassName)", () => {
        const ingress = (name: string, spec: Record<string, unknown>, annotations: Record<string, string> = {}) => ({
            kind: "Ingress",
            metadata: { name, annotations },
            spec,
        });
        expect(
            needs(
                ingress("spec", { ingressClassName: "alb" }, { "kubernetes.io/ingress.class": "nginx" }),
                ingress("legacy", {}, { "kubernetes.io/ingress.class": "nginx" }),
                ingress("none", {}),
            ),
        ).to.deep.equal([
            "Ingress spec | spec.ingressClassName | ingressClass alb",
            "Ingress spec | annotation kubernetes.io/ingress.class | loadBalancerAnnotation Ingress kubernetes.io/ingress.class nginx alb",
            "Ingress legacy | annotation kubernetes.io/ingress.class | ingressClass nginx",
            "Ingress legacy | annotation kubernetes.io/ingress.class | loadBalancerAnnotation Ingress kubernetes.io/ingress.class nginx nginx",
            "Ingress none | no ingressClassName | defaultIngressClass",
        ]);
    });

    it("needs a load balancer controller for its own annotations only: alb.ingress.kubernetes.io/ and kubernetes.io/ingress.class on an Ingress, service.beta.kubernetes.io/aws-load-balancer- and load-balancer-source-ranges on a LoadBalancer Service, with the object's class (aws-load-balancer-controller annotations)", () => {
        const lbAnnotations = {
            "service.beta.kubernetes.io/aws-load-balancer-scheme": "internal",
            "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8",
            "example.com/owner": "team",
        };
        expect(
            needs(
                {
                    kind: "Ingress",
                    metadata: {
                        name: "i",
                        annotations: { "alb.ingress.kubernetes.io/scheme": "internal", "nginx.ingress.kubernetes.io/rewrite-target": "/" },
                    },
                    spec: { ingressClassName: "alb" },
                },
                {
                    kind: "Service",
                    metadata: { name: "lb", annotations: lbAnnotations },
                    spec: { type: "LoadBalancer", loadBalancerClass: "service.k8s.aws/nlb" },
                },
                // Neither a ClusterIP Service nor another kind with a LoadBalancer-looking spec gets a load balancer.
                {
                    kind: "Service",
                    metadata: { name: "cip", annotations: lbAnnotations },
                    spec: { type: "ClusterIP", loadBalancerClass: "x" },
                },
                {
                    kind: "Gateway",
                    metadata: { name: "gw", annotations: lbAnnotations },
                    spec: { type: "LoadBalancer", loadBalancerClass: "x" },
                },
                {
                    kind: "Ingress",
                    metadata: { name: "legacy", annotations: { "kubernetes.io/ingress.class": "alb" } },
                },
                { kind: "Service", metadata: { name: "classless", annotations: lbAnnotations }, spec: { type: "LoadBalancer" } },
            ),
        ).to.deep.equal([
            "Ingress i | spec.ingressClassName | ingressClass alb",
            "Ingress i | annotation alb.ingress.kubernetes.io/scheme | loadBalancerAnnotation Ingress alb.ingress.kubernetes.io/scheme internal alb",
            "Service lb | spec.loadBalancerClass | loadBalancerClass service.k8s.aws/nlb",
            "Service lb | annotation service.beta.kubernetes.io/aws-load-balancer-scheme | loadBalancerAnnotation Service service.beta.kubernetes.io/aws-load-balancer-scheme internal service.k8s.aws/nlb",
            "Service lb | annotation service.beta.kubernetes.io/load-balancer-source-ranges | loadBalancerAnnotation Service service.beta.kubernetes.io/load-balancer-source-ranges 10.0.0.0/8 service.k8s.aws/nlb",
            "Ingress legacy | annotation kubernetes.io/ingress.class | ingressClass alb",
            "Ingress legacy | annotation kubernetes.io/ingress.class | loadBalancerAnnotation Ingress kubernetes.io/ingress.class alb alb",
            "Service classless | annotation service.beta.kubernetes.io/aws-load-balancer-scheme | loadBalancerAnnotation Service service.beta.kubernetes.io/aws-load-balancer-scheme internal",
            "Service classless | annotation service.beta.kubernetes.io/load-balancer-source-ranges | loadBalancerAnnotation Service service.beta.kubernetes.io/load-balancer-source-ranges 10.0.0.0/8",
        ]);
    });

    it("needs readiness-gate injection for a Namespace labelled elbv2.k8s.aws/ or eks.amazonaws.com/pod-readiness-gate-inject=enabled, and for nothing else so labelled (aws-load-balancer-controller pod readiness gate; Auto Mode's label as users report it)", () => {
        const label = (value: string, key = "elbv2.k8s.aws/pod-readiness-gate-inject") => ({ labels: { [key]: value } });
        expect(
            needs(
                { kind: "Namespace", metadata: { name: "on", ...label("enabled") } },
                { kind: "Namespace", metadata: { name: "auto", ...label("enabled", "eks.amazonaws.com/pod-readiness-gate-inject") } },
                { kind: "Namespace", metadata: { name: "off", ...label("disabled") } },
                { kind: "Namespace", metadata: { name: "plain" } },
                { kind: "Pod", metadata: { name: "p", ...label("enabled") } },
            ),
        ).to.deep.equal([
            "Namespace on | label elbv2.k8s.aws/pod-readiness-gate-inject | readinessGate elbv2.k8s.aws/pod-readiness-gate-inject",
            "Namespace auto | label eks.amazonaws.com/pod-readiness-gate-inject | readinessGate eks.amazonaws.com/pod-readiness-gate-inject",
        ]);
    });

    it("reads an HPA's metrics: none means 80 % CPU, Resource and ContainerResource need metrics.k8s.io, the other types a custom or external metrics API (Kubernetes autoscaling/v2 HPA spec.metrics)", () => {
        const hpa = (name: string, metrics?: unknown[]) => ({ kind: "HorizontalPodAutoscaler", metadata: { name }, spec: { metrics } });
        expect(
            needs(
                hpa("v1"),
                hpa("empty", []),
                hpa("mixed", [{ type: "Resource" }, { type: "ContainerResource" }, { type: "Pods" }, { type: "External" }, null]),
            ),
        ).to.deep.equal([
            "HorizontalPodAutoscaler v1 | CPU utilisation (the default target) | metricsApi",
            "HorizontalPodAutoscaler empty | CPU utilisation (the default target) | metricsApi",
            "HorizontalPodAutoscaler mixed | metric type Resource | metricsApi",
            "HorizontalPodAutoscaler mixed | metric type ContainerResource | metricsApi",
            "HorizontalPodAutoscaler mixed | metric type Pods | customMetrics Pods",
            "HorizontalPodAutoscaler mixed | metric type External | customMetrics External",
            "HorizontalPodAutoscaler mixed | metric type  | customMetrics ",
        ]);
    });
});

describe("tools/manifests/platformFit.ts platformOf: what a plan provides", () => {
    it("finds a chart in a Helm v3 Release or a v4 Chart, by the chart's last path segment, and in no other type", () => {
        const chart = (type: string, name?: string): PlanResource => ({
            type,
            name: "r",
            props: name === undefined ? {} : { chart: name },
        });
        const lbc = (r: PlanResource) => platformOf("x", [r]).loadBalancerController;
        expect(lbc(chart("kubernetes:helm.sh/v3:Release", "eks/aws-load-balancer-controller"))).to.equal(true);
        expect(lbc(chart("kubernetes:helm.sh/v4:Chart", "aws-load-balancer-controller"))).to.equal(true);
        expect(lbc(chart("kubernetes:helm.sh/v3:Release", "aws-load-balancer-controller-crds"))).to.equal(false);
        expect(lbc(chart("kubernetes:helm.sh/v3:Release"))).to.equal(false);
        expect(lbc(chart("kubernetes:core/v1:ConfigMap", "aws-load-balancer-controller"))).to.equal(false);
    });

    it("serves the metrics API from the metrics-server EKS add-on or chart only (EKS community add-on metrics-server)", () => {
        const metrics = (...r: PlanResource[]) => platformOf("x", r).metricsApi;
        expect(metrics({ type: "aws:eks/addon:Addon", name: "m", props: { addonName: "metrics-server" } })).to.equal(true);
        expect(metrics({ type: "kubernetes:helm.sh/v3:Release", name: "m", props: { chart: "metrics-server" } })).to.equal(true);
        expect(metrics({ type: "aws:eks/addon:Addon", name: "c", props: { addonName: "coredns" } })).to.equal(false);
        expect(metrics({ type: "kubernetes:core/v1:ConfigMap", name: "m", props: { addonName: "metrics-server" } })).to.equal(false);
        expect(metrics({ type: "kubernetes:helm.sh/v3:Release", name: "o", props: { chart: "other" } })).to.equal(false);
    });

    it("lists StorageClasses and IngressClasses by name, default by annotation, served by an installed driver or controller (Kubernetes is-default-class annotations)", () => {
        const p = platformOf("x", [
            storageClass("gp3", "ebs.csi.aws.com", DEFAULT_SC),
            storageClass("efs", "efs.csi.aws.com"),
            storageClass("bare", undefined),
            storageClass(undefined, "ebs.csi.aws.com"),
            ingressClass("alb", "ingress.k8s.aws/alb", DEFAULT_IC),
            ingressClass("nginx", "k8s.io/ingress-nginx"),
            ingressClass("nospec", undefined),
            { type: "kubernetes:core/v1:ConfigMap", name: "cm", props: { metadata: { name: "cm" }, provisioner: "ebs.csi.aws.com" } },
            ebsAddon,
            lbcRelease,
        ]);
        expect(Object.fromEntries(p.storageClasses)).to.deep.equal({
            gp3: { provisioner: "ebs.csi.aws.com", isDefault: true, served: true },
            efs: { provisioner: "efs.csi.aws.com", isDefault: false, served: false },
            bare: { provisioner: "", isDefault: false, served: false },
        });
        expect(Object.fromEntries(p.ingressClasses)).to.deep.equal({
            alb: { controller: "ingress.k8s.aws/alb", isDefault: true, served: true },
            nginx: { controller: "k8s.io/ingress-nginx", isDefault: false, served: false },
            nospec: { controller: "", isDefault: false, served: false },
        });
    });
});

describe("tools/manifests/platformFit.ts unmetNeeds: the reason a need is unmet", () => {
    const bare = platformOf("bare", [
        storageClass("gp3", "ebs.csi.aws.com", DEFAULT_SC),
        ingressClass("nginx", "k8s.io/ingress-nginx", DEFAULT_IC),
    ]);
    const why = (requires: Need["requires"], platform = bare) => unmetNeeds([need(requires)], platform);

    it("names the missing driver, controller, metrics-server or adapter, in one line per need", () => {
        const line = (what: string, reason: string) =>
            `f.yaml:1 Pod app/web (x) needs ${what}, which stack bare does not provide: ${reason}`;
        expect(why({ kind: "storageClass", name: "gp3" })).to.deep.equal([
            line('StorageClass "gp3"', "no driver for its provisioner ebs.csi.aws.com is installed"),
        ]);
        expect(why({ kind: "ingressClass", name: "nginx" })).to.deep.equal([
            line('IngressClass "nginx"', "no controller for k8s.io/ingress-nginx is installed"),
        ]);
        expect(why({ kind: "metricsApi" })).to.deep.equal([
            line("the resource metrics API (metrics-server)", "metrics-server is not installed"),
        ]);
        const scheme = "alb.ingress.kubernetes.io/scheme";
        expect(
            why({ kind: "loadBalancerAnnotation", on: "Ingress", annotation: scheme, value: "internal", className: "alb" }),
        ).to.deep.equal([
            line(
                `a load balancer controller that honours ${scheme}`,
                "the stack installs no AWS Load Balancer Controller and is not on EKS Auto Mode",
            ),
        ]);
        expect(why({ kind: "loadBalancerClass", name: "service.k8s.aws/nlb" })).to.deep.equal([
            line('loadBalancerClass "service.k8s.aws/nlb"', "no controller serving it is installed (the stack serves none)"),
        ]);
        expect(why({ kind: "readinessGate", label: "elbv2.k8s.aws/pod-readiness-gate-inject" })).to.deep.equal([
            line(
                "a load balancer controller that injects readiness gates for elbv2.k8s.aws/pod-readiness-gate-inject",
                "the AWS Load Balancer Controller reads it, and the stack does not install it",
            ),
        ]);
        expect(why({ kind: "customMetrics", type: "External" })).to.deep.equal([
            line(
                "a custom or external metrics API (HPA metric type External)",
                "the platform installs no custom or external metrics adapter",
            ),
        ]);
    });

    it("lists the served classes of a kind when the named one is missing, or none", () => {
        const served = platformOf("x", [
            storageClass("gp3", "ebs.csi.aws.com"),
            storageClass("io1", "kubernetes.io/aws-ebs"),
            storageClass("efs", "efs.csi.aws.com"),
            ebsAddon,
        ]);
        expect(why({ kind: "storageClass", name: "fast" }, served)[0]).to.match(/does not provide: it has gp3, io1$/);
        expect(why({ kind: "defaultStorageClass" }, served)[0]).to.match(/does not provide: none is marked default \(it has gp3, io1\)$/);
        expect(why({ kind: "ingressClass", name: "alb" }, served)[0]).to.match(/does not provide: it has none$/);
        expect(why({ kind: "defaultIngressClass" }, served)[0]).to.match(/does not provide: none is marked default \(it has none\)$/);
    });

    it("meets a default-class need when one class is both default and served, whatever the others", () => {
        const mixed = platformOf("x", [
            storageClass("gp3", "ebs.csi.aws.com", DEFAULT_SC),
            storageClass("efs", "efs.csi.aws.com"),
            ingressClass("alb", "ingress.k8s.aws/alb", DEFAULT_IC),
            ingressClass("nginx", "k8s.io/ingress-nginx"),
            ebsAddon,
            lbcRelease,
        ]);
        expect(unmetNeeds([need({ kind: "defaultStorageClass" }), need({ kind: "defaultIngressClass" })], mixed)).to.deep.equal([]);
        // Default but unserved meets nothing.
        expect(why({ kind: "defaultIngressClass" })).to.have.length(1);
    });
});

describe("tools/manifests/platformFit.ts on EKS Auto Mode: what EKS's own storage and load balancing serve (EKS User Guide, auto-configure-alb, auto-configure-nlb, migrate-auto)", () => {
    const cluster = (autoMode: unknown): PlanResource => ({ type: "eks:index:Cluster", name: "c", props: { autoMode } });
    const auto = cluster({ enabled: true, computeConfig: { enabled: true, nodePools: ["system"] } });
    const autoPlatform = platformOf("auto", [
        auto,
        storageClass("gp3", "ebs.csi.eks.amazonaws.com", DEFAULT_SC),
        ingressClass("alb", "eks.amazonaws.com/alb"),
    ]);
    const standard = platformOf("std", [
        storageClass("gp3", "ebs.csi.aws.com", DEFAULT_SC),
        ebsAddon,
        ingressClass("alb", "ingress.k8s.aws/alb"),
        lbcRelease,
    ]);
    // An undecided reason says so itself, so a reader that takes every entry as unmet still tells them apart.
    const judged = (requires: Need["requires"], platform = autoPlatform) =>
        unmet([need(requires)], platform).map((u) => {
            expect(u.why.startsWith("undecided: "), u.why).to.equal(u.undecided);
            return u.undecided ? u.why : `unmet: ${u.why}`;
        });
    const ingress = (annotation: string, value = "x"): Need["requires"] => ({
        kind: "loadBalancerAnnotation",
        on: "Ingress",
        annotation,
        value,
        className: "alb",
    });
    const service = (annotation: string, value = "x", className?: string): Need["requires"] => ({
        kind: "loadBalancerAnnotation",
        on: "Service",
        annotation,
        value,
        ...(className === undefined ? {} : { className }),
    });

    it("reads Auto Mode from the cluster's autoMode.enabled, unless its computeConfig is turned off, and then serves its provisioner, IngressClass controller and default NLB class", () => {
        expect(platformOf("x", [auto]).autoMode).to.equal(true);
        expect(platformOf("x", [cluster({ enabled: true })]).autoMode).to.equal(true);
        expect(platformOf("x", [cluster({ enabled: true, computeConfig: { enabled: false } })]).autoMode).to.equal(false);
        expect(platformOf("x", [cluster({ enabled: false })]).autoMode).to.equal(false);
        expect(platformOf("x", [cluster(undefined)]).autoMode).to.equal(false);
        expect(platformOf("x", [{ ...auto, type: "aws:eks/cluster:Cluster" }]).autoMode).to.equal(false);
        expect(autoPlatform.storageClasses.get("gp3")?.served).to.equal(true);
        expect(autoPlatform.ingressClasses.get("alb")?.served).to.equal(true);
        expect(Object.fromEntries(autoPlatform.loadBalancerClasses)).to.deep.equal({ "eks.amazonaws.com/nlb": { isDefault: true } });
        expect(autoPlatform.loadBalancerController).to.equal(false);
        // A standard stack: the controller's class is the default, Auto Mode's names are served by nothing.
        expect(Object.fromEntries(standard.loadBalancerClasses)).to.deep.equal({ "service.k8s.aws/nlb": { isDefault: true } });
        expect(platformOf("x", [storageClass("gp3", "ebs.csi.eks.amazonaws.com"), ebsAddon]).storageClasses.get("gp3")?.served).to.equal(
            false,
        );
    });

    it("refuses the controller's NLB class by name, naming Auto Mode's; refuses Auto Mode's class on a standard stack", () => {
        expect(judged({ kind: "loadBalancerClass", name: "service.k8s.aws/nlb" })).to.deep.equal([
            "unmet: it is the AWS Load Balancer Controller's class, which the stack does not install; on EKS Auto Mode use eks.amazonaws.com/nlb (the cluster default: leaving spec.loadBalancerClass unset gets it)",
        ]);
        expect(judged({ kind: "loadBalancerClass", name: "eks.amazonaws.com/nlb" })).to.deep.equal([]);
        expect(judged({ kind: "loadBalancerClass", name: "eks.amazonaws.com/nlb" }, standard)).to.deep.equal([
            "unmet: it is EKS Auto Mode's class, and the stack is not on EKS Auto Mode (the stack serves service.k8s.aws/nlb)",
        ]);
    });

    it("honours the annotations AWS shows Auto Mode reading, refuses by name those it documents as unsupported, and leaves the rest undecided", () => {
        expect(judged(ingress("alb.ingress.kubernetes.io/scheme"))).to.deep.equal([]);
        expect(judged(ingress("alb.ingress.kubernetes.io/target-type", "ip"))).to.deep.equal([]);
        expect(judged(service("service.beta.kubernetes.io/aws-load-balancer-scheme", "internal"))).to.deep.equal([]);
        expect(
            judged(service("service.beta.kubernetes.io/aws-load-balancer-healthcheck-path", "/", "eks.amazonaws.com/nlb")),
        ).to.deep.equal([]);
        expect(judged(ingress("alb.ingress.kubernetes.io/group.name"))).to.deep.equal([
            "unmet: EKS Auto Mode does not support it (EKS User Guide, auto-configure-alb): set group.name in the IngressClassParams of the IngressClass",
        ]);
        expect(judged(ingress("kubernetes.io/ingress.class", "alb"))).to.deep.equal([
            "unmet: EKS Auto Mode does not support it (EKS User Guide, auto-configure-alb): use spec.ingressClassName",
        ]);
        expect(judged(ingress("alb.ingress.kubernetes.io/auth-type", " oidc"))[0]).to.match(
            /^unmet: .*OIDC authentication is not supported$/,
        );
        expect(judged(ingress("alb.ingress.kubernetes.io/auth-type", "cognito"))[0]).to.match(
            /^undecided: the EKS User Guide \(auto-configure-alb\) does not say/,
        );
        expect(judged(service("service.beta.kubernetes.io/aws-load-balancer-type", "external"))).to.deep.equal([
            "unmet: EKS Auto Mode does not support it (EKS User Guide, auto-configure-nlb): use spec.loadBalancerClass",
        ]);
        expect(judged(service("service.beta.kubernetes.io/aws-load-balancer-internal", "true"))[0]).to.match(
            /use service\.beta\.kubernetes\.io\/aws-load-balancer-scheme$/,
        );
        expect(judged(service("service.beta.kubernetes.io/load-balancer-source-ranges"))[0]).to.match(
            /use spec\.loadBalancerSourceRanges$/,
        );
        expect(judged(service("service.beta.kubernetes.io/aws-load-balancer-proxy-protocol", "*"))[0]).to.match(
            /aws-load-balancer-attributes/,
        );
        expect(judged(service("service.beta.kubernetes.io/aws-load-balancer-healthcheck-interval", "10"))).to.deep.equal([
            "undecided: the EKS User Guide (auto-configure-nlb) does not say whether EKS Auto Mode honours it; confirm it on an Auto Mode cluster, then waive platform-fit with what you saw",
        ]);
        // Every one of them is read by the controller on a standard stack; none reaches another class's controller.
        for (const a of AUTO_MODE_ANNOTATIONS) {
            expect(
                judged(
                    a.annotation.startsWith("alb.") || a.annotation.startsWith("kubernetes.io/")
                        ? ingress(a.annotation)
                        : service(a.annotation),
                    standard,
                ),
                a.annotation,
            ).to.deep.equal([]);
        }
        expect(judged(service("service.beta.kubernetes.io/aws-load-balancer-type", "external", "example.com/other-lb"))).to.deep.equal([]);
    });

    it("names a page of the EKS User Guide for each annotation it decides, under the controller's prefixes or the two legacy names", () => {
        for (const a of AUTO_MODE_ANNOTATIONS) {
            expect(["auto-configure-alb", "auto-configure-nlb", "auto-elb-example"], a.annotation).to.include(a.source);
            expect(
                /^(alb\.ingress\.kubernetes\.io\/|service\.beta\.kubernetes\.io\/aws-load-balancer-)/.test(a.annotation) ||
                    ["kubernetes.io/ingress.class", "service.beta.kubernetes.io/load-balancer-source-ranges"].includes(a.annotation),
                a.annotation,
            ).to.equal(true);
            expect(a.verdict === "refused", `${a.annotation} says what to use instead`).to.equal(a.instead !== undefined);
        }
    });

    it("leaves readiness gates undecided on Auto Mode for either label (the EKS User Guide does not mention them), and refuses Auto Mode's reported label on a standard stack", () => {
        const gate = (label: string): Need["requires"] => ({ kind: "readinessGate", label });
        expect(judged(gate("elbv2.k8s.aws/pod-readiness-gate-inject"))).to.deep.equal([
            "undecided: the EKS User Guide does not say whether EKS Auto Mode injects readiness gates for it (users report Auto Mode reading eks.amazonaws.com/pod-readiness-gate-inject instead, unconfirmed by AWS)",
        ]);
        expect(judged(gate("eks.amazonaws.com/pod-readiness-gate-inject"))).to.deep.equal([
            "undecided: users report EKS Auto Mode injecting readiness gates for it; the EKS User Guide does not document it",
        ]);
        expect(judged(gate("elbv2.k8s.aws/pod-readiness-gate-inject"), standard)).to.deep.equal([]);
        expect(judged(gate("eks.amazonaws.com/pod-readiness-gate-inject"), standard)).to.deep.equal([
            "unmet: only EKS Auto Mode is reported to read it, and the stack is not on EKS Auto Mode (the AWS Load Balancer Controller reads elbv2.k8s.aws/pod-readiness-gate-inject)",
        ]);
    });
});
