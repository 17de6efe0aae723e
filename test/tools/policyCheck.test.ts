import { expect } from "chai";
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { INPUT_TAG, MANIFEST_INPUT, UNKNOWN } from "eks-platform-kernel";
import { policies } from "eks-platform-policies";
import { PolicyPackProcess } from "../../tools/analyzer";
import { InputError } from "../../tools/errors";
import { runGate, summarize } from "../../tools/gate";
import {
    collectFiles,
    MANIFEST_PROJECT,
    ManifestError,
    packProps,
    parseManifests,
    readManifests,
    toResources,
    typeToken,
} from "../../tools/manifests";
import { validateKubernetesObject, validateObjects } from "../../tools/schema";
import { MAX_ALIAS_COUNT } from "../../tools/yamlInput";
import { ROOT, runTool } from "../mocks";
import { MANIFEST_TAGS, runResource, runStack, TestResource } from "../policies/harness";

const FIXTURE_PACK = path.join("test", "fixtures", "pack");
const BROKEN = path.join("test", "fixtures", "manifests", "broken");
const check = (...args: string[]) => runTool("policyCheck.ts", args);

/** The command with `input` on its standard input (runTool gives it none). */
function checkWithStdin(input: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
        const child = execFile(
            process.execPath,
            ["-r", "ts-node/register/transpile-only", path.join(ROOT, "tools", "policyCheck.ts"), ...args],
            { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
            (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
        );
        child.stdin?.end(input);
    });
}

/** A "billion laughs" document: nine levels of nine aliases each, 9^9 strings once expanded. */
function aliasBomb(): string {
    const lines = [
        "apiVersion: v1",
        "kind: ConfigMap",
        "metadata: { name: laughs }",
        "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
    ];
    let previous = "a";
    for (const anchor of "bcdefghi") {
        lines.push(`${anchor}: &${anchor} [${Array(9).fill(`*${previous}`).join(", ")}]`);
        previous = anchor;
    }
    return `${lines.join("\n")}\n`;
}

/** One object nested `depth` flow sequences deep: beyond what the YAML parser's stack can follow. */
function tooDeep(depth: number): string {
    return `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: deep }\ndata: { a: ${"[".repeat(depth)}1${"]".repeat(depth)} }\n`;
}

