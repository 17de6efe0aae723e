/**
 * Load balancers for workloads: the AWS Load Balancer Controller (NLBs for Services of type
 * LoadBalancer, ALBs for Ingresses) from its pinned Helm chart, its Pod Identity role with the
 * upstream IAM policy of that release, and the `alb` IngressClass.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { LOAD_BALANCER_CONTROLLER_API } from "eks-platform-kernel";
import type { PlatformAddon } from "./addon";
import { type AddonsConfig, LOAD_BALANCER_CONTROLLER_CHART_VERSIONS } from "./schema";
import { PodIdentityRole } from "../podIdentity";
import { type PolicyDocument, type PolicyStatement, podIdentityRoleName } from "../podIdentityPolicy";
import { LOAD_BALANCER_CONTROLLER_RELEASES } from "./loadBalancerControllerReleases";
import type { Placement } from "../nodegroups/schema";

/** Set on every standard stack; EKS Auto Mode runs its own load balancing (components/compute). */
type LoadBalancerControllerConfig = NonNullable<AddonsConfig["loadBalancerController"]>;

/**
 * What the controller is called, and what workloads name to use it (upstream documentation). The
 * names the controller reads (classes, annotation prefixes, the readiness-gate label) are the
 * kernel's, which the pack's request-path rules read too.
 */
export const LOAD_BALANCER_CONTROLLER = {
    releaseName: "aws-load-balancer-controller",
    chart: "aws-load-balancer-controller",
    repository: "https://aws.github.io/eks-charts",
    namespace: "kube-system",
    serviceAccount: "aws-load-balancer-controller",
    ingressClass: LOAD_BALANCER_CONTROLLER_API.ingressClass,
    ingressController: LOAD_BALANCER_CONTROLLER_API.ingressController,
    loadBalancerClass: LOAD_BALANCER_CONTROLLER_API.loadBalancerClass,
    serviceAnnotationPrefix: LOAD_BALANCER_CONTROLLER_API.serviceAnnotationPrefix,
    ingressAnnotationPrefix: LOAD_BALANCER_CONTROLLER_API.ingressAnnotationPrefix,
    readinessGateLabel: LOAD_BALANCER_CONTROLLER_API.readinessGateLabel,
    /** Subnet tags the controller discovers subnets by: internet-facing, internal. */
    subnetRoleTags: { public: "kubernetes.io/role/elb", private: "kubernetes.io/role/internal-elb" },
} as const;

/**
 * Upstream's policy, confined to this cluster. Upstream admits any resource that carries the
 * controller's cluster tag, whatever its value, and opens any security group of the account: with
 * two clusters in one account (dev and prod in the samples), one cluster's controller could change
 * or delete the other's load balancers and open its security groups. Here each condition that only
 * asks for the tag (`Null: false`) also asks for this cluster's name as its value: the controller
 * tags what it creates with its `--cluster-name` (v2.13.3 pkg/deploy/tracking/provider.go,
 * `StackTags`). The unconditioned ingress statement, which opens the targets' security groups to
 * the load balancer, is confined to groups tagged `kubernetes.io/cluster/<cluster>` owned or
 * shared: the one the controller picks on an ENI with several groups
 * (pkg/networking/networking_manager.go, `resolveEndpointSGForENI`), and the nodes' only group here
 * (components/cluster.ts, `nodeSecurityGroupTags`; node groups and Karpenter's EC2NodeClass attach
 * that group alone). Pure.
 */
