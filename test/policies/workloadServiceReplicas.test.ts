import { expect } from "chai";
import { SINGLETON_ANNOTATION, workloadServiceReplicas } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { daemonSet, deployment, hpa, pod, replicationController, scaledObject, service, statefulSet, withoutReplicas } from "./fixtures";
import { changed, MANIFEST_TAGS, runStack, UNKNOWN, urnOf } from "./harness";

/** `r` with one annotation (the key holds a slash, so no dotted path). */
function annotated<T extends { props: Record<string, unknown> }>(r: T, value: unknown): T {
    const metadata = { ...(r.props.metadata as Record<string, unknown>), annotations: { [SINGLETON_ANNOTATION]: value } };
    return { ...r, props: { ...r.props, metadata } };
}

describe("policy workload-service-replicas (stack)", () => {
    it("passes a replicated workload behind a Service", async () => {
        expectClean(await runStack(workloadServiceReplicas, [deployment(), service()]));
    });

    it("reports a 1-replica Deployment a Service selects, on its URN", async () => {
        const d = deployment("api", "prod", 1);
        const outcome = await runStack(workloadServiceReplicas, [d, service()]);
        expectViolations(
            outcome,
            /Deployment prod\/api runs 1 replica, yet Service api sends it traffic\. Why: a node drain.*every request to the Service fails.*Fix: run at least 2 replicas .*platform\/singleton/,
        );
        expect(outcome.violations[0].urn).to.equal(urnOf(d));
    });

    it("judges an autoscaled workload at its autoscaler's minimum (HPA or KEDA ScaledObject), whatever spec.replicas says", async () => {
        expectClean(await runStack(workloadServiceReplicas, [withoutReplicas(deployment()), hpa("api", 2, 6), service()]));
        expectClean(await runStack(workloadServiceReplicas, [deployment("api", "prod", 1), hpa("api", 3, 6), service()]));
        expectViolations(
            await runStack(workloadServiceReplicas, [deployment("api", "prod", 3), hpa("api", 1, 6), service()]),
            /Deployment prod\/api runs 1 to 6 replicas, scaled by HorizontalPodAutoscaler prod\/api, yet Service api sends it traffic\..*Fix: raise the minimum of HorizontalPodAutoscaler prod\/api to at least 2/,
        );
        expectViolations(
            await runStack(workloadServiceReplicas, [withoutReplicas(deployment()), scaledObject("api", 0, 6), service()]),
            /Deployment prod\/api runs 0 to 6 replicas, scaled by ScaledObject prod\/api/,
        );
    });

    it("leaves a workload undecided when an autoscaler of its namespace is unknown at preview, never a violation", async () => {
        const outcome = await runStack(workloadServiceReplicas, [
            deployment("api", "prod", 1),
            changed(hpa("api", 3, 6), "spec", UNKNOWN.object),
            service(),
        ]);
        expect(outcome.violations).to.deep.equal([]);
        expect(outcome.cantRun).to.match(/can't run policy 'workload-service-replicas'/);
    });

    it("reports single-pod StatefulSets, ReplicationControllers and bare Pods too, and a Deployment left to one replica by default", async () => {
        for (const [w, pattern] of [
            [statefulSet("db", "prod", 1), /StatefulSet prod\/db runs 1 replica/],
            [replicationController("frontend", "prod", 1), /ReplicationController prod\/frontend runs 1 replica/],
            [pod("debug"), /Pod prod\/debug runs 1 replica/],
            [changed(deployment(), "spec.replicas", undefined), /Deployment prod\/api runs 1 replica/],
        ] as const) {
            const labels = (
                w.props.kind === "Pod" ? { app: "debug" } : { app: String((w.props.metadata as { name: string }).name) }
            ) as Record<string, string>;
            expectViolations(await runStack(workloadServiceReplicas, [w, service("svc", "prod", labels)]), pattern);
        }
    });

    it("passes a deliberate singleton annotated with a reason, and reports the annotation without one", async () => {
        const d = deployment("api", "prod", 1);
        expectClean(await runStack(workloadServiceReplicas, [annotated(d, "leader-elected scheduler; clients retry"), service()]));
        for (const empty of ["", "   "]) {
            expectViolations(
                await runStack(workloadServiceReplicas, [annotated(d, empty), service()]),
                /Deployment prod\/api runs 1 replica behind Service api and is annotated platform\/singleton without a reason/,
            );
        }
    });

    it("ignores workloads only a metrics Service selects, DaemonSets, and workloads no Service selects", async () => {
        const metrics = changed(service("api-metrics"), "spec.ports", [{ name: "http-metrics", port: 9100, targetPort: 9100 }]);
        expect((await runStack(workloadServiceReplicas, [deployment("api", "prod", 1), metrics])).notApplicable).to.match(
            /no long-running workload in this stack is selected by a Service that serves requests/,
        );
        expect((await runStack(workloadServiceReplicas, [daemonSet(), service("agent", "prod", { app: "agent" })])).notApplicable).to.match(
            /nothing was checked/,
        );
        expect((await runStack(workloadServiceReplicas, [deployment("api", "prod", 1)], {}, MANIFEST_TAGS)).notApplicable).to.match(
            /in these manifests/,
        );
    });

    it("ignores workloads behind telemetry, pprof or debug ports only, or a named targetPort the pod does not declare (EndpointSlice controller)", async () => {
        for (const ports of [
            [{ name: "telemetry", port: 15090, targetPort: 15090 }],
            [{ name: "pprof", port: 6060, targetPort: 6060 }],
            [{ name: "http", port: 80, targetPort: "http-debug" }],
            [{ name: "http", port: 80, targetPort: "web" }],
        ]) {
            const svc = changed(service(), "spec.ports", ports);
            expect(
                (await runStack(workloadServiceReplicas, [deployment("api", "prod", 1), svc])).notApplicable,
                JSON.stringify(ports),
            ).to.match(/no long-running workload in this stack is selected by a Service that serves requests/);
        }
        // A numbered targetPort reaches the pod whether or not a container declares it.
        const numbered = changed(service(), "spec.ports", [{ name: "http", port: 80, targetPort: 8081 }]);
        expectViolations(await runStack(workloadServiceReplicas, [deployment("api", "prod", 1), numbered]), /runs 1 replica/);
    });

    it("takes minReplicas from config", async () => {
        expectViolations(
            await runStack(workloadServiceReplicas, [deployment("api", "prod", 2), service()], { minReplicas: 3 }),
            /runs 2 replicas/,
        );
    });

    it("leaves a workload with unknown replicas undecided, still judging the others", async () => {
        const outcome = await runStack(workloadServiceReplicas, [
            changed(deployment("web"), "spec.replicas", UNKNOWN.number),
            service("web", "prod", { app: "web" }),
            deployment("api", "prod", 1),
            service(),
        ]);
        expect(outcome.violations).to.have.length(1);
        expect(outcome.cantRun).to.match(/undecided until the values are known/);
    });
});
