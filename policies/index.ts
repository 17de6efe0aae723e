// The policy pack as the Pulumi CLI runs it. Constructing a PolicyPack starts the analyzer gRPC
// server (and may call process.exit), so this is the only file that does; tests and tools import
// the policy modules instead.
import { PolicyPack } from "@pulumi/policy";
import { runtimePolicies } from "./runtime/packRuntime";
import { policies } from "./policies";

// Speed only, verdicts unchanged, and the SDK's internals only on the release they were verified
// on: see runtime/packRuntime.ts.
new PolicyPack("eks-platform", { policies: runtimePolicies(policies).policies });
