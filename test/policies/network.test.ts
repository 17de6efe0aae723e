import { expect } from "chai";
import { subnetEksTags } from "../../policies/subnetEksTags";
import { vpcDns } from "../../policies/vpcDns";
import { expectClean, expectViolations } from "./expect";
import { subnet, vpc } from "./fixtures";
import { changed, runResource, UNKNOWN } from "./harness";

describe("policy subnet-eks-tags", () => {
    it("passes tagged public and private subnets, with an unknown vpcId", async () => {
        expectClean(await runResource(subnetEksTags, subnet("public")));
        expectClean(await runResource(subnetEksTags, subnet("private")));
        expectClean(await runResource(subnetEksTags, subnet("private"), { clusterName: "platform-prod" }));
    });

    it("is not applicable to other resources", async () => {
        expect((await runResource(subnetEksTags, vpc())).notApplicable).to.match(
            /only applies to resources of type 'aws:ec2\/subnet:Subnet'/,
        );
    });

    it("reports a subnet without the cluster tag, or with another cluster's, or a bad value", async () => {
        const withTag = (value: string | undefined) => {
            const s = subnet();
            const tags = { ...(s.props.tags as Record<string, string>) };
            if (value === undefined) {
                delete tags["kubernetes.io/cluster/platform-prod"];
            } else {
                tags["kubernetes.io/cluster/platform-prod"] = value;
            }
            return { ...s, props: { ...s.props, tags } };
        };
        expectViolations(
            await runResource(subnetEksTags, withTag(undefined)),
            /Subnet network-private-us-east-1a has no tag kubernetes\.io\/cluster\/<cluster name> with value owned or shared/,
        );
        expectViolations(await runResource(subnetEksTags, withTag("yes")), /has no tag kubernetes\.io\/cluster\/<cluster name>/);
        expectClean(await runResource(subnetEksTags, withTag("owned")));
        expectViolations(
            await runResource(subnetEksTags, subnet(), { clusterName: "platform-dev" }),
            /no tag kubernetes\.io\/cluster\/platform-dev with value owned or shared/,
        );
    });

    it("reports a public subnet without the elb role tag, by tier tag or by mapPublicIpOnLaunch", async () => {
        const pub = subnet("public");
        const tags = { ...(pub.props.tags as Record<string, string>) };
        delete tags["kubernetes.io/role/elb"];
        expectViolations(
            await runResource(subnetEksTags, { ...pub, props: { ...pub.props, tags } }),
            /Public Subnet network-public-us-east-1a lacks tag kubernetes\.io\/role\/elb=1/,
        );
        expectViolations(
            await runResource(subnetEksTags, changed(subnet("private"), "mapPublicIpOnLaunch", true)),
            /Public Subnet .* lacks tag kubernetes\.io\/role\/elb=1/,
        );
    });

    it("reports a private subnet without the internal-elb role tag", async () => {
        const priv = subnet("private");
        const tags = { ...(priv.props.tags as Record<string, string>), "kubernetes.io/role/internal-elb": "0" };
        expectViolations(
            await runResource(subnetEksTags, { ...priv, props: { ...priv.props, tags } }),
            /Private Subnet network-private-us-east-1a lacks tag kubernetes\.io\/role\/internal-elb=1/,
        );
    });

    it("cannot decide (advisory can't-run) when the tags themselves are unknown", async () => {
        const outcome = await runResource(subnetEksTags, changed(subnet(), "tags", UNKNOWN.object));
        expect(outcome.violations).to.deep.equal([]);
        expect(outcome.cantRun).to.match(/tags can't be known during preview/);
    });
});

describe("policy vpc-dns", () => {
    it("passes a VPC with DNS hostnames and support", async () => {
        expectClean(await runResource(vpcDns, vpc()));
        expectClean(await runResource(vpcDns, changed(vpc(), "enableDnsSupport", undefined)));
    });

    it("reports DNS hostnames off or unset, and DNS support off", async () => {
        expectViolations(
            await runResource(vpcDns, changed(vpc(), "enableDnsHostnames", false)),
            /VPC network-vpc does not set enableDnsHostnames: true.*never join/,
        );
        expectViolations(await runResource(vpcDns, changed(vpc(), "enableDnsHostnames", undefined)), /does not set enableDnsHostnames/);
        expectViolations(await runResource(vpcDns, changed(vpc(), "enableDnsSupport", false)), /sets enableDnsSupport: false/);
    });
});