export function clusterScopedPolicy(policy: PolicyDocument, clusterName: string): PolicyDocument {
    const tagKeys = [
        `aws:ResourceTag/${LOAD_BALANCER_CONTROLLER_API.clusterTag}`,
        `aws:RequestTag/${LOAD_BALANCER_CONTROLLER_API.clusterTag}`,
    ];
    const ingress = ["ec2:AuthorizeSecurityGroupIngress", "ec2:RevokeSecurityGroupIngress"];
    const scoped = policy.Statement.map((statement): PolicyStatement => {
        const nulls = (statement.Condition?.Null ?? {}) as Record<string, unknown>;
        const tagged = tagKeys.filter((k) => nulls[k] === "false");
        if (tagged.length > 0) {
            const equals = { ...((statement.Condition?.StringEquals ?? {}) as Record<string, string | string[]>) };
            tagged.forEach((k) => (equals[k] = clusterName));
            return { ...statement, Condition: { ...statement.Condition, StringEquals: equals } };
        }
        const actions = [statement.Action ?? []].flat();
        if (
            statement.Condition === undefined &&
            statement.Resource === "*" &&
            actions.length > 0 &&
            actions.every((a) => ingress.includes(a))
        ) {
            return {
                ...statement,
                Condition: { StringEquals: { [`aws:ResourceTag/kubernetes.io/cluster/${clusterName}`]: ["owned", "shared"] } },
            };
        }
        return statement;
    });
    return { ...policy, Statement: scoped };
}

export interface LoadBalancerControllerValuesArgs {
    clusterName: string;
    region: string;
    vpcId: pulumi.Input<string>;
    config: LoadBalancerControllerConfig;
    placement: Placement;
}

/**
 * Helm values of the chart. Pure.
 *
 * Region and VPC are given, not looked up: nodes allow one IMDS hop, which a pod cannot use.
 * Webhooks: the pod webhook only injects target-health readiness gates, so it fails open
 * (`Ignore`, upstream's default since v2.12): with both replicas down, pods evicted by a drain
 * must still be recreated elsewhere; the cost is that a rollout then does not wait for new targets
 * to be healthy. The Service webhook fails closed (`Fail`): a LoadBalancer Service created while
 * the controller is down is refused (and retried by its deployer) rather than silently handed to
 * the legacy in-tree controller as a Classic Load Balancer. Its scope is **every** Service CREATE
 * of the cluster, ClusterIP included (chart 1.13.3 templates/webhook.yaml, `mservice.elbv2.k8s.aws`:
 * an object selector sees labels only, never a Service's type), so with both replicas down no
 * Service can be created anywhere: the replicas run on system nodes behind a PDB that lets a drain
 * take one at a time.
 */
export function loadBalancerControllerValues(args: LoadBalancerControllerValuesArgs): Record<string, pulumi.Input<unknown>> {
    const c = args.config;
    const release = LOAD_BALANCER_CONTROLLER_RELEASES[c.chartVersion];
    const selector = { "app.kubernetes.io/name": LOAD_BALANCER_CONTROLLER.chart };
    return {
        clusterName: args.clusterName,
        region: args.region,
        vpcId: args.vpcId,
        image: { tag: release.appVersion },
        replicaCount: c.replicas,
        serviceAccount: { create: true, name: LOAD_BALANCER_CONTROLLER.serviceAccount },
        podDisruptionBudget: { maxUnavailable: 1 },
        priorityClassName: "system-cluster-critical",
        resources: { requests: { ...c.resources.requests }, limits: { ...c.resources.limits } },
        nodeSelector: args.placement.nodeSelector,
        tolerations: args.placement.tolerations,
        topologySpreadConstraints: [
            {
                maxSkew: 1,
                topologyKey: "topology.kubernetes.io/zone",
                whenUnsatisfiable: "ScheduleAnyway",
                labelSelector: { matchLabels: selector },
            },
        ],
        // The platform creates the IngressClass itself, so it is visible in the plan and to policies.
        createIngressClassResource: false,
        ingressClass: LOAD_BALANCER_CONTROLLER.ingressClass,
        enableServiceMutatorWebhook: true,
        serviceMutatorWebhookConfig: { failurePolicy: "Fail" },
        podMutatorWebhookConfig: { failurePolicy: "Ignore" },
    };
}

export interface LoadBalancerControllerArgs extends LoadBalancerControllerValuesArgs {
    provider: k8s.Provider;
    /** The EKS control plane. */
    cluster: pulumi.Resource;
    /** What the controller's pods need first (nodes to run on, DNS). Defaults to `[]`. */
    releaseDependsOn?: pulumi.Resource[];
}

