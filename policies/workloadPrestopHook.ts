import {
    containersOf,
    describeWorkload,
    hasPreStop,
    podSpecField,
    servedWorkloads,
    serviceRoutes,
    servingContainers,
    Verdicts,
    violation,
} from "eks-platform-evaluation";
import { inputScope } from "eks-platform-kernel";
import { declareStackPolicy } from "./declare";

/**
 * Containers of pods that a Service sends traffic to have a preStop hook, so a pod leaves the
 * load balancers' endpoints before it receives SIGTERM. The container is the one a Service port's
 * `targetPort` reaches: a named port resolves to the container declaring that port name, a number
 * to the container declaring that `containerPort` (to every container when none declares it and
 * there are several, said so). Native sidecars (init containers with `restartPolicy: Always`)
 * count as containers. Ports named for scraping or debugging (`isScrapePort`) carry no requests,
 * so Services that only expose those are skipped. The resolution is the kernel's `serviceRoutes`.
 */
export const workloadPrestopHook = declareStackPolicy({
    name: "workload-prestop-hook",
    description: "Containers a Service sends traffic to have a preStop hook, so they stop receiving traffic before SIGTERM.",
    enforcementLevel: "advisory",
    docs: {
        requires:
            "a preStop hook on the container (or native sidecar) a Service port's `targetPort` reaches; ports named for scraping or debugging do not count",
        checks: 'the container or native sidecar (init container with `restartPolicy: Always`) a Service port\'s `targetPort` reaches, in pods a Service in the same namespace selects, has a `lifecycle.preStop` hook (a native sidecar is also covered when every regular container has one: the kubelet stops sidecars only after them); ports named for scraping or debugging carry no requests and do not count (see "Which Service ports carry traffic")',
    },
    validateStack: (args, reportViolation) => {
        const verdicts = new Verdicts();
        for (const { workload: w, services } of servedWorkloads(args.resources, verdicts)) {
            const subject = describeWorkload(w);
            verdicts.judge(subject, () => {
                // Native sidecars (init containers with restartPolicy: Always) keep running and may serve the Service too.
                // The kubelet stops native sidecars only after every regular container has exited
                // (Kubernetes sidecar containers: termination in reverse order after the main
                // containers): a serving sidecar keeps serving through the regular containers' preStop.
                const regular = containersOf(w.podSpec).filter((c) => c.role === "container");
                const sidecarsCovered = regular.length > 0 && regular.every((c) => hasPreStop(c.spec));
                for (const [c, routes] of serviceRoutes(servingContainers(w.podSpec), services)) {
                    if (!hasPreStop(c.spec) && !(c.sidecar && sidecarsCovered)) {
                        reportViolation(
                            violation(
                                `${subject} ${c.sidecar ? "sidecar container" : "container"} "${c.name}" has no preStop hook, yet ${routes.join("; ")}`,
                                "on a drain, rollout or scale-in the pod gets SIGTERM while kube-proxy and the load balancers still route requests to it for a few seconds, and those requests fail",
                                c.sidecar
                                    ? "add lifecycle.preStop (e.g. sleep: {seconds: 5}) to the sidecar, or to every regular container (the kubelet stops native sidecars only after them), and keep terminationGracePeriodSeconds above it"
                                    : 'add lifecycle.preStop (e.g. sleep: {seconds: 5}, or exec ["sleep", "5"]: enough for kube-proxy; behind an ALB or NLB workload-request-path gives the length its load balancer needs) and keep terminationGracePeriodSeconds above it',
                                podSpecField(w.kind, ...c.at),
                            ),
                            w.urn,
                        );
                    }
                }
            });
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable(
                `no long-running workload ${inputScope(args.stackTags)} is selected by a Service that serves requests: nothing was checked`,
            );
        }
    },
});
