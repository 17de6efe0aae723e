/**
 * The Pod Security Standards as Pod Security Admission enforces them (k8s.io/pod-security-admission,
 * `policy/check_*.go` and `registry.go`, read at Kubernetes 1.34, the platform's pinned minor):
 * each check with the policy versions it applies from, restricted checks that replace baseline
 * ones, and a namespace's enforce labels resolved as `api.PolicyToEvaluate` resolves them. Pure;
 * reads through `values` (the SDK's proxy may throw on unknown values).
 */
import {
    asArray,
    asRecord,
    asString,
    ENFORCE_LABEL,
    ENFORCE_VERSION_LABEL,
    field,
    keysOf,
    path,
    PodSecurityLevel,
    podSecurityLevel,
    podSecurityMinor,
    Rec,
} from "eks-platform-kernel";
import { containersOf } from "./kubernetes";

// The levels and their labels are the kernel's (kernel/podSecurityLevels.ts, free of the SDK: the stack config reads them too).
export { ENFORCE_LABEL, POD_SECURITY_LEVELS, podSecurityLevel } from "eks-platform-kernel";
export type { PodSecurityLevel } from "eks-platform-kernel";

/**
 * The newest policy version whose checks are written here. Like Pod Security Admission, a newer
 * version label (or `latest`) is evaluated with the newest checks known.
 */
export const NEWEST_MINOR = 34;

/** A level and policy version: what a namespace enforces. */
export interface PodSecurityPolicy {
    level: PodSecurityLevel;
    /** Policy minor version (1.x) the checks are evaluated at. */
    minor: number;
    /** As Pod Security Admission names it in its messages: `restricted:v1.34`, `baseline:latest`. */
    name: string;
}

/** `latest` or `v1.N` (api.ParseVersion); `undefined` for anything else. */
function parseVersion(value: string): { minor: number; latest: boolean } | undefined {
    if (value === "latest") {
        return { minor: NEWEST_MINOR, latest: true };
    }
    const minor = podSecurityMinor(value);
    return minor === undefined ? undefined : { minor, latest: false };
}

/**
 * The enforce policy of a namespace from its labels, falling back to `defaults` for a label that
 * is absent; a label that does not parse makes it `restricted` / `latest` (what PolicyToEvaluate does).
 */
export function enforcedPolicy(labels: Record<string, string>, defaults: { level: PodSecurityLevel; version: string }): PodSecurityPolicy {
    const rawLevel = labels[ENFORCE_LABEL] ?? defaults.level;
    const rawVersion = labels[ENFORCE_VERSION_LABEL] ?? defaults.version;
    const level = podSecurityLevel(rawLevel) ?? "restricted";
    const version = parseVersion(rawVersion) ?? { minor: NEWEST_MINOR, latest: true };
    return {
        level,
        minor: Math.min(version.minor, NEWEST_MINOR),
        name: `${level}:${version.latest ? "latest" : `v1.${version.minor}`}`,
    };
}

/** The pod a check looks at: template (or Pod) annotations and spec. */
export interface PodView {
    annotations: Record<string, string>;
    spec: unknown;
}

/** A check that failed: PSA's reason and detail, and how to comply. */
interface PodSecurityFinding {
    id: string;
    reason: string;
    detail: string;
    fix: string;
}

type CheckFn = (pod: PodView) => { reason: string; detail: string } | undefined;

interface Check {
    id: string;
    level: "baseline" | "restricted";
    fix: string;
    /** By minimum policy minor version, ascending: the last one at or below the evaluated version applies. */
    versions: { min: number; check: CheckFn }[];
    /** Baseline checks this restricted check replaces (registry.go overrides). */
    overrides?: string[];
}

// --- helpers shaped like PSA's (helpers.go, visitor.go) ---

/**
 * A value of any type as messages show it: strings as they are, an absent one as the empty string
 * (Go's zero value: PSA prints an unset seccomp or AppArmor type as ""), anything else as JSON.
 */
function shown(value: unknown): string {
    return typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value);
}

/** `"a", "b"`: PSA's joinQuote (helpers.go), which quotes without escaping. */
function quote(names: readonly string[]): string {
    return names.map((n) => `"${n}"`).join(", ");
}

