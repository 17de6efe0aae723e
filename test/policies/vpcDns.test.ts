import { vpcDns } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { vpc } from "./fixtures";
import { changed, runResource } from "./harness";

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
