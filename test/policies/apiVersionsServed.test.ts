import { expect } from "chai";
import { apiVersionsServed, pdbAllowsDisruption, workloadPdbRequired } from "eks-platform-policies";
import { parseRelease, removedApi, REMOVED_APIS } from "eks-platform-evaluation";
import { expectClean, expectUndecided, expectViolations } from "./expect";
import { deployment, eksComponent, pdb } from "./fixtures";
import { changed, MANIFEST_TAGS, runStack, TestResource, UNKNOWN, urnOf } from "./harness";

/** A resource written against another API version, as the manifest gate and the Kubernetes provider register it. */
function at(r: TestResource, apiVersion: string): TestResource {
    const kind = r.props.kind as string;
    const token = apiVersion.includes("/") ? apiVersion : `core/${apiVersion}`;
    return { ...r, type: `kubernetes:${token}:${kind}`, props: { ...r.props, apiVersion } };
}

const betaPdb = at(pdb(), "policy/v1beta1");

describe("policy api-versions-served (stack)", () => {
    it("passes objects on served API versions, judged against the stack's cluster version", async () => {
        expectClean(await runStack(apiVersionsServed, [eksComponent(), deployment(), pdb()]));
    });

    it("reports a policy/v1beta1 PodDisruptionBudget and an extensions/v1beta1 Deployment on a 1.34 cluster, on their URNs", async () => {
        const cluster = changed(eksComponent(), "version", "1.34");
        const oldDeployment = at(deployment(), "extensions/v1beta1");
        const outcome = await runStack(apiVersionsServed, [cluster, oldDeployment, betaPdb]);
        expectViolations(
            outcome,
            /Deployment prod\/api uses apiVersion extensions\/v1beta1, which Kubernetes 1\.16 and later no longer serve; the cluster runs Kubernetes 1\.34 \(cluster-eks\)\. Why: the API server refuses the object .*Fix: write it against apiVersion apps\/v1/,
            /PodDisruptionBudget prod\/api uses apiVersion policy\/v1beta1, which Kubernetes 1\.25 and later no longer serve.*Fix: write it against apiVersion policy\/v1/,
        );
        expect(outcome.violations.map((v) => v.urn)).to.deep.equal([urnOf(oldDeployment), urnOf(betaPdb)]);
    });

    it("judges against the version the cluster pins: 1.24 still serves policy/v1beta1", async () => {
        expectClean(await runStack(apiVersionsServed, [changed(eksComponent(), "version", "1.24"), betaPdb]));
        expectViolations(await runStack(apiVersionsServed, [changed(eksComponent(), "version", "1.25"), betaPdb]), /policy\/v1beta1/);
    });

    it("takes a cluster without a version as the newest one, which serves none of the removed versions", async () => {
        expectViolations(
            await runStack(apiVersionsServed, [changed(eksComponent(), "version", undefined), betaPdb]),
            /the cluster runs the newest Kubernetes version \(cluster-eks sets no version\)/,
        );
    });

    it("judges plain manifests against kubernetesVersion, and says undecided (advisory) without one", async () => {
        expectViolations(
            await runStack(apiVersionsServed, [betaPdb], { kubernetesVersion: "1.34" }, MANIFEST_TAGS),
            /policy\/v1beta1.*the cluster runs Kubernetes 1\.34 \(api-versions-served\.kubernetesVersion\)/,
        );
        expectUndecided(
            await runStack(apiVersionsServed, [betaPdb], {}, MANIFEST_TAGS),
            /^Undecided: PodDisruptionBudget prod\/api uses apiVersion policy\/v1beta1.*Why: no EKS cluster in these manifests and no kubernetesVersion configured.*To decide it: set api-versions-served\.kubernetesVersion/,
        );
    });

    it("leaves removed versions undecided when the cluster's version is unknown at preview", async () => {
        const outcome = await runStack(apiVersionsServed, [changed(eksComponent(), "version", UNKNOWN.string), betaPdb, deployment()]);
        expect(outcome.violations).to.deep.equal([]);
        expect(outcome.cantRun).to.match(/undecided until the values are known: .*PodDisruptionBudget/);
    });

    it("is not applicable without Kubernetes objects", async () => {
        expect((await runStack(apiVersionsServed, [eksComponent()])).notApplicable).to.match(/no Kubernetes object in this stack/);
    });

    it("keeps its data consistent: every removal names a release and a replacement", () => {
        for (const r of REMOVED_APIS) {
            expect(parseRelease(r.removedIn), r.apiVersion).to.not.equal(undefined);
            expect(r.replacement, r.apiVersion).to.match(/^[a-z0-9.]+\/v\d+$|^v1$|^none: /);
        }
        expect(removedApi({ group: "policy", version: "v1beta1", kind: "PodDisruptionBudget" })?.removedIn).to.equal("1.25");
        expect(removedApi({ group: "policy", version: "v1", kind: "PodDisruptionBudget" })).to.equal(undefined);
        expect(removedApi({ group: "", version: "v1", kind: "ReplicationController" })).to.equal(undefined);
    });
});

describe("a PodDisruptionBudget on a removed API version covers nothing", () => {
    it("workload-pdb-required does not count it, and says why", async () => {
        expectViolations(
            await runStack(workloadPdbRequired, [deployment(), betaPdb]),
            /Deployment prod\/api \(3 replicas\) is not covered by any PodDisruptionBudget in namespace prod \(PodDisruptionBudget api matches it but uses apiVersion policy\/v1beta1, which Kubernetes 1\.25 and later refuse\)/,
        );
    });

    it("pdb-allows-disruption leaves it to api-versions-served, and does not count it as a second budget", async () => {
        expectClean(await runStack(pdbAllowsDisruption, [deployment(), pdb(), at(pdb("old"), "policy/v1beta1")]));
    });
});
