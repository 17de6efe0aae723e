import { expect } from "chai";
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { INPUT_TAG, MANIFEST_INPUT, UNKNOWN } from "eks-platform-kernel";
import { PolicyPackProcess } from "../../../tools/gate/analyzer";
import { runGate, summarize } from "../../../tools/gate/gate";
import { collectFiles, MANIFEST_PROJECT, parseManifests, toResources } from "../../../tools/manifests/manifests";
import { validateObjects } from "../../../tools/gate/schema";
import { ROOT, runTool } from "../../mocks";
import { fixtureProject } from "../../stackFiles";
import { policies } from "eks-platform-policies";
import { declarationsOf } from "../../../tools/docs/policyTables";
import { aliasBomb, tooDeep } from "../hostileYaml";

const FIXTURE_PACK = path.join("test", "fixtures", "pack");
const BROKEN = path.join("test", "fixtures", "manifests", "broken");
const check = (...args: string[]) => runTool("policyCheck.ts", args);

/** The command with `input` on its standard input (runTool gives it none). */
function checkWithStdin(input: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
        const child = execFile(
            process.execPath,
            ["-r", "ts-node/register/transpile-only", path.join(ROOT, "tools", "manifests", "policyCheck.ts"), ...args],
            { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
            (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
        );
        child.stdin?.end(input);
    });
}

