/**
 * What a Kubernetes minor upgrade of a stack's control plane does to the rest of it, read off one
 * render: the NodePools whose nodes drift once the control plane runs the new minor, the node
 * groups left on the old one (and how far behind), the add-ons pinned to a build of the old minor,
 * and the stack's own objects on API versions the new minor no longer serves. Pure; the diff
 * (tools/changes/diff.ts) heads with it, and `npm run upgrade` (tools/changes/upgrade.ts) orders it into a plan.
 */
import { addonKubernetesMinor, asArray, asRecord, asString, kubernetesMinor, parseReleaseVersion, path } from "eks-platform-kernel";
import { kubernetesKind, parseRelease, removedApi, removedBy, RemovedApi } from "eks-platform-evaluation";

/** A resource of a render, as the diff and the plan hold it. */
export interface Rendered {
    type: string;
    name: string;
    urn: string;
    props: Record<string, unknown>;
}

export const EKS_CLUSTER = "eks:index:Cluster";
const NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool";
const NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass";
const MANAGED_GROUP = "aws:eks/nodeGroup:NodeGroup";
const ADDON = "aws:eks/addon:Addon";

/**
 * kubelet may be up to three minors older than the API server (Kubernetes version skew policy,
 * from v1.28; https://kubernetes.io/releases/version-skew-policy/#kubelet).
 */
export const KUBELET_SKEW = 3;

/**
 * EKS version rollback: the control plane can return to the previous minor within 7 days of an
 * in-place upgrade, while the nodes still run it (EKS User Guide, "Roll back a cluster to a
 * previous Kubernetes version"; Best Practices, "Cluster version rollback").
 */
export const ROLLBACK_DAYS = 7;

export interface PoolDrift {
    urn: string;
    pool: string;
    nodeClass: string;
    alias: string;
    /** The pool's disruption budgets as written (`10%`), which pace the drift. */
    budgets: string[];
}

export interface GroupSkew {
    urn: string;
    name: string;
    /** The minor the group's nodes run (its `version`, else its `releaseVersion`'s); undefined when unpinned. */
    minor: number | undefined;
}

export interface AddonBuild {
    urn: string;
    addon: string;
    version: string;
    /** `behind`: a build of another minor, which EKS does not offer for the target (kube-proxy); `confirm`: compatibility only AWS can tell. */
    verdict: "behind" | "confirm";
    /** The minor a kube-proxy build is for. */
    minor?: string;
}

export interface RemovedUse {
    urn: string;
    kind: string;
    name: string;
    removed: RemovedApi;
}

export interface UpgradeImpact {
    cluster: { urn: string; name: string };
    from: string;
    to: string;
    drifts: PoolDrift[];
    groups: GroupSkew[];
    addons: AddonBuild[];
    removed: RemovedUse[];
}

/** The EKS cluster of a render and its version; undefined without one. */
export function clusterOf(resources: readonly Rendered[]): { urn: string; name: string; version: string } | undefined {
    const c = resources.find((r) => r.type === EKS_CLUSTER);
    const version = asString(c?.props.version);
    return c && version ? { urn: c.urn, name: asString(c.props.name) ?? c.name, version } : undefined;
}

/**
 * Karpenter resolves an `alias` AMI selector per Kubernetes minor: the SSM parameter it reads
 * names the cluster's version (`/aws/service/eks/optimized-ami/<version>/amazon-linux-2023/…`,
 * karpenter-provider-aws v1.14.1 pkg/providers/amifamily/al2023.go `resolvePath`; Bottlerocket
 * and AL2 likewise), so a pinned `al2023@v20260512` resolves to a new AMI once the control plane
 * runs the next minor, and every node of every pool on that class drifts (Karpenter docs,
 * "Managing AMIs"). Selectors by id, name or tags do not follow the version.
 */
function versionFollowingAlias(nodeClass: Rendered | undefined): string | undefined {
    const terms = asArray(path(nodeClass?.props, "spec", "amiSelectorTerms"));
    return terms.map((t) => asString(asRecord(t)?.alias)).find((a): a is string => a !== undefined && a !== "");
}

/** What upgrading the render's cluster from its version to `to` does to the rest of the render. */
export function upgradeImpact(resources: readonly Rendered[], to: string): UpgradeImpact | undefined {
    const cluster = clusterOf(resources);
    if (!cluster) {
        return undefined;
    }
    const classes = new Map(
        resources.filter((r) => r.type === NODE_CLASS).map((r) => [asString(path(r.props, "metadata", "name")) ?? r.name, r]),
    );
    const drifts = resources
        .filter((r) => r.type === NODE_POOL)
        .flatMap((r): PoolDrift[] => {
            const nodeClass = asString(path(r.props, "spec", "template", "spec", "nodeClassRef", "name")) ?? "";
            const alias = versionFollowingAlias(classes.get(nodeClass));
            const budgets = asArray(path(r.props, "spec", "disruption", "budgets")).map((b) => asString(asRecord(b)?.nodes) ?? "10%");
            return alias ? [{ urn: r.urn, pool: asString(path(r.props, "metadata", "name")) ?? r.name, nodeClass, alias, budgets }] : [];
        });
    const groups = resources
        .filter((r) => r.type === MANAGED_GROUP)
        .map((r): GroupSkew => {
            const version = asString(r.props.version);
            const release = asString(r.props.releaseVersion);
            const minor = version ? kubernetesMinor(version) : release ? kubernetesMinor(parseReleaseVersion(release)?.minor ?? "") : NaN;
            return { urn: r.urn, name: asString(r.props.nodeGroupName) ?? r.name, minor: Number.isNaN(minor) ? undefined : minor };
        });
    const toMinor = kubernetesMinor(to);
    const addons = resources
        .filter((r) => r.type === ADDON)
        .map((r): AddonBuild => {
            const addon = asString(r.props.addonName) ?? r.name;
            const version = asString(r.props.addonVersion) ?? "(unpinned)";
            const minor = addon === "kube-proxy" ? addonKubernetesMinor(version) : undefined;
            return {
                urn: r.urn,
                addon,
                version,
                verdict: minor !== undefined && kubernetesMinor(minor) !== toMinor ? "behind" : "confirm",
                ...(minor !== undefined ? { minor } : {}),
            };
        });
    const release = parseRelease(to);
    const removed = release
        ? resources.flatMap((r): RemovedUse[] => {
              const kind = kubernetesKind(r.type, r.props);
              const api = kind ? removedApi(kind) : undefined;
              return kind && api && removedBy(api, release)
                  ? [{ urn: r.urn, kind: kind.kind, name: asString(path(r.props, "metadata", "name")) ?? r.name, removed: api }]
                  : [];
          })
        : [];
    return { cluster: { urn: cluster.urn, name: cluster.name }, from: cluster.version, to, drifts, groups, addons, removed };
}
