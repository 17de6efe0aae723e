/**
 * The request paths in the rehearsal's report: one pod's exit behind each load balancer of the AWS
 * Load Balancer Controller, phase by phase, with the gaps where requests fail. Numbers worked out
 * by hand: ALB ip targets stop receiving new requests 15 s after the pod is deleted, NLB ip targets
 * 120 s (kernel/loadBalancers.ts names the sources), a target group's default deregistration delay
 * is 300 s, a Spot node is gone 120 s after its notice.
 */
import { expect } from "chai";
import { formatRehearsal, formatRehearsalMarkdown } from "eks-platform-rehearsal";
import * as f from "../policies/fixtures";
import { changed, TestResource } from "../policies/harness";
import { app, nodePool, run } from "./scenario";

const PRESTOP = "spec.template.spec.containers.0.lifecycle";
/** The scenario app (`app: web`) with a preStop sleep and Service web on port 80 → 8080. */
function served(preStop: number, grace = 60): TestResource[] {
    const web = changed(app("web", { grace }), PRESTOP, { preStop: { sleep: { seconds: preStop } } });
    return [web, changed(f.service("web", "prod", { app: "web" }), "metadata.name", "web")];
}
function webIngress(annotations: Record<string, string>): TestResource {
    return changed(changed(f.ingress(annotations), "spec.rules.0.http.paths.0.backend.service.name", "web"), "metadata.name", "web");
}

