import { expect } from "chai";
import { controllerValues } from "../../../components/karpenter/controller";
import { karpenterOf } from "./fixtures";

describe("karpenter: Helm values (pure)", () => {
    const values = controllerValues({
        clusterName: "demo",
        region: "eu-west-1",
        interruptionQueue: "demo-karpenter",
        controller: karpenterOf("prod").controller,
    }) as Record<string, any>;

    it("points the controller at this cluster and its interruption queue", () => {
        expect(values.settings).to.deep.equal({ clusterName: "demo", interruptionQueue: "demo-karpenter" });
        expect(values.serviceAccount).to.deep.equal({ create: true, name: "karpenter" });
        expect(values.controller.env).to.deep.include({ name: "AWS_REGION", value: "eu-west-1" });
    });

    it("runs 2 replicas with resources, a PDB allowing one eviction and a bounded grace period", () => {
        expect(values.replicas).to.equal(2);
        expect(values.controller.resources).to.deep.equal({ requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "2", memory: "1Gi" } });
        expect(values.podDisruptionBudget.maxUnavailable).to.equal(1);
        expect(values.terminationGracePeriodSeconds).to.be.within(1, 120);
    });

    it("schedules on platform/role: system nodes, tolerates CriticalAddonsOnly and never lands on a Karpenter node", () => {
        expect(values.nodeSelector).to.deep.include({ "platform/role": "system" });
        expect(values.tolerations).to.deep.include({ key: "CriticalAddonsOnly", operator: "Exists" });
        const terms = values.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
        expect(terms).to.deep.equal([{ matchExpressions: [{ key: "karpenter.sh/nodepool", operator: "DoesNotExist" }] }]);
        expect(values.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey).to.equal(
            "kubernetes.io/hostname",
        );
    });
});
