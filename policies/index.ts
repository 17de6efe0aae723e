// The policy pack as the Pulumi CLI runs it. Constructing a PolicyPack starts the analyzer gRPC
// server (and may call process.exit), so this is the only file that does; tests and tools import
// the policy modules instead.
import { PolicyPack } from "@pulumi/policy";
import { policies } from "./policies";

new PolicyPack("eks-platform", { policies });
