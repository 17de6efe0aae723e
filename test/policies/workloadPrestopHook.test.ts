import { expect } from "chai";
import { workloadPrestopHook } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { deployment, service } from "./fixtures";
import { changed, runStack, UNKNOWN, urnOf } from "./harness";

const P = "spec.template.spec.containers.0.lifecycle";

describe("policy workload-prestop-hook (stack)", () => {
    it("is advisory by default", () => {
        expect(workloadPrestopHook.enforcementLevel).to.equal("advisory");
    });

    it("passes a Service-selected workload whose containers have a preStop hook", async () => {
        expectClean(await runStack(workloadPrestopHook, [deployment(), service()]));
    });

    it("reports a container without preStop on the workload's URN", async () => {
        const d = changed(deployment(), P, undefined);
        const outcome = await runStack(workloadPrestopHook, [d, service()]);
        expectViolations(outcome, /Deployment prod\/api container "app" has no preStop hook, yet Service api sends it traffic/);
        expect(outcome.violations[0].urn).to.equal(urnOf(d));
    });

    it("judges a serving native sidecar by the kubelet's stop order: covered by its own preStop, or by every regular container's (Kubernetes sidecar containers stop after the main containers)", async () => {
        const I = "spec.template.spec.initContainers.0";
        const d = changed(deployment(), `${I}.restartPolicy`, "Always");
        // The regular container "app" has a preStop: the sidecar serves until it has exited.
        expectClean(await runStack(workloadPrestopHook, [d, service()]));
        // Without it, neither the app nor the sidecar drains: both are named, the sidecar with both fixes.
        const bare = changed(d, P, undefined);
        const outcome = await runStack(workloadPrestopHook, [bare, service()]);
        expect(outcome.violations.map((v) => v.message).join("\n")).to.match(
            /Deployment prod\/api sidecar container "migrate" has no preStop hook, yet Service api sends it traffic.*Fix: add lifecycle\.preStop .* to the sidecar, or to every regular container/,
        );
        expectClean(
            await runStack(workloadPrestopHook, [
                changed(changed(bare, `${I}.lifecycle`, { preStop: { sleep: { seconds: 5 } } }), P, { preStop: { sleep: { seconds: 5 } } }),
                service(),
            ]),
        );
        // A plain init container has exited before the pod serves traffic.
        expectClean(await runStack(workloadPrestopHook, [changed(deployment(), `${I}.restartPolicy`, "OnFailure"), service()]));
    });

    it("ignores workloads no Service selects: other labels, other namespace", async () => {
        const d = changed(deployment(), P, undefined);
        expect((await runStack(workloadPrestopHook, [d, service("web", "prod", { app: "web" })])).notApplicable).to.match(
            /no long-running workload .* selected by a Service/,
        );
        expect((await runStack(workloadPrestopHook, [d, service("api", "web")])).notApplicable).to.match(/nothing was checked/);
        expect((await runStack(workloadPrestopHook, [d, service("api", "prod", {})])).notApplicable).to.match(/nothing was checked/);
    });

    it("says so instead of passing when the stack has nothing to check", async () => {
        expect((await runStack(workloadPrestopHook, [])).notApplicable).to.match(/nothing was checked/);
    });

    it("decides known workloads when a Service selector is unknown, and reports the undecided one", async () => {
        const d = changed(deployment(), P, undefined);
        const unknownSvc = changed(service("other"), "spec.selector", UNKNOWN.object);
        const outcome = await runStack(workloadPrestopHook, [d, service(), unknownSvc]);
        expect(outcome.violations).to.have.length(1);
        expect(outcome.cantRun).to.match(/undecided until the values are known: Service prod-other-svc/);
    });
});

/**
 * kube-prometheus's node-exporter shape: the exporter listens on localhost only, kube-rbac-proxy
 * serves it as `https`, neither has a preStop hook; and a Prometheus-like pod whose config
 * reloader has no ports.
 */
function proxied(): ReturnType<typeof deployment> {
    return changed(deployment("exporter", "monitoring"), "spec.template.spec.containers", [
        { name: "node-exporter", image: "quay.io/prometheus/node-exporter:v1.9.1", args: ["--web.listen-address=127.0.0.1:9101"] },
        { name: "kube-rbac-proxy", image: "quay.io/brancz/kube-rbac-proxy:v0.19.1", ports: [{ name: "https", containerPort: 9100 }] },
        { name: "config-reloader", image: "quay.io/prometheus-operator/prometheus-config-reloader:v0.83.0" },
    ]);
}
const exporterService = (ports: unknown[]) => changed(service("exporter", "monitoring", { app: "exporter" }), "spec.ports", ports);

describe("policy workload-prestop-hook: the container a Service port reaches", () => {
    it("names the container a named targetPort resolves to, and no other", async () => {
        expectViolations(
            await runStack(workloadPrestopHook, [proxied(), exporterService([{ name: "https", port: 9100, targetPort: "https" }])]),
            /Deployment monitoring\/exporter container "kube-rbac-proxy" has no preStop hook, yet Service exporter sends it traffic \(port https → targetPort https\)/,
        );
    });

    it("names the container declaring a numbered targetPort", async () => {
        expectViolations(
            await runStack(workloadPrestopHook, [proxied(), exporterService([{ port: 443, targetPort: 9100 }])]),
            /container "kube-rbac-proxy" has no preStop hook, yet Service exporter sends it traffic \(port 443 → targetPort 9100\)/,
        );
        // No targetPort: it is the port itself.
        expectViolations(
            await runStack(workloadPrestopHook, [proxied(), exporterService([{ name: "web", port: 9100 }])]),
            /container "kube-rbac-proxy" .*\(port web → targetPort 9100\)/,
        );
    });

    it("names every container when no container declares a numbered targetPort, and says why", async () => {
        const outcome = await runStack(workloadPrestopHook, [proxied(), exporterService([{ port: 80, targetPort: 8080 }])]);
        expectViolations(
            outcome,
            /container "node-exporter" .*8080, a port no container declares, so any of them may serve it/,
            /container "kube-rbac-proxy" .*a port no container declares/,
            /container "config-reloader" .*a port no container declares/,
        );
    });

    it("judges nothing for a named targetPort no container declares: the Service sends the pod nothing (EndpointSlice controller, podutil.FindPort)", async () => {
        const outcome = await runStack(workloadPrestopHook, [proxied(), exporterService([{ name: "web", port: 80, targetPort: "web" }])]);
        expect(outcome.violations).to.deep.equal([]);
        expect(outcome.notApplicable).to.match(/is selected by a Service that serves requests: nothing was checked/);
    });

    it("skips Services that only expose metrics, and metrics ports beside real ones", async () => {
        for (const ports of [
            [{ name: "metrics", port: 8082, targetPort: 8082 }],
            [{ name: "https-metrics", port: 9100, targetPort: "https" }],
            [{ name: "http", port: 9100, targetPort: "http-metrics" }],
        ]) {
            expect(
                (await runStack(workloadPrestopHook, [proxied(), exporterService(ports)])).notApplicable,
                JSON.stringify(ports),
            ).to.match(/selected by a Service that serves requests: nothing was checked/);
        }
        expectViolations(
            await runStack(workloadPrestopHook, [
                proxied(),
                exporterService([
                    { name: "metrics", port: 9100, targetPort: "https" },
                    { name: "grpc", port: 443, targetPort: 9100 },
                ]),
            ]),
            /container "kube-rbac-proxy" has no preStop hook, yet Service exporter sends it traffic \(port grpc → targetPort 9100\)\. Why/,
        );
    });
});