function plural(n: number, one: string, many: string): string {
    return n === 1 ? one : many;
}

/** Init containers, then containers (pod templates hold no ephemeral containers). */
function visit(spec: unknown): { name: string; spec: Rec }[] {
    return containersOf(spec);
}

function podContext(spec: unknown): unknown {
    return field(spec, "securityContext");
}

function isWindows(spec: unknown): boolean {
    return path(spec, "os", "name") === "windows";
}

/** `pod and containers "a", "b"` — who set a forbidden value. */
function setters(pod: boolean, containers: readonly string[]): string {
    const parts = [
        ...(pod ? ["pod"] : []),
        ...(containers.length > 0 ? [`${plural(containers.length, "container", "containers")} ${quote(containers)}`] : []),
    ];
    return parts.join(" and ");
}

function explicitlyTrue(obj: unknown, key: string): boolean {
    return field(obj, key) === true;
}

// --- baseline checks ---

const hostProcess: CheckFn = (pod) => {
    const podSet = explicitlyTrue(path(podContext(pod.spec), "windowsOptions"), "hostProcess");
    const bad = visit(pod.spec)
        .filter((c) => explicitlyTrue(path(c.spec, "securityContext", "windowsOptions"), "hostProcess"))
        .map((c) => c.name);
    return podSet || bad.length > 0
        ? { reason: "hostProcess", detail: `${setters(podSet, bad)} must not set securityContext.windowsOptions.hostProcess=true` }
        : undefined;
};

const hostNamespaces: CheckFn = (pod) => {
    const set = ["hostNetwork", "hostPID", "hostIPC"].filter((k) => explicitlyTrue(pod.spec, k)).map((k) => `${k}=true`);
    return set.length > 0 ? { reason: "host namespaces", detail: set.join(", ") } : undefined;
};

const privileged: CheckFn = (pod) => {
    const bad = visit(pod.spec)
        .filter((c) => explicitlyTrue(field(c.spec, "securityContext"), "privileged"))
        .map((c) => c.name);
    return bad.length > 0
        ? {
              reason: "privileged",
              detail: `${plural(bad.length, "container", "containers")} ${quote(bad)} must not set securityContext.privileged=true`,
          }
        : undefined;
};

const BASELINE_CAPABILITIES = new Set([
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
]);

const capabilitiesBaseline: CheckFn = (pod) => {
    const bad: string[] = [];
    const caps = new Set<string>();
    for (const c of visit(pod.spec)) {
        const added = asArray(path(c.spec, "securityContext", "capabilities", "add")).map(String);
        const forbidden = added.filter((a) => !BASELINE_CAPABILITIES.has(a));
        if (forbidden.length > 0) {
            bad.push(c.name);
            forbidden.forEach((f) => caps.add(f));
        }
    }
    return bad.length > 0
        ? {
              reason: "non-default capabilities",
              detail: `${plural(bad.length, "container", "containers")} ${quote(bad)} must not include ${quote([...caps].sort())} in securityContext.capabilities.add`,
          }
        : undefined;
};

function volumes(spec: unknown): { name: string; source: Rec }[] {
    return asArray(field(spec, "volumes")).flatMap((v, i) => {
        const rec = asRecord(v);
        return rec ? [{ name: asString(field(rec, "name")) ?? `#${i}`, source: rec }] : [];
    });
}

const hostPathVolumes: CheckFn = (pod) => {
    const bad = volumes(pod.spec)
        .filter((v) => field(v.source, "hostPath") !== undefined && field(v.source, "hostPath") !== null)
        .map((v) => v.name);
    return bad.length > 0 ? { reason: "hostPath volumes", detail: `${plural(bad.length, "volume", "volumes")} ${quote(bad)}` } : undefined;
};

const hostPorts: CheckFn = (pod) => {
    const bad: string[] = [];
    const ports = new Set<string>();
    for (const c of visit(pod.spec)) {
        const used = asArray(field(c.spec, "ports"))
            .map((p) => field(p, "hostPort"))
            .filter((p) => p !== undefined && p !== null && p !== 0);
        if (used.length > 0) {
            bad.push(c.name);
            used.forEach((p) => ports.add(shown(p)));
        }
    }
    return bad.length > 0
        ? {
              reason: "hostPort",
              detail: `${plural(bad.length, "container", "containers")} ${quote(bad)} ${plural(bad.length, "uses", "use")} ${plural(ports.size, "hostPort", "hostPorts")} ${[...ports].sort().join(", ")}`,
          }
        : undefined;
};

const APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/";

const appArmorProfile: CheckFn = (pod) => {
    const allowedType = (t: unknown) => t === "RuntimeDefault" || t === "Localhost";
    const badValues = new Set<string>();
    const profileType = (sc: unknown) => path(sc, "appArmorProfile", "type");
    const podProfile = path(podContext(pod.spec), "appArmorProfile");
    const podBad = podProfile !== undefined && podProfile !== null && !allowedType(profileType(podContext(pod.spec)));
    if (podBad) {
        badValues.add(shown(profileType(podContext(pod.spec))));
    }
    const bad = visit(pod.spec).filter((c) => {
        const sc = field(c.spec, "securityContext");
        const profile = field(sc, "appArmorProfile");
        if (profile !== undefined && profile !== null && !allowedType(profileType(sc))) {
            badValues.add(shown(profileType(sc)));
            return true;
        }
        return false;
    });
    const annotations = Object.entries(pod.annotations)
        .filter(([k, v]) => k.startsWith(APPARMOR_ANNOTATION) && !(v === "" || v === "runtime/default" || v.startsWith("localhost/")))
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .sort();
    if (!podBad && bad.length === 0 && annotations.length === 0) {
        return undefined;
    }
    const who = [
        setters(
            podBad,
            bad.map((c) => c.name),
        ),
        ...(annotations.length > 0 ? [plural(annotations.length, "annotation", "annotations")] : []),
    ]
        .filter((w) => w !== "")
        .join(" and ");
    const values = [...[...badValues].sort(), ...annotations];
    return {
        reason: plural(values.length, "forbidden AppArmor profile", "forbidden AppArmor profiles"),
        detail: `${who} must not set AppArmor profile type to ${quote(values)}`,
    };
};

function seLinuxOptions(allowedTypes: ReadonlySet<string>): CheckFn {
    return (pod) => {
        const badTypes = new Set<string>();
        let user = false;
        let role = false;
        const valid = (opts: unknown): boolean => {
            let ok = true;
            const type = asString(field(opts, "type")) ?? "";
            if (!allowedTypes.has(type)) {
                badTypes.add(type);
                ok = false;
            }
            if ((asString(field(opts, "user")) ?? "") !== "") {
                user = true;
                ok = false;
            }
            if ((asString(field(opts, "role")) ?? "") !== "") {
                role = true;
                ok = false;
            }
            return ok;
        };
        const podOpts = path(podContext(pod.spec), "seLinuxOptions");
        const podBad = asRecord(podOpts) !== undefined && !valid(podOpts);
        const bad = visit(pod.spec)
            .filter((c) => {
                const opts = path(c.spec, "securityContext", "seLinuxOptions");
                return asRecord(opts) !== undefined && !valid(opts);
            })
            .map((c) => c.name);
        if (!podBad && bad.length === 0) {
            return undefined;
        }
        const data = [
            ...(badTypes.size > 0 ? [`${plural(badTypes.size, "type", "types")} ${quote([...badTypes].sort())}`] : []),
            ...(user ? ["user may not be set"] : []),
            ...(role ? ["role may not be set"] : []),
        ];
        return {
            reason: "seLinuxOptions",
            detail: `${setters(podBad, bad)} set forbidden securityContext.seLinuxOptions: ${data.join("; ")}`,
        };
    };
}

const SELINUX_TYPES_1_0 = new Set(["", "container_t", "container_init_t", "container_kvm_t"]);
const SELINUX_TYPES_1_31 = new Set([...SELINUX_TYPES_1_0, "container_engine_t"]);

