import {
    ALL_IPV4,
    asArray,
    asRecord,
    asString,
    blockSize,
    Cidr,
    coveredAddresses,
    field,
    has,
    isFalse,
    parseCidr,
    peek,
} from "eks-platform-kernel";
import { Verdicts, violation } from "eks-platform-evaluation";
import { declareResourcePolicy, Knobs } from "./declare";

/** Config of `cluster-hardening`. */
export interface ClusterHardeningConfig {
    /** Control-plane log types that must be enabled. Defaults to `["audit"]`. */
    requiredLogTypes: string[];
    /** The public endpoint's CIDRs may cover together at most as many addresses as one `/N`. Defaults to `16`. */
    publicAccessMinPrefix: number;
}

const knobs: Knobs<ClusterHardeningConfig> = {
    requiredLogTypes: {
        type: "array",
        items: { type: "string", enum: ["api", "audit", "authenticator", "controllerManager", "scheduler"] },
        default: ["audit"],
        description: "Control-plane log types that must be enabled.",
    },
    publicAccessMinPrefix: {
        type: "integer",
        minimum: 1,
        maximum: 32,
        default: 16,
        description:
            "The public endpoint's CIDRs may cover together at most as many addresses as one /N (16: 65,536 addresses, an office or VPN range).",
    },
};

const COMPONENT = "eks:index:Cluster";
const CLUSTER = "aws:eks/cluster:Cluster";
const OPEN = ["0.0.0.0/0", "::/0"];

/**
 * EKS clusters (the `@pulumi/eks` component's inputs and `aws.eks.Cluster`) envelope-encrypt
 * secrets with KMS, send audit logs to CloudWatch, and have no public endpoint open to the world:
 * what the public CIDRs cover together is judged (`0.0.0.0/1` + `128.0.0.0/1` is everything), and
 * may not exceed one `/publicAccessMinPrefix`.
 */
export const clusterHardening = declareResourcePolicy<ClusterHardeningConfig, void>({
    name: "cluster-hardening",
    description: "EKS clusters encrypt secrets, enable audit logging and have no unrestricted public endpoint.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires:
            "secrets encryption, audit logging, no public endpoint open to 0.0.0.0/0 (what the CIDRs cover together, at most one `/publicAccessMinPrefix`)",
        checks: "`eks:index:Cluster` (inputs) and `aws:eks/cluster:Cluster`: secrets envelope-encrypted with KMS, the required control-plane log types enabled, no public endpoint open to `0.0.0.0/0` (both default to a public endpoint open to the world when unset), judged by what the CIDRs cover together (`0.0.0.0/1` + `128.0.0.0/1` is `0.0.0.0/0`; overlaps count once), and at most one `/publicAccessMinPrefix` of addresses",
        knobs: { publicAccessMinPrefix: "the public CIDRs together cover at most one /N of addresses" },
    },
    select: (args) => {
        if (args.type !== COMPONENT && args.type !== CLUSTER) {
            args.notApplicable("not an EKS cluster");
        }
    },
    validateResource: (args, reportViolation, config) => {
        const props = args.props;
        const subject = `EKS cluster ${args.name}`;
        const component = args.type === COMPONENT;
        const verdicts = new Verdicts();

        verdicts.judge(`${subject} encryption`, () => {
            // The key ARN is unknown at preview: presence is what is known, and what matters.
            let encrypted: boolean;
            if (component) {
                const arn = peek(props, "encryptionConfigKeyArn");
                encrypted = typeof arn === "string" && arn !== "";
            } else {
                const raw = field(props, "encryptionConfig");
                const configs = Array.isArray(raw) ? asArray(raw) : [raw];
                encrypted = configs.some((c) => asArray(field(c, "resources")).includes("secrets") && has(field(c, "provider"), "keyArn"));
            }
            if (!encrypted) {
                reportViolation(
                    violation(
                        `${subject} does not envelope-encrypt Kubernetes secrets with a KMS key`,
                        "secrets are then protected only by the EBS encryption of etcd; a leaked etcd snapshot or backup exposes every credential in the cluster",
                        component
                            ? "set encryptionConfigKeyArn to a customer-managed KMS key with rotation"
                            : 'set encryptionConfig: { resources: ["secrets"], provider: { keyArn: <KMS key ARN> } }',
                    ),
                );
            }
        });

        verdicts.judge(`${subject} logging`, () => {
            const enabled = asArray(field(props, "enabledClusterLogTypes")).filter((t): t is string => typeof t === "string");
            const missing = config.requiredLogTypes.filter((t) => !enabled.includes(t));
            if (missing.length > 0) {
                reportViolation(
                    violation(
                        `${subject} does not enable control-plane log type${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
                        "without audit logs nobody can tell who changed or deleted what in the cluster, during an incident or afterwards",
                        `add ${missing.map((t) => `"${t}"`).join(", ")} to enabledClusterLogTypes (and give the log group a retention)`,
                    ),
                );
            }
        });

        verdicts.judge(`${subject} endpoint`, () => {
            const vpc = component ? props : asRecord(field(props, "vpcConfig"));
            // Both default to a public endpoint open to 0.0.0.0/0 when unset.
            if (isFalse(field(vpc, "endpointPublicAccess"))) {
                return;
            }
            const cidrs = field(vpc, "publicAccessCidrs");
            const list = asArray(cidrs)
                .map((c) => asString(c)?.trim())
                .filter((c): c is string => c !== undefined);
            const blocks = list.map(parseCidr).filter((b): b is Cidr => b !== undefined);
            const covered = coveredAddresses(blocks);
            const key = component ? "" : "vpcConfig.";
            const why =
                "the Kubernetes API is then reachable from anywhere: any leaked kubeconfig or token, or an API server flaw, is exploitable from the internet";
            const fix = `set ${key}endpointPublicAccess: false (private endpoint only), or ${key}publicAccessCidrs to your office/VPN ranges`;
            if (cidrs === undefined || cidrs === null || list.length === 0 || list.some((c) => OPEN.includes(c))) {
                reportViolation(violation(`${subject} has a public API endpoint open to 0.0.0.0/0`, why, fix));
            } else if (covered === ALL_IPV4) {
                reportViolation(
                    violation(`${subject} has a public API endpoint open to 0.0.0.0/0 (${list.join(", ")} cover every address)`, why, fix),
                );
            } else if (covered > blockSize(config.publicAccessMinPrefix)) {
                reportViolation(
                    violation(
                        `${subject} has a public API endpoint open to ${covered.toLocaleString("en-US")} addresses (${list.join(", ")}), more than one /${config.publicAccessMinPrefix} (${blockSize(config.publicAccessMinPrefix).toLocaleString("en-US")})`,
                        "the Kubernetes API is then reachable from a large part of the internet (an office or VPN range is far smaller): any leaked kubeconfig or token, or an API server flaw, is exploitable from there",
                        `${fix}, or raise this policy's publicAccessMinPrefix deliberately`,
                    ),
                );
            }
        });
        verdicts.finish();
    },
});
