import { drainWindow } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { deployment, eksComponent, nodePool } from "./fixtures";
import { changed, runStack } from "./harness";

const T = "spec.template.spec.terminationGracePeriodSeconds";
const NP = "spec.template.spec";

const cluster = (nodePools: string[]) =>
    changed(eksComponent(), "autoMode", { enabled: true, computeConfig: { enabled: true, nodePools } });

/** The fixtures' Deployment on the system pool (selects it, tolerates its taint) with this grace period. */
function onSystem(grace: number) {
    const d = changed(changed(deployment(), T, grace), "spec.template.spec.nodeSelector", { "karpenter.sh/nodepool": "system" });
    return changed(d, "spec.template.spec.tolerations", [{ key: "CriticalAddonsOnly", operator: "Exists" }]);
}

describe("policy drain-window on EKS Auto Mode", () => {
    it("holds grace periods inside Auto Mode's 24h terminationGracePeriod when the NodePool sets none", async () => {
        const auto = changed(
            changed(nodePool(), `${NP}.nodeClassRef`, { group: "eks.amazonaws.com", kind: "NodeClass", name: "platform" }),
            `${NP}.terminationGracePeriod`,
            undefined,
        );
        expectViolations(
            await runStack(drainWindow, [changed(deployment(), T, 90000), auto]),
            /grace period of 90000 s, longer than the 24h drain window of NodePool general \(terminationGracePeriod, EKS Auto Mode's 24h default\).*EKS Auto Mode deletes remaining pods/,
        );
        expectClean(await runStack(drainWindow, [changed(deployment(), T, 3600), auto]));
    });

    it("reads the built-in pools' windows from the cluster's computeConfig.nodePools, for the pods they may run", async () => {
        expectViolations(
            await runStack(drainWindow, [onSystem(90000), cluster(["system"])]),
            /longer than the 24h drain window of NodePool system \(built-in, cluster cluster-eks\) \(terminationGracePeriod\).*EKS Auto Mode deletes remaining pods/,
        );
        expectClean(await runStack(drainWindow, [onSystem(3600), cluster(["system"])]));
        // A pod that does not tolerate CriticalAddonsOnly never lands on system; general-purpose takes it.
        expectViolations(
            await runStack(drainWindow, [changed(deployment(), T, 90000), cluster(["general-purpose", "system"])]),
            /drain window of NodePool general-purpose \(built-in/,
        );
    });
});