const procMount: CheckFn = (pod) => {
    const bad: string[] = [];
    const types = new Set<string>();
    for (const c of visit(pod.spec)) {
        const pm = path(c.spec, "securityContext", "procMount");
        if (pm !== undefined && pm !== null && pm !== "Default") {
            bad.push(c.name);
            types.add(shown(pm));
        }
    }
    return bad.length > 0
        ? {
              reason: "procMount",
              detail: `${plural(bad.length, "container", "containers")} ${quote(bad)} must not set securityContext.procMount to ${quote([...types].sort())}`,
          }
        : undefined;
};

const SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod";
const SECCOMP_CONTAINER_ANNOTATION = "container.seccomp.security.alpha.kubernetes.io/";
const validSeccompType = (t: unknown) => t === "RuntimeDefault" || t === "Localhost";

/** Before 1.19 the seccomp profile was an annotation. */
const seccompBaselineAnnotations: CheckFn = (pod) => {
    const valid = (v: string) => v === "runtime/default" || v === "docker/default" || v.startsWith("localhost/");
    const forbidden: string[] = [];
    const podValue = pod.annotations[SECCOMP_POD_ANNOTATION];
    if (podValue !== undefined && !valid(podValue)) {
        forbidden.push(`${SECCOMP_POD_ANNOTATION}=${JSON.stringify(podValue)}`);
    }
    for (const c of visit(pod.spec)) {
        const key = `${SECCOMP_CONTAINER_ANNOTATION}${c.name}`;
        const value = pod.annotations[key];
        if (value !== undefined && !valid(value)) {
            forbidden.push(`${key}=${JSON.stringify(value)}`);
        }
    }
    return forbidden.length > 0
        ? {
              reason: "seccompProfile",
              detail: `forbidden ${plural(forbidden.length, "annotation", "annotations")} ${forbidden.sort().join(", ")}`,
          }
        : undefined;
};

/** Whether pod and containers set a valid seccomp type, an invalid one, or none. */
function seccompSetters(spec: unknown): { podValid: boolean; badPod: boolean; bad: string[]; unset: string[]; values: Set<string> } {
    const values = new Set<string>();
    const podProfile = path(podContext(spec), "seccompProfile");
    const podSet = asRecord(podProfile) !== undefined;
    const podType = field(podProfile, "type");
    const badPod = podSet && !validSeccompType(podType);
    if (badPod) {
        values.add(shown(podType));
    }
    const bad: string[] = [];
    const unset: string[] = [];
    for (const c of visit(spec)) {
        const profile = path(c.spec, "securityContext", "seccompProfile");
        if (asRecord(profile) === undefined) {
            unset.push(c.name);
        } else if (!validSeccompType(field(profile, "type"))) {
            bad.push(c.name);
            values.add(shown(field(profile, "type")));
        }
    }
    return { podValid: podSet && !badPod, badPod, bad, unset, values };
}

const seccompBaseline: CheckFn = (pod) => {
    const s = seccompSetters(pod.spec);
    return s.badPod || s.bad.length > 0
        ? {
              reason: "seccompProfile",
              detail: `${setters(s.badPod, s.bad)} must not set securityContext.seccompProfile.type to ${quote([...s.values].sort())}`,
          }
        : undefined;
};

function sysctls(allowed: ReadonlySet<string>): CheckFn {
    return (pod) => {
        const forbidden = asArray(path(podContext(pod.spec), "sysctls"))
            .map((s) => shown(field(s, "name")))
            .filter((n) => !allowed.has(n));
        return forbidden.length > 0 ? { reason: "forbidden sysctls", detail: forbidden.join(", ") } : undefined;
    };
}

/**
 * The safe sysctls baseline allows, by the policy version that added them (check_sysctls.go:
 * sysctlsAllowedV1Dot0, V1Dot27, V1Dot29, V1Dot32; each version allows its own and every earlier one).
 */
export const SAFE_SYSCTLS: readonly { readonly minor: number; readonly names: readonly string[] }[] = [
    {
        minor: 0,
        names: [
            "kernel.shm_rmid_forced",
            "net.ipv4.ip_local_port_range",
            "net.ipv4.tcp_syncookies",
            "net.ipv4.ping_group_range",
            "net.ipv4.ip_unprivileged_port_start",
        ],
    },
    { minor: 27, names: ["net.ipv4.ip_local_reserved_ports"] },
    {
        minor: 29,
        names: ["net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"],
    },
    { minor: 32, names: ["net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"] },
];

