/**
 * Compliant resources, one factory per type, as the program and the AWS/Kubernetes providers
 * shape their inputs. Failing cases change one field of these with `changed()`.
 */
import { UNKNOWN } from "eks-platform-kernel";
import type { TestResource } from "./harness";

const resources = { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: "1", memory: "512Mi" } };

// What the Pod Security Standard "restricted" asks of every container.
const restrictedContainer = { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } };

function podSpec(): Record<string, unknown> {
    return {
        terminationGracePeriodSeconds: 60,
        securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
        initContainers: [{ name: "migrate", image: "registry.example.com/api:1.4.2", resources, securityContext: restrictedContainer }],
        containers: [
            {
                name: "app",
                image: "registry.example.com/api:1.4.2",
                resources,
                securityContext: restrictedContainer,
                lifecycle: { preStop: { sleep: { seconds: 5 } } },
            },
        ],
    };
}

export function deployment(name = "api", namespace = "prod", replicas = 3): TestResource {
    return {
        type: "kubernetes:apps/v1:Deployment",
        name: `${namespace}-${name}`,
        props: {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name, namespace },
            spec: {
                replicas,
                selector: { matchLabels: { app: name } },
                template: { metadata: { labels: { app: name, tier: "web" } }, spec: podSpec() },
            },
        },
    };
}

/** The workload without `spec.replicas`, as Kubernetes recommends when an autoscaler owns the count. */
export function withoutReplicas(r: TestResource): TestResource {
    const props = JSON.parse(JSON.stringify(r.props)) as { spec: Record<string, unknown> };
    delete props.spec.replicas;
    return { ...r, props };
}

export function hpa(target = "api", min = 2, max = 10, namespace = "prod", kind = "Deployment"): TestResource {
    return {
        type: "kubernetes:autoscaling/v2:HorizontalPodAutoscaler",
        name: `${namespace}-${target}-hpa`,
        props: {
            apiVersion: "autoscaling/v2",
            kind: "HorizontalPodAutoscaler",
            metadata: { name: target, namespace },
            spec: {
                scaleTargetRef: { apiVersion: "apps/v1", kind, name: target },
                minReplicas: min,
                maxReplicas: max,
                metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } }],
            },
        },
    };
}

/** A KEDA ScaledObject (keda.sh/v1alpha1); `scaleTargetRef.kind` defaults to Deployment. */
export function scaledObject(target = "api", min = 0, max = 10, namespace = "prod"): TestResource {
    return {
        type: "kubernetes:keda.sh/v1alpha1:ScaledObject",
        name: `${namespace}-${target}-scaledobject`,
        props: {
            apiVersion: "keda.sh/v1alpha1",
            kind: "ScaledObject",
            metadata: { name: target, namespace },
            spec: {
                scaleTargetRef: { name: target },
                minReplicaCount: min,
                maxReplicaCount: max,
                triggers: [{ type: "cpu", metricType: "Utilization", metadata: { value: "70" } }],
            },
        },
    };
}

export function statefulSet(name = "db", namespace = "prod", replicas = 3): TestResource {
    const d = deployment(name, namespace, replicas);
    return { type: "kubernetes:apps/v1:StatefulSet", name: `${namespace}-${name}-sts`, props: { ...d.props, kind: "StatefulSet" } };
}

/** A ReplicationController (core/v1) as kubernetes/examples' older guestbook ships them: `spec.selector` is a plain map. */
export function replicationController(name = "frontend", namespace = "prod", replicas = 3): TestResource {
    const d = deployment(name, namespace, replicas);
    const spec = d.props.spec as Record<string, unknown>;
    return {
        type: "kubernetes:core/v1:ReplicationController",
        name: `${namespace}-${name}-rc`,
        props: { ...d.props, apiVersion: "v1", kind: "ReplicationController", spec: { ...spec, selector: { app: name } } },
    };
}