export class LoadBalancerController extends pulumi.ComponentResource {
    public readonly role: PodIdentityRole;
    public readonly release: k8s.helm.v3.Release;
    public readonly ingressClass: k8s.networking.v1.IngressClass;

    constructor(name: string, args: LoadBalancerControllerArgs, opts?: pulumi.ComponentResourceOptions) {
        super("platform:addons:LoadBalancerController", name, {}, opts);
        const release = LOAD_BALANCER_CONTROLLER_RELEASES[args.config.chartVersion];
        this.role = new PodIdentityRole(
            `${name}-iam`,
            {
                clusterName: args.clusterName,
                region: args.region,
                namespace: LOAD_BALANCER_CONTROLLER.namespace,
                serviceAccount: LOAD_BALANCER_CONTROLLER.serviceAccount,
                roleName: podIdentityRoleName(args.clusterName, "aws-load-balancer-controller"),
                description: `AWS Load Balancer Controller ${release.appVersion} of EKS cluster ${args.clusterName}`,
                // Confined to this cluster's resources (clusterScopedPolicy).
                inlinePolicy: clusterScopedPolicy(release.policy, args.clusterName),
                cluster: args.cluster,
            },
            { parent: this },
        );
        this.release = new k8s.helm.v3.Release(
            `${name}-release`,
            {
                name: LOAD_BALANCER_CONTROLLER.releaseName,
                chart: LOAD_BALANCER_CONTROLLER.chart,
                repositoryOpts: { repo: LOAD_BALANCER_CONTROLLER.repository },
                version: args.config.chartVersion,
                namespace: LOAD_BALANCER_CONTROLLER.namespace,
                maxHistory: 10,
                cleanupOnFail: true,
                atomic: true,
                timeout: 600,
                values: loadBalancerControllerValues(args),
            },
            // Pod Identity hands credentials to pods created after the association exists.
            { parent: this, provider: args.provider, dependsOn: [...this.role.ready, ...(args.releaseDependsOn ?? [])] },
        );
        this.ingressClass = new k8s.networking.v1.IngressClass(
            `${name}-ingress-class`,
            {
                metadata: { name: LOAD_BALANCER_CONTROLLER.ingressClass },
                spec: { controller: LOAD_BALANCER_CONTROLLER.ingressController },
            },
            { parent: this, provider: args.provider, dependsOn: [this.release] },
        );
        this.registerOutputs({ roleArn: this.role.arn, release: this.release.status });
    }
}

/** The controller as the registry (registry.ts) knows it. */
export const loadBalancerController: PlatformAddon<"loadBalancerController", LoadBalancerController> = {
    key: "loadBalancerController",
    label: "AWS Load Balancer Controller",
    source: { helmChart: LOAD_BALANCER_CONTROLLER.chart },
    replaceable: true,
    // A Helm chart: no EKS add-on build to check.
    preflightConfigKeys: {},
    provides: {
        ingressControllers: [LOAD_BALANCER_CONTROLLER.ingressController],
        loadBalancerClass: LOAD_BALANCER_CONTROLLER.loadBalancerClass,
    },
    resourceTypes: ["aws:eks/podIdentityAssociation:PodIdentityAssociation", "aws:iam/role:Role", "aws:iam/rolePolicy:RolePolicy"],
    example: { chartVersion: LOAD_BALANCER_CONTROLLER_CHART_VERSIONS[0] },
    // The controller calls AWS APIs by name: it starts once CoreDNS serves.
    install: (ctx, config) =>
        new LoadBalancerController(
            `${ctx.name}-load-balancer-controller`,
            {
                clusterName: ctx.clusterName,
                region: ctx.region,
                vpcId: ctx.vpcId,
                config,
                placement: ctx.placement,
                provider: ctx.provider,
                cluster: ctx.cluster,
                releaseDependsOn: ctx.coreDns ? [ctx.coreDns] : [],
            },
            { parent: ctx.parent },
        ),
};
