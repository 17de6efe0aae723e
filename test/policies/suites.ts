/**
 * Every policy with compliant resource sets it judges: the base of the unknown-value sweep and
 * the property-based test.
 */
import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { accessLeastPrivilege } from "../../policies/accessLeastPrivilege";
import { apiVersionsServed } from "../../policies/apiVersionsServed";
import { clusterHardening } from "../../policies/clusterHardening";
import { drainWindow } from "../../policies/drainWindow";
import { karpenterNodeClass } from "../../policies/karpenterNodeClass";
import { karpenterNodePool } from "../../policies/karpenterNodePool";
import { namespaceIsolation } from "../../policies/namespaceIsolation";
import { namespaceQuotaRequired } from "../../policies/namespaceQuotaRequired";
import { nodegroupUpdateConfig } from "../../policies/nodegroupUpdateConfig";
import { nodeLaunchHardening } from "../../policies/nodeLaunchHardening";
import { nodeRolePolicies } from "../../policies/nodeRolePolicies";
import { pdbAllowsDisruption } from "../../policies/pdbAllowsDisruption";
import { subnetEksTags } from "../../policies/subnetEksTags";
import { vpcDns } from "../../policies/vpcDns";
import { workloadPdbRequired } from "../../policies/workloadPdbRequired";
import { workloadPrestopHook } from "../../policies/workloadPrestopHook";
import { workloadResources } from "../../policies/workloadResources";
import { workloadServiceReplicas } from "../../policies/workloadServiceReplicas";
import { workloadTerminationGrace } from "../../policies/workloadTerminationGrace";
import * as f from "./fixtures";
import { Outcome, runResource, runStack, TestResource } from "./harness";

export interface Suite {
    name: string;
    /** Compliant sets: each is one resource (resource policies) or one stack. */
    compliant: TestResource[][];
    run(resources: TestResource[]): Promise<Outcome>;
}

function resourceSuite(policy: ResourceValidationPolicy, ...fixtures: TestResource[]): Suite {
    return { name: policy.name, compliant: fixtures.map((r) => [r]), run: (rs) => runResource(policy, rs[0]) };
}

function stackSuite(policy: StackValidationPolicy, ...stacks: TestResource[][]): Suite {
    return { name: policy.name, compliant: stacks, run: (rs) => runStack(policy, rs) };
}

export const suites: Suite[] = [
    resourceSuite(workloadResources, f.deployment(), f.statefulSet(), f.daemonSet(), f.pod(), f.job(), f.cronJob()),
    resourceSuite(workloadTerminationGrace, f.deployment(), f.pod()),
    stackSuite(workloadPrestopHook, [f.deployment(), f.service()]),
    stackSuite(workloadServiceReplicas, [f.deployment(), f.service()]),
    stackSuite(
        workloadPdbRequired,
        [f.deployment(), f.pdb()],
        [f.replicationController(), f.pdb("rc", "prod", { maxUnavailable: 1, selector: { matchLabels: { app: "frontend" } } })],
    ),
    stackSuite(pdbAllowsDisruption, [f.deployment(), f.pdb()], [f.alertmanager(), f.alertmanagerPdb()]),
    stackSuite(namespaceQuotaRequired, [f.namespace(), f.resourceQuota(), f.limitRange()]),
    stackSuite(drainWindow, [f.deployment(), f.nodePool(), f.lifecycleHook()]),
    stackSuite(apiVersionsServed, [f.eksComponent(), f.deployment(), f.pdb()]),
    resourceSuite(karpenterNodePool, f.nodePool()),
    resourceSuite(karpenterNodeClass, f.nodeClass()),
    resourceSuite(subnetEksTags, f.subnet("public"), f.subnet("private")),
    resourceSuite(vpcDns, f.vpc()),
    stackSuite(nodeRolePolicies, [...f.nodeRoleWithPolicies(), f.nodeGroup()]),
    resourceSuite(nodeLaunchHardening, f.launchTemplate(), f.securityGroup(), f.ingressRule(), f.securityGroupRule()),
    resourceSuite(nodegroupUpdateConfig, f.nodeGroup()),
    resourceSuite(clusterHardening, f.eksComponent(), f.awsCluster()),
    stackSuite(namespaceIsolation, [
        f.namespace(),
        f.networkPolicy(),
        f.networkPolicy("prod", "allow-same-namespace", {
            podSelector: {},
            policyTypes: ["Ingress"],
            ingress: [{ from: [{ podSelector: {} }] }],
        }),
    ]),
    stackSuite(accessLeastPrivilege, f.accessGrants(), [f.eksComponentWithAccess()]),
];