/** A bare ReplicaSet (apps/v1), owned by no Deployment. */
export function replicaSet(name = "worker", namespace = "prod", replicas = 2): TestResource {
    const d = deployment(name, namespace, replicas);
    return { type: "kubernetes:apps/v1:ReplicaSet", name: `${namespace}-${name}-rs`, props: { ...d.props, kind: "ReplicaSet" } };
}

export function daemonSet(name = "agent", namespace = "prod"): TestResource {
    const d = deployment(name, namespace);
    const spec = { ...(d.props.spec as Record<string, unknown>) };
    delete spec.replicas;
    return { type: "kubernetes:apps/v1:DaemonSet", name: `${namespace}-${name}-ds`, props: { ...d.props, kind: "DaemonSet", spec } };
}

export function pod(name = "debug", namespace = "prod"): TestResource {
    return {
        type: "kubernetes:core/v1:Pod",
        name: `${namespace}-${name}-pod`,
        props: { apiVersion: "v1", kind: "Pod", metadata: { name, namespace, labels: { app: name } }, spec: podSpec() },
    };
}

export function cronJob(name = "report", namespace = "prod"): TestResource {
    const spec = podSpec();
    delete spec.terminationGracePeriodSeconds;
    return {
        type: "kubernetes:batch/v1:CronJob",
        name: `${namespace}-${name}-cron`,
        props: {
            apiVersion: "batch/v1",
            kind: "CronJob",
            metadata: { name, namespace },
            spec: {
                schedule: "0 3 * * *",
                jobTemplate: { spec: { template: { metadata: { labels: { job: name } }, spec: { ...spec, restartPolicy: "OnFailure" } } } },
            },
        },
    };
}

export function job(name = "migrate", namespace = "prod"): TestResource {
    const spec = podSpec();
    return {
        type: "kubernetes:batch/v1:Job",
        name: `${namespace}-${name}-job`,
        props: {
            apiVersion: "batch/v1",
            kind: "Job",
            metadata: { name, namespace },
            spec: { template: { metadata: { labels: { job: name } }, spec: { ...spec, restartPolicy: "Never" } } },
        },
    };
}

export function pdb(
    name = "api",
    namespace = "prod",
    spec: Record<string, unknown> = { maxUnavailable: 1, selector: { matchLabels: { app: "api" } } },
): TestResource {
    return {
        type: "kubernetes:policy/v1:PodDisruptionBudget",
        name: `${namespace}-${name}-pdb`,
        props: { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name, namespace }, spec },
    };
}

export function service(name = "api", namespace = "prod", selector: Record<string, string> = { app: "api" }): TestResource {
    return {
        type: "kubernetes:core/v1:Service",
        name: `${namespace}-${name}-svc`,
        props: {
            apiVersion: "v1",
            kind: "Service",
            metadata: { name, namespace },
            spec: { selector, ports: [{ port: 80, targetPort: 8080 }] },
        },
    };
}

export function namespace(name = "prod", level = "restricted", version = "v1.34"): TestResource {
    const labels = { "pod-security.kubernetes.io/enforce": level, "pod-security.kubernetes.io/enforce-version": version };
    return {
        type: "kubernetes:core/v1:Namespace",
        name: `ns-${name}`,
        props: { apiVersion: "v1", kind: "Namespace", metadata: { name, labels } },
    };
}

/** Namespace with readiness gates on for ip targets of the AWS Load Balancer Controller, as the platform creates team namespaces. */
export function gatedNamespace(name = "prod"): TestResource {
    const ns = namespace(name);
    const metadata = ns.props.metadata as { labels: Record<string, string> };
    return {
        ...ns,
        props: {
            ...ns.props,
            metadata: { ...metadata, labels: { ...metadata.labels, "elbv2.k8s.aws/pod-readiness-gate-inject": "enabled" } },
        },
    };
}

