/**
 * workload-request-path: each scenario is a pod behind one load balancer of the AWS Load Balancer
 * Controller (v2.13.3), with the numbers worked out by hand from the controller's rules and ELB's
 * timing (evaluation/requestPath.ts names the sources).
 */
import { expect } from "chai";
import { workloadRequestPath } from "eks-platform-policies";
import { expectClean, expectUndecided, expectViolations } from "./expect";
import * as f from "./fixtures";
import { ALB_IP_ANNOTATIONS, deployment, gatedNamespace, ingress, namespace, nodePool, service } from "./fixtures";
import { changed, runStack, TestResource, UNKNOWN, urnOf } from "./harness";

const ATTRS = "alb.ingress.kubernetes.io/target-group-attributes";
const NLB_ATTRS = "service.beta.kubernetes.io/aws-load-balancer-target-group-attributes";
const PRESTOP = "spec.template.spec.containers.0.lifecycle";
const GRACE = "spec.template.spec.terminationGracePeriodSeconds";

/** Service api as an NLB of the controller (`type: LoadBalancer`, the webhook sets its class). */
function nlbService(annotations: Record<string, string>, spec: Record<string, unknown> = {}): TestResource {
    const svc = service();
    return {
        ...svc,
        props: {
            ...svc.props,
            metadata: { name: "api", namespace: "prod", annotations },
            spec: { ...(svc.props.spec as object), type: "LoadBalancer", ...spec },
        },
    };
}

function withPreStop(d: TestResource, seconds: number): TestResource {
    return changed(d, PRESTOP, { preStop: { sleep: { seconds } } });
}

/** A Spot NodePool the pods may land on (no taint, no requirement they fail). */
function spotPool(): TestResource {
    return changed(nodePool("spot"), "spec.template.spec.requirements", [
        { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] },
    ]);
}

const ALB_IP = ALB_IP_ANNOTATIONS;
const NLB_IP = {
    "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "ip",
    [NLB_ATTRS]: "deregistration_delay.timeout_seconds=30",
};

