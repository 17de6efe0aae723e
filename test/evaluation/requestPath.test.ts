/**
 * The request-path model against the AWS Load Balancer Controller v2.13.3's rules, one rule per
 * test (evaluation/requestPath.ts names each source): which objects make which load balancer, with
 * what target type, deregistration delay and health check, and a pod's exit on it.
 */
import { expect } from "chai";
import { LOAD_BALANCER_CONTROLLER_API, REQUEST_PATH_TIMING } from "eks-platform-kernel";
import {
    LoadBalancerFront,
    parseStringMapAnnotation,
    podExit,
    readLoadBalancerFronts,
    readServices,
    stopRouting,
    UnmodelledFront,
    Verdicts,
} from "eks-platform-evaluation";
import * as f from "../policies/fixtures";
import { containersOf, servesFor, unknownCheckingProxy } from "eks-platform-evaluation";
import { UNKNOWN } from "../policies/harness";
import { changed, TestResource, urnOf } from "../policies/harness";

function fronts(resources: TestResource[]): LoadBalancerFront[] {
    const verdicts = new Verdicts();
    const stack = resources.map((r) => ({ ...r, urn: urnOf(r) }));
    const out = readLoadBalancerFronts(stack, readServices(stack, verdicts), verdicts);
    verdicts.finish();
    return out;
}

const lbService = (annotations: Record<string, string>, spec: Record<string, unknown> = {}) =>
    changed(changed(f.service(), "metadata.annotations", annotations), "spec", {
        ...(f.service().props.spec as object),
        type: "LoadBalancer",
        ...spec,
    });

