/**
 * Typed shapes of the Karpenter v1 objects this program renders (`karpenter.sh/v1` NodePool,
 * `karpenter.k8s.aws/v1` EC2NodeClass). Narrower than the CRDs on purpose: fields the CRD leaves
 * optional but the platform requires (`nodeClassRef.group`/`kind`, `limits`, `disruption`,
 * `terminationGracePeriod`, `metadataOptions`, the root volume) are required here, so a renderer
 * that drops one does not compile.
 */
import type { NodePoolLimits, NodePoolTaint } from "./schema";

/** The one node class reference Karpenter v1 on AWS accepts. */
/** A NodePool's node class: Karpenter's EC2NodeClass, or EKS Auto Mode's NodeClass (components/compute/autoMode.ts). */
export type NodeClassReference =
    { group: "karpenter.k8s.aws"; kind: "EC2NodeClass"; name: string } | { group: "eks.amazonaws.com"; kind: "NodeClass"; name: string };

export type RequirementOperator = "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt";

export interface NodeRequirement {
    key: string;
    operator: RequirementOperator;
    values?: string[];
    minValues?: number;
}

export interface DisruptionBudget {
    nodes: string;
    schedule?: string;
    duration?: string;
    reasons?: ("Underutilized" | "Empty" | "Drifted")[];
}

export interface NodePoolSpec {
    weight?: number;
    template: {
        metadata?: { labels?: Record<string, string> };
        spec: {
            nodeClassRef: NodeClassReference;
            requirements: NodeRequirement[];
            taints?: NodePoolTaint[];
            expireAfter: string;
            terminationGracePeriod: string;
        };
    };
    limits: NodePoolLimits;
    disruption: {
        consolidationPolicy: "WhenEmpty" | "WhenEmptyOrUnderutilized";
        consolidateAfter: string;
        budgets: DisruptionBudget[];
    };
}

export interface SelectorTerm {
    tags: Record<string, string>;
}

export interface EC2NodeClassSpec {
    /** Node IAM role name; Karpenter creates and owns the instance profile. */
    role: string;
    amiSelectorTerms: { alias: string }[];
    subnetSelectorTerms: SelectorTerm[];
    securityGroupSelectorTerms: SelectorTerm[];
    metadataOptions: {
        httpEndpoint: "enabled";
        httpPutResponseHopLimit: number;
        httpTokens: "required";
    };
    blockDeviceMappings: {
        deviceName: string;
        rootVolume: true;
        ebs: {
            volumeSize: string;
            volumeType: "gp3";
            iops: number;
            throughput: number;
            encrypted: true;
            deleteOnTermination: true;
            kmsKeyID?: string;
        };
    }[];
    detailedMonitoring: boolean;
    associatePublicIPAddress: false;
    tags?: Record<string, string>;
}

/** A rendered custom resource: what `k8s.apiextensions.CustomResource` receives. */
export interface KarpenterObject<Kind extends string, Spec> {
    apiVersion: Kind extends "NodePool" ? "karpenter.sh/v1" : "karpenter.k8s.aws/v1";
    kind: Kind;
    metadata: { name: string; labels?: Record<string, string> };
    spec: Spec;
}

export type NodePoolObject = KarpenterObject<"NodePool", NodePoolSpec>;
export type EC2NodeClassObject = KarpenterObject<"EC2NodeClass", EC2NodeClassSpec>;
