import { expect } from "chai";
import { workloadResources } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { cronJob, daemonSet, deployment, job, pod, replicaSet, replicationController, statefulSet, vpc } from "./fixtures";
import { changed, runResource, UNKNOWN } from "./harness";

const C = "spec.template.spec.containers.0.resources";

describe("policy workload-resources", () => {
    it("passes compliant workloads of every kind, Job and CronJob templates included", async () => {
        for (const w of [deployment(), statefulSet(), daemonSet(), pod(), job(), cronJob()]) {
            expectClean(await runResource(workloadResources, w));
        }
    });

    it("is not applicable to other resources", async () => {
        expect((await runResource(workloadResources, vpc())).notApplicable).to.match(/not a Kubernetes workload/);
    });

    for (const key of ["requests.cpu", "requests.memory", "limits.memory", "limits.cpu"]) {
        it(`reports a container without resources.${key}`, async () => {
            const outcome = await runResource(workloadResources, changed(deployment(), `${C}.${key}`, undefined));
            expectViolations(outcome, new RegExp(`Deployment prod/api container "app" sets no resources\\.${key.replace(".", "\\.")}`));
        });
    }

    it("reports init containers and CronJob templates too", async () => {
        expectViolations(
            await runResource(
                workloadResources,
                changed(deployment(), "spec.template.spec.initContainers.0.resources.requests.memory", undefined),
            ),
            /init container "migrate" sets no resources\.requests\.memory/,
        );
        expectViolations(
            await runResource(
                workloadResources,
                changed(cronJob(), "spec.jobTemplate.spec.template.spec.containers.0.resources.limits.memory", undefined),
            ),
            /CronJob prod\/report container "app" sets no resources\.limits\.memory/,
        );
    });

    it("accepts a missing CPU limit when requireCpuLimit is false", async () => {
        const w = changed(deployment(), `${C}.limits.cpu`, undefined);
        expectClean(await runResource(workloadResources, w, { requireCpuLimit: false }));
    });

    it("reports a request above its limit, comparing units", async () => {
        expectViolations(
            await runResource(workloadResources, changed(deployment(), `${C}.requests.memory`, "1Gi")),
            /requests more memory \("1Gi"\) than its limit \("512Mi"\)/,
        );
        expectViolations(
            await runResource(workloadResources, changed(deployment(), `${C}.requests.cpu`, 2)),
            /requests more cpu \(2\) than its limit \("1"\)/,
        );
        expectClean(await runResource(workloadResources, changed(deployment(), `${C}.requests.cpu`, "1000m")));
    });

    it("compares requests and limits exactly, without float rounding", async () => {
        const at = (request: unknown, limit: unknown) =>
            changed(changed(deployment(), `${C}.requests.cpu`, request), `${C}.limits.cpu`, limit);
        expectClean(await runResource(workloadResources, at("1001m", "1.001")));
        expectClean(await runResource(workloadResources, at("1.001", "1001m")));
        expectClean(await runResource(workloadResources, at("100m", 0.1)));
        expectViolations(
            await runResource(workloadResources, at("1002m", "1.001")),
            /requests more cpu \("1002m"\) than its limit \("1\.001"\)/,
        );
        expectViolations(await runResource(workloadResources, at("1.0011", "1001m")), /requests more cpu/);
    });

    it("reports a value that is not a quantity", async () => {
        expectViolations(
            await runResource(workloadResources, changed(deployment(), `${C}.limits.memory`, "512MB")),
            /limits\.memory "512MB", which is not a Kubernetes quantity/,
        );
    });

    it("reports resources written as a list, or requests and limits that are not maps, as the type errors they are", async () => {
        const C0 = "spec.template.spec.containers.0";
        expectViolations(
            await runResource(workloadResources, changed(deployment(), `${C0}.resources`, [{ cpu: "1" }, { memory: "1Gi" }])),
            /container "app" has resources as a list, not a map of requests and limits\. Why: the API server rejects the object/,
        );
        expectViolations(
            await runResource(workloadResources, changed(deployment(), `${C0}.resources.requests`, ["cpu=1"])),
            /container "app" has resources\.requests as a list, not a map of resource names to quantities/,
        );
        expectViolations(
            await runResource(workloadResources, changed(deployment(), `${C0}.resources.limits`, "1 CPU")),
            /container "app" has resources\.limits as the string "1 CPU", not a map/,
        );
    });

    it("decides the known containers when one container's resources are unknown", async () => {
        const w = changed(
            changed(deployment(), `${C}`, UNKNOWN.object),
            "spec.template.spec.initContainers.0.resources.limits.memory",
            undefined,
        );
        const outcome = await runResource(workloadResources, w);
        expect(outcome.violations.map((v) => v.message)).to.have.length(1);
        expect(outcome.violations[0].message).to.match(/init container "migrate" sets no resources\.limits\.memory/);
        expect(outcome.cantRun).to.match(
            /can't run policy 'workload-resources'.*during preview.*undecided until the values are known: Deployment prod\/api container "app"/,
        );
    });

    it("rejects bad config naming the key", async () => {
        let error: unknown;
        try {
            await runResource(workloadResources, deployment(), { requireCpuLimit: "no" });
        } catch (err) {
            error = err;
        }
        expect(String(error)).to.match(/workload-resources\.requireCpuLimit: must be a boolean/);
    });
});

describe("policy workload-resources: one message per container", () => {
    it("lists every missing field of a bare container in one message, with the reason for each", async () => {
        const outcome = await runResource(workloadResources, changed(deployment(), C, undefined));
        expectViolations(
            outcome,
            /Deployment prod\/api container "app" sets no resources\.requests\.cpu, resources\.requests\.memory, resources\.limits\.memory or resources\.limits\.cpu\. Why: requests\.cpu: .*scheduler.*; requests\.memory: .*; limits\.memory: .*OOM.*; limits\.cpu: .*starve.*Fix: set resources\.requests\.cpu \(e\.g\. "100m"\), resources\.requests\.memory \(e\.g\. "128Mi"\), resources\.limits\.memory \(e\.g\. "512Mi"\) and resources\.limits\.cpu \(e\.g\. "500m"\)/,
        );
    });

    it("keeps containers apart: two bare containers give two messages", async () => {
        const w = changed(changed(deployment(), C, undefined), "spec.template.spec.initContainers.0.resources", undefined);
        expectViolations(await runResource(workloadResources, w), /init container "migrate" sets no/, /container "app" sets no/);
    });
});

describe("policy workload-resources: legacy and bare controllers", () => {
    it("judges a ReplicationController and a bare ReplicaSet like a Deployment", async () => {
        for (const w of [replicationController(), replicaSet()]) {
            expectClean(await runResource(workloadResources, w));
            expectViolations(
                await runResource(workloadResources, changed(w, `${C}.limits.memory`, undefined)),
                /(ReplicationController prod\/frontend|ReplicaSet prod\/worker) container "app" sets no resources\.limits\.memory/,
            );
        }
    });
});