/** An Ingress of class `alb` (`null`: none) sending `/` to Service api port 80. */
export function ingress(annotations: Record<string, string> = {}, className: string | null = "alb"): TestResource {
    return {
        type: "kubernetes:networking.k8s.io/v1:Ingress",
        name: "prod-api-ing",
        props: {
            apiVersion: "networking.k8s.io/v1",
            kind: "Ingress",
            metadata: { name: "api", namespace: "prod", annotations },
            spec: {
                ...(className ? { ingressClassName: className } : {}),
                rules: [
                    { http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "api", port: { number: 80 } } } }] } },
                ],
            },
        },
    };
}

/** The ALB annotations of a drain-safe ip target group: a 30 s deregistration delay, inside the fixtures' 60 s grace period. */
export const ALB_IP_ANNOTATIONS: Readonly<Record<string, string>> = {
    "alb.ingress.kubernetes.io/target-type": "ip",
    "alb.ingress.kubernetes.io/target-group-attributes": "deregistration_delay.timeout_seconds=30",
};

export function networkPolicy(
    namespaceName = "prod",
    name = "default-deny",
    spec: Record<string, unknown> = { podSelector: {}, policyTypes: ["Ingress"] },
): TestResource {
    return {
        type: "kubernetes:networking.k8s.io/v1:NetworkPolicy",
        name: `${namespaceName}-${name}`,
        props: { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name, namespace: namespaceName }, spec },
    };
}

export function resourceQuota(namespaceName = "prod"): TestResource {
    return {
        type: "kubernetes:core/v1:ResourceQuota",
        name: `${namespaceName}-quota`,
        props: {
            apiVersion: "v1",
            kind: "ResourceQuota",
            metadata: { name: "compute", namespace: namespaceName },
            spec: { hard: { "requests.cpu": "16", "requests.memory": "32Gi", "limits.cpu": "32", "limits.memory": "64Gi", pods: "100" } },
        },
    };
}

export function limitRange(namespaceName = "prod"): TestResource {
    return {
        type: "kubernetes:core/v1:LimitRange",
        name: `${namespaceName}-defaults`,
        props: {
            apiVersion: "v1",
            kind: "LimitRange",
            metadata: { name: "container-defaults", namespace: namespaceName },
            spec: {
                limits: [{ type: "Container", default: { cpu: "1", memory: "1Gi" }, defaultRequest: { cpu: "100m", memory: "128Mi" } }],
            },
        },
    };
}

export function nodePool(name = "general"): TestResource {
    return {
        type: "kubernetes:karpenter.sh/v1:NodePool",
        name: `karpenter-${name}`,
        props: {
            apiVersion: "karpenter.sh/v1",
            kind: "NodePool",
            metadata: { name },
            spec: {
                template: {
                    spec: {
                        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
                        requirements: [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] }],
                        terminationGracePeriod: "1h",
                        expireAfter: "720h",
                    },
                },
                limits: { cpu: "256", memory: "1024Gi" },
                disruption: { consolidationPolicy: "WhenEmptyOrUnderutilized", consolidateAfter: "5m" },
            },
        },
    };
}

export function nodeClass(name = "default"): TestResource {
    return {
        type: "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass",
        name: `karpenter-${name}-class`,
        props: {
            apiVersion: "karpenter.k8s.aws/v1",
            kind: "EC2NodeClass",
            metadata: { name },
            spec: {
                role: "platform-prod-karpenter-node",
                amiSelectorTerms: [{ alias: "al2023@v20250115" }],
                subnetSelectorTerms: [{ tags: { "karpenter.sh/discovery": "platform-prod" } }],
                securityGroupSelectorTerms: [{ tags: { "karpenter.sh/discovery": "platform-prod" } }],
                metadataOptions: { httpEndpoint: "enabled", httpTokens: "required", httpPutResponseHopLimit: 1 },
                blockDeviceMappings: [{ deviceName: "/dev/xvda", ebs: { volumeSize: "50Gi", volumeType: "gp3", encrypted: true } }],
                tags: { team: "platform" },
            },
        },
    };
}

