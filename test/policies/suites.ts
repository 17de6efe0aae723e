/**
 * Every policy with compliant resource sets it judges: the base of the unknown-value sweep and
 * the property-based test.
 */
import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import {
    accessLeastPrivilege,
    apiVersionsServed,
    appRoleLeastPrivilege,
    clusterHardening,
    drainRehearsal,
    drainWindow,
    karpenterNodeClass,
    karpenterNodePool,
    namespaceIsolation,
    namespaceQuotaRequired,
    nodegroupUpdateConfig,
    nodeLaunchHardening,
    nodeRolePolicies,
    pdbAllowsDisruption,
    podSecurityStandard,
    subnetEksTags,
    vpcDns,
    workloadPdbRequired,
    workloadPrestopHook,
    workloadRequestPath,
    workloadResources,
    workloadServiceReplicas,
    workloadTerminationGrace,
} from "eks-platform-policies";
import * as f from "./fixtures";
import { changed, Outcome, runResource, runStack, TestResource } from "./harness";

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
    stackSuite(workloadRequestPath, [
        changed(f.deployment(), "spec.template.spec.containers.0.lifecycle", { preStop: { sleep: { seconds: 15 } } }),
        f.service(),
        f.ingress(f.ALB_IP_ANNOTATIONS),
        f.gatedNamespace(),
    ]),
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
