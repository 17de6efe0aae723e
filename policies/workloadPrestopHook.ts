import type { StackValidationPolicy } from "@pulumi/policy";
import { containersOf, describeWorkload, hasPreStop, LONG_RUNNING } from "./lib/kubernetes";
import { SelectorIndex } from "./lib/selector";
import { readServices, readWorkloads, Service } from "./lib/stack";
import { Verdicts, violation } from "./lib/verdicts";
import { inputScope } from "./lib/scope";

/**
 * Containers of pods that a Service selects have a preStop hook, so a pod leaves the load
 * balancers' endpoints before it receives SIGTERM. Native sidecars (init containers with
 * `restartPolicy: Always`) count as containers: they run beside the app and a Service may route to them.
 */
export const workloadPrestopHook: StackValidationPolicy = {
    name: "workload-prestop-hook",
    description: "Containers of pods selected by a Service have a preStop hook, so they stop receiving traffic before SIGTERM.",
    enforcementLevel: "advisory",
    validateStack: (args, reportViolation) => {
        const verdicts = new Verdicts();
        const index = new SelectorIndex<Service>();
        for (const svc of readServices(args.resources, verdicts)) {
            index.add(svc.namespace, svc.selector, svc);
        }
        for (const w of readWorkloads(args.resources, verdicts)) {
            if (!LONG_RUNNING.has(w.kind)) {
                continue;
            }
            const services = index.matching(w.namespace, w.podLabels);
            if (services.length === 0) {
                continue;
            }
            const subject = describeWorkload(w);
            verdicts.judge(subject, () => {
                for (const c of containersOf(w.podSpec)) {
                    // Native sidecars (init containers with restartPolicy: Always) keep running and may serve the Service too.
                    if ((c.role === "container" || c.sidecar) && !hasPreStop(c.spec)) {
                        reportViolation(
                            violation(
                                `${subject} ${c.sidecar ? "sidecar container" : "container"} "${c.name}" has no preStop hook, yet Service ${services.map((s) => s.name).join(", ")} sends it traffic`,
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
            args.notApplicable(`no long-running workload ${inputScope(args.stackTags)} is selected by a Service: nothing was checked`);
        }
    },
};
