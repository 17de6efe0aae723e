import { expect } from "chai";
import { karpenterNodePool } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { eksComponent, nodePool } from "./fixtures";
import { changed, runResource, TestResource } from "./harness";

const NP = "spec.template.spec";

/** The fixtures' NodePool on EKS Auto Mode's NodeClass. */
function autoPool(): TestResource {
    const auto = changed(nodePool(), `${NP}.nodeClassRef`, { group: "eks.amazonaws.com", kind: "NodeClass", name: "platform" });
    return changed(auto, `${NP}.expireAfter`, "336h");
}

describe("policy karpenter-nodepool on EKS Auto Mode", () => {
    it("passes an Auto Mode NodePool without terminationGracePeriod (Auto Mode applies 24h), not a Karpenter one", async () => {
        const auto = changed(autoPool(), `${NP}.terminationGracePeriod`, undefined);
        expectClean(await runResource(karpenterNodePool, auto));
        expectViolations(
            await runResource(karpenterNodePool, changed(nodePool(), `${NP}.terminationGracePeriod`, undefined)),
            /sets no spec\.template\.spec\.terminationGracePeriod/,
        );
    });

    it("reports a node lifetime past Auto Mode's 21 days, expireAfter Never included, and passes one within", async () => {
        expectViolations(
            await runResource(karpenterNodePool, changed(autoPool(), `${NP}.expireAfter`, "720h")),
            /lets its nodes live expireAfter 720h plus terminationGracePeriod 1h, past the 21 days \(504h\).*at most 503h/,
        );
        expectViolations(
            await runResource(karpenterNodePool, changed(autoPool(), `${NP}.expireAfter`, "Never")),
            /expireAfter Never on EKS Auto Mode, which ends every node by 504h/,
        );
        // Unset: Auto Mode's 336h plus the pool's 1h.
        expectClean(await runResource(karpenterNodePool, changed(autoPool(), `${NP}.expireAfter`, undefined)));
        expectClean(await runResource(karpenterNodePool, changed(autoPool(), `${NP}.expireAfter`, "503h")));
        // Self-managed Karpenter has no such cap.
        expectClean(await runResource(karpenterNodePool, changed(nodePool(), `${NP}.expireAfter`, "Never")));
    });

    it("reports requirements on Karpenter's AWS labels, which Auto Mode nodes do not carry", async () => {
        const reqs = [{ key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m7i"] }];
        expectViolations(
            await runResource(karpenterNodePool, changed(autoPool(), `${NP}.requirements`, reqs)),
            /requires karpenter\.k8s\.aws\/instance-family, a label of self-managed Karpenter.*use eks\.amazonaws\.com\/instance-family/,
        );
        expectClean(await runResource(karpenterNodePool, changed(nodePool(), `${NP}.requirements`, reqs)));
    });

    it("reports a built-in pool name EKS does not have, and passes the real ones", async () => {
        const cluster = (nodePools: string[]) =>
            changed(eksComponent(), "autoMode", { enabled: true, computeConfig: { enabled: true, nodePools } });
        expectViolations(
            await runResource(karpenterNodePool, cluster(["general-purpose", "sytem"])),
            /cluster cluster-eks enables EKS Auto Mode built-in NodePool "sytem", which EKS does not have/,
        );
        expectClean(await runResource(karpenterNodePool, cluster(["general-purpose", "system"])));
        expect((await runResource(karpenterNodePool, eksComponent())).notApplicable).to.match(/without EKS Auto Mode's built-in NodePools/);
    });
});
