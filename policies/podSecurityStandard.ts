import { field, INPUT_TAG, MANIFEST_INPUT, path, stringMap, SYSTEM_NAMESPACES } from "eks-platform-kernel";
import {
    describeWorkload,
    ENFORCE_LABEL,
    enforcedPolicy,
    isKind,
    POD_SECURITY_LEVELS,
    podSecurityFindings,
    PodSecurityLevel,
    PodSecurityPolicy,
    podSpecField,
    podTemplateOf,
    readNamespace,
    readWorkload,
    reportUndecided,
    undecided,
    Verdicts,
    violation,
    workloadKind,
} from "eks-platform-evaluation";
import { declareStackPolicy, Knobs } from "./declare";

/** Config of `pod-security-standard`. */
export interface PodSecurityStandardConfig {
    /** Level enforced in namespaces whose enforce label is not in the input. Defaults to `baseline`. */
    defaultLevel: PodSecurityLevel;
    /** Policy version with `defaultLevel` (`latest` or `v1.N`). Defaults to `latest`. */
    defaultVersion: string;
    /** Namespaces whose pods are not judged (Kubernetes' own). */
    exemptNamespaces: string[];
}

const knobs: Knobs<PodSecurityStandardConfig> = {
    defaultLevel: {
        type: "string",
        enum: [...POD_SECURITY_LEVELS],
        default: "baseline",
        description:
            "Pod Security level of namespaces whose pod-security.kubernetes.io/enforce label is not in the input: the stack's podSecurity.enforce, which the platform puts on every namespace it creates.",
    },
    defaultVersion: {
        type: "string",
        pattern: "^(latest|v1\\.(0|[1-9][0-9]*))$",
        default: "latest",
        description:
            "Policy version of defaultLevel: latest, or v1.N pinned to the cluster's minor version as the platform pins its labels.",
    },
    exemptNamespaces: {
        type: "array",
        items: { type: "string" },
        default: [...SYSTEM_NAMESPACES],
        description: "Namespaces whose pods are not judged (Kubernetes' and EKS's own, privileged by the cluster's defaults).",
    },
};

/**
 * Each pod template (Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job, CronJob) and Pod meets
 * the Pod Security Standard its namespace enforces — the namespace's enforce labels when the
 * Namespace is in the input, else `defaultLevel`/`defaultVersion` — with Pod Security Admission's
 * own checks at that version (evaluation/podSecurity.ts). A template that fails is a workload
 * whose pods the API server refuses: it passes every other check and never runs.
 */