describe("policy check: the CLI on the fixture pack", function () {
    this.timeout(120_000);

    it("exits 1 on a mandatory violation and reports kind, namespace, name, file and line as JSON", async () => {
        const r = await check("--policy-pack", FIXTURE_PACK, "--format", "json", BROKEN);
        expect(r.code, r.stderr).to.equal(1);
        const { violations } = JSON.parse(r.stdout);
        expect(violations).to.have.length(1);
        expect(violations[0]).to.deep.include({
            policy: "deployment-min-replicas",
            level: "mandatory",
            resource: { type: "kubernetes:apps/v1:Deployment", name: "cart", kind: "Deployment", namespace: "shop" },
            location: { file: path.join(BROKEN, "app.yaml"), line: 10 },
        });
    });

    it("writes SARIF 2.1.0 with the file and line of the offending object", async () => {
        const r = await check("--policy-pack", FIXTURE_PACK, "--format", "sarif", BROKEN);
        expect(r.code, r.stderr).to.equal(1);
        const sarif = JSON.parse(r.stdout);
        expect(sarif.version).to.equal("2.1.0");
        const [run] = sarif.runs;
        expect(run.tool.driver.rules.map((x: { id: string }) => x.id)).to.deep.equal(["deployment-min-replicas"]);
        expect(run.results).to.have.length(1);
        expect(run.results[0].level).to.equal("error");
        expect(run.tool.driver.rules[0].shortDescription.text).to.equal("Deployments run enough replicas to survive a node drain.");
        expect(run.results[0].locations[0].physicalLocation).to.deep.equal({
            artifactLocation: { uri: "test/fixtures/manifests/broken/app.yaml", uriBaseId: "%SRCROOT%" },
            region: { startLine: 10 },
        });
    });

    it("puts the totals first, then groups by policy (description once) and resource", async () => {
        const r = await check("--policy-pack", FIXTURE_PACK, BROKEN);
        expect(r.code, r.stderr).to.equal(1);
        const lines = r.stdout.trim().split("\n");
        expect(lines[0]).to.match(/^Policy check of 4 objects in 2 files/);
        expect(lines.slice(1)).to.deep.equal([
            "1 mandatory, 0 advisory, 4 policies evaluated over 4 resources",
            "not applicable to this input (1 of 4 policies evaluated 0 resources): subnet-no-public-ip",
            "",
            "deployment-min-replicas [mandatory]: 1 violation on 1 resource",
            "  Deployments run enough replicas to survive a node drain.",
            "  - Deployment shop/cart (test/fixtures/manifests/broken/app.yaml:10)",
            "      has 1 replica(s); at least 2 are needed so a drain never takes all of them.",
        ]);
    });

    it("uses the environment's config: dev makes every policy advisory", async () => {
        const r = await check("--policy-pack", FIXTURE_PACK, "--env", "dev", "--format", "json", BROKEN);
        expect(r.code, r.stderr).to.equal(0);
        expect(JSON.parse(r.stdout).violations.map((v: { level: string }) => v.level)).to.deep.equal(["advisory"]);
    });

    it("reports objects the API server would refuse, with file and line, before any policy judges them", async () => {
        const dir = path.join("test", "fixtures", "manifests", "refused");
        const file = path.join(dir, "app.yaml");
        const r = await check("--policy-pack", FIXTURE_PACK, "--format", "json", dir);
        expect(r.code, r.stderr).to.equal(1);
        const { violations, unvalidated } = JSON.parse(r.stdout);
        const refused = violations.filter((v: { policy: string }) => v.policy === "api-server-validation");
        expect(refused.map((v: { location: unknown; level: string }) => [v.location, v.level])).to.deep.equal([
            [{ file, line: 8 }, "mandatory"],
            [{ file, line: 21 }, "mandatory"],
            [{ file, line: 23 }, "mandatory"],
        ]);
        expect(refused[0].message).to.match(
            /^Deployment shop\/web would be refused by the API server: spec\.replicas is the string "3", not an integer/,
        );
        expect(refused[1].message).to.match(/sleep\.seconds is the string "5", not an integer/);
        expect(refused[2].message).to.match(
            /PodDisruptionBudget shop\/web would be refused .*apiVersion v1 does not serve kind PodDisruptionBudget/,
        );
        expect(unvalidated).to.deep.equal([
            {
                resource: { type: "kubernetes:keda.sh/v1alpha1:ScaledObject", name: "web", kind: "ScaledObject", namespace: "shop" },
                location: { file, line: 33 },
                reason: "no schema is known for keda.sh/v1alpha1 ScaledObject: its CRD's validation was not applied",
            },
        ]);
        const text = await check("--policy-pack", FIXTURE_PACK, dir);
        expect(text.code).to.equal(1);
        expect(text.stdout).to.include("api-server-validation [mandatory]: 3 violations on 2 resources");
        expect(text.stdout).to.include(`Deployment shop/web (${file}:8)`);
        expect(text.stdout).to.include(`warning: ScaledObject shop/web (${file}:33) was not validated: no schema is known`);
        // The refused Deployment never reaches the pack: no policy judges an object the cluster never holds.
        expect(text.stdout).to.match(/^not applicable to this input \(.*\): .*deployment-min-replicas/m);
    });

    it("exits 2 naming file and line for invalid YAML, and for bad arguments", async () => {
        const invalid = await check("--policy-pack", FIXTURE_PACK, path.join("test", "fixtures", "manifests", "invalid"));
        expect(invalid.code).to.equal(2);
        expect(invalid.stdout).to.equal("");
        expect(invalid.stderr).to.match(/test\/fixtures\/manifests\/invalid\/bad\.yaml:1[01]: not valid YAML/);
        const format = await check("--format", "xml", "examples");
        expect(format.code).to.equal(2);
        expect(format.stderr).to.include("--format must be text, compact, json or sarif");
        // The fixture pack's environments, not the repository's, which forks change.
        const env = await check("--policy-pack", FIXTURE_PACK, "--env", "prd", "examples");
        expect(env.code).to.equal(2);
        expect(env.stdout).to.equal("");
        const have = fs
            .readdirSync(path.join(ROOT, FIXTURE_PACK, "config"))
            .map((f) => f.replace(/\.json$/, ""))
            .sort();
        expect(have).to.include.members(["dev", "prod"]);
        expect(env.stderr).to.include(`no policy config for environment "prd" (have: ${have.join(", ")})`);
        const missing = await check("--policy-pack", FIXTURE_PACK, "no/such/dir");
        expect(missing.code).to.equal(2);
        expect(missing.stderr).to.include("no/such/dir: no such file or directory");
    });

    it("reads manifests from standard input with `-`", async () => {
        const r = await checkWithStdin(
            fs.readFileSync(path.join(ROOT, BROKEN, "app.yaml"), "utf8"),
            "--policy-pack",
            FIXTURE_PACK,
            "--format",
            "json",
            "-",
        );
        expect(r.code, r.stderr).to.equal(1);
        const { violations } = JSON.parse(r.stdout);
        // app.yaml alone: its namespace's quota lives in list.yaml.
        expect(violations.map((v: { policy: string; location: unknown }) => [v.policy, v.location])).to.deep.equal([
            ["deployment-min-replicas", { file: "<stdin>", line: 10 }],
            ["namespace-has-quota", { file: "<stdin>", line: 4 }],
        ]);
    });

    it("exits 2 naming file and line of an alias bomb or an over-deep document, with no stack trace", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "policy-bomb-"));
        try {
            fs.writeFileSync(path.join(dir, "bomb.yaml"), aliasBomb());
            fs.writeFileSync(path.join(dir, "deep.yaml"), tooDeep(5000));
            for (const [file, line, says] of [
                ["bomb.yaml", 5, "aliases from here expand"],
                ["deep.yaml", 4, "nested too deeply to read"],
            ] as const) {
                const r = await check("--policy-pack", FIXTURE_PACK, path.join(dir, file));
                expect(r.code, r.stderr).to.equal(2);
                expect(r.stdout).to.equal("");
                expect(r.stderr).to.include(`${path.join(dir, file)}:${line}: ${says}`);
                expect(r.stderr).to.not.match(/^\s+at /m);
            }
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("exits 2 with the usage line for an unknown or incomplete option", async () => {
        for (const args of [
            ["--formt", "json", "examples"],
            ["examples", "--env"],
        ]) {
            const r = await check(...args);
            expect(r.code, args.join(" ")).to.equal(2);
            expect(r.stdout).to.equal("");
            expect(r.stderr).to.match(/^usage: npm run policy:check -- /m);
        }
        expect((await check("--formt", "json", "examples")).stderr).to.include("Unknown option '--formt'");
    });

    it("fails on a `remediate` policy it cannot decide, as on a mandatory one (the fixture env `remediate`)", async () => {
        const manifest = [
            "apiVersion: apps/v1",
            "kind: Deployment",
            "metadata: { name: web, namespace: shop }",
            `spec: { replicas: ${UNKNOWN}, selector: { matchLabels: { app: web } }, template: { metadata: { labels: { app: web } }, spec: { containers: [{ name: web, image: "nginx:1.27.5" }] } } }`,
        ];
        const r = await checkWithStdin(manifest.join("\n"), "--policy-pack", FIXTURE_PACK, "--env", "remediate", "-");
        expect(r.code, r.stdout + r.stderr).to.equal(1);
        expect(r.stdout).to.include("deployment-min-replicas [remediate, counted as mandatory]: 1 violation on 1 resource");
        expect(r.stdout).to.include("undeterminable at preview, counted as mandatory (not a pass)");
    });

    it("walks a directory of hundreds of files", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "policy-check-"));
        try {
            for (let i = 0; i < 300; i++) {
                const ns = `team-${i}`;
                const docs = [
                    { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } },
                    { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "quota", namespace: ns }, spec: { hard: { pods: "10" } } },
                    {
                        apiVersion: "apps/v1",
                        kind: "Deployment",
                        metadata: { name: "app", namespace: ns },
                        spec: {
                            replicas: 2,
                            selector: { matchLabels: { app: "app" } },
                            template: {
                                metadata: { labels: { app: "app" } },
                                spec: { containers: [{ name: "app", image: "nginx:1.27.5" }] },
                            },
                        },
                    },
                ];
                fs.mkdirSync(path.join(dir, String(i % 10)), { recursive: true });
                fs.writeFileSync(path.join(dir, String(i % 10), `${ns}.yaml`), docs.map((d) => YAML.stringify(d)).join("---\n"));
            }
            const r = await check("--policy-pack", path.join(ROOT, FIXTURE_PACK), dir);
            expect(r.code, r.stderr).to.equal(0);
            expect(r.stdout).to.include("Policy check of 900 objects in 300 files");
            expect(r.stdout.split("\n")[1]).to.equal("0 mandatory, 0 advisory, 4 policies evaluated over 900 resources");
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});

