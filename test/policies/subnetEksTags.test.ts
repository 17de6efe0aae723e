import { expect } from "chai";
import { subnetEksTags } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { awsCluster, eksComponent, subnet, vpc } from "./fixtures";
import { changed, runStack, UNKNOWN } from "./harness";

describe("policy subnet-eks-tags (stack)", () => {
    const cluster = eksComponent(); // named platform-prod, as the subnets are tagged
    const withClusterTag = (value: string | undefined, key = "kubernetes.io/cluster/platform-prod") => {
        const s = subnet();
        const tags = { ...(s.props.tags as Record<string, string>) };
        delete tags["kubernetes.io/cluster/platform-prod"];
        if (value !== undefined) {
            tags[key] = value;
        }
        return { ...s, props: { ...s.props, tags } };
    };

    it("passes tagged public and private subnets of the stack's cluster, with an unknown vpcId", async () => {
        expectClean(await runStack(subnetEksTags, [cluster, subnet("public"), subnet("private")]));
        expectClean(await runStack(subnetEksTags, [awsCluster(), subnet("private")]));
        expectClean(await runStack(subnetEksTags, [subnet("private")], { clusterName: "platform-prod" }));
    });

    it("takes the cluster name from the stack: a renamed cluster needs no policy config", async () => {
        const renamed = changed(cluster, "name", "acme-dev");
        expectClean(await runStack(subnetEksTags, [renamed, withClusterTag("owned", "kubernetes.io/cluster/acme-dev")]));
        expectViolations(
            await runStack(subnetEksTags, [renamed, subnet()]),
            /Subnet network-private-us-east-1a has no tag kubernetes\.io\/cluster\/acme-dev with value owned or shared/,
        );
    });

    it("lets the clusterName knob override the stack (a VPC shared with another stack's cluster)", async () => {
        expectViolations(
            await runStack(subnetEksTags, [cluster, subnet()], { clusterName: "platform-dev" }),
            /no tag kubernetes\.io\/cluster\/platform-dev with value owned or shared/,
        );
        expectClean(await runStack(subnetEksTags, [changed(cluster, "name", "other"), subnet()], { clusterName: "platform-prod" }));
    });

    it("accepts the tag of any cluster of the stack, and counts the component and its AWS cluster once", async () => {
        const second = { ...changed(awsCluster(), "name", "platform-batch"), name: "batch-cluster" };
        expectClean(
            await runStack(subnetEksTags, [
                cluster,
                awsCluster(),
                second,
                withClusterTag("shared", "kubernetes.io/cluster/platform-batch"),
            ]),
        );
        expectViolations(
            await runStack(subnetEksTags, [cluster, second, withClusterTag(undefined)]),
            /has no tag kubernetes\.io\/cluster\/platform-prod or kubernetes\.io\/cluster\/platform-batch/,
        );
    });

    it("reports a subnet without the cluster tag, with another cluster's, or with a bad value", async () => {
        expectViolations(
            await runStack(subnetEksTags, [cluster, withClusterTag(undefined)]),
            /has no tag kubernetes\.io\/cluster\/platform-prod/,
        );
        expectViolations(
            await runStack(subnetEksTags, [cluster, withClusterTag("yes")]),
            /has no tag kubernetes\.io\/cluster\/platform-prod/,
        );
        expectViolations(
            await runStack(subnetEksTags, [cluster, withClusterTag("owned", "kubernetes.io/cluster/platform-dev")]),
            /has no tag kubernetes\.io\/cluster\/platform-prod/,
        );
        expectClean(await runStack(subnetEksTags, [cluster, withClusterTag("owned")]));
    });

    it("leaves the cluster tag undecided, never passed, when the stack has no cluster and no knob names one", async () => {
        const outcome = await runStack(subnetEksTags, [subnet("public"), subnet("private")]);
        expect(outcome.violations).to.deep.equal([]);
        expect(outcome.cantRun).to.match(/no EKS cluster in this stack .* set subnet-eks-tags\.clusterName/);
        expect(outcome.cantRun).to.match(
            /undecided until then: Subnet network-public-us-east-1a cluster tag; Subnet network-private-us-east-1a cluster tag/,
        );
        // The role tags are still judged.
        const pub = subnet("public");
        const tags = { ...(pub.props.tags as Record<string, string>) };
        delete tags["kubernetes.io/role/elb"];
        const withoutRole = await runStack(subnetEksTags, [{ ...pub, props: { ...pub.props, tags } }]);
        expect(withoutRole.violations.map((v) => v.message)).to.satisfy(
            (m: string[]) => m.length === 1 && /lacks tag kubernetes\.io\/role\/elb=1/.test(m[0]),
        );
        expect(withoutRole.cantRun).to.match(/no EKS cluster in this stack/);
    });

    it("leaves a subnet undecided when the cluster's name is unknown at preview, and decides the others", async () => {
        const outcome = await runStack(subnetEksTags, [
            changed(cluster, "name", UNKNOWN.string),
            awsCluster(),
            withClusterTag(undefined),
            subnet(),
        ]);
        expect(outcome.violations).to.deep.equal([]);
        expect(outcome.cantRun).to.match(/name can't be known during preview/);
        expect(outcome.cantRun).to.match(/undecided until the values are known: .*cluster tag/);
    });

    it("is not applicable to a stack without subnets", async () => {
        expect((await runStack(subnetEksTags, [cluster, vpc()])).notApplicable).to.match(/no aws:ec2\/subnet:Subnet in this stack/);
    });

    it("reports a public subnet without the elb role tag, by tier tag or by mapPublicIpOnLaunch", async () => {
        const pub = subnet("public");
        const tags = { ...(pub.props.tags as Record<string, string>) };
        delete tags["kubernetes.io/role/elb"];
        expectViolations(
            await runStack(subnetEksTags, [cluster, { ...pub, props: { ...pub.props, tags } }]),
            /Public Subnet network-public-us-east-1a lacks tag kubernetes\.io\/role\/elb=1/,
        );
        expectViolations(
            await runStack(subnetEksTags, [cluster, changed(subnet("private"), "mapPublicIpOnLaunch", true)]),
            /Public Subnet .* lacks tag kubernetes\.io\/role\/elb=1/,
        );
    });

    it("reports a private subnet without the internal-elb role tag", async () => {
        const priv = subnet("private");
        const tags = { ...(priv.props.tags as Record<string, string>), "kubernetes.io/role/internal-elb": "0" };
        expectViolations(
            await runStack(subnetEksTags, [cluster, { ...priv, props: { ...priv.props, tags } }]),
            /Private Subnet network-private-us-east-1a lacks tag kubernetes\.io\/role\/internal-elb=1/,
        );
    });

    it("cannot decide (advisory can't-run) when the tags themselves are unknown", async () => {
        const outcome = await runStack(subnetEksTags, [cluster, changed(subnet(), "tags", UNKNOWN.object)]);
        expect(outcome.violations).to.deep.equal([]);
        expect(outcome.cantRun).to.match(/tags can't be known during preview/);
    });
});