export function subnet(tier: "public" | "private" = "private", name = `network-${tier}-us-east-1a`): TestResource {
    const tags: Record<string, string> = {
        Name: `platform-prod-${tier}-us-east-1a`,
        "kubernetes.io/cluster/platform-prod": "shared",
        tier,
    };
    if (tier === "public") {
        tags["kubernetes.io/role/elb"] = "1";
    } else {
        tags["kubernetes.io/role/internal-elb"] = "1";
        tags["karpenter.sh/discovery"] = "platform-prod";
    }
    return {
        type: "aws:ec2/subnet:Subnet",
        name,
        props: {
            availabilityZone: "us-east-1a",
            cidrBlock: tier === "public" ? "10.20.96.0/24" : "10.20.0.0/19",
            mapPublicIpOnLaunch: false,
            tags,
            vpcId: UNKNOWN,
        },
    };
}

export function vpc(): TestResource {
    return {
        type: "aws:ec2/vpc:Vpc",
        name: "network-vpc",
        props: { cidrBlock: "10.20.0.0/16", enableDnsHostnames: true, enableDnsSupport: true },
    };
}

export const EC2_TRUST = JSON.stringify({
    Version: "2012-10-17",
    Statement: [{ Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" }],
});

export function role(name = "platform-prod-system-node", trust: unknown = EC2_TRUST): TestResource {
    return { type: "aws:iam/role:Role", name: `${name}-role`, props: { name, assumeRolePolicy: trust } };
}

export function attachment(roleName = "platform-prod-system-node", policy = "AmazonEKSWorkerNodePolicy"): TestResource {
    return {
        type: "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
        name: `${roleName}-${policy}`,
        props: { role: roleName, policyArn: `arn:aws:iam::aws:policy/${policy}` },
    };
}

export const NODE_POLICIES = [
    "AmazonEKSWorkerNodePolicy",
    "AmazonEKS_CNI_Policy",
    "AmazonEC2ContainerRegistryReadOnly",
    "AmazonSSMManagedInstanceCore",
];

export function nodeRoleWithPolicies(name = "platform-prod-system-node"): TestResource[] {
    return [role(name), ...NODE_POLICIES.map((p) => attachment(name, p))];
}

export function launchTemplate(): TestResource {
    return {
        type: "aws:ec2/launchTemplate:LaunchTemplate",
        name: "system-lt",
        props: {
            metadataOptions: { httpTokens: "required", httpPutResponseHopLimit: 1, httpEndpoint: "enabled" },
            blockDeviceMappings: [
                { deviceName: "/dev/xvda", ebs: { volumeType: "gp3", volumeSize: 50, encrypted: "true", deleteOnTermination: "true" } },
            ],
        },
    };
}

export function securityGroup(): TestResource {
    return {
        type: "aws:ec2/securityGroup:SecurityGroup",
        name: "nodes-sg",
        props: { description: "nodes", ingress: [{ protocol: "tcp", fromPort: 443, toPort: 443, cidrBlocks: ["10.20.0.0/16"] }] },
    };
}

export function ingressRule(): TestResource {
    return {
        type: "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
        name: "nodes-https",
        props: {
            securityGroupId: UNKNOWN,
            ipProtocol: "tcp",
            fromPort: 443,
            toPort: 443,
            cidrIpv4: "0.0.0.0/0",
        },
    };
}

export function securityGroupRule(): TestResource {
    return {
        type: "aws:ec2/securityGroupRule:SecurityGroupRule",
        name: "nodes-ssh-vpn",
        props: {
            type: "ingress",
            securityGroupId: UNKNOWN,
            protocol: "tcp",
            fromPort: 22,
            toPort: 22,
            cidrBlocks: ["10.99.0.0/16"],
        },
    };
}

export function nodeGroup(): TestResource {
    return {
        type: "aws:eks/nodeGroup:NodeGroup",
        name: "nodegroups-system",
        props: {
            clusterName: "platform-prod",
            nodeGroupName: "system",
            nodeRoleArn: UNKNOWN,
            scalingConfig: { minSize: 3, desiredSize: 3, maxSize: 6 },
            updateConfig: { maxUnavailablePercentage: 33 },
        },
    };
}

export function lifecycleHook(heartbeatTimeout = 300): TestResource {
    return {
        type: "aws:autoscaling/lifecycleHook:LifecycleHook",
        name: "gpu-terminate",
        props: {
            autoscalingGroupName: "platform-prod-gpu",
            lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
            defaultResult: "CONTINUE",
            heartbeatTimeout,
        },
    };
}

export function eksComponent(): TestResource {
    return {
        type: "eks:index:Cluster",
        name: "cluster-eks",
        props: {
            name: "platform-prod",
            encryptionConfigKeyArn: UNKNOWN,
            enabledClusterLogTypes: ["api", "audit", "authenticator"],
            endpointPrivateAccess: true,
            endpointPublicAccess: false,
        },
    };
}

export function awsCluster(): TestResource {
    return {
        type: "aws:eks/cluster:Cluster",
        name: "cluster-eks-eksCluster",
        props: {
            name: "platform-prod",
            roleArn: UNKNOWN,
            encryptionConfig: { resources: ["secrets"], provider: { keyArn: UNKNOWN } },
            enabledClusterLogTypes: ["api", "audit"],
            vpcConfig: { endpointPrivateAccess: true, endpointPublicAccess: true, publicAccessCidrs: ["203.0.113.0/24"], subnetIds: [] },
        },
    };
}

export const ADMIN_ROLE = "arn:aws:iam::123456789012:role/platform-admin";
export const TEAM_ROLE = "arn:aws:iam::123456789012:role/team-checkout";

export function accessEntry(principalArn = TEAM_ROLE, scope: "cluster" | "namespace" = "namespace"): TestResource {
    return {
        type: "aws:eks/accessEntry:AccessEntry",
        name: `access-${principalArn.split("/").pop() ?? ""}`,
        props: { clusterName: "platform-prod", principalArn, type: "STANDARD", tags: { "platform/access-scope": scope } },
    };
}

export function accessPolicyAssociation(
    principalArn = TEAM_ROLE,
    policy = "AmazonEKSEditPolicy",
    accessScope: Record<string, unknown> = { type: "namespace", namespaces: ["prod"] },
): TestResource {
    return {
        type: "aws:eks/accessPolicyAssociation:AccessPolicyAssociation",
        name: `access-${principalArn.split("/").pop() ?? ""}-${policy}`,
        props: {
            clusterName: "platform-prod",
            principalArn,
            policyArn: `arn:aws:eks::aws:cluster-access-policy/${policy}`,
            accessScope,
        },
    };
}

/** An admin cluster-wide and a team scoped to its namespace, as `components/access.ts` creates them. */
export function accessGrants(): TestResource[] {
    return [
        accessEntry(ADMIN_ROLE, "cluster"),
        accessPolicyAssociation(ADMIN_ROLE, "AmazonEKSClusterAdminPolicy", { type: "cluster" }),
        accessEntry(TEAM_ROLE, "namespace"),
        accessPolicyAssociation(TEAM_ROLE, "AmazonEKSEditPolicy", { type: "namespace", namespaces: ["prod"] }),
    ];
}

/** The `@pulumi/eks` component with access entries as inputs: the same two grants. */
export function eksComponentWithAccess(): TestResource {
    const c = eksComponent();
    return {
        ...c,
        props: {
            ...c.props,
            accessEntries: {
                admin: {
                    principalArn: ADMIN_ROLE,
                    tags: { "platform/access-scope": "cluster" },
                    accessPolicies: {
                        admin: {
                            policyArn: "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy",
                            accessScope: { type: "cluster" },
                        },
                    },
                },
                team: {
                    principalArn: TEAM_ROLE,
                    kubernetesGroups: ["checkout-deployers"],
                    tags: { "platform/access-scope": "namespace" },
                    accessPolicies: {
                        edit: {
                            policyArn: "arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy",
                            accessScope: { type: "namespace", namespaces: ["prod"] },
                        },
                    },
                },
            },
        },
    };
}

/** The trust of a Pod Identity role for one service account, as the platform writes it. */
export function podIdentityTrust(namespace = "analytics", serviceAccount = "reports"): string {
    return JSON.stringify({
        Version: "2012-10-17",
        Statement: [
            {
                Effect: "Allow",
                Principal: { Service: "pods.eks.amazonaws.com" },
                Action: ["sts:AssumeRole", "sts:TagSession"],
                Condition: {
                    StringEquals: {
                        "aws:SourceAccount": "123456789012",
                        "aws:RequestTag/kubernetes-namespace": namespace,
                        "aws:RequestTag/kubernetes-service-account": serviceAccount,
                    },
                    ArnEquals: { "aws:SourceArn": "arn:aws:eks:us-east-1:123456789012:cluster/platform-prod" },
                },
            },
        ],
    });
}

/** An application's Pod Identity role, its inline policy and a managed policy attachment. */
export function appRole(name = "platform-prod-analytics-reports"): TestResource[] {
    return [
        role(name, podIdentityTrust()),
        {
            type: "aws:iam/rolePolicy:RolePolicy",
            name: `${name}-inline`,
            props: {
                role: name,
                policy: JSON.stringify({
                    Version: "2012-10-17",
                    Statement: [
                        {
                            Sid: "Read",
                            Effect: "Allow",
                            Action: ["s3:GetObject", "s3:ListBucket"],
                            Resource: ["arn:aws:s3:::reports", "arn:aws:s3:::reports/*"],
                        },
                        {
                            Sid: "Deny",
                            Effect: "Deny",
                            Action: "*",
                            Resource: "*",
                            Condition: { Bool: { "aws:SecureTransport": "false" } },
                        },
                    ],
                }),
            },
        },
        { ...attachment(name, "AmazonSQSReadOnlyAccess"), name: `${name}-sqs` },
    ];
}

/** kube-prometheus's Alertmanager custom resource (manifests/alertmanager-alertmanager.yaml), whose pods prometheus-operator creates. */
/** `replicas: null` leaves `spec.replicas` unset. */
export function alertmanager(name = "main", namespace = "monitoring", replicas: number | null = 3): TestResource {
    const podLabels = {
        "app.kubernetes.io/component": "alert-router",
        "app.kubernetes.io/instance": name,
        "app.kubernetes.io/name": "alertmanager",
        "app.kubernetes.io/part-of": "kube-prometheus",
    };
    return {
        type: "kubernetes:monitoring.coreos.com/v1:Alertmanager",
        name: `${namespace}/${name}`,
        props: {
            apiVersion: "monitoring.coreos.com/v1",
            kind: "Alertmanager",
            metadata: { name, namespace, labels: podLabels },
            spec: {
                podMetadata: { labels: podLabels },
                ...(replicas === null ? {} : { replicas }),
                serviceAccountName: `alertmanager-${name}`,
            },
        },
    };
}

/** kube-prometheus's PodDisruptionBudget for it (manifests/alertmanager-podDisruptionBudget.yaml). */
export function alertmanagerPdb(
    name = "main",
    namespace = "monitoring",
    budget: Record<string, unknown> = { maxUnavailable: 1 },
): TestResource {
    return pdb(`alertmanager-${name}`, namespace, {
        ...budget,
        selector: {
            matchLabels: {
                alertmanager: name,
                "app.kubernetes.io/component": "alert-router",
                "app.kubernetes.io/name": "alertmanager",
                "app.kubernetes.io/part-of": "kube-prometheus",
            },
        },
    });
}