describe("policy workload-request-path (stack)", () => {
    it("is mandatory by default, so prod refuses what drops requests", () => {
        expect(workloadRequestPath.enforcementLevel).to.equal("mandatory");
    });

    it("fails an ALB ip target whose preStop (5 s) is shorter than the 15 s the controller and ALB keep routing to a deleted pod, and passes it at 15 s", async () => {
        const short = withPreStop(deployment(), 5);
        const outcome = await runStack(workloadRequestPath, [short, service(), ingress(ALB_IP), gatedNamespace()]);
        expectViolations(
            outcome,
            /^Deployment prod\/api container "app" gets SIGTERM 5 s after its pod is deleted \(its preStop sleep\), but the ALB of Ingress api \(Service api\) keeps sending it new requests for 15 s\. Why: .*ALB stops sending new requests to it up to 15 s.*Fix: make the preStop sleep at least 15 s \(lifecycle\.preStop\.sleep\.seconds: 15/s,
        );
        expect(outcome.violations[0].urn).to.equal(urnOf(short));
        expect(outcome.violations[0].message).to.match(/At: spec\.template\.spec\.containers\[0\]\.lifecycle\.preStop\.$/);
        expectClean(await runStack(workloadRequestPath, [withPreStop(deployment(), 15), service(), ingress(ALB_IP), gatedNamespace()]));
    });

    it("fails a 45 s grace period behind an ALB ip target group left at ELB's default 300 s deregistration delay, and passes it with the delay set to 30 s", async () => {
        const d = changed(withPreStop(deployment(), 15), GRACE, 45);
        const bare = { "alb.ingress.kubernetes.io/target-type": "ip" };
        expectViolations(
            await runStack(workloadRequestPath, [d, service(), ingress(bare), gatedNamespace()]),
            /^Deployment prod\/api has a termination grace period of 45 s, shorter than the 300 s deregistration delay of the ALB of Ingress api \(Service api\) \(the ELB default .*Fix: set deregistration_delay\.timeout_seconds to at most 45 in alb\.ingress\.kubernetes\.io\/target-group-attributes .*or raise spec\.template\.spec\.terminationGracePeriodSeconds to at least 300/s,
        );
        expectClean(
            await runStack(workloadRequestPath, [
                d,
                service(),
                ingress({ ...bare, [ATTRS]: "deregistration_delay.timeout_seconds=30" }),
                gatedNamespace(),
            ]),
        );
        // 45 = 45 passes: the target has drained when the pod is killed.
        expectClean(
            await runStack(workloadRequestPath, [
                d,
                service(),
                ingress({ ...bare, [ATTRS]: "deregistration_delay.timeout_seconds=45" }),
                gatedNamespace(),
            ]),
        );
    });

    it("takes the backend Service's target-group-attributes over the Ingress's as a whole value, as the controller merges them (MergeStringMap(svc, ing))", async () => {
        const d = withPreStop(deployment(), 15);
        const svc = changed(service(), "metadata.annotations", { [ATTRS]: "stickiness.enabled=true" });
        expectViolations(
            await runStack(workloadRequestPath, [d, svc, ingress(ALB_IP), gatedNamespace()]),
            /shorter than the 300 s deregistration delay .*\(the ELB default \(annotation alb\.ingress\.kubernetes\.io\/target-group-attributes on Service api does not set deregistration_delay\.timeout_seconds\)\)/,
        );
        // And the Service's target type wins over the Ingress's: instance targets are not the pod.
        const instance = changed(service(), "metadata.annotations", { "alb.ingress.kubernetes.io/target-type": "instance" });
        expectClean(await runStack(workloadRequestPath, [withPreStop(deployment(), 5), instance, ingress(ALB_IP)]));
    });

    it("fails an NLB ip target on a Spot NodePool: the NLB routes to a deregistered target for about 120 s, the Spot notice is 120 s", async () => {
        const d = changed(withPreStop(deployment(), 125), GRACE, 150);
        const outcome = await runStack(workloadRequestPath, [d, nlbService(NLB_IP), gatedNamespace(), spotPool()]);
        expectViolations(
            outcome,
            /^Deployment prod\/api is sent requests by the NLB of Service api, which keeps routing to a deleted pod for 120 s, but its pods may run on nodes of NodePool spot \(Spot\) with a 2m drain window\. Why: an NLB keeps opening new connections .*Fix: keep these pods off such nodes \(e\.g\. nodeSelector karpenter\.sh\/capacity-type: on-demand\), or put them behind an ALB/s,
        );
        // Pinned to on-demand, the Spot window no longer applies.
        const pinned = changed(d, "spec.template.spec.nodeSelector", { "karpenter.sh/capacity-type": "on-demand" });
        expectClean(await runStack(workloadRequestPath, [pinned, nlbService(NLB_IP), gatedNamespace(), spotPool()]));
        // The preStop still has to cover the NLB's 120 s.
        expectViolations(
            await runStack(workloadRequestPath, [withPreStop(pinned, 15), nlbService(NLB_IP), gatedNamespace(), spotPool()]),
            /container "app" gets SIGTERM 15 s after its pod is deleted .* keeps sending it new requests for 120 s/,
        );
    });

    it("reads the NLB target type as the controller does: aws-load-balancer-type nlb-ip is ip, no annotation is instance", async () => {
        const d = withPreStop(deployment(), 15);
        expectViolations(
            await runStack(workloadRequestPath, [
                d,
                nlbService({
                    "service.beta.kubernetes.io/aws-load-balancer-type": "nlb-ip",
                    [NLB_ATTRS]: "deregistration_delay.timeout_seconds=30",
                }),
                gatedNamespace(),
                nodePool(),
            ]),
            /keeps sending it new requests for 120 s/,
        );
        // Instance targets with externalTrafficPolicy Cluster: kube-proxy's, not the NLB's (no false alarm at 5 s).
        expectClean(await runStack(workloadRequestPath, [withPreStop(deployment(), 5), nlbService({})]));
        // Another class is not this controller's.
        expect(
            (await runStack(workloadRequestPath, [d, nlbService(NLB_IP, { loadBalancerClass: "example.com/lb" })])).notApplicable,
        ).to.match(/nothing was checked/);
    });

    it("leaves the request path through EKS Auto Mode's load balancing undecided, by Ingress and Service: AWS publishes neither its source nor its times", async () => {
        const autoClass: TestResource = {
            type: "kubernetes:networking.k8s.io/v1:IngressClass",
            name: "auto-alb",
            props: {
                apiVersion: "networking.k8s.io/v1",
                kind: "IngressClass",
                metadata: { name: "alb" },
                spec: { controller: "eks.amazonaws.com/alb" },
            },
        };
        const d = withPreStop(deployment(), 15);
        const nlb = changed(service(), "spec.type", "LoadBalancer");
        const autoNlb = changed(nlb, "spec.loadBalancerClass", "eks.amazonaws.com/nlb");
        expectUndecided(
            await runStack(workloadRequestPath, [d, service(), ingress(ALB_IP), gatedNamespace(), autoClass]),
            /^Undecided: Ingress prod\/api is served by EKS Auto Mode's load balancing \(eks\.amazonaws\.com\/alb\), whose request path this policy does not model\./,
        );
        expectUndecided(
            await runStack(workloadRequestPath, [d, autoNlb, gatedNamespace()]),
            /^Undecided: Service prod\/api is served by EKS Auto Mode's load balancing \(eks\.amazonaws\.com\/nlb\)/,
        );
        // Only an IngressClass names the controller, only an Ingress and a Service are fronts; a namespaceless Ingress is in default.
        const lookalike = (type: string, spec: Record<string, unknown>): TestResource => ({
            type,
            name: `like-${type.split(":").pop()}`,
            props: { metadata: { name: "alb", namespace: "prod" }, spec },
        });
        const bareIngress = changed(ingress(ALB_IP), "metadata.namespace", undefined);
        expectUndecided(
            await runStack(workloadRequestPath, [
                d,
                service(),
                bareIngress,
                gatedNamespace(),
                autoClass,
                lookalike("kubernetes:example.com/v1:Gateway", { controller: "eks.amazonaws.com/alb", ingressClassName: "alb" }),
                lookalike("kubernetes:example.com/v1:Balancer", { loadBalancerClass: "eks.amazonaws.com/nlb" }),
            ]),
            /^Undecided: Ingress default\/api is served by EKS Auto Mode's load balancing/,
        );
        const notAClass = await runStack(workloadRequestPath, [
            d,
            service(),
            ingress(ALB_IP),
            gatedNamespace(),
            {
                ...autoClass,
                type: "kubernetes:example.com/v1:IngressClassLike",
                props: { ...autoClass.props, apiVersion: "example.com/v1", kind: "IngressClassLike" },
            },
        ]);
        expect(notAClass.undecided.map((u) => u.message).filter((m) => m.includes("EKS Auto Mode"))).to.deep.equal([]);
        // The class is found as the controller finds it: the cluster's default class, or the deprecated annotation.
        const defaultClass = changed(autoClass, "metadata.annotations", { "ingressclass.kubernetes.io/is-default-class": "true" });
        expectUndecided(
            await runStack(workloadRequestPath, [d, service(), ingress(ALB_IP, null), gatedNamespace(), defaultClass]),
            /^Undecided: Ingress prod\/api is served by EKS Auto Mode's load balancing/,
        );
        expectUndecided(
            await runStack(workloadRequestPath, [
                d,
                service(),
                ingress({ ...ALB_IP, "kubernetes.io/ingress.class": "alb" }, null),
                gatedNamespace(),
                autoClass,
            ]),
            /^Undecided: Ingress prod\/api is served by EKS Auto Mode's load balancing/,
        );
        // On a cluster that runs Auto Mode, a load balancer Service that names no class gets Auto Mode's (its default).
        const cluster = (enabled: boolean): TestResource => ({
            type: "aws:eks/cluster:Cluster",
            name: "cluster",
            props: { name: "c", computeConfig: { enabled, nodePools: ["system"] } },
        });
        expectUndecided(
            await runStack(workloadRequestPath, [d, nlb, gatedNamespace(), cluster(true)]),
            /^Undecided: Service prod\/api is served by EKS Auto Mode's load balancing \(eks\.amazonaws\.com\/nlb, the cluster's default class\)/,
        );
        const standard = await runStack(workloadRequestPath, [d, nlb, gatedNamespace(), cluster(false)]);
        expect(standard.undecided.map((u) => u.message).filter((m) => m.includes("EKS Auto Mode"))).to.deep.equal([]);
        expect(standard.notApplicable ?? "").to.not.match(/no load balancer of the AWS Load Balancer Controller/);
        // A Service of Auto Mode's class that is not a load balancer is no front.
        const clusterIp = await runStack(workloadRequestPath, [d, changed(service(), "spec.loadBalancerClass", "eks.amazonaws.com/nlb")]);
        expect(clusterIp.undecided.map((u) => u.message).filter((m) => m.includes("EKS Auto Mode"))).to.deep.equal([]);
        // The AWS Load Balancer Controller's class stays judged as before: clean here.
        expectClean(await runStack(workloadRequestPath, [d, service(), ingress(ALB_IP), gatedNamespace()]));
    });

    it("fails an ip target in a namespace without readiness gates, and passes it with the label", async () => {
        const d = withPreStop(deployment(), 15);
        expectViolations(
            await runStack(workloadRequestPath, [d, service(), ingress(ALB_IP), namespace()]),
            /^Deployment prod\/api is an ip target of the ALB of Ingress api \(Service api\), but namespace prod does not carry the label elbv2\.k8s\.aws\/pod-readiness-gate-inject: enabled\. Why: .*no healthy target.*Fix: label namespace prod/s,
        );
        expectClean(await runStack(workloadRequestPath, [d, service(), ingress(ALB_IP), gatedNamespace()]));
        // Not in the input: undecided, never a pass and never a failure.
        expectUndecided(
            await runStack(workloadRequestPath, [d, service(), ingress(ALB_IP)]),
            /^Undecided: namespace prod holds ip targets .* not in the input/,
        );
    });

    it("reads the readiness-gate label's value, not its presence: `disabled` (or any value but `enabled`) fails as no label does", async () => {
        // The controller injects the gate only into namespaces labelled `…/pod-readiness-gate-inject: enabled`
        // (aws-load-balancer-controller docs/deploy/pod_readiness_gate.md; its webhook's namespaceSelector, operator In [enabled]).
        const d = withPreStop(deployment(), 15);
        const labelled = (value: string) =>
            changed(gatedNamespace(), "metadata.labels", {
                ...(gatedNamespace().props.metadata as { labels: Record<string, string> }).labels,
                "elbv2.k8s.aws/pod-readiness-gate-inject": value,
            });
        for (const value of ["disabled", "Enabled", "true", ""]) {
            const outcome = await runStack(workloadRequestPath, [d, service(), ingress(ALB_IP), labelled(value)]);
            expect(
                outcome.violations.map((v) => v.message).filter((m) => m.includes("does not carry the label")),
                `rule: the readiness gate is on only with the value enabled (${JSON.stringify(value)})`,
            ).to.have.length(1);
        }
        expectClean(await runStack(workloadRequestPath, [d, service(), ingress(ALB_IP), labelled("enabled")]));
    });

    it("times instance targets with externalTrafficPolicy Local by the node health check: interval x unhealthy threshold (NLB defaults 10 s x 3)", async () => {
        const local = { externalTrafficPolicy: "Local" };
        expectViolations(
            await runStack(workloadRequestPath, [withPreStop(deployment(), 15), nlbService({}, local)]),
            /gets SIGTERM 15 s after .* keeps sending it new requests for 30 s\. Why: with externalTrafficPolicy: Local the NLB sends to the pod's node until the node fails 3 health checks 10 s apart \(the controller's NLB defaults\)/s,
        );
        const faster = {
            "service.beta.kubernetes.io/aws-load-balancer-healthcheck-interval": "5",
            "service.beta.kubernetes.io/aws-load-balancer-healthcheck-unhealthy-threshold": "2",
        };
        expectClean(await runStack(workloadRequestPath, [withPreStop(deployment(), 10), nlbService(faster, local)]));
        expectViolations(
            await runStack(workloadRequestPath, [withPreStop(deployment(), 9), nlbService(faster, local)]),
            /new requests for 10 s/,
        );
    });

    it("judges a native sidecar that serves the port by the kubelet's stop order: it serves until the regular containers' preStop has ended", async () => {
        const I = "spec.template.spec.initContainers.0";
        let d = changed(withPreStop(deployment(), 20), `${I}.restartPolicy`, "Always");
        d = changed(d, `${I}.ports`, [{ name: "http", containerPort: 8080 }]);
        const svc = changed(service(), "spec.ports", [{ port: 80, targetPort: "http" }]);
        expectClean(await runStack(workloadRequestPath, [d, svc, ingress(ALB_IP), gatedNamespace()]));
        expectViolations(
            await runStack(workloadRequestPath, [withPreStop(d, 5), svc, ingress(ALB_IP), gatedNamespace()]),
            /sidecar container "migrate" gets SIGTERM 5 s after/,
        );
    });

    it("says it checked nothing when its load balancers send to no workload of the input", async () => {
        const elsewhere = changed(service(), "spec.selector", { app: "web" });
        expect(
            (await runStack(workloadRequestPath, [withPreStop(deployment(), 1), elsewhere, ingress(ALB_IP), gatedNamespace()]))
                .notApplicable,
        ).to.match(
            /no long-running workload .* is selected by a Service a load balancer of the AWS Load Balancer Controller sends to: nothing was checked/,
        );
    });

    it("does not judge ClusterIP-only Services or Ingresses of another class", async () => {
        const d = withPreStop(deployment(), 1);
        expect((await runStack(workloadRequestPath, [d, service()])).notApplicable).to.match(
            /no load balancer of the AWS Load Balancer Controller/,
        );
        expect((await runStack(workloadRequestPath, [d, service(), ingress(ALB_IP, "nginx")])).notApplicable).to.match(
            /nothing was checked/,
        );
    });

    it("resolves the class as the API server and controller do: an IngressClass naming ingress.k8s.aws/alb, the default class, IngressClassParams targetType over annotations", async () => {
        const d = withPreStop(deployment(), 5);
        const cls = (name: string, controller: string, extra: Record<string, unknown> = {}): TestResource => ({
            type: "kubernetes:networking.k8s.io/v1:IngressClass",
            name: `class-${name}`,
            props: {
                apiVersion: "networking.k8s.io/v1",
                kind: "IngressClass",
                metadata: { name, ...extra },
                spec: { controller, parameters: { apiGroup: "elbv2.k8s.aws", kind: "IngressClassParams", name: "ip-params" } },
            },
        });
        const params: TestResource = {
            type: "kubernetes:elbv2.k8s.aws/v1beta1:IngressClassParams",
            name: "ip-params",
            props: {
                apiVersion: "elbv2.k8s.aws/v1beta1",
                kind: "IngressClassParams",
                metadata: { name: "ip-params" },
                spec: { targetType: "ip" },
            },
        };
        const instanceAnnotated = {
            "alb.ingress.kubernetes.io/target-type": "instance",
            [ATTRS]: "deregistration_delay.timeout_seconds=30",
        };
        // A class named "public" whose controller is the LB controller, its params making ip targets.
        expectViolations(
            await runStack(workloadRequestPath, [
                d,
                service(),
                ingress(instanceAnnotated, "public"),
                cls("public", "ingress.k8s.aws/alb"),
                params,
                gatedNamespace(),
            ]),
            /keeps sending it new requests for 15 s/,
        );
        // The default class, for an Ingress that names none.
        const dflt = cls("public", "ingress.k8s.aws/alb", { annotations: { "ingressclass.kubernetes.io/is-default-class": "true" } });
        expectViolations(
            await runStack(workloadRequestPath, [d, service(), ingress(instanceAnnotated, null), dflt, params, gatedNamespace()]),
            /for 15 s/,
        );
        // A class "alb" defined with another controller is not this controller's.
        expect(
            (await runStack(workloadRequestPath, [d, service(), ingress(ALB_IP), cls("alb", "k8s.io/ingress-nginx")])).notApplicable,
        ).to.match(/nothing was checked/);
    });

    it("reports a deregistration delay ELB refuses on the load balancer's object", async () => {
        const ing = ingress({ "alb.ingress.kubernetes.io/target-type": "ip", [ATTRS]: "deregistration_delay.timeout_seconds=4000" });
        const outcome = await runStack(workloadRequestPath, [withPreStop(deployment(), 15), service(), ing, gatedNamespace()]);
        expectViolations(outcome, /ELB refuses deregistration_delay\.timeout_seconds=4000 \(an integer from 0 to 3600\)/);
        expect(outcome.violations[0].urn).to.equal(urnOf(ing));
        expectViolations(
            await runStack(workloadRequestPath, [
                withPreStop(deployment(), 15),
                service(),
                ingress({ "alb.ingress.kubernetes.io/target-type": "ip", [ATTRS]: "deregistration_delay.timeout_seconds" }),
                gatedNamespace(),
            ]),
            /the controller cannot parse it \("deregistration_delay\.timeout_seconds" is not a key=value pair\)/,
        );
    });

    it("leaves a preStop sleep known only at run time undecided", async () => {
        const d = changed(deployment(), PRESTOP, { preStop: { exec: { command: ["sh", "-c", "sleep $DRAIN"] } } });
        expectUndecided(
            await runStack(workloadRequestPath, [d, service(), ingress(ALB_IP), gatedNamespace()]),
            /container "app" sleeps \$DRAIN in its preStop hook, a length only known at run time/,
        );
    });

    it("decides known workloads when an Ingress is unknown at preview, and reports it undecided", async () => {
        const unknownIngress = { ...changed(ingress(ALB_IP), "spec.rules", UNKNOWN.array), name: "prod-other-ing" };
        const outcome = await runStack(workloadRequestPath, [
            withPreStop(deployment(), 5),
            service(),
            ingress(ALB_IP),
            unknownIngress,
            gatedNamespace(),
        ]);
        expect(outcome.violations.map((v) => v.message)).to.have.length(1);
        expect(outcome.violations[0].message).to.match(/gets SIGTERM 5 s after/);
        expect(outcome.cantRun).to.match(/undecided until the values are known: Ingress prod-other-ing/);
    });
    describe("rules pinned one by one", () => {
        const ing = () => ingress(ALB_IP);
        it("judges a workload only against the load balancers of the Services that select it", async () => {
            // "other" has a 1 s preStop but only a ClusterIP Service; api is fine behind its ALB.
            const other = changed(
                changed(deployment("other"), PRESTOP, { preStop: { sleep: { seconds: 1 } } }),
                "spec.template.metadata.labels",
                { app: "other" },
            );
            expectClean(
                await runStack(workloadRequestPath, [
                    withPreStop(deployment(), 15),
                    service(),
                    ing(),
                    other,
                    service("other", "prod", { app: "other" }),
                    gatedNamespace(),
                ]),
            );
        });

        it("takes an unset grace period as Kubernetes' 30 s, and leaves one that is not a number to workload-termination-grace", async () => {
            const d = changed(withPreStop(deployment(), 15), GRACE, undefined);
            const delay45 = ingress({ ...ALB_IP, [ATTRS]: "deregistration_delay.timeout_seconds=45" });
            expectViolations(
                await runStack(workloadRequestPath, [d, service(), delay45, gatedNamespace()]),
                /has a termination grace period of 30 s, shorter than the 45 s deregistration delay/,
            );
            expectClean(
                await runStack(workloadRequestPath, [
                    d,
                    service(),
                    ingress({ ...ALB_IP, [ATTRS]: "deregistration_delay.timeout_seconds=30" }),
                    gatedNamespace(),
                ]),
            );
            expectClean(await runStack(workloadRequestPath, [changed(d, GRACE, "sixty"), service(), delay45, gatedNamespace()]));
            // null is unset too (the API server defaults it).
            expectViolations(
                await runStack(workloadRequestPath, [changed(d, GRACE, null), service(), delay45, gatedNamespace()]),
                /grace period of 30 s/,
            );
        });

        it("skips a load balancer port that reaches no container of the pod (a named target port no container declares)", async () => {
            const svc = changed(service(), "spec.ports", [
                { port: 80, targetPort: "web" },
                { port: 81, targetPort: 8080 },
            ]);
            const onWeb = changed(ingress(ALB_IP), "spec.rules.0.http.paths.0.backend.service.port", { number: 80 });
            // Port 81 reaches the app (and selects the workload); the ALB sends to port 80 only.
            expectClean(await runStack(workloadRequestPath, [withPreStop(deployment(), 1), svc, onWeb, namespace()]));
        });

        it("names the window only when the node goes before routing stops, not for another gap, and says how to fix each front", async () => {
            // A 1 h window and a delay gap: only the delay is reported.
            const d = changed(withPreStop(deployment(), 15), GRACE, 45);
            expectViolations(
                await runStack(workloadRequestPath, [
                    d,
                    service(),
                    ingress({ "alb.ingress.kubernetes.io/target-type": "ip" }),
                    gatedNamespace(),
                    nodePool(),
                ]),
                /deregistration delay/,
            );
            // An ALB ip target on a pool whose window (10 s) is shorter than the ALB's 15 s.
            const short = changed(nodePool("fast"), "spec.template.spec.terminationGracePeriod", "10s");
            const outcome = await runStack(workloadRequestPath, [withPreStop(deployment(), 15), service(), ing(), gatedNamespace(), short]);
            expectViolations(
                outcome,
                /with a 10s drain window\. Why: .*Fix: keep these pods off such nodes, or lengthen the nodes' window above 15 s\. At: spec\.template\.spec\.nodeSelector\.$/s,
            );
            // NLB instance targets with Local (30 s) on the same pool: not the NLB-ip advice either.
            const local = nlbService({}, { externalTrafficPolicy: "Local" });
            expectViolations(
                await runStack(workloadRequestPath, [withPreStop(deployment(), 30), local, short]),
                /NLB of Service api, which keeps routing to a deleted pod for 30 s.*Fix: keep these pods off such nodes, or lengthen the nodes' window above 30 s/s,
            );
        });

        it("reports a refused annotation by its key and object, and the delay's fix on the object that carries it", async () => {
            const bad = ingress({ ...ALB_IP, [ATTRS]: "deregistration_delay.timeout_seconds=x" });
            expectViolations(
                await runStack(workloadRequestPath, [withPreStop(deployment(), 15), service(), bad, gatedNamespace()]),
                /^the ALB of Ingress api \(Service api\) sets alb\.ingress\.kubernetes\.io\/target-group-attributes on Ingress api, which is refused: ELB refuses deregistration_delay\.timeout_seconds=x/,
            );
            const d = changed(withPreStop(deployment(), 125), GRACE, 150);
            const nlb300 = nlbService({ "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "ip" });
            expectViolations(
                await runStack(workloadRequestPath, [d, nlb300, gatedNamespace(), nodePool()]),
                /shorter than the 300 s deregistration delay of the NLB of Service api .*Fix: set deregistration_delay\.timeout_seconds to at most 150 in service\.beta\.kubernetes\.io\/aws-load-balancer-target-group-attributes \(on the Service\), or raise spec\.template\.spec\.terminationGracePeriodSeconds to at least 300\. At: spec\.template\.spec\.terminationGracePeriodSeconds\.$/s,
            );
            expectViolations(
                await runStack(workloadRequestPath, [
                    changed(d, GRACE, 45),
                    service(),
                    ingress({ "alb.ingress.kubernetes.io/target-type": "ip" }),
                    gatedNamespace(),
                ]),
                /in alb\.ingress\.kubernetes\.io\/target-group-attributes \(on the Ingress, or on the Service, whose value replaces the Ingress's whole annotation\)/,
            );
        });

        it("says so when a container has no preStop sleep at all, and leaves a sleep that cannot run as written to workload-termination-grace", async () => {
            expectViolations(
                await runStack(workloadRequestPath, [changed(deployment(), PRESTOP, undefined), service(), ing(), gatedNamespace()]),
                /gets SIGTERM 0 s after its pod is deleted \(no preStop sleep\)/,
            );
            const unreadable = changed(deployment(), PRESTOP, { preStop: { exec: { command: ["sleep", "5x"] } } });
            expectClean(await runStack(workloadRequestPath, [unreadable, service(), ing(), gatedNamespace()]));
            const twoVars = changed(deployment(), PRESTOP, { preStop: { exec: { command: ["sh", "-c", "sleep $A; sleep $B"] } } });
            expectUndecided(
                await runStack(workloadRequestPath, [twoVars, service(), ing(), gatedNamespace()]),
                /sleeps \$A \$B in its preStop hook.*Why: whether the pod keeps serving until the load balancer stops sending to it cannot be seen in the object\. To decide it: write the sleep as a literal duration of at least 15 s/s,
            );
        });

        it("leaves an NLB ip target's window undecided when the input holds none of the nodes (plain manifests), unless the pods are pinned to on-demand", async () => {
            const d = changed(withPreStop(deployment(), 125), GRACE, 150);
            expectUndecided(
                await runStack(workloadRequestPath, [d, nlbService(NLB_IP), gatedNamespace()]),
                /^Undecided: Deployment prod\/api is sent requests by the NLB of Service api, which keeps routing to a deleted pod for 120 s, and the input holds none of the nodes it runs on\. Why: on a Spot node \(a 120 s notice\).*To decide it: check with the platform's profile \(policy:check --platform\), or pin the pods to on-demand nodes .* At: spec\.template\.spec\.nodeSelector\.$/s,
            );
            // A managed group's on-demand label pins them too (EKS sets eks.amazonaws.com/capacityType: ON_DEMAND).
            const managed = changed(d, "spec.template.spec.nodeSelector", { "eks.amazonaws.com/capacityType": "ON_DEMAND" });
            expectClean(await runStack(workloadRequestPath, [managed, nlbService(NLB_IP), gatedNamespace()]));
            const spotGroup = changed(d, "spec.template.spec.nodeSelector", { "eks.amazonaws.com/capacityType": "SPOT" });
            expect((await runStack(workloadRequestPath, [spotGroup, nlbService(NLB_IP), gatedNamespace()])).undecided).to.have.length(1);
            const pinned = changed(d, "spec.template.spec.nodeSelector", { "karpenter.sh/capacity-type": "on-demand" });
            expectClean(await runStack(workloadRequestPath, [pinned, nlbService(NLB_IP), gatedNamespace()]));
            // An ALB's 15 s fits any window the platform allows: nothing to wait for.
            expectClean(await runStack(workloadRequestPath, [withPreStop(deployment(), 15), service(), ing(), gatedNamespace()]));
            // A stack's own AWS resources hold its node groups: no NodePool and no hook means no window.
            expectClean(await runStack(workloadRequestPath, [d, nlbService(NLB_IP), gatedNamespace(), f.vpc()]));
        });

        it("reports a namespace without readiness gates once per workload, whatever the number of its ip load balancers", async () => {
            const d = changed(withPreStop(deployment(), 125), GRACE, 150);
            const outcome = await runStack(workloadRequestPath, [d, service(), ing(), nlbService(NLB_IP), namespace(), nodePool()]);
            expect(outcome.violations.filter((v) => /does not carry the label/.test(v.message))).to.have.length(1);
        });

        it("waits for a Namespace unknown at preview instead of calling it absent", async () => {
            const unknownLabels = changed(gatedNamespace(), "metadata.labels", UNKNOWN.object);
            const outcome = await runStack(workloadRequestPath, [withPreStop(deployment(), 15), service(), ing(), unknownLabels]);
            expect(outcome.undecided).to.deep.equal([]);
            expect(outcome.cantRun).to.match(/Namespace prod; Deployment prod\/api \(labels of namespace prod\)/);
            // An unreadable namespace elsewhere does not hide a known one's missing label.
            const elsewhere = changed(namespace("other"), "metadata", UNKNOWN.object);
            const both = await runStack(workloadRequestPath, [withPreStop(deployment(), 15), service(), ing(), namespace(), elsewhere]);
            expect(both.violations.map((v) => v.message).join("\n")).to.match(/namespace prod does not carry the label/);
        });
    });
});
