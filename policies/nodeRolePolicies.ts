import {
    asArray,
    asRecord,
    asString,
    AUTO_MODE_NODE_ROLE_POLICIES,
    field,
    inputScope,
    isUnknownSentinel,
    managedPolicyName,
    NODE_ROLE_POLICIES,
    path,
    peek,
} from "eks-platform-kernel";
import { isKind, objectName, reportUndecided, undecided, Verdicts, violation } from "eks-platform-evaluation";
import { declareStackPolicy, Knobs } from "./declare";

/** Config of `node-role-policies`. */
export interface NodeRolePoliciesConfig {
    /** Require AmazonEKS_CNI_Policy on node roles. Defaults to `true`. */
    requireCniPolicy: boolean;
}

const knobs: Knobs<NodeRolePoliciesConfig> = {
    requireCniPolicy: {
        type: "boolean",
        default: true,
        description: "Require AmazonEKS_CNI_Policy on node roles (false when the VPC CNI gets it through IRSA or Pod Identity).",
    },
};

/** `arn:aws:iam::123456789012:role/path/name` → `name`. */
export function roleNameFromArn(arn: unknown): string | undefined {
    const match = typeof arn === "string" ? /^arn:aws[a-z-]*:iam::\d{12}:role\/(?:.*\/)?([^/]+)$/.exec(arn.trim()) : null;
    return match ? match[1] : undefined;
}

/** True when a trust policy (JSON string or object) lets EC2 assume the role. */
export function trustsEc2(policy: unknown): boolean {
    let doc: unknown = policy;
    if (typeof policy === "string") {
        try {
            doc = JSON.parse(policy) as unknown;
        } catch {
            return false;
        }
    }
    const statements = field(doc, "Statement");
    for (const s of Array.isArray(statements) ? asArray(statements) : [statements]) {
        if (field(s, "Effect") !== "Allow") {
            continue;
        }
        const service = path(s, "Principal", "Service");
        const services = Array.isArray(service) ? asArray(service) : [service];
        if (services.some((x) => x === "ec2.amazonaws.com" || x === "ec2.amazonaws.com.cn")) {
            return true;
        }
    }
    return false;
}

/**
 * Roles that EC2 nodes use — trusted by `ec2.amazonaws.com`, or referenced by a managed node
 * group, an instance profile or an EC2NodeClass — carry the managed policies nodes need. Roles
 * are linked by name: names are static at preview, ARNs are not. Only roles the input defines are
 * judged: a role it only references (Kubernetes manifests never hold IAM roles; a stack may take
 * its node role from another stack) is reported undecided, on the resource that references it.
 */
