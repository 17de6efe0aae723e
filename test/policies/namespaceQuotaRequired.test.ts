import { expect } from "chai";
import { namespaceQuotaRequired } from "../../policies/namespaceQuotaRequired";
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
            /ResourceQuota of namespace prod does not limit cpu, pods/,
        );
    });

    it("accepts the dimensions spread over several quotas", async () => {
        const cpu = changed(resourceQuota(), "spec.hard", { "requests.cpu": "4", "requests.memory": "8Gi" });
        const pods = { ...changed(resourceQuota(), "spec.hard", { pods: "10" }), name: "prod-pods" };
        expectClean(await runStack(namespaceQuotaRequired, [namespace(), cpu, pods, limitRange()]));
    });

    it("reports a namespace without a LimitRange", async () => {
        expectViolations(await runStack(namespaceQuotaRequired, [namespace(), resourceQuota()]), /Namespace prod has no LimitRange/);
    });

    it("does not count a quota of another namespace", async () => {
        expectViolations(await runStack(namespaceQuotaRequired, [namespace(), resourceQuota("staging"), limitRange()]), /no ResourceQuota/);
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