describe("policy check: reading manifests", () => {
    it("maps apiVersion and kind to the Pulumi type token", () => {
        expect(typeToken("v1", "Service")).to.equal("kubernetes:core/v1:Service");
        expect(typeToken("apps/v1", "Deployment")).to.equal("kubernetes:apps/v1:Deployment");
        expect(typeToken("policy/v1", "PodDisruptionBudget")).to.equal("kubernetes:policy/v1:PodDisruptionBudget");
        expect(typeToken("karpenter.sh/v1", "NodePool")).to.equal("kubernetes:karpenter.sh/v1:NodePool");
        expect(typeToken("karpenter.k8s.aws/v1", "EC2NodeClass")).to.equal("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass");
    });

    it("reads every document and every List item with the line it starts on, skipping non-Kubernetes YAML", () => {
        const text = [
            "# Source: chart/templates/a.yaml", // 1
            "apiVersion: v1", // 2
            "kind: ConfigMap", // 3
            "metadata: { name: a }", // 4
            "---", // 5
            "name: not-kubernetes", // 6
            "---", // 7
            "---", // 8
            "apiVersion: v1", // 9
            "kind: List", // 10
            "items:", // 11
            "  - apiVersion: v1", // 12
            "    kind: Secret", // 13
            "    metadata: { name: b, namespace: x }", // 14
            "  - apiVersion: apps/v1", // 15
            "    kind: Deployment", // 16
            "    metadata: { name: c }", // 17
        ].join("\n");
        const objects = parseManifests(text, "m.yaml");
        expect(objects.map((o) => [o.object.kind, o.line])).to.deep.equal([
            ["ConfigMap", 2],
            ["Secret", 12],
            ["Deployment", 15],
        ]);
    });

    it("names file and line of invalid YAML", () => {
        const file = path.join(ROOT, "test", "fixtures", "manifests", "invalid", "bad.yaml");
        let err: unknown;
        try {
            parseManifests(fs.readFileSync(file, "utf8"), "bad.yaml");
        } catch (e) {
            err = e;
        }
        expect(err).to.be.instanceOf(ManifestError);
        // The unclosed flow sequence opens on line 10; the parser reports it there or where it gives up.
        expect((err as Error).message).to.match(/^bad\.yaml:1[01]: not valid YAML: /);
    });

    it("names file and line of an alias bomb instead of expanding it", () => {
        // Line 5 holds the first alias; the expansion starts there.
        expect(() => parseManifests(aliasBomb(), "bomb.yaml")).to.throw(
            ManifestError,
            new RegExp(`^bomb\\.yaml:5: aliases from here expand to more than ${MAX_ALIAS_COUNT} nodes`),
        );
        // Aliases within the limit still read as the values they stand for.
        const [ok] = parseManifests("apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\ndata: { x: &v one, y: *v }\n", "ok.yaml");
        expect(ok.object.data).to.deep.equal({ x: "one", y: "one" });
    });

    it("names file and line of an alias to an anchor that is not set before it", () => {
        expect(() => parseManifests("apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\ndata: { x: *nowhere }\n", "a.yaml")).to.throw(
            ManifestError,
            /^a\.yaml:4: not valid YAML: Unresolved alias .*nowhere/,
        );
    });

    it("names file and line of a document nested deeper than the parser can follow", () => {
        expect(() => parseManifests(`# one\n${tooDeep(5000)}`, "deep.yaml")).to.throw(
            ManifestError,
            /^deep\.yaml:5: nested too deeply to read/,
        );
    });

    it("places namespaced objects in `default` when they name none, and rejects duplicates", () => {
        const objects = parseManifests(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\n---\napiVersion: v1\nkind: Namespace\nmetadata: { name: a }\n",
            "m.yaml",
        );
        const rs = toResources(objects, "prod");
        expect(rs.map((r) => [r.resource.urn, r.namespace])).to.deep.equal([
            ["urn:pulumi:prod::k8s-manifests::kubernetes:core/v1:ConfigMap::default/a", "default"],
            ["urn:pulumi:prod::k8s-manifests::kubernetes:core/v1:Namespace::a", undefined],
        ]);
        let err: unknown;
        try {
            toResources(
                [
                    ...objects,
                    { ...objects[0], file: "n.yaml", line: 7 },
                    { ...objects[1], file: "n.yaml", line: 12 },
                    { ...objects[0], file: "o.yaml", line: 3 },
                ],
                "prod",
            );
        } catch (e) {
            err = e;
        }
        expect(err).to.be.instanceOf(InputError);
        // Every repeat is named, each with the place it repeats; none is left for a second run.
        expect((err as Error).message.split("\n").slice(1)).to.deep.equal([
            "  - n.yaml:7: ConfigMap default/a is also defined at m.yaml:1",
            "  - n.yaml:12: Namespace a is also defined at m.yaml:5",
            "  - o.yaml:3: ConfigMap default/a is also defined at m.yaml:1",
        ]);
        expect((err as Error).message.split("\n")[0]).to.match(/^3 objects repeat the kind, namespace and name of another/);
    });

    it("names an object without metadata.name once, without its namespace twice", () => {
        const objects = parseManifests("apiVersion: v1\nkind: Pod\nmetadata: { generateName: job-, namespace: batch }\n", "p.yaml");
        const [r] = toResources(objects, "prod");
        expect(r.namespace).to.equal("batch");
        expect(r.resource.urn).to.equal("urn:pulumi:prod::k8s-manifests::kubernetes:core/v1:Pod::job-0");
    });
});

