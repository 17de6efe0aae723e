import { expect } from "chai";
import { podSecurityStandard } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { cronJob, deployment, job, namespace, pod } from "./fixtures";
import { changed, runStack, TestResource, UNKNOWN, urnOf } from "./harness";

const SPEC = "spec.template.spec";
const APP = `${SPEC}.containers.0`;
const restricted = namespace("prod", "restricted", "v1.34");
const baseline = namespace("prod", "baseline", "v1.34");

/** The findings of one workload in one namespace: the reasons PSA would give, in its order. */
async function reasons(workload: TestResource, ns: TestResource | null = restricted, config: object = {}): Promise<string[]> {
    const outcome = await runStack(podSecurityStandard, ns ? [ns, workload] : [workload], config);
    expect(outcome.cantRun, "can't run").to.equal(undefined);
    expect(outcome.violations.length, outcome.violations.map((v) => v.message).join("\n")).to.be.lessThan(2);
    const m = /violates PodSecurity "[^"]+", .*?: (.*)\. Why:/s.exec(outcome.violations[0]?.message ?? "");
    return m ? [...m[1].matchAll(/(?:^|, )([^(,]+?) \(/g)].map((x) => x[1]) : [];
}

describe("policy pod-security-standard (stack)", () => {
    it("passes pod templates of every workload kind that meet restricted", async () => {
        for (const w of [deployment(), pod(), job(), cronJob()]) {
            expectClean(await runStack(podSecurityStandard, [restricted, w]));
        }
    });

    it("fails a privileged container in a namespace labelled restricted, on the workload, saying what to change", async () => {
        const w = changed(deployment(), `${APP}.securityContext.privileged`, true);
        const outcome = await runStack(podSecurityStandard, [restricted, w]);
        expectViolations(
            outcome,
            /^Deployment prod\/api violates PodSecurity "restricted:v1\.34", which namespace prod enforces \(its pod-security\.kubernetes\.io\/enforce label\): privileged \(container "app" must not set securityContext\.privileged=true\)\. Why: .*refuses its pods.*Fix: remove securityContext\.privileged\. At: spec\.template\.spec\.$/s,
        );
        expect(outcome.violations[0].urn).to.equal(urnOf(w));
    });

    it("judges a namespace absent from the input at the stack default from config", async () => {
        const rootless = changed(deployment(), `${SPEC}.securityContext`, undefined);
        expect(await reasons(rootless, null, { defaultLevel: "restricted" })).to.deep.equal(["runAsNonRoot != true", "seccompProfile"]);
        expect(await reasons(rootless, null, { defaultLevel: "baseline" })).to.deep.equal([]);
        const outcome = await runStack(podSecurityStandard, [rootless], { defaultLevel: "restricted", defaultVersion: "v1.34" });
        expect(outcome.violations[0].message).to.match(/which namespace prod enforces \(the stack default, this policy's defaultLevel\)/);
    });

    it("checks every baseline control", async () => {
        const cases: [string, unknown, string][] = [
            [`${SPEC}.hostNetwork`, true, "host namespaces"],
            [`${SPEC}.hostPID`, true, "host namespaces"],
            [`${SPEC}.hostIPC`, true, "host namespaces"],
            [`${APP}.securityContext.privileged`, true, "privileged"],
            [`${APP}.securityContext.capabilities.add`, ["SYS_ADMIN"], "non-default capabilities"],
            [`${SPEC}.volumes`, [{ name: "root", hostPath: { path: "/" } }], "hostPath volumes"],
            [`${APP}.ports`, [{ containerPort: 80, hostPort: 80 }], "hostPort"],
            [`${APP}.securityContext.appArmorProfile`, { type: "Unconfined" }, "forbidden AppArmor profile"],
            [`${SPEC}.securityContext.seLinuxOptions`, { user: "system_u" }, "seLinuxOptions"],
            [`${APP}.securityContext.seLinuxOptions`, { type: "spc_t" }, "seLinuxOptions"],
            [`${APP}.securityContext.procMount`, "Unmasked", "procMount"],
            [`${SPEC}.securityContext.seccompProfile`, { type: "Unconfined" }, "seccompProfile"],
            [`${SPEC}.securityContext.sysctls`, [{ name: "kernel.msgmax", value: "65536" }], "forbidden sysctls"],
            [`${APP}.securityContext.windowsOptions`, { hostProcess: true }, "hostProcess"],
            [`${APP}.readinessProbe`, { httpGet: { host: "169.254.169.254", path: "/", port: 80 } }, "probe or lifecycle host"],
        ];
        for (const [at, value, reason] of cases) {
            expect(await reasons(changed(deployment(), at, value), baseline), at).to.deep.equal([reason]);
        }
        // Allowed at baseline: default capabilities, RuntimeDefault/Localhost profiles, safe sysctls, hostPort 0.
        for (const [at, value] of [
            [`${APP}.securityContext.capabilities.add`, ["NET_BIND_SERVICE", "CHOWN"]],
            [`${APP}.securityContext.appArmorProfile`, { type: "Localhost", localhostProfile: "k8s-nginx" }],
            [`${APP}.securityContext.seLinuxOptions`, { type: "container_init_t", level: "s0:c123,c456" }],
            [`${SPEC}.securityContext.sysctls`, [{ name: "net.ipv4.ip_local_port_range", value: "1024 65535" }]],
            [`${APP}.ports`, [{ containerPort: 80, hostPort: 0 }]],
            [`${APP}.securityContext.procMount`, "Default"],
        ] as const) {
            expect(await reasons(changed(deployment(), at, value), baseline), at).to.deep.equal([]);
        }
    });

    it("reads the AppArmor profile annotation of the pod template", async () => {
        const annotated = changed(deployment(), "spec.template.metadata.annotations", {
            "container.apparmor.security.beta.kubernetes.io/app": "unconfined",
        });
        expect(await reasons(annotated, baseline)).to.deep.equal(["forbidden AppArmor profile"]);
    });

    it("checks every restricted control, and not at baseline", async () => {
        const cases: [string, unknown, string][] = [
            [`${APP}.securityContext.allowPrivilegeEscalation`, undefined, "allowPrivilegeEscalation != false"],
            [`${SPEC}.securityContext.runAsNonRoot`, undefined, "runAsNonRoot != true"],
            [`${APP}.securityContext.runAsNonRoot`, false, "runAsNonRoot != true"],
            [`${APP}.securityContext.runAsUser`, 0, "runAsUser=0"],
            [`${SPEC}.securityContext.seccompProfile`, undefined, "seccompProfile"],
            [`${APP}.securityContext.capabilities.drop`, ["NET_RAW"], "unrestricted capabilities"],
            [`${APP}.securityContext.capabilities.add`, ["CHOWN"], "unrestricted capabilities"],
            [`${SPEC}.volumes`, [{ name: "shared", nfs: { server: "nfs.example.com", path: "/" } }], "restricted volume types"],
        ];
        for (const [at, value, reason] of cases) {
            const w = changed(deployment(), at, value);
            expect(await reasons(w, restricted), at).to.deep.equal([reason]);
            expect(await reasons(w, baseline), `${at} at baseline`).to.deep.equal([]);
        }
        // restricted replaces baseline's hostPath check with its volume check: one finding, not two.
        expect(await reasons(changed(deployment(), `${SPEC}.volumes`, [{ name: "root", hostPath: { path: "/" } }]))).to.deep.equal([
            "restricted volume types",
        ]);
        for (const volume of [
            { emptyDir: {} },
            { configMap: { name: "c" } },
            { persistentVolumeClaim: { claimName: "d" } },
            { projected: { sources: [] } },
        ]) {
            expect(await reasons(changed(deployment(), `${SPEC}.volumes`, [{ name: "v", ...volume }]))).to.deep.equal([]);
        }
    });

    it("exempts Windows pods from the Linux-only restricted controls", async () => {
        const windows = changed(
            changed(changed(deployment(), `${SPEC}.os`, { name: "windows" }), `${SPEC}.securityContext.seccompProfile`, undefined),
            `${APP}.securityContext`,
            undefined,
        );
        const initless = changed(windows, `${SPEC}.initContainers.0.securityContext`, undefined);
        expect(await reasons(initless)).to.deep.equal([]);
    });

    it("applies the checks of the namespace's pinned version", async () => {
        const rmem = changed(deployment(), `${SPEC}.securityContext.sysctls`, [{ name: "net.ipv4.tcp_rmem", value: "4096 87380 6291456" }]);
        expect(await reasons(rmem, namespace("prod", "baseline", "v1.34"))).to.deep.equal([]);
        expect(await reasons(rmem, namespace("prod", "baseline", "v1.31"))).to.deep.equal(["forbidden sysctls"]);
        const engine = changed(deployment(), `${APP}.securityContext.seLinuxOptions`, { type: "container_engine_t" });
        expect(await reasons(engine, namespace("prod", "baseline", "v1.31"))).to.deep.equal([]);
        expect(await reasons(engine, namespace("prod", "baseline", "v1.30"))).to.deep.equal(["seLinuxOptions"]);
        const probeHost = changed(deployment(), `${APP}.livenessProbe`, { tcpSocket: { host: "10.0.0.1", port: 80 } });
        expect(await reasons(probeHost, namespace("prod", "baseline", "v1.34"))).to.deep.equal(["probe or lifecycle host"]);
        expect(await reasons(probeHost, namespace("prod", "baseline", "v1.33"))).to.deep.equal([]);
        expect(await reasons(probeHost, namespace("prod", "baseline", "latest"))).to.deep.equal(["probe or lifecycle host"]);
        // runAsUser=0 is a restricted check only from v1.23.
        const root = changed(deployment(), `${APP}.securityContext.runAsUser`, 0);
        expect(await reasons(root, namespace("prod", "restricted", "v1.22"))).to.deep.equal([]);
    });

    it("treats a label Pod Security Admission cannot parse as restricted:latest, as it does", async () => {
        const rootless = changed(deployment(), `${SPEC}.securityContext.runAsNonRoot`, undefined);
        expect(await reasons(rootless, namespace("prod", "strict", "v1.34"))).to.deep.equal(["runAsNonRoot != true"]);
        const outcome = await runStack(podSecurityStandard, [namespace("prod", "strict"), rootless]);
        expect(outcome.violations[0].message).to.match(/violates PodSecurity "restricted:v1\.34"/);
    });

    it("never judges pods in a namespace that enforces privileged, or an exempt one", async () => {
        const privileged = changed(deployment(), `${APP}.securityContext.privileged`, true);
        expectClean(await runStack(podSecurityStandard, [namespace("prod", "privileged"), privileged]));
        const system = changed(changed(privileged, "metadata.namespace", "kube-system"), "name", "kube-system-api");
        expect((await runStack(podSecurityStandard, [system])).notApplicable).to.match(/no workload outside the exempt namespaces/);
    });

    it("judges Job and CronJob templates and bare Pods too", async () => {
        expect(await reasons(changed(job(), `${SPEC}.containers.0.securityContext.privileged`, true))).to.deep.equal(["privileged"]);
        expect(await reasons(changed(cronJob(), "spec.jobTemplate.spec.template.spec.hostNetwork", true))).to.deep.equal([
            "host namespaces",
        ]);
        const outcome = await runStack(podSecurityStandard, [restricted, changed(pod(), "spec.hostPID", true)]);
        expectViolations(outcome, /^Pod prod\/debug violates .*host namespaces \(hostPID=true\)\. Why: the API server refuses the Pod/s);
    });

    it("leaves workloads undecided when their namespace's labels are unknown at preview", async () => {
        const unknown = changed(restricted, "metadata.labels", UNKNOWN.object);
        const outcome = await runStack(podSecurityStandard, [unknown, changed(deployment(), `${APP}.securityContext.privileged`, true)]);
        expect(outcome.violations).to.deep.equal([]);
        expect(outcome.cantRun).to.match(/undecided until the values are known: .*Deployment prod\/api/);
    });

    it("rejects a bad default level in config, naming the key", async () => {
        const outcome = runStack(podSecurityStandard, [deployment()], { defaultLevel: "strict" });
        await outcome.then(
            () => expect.fail("accepted"),
            (err: Error) => expect(err.message).to.include("pod-security-standard.defaultLevel"),
        );
    });
});
