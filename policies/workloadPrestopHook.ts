import {
    ContainerRef,
    containersOf,
    describeWorkload,
    hasPreStop,
    isMetricsPort,
    servedWorkloads,
    Service,
    Verdicts,
    violation,
} from "eks-platform-kernel/policy";
import { asArray, asNumber, asString, field, inputScope } from "eks-platform-kernel";
import { declareStackPolicy } from "./declare";

/**
 * Containers of pods that a Service sends traffic to have a preStop hook, so a pod leaves the
 * load balancers' endpoints before it receives SIGTERM. The container is the one a Service port's
 * `targetPort` reaches: a named port resolves to the container declaring that port name, a number
 * to the container declaring that `containerPort` (to every container when none declares it and
 * there are several, said so). Native sidecars (init containers with `restartPolicy: Always`)
 * count as containers. Ports named for metrics (`isMetricsPort`) carry no requests, so Services
 * that only expose metrics are skipped.
 */
export const workloadPrestopHook = declareStackPolicy({
    name: "workload-prestop-hook",
    description: "Containers a Service sends traffic to have a preStop hook, so they stop receiving traffic before SIGTERM.",
    enforcementLevel: "advisory",
    docs: {
        requires:
            "a preStop hook on the container (or native sidecar) a Service port's `targetPort` reaches; ports named for metrics do not count",
        checks: 'the container or native sidecar (init container with `restartPolicy: Always`) a Service port\'s `targetPort` reaches, in pods a Service in the same namespace selects, has a `lifecycle.preStop` hook; ports named for metrics carry no requests and do not count (see "Which Service ports carry traffic")',
    },
    validateStack: (args, reportViolation) => {
        const verdicts = new Verdicts();
        for (const { workload: w, services } of servedWorkloads(args.resources, verdicts)) {
            const subject = describeWorkload(w);
            verdicts.judge(subject, () => {
                // Native sidecars (init containers with restartPolicy: Always) keep running and may serve the Service too.
                const serving = containersOf(w.podSpec).filter((c) => c.role === "container" || c.sidecar);
                for (const [c, routes] of reachedContainers(serving, services)) {
                    if (!hasPreStop(c.spec)) {
                        reportViolation(
                            violation(
                                `${subject} ${c.sidecar ? "sidecar container" : "container"} "${c.name}" has no preStop hook, yet ${routes.join("; ")}`,
                                "on a drain, rollout or scale-in the pod gets SIGTERM while kube-proxy and the load balancers still route requests to it for a few seconds, and those requests fail",
                                'add lifecycle.preStop (e.g. sleep: {seconds: 5}, or exec ["sleep", "5"]) and keep terminationGracePeriodSeconds above it',
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

/** The ports a container declares: names and numbers. */
function declaredPorts(c: ContainerRef): { names: Set<string>; numbers: Set<number> } {
    const names = new Set<string>();
    const numbers = new Set<number>();
    for (const p of asArray(field(c.spec, "ports"))) {
        const name = asString(field(p, "name"));
        const number = asNumber(field(p, "containerPort"));
        if (name) {
            names.add(name);
        }
        if (number !== undefined) {
            numbers.add(number);
        }
    }
    return { names, numbers };
}

/**
 * Which containers the Services' ports reach, each with how (`Service api sends it traffic (port
 * 80 → targetPort 8080)`), as the endpoints controller resolves a target port. Metrics ports are
 * left out. A Service without ports (headless, DNS only) may reach any container.
 */
function reachedContainers(containers: readonly ContainerRef[], services: readonly Service[]): Map<ContainerRef, string[]> {
    const out = new Map<ContainerRef, string[]>();
    const add = (c: ContainerRef, route: string) => out.set(c, [...(out.get(c) ?? []), route]);
    const declared = new Map(containers.map((c) => [c, declaredPorts(c)]));
    for (const svc of services) {
        if (svc.ports.length === 0) {
            for (const c of containers) {
                add(c, `Service ${svc.name} (no ports: clients may connect to any port) sends it traffic`);
            }
            continue;
        }
        for (const port of svc.ports) {
            if (isMetricsPort(port)) {
                continue;
            }
            const route = (note = "") =>
                `Service ${svc.name} sends it traffic (port ${port.name || port.port} → targetPort ${port.targetPort}${note})`;
            const target = port.targetPort;
            if (typeof target === "string") {
                // A named port no container declares leaves the pod out of the Service's endpoints for that port.
                containers.filter((c) => declared.get(c)?.names.has(target)).forEach((c) => add(c, route()));
                continue;
            }
            const owners = containers.filter((c) => target !== undefined && declared.get(c)?.numbers.has(target));
            if (owners.length > 0) {
                owners.forEach((c) => add(c, route()));
            } else if (containers.length === 1) {
                add(containers[0], route());
            } else {
                for (const c of containers) {
                    add(
                        c,
                        route(", a port no container declares, so any of them may serve it: declare it in the serving container's ports"),
                    );
                }
            }
        }
    }
    return out;
}