export const nodeRolePolicies = declareStackPolicy<NodeRolePoliciesConfig>({
    name: "node-role-policies",
    description: "Node IAM roles attach AmazonEKSWorkerNodePolicy, AmazonEKS_CNI_Policy and AmazonEC2ContainerRegistryReadOnly.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires: "node roles attach WorkerNode, CNI and ECR read-only policies",
        checks: "node roles — trusted by `ec2.amazonaws.com`, or named by an instance profile, an EC2NodeClass `spec.role` or a node group's (known) `nodeRoleArn` — attach AmazonEKSWorkerNodePolicy, AmazonEKS_CNI_Policy and AmazonEC2ContainerRegistryReadOnly (or PullOnly); EKS Auto Mode's node roles (a cluster's `computeConfig.nodeRoleArn`, an `eks.amazonaws.com` NodeClass `spec.role`) AmazonEKSWorkerNodeMinimalPolicy and AmazonEC2ContainerRegistryPullOnly (or the full ones), no CNI policy; through `RolePolicyAttachment`, `RolePolicyAttachmentsExclusive` or `managedPolicyArns`; only roles the input defines are judged: a role it only names (an EC2NodeClass's role, a role of another stack) is undecided",
        knobs: { requireCniPolicy: "`false` when the VPC CNI gets its policy through IRSA/Pod Identity" },
    },
    validateStack: (args, reportViolation, config) => {
        const verdicts = new Verdicts();
        const roles = new Map<string, { urn: string }>();
        const nodeRoleNames = new Map<string, string>(); // name → why it is a node role
        // Roles EKS Auto Mode launches nodes with: judged by Auto Mode's policies, not the node groups'.
        const autoModeRoles = new Set<string>();
        const referencedBy = new Map<string, string>(); // name → URN of a resource that names it
        const attached = new Map<string, Set<string>>();
        const unlinkedAttachments: string[] = [];
        const attach = (role: string, policyArn: unknown) => {
            const name = managedPolicyName(policyArn);
            if (name) {
                const set = attached.get(role) ?? new Set<string>();
                set.add(name);
                attached.set(role, set);
            }
        };
        for (const r of args.resources) {
            switch (r.type) {
                case "aws:iam/role:Role": {
                    // A trust policy computed from unknown values cannot be read; node roles have static ones.
                    const trust = verdicts.read(`Role ${r.name}`, () => field(r.props, "assumeRolePolicy"));
                    const isNode = trust !== undefined && trustsEc2(trust);
                    const named = verdicts.read(`Role ${r.name} name`, () => ({ name: asString(field(r.props, "name")) }));
                    const name = named?.name;
                    if (name !== undefined) {
                        const managed = verdicts.read(`Role ${name} managedPolicyArns`, () => asArray(field(r.props, "managedPolicyArns")));
                        if (managed === undefined) {
                            unlinkedAttachments.push(`${r.name} managedPolicyArns`);
                        }
                        roles.set(name, { urn: r.urn });
                        for (const arn of managed ?? []) {
                            attach(name, arn);
                        }
                        if (isNode) {
                            nodeRoleNames.set(name, "EC2 may assume it");
                        }
                    } else if (isNode && named) {
                        // Auto-named: attachments reference `role.name`, unknown until apply.
                        verdicts.leaveUndecided(`node role ${r.name} (no static name)`, [r.name, "name"]);
                    }
                    break;
                }
                case "aws:iam/rolePolicyAttachment:RolePolicyAttachment": {
                    const ok = verdicts.read(`RolePolicyAttachment ${r.name}`, () => {
                        const role = asString(field(r.props, "role"));
                        if (role) {
                            attach(role, field(r.props, "policyArn"));
                        }
                        return true;
                    });
                    if (!ok) {
                        unlinkedAttachments.push(r.name);
                    }
                    break;
                }
                case "aws:iam/rolePolicyAttachmentsExclusive:RolePolicyAttachmentsExclusive":
                    verdicts.read(`RolePolicyAttachmentsExclusive ${r.name}`, () => {
                        const role = asString(field(r.props, "roleName"));
                        for (const arn of asArray(field(r.props, "policyArns"))) {
                            if (role) {
                                attach(role, arn);
                            }
                        }
                    });
                    break;
                case "aws:eks/nodeGroup:NodeGroup":
                    verdicts.read(`NodeGroup ${r.name}`, () => {
                        // Usually `role.arn`, unknown at preview: that role is then found by its EC2 trust policy.
                        const name = roleNameFromArn(peek(r.props, "nodeRoleArn"));
                        if (name) {
                            nodeRoleNames.set(name, `managed node group ${r.name} uses it`);
                            referencedBy.set(name, r.urn);
                        }
                    });
                    break;
                case "aws:iam/instanceProfile:InstanceProfile":
                    verdicts.read(`InstanceProfile ${r.name}`, () => {
                        const name = asString(peek(r.props, "role"));
                        if (name && !isUnknownSentinel(name)) {
                            nodeRoleNames.set(name, `instance profile ${r.name} uses it`);
                            referencedBy.set(name, r.urn);
                        }
                    });
                    break;
                case "eks:index:Cluster":
                case "aws:eks/cluster:Cluster":
                    verdicts.read(`Cluster ${r.name} computeConfig`, () => {
                        const compute =
                            r.type === "eks:index:Cluster" ? path(r.props, "autoMode", "computeConfig") : field(r.props, "computeConfig");
                        const name = roleNameFromArn(peek(compute, "nodeRoleArn"));
                        if (name) {
                            nodeRoleNames.set(name, `EKS Auto Mode's built-in pools of ${r.name} use it`);
                            autoModeRoles.add(name);
                            referencedBy.set(name, r.urn);
                        }
                    });
                    break;
                default:
                    if (r.type.startsWith("kubernetes:") && isKind(r.type, r.props, "eks.amazonaws.com", "NodeClass")) {
                        verdicts.read(`NodeClass ${r.name}`, () => {
                            const name = asString(field(asRecord(field(r.props, "spec")), "role"));
                            if (name) {
                                nodeRoleNames.set(name, `EKS Auto Mode NodeClass ${objectName(r.props, r.name)} uses it`);
                                autoModeRoles.add(name);
                                referencedBy.set(name, r.urn);
                            }
                        });
                    }
                    if (r.type.startsWith("kubernetes:") && isKind(r.type, r.props, "karpenter.k8s.aws", "EC2NodeClass")) {
                        verdicts.read(`EC2NodeClass ${r.name}`, () => {
                            const name = asString(field(asRecord(field(r.props, "spec")), "role"));
                            if (name) {
                                nodeRoleNames.set(name, `EC2NodeClass ${objectName(r.props, r.name)} uses it`);
                                referencedBy.set(name, r.urn);
                            }
                        });
                    }
            }
        }
        const standard = NODE_ROLE_POLICIES.filter((req) => config.requireCniPolicy || req.key !== "cni");
        for (const [name, reason] of nodeRoleNames) {
            const required = autoModeRoles.has(name) ? AUTO_MODE_NODE_ROLE_POLICIES : standard;
            verdicts.judge(`node role ${name}`, () => {
                if (!roles.has(name)) {
                    reportUndecided(
                        reportViolation,
                        undecided(
                            `IAM role ${name} (${reason}) is not defined in this input`,
                            `whether it attaches ${required.map((m) => m.policy).join(", ")} can only be seen where the role is defined (another stack, the account, or not at all: Kubernetes manifests never hold IAM roles)`,
                            "run the pack on the program that defines the role, or include its aws.iam.Role and policy attachments in this input",
                        ),
                        referencedBy.get(name),
                    );
                    return;
                }
                const have = attached.get(name) ?? new Set<string>();
                const missing = required.filter((req) => !req.accepted.some((p) => have.has(p)));
                if (missing.length === 0) {
                    return;
                }
                if (unlinkedAttachments.length > 0) {
                    // An attachment whose role is unknown at preview may be the missing one.
                    verdicts.leaveUndecided(`node role ${name}`, ["RolePolicyAttachment", unlinkedAttachments[0], "role"]);
                    return;
                }
                const role = roles.get(name);
                reportViolation(
                    violation(
                        `IAM role ${name} (${reason}) does not attach ${missing.map((m) => m.policy).join(", ")}`,
                        missing.map((m) => `without ${m.policy} ${m.why}`).join("; "),
                        `attach ${missing.map((m) => `arn:aws:iam::aws:policy/${m.policy}`).join(", ")} with aws.iam.RolePolicyAttachment (role: the role's name)`,
                    ),
                    role?.urn,
                );
            });
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable(
                `no node IAM role ${inputScope(args.stackTags)} (none trusted by ec2.amazonaws.com or used by a node group, instance profile or EC2NodeClass): nothing was checked`,
            );
        }
    },
});
