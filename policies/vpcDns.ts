import { validateResourceOfType } from "@pulumi/policy";
import { resourceType, Verdicts, violation } from "eks-platform-evaluation";
import { field, isFalse, isTrue } from "eks-platform-kernel";
import { declareResourcePolicy } from "./declare";

const WHY =
    "nodes resolve the EKS API endpoint (private endpoint included) and AWS service endpoints through VPC DNS: without it they never join the cluster, and private endpoints do not resolve";

/** VPCs enable DNS hostnames and DNS support. */
export const vpcDns = declareResourcePolicy({
    name: "vpc-dns",
    description: "VPCs enable DNS hostnames and DNS support, which EKS nodes need to reach the cluster.",
    enforcementLevel: "mandatory",
    docs: {
        requires: "DNS hostnames and DNS support on",
        checks: "VPCs set `enableDnsHostnames: true` and do not set `enableDnsSupport: false`",
    },
    validateResource: validateResourceOfType(resourceType("aws:ec2/vpc:Vpc"), (props, args, reportViolation) => {
        // AWS defaults: DNS support on, DNS hostnames off, so only the first may be left unset.
        const verdicts = new Verdicts();
        verdicts.judge(`VPC ${args.name} enableDnsHostnames`, () => {
            if (!isTrue(field(props, "enableDnsHostnames"))) {
                reportViolation(
                    violation(`VPC ${args.name} does not set enableDnsHostnames: true`, WHY, "set enableDnsHostnames: true on the VPC"),
                );
            }
        });
        verdicts.judge(`VPC ${args.name} enableDnsSupport`, () => {
            if (isFalse(field(props, "enableDnsSupport"))) {
                reportViolation(
                    violation(`VPC ${args.name} sets enableDnsSupport: false`, WHY, "set enableDnsSupport: true (or leave it unset)"),
                );
            }
        });
        verdicts.finish();
    }),
});
