import { expect } from "chai";
import { workloadTerminationGrace } from "eks-platform-policies";
import { expectClean, expectUndecided, expectViolations } from "./expect";
import { cronJob, daemonSet, deployment, pod, replicaSet, replicationController, statefulSet } from "./fixtures";
import { changed, runResource, UNKNOWN } from "./harness";

const T = "spec.template.spec.terminationGracePeriodSeconds";

describe("policy workload-termination-grace", () => {
    it("passes long-running workloads with an explicit grace period in bounds", async () => {
        for (const w of [deployment(), statefulSet(), daemonSet(), pod()]) {
            expectClean(await runResource(workloadTerminationGrace, w));
        }
    });

    it("does not apply to Jobs and CronJobs", async () => {
        expect((await runResource(workloadTerminationGrace, cronJob())).notApplicable).to.match(/not a long-running/);
    });

    it("reports a grace period left to the default", async () => {
        expectViolations(
            await runResource(workloadTerminationGrace, changed(deployment(), T, undefined)),
            /Deployment prod\/api does not set spec\.template\.spec\.terminationGracePeriodSeconds/,
        );
        expectViolations(
            await runResource(workloadTerminationGrace, changed(pod(), "spec.terminationGracePeriodSeconds", undefined)),
            /Pod prod\/debug does not set spec\.terminationGracePeriodSeconds/,
        );
    });

    it("reports values below min, and above max only when a max is configured (by default the nodes' windows bound it: drain-window)", async () => {
        expectViolations(await runResource(workloadTerminationGrace, changed(deployment(), T, 10)), /to 10, below the minimum 30/);
        // An NLB ip target needs a preStop of about two minutes and a grace period above it.
        expectClean(await runResource(workloadTerminationGrace, changed(deployment(), T, 600)));
        expectViolations(
            await runResource(workloadTerminationGrace, changed(deployment(), T, 600), { max: 120 }),
            /to 600, above the maximum 120/,
        );
        expectClean(await runResource(workloadTerminationGrace, changed(deployment(), T, 600), { max: 900 }));
        expectViolations(
            await runResource(workloadTerminationGrace, changed(deployment(), T, 60), { min: 90, max: 300 }),
            /below the minimum 90/,
        );
    });

    it("accepts a grace period exactly at min and exactly at max, and reports one second beyond either", async () => {
        expectClean(await runResource(workloadTerminationGrace, changed(deployment(), T, 30)));
        expectClean(await runResource(workloadTerminationGrace, changed(deployment(), T, 120), { max: 120 }));
        expectViolations(await runResource(workloadTerminationGrace, changed(deployment(), T, 29)), /to 29, below the minimum 30/);
        expectViolations(
            await runResource(workloadTerminationGrace, changed(deployment(), T, 121), { max: 120 }),
            /to 121, above the maximum 120/,
        );
        // The same edges with configured bounds, and min equal to max.
        expectClean(await runResource(workloadTerminationGrace, changed(deployment(), T, 45), { min: 45, max: 45 }));
        expectViolations(
            await runResource(workloadTerminationGrace, changed(deployment(), T, 44), { min: 45, max: 45 }),
            /below the minimum 45/,
        );
        expectViolations(
            await runResource(workloadTerminationGrace, changed(deployment(), T, 46), { min: 45, max: 45 }),
            /above the maximum 45/,
        );
    });

    it("reports a grace period not above the preStop sleep", async () => {
        const w = changed(deployment(), "spec.template.spec.containers.0.lifecycle.preStop", { exec: { command: ["sleep", "60"] } });
        expectViolations(await runResource(workloadTerminationGrace, w), /to 60, not above the 60 s preStop sleep of container "app"/);
    });

    const P = "spec.template.spec.containers.0.lifecycle.preStop";
    const withPreStop = (preStop: unknown, grace = 60) => changed(changed(deployment(), P, preStop), T, grace);

    it("reads the preStop sleep in every form: sleep by path, shell scripts, GNU units", async () => {
        for (const preStop of [
            { exec: { command: ["/bin/sleep", "60"] } },
            { exec: { command: ["/usr/bin/sleep", "60"] } },
            { exec: { command: ["sh", "-c", "sleep 1m"] } },
            { exec: { command: ["/bin/bash", "-c", "/usr/bin/sleep 30s 30; nginx -s quit"] } },
            { exec: { command: ["sh", "-c", "sleep 59.5 && sleep 0.5"] } },
            { sleep: { seconds: 60 } },
        ]) {
            expectViolations(
                await runResource(workloadTerminationGrace, withPreStop(preStop)),
                /to 60, not above the 60 s preStop sleep of container "app"/,
            );
            expectClean(await runResource(workloadTerminationGrace, withPreStop(preStop, 90)));
        }
    });

    it("reports an endless preStop sleep", async () => {
        expectViolations(
            await runResource(workloadTerminationGrace, withPreStop({ exec: { command: ["sleep", "infinity"] } }, 120)),
            /not above the endless preStop sleep \(sleep infinity\) of container "app".*Fix: give the preStop hook a bounded sleep/,
        );
    });

    it("reports a preStop sleep that sleep or the API server refuses instead of taking it as 0", async () => {
        expectViolations(
            await runResource(workloadTerminationGrace, withPreStop({ exec: { command: ["sleep", "5x"] } })),
            /Deployment prod\/api has a preStop sleep that cannot run as written in container "app" \(5x\).*Fix: write the sleep as a literal duration/,
        );
        // The sleep action takes an integer: the API server rejects "5".
        expectViolations(
            await runResource(workloadTerminationGrace, withPreStop({ sleep: { seconds: "5" } })),
            /container "app" \(sleep\.seconds "5" \(a string: the API server requires an integer\)\)/,
        );
    });

    it("leaves a preStop sleep whose length only exists at run time undecided, not a violation, not a pass", async () => {
        const fromRuntime = withPreStop({ exec: { command: ["sh", "-c", "sleep $DELAY"] } });
        expectUndecided(
            await runResource(workloadTerminationGrace, fromRuntime),
            /^Undecided: Deployment prod\/api container "app" sleeps \$DELAY in its preStop hook, a length only known at run time.*terminationGracePeriodSeconds 60.*To decide it: /,
        );
        const fromConfigMap = changed(fromRuntime, "spec.template.spec.containers.0.env", [
            { name: "DELAY", valueFrom: { configMapKeyRef: { name: "drain", key: "delay" } } },
        ]);
        expectUndecided(await runResource(workloadTerminationGrace, fromConfigMap), /sleeps \$DELAY in its preStop hook/);
        const fromEnv = changed(fromRuntime, "spec.template.spec.containers.0.env", [{ name: "DELAY", value: "10" }]);
        expectClean(await runResource(workloadTerminationGrace, fromEnv));
        expectViolations(
            await runResource(workloadTerminationGrace, changed(fromEnv, "spec.template.spec.containers.0.env.0.value", "90")),
            /not above the 90 s preStop sleep/,
        );
    });

    it("counts native sidecars' preStop sleeps, not plain init containers'", async () => {
        const I = "spec.template.spec.initContainers.0";
        const init = changed(deployment(), `${I}.lifecycle.preStop`, { sleep: { seconds: 90 } });
        expectClean(await runResource(workloadTerminationGrace, init));
        expectViolations(
            await runResource(workloadTerminationGrace, changed(init, `${I}.restartPolicy`, "Always")),
            /to 60, not above the 90 s preStop sleep of container "migrate"/,
        );
    });

    it("reports a grace period that is not an integer", async () => {
        expectViolations(await runResource(workloadTerminationGrace, changed(deployment(), T, "60")), /"60", which is not a whole number/);
    });

    it("leaves the verdict to the analyzer when the grace period is unknown", async () => {
        const outcome = await runResource(workloadTerminationGrace, changed(deployment(), T, UNKNOWN.number));
        expect(outcome.violations).to.deep.equal([]);
        expect(outcome.cantRun).to.match(/terminationGracePeriodSeconds can't be known during preview/);
    });

    it("rejects min above max", async () => {
        let error: unknown;
        try {
            await runResource(workloadTerminationGrace, deployment(), { min: 200, max: 120 });
        } catch (err) {
            error = err;
        }
        expect(String(error)).to.match(/workload-termination-grace\.min: 200 is above max 120/);
        // Without a max, any min is a bound.
        expectClean(await runResource(workloadTerminationGrace, changed(deployment(), T, 200), { min: 200 }));
    });
});

describe("policy workload-termination-grace: legacy and bare controllers", () => {
    it("judges a ReplicationController and a bare ReplicaSet like a Deployment", async () => {
        for (const w of [replicationController(), replicaSet()]) {
            expectClean(await runResource(workloadTerminationGrace, w));
            expectViolations(
                await runResource(workloadTerminationGrace, changed(w, T, undefined)),
                /(ReplicationController prod\/frontend|ReplicaSet prod\/worker) does not set spec\.template\.spec\.terminationGracePeriodSeconds/,
            );
        }
    });
});
