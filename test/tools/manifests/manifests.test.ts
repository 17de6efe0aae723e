import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { policies } from "eks-platform-policies";
import { InputError } from "../../../tools/cli/errors";
import {
    collectFiles,
    Hold,
    ManifestError,
    packProps,
    parseManifests,
    readManifests,
    toResources,
    typeToken,
} from "../../../tools/manifests/manifests";
import { MAX_ALIAS_COUNT } from "../../../tools/cli/yamlInput";
import { ROOT } from "../../mocks";
import { MANIFEST_TAGS, runResource, runStack, TestResource } from "../../policies/harness";
import { aliasBomb, tooDeep } from "../hostileYaml";

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

    it("gives the line of a field, its nearest written ancestor's when it is not written, the same whether the documents were kept or parsed again", () => {
        const text = [
            "apiVersion: v1", // 1
            "kind: ConfigMap", // 2
            "metadata:", // 3
            "  name: a", // 4
            "data: { k: v }", // 5
            "---", // 6
            "apiVersion: v1", // 7
            "kind: List", // 8
            "items:", // 9
            "  - apiVersion: apps/v1", // 10
            "    kind: Deployment", // 11
            "    metadata: { name: c }", // 12
            "    spec:", // 13
            "      template:", // 14
            "        spec:", // 15
            "          containers:", // 16
            "            - name: app", // 17
            "              image: app:1", // 18
            "            - name: side", // 19
            "              image: side:1", // 20
        ].join("\n");
        const asked: [number, (string | number)[], number][] = [
            [0, [], 1],
            [0, ["metadata", "name"], 4],
            [0, ["data", "k"], 5],
            [0, ["metadata", "labels", "x"], 3],
            [1, ["metadata", "name"], 12],
            [1, ["spec", "template", "spec", "containers", 1, "image"], 20],
            [1, ["spec", "template", "spec", "containers", 0], 17],
            [1, ["spec", "template", "spec", "containers", 5, "image"], 16],
            [1, ["spec", "replicas"], 13],
        ];
        const kept: Hold = (value) => () => value;
        const forgotten: Hold = () => () => undefined;
        for (const [how, hold] of [
            ["kept", kept],
            ["parsed again", forgotten],
            ["held weakly", undefined],
        ] as const) {
            const objects = parseManifests(text, "m.yaml", hold);
            expect(
                objects.map((o) => o.line),
                how,
            ).to.deep.equal([1, 10]);
            for (const [i, at, line] of asked) {
                expect(objects[i].lineOf?.(at), `${how}: ${at.join(".")}`).to.equal(line);
            }
        }
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
    it("refuses a file that is not UTF-8 as kubectl does, naming the file and the line of the first bad byte, and reads UTF-8 with a BOM or multi-byte text", () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "utf8-"));
        const bad = path.join(dir, "bad.yaml");
        fs.writeFileSync(
            bad,
            Buffer.concat([
                Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x, namespace: a }\ndata: { k: "'),
                Buffer.from([0xff, 0xfe]),
                Buffer.from('" }\n'),
            ]),
        );
        expect(() => readManifests([bad])).to.throw(
            ManifestError,
            /bad\.yaml:4: not valid UTF-8 \(byte 0xff at offset 79\): kubectl and the API server refuse it/,
        );
        // A truncated multi-byte sequence at the very end is invalid too.
        const cut = path.join(dir, "cut.yaml");
        fs.writeFileSync(cut, Buffer.concat([Buffer.from("a: b\n"), Buffer.from([0xc3])]));
        expect(() => readManifests([cut])).to.throw(ManifestError, /cut\.yaml:2: not valid UTF-8 \(byte 0xc3 at offset 5\)/);
        const good = path.join(dir, "good.yaml");
        fs.writeFileSync(
            good,
            Buffer.concat([
                Buffer.from([0xef, 0xbb, 0xbf]),
                Buffer.from(
                    'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x, namespace: a }\ndata: { k: "caf\u00e9 \u2713" }\n',
                    "utf8",
                ),
            ]),
        );
        expect(readManifests([good]).map((m) => (m.object.data as Record<string, string>).k)).to.deep.equal(["caf\u00e9 \u2713"]);
        // Standard input too.
        expect(() => readManifests(["-"], () => Buffer.from([0x61, 0x3a, 0x20, 0xff]))).to.throw(
            ManifestError,
            /<stdin>:1: not valid UTF-8/,
        );
        fs.rmSync(dir, { recursive: true, force: true });
    });
});