describe("rehearsal: request paths in the timeline", () => {
    it("shows an ALB ip target's exit in order, and no gap when the preStop (20 s) outlasts routing (15 s) and the grace period (60 s) the 30 s delay", () => {
        const r = run([nodePool("general"), ...served(20), webIngress(f.ALB_IP_ANNOTATIONS), f.gatedNamespace()]);
        expect(r.requestPaths).to.have.length(1);
        const p = r.requestPaths[0];
        expect(p.workload).to.equal("Deployment prod/web");
        expect(p.path).to.equal("ALB of Ingress web (Service web), ip targets");
        expect(p.phases.map((x) => x.at)).to.deep.equal([0, 15, 20, 30, 60]);
        expect(p.phases[1].what).to.match(/^the ALB sends it no more new requests/);
        expect(p.phases[3].what).to.match(/^deregistration delay ends/);
        expect(p.phases[4].what).to.match(/^grace period ends: SIGKILL/);
        expect(p.gaps).to.deep.equal([]);
        const text = formatRehearsal(r);
        expect(text).to.match(/Request paths \(one pod's exit, seconds after its deletion/);
        expect(text).to.match(
            /Deployment prod\/web, container "app" — ALB of Ingress web \(Service web\), ip targets:\n\s+0s {2}pod deleted/,
        );
        expect(text).to.match(/\n {2}OK: routing stops before the app does/);
        expect(formatRehearsalMarkdown(r)).to.match(
            /#### Deployment prod\/web, container `app`: ALB of Ingress web \(Service web\), ip targets\n\n\| at \| what \|/,
        );
    });

    it("names each gap: a 5 s preStop under an ALB's 15 s, a 45 s grace period under the default 300 s delay, a Spot node under an NLB's 120 s", () => {
        const alb = run([nodePool("general"), ...served(5, 45), webIngress({ "alb.ingress.kubernetes.io/target-type": "ip" })]);
        expect(alb.requestPaths[0].gaps.map((g) => [g.kind, g.from, g.to])).to.deep.equal([
            ["preStop", 5, 15],
            ["deregistrationDelay", 45, 300],
        ]);
        expect(formatRehearsal(alb)).to.match(
            /DROPS REQUESTS: 5s → 15s, new requests reach an app that has stopped accepting; 45s → 5m, the pod is killed while its target still holds connections/,
        );
        const nlbService = changed(changed(served(125, 150)[1], "spec.type", "LoadBalancer"), "metadata.annotations", {
            "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "ip",
            "service.beta.kubernetes.io/aws-load-balancer-target-group-attributes": "deregistration_delay.timeout_seconds=30",
        });
        const spot = nodePool("spot", {
            requirements: [
                { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] },
                { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.large"] },
            ],
        });
        const nlb = run([spot, served(125, 150)[0], nlbService]);
        expect(nlb.requestPaths[0].path).to.equal("NLB of Service web, ip targets");
        expect(nlb.requestPaths[0].gaps.map((g) => [g.kind, g.from, g.to])).to.deep.equal([["window", 120, 120]]);
        expect(
            nlb.requestPaths[0].phases.find((x) => x.at === 120 && /drain window ends \(NodePool spot \(Spot\)\)/.test(x.what)),
        ).to.not.equal(undefined);
    });

    it("shows instance targets with externalTrafficPolicy Cluster without a stop-routing phase (kube-proxy's), and no section without a load balancer", () => {
        const svc = changed(served(5)[1], "spec.type", "LoadBalancer");
        const r = run([nodePool("general"), served(5)[0], svc]);
        expect(r.requestPaths[0].path).to.equal("NLB of Service web, instance targets");
        expect(r.requestPaths[0].phases.map((x) => x.at)).to.deep.equal([0, 5, 60]);
        expect(r.requestPaths[0].gaps).to.deep.equal([]);
        const none = run([nodePool("general"), ...served(5)]);
        expect(none.requestPaths).to.deep.equal([]);
        expect(formatRehearsal(none)).to.not.match(/Request paths/);
    });
    it("shows the container that stops serving first, an unset grace period as 30 s, and nothing for a port that reaches no container", () => {
        let web = changed(app("web"), "spec.template.spec.terminationGracePeriodSeconds", undefined);
        web = changed(web, "spec.template.spec.containers", [
            {
                name: "slow",
                image: "registry.example.com/a:1",
                ports: [{ name: "http", containerPort: 8080 }],
                lifecycle: { preStop: { sleep: { seconds: 25 } } },
            },
            {
                name: "fast",
                image: "registry.example.com/b:1",
                ports: [{ name: "http2", containerPort: 8081 }],
                lifecycle: { preStop: { sleep: { seconds: 16 } } },
            },
        ]);
        const svc = changed(served(0)[1], "spec.ports", [
            { name: "a", port: 80, targetPort: "http" },
            { name: "b", port: 81, targetPort: "http2" },
        ]);
        const both = changed(webIngress(f.ALB_IP_ANNOTATIONS), "spec.rules.0.http.paths", [
            { path: "/a", pathType: "Prefix", backend: { service: { name: "web", port: { name: "a" } } } },
            { path: "/b", pathType: "Prefix", backend: { service: { name: "web", port: { name: "b" } } } },
        ]);
        const r = run([nodePool("general"), web, svc, both, f.gatedNamespace()]);
        expect(r.requestPaths.map((p) => [p.container, p.phases.map((x) => x.at)])).to.deep.equal([
            ["slow", [0, 15, 25, 30, 30]],
            ["fast", [0, 15, 16, 30, 30]],
        ]);
        // A number no container declares reaches both (kube-proxy's and the target group's port): the exit shown is the one that stops first.
        const either = changed(svc, "spec.ports", [{ name: "a", port: 80, targetPort: 9090 }]);
        const one = changed(webIngress(f.ALB_IP_ANNOTATIONS), "spec.rules.0.http.paths.0.backend.service.port", { name: "a" });
        expect(run([nodePool("general"), web, either, one]).requestPaths.map((p) => p.container)).to.deep.equal(["fast"]);
        // A backend port whose named target no container declares: no path to show, and no crash.
        const nowhere = changed(svc, "spec.ports", [
            { name: "a", port: 80, targetPort: "none" },
            { name: "b", port: 81, targetPort: "http2" },
        ]);
        const only = changed(webIngress(f.ALB_IP_ANNOTATIONS), "spec.rules.0.http.paths.0.backend.service.port", { name: "a" });
        expect(run([nodePool("general"), web, nowhere, only]).requestPaths).to.deep.equal([]);
        // A grace period that is not a number has no exit to show (workload-termination-grace reports it); null is unset: 30 s.
        const sixty = changed(web, "spec.template.spec.terminationGracePeriodSeconds", "sixty");
        expect(run([nodePool("general"), sixty, svc, both]).requestPaths).to.deep.equal([]);
        const unset = changed(web, "spec.template.spec.terminationGracePeriodSeconds", null);
        expect(run([nodePool("general"), unset, svc, both]).requestPaths[0].phases.at(-1)?.at).to.equal(30);
    });

    it("shows a workload only behind the load balancers of the Services that select it", () => {
        const other = changed(changed(served(1)[0], "metadata.name", "other"), "spec.template.metadata.labels", { app: "other" });
        const otherSvc = changed(f.service("other", "prod", { app: "other" }), "metadata.name", "other");
        const r = run([nodePool("general"), ...served(20), webIngress(f.ALB_IP_ANNOTATIONS), other, otherSvc]);
        expect(r.requestPaths.map((p) => p.workload)).to.deep.equal(["Deployment prod/web"]);
    });
});
