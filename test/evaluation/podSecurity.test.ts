// Each check of evaluation/podSecurity.ts against the rule and the message of Pod Security Admission
// (k8s.io/pod-security-admission v0.34, policy/check_*.go and registry.go), case by case: the
// reason and detail PSA gives, who it names (pod, containers, annotations), the versions a check
// applies from, and the values it allows.
import { expect } from "chai";
import { enforcedPolicy, NEWEST_MINOR, podSecurityFindings, PodView, SAFE_SYSCTLS } from "eks-platform-evaluation";
import { UPSTREAM_SAFE_SYSCTLS } from "../fixtures/podSecurity/safeSysctls";

type Level = "privileged" | "baseline" | "restricted";
type Obj = Record<string, unknown>;

/** A container that meets restricted. */
function container(name = "app", securityContext: Obj = {}, rest: Obj = {}): Obj {
    return {
        name,
        image: "app:1",
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] }, ...securityContext },
        ...rest,
    };
}

/** A pod spec that meets restricted, with `patch` over it. */
function spec(patch: Obj = {}): Obj {
    return { securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } }, containers: [container()], ...patch };
}

/** PSA's result for each failed check, as its messages print it: `reason (detail)`. */
function found(podSpec: Obj, level: Level = "baseline", minor = 34, annotations: Record<string, string> = {}): string[] {
    return podSecurityFindings({ annotations, spec: podSpec }, { level, minor }).map((f) => `${f.reason} (${f.detail})`);
}

const ids = (pod: PodView, level: Level, minor = 34) => podSecurityFindings(pod, { level, minor }).map((f) => f.id);