describe("policy check: real-world manifests against the real pack in prod (issue 17)", function () {
    this.timeout(300_000);
    const PACK = path.join(ROOT, "policies");
    const REALWORLD = path.join("test", "fixtures", "manifests", "realworld");
    let pack: Promise<PolicyPackProcess>;
    before(() => {
        pack = PolicyPackProcess.start(PACK, { stack: "prod", project: MANIFEST_PROJECT });
    });
    after(async () => {
        (await pack).close();
    });

    /** The manifest gate on one fixture directory, as `npm run policy:check -- --env prod <dir>` runs it, with one pack for all cases. */
    async function check(dir: string) {
        const files = collectFiles([path.join(REALWORLD, dir)]);
        const resources = toResources(
            files.flatMap((f) => parseManifests(fs.readFileSync(f, "utf8"), f)),
            "prod",
        );
        // The API server accepts every object (the manifest gate's first step), so the pack's verdicts are the whole answer.
        const schema = await validateObjects(
            resources.map((r) => ({ urn: r.resource.urn, object: r.manifest.object, subject: r.name, lineOf: () => r.manifest.line })),
        );
        expect(schema.diagnostics.map((d) => d.message)).to.deep.equal([]);
        const report = await runGate({
            packDir: PACK,
            configFile: path.join(PACK, "config", "prod.json"),
            stack: "prod",
            project: MANIFEST_PROJECT,
            resources: resources.map((r) => r.resource),
            pack,
            stackTags: { [INPUT_TAG]: MANIFEST_INPUT },
        });
        const blocking = report.diagnostics.filter((d) => d.level === "mandatory");
        return { report, blocking, exit: summarize(report).mandatory > 0 ? 1 : 0 };
    }

    it("fails a 3-replica ReplicationController behind a Service with no PDB", async () => {
        const { blocking, exit } = await check("guestbook-rc");
        expect(exit).to.equal(1);
        expect(blocking.map((d) => d.policy)).to.include("workload-pdb-required");
        expect(blocking.find((d) => d.policy === "workload-pdb-required")?.message).to.match(
            /ReplicationController guestbook\/frontend \(3 replicas\) is not covered by any PodDisruptionBudget/,
        );
    });

    it("passes an Alertmanager custom resource with 3 replicas and its PDB; the PDB alone is undecided, not a violation", async () => {
        const both = await check("alertmanager");
        expect(both.exit, JSON.stringify(both.report.diagnostics)).to.equal(0);
        expect(both.report.diagnostics).to.deep.equal([]);
        expect(both.report.policies.find((p) => p.name === "pdb-allows-disruption")?.evaluated).to.be.greaterThan(0);
        const alone = await check("alertmanager-pdb-alone");
        expect(alone.exit).to.equal(0);
        expect(alone.report.diagnostics).to.have.length(1);
        expect(alone.report.diagnostics[0]).to.deep.include({ policy: "pdb-allows-disruption", level: "advisory", undeterminable: false });
        expect(alone.report.diagnostics[0].undecided).to.match(/^PodDisruptionBudget monitoring\/alertmanager-main matches no workload/);
        expect(alone.report.diagnostics[0].message).to.match(
            /Undecided: PodDisruptionBudget monitoring\/alertmanager-main matches no workload in these manifests/,
        );
    });

    it("fails a 1-replica Deployment selected by a Service, and passes it with the documented opt-out", async () => {
        const single = await check("singleton");
        expect(single.exit).to.equal(1);
        expect(single.blocking.map((d) => d.policy)).to.deep.equal(["workload-service-replicas"]);
        const optedOut = await check("singleton-opt-out");
        expect(optedOut.exit, JSON.stringify(optedOut.report.diagnostics)).to.equal(0);
        expect(optedOut.report.diagnostics).to.deep.equal([]);
    });

    it("does not judge a workload pinned to on-demand nodes against a Spot-only NodePool's window", async () => {
        const { report, exit } = await check("on-demand-pinned");
        expect(exit, JSON.stringify(report.diagnostics)).to.equal(0);
        expect(report.policies.find((p) => p.name === "drain-window")?.evaluated).to.be.greaterThan(0);
    });
});

