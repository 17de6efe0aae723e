/**
 * Every policy with compliant resource sets it judges: the base of the unknown-value sweep and
 * the property-based test.
 */
import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { accessLeastPrivilege } from "eks-platform-policies/accessLeastPrivilege";
import { apiVersionsServed } from "eks-platform-policies/apiVersionsServed";
import { clusterHardening } from "eks-platform-policies/clusterHardening";
import { drainRehearsal } from "eks-platform-policies/drainRehearsal";
import { drainWindow } from "eks-platform-policies/drainWindow";
import { karpenterNodeClass } from "eks-platform-policies/karpenterNodeClass";
import { karpenterNodePool } from "eks-platform-policies/karpenterNodePool";
import { namespaceIsolation } from "eks-platform-policies/namespaceIsolation";
import { namespaceQuotaRequired } from "eks-platform-policies/namespaceQuotaRequired";
import { nodegroupUpdateConfig } from "eks-platform-policies/nodegroupUpdateConfig";
import { nodeLaunchHardening } from "eks-platform-policies/nodeLaunchHardening";
import { nodeRolePolicies } from "eks-platform-policies/nodeRolePolicies";
import { pdbAllowsDisruption } from "eks-platform-policies/pdbAllowsDisruption";
import { podSecurityStandard } from "eks-platform-policies/podSecurityStandard";
import { subnetEksTags } from "eks-platform-policies/subnetEksTags";
import { vpcDns } from "eks-platform-policies/vpcDns";
import { workloadPdbRequired } from "eks-platform-policies/workloadPdbRequired";
import { workloadPrestopHook } from "eks-platform-policies/workloadPrestopHook";
import { workloadResources } from "eks-platform-policies/workloadResources";
import { workloadServiceReplicas } from "eks-platform-policies/workloadServiceReplicas";
import { workloadTerminationGrace } from "eks-platform-policies/workloadTerminationGrace";
import { appRoleLeastPrivilege } from "eks-platform-policies/appRoleLeastPrivilege";
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
    stackSuite(
        workloadServiceReplicas,
        [f.deployment(), f.service()],
        [f.withoutReplicas(f.deployment()), f.hpa("api", 2, 6), f.service()],
    ),
    stackSuite(
        workloadPdbRequired,
        [f.deployment(), f.pdb()],
        [f.withoutReplicas(f.deployment()), f.hpa("api", 3, 6), f.pdb()],
        [f.replicationController(), f.pdb("rc", "prod", { maxUnavailable: 1, selector: { matchLabels: { app: "frontend" } } })],
    ),
    stackSuite(
        pdbAllowsDisruption,
        [f.deployment(), f.pdb()],
        [f.withoutReplicas(f.deployment()), f.scaledObject("api", 2, 6), f.pdb()],
        [f.alertmanager(), f.alertmanagerPdb()],
    ),
    stackSuite(namespaceQuotaRequired, [f.namespace(), f.resourceQuota(), f.limitRange()]),
    stackSuite(drainWindow, [f.deployment(), f.nodePool(), f.lifecycleHook()]),
    stackSuite(drainRehearsal, [f.nodeGroup(), f.deployment(), f.pdb()]),
    stackSuite(apiVersionsServed, [f.eksComponent(), f.deployment(), f.pdb()]),
    resourceSuite(karpenterNodePool, f.nodePool()),
    resourceSuite(karpenterNodeClass, f.nodeClass()),
    stackSuite(subnetEksTags, [f.eksComponent(), f.subnet("public"), f.subnet("private")]),
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
    stackSuite(podSecurityStandard, [f.namespace(), f.deployment(), f.pod(), f.cronJob()], [f.deployment("api", "staging")]),
    stackSuite(accessLeastPrivilege, f.accessGrants(), [f.eksComponentWithAccess()]),
    stackSuite(appRoleLeastPrivilege, f.appRole()),
];
