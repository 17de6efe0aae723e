/**
 * The request path of each pod in the rehearsal's timeline: for every workload a load balancer
 * of the AWS Load Balancer Controller sends requests to, the phases of one pod's exit (seconds
 * after its deletion: routing stops, SIGTERM, the deregistration delay, SIGKILL, the node's end)
 * and the gaps where requests fail. The phases and gaps are the kernel's (`podExit`), which
 * `workload-request-path` judges; the rehearsal shows them with the default stop-routing times.
 */
import { DEFAULT_TERMINATION_GRACE_SECONDS, asNumeric, field, SPOT_NOTICE_SECONDS, REQUEST_PATH_TIMING } from "eks-platform-kernel";
import {
    describeWorkload,
    ExitGap,
    ExitPhase,
    podExit,
    readDrainWindows,
    readLoadBalancerFronts,
    readServices,
    readWorkloads,
    serviceRoutes,
    servesFor,
    servingContainers,
    servingServices,
    stopRouting,
    tightestWindow,
    Verdicts,
} from "eks-platform-evaluation";
import type { DrainResource } from "./model";

/** One workload's exit behind one load balancer. */
export interface RequestPathReport {
    workload: string;
    /** `ALB of Ingress web (Service web), ip targets`. */
    path: string;
    /** The container whose exit is shown: the one that stops serving first. */
    container: string;
    phases: ExitPhase[];
    gaps: ExitGap[];
}

/** The request paths of the input's workloads; values unknown at preview are left out (the pack's policy reports them). */
export function requestPaths(resources: readonly DrainResource[]): RequestPathReport[] {
    // Unknown values are the policy's to report: this view shows what is known.
    const verdicts = new Verdicts();
    const services = readServices(resources, verdicts);
    const fronts = readLoadBalancerFronts(resources, services, verdicts);
    if (fronts.length === 0) {
        return [];
    }
    const windows = readDrainWindows(resources, verdicts, SPOT_NOTICE_SECONDS);
    const out: RequestPathReport[] = [];
    for (const { workload: w, services: selecting } of servingServices(readWorkloads(resources, verdicts), services)) {
        verdicts.judge(describeWorkload(w), () => {
            const raw = field(w.podSpec, "terminationGracePeriodSeconds");
            const grace = raw === undefined || raw === null ? DEFAULT_TERMINATION_GRACE_SECONDS : asNumeric(raw);
            if (grace === undefined) {
                return;
            }
            for (const front of fronts.filter((f) => selecting.includes(f.service))) {
                const routed = [...serviceRoutes(servingContainers(w.podSpec), [{ ...front.service, ports: front.ports }]).keys()];
                const serving = routed.map((c) => ({ c, seconds: servesFor(w.podSpec, c).seconds }));
                if (serving.length === 0) {
                    continue;
                }
                const first = serving.reduce((a, b) => (b.seconds < a.seconds ? b : a));
                const window = tightestWindow(w.podSpec, windows);
                const exit = podExit({
                    front,
                    stop: stopRouting(front, REQUEST_PATH_TIMING),
                    preStopSeconds: first.seconds,
                    graceSeconds: grace,
                    window: window && { seconds: window.seconds, source: window.source },
                });
                const via = front.via === `Service ${front.service.name}` ? front.via : `${front.via} (Service ${front.service.name})`;
                out.push({
                    workload: describeWorkload(w),
                    path: `${front.type} of ${via}, ${front.targetType.value} targets`,
                    container: first.c.name,
                    ...exit,
                });
            }
        });
    }
    return out;
}