describe("policy check --platform: manifests judged on the platform they deploy to (the fixture prod stack's profile)", function () {
    this.timeout(240_000);
    const APP = path.join("test", "fixtures", "platform-app");
    let profile: string;

    before(async () => {
        const out = await runTool("profile.ts", ["prod"], fixtureProject());
        expect(out.code, out.stderr).to.equal(0);
        profile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "platform-")), "prod.profile.json");
        fs.writeFileSync(profile, out.stdout);
    });

    it("places a controller pinned off Karpenter's nodes on the platform's system group and judges the namespace it is given by its real labels", async () => {
        const [alone, onPlatform] = await Promise.all([
            check("--env", "prod", APP),
            check("--platform", profile, "--namespace", "checkout", APP),
        ]);
        expect([alone.code, onPlatform.code], onPlatform.stderr).to.deep.equal([0, 0]);
        // Alone, the rehearsal has no nodes to judge on: not applicable, never a failure.
        expect(alone.stdout).to.match(/not applicable to this input[^\n]*drain-rehearsal/);
        expect(alone.stdout).to.match(/not applicable to this input[^\n]*namespace-quota-required/);
        // On the platform, the rehearsal and the namespace policies run, and pass.
        // The pack's policies, then the gate's own: api-server-validation, and platform-fit with a profile.
        expect(onPlatform.stdout).to.match(
            new RegExp(`^0 mandatory, 0 advisory, ${policies.length + 2} policies evaluated over 3 resources$`, "m"),
        );
        expect(onPlatform.stdout).to.not.match(
            /not applicable to this input[^\n]*(drain-rehearsal|namespace-quota-required|pod-security-standard)/,
        );
    });

    it("decides what the platform makes true: without the CriticalAddonsOnly toleration the pods fit on no node of the platform, naming the taints", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "platform-app-"));
        fs.writeFileSync(
            path.join(dir, "app.yaml"),
            fs
                .readFileSync(path.join(ROOT, APP, "app.yaml"), "utf8")
                .replace("      tolerations: [{ key: CriticalAddonsOnly, operator: Exists }]\n", ""),
        );
        const r = await check("--platform", profile, "--namespace", "checkout", "--format", "json", dir);
        expect(r.code, r.stderr).to.equal(1);
        const messages = (JSON.parse(r.stdout) as { violations: { policy: string; message: string }[] }).violations.map(
            (v) => `${v.policy}: ${v.message}`,
        );
        expect(messages.join("\n")).to.match(
            /drain-rehearsal: [\s\S]*Pod api-0 of Deployment checkout\/api fits on no node of the stack, before any rollout: .*untolerated taint CriticalAddonsOnly=true:NoSchedule/,
        );
    });

    it("judges a namespace-less object in the --namespace it is given, with that namespace's real Pod Security labels, never 'the stack default'", async () => {
        const r = await check("--platform", profile, "--namespace", "checkout", path.join("test", "fixtures", "namespaceless"));
        expect(r.code).to.equal(1);
        expect(r.stdout).to.include("Deployment checkout/api violates PodSecurity");
        expect(r.stdout).to.include("which namespace checkout enforces (its pod-security.kubernetes.io/enforce label)");
        expect(r.stdout).to.not.include("stack default");
        expect(r.stdout).to.not.include("default/api");
    });

    it("without --platform, a Pod Security finding in a namespace the manifests do not hold is undecided (advisory, naming --platform), never a failure", async () => {
        const r = await check("--env", "prod", "--format", "json", path.join("test", "fixtures", "namespaceless"));
        const { violations } = JSON.parse(r.stdout) as { violations: { policy: string; level: string; message: string }[] };
        const pss = violations.filter((v) => v.policy === "pod-security-standard");
        expect(pss.map((v) => v.level)).to.deep.equal(["advisory"]);
        expect(pss[0].message).to.match(
            /^Undecided: Deployment default\/api would violate PodSecurity "restricted:latest" if namespace default enforces it/,
        );
        expect(pss[0].message).to.include("--platform");
        expect(pss[0].message).to.not.include("stack default");
    });

    it("reports nothing against the platform's own resources (they are its own gate's), though the same object as a manifest is reported", async () => {
        const zero = {
            apiVersion: "policy/v1",
            kind: "PodDisruptionBudget",
            metadata: { name: "zero", namespace: "checkout" },
            spec: { maxUnavailable: 0, selector: { matchLabels: { app: "platform-thing" } } },
        };
        const withZero = path.join(path.dirname(profile), "with-zero.json");
        const parsed = JSON.parse(fs.readFileSync(profile, "utf8")) as { context: unknown[] };
        parsed.context.push({
            type: "kubernetes:policy/v1:PodDisruptionBudget",
            name: "platform-zero",
            urn: "urn:pulumi:prod::eks-platform::kubernetes:policy/v1:PodDisruptionBudget::platform-zero",
            props: zero,
        });
        fs.writeFileSync(withZero, JSON.stringify(parsed));
        const asManifest = fs.mkdtempSync(path.join(os.tmpdir(), "zero-"));
        fs.writeFileSync(path.join(asManifest, "zero.yaml"), YAML.stringify(zero));
        const [inContext, inManifests] = await Promise.all([
            check("--platform", withZero, "--namespace", "checkout", "--format", "json", APP),
            check("--platform", profile, "--namespace", "checkout", "--format", "json", APP, asManifest),
        ]);
        const policies = (r: { stdout: string }) =>
            (JSON.parse(r.stdout) as { violations: { policy: string }[] }).violations.map((v) => v.policy);
        expect(policies(inContext)).to.deep.equal([]);
        expect(inContext.code, inContext.stderr).to.equal(0);
        expect(policies(inManifests)).to.include("pdb-allows-disruption");
    });

    it("platform-fit: a claim of a StorageClass the platform does not have is a finding naming the class; one it has passes", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fit-"));
        const claim = (storageClassName: string) =>
            YAML.stringify({
                apiVersion: "v1",
                kind: "PersistentVolumeClaim",
                metadata: { name: "data", namespace: "checkout" },
                spec: { storageClassName, accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } },
            });
        const classes = (JSON.parse(fs.readFileSync(profile, "utf8")) as { storageClasses: { name: string }[] }).storageClasses;
        expect(classes.length, "the fixture platform has a StorageClass").to.be.greaterThan(0);
        fs.writeFileSync(path.join(dir, "missing.yaml"), claim("no-such-class"));
        const missing = await check("--platform", profile, "--format", "json", dir);
        expect(missing.code, missing.stderr).to.equal(1);
        const fit = (
            JSON.parse(missing.stdout) as { violations: { policy: string; level: string; message: string; location?: unknown }[] }
        ).violations.filter((v) => v.policy === "platform-fit");
        expect(fit.map((v) => v.level)).to.deep.equal(["mandatory"]);
        expect(fit[0].message).to.match(
            /^PersistentVolumeClaim checkout\/data .*needs StorageClass "no-such-class", which the platform does not provide/,
        );
        expect(fit[0].location).to.deep.equal({ file: path.join(dir, "missing.yaml"), line: 1 });
        fs.writeFileSync(path.join(dir, "missing.yaml"), claim(classes[0].name));
        const present = await check("--platform", profile, "--format", "json", dir);
        expect(
            (JSON.parse(present.stdout) as { violations: { policy: string }[] }).violations.filter((v) => v.policy === "platform-fit"),
        ).to.deep.equal([]);
    });

    it("platform-fit on EKS Auto Mode: what AWS documents as unsupported fails, what it says nothing about is undecided and never fails the run", async () => {
        const out = await runTool("profile.ts", ["dev-auto"]);
        expect(out.code, out.stderr).to.equal(0);
        const auto = path.join(path.dirname(profile), "dev-auto.profile.json");
        fs.writeFileSync(auto, out.stdout);
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fit-auto-"));
        const ingress = (annotations: Record<string, string>) =>
            YAML.stringify({
                apiVersion: "networking.k8s.io/v1",
                kind: "Ingress",
                metadata: { name: "web", namespace: "dev", annotations },
                spec: { ingressClassName: "alb", defaultBackend: { service: { name: "web", port: { number: 80 } } } },
            });
        const fitOf = (stdout: string) =>
            (JSON.parse(stdout) as { violations: { policy: string; level: string; message: string }[] }).violations.filter(
                (v) => v.policy === "platform-fit",
            );
        fs.writeFileSync(path.join(dir, "web.yaml"), ingress({ "alb.ingress.kubernetes.io/healthcheck-path": "/healthz" }));
        const open = await check("--platform", auto, "--format", "json", dir);
        expect(open.code, open.stderr).to.equal(0);
        const [undecidedFit] = fitOf(open.stdout);
        expect(undecidedFit.level).to.equal("advisory");
        expect(undecidedFit.message).to.match(
            /^Undecided: Ingress dev\/web .*alb\.ingress\.kubernetes\.io\/healthcheck-path.*may or may not provide/,
        );
        fs.writeFileSync(path.join(dir, "web.yaml"), ingress({ "alb.ingress.kubernetes.io/group.name": "shared" }));
        const refused = await check("--platform", auto, "--format", "json", dir);
        expect(refused.code, refused.stderr).to.equal(1);
        expect(fitOf(refused.stdout).map((v) => v.level)).to.deep.equal(["mandatory"]);
    });

    it("refuses a profile of another format version, and a --namespace that is not a namespace name (exit 2)", async () => {
        const other = path.join(path.dirname(profile), "other.json");
        fs.writeFileSync(other, JSON.stringify({ ...JSON.parse(fs.readFileSync(profile, "utf8")), formatVersion: 9 }));
        const [bad, badNs] = await Promise.all([
            check("--platform", other, APP),
            check("--platform", profile, "--namespace", "Check_out", APP),
        ]);
        expect([bad.code, badNs.code]).to.deep.equal([2, 2]);
        expect(bad.stderr).to.match(/formatVersion 9 is not 1/);
        expect(badNs.stderr).to.match(/--namespace "Check_out" is not a namespace name/);
    });
});