export const podSecurityStandard = declareStackPolicy<PodSecurityStandardConfig>({
    name: "pod-security-standard",
    description: "Pod templates meet the Pod Security Standard (baseline, restricted) their namespace enforces.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires: "every pod template meets the Pod Security Standard its namespace enforces (Pod Security Admission's checks per version)",
        checks: "every pod template (Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job, CronJob) and Pod meets the Pod Security Standard its namespace enforces — the Namespace's `pod-security.kubernetes.io/enforce` and `enforce-version` labels when it is in the input, else `defaultLevel`/`defaultVersion` (for plain manifests without `--platform`, a finding in a namespace they do not hold is undecided: the cluster's label is unknown) — with Pod Security Admission's own checks at that version (see below): baseline (host namespaces, privileged, capabilities, hostPath, hostPorts, AppArmor, SELinux, procMount, seccomp, sysctls, HostProcess, probe and lifecycle hosts) and restricted (volume types, allowPrivilegeEscalation, runAsNonRoot, runAsUser 0, seccomp, capabilities drop ALL)",
    },
    validateStack: (args, reportViolation, config) => {
        const exempt = new Set(config.exemptNamespaces);
        const verdicts = new Verdicts();
        // Namespace name → its labels, or `undefined` when they are unknown at preview.
        const namespaces = new Map<string, Record<string, string> | undefined>();
        let unreadableNamespace = false;
        for (const r of args.resources) {
            if (!r.type.startsWith("kubernetes:") || !isKind(r.type, r.props, "", "Namespace")) {
                continue;
            }
            const ns = readNamespace(r, verdicts);
            if (!ns) {
                unreadableNamespace = true;
                continue;
            }
            namespaces.set(
                ns.name,
                verdicts.read(`Namespace ${ns.name} labels`, () => stringMap(path(ns.props, "metadata", "labels"))),
            );
        }
        const defaults = { level: config.defaultLevel, version: config.defaultVersion };
        // Plain manifests without their platform: a namespace they do not hold is the cluster's,
        // whose enforce label they cannot tell.
        const manifestsAlone = args.stackTags.get(INPUT_TAG) === MANIFEST_INPUT;
        for (const r of args.resources) {
            const kind = r.type.startsWith("kubernetes:") ? workloadKind(r.type, r.props) : undefined;
            if (!kind) {
                continue;
            }
            const w = verdicts.read(`${r.type} ${r.name}`, () => readWorkload(r.type, r.name, r.props, r.urn));
            if (!w || exempt.has(w.namespace)) {
                continue;
            }
            const subject = describeWorkload(w);
            verdicts.judge(subject, () => {
                let policy: PodSecurityPolicy;
                let source: string;
                if (namespaces.has(w.namespace)) {
                    const labels = namespaces.get(w.namespace);
                    if (labels === undefined) {
                        verdicts.leaveUndecided(subject, ["Namespace", w.namespace, "metadata", "labels"]);
                        return;
                    }
                    policy = enforcedPolicy(labels, defaults);
                    source =
                        labels[ENFORCE_LABEL] !== undefined
                            ? `its ${ENFORCE_LABEL} label`
                            : "no enforce label, so the stack default, this policy's defaultLevel";
                } else if (unreadableNamespace) {
                    // A Namespace whose name is unknown at preview may be this one.
                    verdicts.leaveUndecided(subject, ["Namespace", "metadata", "name"]);
                    return;
                } else {
                    policy = enforcedPolicy({}, defaults);
                    source = "the stack default, this policy's defaultLevel";
                }
                const template = podTemplateOf(kind, r.props);
                const findings = podSecurityFindings(
                    { annotations: stringMap(field(template.metadata, "annotations")), spec: template.spec },
                    policy,
                );
                if (findings.length === 0) {
                    return;
                }
                if (manifestsAlone && !namespaces.has(w.namespace)) {
                    reportUndecided(
                        reportViolation,
                        undecided(
                            `${subject} would violate PodSecurity "${policy.name}" if namespace ${w.namespace} enforces it (this policy's defaultLevel): ${findings.map((f) => `${f.reason} (${f.detail})`).join(", ")}`,
                            `namespace ${w.namespace} is not in these manifests, so the level its pod-security.kubernetes.io/enforce label sets cannot be told`,
                            `judge the manifests on the platform's profile (npm run policy:check -- --platform <profile>), or meet "${policy.name}" anyway: ${findings.map((f) => f.fix).join("; ")}`,
                        ),
                        w.urn,
                    );
                    return;
                }
                reportViolation(
                    violation(
                        `${subject} violates PodSecurity "${policy.name}", which namespace ${w.namespace} enforces (${source}): ${findings.map((f) => `${f.reason} (${f.detail})`).join(", ")}`,
                        kind === "Pod"
                            ? "the API server refuses the Pod at admission"
                            : `Pod Security Admission refuses its pods when the controller creates them ("violates PodSecurity"), so the ${kind} is accepted but never runs a pod: the rollout stalls, and pods replaced after a drain or a crash never come back`,
                        findings.map((f) => f.fix).join("; "),
                        podSpecField(kind),
                    ),
                    w.urn,
                );
            });
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable("no workload outside the exempt namespaces in this stack: nothing was checked");
        }
    },
});
