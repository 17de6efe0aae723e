// The policy pack as the Pulumi CLI runs it. Constructing a PolicyPack starts the analyzer gRPC
// server (and may call process.exit), so this is the only file that does; tests and tools import
// the policy modules instead.
import { PolicyPack } from "@pulumi/policy";
import { memoizeStructConversion, withKnownProperties, withStacklessNotApplicable } from "./runtime/packRuntime";
import { policies } from "./policies";

// Speed only, verdicts unchanged: see runtime/packRuntime.ts.
memoizeStructConversion();

new PolicyPack("eks-platform", { policies: withKnownProperties(withStacklessNotApplicable(policies)) });