describe("policy check: waivers (platform/waive-<policy>: <reason>)", function () {
    this.timeout(240_000);
    const WAIVED = path.join("test", "fixtures", "waived");

    /** The fixture with its waiver annotation replaced (`undefined`: removed). */
    function withWaiver(line: string | undefined): string {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waived-"));
        const text = fs.readFileSync(path.join(ROOT, WAIVED, "app.yaml"), "utf8");
        const original = '    platform/waive-workload-service-replicas: "leader-elected; clients retry for 60 s"\n';
        expect(text).to.include(original);
        fs.writeFileSync(path.join(dir, "app.yaml"), text.replace(original, line === undefined ? "" : `    ${line}\n`));
        return dir;
    }

    it("a waived finding is listed as waived with its reason in text, JSON and SARIF, and no longer fails the run", async () => {
        const [text, json, sarif] = await Promise.all([
            check("--env", "prod", WAIVED),
            check("--env", "prod", "--format", "json", WAIVED),
            check("--env", "prod", "--format", "sarif", WAIVED),
        ]);
        expect([text.code, json.code, sarif.code], text.stdout).to.deep.equal([0, 0, 0]);
        expect(text.stdout).to.match(/^0 mandatory, 0 advisory, 1 waived, /m);
        expect(text.stdout).to.include(
            "waived (leader-elected; clients retry for 60 s), not counted: Deployment shop/scheduler runs 1 replica",
        );
        const violations = (JSON.parse(json.stdout) as { violations: { policy: string; waived?: string; level: string }[] }).violations;
        expect(violations.map((v) => [v.policy, v.level, v.waived])).to.deep.equal([
            ["workload-service-replicas", "mandatory", "leader-elected; clients retry for 60 s"],
        ]);
        const results = (JSON.parse(sarif.stdout) as { runs: { results: { ruleId: string; suppressions?: unknown }[] }[] }).runs[0].results;
        expect(results.map((r) => [r.ruleId, r.suppressions])).to.deep.equal([
            ["workload-service-replicas", [{ kind: "inSource", justification: "leader-elected; clients retry for 60 s" }]],
        ]);
    });

    it("JSON carries formatVersion 1; SARIF rules carry what the policy checks and requires, from its declaration", async () => {
        const [json, sarif] = await Promise.all([
            check("--env", "prod", "--format", "json", WAIVED),
            check("--env", "prod", "--format", "sarif", WAIVED),
        ]);
        expect((JSON.parse(json.stdout) as { formatVersion: number }).formatVersion).to.equal(1);
        const rules = (
            JSON.parse(sarif.stdout) as {
                runs: { tool: { driver: { rules: { id: string; fullDescription?: { text: string }; help?: { text: string } }[] } } }[];
            }
        ).runs[0].tool.driver.rules;
        const rule = rules.find((r) => r.id === "workload-service-replicas");
        const declared = declarationsOf(policies).find((d) => d.name === "workload-service-replicas")!;
        expect(rule?.fullDescription?.text).to.equal(declared.docs.checks);
        expect(rule?.help?.text).to.include(declared.docs.requires).and.include("docs/policies.md");
    });

    it("without the waiver the same finding fails the run (so the waiver is what passes it)", async () => {
        const r = await check("--env", "prod", withWaiver(undefined));
        expect(r.code).to.equal(1);
        expect(r.stdout).to.match(new RegExp(`^1 mandatory, 0 advisory, ${policies.length + 1} policies`, "m"));
    });

    it("a waiver needs a reason and a policy of the pack: bad input (exit 2) naming file, line and object", async () => {
        const [empty, unknown] = await Promise.all([
            check("--env", "prod", withWaiver('platform/waive-workload-service-replicas: ""')),
            check("--env", "prod", withWaiver('platform/waive-workload-service-replica: "typo"')),
        ]);
        expect([empty.code, unknown.code]).to.deep.equal([2, 2]);
        expect(empty.stderr).to.match(/app\.yaml:9: Deployment shop\/scheduler: platform\/waive-workload-service-replicas needs a reason/);
        expect(unknown.stderr).to.match(
            /waives "workload-service-replica", which is no policy of this pack \(policies: .*workload-service-replicas/,
        );
    });

    it("an environment can forbid waiving a policy (waivers.json): the waiver is refused, said so, and the finding stands", async () => {
        const dir = withWaiver('platform/waive-pod-security-standard: "runs as root for now"');
        // The namespace is in the input, so its enforce label decides (restricted): runAsNonRoot is a finding.
        const namespace =
            "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: { pod-security.kubernetes.io/enforce: restricted }\n";
        const text = fs.readFileSync(path.join(dir, "app.yaml"), "utf8").replace("runAsNonRoot: true, ", "");
        fs.writeFileSync(path.join(dir, "app.yaml"), text + namespace);
        const [prod, dev] = await Promise.all([check("--env", "prod", dir), check("--env", "dev", dir)]);
        expect(prod.code).to.equal(1);
        expect(prod.stdout).to.match(
            /warning: .*app\.yaml:9: the waiver of pod-security-standard is refused: environment prod does not allow waiving it/,
        );
        expect(prod.stdout).to.match(/pod-security-standard \[mandatory\]: 1 violation/);
        expect(dev.stdout).to.include("waived (runs as root for now), not counted");
    });
});

describe("policy check: findings at the offending field's line", function () {
    this.timeout(120_000);
    const LOCATED = path.join("test", "fixtures", "manifests", "located");
    const file = path.join(LOCATED, "app.yaml");

    type Located = { policy: string; message: string; field?: string; location?: { file: string; line: number } };
    const byPolicy = (violations: Located[], policy: string) => violations.filter((v) => v.policy === policy);

    it("points at the container's resources, the grace period and the budget's maxUnavailable, and names each field in JSON", async () => {
        const r = await check("--env", "prod", "--format", "json", LOCATED);
        expect(r.code, r.stderr).to.equal(1);
        const { violations } = JSON.parse(r.stdout) as { violations: Located[] };
        // Lines counted by hand in the fixture: the second container's `resources:` key, the
        // template's terminationGracePeriodSeconds, the budget's maxUnavailable.
        expect(byPolicy(violations, "workload-resources").map((v) => [v.field, v.location])).to.deep.equal([
            ["spec.template.spec.containers[1].resources", { file, line: 24 }],
        ]);
        expect(byPolicy(violations, "workload-termination-grace").map((v) => [v.field, v.location])).to.deep.equal([
            ["spec.template.spec.terminationGracePeriodSeconds", { file, line: 15 }],
        ]);
        expect(byPolicy(violations, "pdb-allows-disruption").map((v) => [v.field, v.location])).to.deep.equal([
            ["spec.maxUnavailable", { file, line: 35 }],
        ]);
        // The trailer the policy wrote is read off, not shown twice.
        for (const v of violations) {
            expect(v.message, v.policy).not.to.include(" At: ");
        }
    });

    it("uses the field's line in text and SARIF too", async () => {
        const [text, sarif] = await Promise.all([check("--env", "prod", LOCATED), check("--env", "prod", "--format", "sarif", LOCATED)]);
        expect(text.stdout).to.include(`Deployment shop/web (${file}:15)`);
        expect(text.stdout).to.include(`PodDisruptionBudget shop/web (${file}:35)`);
        const results = (
            JSON.parse(sarif.stdout) as {
                runs: { results: { ruleId: string; locations: { physicalLocation: { region: { startLine: number } } }[] }[] }[];
            }
        ).runs[0].results;
        expect(
            results.filter((x) => x.ruleId === "pdb-allows-disruption").map((x) => x.locations[0].physicalLocation.region.startLine),
        ).to.deep.equal([35]);
    });

    it("links each SARIF rule to its entry in docs/policies.md (helpUri), the gate's own checks included; every anchor exists", async () => {
        const docsUrl = "https://git.example.com/platform/blob/v1.2.0/docs/policies.md";
        const runs = await Promise.all(
            [LOCATED, path.join("test", "fixtures", "manifests", "refused")].map((dir) =>
                check("--env", "prod", "--format", "sarif", "--docs-url", docsUrl, dir),
            ),
        );
        const rules = runs.flatMap(
            (r) =>
                (JSON.parse(r.stdout) as { runs: { tool: { driver: { rules: { id: string; helpUri?: string }[] } } }[] }).runs[0].tool
                    .driver.rules,
        );
        expect(rules.map((x) => x.id)).to.include.members(["api-server-validation", "pdb-allows-disruption"]);
        const doc = fs.readFileSync(path.join(ROOT, "docs", "policies.md"), "utf8");
        for (const rule of rules) {
            expect(rule.helpUri, rule.id).to.equal(`${docsUrl}#policy-${rule.id}`);
            expect(doc, rule.id).to.include(`<a id="policy-${rule.id}"></a>`);
        }
    });
});

describe("policy check: the Kubernetes version of a stack has one home", function () {
    this.timeout(120_000);

    it("judges plain manifests with --env <stack> against that stack's cluster.version (Pulumi.<stack>.yaml), decided", async () => {
        const pdb = [
            "apiVersion: policy/v1beta1",
            "kind: PodDisruptionBudget",
            "metadata: { name: web, namespace: shop }",
            "spec:",
            "  maxUnavailable: 1",
            "  selector: { matchLabels: { app: web } }",
            "",
        ].join("\n");
        const r = await checkWithStdin(pdb, "--env", "prod", "--format", "json", "-");
        const served = (
            JSON.parse(r.stdout) as { violations: { policy: string; message: string; undecided?: string }[] }
        ).violations.filter((v) => v.policy === "api-versions-served");
        const version = (
            YAML.parse(fs.readFileSync(path.join(ROOT, "Pulumi.prod.yaml"), "utf8")) as { config: Record<string, { version?: string }> }
        ).config["eks-platform:cluster"].version;
        expect(served.map((v) => [v.undecided, v.message])).to.have.length(1);
        expect(served[0].undecided).to.equal(undefined);
        expect(served[0].message).to.include(`the cluster runs Kubernetes ${version} (api-versions-served.kubernetesVersion)`);
    });
});