describe("policy check: finding the files", () => {
    let dir: string;
    beforeEach(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "policy-files-"));
        fs.mkdirSync(path.join(dir, "k8s", "team"), { recursive: true });
        fs.writeFileSync(path.join(dir, "k8s", "team", "app.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\n");
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("names the real directory a looping link leads back to", () => {
        fs.symlinkSync("..", path.join(dir, "k8s", "team", "up"));
        expect(() => collectFiles([path.join(dir, "k8s")]))
            .to.throw(ManifestError)
            .with.property(
                "message",
                `${path.join(dir, "k8s", "team", "up")}: symbolic link loop: this is ${fs.realpathSync(path.join(dir, "k8s"))}, a directory already being read; remove the link or name the directories you mean`,
            );
    });

    it("says a link that points to itself is a loop, not a missing file", () => {
        fs.symlinkSync("b", path.join(dir, "a.yaml"));
        fs.symlinkSync("a.yaml", path.join(dir, "b"));
        expect(() => collectFiles([path.join(dir, "a.yaml")]))
            .to.throw(ManifestError)
            .with.property(
                "message",
                `${path.join(dir, "a.yaml")}: symbolic link loop: it points to b, which leads back to it and never reaches a file or directory`,
            );
        fs.symlinkSync("gone.yaml", path.join(dir, "broken.yaml"));
        expect(() => collectFiles([path.join(dir, "broken.yaml")])).to.throw(ManifestError, "broken symbolic link: it points to gone.yaml");
    });

    it("reads a file reached twice (a link, or named again) once", () => {
        fs.symlinkSync("team", path.join(dir, "k8s", "current"));
        const files = collectFiles([path.join(dir, "k8s"), path.join(dir, "k8s", "team", "app.yaml")]);
        expect(files).to.deep.equal([path.join(dir, "k8s", "current", "app.yaml")]);
        expect(toResources(readManifests(files), "prod")).to.have.length(1);
    });

    it("reads standard input for `-`, once, named <stdin>", () => {
        const files = collectFiles(["-", path.join(dir, "k8s"), "-"]);
        expect(files).to.deep.equal(["-", path.join(dir, "k8s", "team", "app.yaml")]);
        const objects = readManifests(files, () => "apiVersion: v1\nkind: Secret\nmetadata: { name: s }\n");
        expect(objects.map((o) => [o.file, o.line, o.object.kind])).to.deep.equal([
            ["<stdin>", 1, "Secret"],
            [path.join(dir, "k8s", "team", "app.yaml"), 1, "ConfigMap"],
        ]);
    });
});

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
        expect(format.stderr).to.include("--format must be text, json or sarif");
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

describe("examples/: drain-safe workloads", function () {
    this.timeout(120_000);
    const objects = fs
        .readdirSync(path.join(ROOT, "examples"))
        .filter((f) => f.endsWith(".yaml"))
        .flatMap((f) =>
            parseManifests(fs.readFileSync(path.join(ROOT, "examples", f), "utf8"), f).map((m) => m.object as Record<string, any>),
        );
    const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);

    it("holds the nginx web Deployment with a LoadBalancer Service and a 6-replica Redis Cluster StatefulSet with headless Service and PVCs", () => {
        const web = ofKind("Deployment").find((d) => d.spec.template.spec.containers[0].image.startsWith("nginx:"));
        expect(web, "nginx Deployment").to.not.equal(undefined);
        expect(ofKind("Service").some((s) => s.spec.type === "LoadBalancer" && s.metadata.namespace === web!.metadata.namespace)).to.equal(
            true,
        );
        const redis = ofKind("StatefulSet").find((s) => s.spec.template.spec.containers[0].image.startsWith("redis:"));
        expect(redis?.spec.replicas).to.equal(6);
        expect(redis?.spec.volumeClaimTemplates).to.have.length(1);
        const headless = ofKind("Service").find((s) => s.metadata.name === redis!.spec.serviceName);
        expect(headless?.spec.clusterIP).to.equal("None");
    });

    it("passes the official Kubernetes schemas", async () => {
        for (const o of objects) {
            await validateKubernetesObject(typeToken(o.apiVersion, o.kind), o);
        }
    });

    it("gives every workload resources, a grace period longer than its preStop sleep, and a PDB allowing one disruption", () => {
        const workloads = [...ofKind("Deployment"), ...ofKind("StatefulSet")];
        expect(workloads).to.have.length(2);
        for (const w of workloads) {
            const pod = w.spec.template.spec;
            for (const c of pod.containers) {
                expect(c.resources.requests, `${w.metadata.name} requests`).to.include.keys("cpu", "memory");
                expect(c.resources.limits, `${w.metadata.name} limits`).to.include.keys("memory");
                const sleep = Number(/sleep (\d+)/.exec(c.lifecycle.preStop.exec.command.join(" "))?.[1]);
                expect(sleep, `${w.metadata.name} preStop`).to.be.greaterThan(0);
                expect(pod.terminationGracePeriodSeconds, `${w.metadata.name} grace`).to.be.greaterThan(sleep);
            }
            const labels = w.spec.template.metadata.labels as Record<string, string>;
            const pdbs = ofKind("PodDisruptionBudget").filter(
                (p) =>
                    p.metadata.namespace === w.metadata.namespace &&
                    Object.entries(p.spec.selector.matchLabels as Record<string, string>).every(([k, v]) => labels[k] === v),
            );
            expect(pdbs, `${w.metadata.name} PDB`).to.have.length(1);
            const { maxUnavailable, minAvailable } = pdbs[0].spec;
            expect(
                maxUnavailable === 1 || (typeof minAvailable === "number" && minAvailable === w.spec.replicas - 1),
                `${w.metadata.name} PDB allows one`,
            ).to.equal(true);
        }
    });

    it("passes the real policy pack with its prod config, evaluated by at least one policy", async () => {
        const r = await check("--env", "prod", "examples");
        expect(r.code, `${r.stdout}\n${r.stderr}`).to.equal(0);
        const summary = /^(\d+) mandatory, (\d+) advisory, (\d+) policies evaluated over (\d+) resources/m.exec(r.stdout);
        expect(summary, r.stdout).to.not.equal(null);
        expect(Number(summary![3]), "policies evaluated").to.be.greaterThan(0);
        expect(Number(summary![4])).to.equal(objects.length);
    });
});

