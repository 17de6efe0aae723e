import { expect } from "chai";
import { workloadPdbRequired } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { daemonSet, deployment, hpa, pdb, replicaSet, replicationController, scaledObject, statefulSet, withoutReplicas } from "./fixtures";
import { changed, MANIFEST_TAGS, runStack, UNKNOWN, urnOf } from "./harness";

describe("policy workload-pdb-required (stack)", () => {
    it("passes replicated workloads matched by a PDB in their namespace", async () => {
        expectClean(
            await runStack(workloadPdbRequired, [
                deployment(),
                pdb(),
                statefulSet(),
                pdb("db", "prod", { maxUnavailable: 1, selector: { matchLabels: { app: "db" } } }),
            ]),
        );
    });

    it("reports a replicated Deployment without a PDB, on its URN", async () => {
        const d = deployment();
        const outcome = await runStack(workloadPdbRequired, [d]);
        expectViolations(
            outcome,
            /Deployment prod\/api \(3 replicas\) is not covered by any PodDisruptionBudget in namespace prod.*app=api,tier=web/,
        );
        expect(outcome.violations[0].urn).to.equal(urnOf(d));
    });

    it("does not count a PDB in another namespace or with a non-matching selector", async () => {
        expectViolations(await runStack(workloadPdbRequired, [deployment(), pdb("api", "web")]), /not covered/);
        expectViolations(
            await runStack(workloadPdbRequired, [
                deployment(),
                pdb("api", "prod", { maxUnavailable: 1, selector: { matchLabels: { app: "api", tier: "db" } } }),
            ]),
            /not covered/,
        );
        expectViolations(
            await runStack(workloadPdbRequired, [
                deployment(),
                pdb("api", "prod", {
                    maxUnavailable: 1,
                    selector: { matchExpressions: [{ key: "tier", operator: "NotIn", values: ["web"] }] },
                }),
            ]),
            /not covered/,
        );
    });

    it("never counts a budget the API server would reject, even one whose selector reads as empty", async () => {
        for (const spec of [
            { maxUnavailable: 1, selector: { matchLabels: "app=api" } },
            { maxUnavailable: 1, selector: { matchExpressions: "app in (api)" } },
            { maxUnavailable: 1, selector: { matchExpressions: [{ key: "app", operator: "Near", values: ["api"] }] } },
            { maxUnavailable: 1, selector: { matchExpressions: [{ key: "app", operator: "In", values: "api" }] } },
            { maxUnavailable: 1, selector: { matchExpressions: ["app"] } },
            { minAvailable: 1, maxUnavailable: 1, selector: { matchLabels: { app: "api" } } },
            { maxUnavailable: "150%", selector: { matchLabels: { app: "api" } } },
        ]) {
            expectViolations(await runStack(workloadPdbRequired, [deployment(), pdb("api", "prod", spec)]), /not covered/);
        }
    });

    it("never counts a budget with neither minAvailable nor maxUnavailable as cover: it blocks, it does not bound", async () => {
        expectViolations(
            await runStack(workloadPdbRequired, [deployment(), pdb("api", "prod", { selector: { matchLabels: { app: "api" } } })]),
            /Deployment prod\/api \(3 replicas\) is not covered .*PodDisruptionBudget api matches it but sets neither minAvailable nor maxUnavailable/,
        );
    });

    it("requires a budget for a workload without replicas that an autoscaler scales to minReplicas or more", async () => {
        const unscaled = withoutReplicas(deployment());
        expectViolations(
            await runStack(workloadPdbRequired, [unscaled, hpa("api", 5, 10)]),
            /Deployment prod\/api \(5 to 10 replicas, scaled by HorizontalPodAutoscaler prod\/api\) is not covered/,
        );
        expectClean(await runStack(workloadPdbRequired, [unscaled, hpa("api", 5, 10), pdb()]));
        // Scaled out, even an autoscaler starting at one replica runs several pods a drain may take at once.
        expectViolations(
            await runStack(workloadPdbRequired, [unscaled, scaledObject("api", 0, 4)]),
            /\(0 to 4 replicas, scaled by ScaledObject prod\/api\)/,
        );
        // An autoscaler of another workload, namespace or kind changes nothing.
        for (const other of [hpa("web", 5, 10), hpa("api", 5, 10, "staging"), hpa("api", 5, 10, "prod", "StatefulSet")]) {
            expect((await runStack(workloadPdbRequired, [unscaled, other])).notApplicable).to.match(/nothing was checked/);
        }
    });

    it("matches with matchExpressions", async () => {
        expectClean(
            await runStack(workloadPdbRequired, [
                deployment(),
                pdb("api", "prod", {
                    maxUnavailable: 1,
                    selector: { matchExpressions: [{ key: "app", operator: "In", values: ["api", "web"] }] },
                }),
            ]),
        );
    });

    it("covers StatefulSets, and only workloads with at least minReplicas", async () => {
        expectViolations(await runStack(workloadPdbRequired, [statefulSet()]), /StatefulSet prod\/db \(3 replicas\)/);
        expect((await runStack(workloadPdbRequired, [deployment("api", "prod", 1), daemonSet()])).notApplicable).to.match(
            /no Deployment, StatefulSet, ReplicaSet or ReplicationController with 2 or more replicas in this stack/,
        );
        expectViolations(await runStack(workloadPdbRequired, [deployment("api", "prod", 1)], { minReplicas: 1 }), /\(1 replica\)/);
    });

    it("reports replicas the API server refuses instead of skipping the workload", async () => {
        for (const value of ["3", 2.5, -1, true]) {
            expectViolations(
                await runStack(workloadPdbRequired, [changed(deployment(), "spec.replicas", value)]),
                new RegExp(
                    `Deployment prod/api sets spec\\.replicas to ${JSON.stringify(value).replace(".", "\\.")}, which is not a non-negative integer.*Why: the API server refuses`,
                ),
            );
        }
    });

    it("leaves a workload with unknown replicas undecided, still judging the others", async () => {
        const unknown = changed(deployment("web"), "spec.replicas", UNKNOWN.number);
        const outcome = await runStack(workloadPdbRequired, [deployment(), unknown]);
        expectViolations({ ...outcome, cantRun: undefined }, /Deployment prod\/api/);
        expect(outcome.cantRun).to.match(/spec\.replicas can't be known during preview.*kubernetes:apps\/v1:Deployment prod-web/);
    });
});

describe("policy workload-pdb-required: legacy and bare controllers", () => {
    it("requires a PDB for a replicated ReplicationController and a bare ReplicaSet, like a Deployment", async () => {
        const rc = replicationController();
        const rs = replicaSet();
        const outcome = await runStack(workloadPdbRequired, [rc, rs]);
        expectViolations(
            outcome,
            /ReplicationController prod\/frontend \(3 replicas\) is not covered by any PodDisruptionBudget in namespace prod/,
            /ReplicaSet prod\/worker \(2 replicas\) is not covered by any PodDisruptionBudget/,
        );
        expect(outcome.violations.map((v) => v.urn)).to.deep.equal([urnOf(rc), urnOf(rs)]);
        expectClean(
            await runStack(workloadPdbRequired, [
                rc,
                pdb("frontend", "prod", { maxUnavailable: 1, selector: { matchLabels: { app: "frontend" } } }),
            ]),
        );
    });
});

describe("policy workload-pdb-required: wording for manifests", () => {
    it('says "in these manifests" when the manifest gate runs it', async () => {
        expect((await runStack(workloadPdbRequired, [deployment("api", "prod", 1)], {}, MANIFEST_TAGS)).notApplicable).to.match(
            /with 2 or more replicas in these manifests: nothing was checked/,
        );
    });
});