/** The sysctls check of each version: the safe names of that version and the earlier ones. */
const SYSCTL_CHECKS = SAFE_SYSCTLS.map((v, i) => ({
    min: v.minor,
    check: sysctls(new Set(SAFE_SYSCTLS.slice(0, i + 1).flatMap((s) => s.names))),
}));

const hostProbesAndLifecycle: CheckFn = (pod) => {
    const bad = new Set<string>();
    const hosts = new Set<string>();
    for (const c of visit(pod.spec)) {
        const handlers = [
            ...["livenessProbe", "readinessProbe", "startupProbe"].map((p) => field(c.spec, p)),
            path(c.spec, "lifecycle", "postStart"),
            path(c.spec, "lifecycle", "preStop"),
        ];
        for (const h of handlers) {
            for (const kind of ["httpGet", "tcpSocket"]) {
                const host = asString(path(h, kind, "host"));
                if (host) {
                    bad.add(c.name);
                    hosts.add(host);
                }
            }
        }
    }
    return bad.size > 0
        ? {
              reason: "probe or lifecycle host",
              detail: `${plural(bad.size, "container", "containers")} ${quote([...bad].sort())} ${plural(bad.size, "uses", "use")} ${plural(hosts.size, "probe or lifecycle host", "probe or lifecycle hosts")} ${quote([...hosts].sort())}`,
          }
        : undefined;
};

// --- restricted checks ---

const RESTRICTED_VOLUME_SOURCES = new Set([
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "image",
    "persistentVolumeClaim",
    "projected",
    "secret",
]);

const restrictedVolumes: CheckFn = (pod) => {
    const bad: string[] = [];
    const types = new Set<string>();
    for (const v of volumes(pod.spec)) {
        const sources = keysOf(v.source).filter((k) => k !== "name" && field(v.source, k) !== null && field(v.source, k) !== undefined);
        if (!sources.some((s) => RESTRICTED_VOLUME_SOURCES.has(s))) {
            bad.push(v.name);
            types.add(sources[0] ?? "unknown");
        }
    }
    return bad.length > 0
        ? {
              reason: "restricted volume types",
              detail: `${plural(bad.length, "volume", "volumes")} ${quote(bad)} ${plural(bad.length, "uses", "use")} ${plural(types.size, "restricted volume type", "restricted volume types")} ${quote([...types].sort())}`,
          }
        : undefined;
};

/** Restricted checks that Windows pods are exempt from from 1.25 on (the fields do not exist there). */
function linuxOnly(check: CheckFn): CheckFn {
    return (pod) => (isWindows(pod.spec) ? undefined : check(pod));
}

const allowPrivilegeEscalation: CheckFn = (pod) => {
    const bad = visit(pod.spec)
        .filter((c) => path(c.spec, "securityContext", "allowPrivilegeEscalation") !== false)
        .map((c) => c.name);
    return bad.length > 0
        ? {
              reason: "allowPrivilegeEscalation != false",
              detail: `${plural(bad.length, "container", "containers")} ${quote(bad)} must set securityContext.allowPrivilegeEscalation=false`,
          }
        : undefined;
};

const runAsNonRoot: CheckFn = (pod) => {
    const podValue = field(podContext(pod.spec), "runAsNonRoot");
    const podFalse = podValue === false;
    const podTrue = podValue === true;
    const explicit: string[] = [];
    const implicit: string[] = [];
    for (const c of visit(pod.spec)) {
        const v = path(c.spec, "securityContext", "runAsNonRoot");
        if (v === false) {
            explicit.push(c.name);
        } else if (v !== true && !podTrue) {
            implicit.push(c.name);
        }
    }
    if (podFalse || explicit.length > 0) {
        return { reason: "runAsNonRoot != true", detail: `${setters(podFalse, explicit)} must not set securityContext.runAsNonRoot=false` };
    }
    return implicit.length > 0
        ? {
              reason: "runAsNonRoot != true",
              detail: `pod or ${plural(implicit.length, "container", "containers")} ${quote(implicit)} must set securityContext.runAsNonRoot=true`,
          }
        : undefined;
};