describe("policy check: what the pack is sent", () => {
    /** A CustomResourceDefinition with a large schema, as operators ship them. */
    function crd(apiVersion: string): Record<string, unknown> {
        const properties: Record<string, unknown> = {};
        for (let i = 0; i < 2000; i++) {
            properties[`field${i}`] = { type: "string", description: `Field ${i} of the widget, documented at length `.repeat(4) };
        }
        return {
            apiVersion,
            kind: "CustomResourceDefinition",
            metadata: { name: "widgets.example.com", annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" } },
            spec: {
                group: "example.com",
                names: { kind: "Widget", plural: "widgets" },
                scope: "Namespaced",
                versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties } } }],
            },
        };
    }
    const extras = [
        crd("apiextensions.k8s.io/v1"),
        { ...crd("apiextensions.k8s.io/v1beta1"), metadata: { name: "gadgets.example.com" } },
        {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "settings", namespace: "web", labels: { app: "web" } },
            data: { "nginx.conf": "x".repeat(50_000) },
        },
        {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: "tls", namespace: "web" },
            type: "kubernetes.io/tls",
            data: { "tls.key": "c2VjcmV0" },
        },
    ];

    it("sends only the identity of CRDs, ConfigMaps and Secrets, and every other object whole", () => {
        const sent = packProps(extras[2]);
        expect(sent).to.deep.equal({
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "settings", namespace: "web", labels: { app: "web" } },
        });
        expect(JSON.stringify(packProps(extras[0])).length).to.be.lessThan(200);
        expect(JSON.stringify(extras[0]).length).to.be.greaterThan(200_000);
        const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" }, spec: { replicas: 2 } };
        expect(packProps(deployment)).to.equal(deployment);
    });

    it("gives every policy of the pack the same verdicts on whole and trimmed objects", async () => {
        const objects = [
            ...fs
                .readdirSync(path.join(ROOT, "examples"))
                .filter((f) => f.endsWith(".yaml"))
                .flatMap((f) => parseManifests(fs.readFileSync(path.join(ROOT, "examples", f), "utf8"), f).map((m) => m.object)),
            ...extras,
        ];
        const as = (trim: boolean): TestResource[] =>
            objects.map((o, i) => ({
                type: typeToken(o.apiVersion as string, o.kind as string),
                name: `r${i}`,
                props: JSON.parse(JSON.stringify(trim ? packProps(o) : o)) as Record<string, unknown>,
            }));
        const config = JSON.parse(fs.readFileSync(path.join(ROOT, "policies", "config", "prod.json"), "utf8")) as Record<string, unknown>;
        const verdicts = async (resources: TestResource[]) => {
            const out: Record<string, unknown> = {};
            for (const p of policies) {
                const entry = config[p.name];
                // Policies drop enforcementLevel from their config themselves (readConfig).
                const props = typeof entry === "object" && entry ? entry : {};
                out[p.name] =
                    "validateStack" in p
                        ? await runStack(p, resources, props, MANIFEST_TAGS)
                        : await Promise.all(resources.map((r) => runResource(p, r, props)));
            }
            return out;
        };
        const whole = await verdicts(as(false));
        expect(await verdicts(as(true))).to.deep.equal(whole);
        // The trimmed objects were judged, not skipped: the v1beta1 CRD is refused either way.
        expect(JSON.stringify(whole["api-versions-served"])).to.include(
            "CustomResourceDefinition gadgets.example.com uses apiVersion apiextensions.k8s.io/v1beta1",
        );
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
