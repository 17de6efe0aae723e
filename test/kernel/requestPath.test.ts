/**
 * The request-path model against the AWS Load Balancer Controller v2.13.3's rules, one rule per
 * test (kernel/requestPath.ts names each source): which objects make which load balancer, with
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
    Verdicts,
} from "eks-platform-kernel/policy";
import * as f from "../policies/fixtures";
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

    it("serves a LoadBalancer Service with no class (the mutator webhook sets the controller's) or the controller's class, and no other", () => {
        expect(fronts([lbService({})]).map((x) => [x.type, x.via, x.targetType.value])).to.deep.equal([["NLB", "Service api", "instance"]]);
        expect(fronts([lbService({}, { loadBalancerClass: LOAD_BALANCER_CONTROLLER_API.loadBalancerClass })])).to.have.length(1);
        expect(fronts([lbService({}, { loadBalancerClass: "service.k8s.aws/other" })])).to.deep.equal([]);
        expect(fronts([f.service()])).to.deep.equal([]);
        expect(fronts([changed(f.service(), "spec.type", "NodePort")])).to.deep.equal([]);
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
        expect(delay("deregistration_delay.timeout_seconds=3600").value).to.equal(3600);
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
        const set = fronts([lbService({ [`${p}healthcheck-interval`]: "5", [`${p}healthcheck-unhealthy-threshold`]: "x" })])[0].healthCheck;
        // A value that is not a whole number leaves the default.
        expect(set.value).to.deep.equal({ intervalSeconds: 5, unhealthyThreshold: 3 });
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
        expect(exit(0, 60).phases.find((x) => x.at === 0 && /SIGTERM at once/.test(x.what))).to.not.equal(undefined);
        // Instance targets with Cluster: no routing phase, no delay phase, no gap.
        const [cluster] = fronts([lbService({})]);
        const plain = podExit({ front: cluster, stop: stopRouting(cluster, REQUEST_PATH_TIMING), preStopSeconds: 0, graceSeconds: 10 });
        expect(plain.phases.map((x) => x.at)).to.deep.equal([0, 0, 10]);
        expect(plain.gaps).to.deep.equal([]);
    });
});
