import { expect } from "chai";
import { namespaceQuotaRequired } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { limitRange, namespace, resourceQuota } from "./fixtures";
import { changed, runStack, UNKNOWN, urnOf } from "./harness";

describe("policy namespace-quota-required (stack)", () => {
    it("passes a namespace with a full quota and a LimitRange", async () => {
        expectClean(await runStack(namespaceQuotaRequired, [namespace(), resourceQuota(), limitRange()]));
    });

    it("reports a namespace without a quota, on the namespace's URN", async () => {
        const ns = namespace();
        const outcome = await runStack(namespaceQuotaRequired, [ns, limitRange()]);
        expectViolations(outcome, /Namespace prod has no ResourceQuota/);
        expect(outcome.violations[0].urn).to.equal(urnOf(ns));
    });

    it("reports each dimension the quota leaves open", async () => {
        const q = changed(resourceQuota(), "spec.hard", { "requests.memory": "1Gi", "limits.memory": "2Gi" });
        expectViolations(
            await runStack(namespaceQuotaRequired, [namespace(), q, limitRange()]),
            /The unscoped ResourceQuotas of namespace prod do not limit cpu, pods/,
        );
    });

    it("accepts the dimensions spread over several quotas", async () => {
        const cpu = changed(resourceQuota(), "spec.hard", { "requests.cpu": "4", "requests.memory": "8Gi" });
        const pods = { ...changed(resourceQuota(), "spec.hard", { pods: "10" }), name: "prod-pods" };
        expectClean(await runStack(namespaceQuotaRequired, [namespace(), cpu, pods, limitRange()]));
    });

    it("does not count a quota with scopes or a scopeSelector as the namespace's quota", async () => {
        const besteffort = changed(resourceQuota(), "spec.scopes", ["BestEffort"]);
        const priority = changed(resourceQuota(), "spec.scopeSelector", {
            matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["high"] }],
        });
        expectViolations(
            await runStack(namespaceQuotaRequired, [namespace(), besteffort, limitRange()]),
            /Namespace prod has only scoped ResourceQuotas \(compute \(scopes BestEffort\)\), none for all its pods.*bounds only the pods its scope matches.*Fix: add a ResourceQuota without scopes or scopeSelector/,
        );
        expectViolations(
            await runStack(namespaceQuotaRequired, [namespace(), priority, limitRange()]),
            /only scoped ResourceQuotas \(compute \(scopeSelector\)\)/,
        );
        // A scoped quota's keys do not fill the gaps of the unscoped one.
        const partial = { ...changed(resourceQuota(), "spec.hard", { pods: "10" }), name: "prod-pods" };
        expectViolations(
            await runStack(namespaceQuotaRequired, [namespace(), besteffort, partial, limitRange()]),
            /unscoped ResourceQuotas of namespace prod do not limit cpu, memory/,
        );
        // Empty scopes and an empty scopeSelector bound every pod.
        expectClean(await runStack(namespaceQuotaRequired, [namespace(), changed(resourceQuota(), "spec.scopes", []), limitRange()]));
        expectClean(
            await runStack(namespaceQuotaRequired, [
                namespace(),
                changed(resourceQuota(), "spec.scopeSelector", { matchExpressions: [] }),
                limitRange(),
            ]),
        );
        expectClean(
            await runStack(namespaceQuotaRequired, [namespace(), besteffort, { ...resourceQuota(), name: "prod-all" }, limitRange()]),
        );
    });

    it("does not count a LimitRange that gives containers no default cpu and memory", async () => {
        for (const limits of [
            [],
            [{ type: "Pod", max: { cpu: "4", memory: "8Gi" } }],
            [{ type: "PersistentVolumeClaim", default: { storage: "1Gi" } }],
            "Container",
        ]) {
            expectViolations(
                await runStack(namespaceQuotaRequired, [namespace(), resourceQuota(), changed(limitRange(), "spec.limits", limits)]),
                /The LimitRanges of namespace prod give containers no default\.cpu, default\.memory, defaultRequest\.cpu, defaultRequest\.memory/,
            );
        }
        expectViolations(
            await runStack(namespaceQuotaRequired, [
                namespace(),
                resourceQuota(),
                changed(limitRange(), "spec.limits", [
                    { type: "Container", default: { memory: "1Gi" }, defaultRequest: { memory: "512Mi" } },
                ]),
            ]),
            /give containers no default\.cpu, defaultRequest\.cpu \(no type: Container item sets them\)/,
        );
    });

    it("asks only for the defaults the quota needs: no default CPU limit where no quota bounds limits.cpu", async () => {
        const noCpuLimits = changed(resourceQuota(), "spec.hard", {
            "requests.cpu": "16",
            "requests.memory": "32Gi",
            "limits.memory": "64Gi",
            pods: "100",
        });
        const memoryLimitOnly = changed(limitRange(), "spec.limits", [
            { type: "Container", default: { memory: "1Gi" }, defaultRequest: { cpu: "100m", memory: "512Mi" } },
        ]);
        expectClean(await runStack(namespaceQuotaRequired, [namespace(), noCpuLimits, memoryLimitOnly]));
        // The same LimitRange falls short once a quota bounds limits.cpu.
        expectViolations(
            await runStack(namespaceQuotaRequired, [namespace(), resourceQuota(), memoryLimitOnly]),
            /give containers no default\.cpu \(no type: Container item sets it\)/,
        );
    });

    it("applies the API server's LimitRange defaulting: default from max, defaultRequest from default", async () => {
        expectClean(
            await runStack(namespaceQuotaRequired, [
                namespace(),
                resourceQuota(),
                changed(limitRange(), "spec.limits", [{ type: "Container", max: { cpu: "2", memory: "2Gi" } }]),
            ]),
        );
        expectClean(
            await runStack(namespaceQuotaRequired, [
                namespace(),
                resourceQuota(),
                changed(limitRange(), "spec.limits", [{ type: "Container", default: { cpu: "1", memory: "1Gi" } }]),
            ]),
        );
    });

    it("reports a namespace without a LimitRange", async () => {
        expectViolations(await runStack(namespaceQuotaRequired, [namespace(), resourceQuota()]), /Namespace prod has no LimitRange/);
    });

    it("does not count a quota of another namespace", async () => {
        expectViolations(await runStack(namespaceQuotaRequired, [namespace(), resourceQuota("web"), limitRange()]), /no ResourceQuota/);
    });

    it("exempts system namespaces (configurable) and says so when nothing is left", async () => {
        expect((await runStack(namespaceQuotaRequired, [namespace("kube-system"), namespace("default")])).notApplicable).to.match(
            /nothing was checked/,
        );
        expectViolations(
            await runStack(namespaceQuotaRequired, [namespace("default")], { exemptNamespaces: [] }),
            /Namespace default has no ResourceQuota/,
            /Namespace default has no LimitRange/,
        );
    });

    it("leaves a namespace with an unknown name undecided", async () => {
        const outcome = await runStack(namespaceQuotaRequired, [
            changed(namespace(), "metadata.name", UNKNOWN.string),
            namespace("dev"),
            resourceQuota("dev"),
            limitRange("dev"),
        ]);
        expect(outcome.violations).to.deep.equal([]);
        expect(outcome.cantRun).to.match(/metadata\.name can't be known during preview.*Namespace ns-prod/);
    });
});
