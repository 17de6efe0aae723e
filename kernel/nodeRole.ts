/**
 * The AWS managed policies an EKS node role needs (ARCHITECTURE fact 12; EKS user guide "Amazon
 * EKS node IAM role", 2025). Pure; the program attaches them to every node role it creates and
 * the `node-role-policies` policy requires them of any program's node roles.
 */

interface NodeRolePolicy {
    /** Short, stable name: the suffix of the attachment's resource name. */
    key: "worker" | "cni" | "ecr";
    /** The policy the program attaches. */
    policy: string;
    /** Managed policies that satisfy the requirement (`policy` first). */
    accepted: readonly string[];
    /** What breaks without it. */
    why: string;
}

export const NODE_ROLE_POLICIES: readonly NodeRolePolicy[] = [
    {
        key: "worker",
        policy: "AmazonEKSWorkerNodePolicy",
        accepted: ["AmazonEKSWorkerNodePolicy"],
        why: "nodes cannot describe the cluster and never join it",
    },
    {
        key: "cni",
        policy: "AmazonEKS_CNI_Policy",
        accepted: ["AmazonEKS_CNI_Policy"],
        why: "the VPC CNI cannot attach ENIs or assign pod IPs, so pods stay ContainerCreating and nodes NotReady",
    },
    {
        key: "ecr",
        policy: "AmazonEC2ContainerRegistryReadOnly",
        accepted: ["AmazonEC2ContainerRegistryReadOnly", "AmazonEC2ContainerRegistryPullOnly"],
        why: "nodes cannot pull the EKS add-on images (pause, VPC CNI, kube-proxy) from ECR, so no pod starts",
    },
];

/**
 * The managed policies an EKS Auto Mode node role needs instead (EKS User Guide,
 * auto-create-node-role.adoc): Auto Mode runs networking itself, so no CNI policy, and its nodes
 * use the minimal worker policy.
 */
export const AUTO_MODE_NODE_ROLE_POLICIES: readonly NodeRolePolicy[] = [
    {
        key: "worker",
        policy: "AmazonEKSWorkerNodeMinimalPolicy",
        accepted: ["AmazonEKSWorkerNodeMinimalPolicy", "AmazonEKSWorkerNodePolicy"],
        why: "Auto Mode nodes cannot authenticate to the cluster and never join it",
    },
    {
        key: "ecr",
        policy: "AmazonEC2ContainerRegistryPullOnly",
        accepted: ["AmazonEC2ContainerRegistryPullOnly", "AmazonEC2ContainerRegistryReadOnly"],
        why: "nodes cannot pull images from ECR, so no pod starts",
    },
];

/** `arn:<partition>:iam::aws:policy/<name>`: the ARN of an AWS managed policy. */
export function managedPolicyArn(name: string, partition = "aws"): string {
    return `arn:${partition}:iam::aws:policy/${name}`;
}

/** `arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy` → `AmazonEKS_CNI_Policy` (any partition and path). */
export function managedPolicyName(arn: unknown): string | undefined {
    const match = typeof arn === "string" ? /^arn:aws[a-z-]*:iam::aws:policy\/(?:.*\/)?([^/]+)$/.exec(arn.trim()) : null;
    return match ? match[1] : undefined;
}