describe("kernel: the request path (AWS Load Balancer Controller v2.13.3)", () => {
    it("parses a stringMap annotation as ParseStringMapAnnotation does: pairs trimmed, empty parts skipped, the value after the first =", () => {
        expect(parseStringMapAnnotation(" a=1 ,, b=x=y ,")).to.deep.equal({ a: "1", b: "x=y" });
        expect(parseStringMapAnnotation("a = 1")).to.deep.equal({ "a ": " 1" });
        expect(parseStringMapAnnotation("a")).to.deep.equal({ error: '"a" is not a key=value pair' });
        expect(parseStringMapAnnotation("=1")).to.deep.equal({ error: '"=1" is not a key=value pair' });
        expect(parseStringMapAnnotation("")).to.deep.equal({});
    });

    it("reads past resources that are not Kubernetes objects", () => {
        expect(fronts([f.vpc(), f.subnet(), f.service(), f.ingress({})]).map((x) => x.via)).to.deep.equal(["Ingress api"]);
    });

    it("serves a LoadBalancer Service with no class (the mutator webhook sets the controller's) or the controller's class, and no other", () => {
        expect(fronts([lbService({})]).map((x) => [x.type, x.via, x.targetType.value])).to.deep.equal([["NLB", "Service api", "instance"]]);
        expect(fronts([lbService({}, { loadBalancerClass: LOAD_BALANCER_CONTROLLER_API.loadBalancerClass })])).to.have.length(1);
        expect(fronts([lbService({}, { loadBalancerClass: "service.k8s.aws/other" })])).to.deep.equal([]);
        expect(fronts([f.service()])).to.deep.equal([]);
        expect(fronts([changed(f.service(), "spec.type", "NodePort")])).to.deep.equal([]);
    });

    it("leaves EKS Auto Mode's load balancers to `unmodelled`: its class, and on a cluster that runs Auto Mode a Service naming none; another class stays the controller's or no one's", () => {
        const autoCluster = (enabled: unknown): TestResource => ({
            type: "aws:eks/cluster:Cluster",
            name: "cluster",
            props: { name: "c", computeConfig: { enabled, nodePools: ["system"] } },
        });
        const read = (resources: TestResource[]) => {
            const verdicts = new Verdicts();
            const stack = resources.map((r) => ({ ...r, urn: urnOf(r), props: unknownCheckingProxy(r.props) }));
            const unmodelled: UnmodelledFront[] = [];
            const out = readLoadBalancerFronts(stack, readServices(stack, verdicts), verdicts, unmodelled);
            return {
                vias: out.map((x) => x.via),
                unmodelled: unmodelled.map((u) => `${u.subject} by ${u.by}`),
                undecided: verdicts.undecidedSubjects,
            };
        };
        expect(read([lbService({}), autoCluster(true)])).to.deep.equal({
            vias: [],
            unmodelled: ["Service prod/api by eks.amazonaws.com/nlb, the cluster's default class"],
            undecided: [],
        });
        expect(read([lbService({}, { loadBalancerClass: "eks.amazonaws.com/nlb" })]).unmodelled).to.deep.equal([
            "Service prod/api by eks.amazonaws.com/nlb",
        ]);
        expect(read([lbService({}), autoCluster(false)])).to.deep.include({ vias: ["Service api"], unmodelled: [] });
        const lbc = read([lbService({}, { loadBalancerClass: LOAD_BALANCER_CONTROLLER_API.loadBalancerClass }), autoCluster(true)]);
        expect(lbc).to.deep.include({ vias: ["Service api"], unmodelled: [] });
        expect(read([lbService({}, { loadBalancerClass: "example.com/other" }), autoCluster(true)])).to.deep.include({
            vias: [],
            unmodelled: [],
        });
        // Whether the cluster runs Auto Mode unknown until apply: said, and the Service judged as the controller's meanwhile.
        expect(read([lbService({}), autoCluster(UNKNOWN.string)])).to.deep.equal({
            vias: ["Service api"],
            unmodelled: [],
            undecided: ["EKS Auto Mode (computeConfig.enabled)"],
        });
    });

    it("reads the NLB target type as buildTargetType: ip for type nlb-ip or nlb-target-type ip, instance otherwise", () => {
        const p = LOAD_BALANCER_CONTROLLER_API.serviceAnnotationPrefix;
        const target = (a: Record<string, string>) => fronts([lbService(a)])[0].targetType;
        expect(target({ [`${p}type`]: "nlb-ip" })).to.deep.equal({ value: "ip", from: `annotation ${p}type: nlb-ip` });
        expect(target({ [`${p}nlb-target-type`]: "ip" })).to.deep.equal({ value: "ip", from: `annotation ${p}nlb-target-type: ip` });
        expect(target({ [`${p}type`]: "external", [`${p}nlb-target-type`]: "instance" })).to.deep.equal({
            value: "instance",
            from: `annotation ${p}nlb-target-type: instance`,
        });
        expect(target({}).from).to.match(/default/);
    });

    it("reads the deregistration delay from target-group-attributes, ELB's 300 s without it, and says why a value is refused", () => {
        const key = "service.beta.kubernetes.io/aws-load-balancer-target-group-attributes";
        const delay = (v?: string) => fronts([lbService(v === undefined ? {} : { [key]: v })])[0].deregistrationDelay;
        expect(delay("deregistration_delay.timeout_seconds=0")).to.deep.equal({ value: 0, from: `annotation ${key} on Service api` });
        expect(delay("deregistration_delay.timeout_seconds=3600")).to.deep.equal({ value: 3600, from: `annotation ${key} on Service api` });
        // Digits only: ELB takes neither an exponent nor a hexadecimal number.
        expect(delay("deregistration_delay.timeout_seconds=3e2").invalid).to.match(/ELB refuses deregistration_delay\.timeout_seconds=3e2/);
        expect(delay("deregistration_delay.timeout_seconds=0x10").invalid).to.match(/ELB refuses/);
        expect(delay(undefined)).to.deep.equal({ value: 300, from: "the ELB default (no deregistration_delay.timeout_seconds set)" });
        expect(delay("stickiness.enabled=true").value).to.equal(REQUEST_PATH_TIMING.defaultDeregistrationDelaySeconds);
        expect(delay("deregistration_delay.timeout_seconds=3601").invalid).to.match(
            /ELB refuses deregistration_delay\.timeout_seconds=3601/,
        );
        expect(delay("deregistration_delay.timeout_seconds=-1").invalid).to.match(/ELB refuses/);
        expect(delay("deregistration_delay.timeout_seconds=30s").invalid).to.match(/ELB refuses/);
        expect(delay("deregistration_delay.timeout_seconds").invalid).to.match(/cannot parse/);
    });

    it("reads NLB health checks from their annotations, the controller's defaults (10 s x 3) otherwise", () => {
        const p = LOAD_BALANCER_CONTROLLER_API.serviceAnnotationPrefix;
        expect(fronts([lbService({})])[0].healthCheck).to.deep.equal({
            value: { intervalSeconds: 10, unhealthyThreshold: 3 },
            from: "the controller's NLB defaults",
        });
        const set = fronts([lbService({ [`${p}healthcheck-interval`]: "15", [`${p}healthcheck-unhealthy-threshold`]: "x" })])[0]
            .healthCheck;
        // A value that is not a whole number leaves the default.
        expect(set.value).to.deep.equal({ intervalSeconds: 15, unhealthyThreshold: 3 });
        for (const bad of ["5x", "x5", "1.5", ""]) {
            expect(fronts([lbService({ [`${p}healthcheck-interval`]: bad })])[0].healthCheck.value.intervalSeconds, bad).to.equal(10);
        }
        expect(set.from).to.equal(`annotation ${p}healthcheck-interval and ${p}healthcheck-unhealthy-threshold`);
    });

    it("finds an Ingress's backends in the default backend and in each rule, by port number or name, once per Service port", () => {
        const byName = changed(f.ingress({}), "spec", {
            ingressClassName: "alb",
            defaultBackend: { service: { name: "api", port: { number: 80 } } },
            rules: [
                { http: { paths: [{ path: "/a", pathType: "Prefix", backend: { service: { name: "api", port: { number: 80 } } } }] } },
                { http: { paths: [{ path: "/b", pathType: "Prefix", backend: { service: { name: "missing", port: { number: 80 } } } }] } },
                { http: { paths: [{ path: "/c", pathType: "Prefix", backend: { service: { name: "api", port: { number: 81 } } } }] } },
            ],
        });
        const found = fronts([f.service(), byName]);
        expect(found.map((x) => [x.type, x.via, x.ports.map((p) => p.port)])).to.deep.equal([["ALB", "Ingress api", [80]]]);
        // The default backend alone is a backend.
        const defaultOnly = changed(f.ingress({}), "spec", {
            ingressClassName: "alb",
            defaultBackend: { service: { name: "api", port: { number: 80 } } },
        });
        expect(fronts([f.service(), defaultOnly])).to.have.length(1);
        // Two ports of one Service are two target groups.
        const twoPorts = changed(f.service(), "spec.ports", [
            { port: 80, targetPort: 8080 },
            { port: 81, targetPort: 8081 },
        ]);
        const both = changed(byName, "spec.defaultBackend", undefined);
        expect(fronts([twoPorts, both]).map((x) => x.ports.map((p) => p.port))).to.deep.equal([[80], [81]]);
        const named = changed(
            changed(f.ingress({}), "spec.rules.0.http.paths.0.backend.service.port", { name: "web" }),
            "metadata.name",
            "named",
        );
        const svc = changed(f.service(), "spec.ports", [{ name: "web", port: 8080, targetPort: 8080 }]);
        expect(fronts([svc, named]).map((x) => x.ports.map((p) => p.name))).to.deep.equal([["web"]]);
        // A port name the Service does not have reaches nothing.
        expect(fronts([f.service(), named])).to.deep.equal([]);
    });

    it("classes an Ingress by spec.ingressClassName, then the deprecated kubernetes.io/ingress.class annotation, then the default IngressClass", () => {
        const legacy = f.ingress({ "kubernetes.io/ingress.class": "alb" }, null);
        expect(fronts([f.service(), legacy])).to.have.length(1);
        expect(fronts([f.service(), f.ingress({ "kubernetes.io/ingress.class": "nginx" }, null)])).to.deep.equal([]);
        // Neither, and no default class in the input: not the controller's.
        expect(fronts([f.service(), f.ingress({}, null)])).to.deep.equal([]);
        // spec.ingressClassName wins over the annotation.
        expect(fronts([f.service(), f.ingress({ "kubernetes.io/ingress.class": "nginx" }, "alb")])).to.have.length(1);
    });

    it("reads IngressClasses of networking.k8s.io only, the default by its annotation, and IngressClassParams (not a TargetGroupBinding) by the kind the class names", () => {
        const cls = (name: string, extra: Record<string, unknown> = {}, group = "networking.k8s.io/v1"): TestResource => ({
            type: `kubernetes:${group}:IngressClass`,
            name: `class-${name}`,
            props: { apiVersion: group, kind: "IngressClass", metadata: { name, ...extra }, spec: { controller: "ingress.k8s.aws/alb" } },
        });
        const unnamed = f.ingress({}, null);
        // Not marked default: an Ingress naming no class is nobody's.
        expect(fronts([f.service(), unnamed, cls("public")])).to.deep.equal([]);
        expect(
            fronts([f.service(), unnamed, cls("public", { annotations: { "ingressclass.kubernetes.io/is-default-class": "false" } })]),
        ).to.deep.equal([]);
        expect(
            fronts([f.service(), unnamed, cls("public", { annotations: { "ingressclass.kubernetes.io/is-default-class": "true" } })]),
        ).to.have.length(1);
        // A custom resource of kind IngressClass in another group defines no class: "alb" stays the platform's.
        const other = changed(cls("alb", {}, "example.com/v1"), "spec.controller", "example.com/other");
        expect(fronts([f.service(), f.ingress({}), other])).to.have.length(1);
        // The class's parameters: IngressClassParams of elbv2.k8s.aws only.
        const params = (kind: string, group = "elbv2.k8s.aws"): TestResource => ({
            type: `kubernetes:${group}/v1beta1:${kind}`,
            name: `${kind}-ip`,
            props: { apiVersion: `${group}/v1beta1`, kind, metadata: { name: "ip" }, spec: { targetType: "ip" } },
        });
        const withParams = (kind: string) => changed(cls("alb"), "spec.parameters", { apiGroup: "elbv2.k8s.aws", kind, name: "ip" });
        const target = (...extra: TestResource[]) => fronts([f.service(), f.ingress({}), ...extra])[0].targetType;
        expect(target(withParams("IngressClassParams"), params("IngressClassParams"))).to.deep.equal({
            value: "ip",
            from: "IngressClassParams ip spec.targetType",
        });
        expect(target(withParams("IngressClassParams"), params("TargetGroupBinding")).value).to.equal("instance");
        expect(target(withParams("IngressClassParams"), params("IngressClassParams", "example.com")).value).to.equal("instance");
        expect(target(withParams("Other"), params("IngressClassParams")).value).to.equal("instance");
        expect(target()).to.deep.equal({ value: "instance", from: "the controller's default (no target-type annotation)" });
    });

    it("reads Ingresses of networking.k8s.io only (Knative's internal Ingress kind is not one)", () => {
        const knative = { ...f.ingress({}), type: "kubernetes:networking.internal.knative.dev/v1alpha1:Ingress" };
        knative.props = { ...knative.props, apiVersion: "networking.internal.knative.dev/v1alpha1" };
        expect(fronts([f.service(), knative])).to.deep.equal([]);
    });

    it("leaves IngressClasses, IngressClassParams and Ingresses unknown at preview undecided, by name", () => {
        const verdicts = new Verdicts();
        const unknown = (r: TestResource) => ({
            ...r,
            urn: urnOf(r),
            props: unknownCheckingProxy({ ...r.props, metadata: UNKNOWN.object }),
        });
        const classParams: TestResource = {
            type: "kubernetes:elbv2.k8s.aws/v1beta1:IngressClassParams",
            name: "p",
            props: { apiVersion: "elbv2.k8s.aws/v1beta1", kind: "IngressClassParams", spec: { targetType: "ip" } },
        };
        const klass: TestResource = {
            type: "kubernetes:networking.k8s.io/v1:IngressClass",
            name: "c",
            props: { apiVersion: "networking.k8s.io/v1", kind: "IngressClass" },
        };
        const stack = [unknown(klass), unknown(classParams), unknown(f.ingress({}))];
        readLoadBalancerFronts(stack, [], verdicts);
        expect(verdicts.undecidedSubjects).to.deep.equal(["IngressClass c", "IngressClassParams p", "Ingress prod-api-ing"]);
    });

    it("merges the Service's ALB annotations over the Ingress's key by key (MergeStringMap), the Service's whole value winning", () => {
        const a = LOAD_BALANCER_CONTROLLER_API.ingressAnnotationPrefix;
        const svc = changed(f.service(), "metadata.annotations", { [`${a}healthcheck-interval-seconds`]: "5" });
        const ing = f.ingress({
            [`${a}target-type`]: "ip",
            [`${a}healthcheck-interval-seconds`]: "30",
            [`${a}unhealthy-threshold-count`]: "4",
        });
        const [front] = fronts([svc, ing]);
        expect(front.targetType).to.deep.equal({ value: "ip", from: `annotation ${a}target-type: ip on Ingress api` });
        expect(front.attributesAnnotation).to.equal(`${a}target-group-attributes`);
        expect(fronts([lbService({})])[0].attributesAnnotation).to.equal(
            "service.beta.kubernetes.io/aws-load-balancer-target-group-attributes",
        );
        expect(front.healthCheck.value).to.deep.equal({ intervalSeconds: 5, unhealthyThreshold: 4 });
        expect(front.healthCheck)
            .to.have.property("from")
            .that.matches(/healthcheck-interval-seconds and .*unhealthy-threshold-count/);
        // ALB defaults: 15 s x 2.
        expect(fronts([f.service(), f.ingress({})])[0].healthCheck.value).to.deep.equal({ intervalSeconds: 15, unhealthyThreshold: 2 });
        expect(fronts([f.service(), f.ingress({ [`${a}target-type`]: "bogus" })])[0].targetType.value).to.equal("instance");
    });

    it("times each front's stop of routing: ALB ip 15 s, NLB ip 120 s, Local instance targets by health checks, Cluster instance targets not at all", () => {
        const times = REQUEST_PATH_TIMING;
        const p = LOAD_BALANCER_CONTROLLER_API.serviceAnnotationPrefix;
        expect(stopRouting(fronts([f.service(), f.ingress(f.ALB_IP_ANNOTATIONS)])[0], times)?.seconds).to.equal(15);
        expect(stopRouting(fronts([lbService({ [`${p}nlb-target-type`]: "ip" })])[0], times)?.seconds).to.equal(120);
        expect(stopRouting(fronts([lbService({})])[0], times)).to.equal(undefined);
        expect(stopRouting(fronts([lbService({}, { externalTrafficPolicy: "Local" })])[0], times)?.seconds).to.equal(30);
        expect(
            stopRouting(fronts([lbService({}, { externalTrafficPolicy: "Local" })])[0], {
                albIpStopRoutingSeconds: 1,
                nlbIpStopRoutingSeconds: 2,
            })?.seconds,
        ).to.equal(30);
        // The ALB's Local instance targets: 15 s x 2.
        const alb = changed(changed(f.service(), "spec.type", "NodePort"), "spec.externalTrafficPolicy", "Local");
        expect(stopRouting(fronts([alb, f.ingress({})])[0], times)?.seconds).to.equal(30);
        // Knobs replace the defaults.
        expect(
            stopRouting(fronts([f.service(), f.ingress(f.ALB_IP_ANNOTATIONS)])[0], {
                albIpStopRoutingSeconds: 7,
                nlbIpStopRoutingSeconds: 9,
            })?.seconds,
        ).to.equal(7);
    });

    it("orders a pod's exit and finds each gap at its edges: preStop equal to the routing time, delay equal to the grace period, window equal to the routing time", () => {
        const [front] = fronts([f.service(), f.ingress(f.ALB_IP_ANNOTATIONS)]);
        const stop = stopRouting(front, REQUEST_PATH_TIMING);
        const exit = (preStopSeconds: number, graceSeconds: number, window?: number) =>
            podExit({
                front,
                stop,
                preStopSeconds,
                graceSeconds,
                window: window === undefined ? undefined : { seconds: window, source: "w" },
            });
        expect(exit(15, 30).gaps).to.deep.equal([]);
        expect(exit(14, 30).gaps.map((g) => [g.kind, g.from, g.to])).to.deep.equal([["preStop", 14, 15]]);
        expect(exit(15, 29).gaps.map((g) => [g.kind, g.from, g.to])).to.deep.equal([["deregistrationDelay", 29, 30]]);
        expect(exit(15, 30, 16).gaps).to.deep.equal([]);
        expect(exit(15, 30, 15).gaps.map((g) => g.kind)).to.deep.equal(["window"]);
        expect(exit(20, 60, 120).phases.map((x) => x.at)).to.deep.equal([0, 15, 20, 30, 60, 120]);
        // In time order whatever the order of the steps: SIGTERM before routing stops, the node before SIGKILL.
        expect(exit(5, 60, 40).phases.map((x) => x.at)).to.deep.equal([0, 5, 15, 30, 40, 60]);
        expect(exit(5, 60).phases[1].what).to.equal("preStop ends: SIGTERM, the app stops accepting and finishes its requests");
        expect(exit(0, 60).phases.find((x) => x.at === 0 && /SIGTERM at once/.test(x.what))).to.not.equal(undefined);
        expect(exit(14, 30).gaps[0].why).to.equal("new requests reach an app that has stopped accepting");
        expect(exit(15, 29).gaps[0].why).to.equal("the pod is killed while its target still holds connections");
        expect(exit(15, 30, 15).gaps[0].why).to.equal("the node is gone while the load balancer still routes to the pod");
        // A delay ELB refuses is neither a phase nor a gap (the policy reports the annotation).
        const [refused] = fronts([
            f.service(),
            f.ingress({
                ...f.ALB_IP_ANNOTATIONS,
                "alb.ingress.kubernetes.io/target-group-attributes": "deregistration_delay.timeout_seconds=4000",
            }),
        ]);
        const refusedExit = podExit({ front: refused, stop, preStopSeconds: 15, graceSeconds: 60 });
        expect(refusedExit.phases.map((x) => x.at)).to.deep.equal([0, 15, 15, 60]);
        expect(refusedExit.gaps).to.deep.equal([]);
        // Instance targets with Cluster: no routing phase, no delay phase, no gap.
        const [cluster] = fronts([lbService({})]);
        const plain = podExit({ front: cluster, stop: stopRouting(cluster, REQUEST_PATH_TIMING), preStopSeconds: 0, graceSeconds: 10 });
        expect(plain.phases.map((x) => x.at)).to.deep.equal([0, 0, 10]);
        expect(plain.gaps).to.deep.equal([]);
        expect(plain.phases[0].what).to.match(/kube-proxy stops forwarding to it within seconds/);
    });

    it("keeps a native sidecar serving until the regular containers' preStop has ended, not a plain init container's, with their run-time sleeps", () => {
        const spec = {
            initContainers: [
                { name: "setup", lifecycle: { preStop: { sleep: { seconds: 100 } } } },
                { name: "proxy", restartPolicy: "Always", lifecycle: { preStop: { sleep: { seconds: 2 } } } },
            ],
            containers: [{ name: "app", lifecycle: { preStop: { exec: { command: ["sh", "-c", "sleep 20; sleep $EXTRA"] } } } }],
        };
        const [, proxy, app] = containersOf(spec);
        expect(servesFor(spec, proxy)).to.deep.equal({ seconds: 20, unreadable: [], runtime: ["$EXTRA"] });
        expect(servesFor(spec, app).seconds).to.equal(20);
    });
});
