/** The drain-rehearsal policy under the analyzer harness, on the scenarios of test/rehearsal/scenario.ts. */
import { expect } from "chai";
import { drainRehearsal } from "eks-platform-policies";
import { INPUT_TAG, MANIFEST_INPUT } from "eks-platform-kernel";
import { expectViolations } from "./expect";
import { changed, runStack, UNKNOWN, urnOf } from "./harness";
import { app, managed, nodePool, pdb } from "../rehearsal/scenario";

describe("policy drain-rehearsal (stack)", () => {
    it("reports a PDB deadlock on the budget, naming the group", async () => {
        const budget = pdb("web", { minAvailable: 3 });
        const outcome = await runStack(drainRehearsal, [managed("apps", 3), app("web", { spreadHost: true }), budget]);
        expectViolations(
            outcome,
            /The rollout of managed node group apps stalls/,
            /PodDisruptionBudget prod\/web blocks the eviction of web-\d .* of managed node group apps, for good/,
        );
        expect(outcome.violations[1].urn).to.equal(urnOf(budget));
    });

    it("passes a rollout that completes", async () => {
        const outcome = await runStack(drainRehearsal, [
            managed("apps", 3),
            app("web", { spreadHost: true }),
            pdb("web", { maxUnavailable: 1 }),
        ]);
        expect(outcome.cantRun).to.equal(undefined);
        expect(outcome.notApplicable).to.equal(undefined);
        expect(outcome.violations).to.deep.equal([]);
    });

    it("is not applicable without node groups or NodePools, or without workloads on them", async () => {
        expect((await runStack(drainRehearsal, [app("web")])).notApplicable).to.match(
            /no managed node group, Auto Scaling group, Karpenter NodePool or EKS Auto Mode built-in pool/,
        );
        expect((await runStack(drainRehearsal, [managed("apps", 3)])).notApplicable).to.match(
            /no workload of this stack runs on its node groups/,
        );
    });

    it("leaves a workload whose replicas are unknown at preview undecided (can't run), never passed", async () => {
        const outcome = await runStack(drainRehearsal, [managed("apps", 3), changed(app("web"), "spec.replicas", UNKNOWN.number)]);
        expect(outcome.cantRun).to.match(
            /can't run policy 'drain-rehearsal'.*undecided until the values are known: kubernetes:apps\/v1:Deployment prod-web/,
        );
    });

    it("says a group it cannot size is undecided, at the advisory level: nothing is unknown at preview, so it is no 'can't run'", async () => {
        const outcome = await runStack(drainRehearsal, [
            managed("apps", 3, { types: ["r5.large"] }),
            app("web", { spreadHost: true }),
            pdb("web", { maxUnavailable: 1 }),
        ]);
        expect(outcome.cantRun).to.equal(undefined);
        expect(outcome.violations).to.deep.equal([]);
        expect(outcome.undecided.map((u) => u.message).join("\n")).to.match(
            /^Undecided: drain rehearsal: managed node group apps: the size of instance type r5.large is not in the instance data/m,
        );
    });

    it("says what it cannot tell even when nothing is evicted: undecided is a verdict, not 'not applicable'", async () => {
        // Replicas the API server refuses: nothing is rehearsed, and that is said.
        const outcome = await runStack(drainRehearsal, [managed("apps", 3), changed(app("web"), "spec.replicas", -5)]);
        expect(outcome.notApplicable).to.equal(undefined);
        expect(outcome.undecided.map((u) => u.message).join("\n")).to.match(/replicas -5 is refused by the API server/);
    });

    it("says a workload with more replicas than it replays is undecided, without exhausting memory", async () => {
        const outcome = await runStack(drainRehearsal, [managed("apps", 3), changed(app("web"), "spec.replicas", 1e9)]);
        expect(outcome.cantRun).to.equal(undefined);
        expect(outcome.undecided.map((u) => u.message).join("\n")).to.match(
            /Deployment prod\/web: replicas 1000000000 is above the 5000 the rehearsal replays one by one/,
        );
    });

    it("in plain manifests, leaves a pod that fits none of the input's NodePools undecided: the cluster's node groups are not in them", async () => {
        // One m6i.large (2 vCPU) uses the whole limit; the second 1500m replica fits on no node of the input.
        const input = [changed(nodePool("general"), "spec.limits", { cpu: "2" }), app("big", { cpu: "1500m" })];
        const asStack = await runStack(drainRehearsal, input);
        expect(asStack.violations.map((v) => v.message).join("\n")).to.match(/fits on no node of the stack/);
        const asManifests = await runStack(drainRehearsal, input, {}, new Map([[INPUT_TAG, MANIFEST_INPUT]]));
        expect(asManifests.violations.map((v) => v.message).join("\n")).not.to.match(/fits on no node|nowhere to run/);
        expect(`${asManifests.cantRun ?? ""}${asManifests.undecided.map((u) => u.message).join("\n")}`).to.match(
            /fits on no node of the stack.*unless the cluster's nodes outside this input take it/s,
        );
    });

    it("never crashes on odd shapes", async () => {
        const odd = [
            managed("apps", 3),
            changed(app("web"), "spec.template.spec.containers", "x"),
            changed(pdb("web", {}), "spec.minAvailable", { a: 1 }),
            changed(nodePool("p"), "spec.template.spec.requirements", 7),
        ];
        const outcome = await runStack(drainRehearsal, odd);
        expect(outcome.violations.every((v) => /Why: .*Fix: /s.test(v.message))).to.equal(true);
    });
});
