import {
    EKS_CLUSTER_TYPES,
    kubernetesKind,
    KubernetesRelease,
    namespaceOf,
    objectName,
    parseRelease,
    removedApi,
    removedBy,
    reportUndecided,
    undecided,
    Verdicts,
    violation,
} from "eks-platform-evaluation";
import { field, inputScope, path } from "eks-platform-kernel";
import { declareStackPolicy, Knobs } from "./declare";

/** Config of `api-versions-served`. */
export interface ApiVersionsServedConfig {
    /**
     * The Kubernetes version objects are judged against when the input holds no EKS cluster (plain
     * manifests); the cluster's own `version` wins when it does. Defaults to `""` (none).
     */
    kubernetesVersion: string;
}

const knobs: Knobs<ApiVersionsServedConfig> = {
    kubernetesVersion: {
        type: "string",
        pattern: "^$|^v?[0-9]+\\.[0-9]+(\\.[0-9]+)?$",
        default: "",
        description:
            'Kubernetes version (e.g. "1.34") the objects are judged against when the input holds no EKS cluster; the cluster\'s own version wins when it does.',
    },
};

/**
 * No Kubernetes object is written against an API version the cluster's Kubernetes release no
 * longer serves (`policy/v1beta1` PodDisruptionBudget, `extensions/v1beta1` Deployment, …): the
 * API server refuses it. The release is the EKS cluster's in the same stack, else `kubernetesVersion`.
 */
export const apiVersionsServed = declareStackPolicy<ApiVersionsServedConfig>({
    name: "api-versions-served",
    description: "Kubernetes objects use API versions the cluster's Kubernetes version still serves.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires:
            "no Kubernetes object on an API version the cluster's Kubernetes release no longer serves (`policy/v1beta1`, `extensions/v1beta1`, …)",
        checks: "no Kubernetes object uses an API version its cluster's Kubernetes release no longer serves (`policy/v1beta1` PodDisruptionBudget, `extensions/v1beta1` and `apps/v1beta*` workloads, `batch/v1beta1` CronJob, …; the table in `evaluation/apiVersions.ts`, from the Kubernetes deprecated API migration guide): the API server refuses them. The release is the EKS cluster's `version` in the same stack (a cluster without one gets the newest), else `kubernetesVersion`; with neither, undecided",
        knobs: {
            kubernetesVersion:
                "left empty in the environment files: `npm run policy:check -- --env <stack>` takes the stack's `cluster.version` from `Pulumi.<stack>.yaml` (its one home); set it only for a pack used outside this repository",
        },
    },
    validateStack: (args, reportViolation, config) => {
        const verdicts = new Verdicts();
        const scope = inputScope(args.stackTags);
        const clusters: { name: string; release: KubernetesRelease | undefined }[] = [];
        let unknownCluster = false;
        for (const r of args.resources) {
            if (EKS_CLUSTER_TYPES.has(r.type)) {
                const read = verdicts.read(`${r.type} ${r.name}`, () => {
                    clusters.push({ name: r.name, release: parseRelease(field(r.props, "version")) });
                    return true;
                });
                unknownCluster ||= read === undefined;
            }
        }
        const judged = judgedRelease(clusters, config.kubernetesVersion);
        for (const r of args.resources) {
            if (!r.type.startsWith("kubernetes:")) {
                continue;
            }
            const subject = `${r.type} ${r.name}`;
            verdicts.judge(subject, () => {
                const k = kubernetesKind(r.type, r.props);
                const removed = k && removedApi(k);
                if (!removed) {
                    return;
                }
                const name = objectName(r.props, r.name);
                // Cluster-scoped objects (CRDs, Namespaces) carry no namespace.
                const where = path(r.props, "metadata", "namespace") === undefined ? name : `${namespaceOf(r.props)}/${name}`;
                const what = `${removed.kind} ${where} uses apiVersion ${removed.apiVersion}, which Kubernetes ${removed.removedIn} and later no longer serve`;
                const fix = removed.replacement.startsWith("none")
                    ? removed.replacement.replace(/^none: /, "")
                    : `write it against apiVersion ${removed.replacement} (see the Kubernetes deprecated API migration guide for changed fields)`;
                if (judged === undefined) {
                    if (!unknownCluster) {
                        reportUndecided(
                            reportViolation,
                            undecided(
                                what,
                                `no EKS cluster ${scope} and no kubernetesVersion configured, so whether the API server serves it cannot be told; on any cluster at ${removed.removedIn} or later it refuses the object`,
                                `set api-versions-served.kubernetesVersion in the policy config to the cluster's version, or ${fix}`,
                                ["apiVersion"],
                            ),
                            r.urn,
                        );
                    } else {
                        verdicts.leaveUndecided(subject, ["Cluster", "version"]);
                    }
                    return;
                }
                if (removedBy(removed, judged.release)) {
                    reportViolation(
                        violation(
                            `${what}; the cluster runs ${judged.from}`,
                            `the API server refuses the object ("no matches for kind ${removed.kind} in version ${removed.apiVersion}"), so the apply fails and whatever it was meant to do (protect pods from drains, run a workload, allow traffic) never happens`,
                            fix,
                            ["apiVersion"],
                        ),
                        r.urn,
                    );
                }
            });
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable(`no Kubernetes object ${scope}: nothing was checked`);
        }
    },
});

// A cluster that sets no version gets the newest one EKS offers, which serves none of the removed APIs.
const LATEST: KubernetesRelease = { major: 1, minor: Number.MAX_SAFE_INTEGER };

/**
 * The release objects are judged against, and how it was found: the EKS cluster's of the input
 * (the newest when there are several, since the objects must be accepted by each), else the
 * configured one; `undefined` when neither is known.
 */
function judgedRelease(
    clusters: readonly { name: string; release: KubernetesRelease | undefined }[],
    configured: string,
): { release: KubernetesRelease; from: string } | undefined {
    if (clusters.length > 0) {
        const releases = clusters.map((c) => c.release ?? LATEST);
        const release = releases.reduce((a, b) => (b.major > a.major || (b.major === a.major && b.minor > a.minor) ? b : a));
        const names = clusters.map((c) => c.name).join(", ");
        return {
            release,
            from:
                release === LATEST
                    ? `the newest Kubernetes version (${names} sets no version)`
                    : `Kubernetes ${release.major}.${release.minor} (${names})`,
        };
    }
    const release = parseRelease(configured);
    return release && { release, from: `Kubernetes ${release.major}.${release.minor} (api-versions-served.kubernetesVersion)` };
}
