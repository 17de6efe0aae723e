import { expect } from "chai";
import { objectProblems } from "../../tools/schema";

const deployment = (): Record<string, unknown> => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "shop", labels: { app: "web" } },
    spec: {
        replicas: 3,
        selector: { matchLabels: { app: "web" } },
        template: {
            metadata: { labels: { app: "web" } },
            spec: { containers: [{ name: "web", image: "nginx:1.27.5", lifecycle: { preStop: { sleep: { seconds: 5 } } } }] },
        },
    },
});

/** `deployment()` with the value at `path` replaced. */
function withValue(path: (string | number)[], value: unknown): Record<string, unknown> {
    const o = deployment();
    let node = o as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) {
        node = node[key] as Record<string | number, unknown>;
    }
    node[path[path.length - 1]] = value;
    return o;
}

describe("schema: objects as the API server validates them (official OpenAPI schemas)", function () {
    this.timeout(60_000);

    it("finds nothing wrong with a valid object", async () => {
        expect(await objectProblems(deployment())).to.deep.equal({ status: "validated", problems: [] });
    });

    it("names the path and the wrong type of every badly typed field", async () => {
        const C = ["spec", "template", "spec", "containers"];
        for (const [path, value, message] of [
            [["spec", "replicas"], "3", /^spec\.replicas is the string "3", not an integer$/],
            [["spec", "replicas"], Infinity, /^spec\.replicas is number Infinity, not an integer$/],
            [["spec", "replicas"], 1e10, /^spec\.replicas is 10000000000, which does not fit int32$/],
            [["metadata"], "str", /^metadata is the string "str", not an object$/],
            [["spec"], [], /^spec is a list, not an object$/],
            [["spec", "template", "metadata", "labels"], ["app=web"], /^spec\.template\.metadata\.labels is a list, not an object$/],
            [C, { web: { image: "nginx" } }, /^spec\.template\.spec\.containers is a map, not a list$/],
            [
                [...C, 0, "lifecycle", "preStop", "sleep", "seconds"],
                "5",
                /^spec\.template\.spec\.containers\[0\]\.lifecycle\.preStop\.sleep\.seconds is the string "5", not an integer$/,
            ],
        ] as const) {
            const result = await objectProblems(withValue([...path], value));
            expect(result.status, path.join(".")).to.equal("validated");
            expect(
                result.problems.map((p) => p.message),
                path.join("."),
            ).to.have.length(1);
            expect(result.problems[0].message).to.match(message);
            expect(result.problems[0].path).to.deep.equal(path);
        }
    });

    it("validates names as the API server does, naming invisible and bidirectional characters", async () => {
        const bidi = await objectProblems(withValue(["metadata", "name"], "web\u202e"));
        expect(bidi.problems.map((p) => p.message)).to.deep.equal([
            'metadata.name "web\u202e" is not a DNS-1123 subdomain (lower-case letters, digits, "-" and ".", starting and ending with a letter or digit, at most 253 characters): it contains U+202E (invisible, control or bidirectional characters)',
        ]);
        expect((await objectProblems(withValue(["metadata", "name"], "web\u200b"))).problems[0].message).to.include("U+200B");
        expect((await objectProblems(withValue(["metadata", "namespace"], "Shop"))).problems[0].message).to.match(
            /^metadata\.namespace "Shop" is not a DNS-1123 label/,
        );
        expect((await objectProblems(withValue(["metadata", "name"], undefined))).problems[0].message).to.match(
            /metadata\.name: name or generateName is required/,
        );
        const service = { apiVersion: "v1", kind: "Service", metadata: { name: "1web" }, spec: { ports: [{ port: 80 }] } };
        expect((await objectProblems(service)).problems[0].message).to.match(/^metadata\.name "1web" is not a DNS-1035 label/);
        expect((await objectProblems(withValue(["metadata", "labels"], { "app/": "web" }))).problems[0].message).to.match(
            /^metadata\.labels: .*"app\/" is not a valid label key/,
        );
    });

    it("refuses a kind under an apiVersion that does not serve it, naming the ones that do", async () => {
        const pdb = { apiVersion: "v1", kind: "PodDisruptionBudget", metadata: { name: "web" }, spec: { maxUnavailable: 1 } };
        const result = await objectProblems(pdb);
        expect(result.status).to.equal("validated");
        expect(result.problems).to.deep.equal([
            {
                path: ["apiVersion"],
                message:
                    'apiVersion v1 does not serve kind PodDisruptionBudget (the API server answers "no matches for kind"): it is served as policy/v1 (policy/v1beta1 in older releases)',
            },
        ]);
        expect((await objectProblems({ ...pdb, apiVersion: "apps/v1", kind: "Deploymnet" })).problems[0].message).to.match(
            /^apps\/v1 has no kind Deploymnet/,
        );
    });

    it("says a custom resource without a known schema is unvalidated, never valid", async () => {
        const scaled = { apiVersion: "keda.sh/v1alpha1", kind: "ScaledObject", metadata: { name: "web" }, spec: {} };
        expect(await objectProblems(scaled)).to.deep.equal({
            status: "unvalidated",
            problems: [],
            reason: "no schema is known for keda.sh/v1alpha1 ScaledObject: its CRD's validation was not applied",
        });
        // Names are the API server's own rule for every kind, custom resources too.
        expect((await objectProblems({ ...scaled, metadata: { name: "Web" } })).problems[0].message).to.match(/metadata\.name "Web"/);
    });

    it("takes CRD groups under k8s.io for the custom resources they are (Gateway API, volume snapshots), never refused", async () => {
        for (const [apiVersion, kind] of [
            ["gateway.networking.k8s.io/v1", "HTTPRoute"],
            ["snapshot.storage.k8s.io/v1", "VolumeSnapshot"],
        ]) {
            const result = await objectProblems({ apiVersion, kind, metadata: { name: "web", namespace: "shop" }, spec: {} });
            expect(result, `${apiVersion} ${kind}`).to.deep.include({ status: "unvalidated", problems: [] });
        }
    });

    it("validates Karpenter objects against their CRD schemas", async () => {
        const pool = {
            apiVersion: "karpenter.sh/v1",
            kind: "NodePool",
            metadata: { name: "general" },
            spec: { template: { spec: { requirements: "all" } } },
        };
        const result = await objectProblems(pool);
        expect(result.status).to.equal("validated");
        expect(result.problems.map((p) => p.message).join("\n")).to.match(
            /spec\.template\.spec\.requirements is the string "all", not a list/,
        );
    });
});