describe("Pod Security Standards checks (evaluation/podSecurity.ts, as k8s.io/pod-security-admission v0.34)", () => {
    it("a pod that meets restricted fails nothing at any level or version", () => {
        for (const level of ["privileged", "baseline", "restricted"] as const) {
            for (const minor of [0, 18, 19, 22, 25, 31, 34]) {
                expect(found(spec(), level, minor), `${level} v1.${minor}`).to.deep.equal([]);
            }
        }
    });

    it("privileged judges nothing, whatever the pod does (registry.go EvaluatePod returns no checks for privileged)", () => {
        const worst = spec({ hostNetwork: true, containers: [container("app", { privileged: true, runAsUser: 0 })] });
        expect(found(worst, "privileged")).to.deep.equal([]);
        expect(found(worst, "baseline")).to.deep.equal([
            "host namespaces (hostNetwork=true)",
            'privileged (container "app" must not set securityContext.privileged=true)',
        ]);
    });

    describe("baseline", () => {
        it("hostProcess: pod and containers that set windowsOptions.hostProcess=true (check_windowsHostProcess.go)", () => {
            const hostProcess = { windowsOptions: { hostProcess: true } };
            expect(
                found(spec({ securityContext: hostProcess, containers: [container("a", hostProcess), container("b", hostProcess)] })),
            ).to.deep.equal(['hostProcess (pod and containers "a", "b" must not set securityContext.windowsOptions.hostProcess=true)']);
            expect(found(spec({ securityContext: hostProcess }))).to.deep.equal([
                "hostProcess (pod must not set securityContext.windowsOptions.hostProcess=true)",
            ]);
            expect(found(spec({ containers: [container("a", hostProcess)] }))).to.deep.equal([
                'hostProcess (container "a" must not set securityContext.windowsOptions.hostProcess=true)',
            ]);
            expect(found(spec({ containers: [container("a", { windowsOptions: { hostProcess: false } })] }))).to.deep.equal([]);
        });

        it("host namespaces: hostNetwork, hostPID and hostIPC, in that order (check_hostNamespaces.go)", () => {
            expect(found(spec({ hostIPC: true, hostPID: true, hostNetwork: true }))).to.deep.equal([
                "host namespaces (hostNetwork=true, hostPID=true, hostIPC=true)",
            ]);
            expect(found(spec({ hostPID: true }))).to.deep.equal(["host namespaces (hostPID=true)"]);
            expect(found(spec({ hostNetwork: false, hostPID: false, hostIPC: false }))).to.deep.equal([]);
        });

        it("privileged: init containers first, then containers (check_privileged.go, visitor.go)", () => {
            const p = { privileged: true };
            expect(found(spec({ initContainers: [container("init", p)], containers: [container("app", p)] }))).to.deep.equal([
                'privileged (containers "init", "app" must not set securityContext.privileged=true)',
            ]);
            expect(found(spec({ containers: [container("app", { privileged: false })] }))).to.deep.equal([]);
        });

        it("capabilities: only the default set may be added, the others named sorted (check_capabilities_baseline.go)", () => {
            const defaults = [
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
            ];
            for (const cap of defaults) {
                expect(found(spec({ containers: [container("app", { capabilities: { add: [cap] } })] })), cap).to.deep.equal([]);
            }
            const adding = (name: string, add: string[]) => container(name, { capabilities: { add } });
            expect(
                found(
                    spec({
                        containers: [adding("a", ["SYS_ADMIN", "CHOWN", "NET_RAW"]), adding("b", ["NET_ADMIN"]), adding("c", ["KILL"])],
                    }),
                ),
            ).to.deep.equal([
                'non-default capabilities (containers "a", "b" must not include "NET_ADMIN", "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add)',
            ]);
            expect(found(spec({ containers: [adding("a", ["SYS_ADMIN"])] }))).to.deep.equal([
                'non-default capabilities (container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
            ]);
        });

        it("hostPath volumes: every volume with a hostPath, by name (check_hostPathVolumes.go)", () => {
            const volumes = [
                { name: "root", hostPath: { path: "/" } },
                { name: "scratch", emptyDir: {} },
                { name: "logs", hostPath: { path: "/var/log" } },
                { name: "none", hostPath: null },
            ];
            expect(found(spec({ volumes }))).to.deep.equal(['hostPath volumes (volumes "root", "logs")']);
            expect(found(spec({ volumes: volumes.slice(0, 2) }))).to.deep.equal(['hostPath volumes (volume "root")']);
            // A volume without a name (the schema refuses it) is named by its place.
            expect(found(spec({ volumes: [{ emptyDir: {} }, { hostPath: { path: "/" } }] }))).to.deep.equal([
                'hostPath volumes (volume "#1")',
            ]);
        });

        it("hostPort: every non-zero hostPort, the ports sorted as text (check_hostPorts.go)", () => {
            const ports = (name: string, ...hostPorts: number[]) =>
                container(name, {}, { ports: hostPorts.map((hostPort) => ({ containerPort: 8080, hostPort })) });
            expect(found(spec({ containers: [ports("a", 8080, 80, 0), ports("b", 443), ports("c", 0)] }))).to.deep.equal([
                'hostPort (containers "a", "b" use hostPorts 443, 80, 8080)',
            ]);
            expect(found(spec({ containers: [ports("a", 80, 80)] }))).to.deep.equal(['hostPort (container "a" uses hostPort 80)']);
            expect(
                found(
                    spec({ containers: [container("a", {}, { ports: [{ containerPort: 80, hostPort: null }, { containerPort: 81 }] })] }),
                ),
            ).to.deep.equal([]);
        });

        it("AppArmor: only RuntimeDefault and Localhost profiles and annotations, every setter named (check_appArmorProfile.go)", () => {
            const profile = (type?: string) => ({ appArmorProfile: type === undefined ? {} : { type } });
            for (const type of ["RuntimeDefault", "Localhost"]) {
                expect(found(spec({ securityContext: profile(type), containers: [container("app", profile(type))] })), type).to.deep.equal(
                    [],
                );
            }
            expect(found(spec({ securityContext: profile("Unconfined") }))).to.deep.equal([
                'forbidden AppArmor profile (pod must not set AppArmor profile type to "Unconfined")',
            ]);
            expect(
                found(spec({ securityContext: { appArmorProfile: null }, containers: [container("app", { appArmorProfile: null })] })),
            ).to.deep.equal([]);
            expect(found(spec({ containers: [container("app", profile())] }))).to.deep.equal([
                'forbidden AppArmor profile (container "app" must not set AppArmor profile type to "")',
            ]);
            const annotations = {
                "container.apparmor.security.beta.kubernetes.io/app": "unconfined",
                "container.apparmor.security.beta.kubernetes.io/b": "runtime/default",
                "container.apparmor.security.beta.kubernetes.io/c": "localhost/k8s-nginx",
                "container.apparmor.security.beta.kubernetes.io/d": "",
                "other.example.com/app": "unconfined",
            };
            expect(found(spec(), "baseline", 34, annotations)).to.deep.equal([
                'forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/app="unconfined"")',
            ]);
            const both = spec({
                securityContext: profile("unconfined"),
                containers: [container("app", profile("Unconfined")), container("b", profile("unconfined"))],
            });
            const unsorted = {
                "container.apparmor.security.beta.kubernetes.io/b": "x",
                "container.apparmor.security.beta.kubernetes.io/app": "unconfined",
            };
            expect(found(both, "baseline", 34, unsorted)).to.deep.equal([
                'forbidden AppArmor profiles (pod and containers "app", "b" and annotations must not set AppArmor profile type to "Unconfined", "unconfined", "container.apparmor.security.beta.kubernetes.io/app="unconfined"", "container.apparmor.security.beta.kubernetes.io/b="x"")',
            ]);
        });

        it("seLinuxOptions: allowed types only, never user or role; container_engine_t from v1.31 (check_seLinuxOptions.go)", () => {
            const opts = (seLinuxOptions: Obj) => ({ seLinuxOptions });
            for (const type of ["", "container_t", "container_init_t", "container_kvm_t"]) {
                expect(
                    found(spec({ containers: [container("app", opts({ type, level: "s0:c1,c2" }))] }), "baseline", 30),
                    type,
                ).to.deep.equal([]);
            }
            expect(found(spec({ containers: [container("app", opts({ level: "s0" }))] }))).to.deep.equal([]);
            const engine = spec({ containers: [container("app", opts({ type: "container_engine_t" }))] });
            expect(found(engine, "baseline", 31)).to.deep.equal([]);
            expect(found(engine, "baseline", 30)).to.deep.equal([
                'seLinuxOptions (container "app" set forbidden securityContext.seLinuxOptions: type "container_engine_t")',
            ]);
            const all = spec({
                securityContext: opts({ type: "unconfined_t", user: "system_u" }),
                containers: [
                    container("a", opts({ type: "spc_t", role: "system_r" })),
                    container("b", opts({ type: "unconfined_t" })),
                    container("c", opts({ type: "container_t" })),
                ],
            });
            expect(found(all)).to.deep.equal([
                'seLinuxOptions (pod and containers "a", "b" set forbidden securityContext.seLinuxOptions: types "spc_t", "unconfined_t"; user may not be set; role may not be set)',
            ]);
            expect(found(spec({ securityContext: opts({ role: "r" }) }))).to.deep.equal([
                "seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: role may not be set)",
            ]);
            expect(found(spec({ securityContext: opts({ user: "u" }) }))).to.deep.equal([
                "seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: user may not be set)",
            ]);
        });

        it("procMount: Default or unset only, the other types named (check_procMount.go)", () => {
            const pm = (name: string, procMount: unknown) => container(name, { procMount });
            expect(found(spec({ containers: [pm("a", "Unmasked"), pm("b", "Default"), pm("c", "Other")] }))).to.deep.equal([
                'procMount (containers "a", "c" must not set securityContext.procMount to "Other", "Unmasked")',
            ]);
            expect(found(spec({ containers: [pm("a", "Unmasked")] }))).to.deep.equal([
                'procMount (container "a" must not set securityContext.procMount to "Unmasked")',
            ]);
            expect(found(spec({ containers: [pm("a", null)] }))).to.deep.equal([]);
        });

        it("seccomp from v1.19: pod and containers may not set Unconfined, unset is baseline (check_seccompProfile_baseline.go)", () => {
            const sc = (type?: string) => ({ seccompProfile: type === undefined ? {} : { type } });
            expect(found(spec({ securityContext: {}, containers: [container("app", sc("Localhost"))] }))).to.deep.equal([]);
            expect(
                found(
                    spec({
                        securityContext: sc("Unconfined"),
                        containers: [container("a", sc("Unconfined")), container("b", sc("RuntimeDefault"))],
                    }),
                ),
            ).to.deep.equal(['seccompProfile (pod and container "a" must not set securityContext.seccompProfile.type to "Unconfined")']);
            // An absent or null type is Go's zero value, the empty string.
            expect(found(spec({ securityContext: { seccompProfile: { type: null } } }))).to.deep.equal([
                'seccompProfile (pod must not set securityContext.seccompProfile.type to "")',
            ]);
            expect(found(spec({ securityContext: sc() }))).to.deep.equal([
                'seccompProfile (pod must not set securityContext.seccompProfile.type to "")',
            ]);
            expect(
                found(spec({ securityContext: {}, containers: [container("a", sc("Unconfined")), container("b", sc("Bad"))] })),
            ).to.deep.equal([
                'seccompProfile (containers "a", "b" must not set securityContext.seccompProfile.type to "Bad", "Unconfined")',
            ]);
        });

        it("seccomp before v1.19: the annotations, runtime/default, docker/default and localhost/ allowed (check_seccompProfile_baseline.go 1.0)", () => {
            const annotations = {
                "seccomp.security.alpha.kubernetes.io/pod": "unconfined",
                "container.seccomp.security.alpha.kubernetes.io/app": "unconfined",
                "container.seccomp.security.alpha.kubernetes.io/gone": "unconfined",
            };
            expect(found(spec(), "baseline", 18, annotations)).to.deep.equal([
                'seccompProfile (forbidden annotations container.seccomp.security.alpha.kubernetes.io/app="unconfined", seccomp.security.alpha.kubernetes.io/pod="unconfined")',
            ]);
            expect(found(spec(), "baseline", 18, { "container.seccomp.security.alpha.kubernetes.io/app": "unconfined" })).to.deep.equal([
                'seccompProfile (forbidden annotation container.seccomp.security.alpha.kubernetes.io/app="unconfined")',
            ]);
            for (const value of ["runtime/default", "docker/default", "localhost/profile.json"]) {
                const ok = {
                    "seccomp.security.alpha.kubernetes.io/pod": value,
                    "container.seccomp.security.alpha.kubernetes.io/app": value,
                };
                expect(found(spec(), "baseline", 18, ok), value).to.deep.equal([]);
            }
            // From v1.19 the field is read, not the annotations; unset profiles are still allowed.
            expect(found(spec({ securityContext: {} }), "baseline", 19, annotations)).to.deep.equal([]);
            expect(found(spec({ securityContext: { seccompProfile: { type: "Unconfined" } } }), "baseline", 18)).to.deep.equal([]);
        });

        it("probe and lifecycle hosts from v1.34: any host set on httpGet or tcpSocket of a probe or handler (check_hostProbesAndhostLifecycle.go)", () => {
            const http = (host: string) => ({ httpGet: { host, path: "/", port: 80 } });
            const tcp = (host: string) => ({ tcpSocket: { host, port: 80 } });
            const pod = spec({
                initContainers: [container("init", {}, { lifecycle: { postStart: http("10.0.0.2") } })],
                containers: [
                    container(
                        "z",
                        {},
                        { livenessProbe: tcp("10.0.0.1"), readinessProbe: http(""), lifecycle: { preStop: tcp("10.0.0.2") } },
                    ),
                    container("b", {}, { startupProbe: http("169.254.169.254") }),
                    container("c", {}, { readinessProbe: http(""), livenessProbe: tcp("") }),
                ],
            });
            expect(found(pod)).to.deep.equal([
                'probe or lifecycle host (containers "b", "init", "z" use probe or lifecycle hosts "10.0.0.1", "10.0.0.2", "169.254.169.254")',
            ]);
            expect(found(pod, "baseline", 33)).to.deep.equal([]);
            for (const [key, handler] of [
                ["livenessProbe", http("h")],
                ["readinessProbe", tcp("h")],
                ["startupProbe", tcp("h")],
                ["lifecycle", { postStart: tcp("h") }],
                ["lifecycle", { preStop: http("h") }],
            ] as const) {
                expect(found(spec({ containers: [container("app", {}, { [key]: handler })] })), key).to.deep.equal([
                    'probe or lifecycle host (container "app" uses probe or lifecycle host "h")',
                ]);
            }
        });
    });

    describe("restricted", () => {
        it("volumes: only the restricted sources; other types named sorted, unknown when none is set (check_restrictedVolumes.go)", () => {
            for (const source of [
                "configMap",
                "csi",
                "downwardAPI",
                "emptyDir",
                "ephemeral",
                "image",
                "persistentVolumeClaim",
                "projected",
                "secret",
            ]) {
                expect(found(spec({ volumes: [{ name: "v", [source]: {} }] }), "restricted"), source).to.deep.equal([]);
            }
            expect(found(spec({ volumes: [{ name: "v", nfs: null, emptyDir: {} }] }), "restricted")).to.deep.equal([]);
            const volumes = [
                { name: "share", nfs: { server: "nfs", path: "/" } },
                { name: "root", hostPath: { path: "/" } },
                { name: "empty", hostPath: null },
                { name: "tmp", emptyDir: {} },
            ];
            expect(found(spec({ volumes }), "restricted")).to.deep.equal([
                'restricted volume types (volumes "share", "root", "empty" use restricted volume types "hostPath", "nfs", "unknown")',
            ]);
            expect(found(spec({ volumes: volumes.slice(0, 1) }), "restricted")).to.deep.equal([
                'restricted volume types (volume "share" uses restricted volume type "nfs")',
            ]);
            expect(found(spec({ volumes: [{ name: "u", nfs: undefined }] }), "restricted")).to.deep.equal([
                'restricted volume types (volume "u" uses restricted volume type "unknown")',
            ]);
        });

        it("allowPrivilegeEscalation must be false on every container, from v1.8 (check_allowPrivilegeEscalation.go)", () => {
            const pod = spec({
                initContainers: [container("init", { allowPrivilegeEscalation: true })],
                containers: [container("app", { allowPrivilegeEscalation: undefined }), container("ok")],
            });
            expect(found(pod, "restricted")).to.deep.equal([
                'allowPrivilegeEscalation != false (containers "init", "app" must set securityContext.allowPrivilegeEscalation=false)',
            ]);
            expect(found(spec({ containers: [container("app", { allowPrivilegeEscalation: true })] }), "restricted")).to.deep.equal([
                'allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false)',
            ]);
            expect(found(pod, "restricted", 8)).to.have.length(1);
            expect(found(pod, "restricted", 7)).to.deep.equal([]);
            expect(found(pod, "baseline")).to.deep.equal([]);
        });

        it("runAsNonRoot: explicit false named first, else pod or every container must set true (check_runAsNonRoot.go)", () => {
            const nonRoot = (v: unknown) => ({ runAsNonRoot: v });
            expect(
                found(
                    spec({
                        securityContext: { ...(spec().securityContext as Obj), runAsNonRoot: false },
                        containers: [container("a", nonRoot(false)), container("b")],
                    }),
                    "restricted",
                ),
            ).to.deep.equal(['runAsNonRoot != true (pod and container "a" must not set securityContext.runAsNonRoot=false)']);
            expect(
                found(spec({ containers: [container("a", nonRoot(false)), container("b", nonRoot(false))] }), "restricted"),
            ).to.deep.equal(['runAsNonRoot != true (containers "a", "b" must not set securityContext.runAsNonRoot=false)']);
            const unsetPod = { seccompProfile: { type: "RuntimeDefault" } };
            expect(
                found(
                    spec({ securityContext: unsetPod, containers: [container("a"), container("b", nonRoot(true)), container("c")] }),
                    "restricted",
                ),
            ).to.deep.equal(['runAsNonRoot != true (pod or containers "a", "c" must set securityContext.runAsNonRoot=true)']);
            expect(found(spec({ securityContext: unsetPod, containers: [container("a")] }), "restricted")).to.deep.equal([
                'runAsNonRoot != true (pod or container "a" must set securityContext.runAsNonRoot=true)',
            ]);
            expect(found(spec({ securityContext: unsetPod, containers: [container("a", nonRoot(true))] }), "restricted")).to.deep.equal([]);
            expect(found(spec({ securityContext: { ...unsetPod, runAsNonRoot: false } }), "restricted")).to.deep.equal([
                "runAsNonRoot != true (pod must not set securityContext.runAsNonRoot=false)",
            ]);
        });

        it("runAsUser=0 on pod or container, from v1.23 (check_runAsUser.go)", () => {
            const pod = spec({
                securityContext: { ...(spec().securityContext as Obj), runAsUser: 0 },
                containers: [container("a", { runAsUser: 0 }), container("b", { runAsUser: 1000 })],
            });
            expect(found(pod, "restricted")).to.deep.equal(['runAsUser=0 (pod and container "a" must not set runAsUser=0)']);
            expect(found(pod, "restricted", 23)).to.have.length(1);
            expect(found(pod, "restricted", 22)).to.deep.equal([]);
            expect(found(spec({ containers: [container("a", { runAsUser: 0 })] }), "restricted")).to.deep.equal([
                'runAsUser=0 (container "a" must not set runAsUser=0)',
            ]);
            expect(found(spec({ securityContext: { ...(spec().securityContext as Obj), runAsUser: 0 } }), "restricted")).to.deep.equal([
                "runAsUser=0 (pod must not set runAsUser=0)",
            ]);
        });

        it("seccomp must be RuntimeDefault or Localhost on the pod or every container, from v1.19, replacing the baseline check (check_seccompProfile_restricted.go)", () => {
            const unset = spec({
                securityContext: { runAsNonRoot: true },
                containers: [container("a"), container("b", { seccompProfile: { type: "Localhost" } }), container("c")],
            });
            expect(found(unset, "restricted")).to.deep.equal([
                'seccompProfile (pod or containers "a", "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
            ]);
            expect(found(spec({ securityContext: { runAsNonRoot: true } }), "restricted")).to.deep.equal([
                'seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
            ]);
            const explicit = spec({ containers: [container("a", { seccompProfile: { type: "Unconfined" } }), container("b")] });
            expect(found(explicit, "restricted")).to.deep.equal([
                'seccompProfile (container "a" must not set securityContext.seccompProfile.type to "Unconfined")',
            ]);
            const two = spec({
                containers: [
                    container("a", { seccompProfile: { type: "Unconfined" } }),
                    container("b", { seccompProfile: { type: "Bad" } }),
                ],
            });
            expect(found(two, "restricted")).to.deep.equal([
                'seccompProfile (containers "a", "b" must not set securityContext.seccompProfile.type to "Bad", "Unconfined")',
            ]);
            const badPod = spec({
                securityContext: { runAsNonRoot: true, seccompProfile: { type: "Unconfined" } },
                containers: [container("a")],
            });
            expect(found(badPod, "restricted")).to.deep.equal([
                'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")',
            ]);
            // Before v1.19 the restricted check does not exist: baseline's annotation check applies.
            expect(found(unset, "restricted", 18, { "seccomp.security.alpha.kubernetes.io/pod": "unconfined" })).to.deep.equal([
                'seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")',
            ]);
        });

        it("restricted allows NET_BIND_SERVICE in capabilities.add, requires drop ALL, from v1.22 (check_capabilities_restricted.go)", () => {
            const caps = (name: string, capabilities: unknown) => container(name, { capabilities });
            expect(found(spec({ containers: [caps("app", { drop: ["ALL"], add: ["NET_BIND_SERVICE"] })] }), "restricted")).to.deep.equal(
                [],
            );
            const pod = spec({
                containers: [
                    caps("a", { drop: ["NET_RAW"], add: ["NET_BIND_SERVICE"] }),
                    caps("b", { drop: ["ALL"], add: ["SYS_ADMIN", "CHOWN", "NET_BIND_SERVICE"] }),
                    container("c", { capabilities: undefined }),
                    caps("d", { drop: ["ALL"], add: ["NET_RAW"] }),
                ],
            });
            expect(found(pod, "restricted")).to.deep.equal([
                'unrestricted capabilities (containers "a", "c" must set securityContext.capabilities.drop=["ALL"]; containers "b", "d" must not include "CHOWN", "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add)',
            ]);
            expect(found(spec({ containers: [caps("a", { drop: ["ALL"], add: ["CHOWN"] })] }), "restricted")).to.deep.equal([
                'unrestricted capabilities (container "a" must not include "CHOWN" in securityContext.capabilities.add)',
            ]);
            expect(found(spec({ containers: [caps("a", {})] }), "restricted")).to.deep.equal([
                'unrestricted capabilities (container "a" must set securityContext.capabilities.drop=["ALL"])',
            ]);
            // It replaces capabilities_baseline from v1.22; before, baseline's check applies under restricted.
            const sysAdmin = spec({ containers: [caps("a", { add: ["SYS_ADMIN"] })] });
            expect(found(sysAdmin, "restricted", 22).map((f) => f.split(" (")[0])).to.deep.equal(["unrestricted capabilities"]);
            expect(found(sysAdmin, "restricted", 21)).to.deep.equal([
                'non-default capabilities (container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
            ]);
        });

        it("restricted replaces hostPath volumes with its volume check (registry.go overrides)", () => {
            expect(
                ids({ annotations: {}, spec: spec({ volumes: [{ name: "root", hostPath: { path: "/" } }] }) }, "restricted"),
            ).to.deep.equal(["restrictedVolumes"]);
            expect(
                ids({ annotations: {}, spec: spec({ volumes: [{ name: "root", hostPath: { path: "/" } }] }) }, "baseline"),
            ).to.deep.equal(["hostPathVolumes"]);
        });

        it("exempts Windows pods (spec.os.name windows) from the Linux-only checks from v1.25, not before", () => {
            const windows = {
                annotations: {},
                spec: { os: { name: "windows" }, securityContext: { runAsNonRoot: true }, containers: [{ name: "app", image: "app:1" }] },
            };
            expect(ids(windows, "restricted", 25)).to.deep.equal([]);
            expect(ids(windows, "restricted", 24)).to.deep.equal([
                "allowPrivilegeEscalation",
                "capabilities_restricted",
                "seccompProfile_restricted",
            ]);
            const linux = { ...windows, spec: { ...windows.spec, os: { name: "linux" } } };
            expect(ids(linux, "restricted", 25)).to.deep.equal([
                "allowPrivilegeEscalation",
                "capabilities_restricted",
                "seccompProfile_restricted",
            ]);
        });
    });

    it("orders findings as PSA does: baseline checks then restricted, each group by check id (registry.go populate)", () => {
        const pod: PodView = {
            annotations: {},
            spec: {
                hostNetwork: true,
                volumes: [{ name: "v", nfs: { server: "s", path: "/" } }],
                securityContext: { sysctls: [{ name: "kernel.msgmax", value: "1" }] },
                containers: [
                    {
                        name: "app",
                        image: "app:1",
                        securityContext: { privileged: true, procMount: "Unmasked", runAsUser: 0 },
                        ports: [{ containerPort: 1, hostPort: 1 }],
                    },
                ],
            },
        };
        expect(ids(pod, "baseline")).to.deep.equal(["hostNamespaces", "hostPorts", "privileged", "procMount", "sysctls"]);
        expect(ids(pod, "restricted")).to.deep.equal([
            "hostNamespaces",
            "hostPorts",
            "privileged",
            "procMount",
            "sysctls",
            "allowPrivilegeEscalation",
            "capabilities_restricted",
            "restrictedVolumes",
            "runAsNonRoot",
            "runAsUser",
            "seccompProfile_restricted",
        ]);
    });

    it("every finding says how to comply, naming the field to change", () => {
        const fixes = new Map<string, string>();
        const everything: PodView = {
            annotations: {},
            spec: {
                hostNetwork: true,
                volumes: [{ name: "v", hostPath: { path: "/" } }],
                securityContext: {
                    windowsOptions: { hostProcess: true },
                    seLinuxOptions: { user: "u" },
                    seccompProfile: { type: "Unconfined" },
                    sysctls: [{ name: "kernel.msgmax" }],
                    appArmorProfile: { type: "Unconfined" },
                },
                containers: [
                    {
                        name: "app",
                        securityContext: {
                            privileged: true,
                            procMount: "Unmasked",
                            runAsUser: 0,
                            runAsNonRoot: false,
                            capabilities: { add: ["SYS_ADMIN"] },
                        },
                        ports: [{ hostPort: 1 }],
                        readinessProbe: { httpGet: { host: "h" } },
                    },
                ],
            },
        };
        for (const level of ["baseline", "restricted"] as const) {
            for (const f of podSecurityFindings(everything, { level, minor: 34 })) {
                fixes.set(f.id, f.fix);
            }
        }
        const named: Record<string, RegExp> = {
            windowsHostProcess: /hostProcess/,
            hostNamespaces: /hostNetwork, hostPID and hostIPC/,
            privileged: /securityContext\.privileged/,
            capabilities_baseline: /default set \(AUDIT_WRITE, CHOWN, .*SYS_CHROOT\)/,
            hostPathVolumes: /hostPath volumes/,
            hostPorts: /hostPort/,
            appArmorProfile: /appArmorProfile\.type to RuntimeDefault or Localhost/,
            seLinuxOptions: /seLinuxOptions\.user and role/,
            procMount: /procMount/,
            seccompProfile_baseline: /seccompProfile\.type to RuntimeDefault or Localhost/,
            sysctls: /safe sysctls \(kernel\.shm_rmid_forced, .*net\.ipv4\.tcp_wmem,/,
            hostProbesAndHostLifecycle: /host from the probes/,
            restrictedVolumes: /use only configMap, csi, .*secret volumes/,
            allowPrivilegeEscalation: /allowPrivilegeEscalation: false/,
            runAsNonRoot: /runAsNonRoot: true/,
            runAsUser: /runAsUser: 0/,
            seccompProfile_restricted: /seccompProfile\.type: RuntimeDefault/,
            capabilities_restricted: /drop: \["ALL"\].*NET_BIND_SERVICE/,
        };
        expect([...fixes.keys()].sort()).to.deep.equal(Object.keys(named).sort());
        for (const [id, fix] of fixes) {
            expect(fix, id).to.match(named[id]);
        }
    });

    describe("safe sysctls (check_sysctls.go), per policy version", () => {
        const sysctl = (...names: string[]) =>
            spec({ securityContext: { ...(spec().securityContext as Obj), sysctls: names.map((name) => ({ name, value: "1" })) } });

        it("the table is upstream's, version by version (fixtures/podSecurity/safeSysctls.ts, check_sysctls.go v0.34.9)", () => {
            expect(SAFE_SYSCTLS).to.deep.equal(UPSTREAM_SAFE_SYSCTLS);
        });

        for (const { minor, names } of UPSTREAM_SAFE_SYSCTLS) {
            it(`baseline v1.${minor} allows exactly the safe sysctls upstream lists from v1.${minor}`, () => {
                const next = UPSTREAM_SAFE_SYSCTLS.find((v) => v.minor > minor)?.minor ?? NEWEST_MINOR + 1;
                for (const at of [minor, next - 1]) {
                    for (const name of names) {
                        expect(found(sysctl(name), "baseline", at), `${name} at v1.${at}`).to.deep.equal([]);
                    }
                    const later = UPSTREAM_SAFE_SYSCTLS.filter((v) => v.minor > at).flatMap((v) => v.names);
                    for (const name of later) {
                        expect(found(sysctl(name), "baseline", at), `${name} at v1.${at}`).to.deep.equal([`forbidden sysctls (${name})`]);
                    }
                }
            });
        }

        it("the newer safe sysctls give no false violation at the platform's v1.34, under restricted too", () => {
            const newer = UPSTREAM_SAFE_SYSCTLS.filter((v) => v.minor > 0).flatMap((v) => v.names);
            expect(newer).to.include.members([
                "net.ipv4.ip_local_reserved_ports",
                "net.ipv4.tcp_keepalive_time",
                "net.ipv4.tcp_rmem",
                "net.ipv4.tcp_wmem",
            ]);
            expect(found(sysctl(...newer), "restricted", 34)).to.deep.equal([]);
            expect(found(sysctl(...newer), "restricted", 31)).to.deep.equal(["forbidden sysctls (net.ipv4.tcp_rmem, net.ipv4.tcp_wmem)"]);
        });

        it("names every forbidden sysctl in the order the pod lists them", () => {
            expect(found(sysctl("net.core.somaxconn", "kernel.shm_rmid_forced", "kernel.msgmax"))).to.deep.equal([
                "forbidden sysctls (net.core.somaxconn, kernel.msgmax)",
            ]);
        });
    });
});

describe("enforcedPolicy: a namespace's enforce labels as api.PolicyToEvaluate resolves them", () => {
    const defaults = { level: "baseline" as const, version: "v1.30" };
    const labels = (level?: string, version?: string) => ({
        ...(level === undefined ? {} : { "pod-security.kubernetes.io/enforce": level }),
        ...(version === undefined ? {} : { "pod-security.kubernetes.io/enforce-version": version }),
    });

    it("reads the level and the version from the labels, the defaults for a label that is absent", () => {
        expect(enforcedPolicy(labels("restricted", "v1.33"), defaults)).to.deep.equal({
            level: "restricted",
            minor: 33,
            name: "restricted:v1.33",
        });
        expect(enforcedPolicy(labels(), defaults)).to.deep.equal({ level: "baseline", minor: 30, name: "baseline:v1.30" });
        expect(enforcedPolicy(labels("privileged"), defaults)).to.deep.equal({ level: "privileged", minor: 30, name: "privileged:v1.30" });
        expect(enforcedPolicy(labels(undefined, "v1.0"), defaults)).to.deep.equal({ level: "baseline", minor: 0, name: "baseline:v1.0" });
    });

    it("latest, and versions newer than the checks, are evaluated with the newest checks, named as labelled", () => {
        expect(NEWEST_MINOR).to.equal(34);
        expect(enforcedPolicy(labels("baseline", "latest"), defaults)).to.deep.equal({
            level: "baseline",
            minor: 34,
            name: "baseline:latest",
        });
        expect(enforcedPolicy(labels("baseline", "v1.40"), defaults)).to.deep.equal({
            level: "baseline",
            minor: 34,
            name: "baseline:v1.40",
        });
    });

    it("a level that does not parse is restricted, a version that does not parse is latest (api.ParseLevel, api.ParseVersion)", () => {
        expect(enforcedPolicy(labels("Baseline", "v1.33"), defaults)).to.deep.equal({
            level: "restricted",
            minor: 33,
            name: "restricted:v1.33",
        });
        for (const version of ["1.33", "v1.033", "v2.0", "v1.33.1", "v1.x", ""]) {
            expect(enforcedPolicy(labels("baseline", version), defaults), version).to.deep.equal({
                level: "baseline",
                minor: 34,
                name: "baseline:latest",
            });
        }
    });
});