const runAsUser: CheckFn = (pod) => {
    const podRoot = field(podContext(pod.spec), "runAsUser") === 0;
    const bad = visit(pod.spec)
        .filter((c) => path(c.spec, "securityContext", "runAsUser") === 0)
        .map((c) => c.name);
    return podRoot || bad.length > 0 ? { reason: "runAsUser=0", detail: `${setters(podRoot, bad)} must not set runAsUser=0` } : undefined;
};

const seccompRestricted: CheckFn = (pod) => {
    const s = seccompSetters(pod.spec);
    if (s.badPod || s.bad.length > 0) {
        return {
            reason: "seccompProfile",
            detail: `${setters(s.badPod, s.bad)} must not set securityContext.seccompProfile.type to ${quote([...s.values].sort())}`,
        };
    }
    const implicit = s.podValid ? [] : s.unset;
    return implicit.length > 0
        ? {
              reason: "seccompProfile",
              detail: `pod or ${plural(implicit.length, "container", "containers")} ${quote(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
          }
        : undefined;
};

const capabilitiesRestricted: CheckFn = (pod) => {
    const missingDrop: string[] = [];
    const adding: string[] = [];
    const caps = new Set<string>();
    for (const c of visit(pod.spec)) {
        const capabilities = path(c.spec, "securityContext", "capabilities");
        if (!asArray(field(capabilities, "drop")).includes("ALL")) {
            missingDrop.push(c.name);
        }
        const added = asArray(field(capabilities, "add"))
            .map(String)
            .filter((a) => a !== "NET_BIND_SERVICE");
        if (added.length > 0) {
            adding.push(c.name);
            added.forEach((a) => caps.add(a));
        }
    }
    const details = [
        ...(missingDrop.length > 0
            ? [
                  `${plural(missingDrop.length, "container", "containers")} ${quote(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`,
              ]
            : []),
        ...(adding.length > 0
            ? [
                  `${plural(adding.length, "container", "containers")} ${quote(adding)} must not include ${quote([...caps].sort())} in securityContext.capabilities.add`,
              ]
            : []),
    ];
    return details.length > 0 ? { reason: "unrestricted capabilities", detail: details.join("; ") } : undefined;
};

// The checks of registry.go's DefaultChecks, with the versions each applies from.
const CHECKS: readonly Check[] = [
    {
        id: "windowsHostProcess",
        level: "baseline",
        fix: "remove securityContext.windowsOptions.hostProcess (HostProcess pods belong in a privileged namespace)",
        versions: [{ min: 0, check: hostProcess }],
    },
    {
        id: "hostNamespaces",
        level: "baseline",
        fix: "remove hostNetwork, hostPID and hostIPC",
        versions: [{ min: 0, check: hostNamespaces }],
    },
    { id: "privileged", level: "baseline", fix: "remove securityContext.privileged", versions: [{ min: 0, check: privileged }] },
    {
        id: "capabilities_baseline",
        level: "baseline",
        fix: `add only capabilities of the default set (${[...BASELINE_CAPABILITIES].join(", ")})`,
        versions: [{ min: 0, check: capabilitiesBaseline }],
    },
    {
        id: "hostPathVolumes",
        level: "baseline",
        fix: "replace hostPath volumes with emptyDir, configMap, secret or persistentVolumeClaim volumes",
        versions: [{ min: 0, check: hostPathVolumes }],
    },
    {
        id: "hostPorts",
        level: "baseline",
        fix: "remove hostPort and reach the pod through a Service",
        versions: [{ min: 0, check: hostPorts }],
    },
    {
        id: "appArmorProfile",
        level: "baseline",
        fix: "set appArmorProfile.type to RuntimeDefault or Localhost, or leave it unset",
        versions: [{ min: 0, check: appArmorProfile }],
    },
    {
        id: "seLinuxOptions",
        level: "baseline",
        fix: "remove seLinuxOptions.user and role, and use only the container_t, container_init_t, container_kvm_t (or, from v1.31, container_engine_t) types",
        versions: [
            { min: 0, check: seLinuxOptions(SELINUX_TYPES_1_0) },
            { min: 31, check: seLinuxOptions(SELINUX_TYPES_1_31) },
        ],
    },
    { id: "procMount", level: "baseline", fix: "remove securityContext.procMount (Default)", versions: [{ min: 0, check: procMount }] },
    {
        id: "seccompProfile_baseline",
        level: "baseline",
        fix: "set seccompProfile.type to RuntimeDefault or Localhost, never Unconfined",
        versions: [
            { min: 0, check: seccompBaselineAnnotations },
            { min: 19, check: seccompBaseline },
        ],
    },
    {
        id: "sysctls",
        level: "baseline",
        fix: `set only the safe sysctls (${SAFE_SYSCTLS.flatMap((v) => v.names).join(", ")}, as far as the policy version knows them)`,
        versions: SYSCTL_CHECKS,
    },
    {
        id: "hostProbesAndHostLifecycle",
        level: "baseline",
        fix: "remove host from the probes and lifecycle handlers (they then reach the pod's own IP)",
        versions: [{ min: 34, check: hostProbesAndLifecycle }],
    },
    {
        id: "restrictedVolumes",
        level: "restricted",
        fix: `use only ${[...RESTRICTED_VOLUME_SOURCES].join(", ")} volumes (other storage through a persistentVolumeClaim)`,
        versions: [{ min: 0, check: restrictedVolumes }],
        overrides: ["hostPathVolumes"],
    },
    {
        id: "allowPrivilegeEscalation",
        level: "restricted",
        fix: "set securityContext.allowPrivilegeEscalation: false on every container",
        versions: [
            { min: 8, check: allowPrivilegeEscalation },
            { min: 25, check: linuxOnly(allowPrivilegeEscalation) },
        ],
    },
    {
        id: "runAsNonRoot",
        level: "restricted",
        fix: "set securityContext.runAsNonRoot: true on the pod (and false on no container), with an image that runs as a non-root user",
        versions: [{ min: 0, check: runAsNonRoot }],
    },
    {
        id: "runAsUser",
        level: "restricted",
        fix: "run as a non-zero UID (remove runAsUser: 0)",
        versions: [{ min: 23, check: runAsUser }],
    },
    {
        id: "seccompProfile_restricted",
        level: "restricted",
        fix: "set securityContext.seccompProfile.type: RuntimeDefault on the pod",
        versions: [
            { min: 19, check: seccompRestricted },
            { min: 25, check: linuxOnly(seccompRestricted) },
        ],
        overrides: ["seccompProfile_baseline"],
    },
    {
        id: "capabilities_restricted",
        level: "restricted",
        fix: 'set securityContext.capabilities.drop: ["ALL"] on every container, adding back at most NET_BIND_SERVICE',
        versions: [
            { min: 22, check: capabilitiesRestricted },
            { min: 25, check: linuxOnly(capabilitiesRestricted) },
        ],
        overrides: ["capabilities_baseline"],
    },
];

/** The version of a check that applies at `minor`, if any. */
function versionAt(check: Check, minor: number): CheckFn | undefined {
    let fn: CheckFn | undefined;
    for (const v of check.versions) {
        if (v.min <= minor) {
            fn = v.check;
        }
    }
    return fn;
}

/**
 * The checks a pod fails under `policy`, as Pod Security Admission evaluates them (baseline checks
 * first, then restricted, each group by id); none under `privileged`.
 */
export function podSecurityFindings(pod: PodView, policy: Pick<PodSecurityPolicy, "level" | "minor">): PodSecurityFinding[] {
    if (policy.level === "privileged") {
        return [];
    }
    const applicable = CHECKS.filter((c) => (policy.level === "restricted" || c.level === "baseline") && versionAt(c, policy.minor));
    const overridden = new Set(applicable.filter((c) => c.level === "restricted").flatMap((c) => c.overrides ?? []));
    const ordered = applicable
        .filter((c) => !overridden.has(c.id))
        .sort((a, b) => (a.level === b.level ? (a.id < b.id ? -1 : 1) : a.level === "baseline" ? -1 : 1));
    const out: PodSecurityFinding[] = [];
    for (const c of ordered) {
        const result = (versionAt(c, policy.minor) as CheckFn)(pod);
        if (result) {
            out.push({ id: c.id, ...result, fix: c.fix });
        }
    }
    return out;
}
