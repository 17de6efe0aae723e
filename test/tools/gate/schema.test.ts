import { expect } from "chai";
import { UNKNOWN_SENTINELS } from "eks-platform-kernel";
import {
    API_SERVER_VALIDATION,
    API_SERVER_VALIDATION_DESCRIPTION,
    API_SERVER_VALIDATION_DOCS,
    importModel,
    NOT_API_OBJECTS,
    objectProblems,
    parseTypeToken,
    scanServedVersions,
    validateKubernetesObject,
    validateObjects,
} from "../../../tools/gate/schema";

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

    it("says an enum value, a missing required field and a failed pattern as the schema states them (Ajv enum, required, pattern)", async () => {
        const C = ["spec", "template", "spec", "containers", 0];
        expect((await objectProblems(withValue([...C, "imagePullPolicy"], "Sometimes"))).problems).to.deep.equal([
            {
                path: [...C, "imagePullPolicy"],
                message: 'spec.template.spec.containers[0].imagePullPolicy is "Sometimes", not one of "Always", "IfNotPresent", "Never"',
            },
        ]);
        expect((await objectProblems(withValue([...C, "name"], undefined))).problems).to.deep.equal([
            { path: C, message: "spec.template.spec.containers[0].name is required" },
        ]);
        const pool = {
            apiVersion: "karpenter.sh/v1",
            kind: "NodePool",
            metadata: { name: "general" },
            spec: {
                disruption: { consolidateAfter: "1m", budgets: [{ nodes: "ten" }] },
                template: {
                    spec: { requirements: [], nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" } },
                },
            },
        };
        expect((await objectProblems(pool)).problems).to.deep.equal([
            {
                path: ["spec", "disruption", "budgets", 0, "nodes"],
                message: 'spec.disruption.budgets[0].nodes: must match pattern "^((100|[0-9]{1,2})%|[0-9]+)$"',
            },
        ]);
        // The object itself is named when the problem is at its root.
        expect(
            (await objectProblems({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: "x" })).problems[0].message,
        ).to.equal('data is the string "x", not an object');
    });

    it("decodes JSON-pointer escapes in the path of a key with / or ~ (RFC 6901)", async () => {
        const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { "a/b": 1, "c~d": true } };
        expect((await objectProblems(cm)).problems).to.deep.equal([
            { path: ["data", "a/b"], message: "data.a/b is number 1, not a string" },
            { path: ["data", "c~d"], message: "data.c~d is boolean true, not a string" },
        ]);
    });

    it("names the type a field should have: booleans and numbers (quantities) too", async () => {
        expect((await objectProblems(withValue(["spec", "paused"], "yes"))).problems).to.deep.equal([
            { path: ["spec", "paused"], message: 'spec.paused is the string "yes", not a boolean' },
        ]);
        const quota = { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "q" }, spec: { hard: { pods: true } } };
        expect((await objectProblems(quota)).problems.map((p) => p.message)).to.include("spec.hard.pods is boolean true, not a number");
    });

    it("reads a path segment as a list index only when it is all digits", async () => {
        const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a1: 1, "1a": 2 } };
        expect((await objectProblems(cm)).problems.map((p) => p.path)).to.deep.equal([
            ["data", "a1"],
            ["data", "1a"],
        ]);
        const containers = Array.from({ length: 11 }, (_, i) => ({ name: `c${i}`, image: "nginx" }));
        containers[10] = { name: "c10", image: 5 } as unknown as (typeof containers)[number];
        const result = await objectProblems(withValue(["spec", "template", "spec", "containers"], containers));
        expect(result.problems).to.deep.equal([
            {
                path: ["spec", "template", "spec", "containers", 10, "image"],
                message: "spec.template.spec.containers[10].image is number 5, not a string",
            },
        ]);
    });

    it("leaves a value unknown at preview to the policies (the engine's marker is not refused)", async () => {
        expect(await objectProblems(withValue(["spec", "replicas"], UNKNOWN_SENTINELS.number))).to.deep.equal({
            status: "validated",
            problems: [],
        });
        expect((await objectProblems(withValue(["spec", "replicas"], "three"))).problems).to.have.length(1);
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

    it("validates metadata.generateName as the API server does: a valid prefix accepted, an invalid one refused (apimachinery ValidateObjectMetaAccessor, maskTrailingDash)", async () => {
        const problems = async (metadata: Record<string, unknown>) =>
            (await objectProblems({ apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: "shop", ...metadata } })).problems;
        const SUBDOMAIN =
            'a DNS-1123 subdomain (lower-case letters, digits, "-" and ".", starting and ending with a letter or digit, at most 253 characters)';
        expect(await problems({ generateName: "web-" })).to.deep.equal([]);
        expect(await problems({ generateName: "web.config-" })).to.deep.equal([]);
        expect(await problems({ generateName: "Web-" })).to.deep.equal([
            { path: ["metadata", "generateName"], message: `metadata.generateName "Web-" is not the start of ${SUBDOMAIN}` },
        ]);
        // The prefix is validated even when a name is given (and then names nothing).
        expect(await problems({ name: "web", generateName: "web_" })).to.deep.equal([
            { path: ["metadata", "generateName"], message: `metadata.generateName "web_" is not the start of ${SUBDOMAIN}` },
        ]);
        // "A-" passes as a prefix (checked as "a"), but the names made of it do not.
        expect(await problems({ generateName: "A-" })).to.deep.equal([
            {
                path: ["metadata", "generateName"],
                message: `metadata.generateName "A-" makes names that are not ${SUBDOMAIN}: the API server names the object with it (its first 58 characters) and 5 random letters and digits, e.g. "A-x7k2p"`,
            },
        ]);
        expect(await problems({ name: "web", generateName: "A-" })).to.deep.equal([]);
    });

    it("takes an empty name or generateName for an absent one: one of them is required (ValidateObjectMetaAccessor)", async () => {
        const required = [{ path: ["metadata"], message: "metadata.name: name or generateName is required" }];
        for (const metadata of [{}, { name: "" }, { generateName: "" }, { name: "", generateName: "" }]) {
            const cm = { apiVersion: "v1", kind: "ConfigMap", metadata };
            expect((await objectProblems(cm)).problems, JSON.stringify(metadata)).to.deep.equal(required);
        }
        // A path-segment name rule accepts "" as a name, but the API server never gets that far.
        const role = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "", namespace: "shop" } };
        expect((await objectProblems(role)).problems).to.deep.equal(required);
        expect((await objectProblems({ ...role, metadata: { generateName: "reader-", namespace: "shop" } })).problems).to.deep.equal([]);
    });

    it("points name, namespace, label and annotation problems at their field, and judges label values only when they are strings", async () => {
        const cm = {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: {
                name: "Web",
                namespace: "Shop",
                labels: { app: "-web", tier: 3 },
                annotations: { "example.com/ok": "x", "bad key": "x" },
            },
        };
        const problems = (await objectProblems(cm)).problems;
        expect(problems.map((p) => p.path)).to.deep.equal([
            ["metadata", "labels", "tier"],
            ["metadata", "name"],
            ["metadata", "namespace"],
            ["metadata", "labels", "app"],
            ["metadata", "annotations", "bad key"],
        ]);
        expect(problems[3].message).to.match(/^metadata\.labels: "-web" is not a valid label value/);
        expect(problems[4].message).to.match(/^metadata\.annotations: "bad key" is not a valid annotation key/);
        expect(problems[4].message).to.not.include("label key");
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
        expect(await objectProblems({ ...pdb, apiVersion: "apps/v1", kind: "Deploymnet" })).to.deep.equal({
            status: "validated",
            problems: [{ path: ["kind"], message: 'apps/v1 has no kind Deploymnet (the API server answers "no matches for kind")' }],
        });
        // A built-in group that serves other kinds than this one: the kind is known elsewhere, so it says where.
        expect((await objectProblems({ ...pdb, apiVersion: "batch/v1", kind: "Deployment" })).problems[0].message).to.equal(
            'apiVersion batch/v1 does not serve kind Deployment (the API server answers "no matches for kind"): it is served as apps/v1 (apps/v1beta1, apps/v1beta2, extensions/v1beta1 in older releases)',
        );
        // Only older versions: all of them, no "older releases".
        expect((await objectProblems({ ...pdb, kind: "PodSecurityPolicy" })).problems[0].message).to.equal(
            'apiVersion v1 does not serve kind PodSecurityPolicy (the API server answers "no matches for kind"): it is served as extensions/v1beta1, policy/v1beta1',
        );
        expect((await objectProblems({ ...pdb, apiVersion: "apps/v1", kind: "Pod" })).problems[0].message).to.match(
            /: it is served as v1$/,
        );
        // Several stable versions: each named.
        expect((await objectProblems({ ...pdb, kind: "HorizontalPodAutoscaler" })).problems[0].message).to.match(
            /: it is served as autoscaling\/v1, autoscaling\/v2 \(autoscaling\/v2beta1, autoscaling\/v2beta2 in older releases\)$/,
        );
        // A kind of the same name in a group the packages do not know is a custom resource of its own, never refused.
        expect(await objectProblems({ ...pdb, apiVersion: "example.com/v1", kind: "Deployment" })).to.deep.equal({
            status: "unvalidated",
            problems: [],
            reason: "no schema is known for example.com/v1 Deployment: its CRD's validation was not applied",
        });
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

    it("reads Pulumi Kubernetes type tokens: group, version, kind; anything else is no token", () => {
        expect(parseTypeToken("kubernetes:apps/v1:Deployment")).to.deep.equal({ group: "apps", version: "v1", kind: "Deployment" });
        expect(parseTypeToken("kubernetes:core/v1:ConfigMap")).to.deep.equal({ group: "core", version: "v1", kind: "ConfigMap" });
        for (const bad of [
            "aws:iam/role:Role",
            "kubernetes:apps/v1",
            "xkubernetes:apps/v1:Deployment",
            "kubernetes:v1:Pod",
            "kubernetes:apps/v1:Deployment\nx",
        ]) {
            expect(parseTypeToken(bad), bad).to.equal(undefined);
        }
    });

    it("validates program inputs by type token, and throws for a type with no schema, never passing it", async () => {
        await validateKubernetesObject("kubernetes:core/v1:ConfigMap", { metadata: { name: "c" }, data: { a: "b" } });
        await validateKubernetesObject("kubernetes:karpenter.sh/v1:NodePool", {
            metadata: { name: "general" },
            spec: {
                template: {
                    spec: { requirements: [], nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" } },
                },
            },
        });
        const refused = async (type: string, props: Record<string, unknown>) =>
            validateKubernetesObject(type, props).then(
                () => expect.fail(`${type} accepted`),
                (err: Error) => err.message,
            );
        expect(await refused("kubernetes:core/v1:ConfigMap", { metadata: { name: "c" }, data: { a: 1 } })).to.match(/must be string/);
        expect(await refused("kubernetes:apps/v1:Deployment", { metadata: { name: "w" }, spec: { replicas: "3" } })).to.match(/replicas/);
        expect(await refused("aws:iam/role:Role", {})).to.equal("aws:iam/role:Role is not a Kubernetes type token");
        expect(await refused("kubernetes:example.com/v1:Widget", {})).to.equal(
            "kubernetes-models/example.com/v1/Widget: no schema for example.com/v1 Widget",
        );
        expect(await refused("kubernetes:core/v1:Widget", {})).to.equal("kubernetes-models/v1/Widget: no schema for v1 Widget");
        expect(await refused("kubernetes:karpenter.sh/v1:Widget", {})).to.equal(
            "@kubernetes-models/karpenter/karpenter.sh/v1/Widget: no schema for karpenter.sh/v1 Widget",
        );
        await validateKubernetesObject("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", {
            metadata: { name: "default" },
            spec: {
                role: "node",
                amiSelectorTerms: [{ alias: "al2023@latest" }],
                subnetSelectorTerms: [{ tags: { a: "b" } }],
                securityGroupSelectorTerms: [{ tags: { a: "b" } }],
            },
        });
        // Pulumi types that are no API objects have no schema: callers skip them.
        expect([...NOT_API_OBJECTS].sort()).to.deep.equal([
            "kubernetes:helm.sh/v3:Release",
            "kubernetes:helm.sh/v4:Chart",
            "kubernetes:yaml/v2:ConfigGroup",
        ]);
        for (const type of NOT_API_OBJECTS) {
            expect(await refused(type, {}), type).to.match(/: no schema for /);
        }
        // A module of the package that is a sub-type, not a kind, is no schema of a kind.
        expect(await refused("kubernetes:policy/v1:PodDisruptionBudgetSpec", {})).to.match(
            /no schema for policy\/v1 PodDisruptionBudgetSpec$/,
        );
    });

    it("imports a kind's model only: a missing module or a sub-type is no model (uncached, as loadModel first reads it)", async () => {
        expect((await importModel("kubernetes-models/apps/v1/Deployment", "Deployment"))?.name).to.equal("Deployment");
        expect(await importModel("kubernetes-models/policy/v1/PodDisruptionBudgetSpec", "PodDisruptionBudgetSpec")).to.equal(undefined);
        expect(await importModel("kubernetes-models/apps/v1/Deployment", "StatefulSet")).to.equal(undefined);
        expect(await importModel("kubernetes-models/apps/v1/Widget", "Widget")).to.equal(undefined);
        expect(await importModel("kubernetes-models/nope/v1/Widget", "Widget")).to.equal(undefined);
    });

    it("finds the apiVersions of every kind in the schema packages' files, core and Karpenter included, nothing else", () => {
        const served = scanServedVersions();
        expect(served.get("PodDisruptionBudget")).to.deep.equal(["policy/v1", "policy/v1beta1"]);
        expect(served.get("Pod")).to.deep.equal(["v1"]);
        expect(served.get("NodePool")).to.deep.equal(["karpenter.sh/v1"]);
        expect(served.get("EC2NodeClass")).to.deep.equal(["karpenter.k8s.aws/v1"]);
        expect(served.get("HorizontalPodAutoscaler")).to.deep.equal([
            "autoscaling/v1",
            "autoscaling/v2",
            "autoscaling/v2beta1",
            "autoscaling/v2beta2",
        ]);
        // Sub-types and index modules are no kinds.
        expect(served.has("ObjectMeta")).to.equal(false);
        expect(served.has("PodDisruptionBudgetSpec")).to.equal(false);
        expect([...served.values()].flat().every((v) => /^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/.test(v))).to.equal(true);
        expect(served.size).to.be.greaterThan(100);
    });

    it("turns every refusal into a mandatory verdict at the line of the field, and counts what it validated", async () => {
        const located = (urn: string, object: Record<string, unknown>) => ({
            urn,
            object,
            subject: `${String(object.kind)} shop/web`,
            lineOf: (at: readonly (string | number)[]) => 10 + at.length,
        });
        const result = await validateObjects([
            located("urn:ok", deployment()),
            located("urn:bad", withValue(["spec", "replicas"], "3")),
            located("urn:pdb", { apiVersion: "v1", kind: "PodDisruptionBudget", metadata: { name: "web" }, spec: {} }),
            located("urn:keda", { apiVersion: "keda.sh/v1alpha1", kind: "ScaledObject", metadata: { name: "web" }, spec: {} }),
            located("urn:typo", { apiVersion: "apps/v1", kind: "Deploymnet", metadata: { name: "web" } }),
        ]);
        expect(result.validated).to.equal(4);
        expect(result.unvalidated).to.deep.equal([
            { urn: "urn:keda", reason: "no schema is known for keda.sh/v1alpha1 ScaledObject: its CRD's validation was not applied" },
        ]);
        expect(result.diagnostics).to.deep.equal([
            {
                policy: API_SERVER_VALIDATION,
                level: "mandatory",
                urn: "urn:bad",
                message:
                    'Deployment shop/web would be refused by the API server: spec.replicas is the string "3", not an integer. Why: kubectl apply, Helm and Pulumi fail on it and nothing of the object is created; no policy judged it, since the cluster would never hold it. Fix: write spec.replicas as the Kubernetes API reference defines it for apps/v1 Deployment.',
                undeterminable: false,
                line: 12,
            },
            {
                policy: API_SERVER_VALIDATION,
                level: "mandatory",
                urn: "urn:pdb",
                message:
                    'PodDisruptionBudget shop/web would be refused by the API server: apiVersion v1 does not serve kind PodDisruptionBudget (the API server answers "no matches for kind"): it is served as policy/v1 (policy/v1beta1 in older releases). Why: kubectl apply, Helm and Pulumi fail on it and nothing of the object is created; no policy judged it, since the cluster would never hold it. Fix: use an apiVersion and kind the cluster serves, as named above.',
                undeterminable: false,
                line: 11,
            },
            {
                policy: API_SERVER_VALIDATION,
                level: "mandatory",
                urn: "urn:typo",
                message:
                    'Deploymnet shop/web would be refused by the API server: apps/v1 has no kind Deploymnet (the API server answers "no matches for kind"). Why: kubectl apply, Helm and Pulumi fail on it and nothing of the object is created; no policy judged it, since the cluster would never hold it. Fix: use an apiVersion and kind the cluster serves, as named above.',
                undeterminable: false,
                line: 11,
            },
        ]);
        expect(API_SERVER_VALIDATION).to.equal("api-server-validation");
        expect(API_SERVER_VALIDATION_DESCRIPTION).to.match(/^Objects are ones the API server accepts: the official schema/);
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

describe("schema: what the API server refuses beyond the OpenAPI schema (kubernetes v1.34 validation)", () => {
    const problems = async (o: Record<string, unknown>) => (await objectProblems(o)).problems.map((p) => [p.path.join("."), p.message]);
    const spread = (...constraints: Record<string, unknown>[]) => {
        const o = deployment();
        ((o.spec as Record<string, any>).template.spec as Record<string, unknown>).topologySpreadConstraints = constraints;
        return o;
    };
    const zone = {
        maxSkew: 1,
        topologyKey: "topology.kubernetes.io/zone",
        whenUnsatisfiable: "DoNotSchedule",
        labelSelector: { matchLabels: { app: "web" } },
    };

    it("refuses a negative replicas (ValidateNonnegativeField) of every replicated kind, and takes 0", async () => {
        expect(await problems(withValue(["spec", "replicas"], -1))).to.deep.equal([
            ["spec.replicas", "spec.replicas: Invalid value: -1: must be greater than or equal to 0"],
        ]);
        expect(await problems(withValue(["spec", "replicas"], 0))).to.deep.equal([]);
        const sts: Record<string, unknown> = { ...withValue(["spec", "replicas"], -2), kind: "StatefulSet" };
        (sts.spec as Record<string, unknown>).serviceName = "web";
        expect((await problems(sts)).map((p) => p[0])).to.deep.equal(["spec.replicas"]);
        const rc = {
            apiVersion: "v1",
            kind: "ReplicationController",
            metadata: { name: "rc", namespace: "shop" },
            spec: { replicas: -1, selector: { app: "rc" }, template: (deployment().spec as Record<string, unknown>).template },
        };
        expect((await problems(rc)).map((p) => p[0])).to.deep.equal(["spec.replicas"]);
    });

    it("refuses a budget's negative value and both values set (ValidatePodDisruptionBudgetSpec), at their fields", async () => {
        const pdb = (spec: Record<string, unknown>) => ({
            apiVersion: "policy/v1",
            kind: "PodDisruptionBudget",
            metadata: { name: "b", namespace: "shop" },
            spec: { selector: { matchLabels: { app: "web" } }, ...spec },
        });
        expect(await problems(pdb({ maxUnavailable: 1 }))).to.deep.equal([]);
        expect((await problems(pdb({ maxUnavailable: -1 })))[0]).to.deep.equal([
            "spec.maxUnavailable",
            "it sets maxUnavailable to -1, which is negative",
        ]);
        expect((await problems(pdb({ minAvailable: 1, maxUnavailable: 1 }))).map((p) => p[0])).to.deep.equal(["spec"]);
    });

    it("refuses topology spread constraints validateTopologySpreadConstraints refuses: maxSkew and minDomains above zero, minDomains only with DoNotSchedule, no duplicate key and action (the schema holds the actions)", async () => {
        const at = "spec.template.spec.topologySpreadConstraints.0";
        expect(await problems(spread(zone))).to.deep.equal([]);
        expect(await problems(spread({ ...zone, maxSkew: 0 }))).to.deep.equal([
            [`${at}.maxSkew`, "spec.template.spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"],
        ]);
        expect((await problems(spread({ ...zone, maxSkew: -1 }))).map((p) => p[0])).to.deep.equal([`${at}.maxSkew`]);
        expect((await problems(spread({ ...zone, minDomains: 0 }))).map((p) => p[1])).to.deep.equal([
            "spec.template.spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: must be greater than zero",
        ]);
        expect(await problems(spread({ ...zone, minDomains: 3 }))).to.deep.equal([]);
        expect((await problems(spread({ ...zone, whenUnsatisfiable: "ScheduleAnyway", minDomains: 3 }))).map((p) => p[1])).to.deep.equal([
            "spec.template.spec.topologySpreadConstraints[0].minDomains: Invalid value: 3: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
        ]);
        expect((await problems(spread({ ...zone, whenUnsatisfiable: "Never" }))).map((p) => p[1])).to.deep.equal([
            'spec.template.spec.topologySpreadConstraints[0].whenUnsatisfiable is "Never", not one of "DoNotSchedule", "ScheduleAnyway"',
        ]);
        // The same key with the other action is allowed; the same key and action twice is not.
        expect(await problems(spread(zone, { ...zone, whenUnsatisfiable: "ScheduleAnyway" }))).to.deep.equal([]);
        expect((await problems(spread(zone, { ...zone, maxSkew: 2 }))).map((p) => p[0])).to.deep.equal([
            "spec.template.spec.topologySpreadConstraints.1.topologyKey",
        ]);
    });

    it("points each refused constraint at its field and says the duplicate's key and action; a constraint is a duplicate only with the same topologyKey and whenUnsatisfiable (validateTopologySpreadConstraints)", async () => {
        const at = "spec.template.spec.topologySpreadConstraints";
        expect((await problems(spread({ ...zone, minDomains: 0 }))).map((p) => p[0])).to.deep.equal([`${at}.0.minDomains`]);
        expect((await problems(spread({ ...zone, whenUnsatisfiable: "ScheduleAnyway", minDomains: 2 }))).map((p) => p[0])).to.deep.equal([
            `${at}.0.minDomains`,
        ]);
        const host = { ...zone, topologyKey: "kubernetes.io/hostname" };
        expect(await problems(spread(zone, host))).to.deep.equal([]);
        expect(await problems(spread(zone, host, { ...zone, maxSkew: 3 }))).to.deep.equal([
            [
                `${at}.2.topologyKey`,
                `${at}[2].topologyKey: Duplicate value: a constraint with topologyKey topology.kubernetes.io/zone and whenUnsatisfiable DoNotSchedule is already set`,
            ],
        ]);
    });

    it("leaves a constraint without whenUnsatisfiable to the schema (a required field), not to the minDomains rule", async () => {
        const { whenUnsatisfiable, ...without } = zone;
        expect(whenUnsatisfiable).to.equal("DoNotSchedule");
        const found = await problems(spread({ ...without, minDomains: 2 }));
        // Ajv's `required` points at the object that lacks the field.
        expect(found.map((p) => p[0])).to.deep.equal(["spec.template.spec.topologySpreadConstraints.0"]);
        expect(found[0][1]).to.match(/whenUnsatisfiable/);
        expect(found[0][1]).to.not.match(/minDomains/);
    });

    it("says in its SARIF rule help (its docs) what it requires, and names each rule it applies beyond the schema", () => {
        expect(API_SERVER_VALIDATION_DOCS.requires).to.match(/API server would accept/);
        for (const rule of [
            "OpenAPI schema",
            "names",
            "label keys",
            "replicas",
            "maxSkew",
            "minDomains",
            "DoNotSchedule",
            "topologyKey",
            "whenUnsatisfiable",
            "UTF-8",
        ]) {
            expect(API_SERVER_VALIDATION_DOCS.checks, rule).to.include(rule);
        }
    });

    it("reads topology spread constraints of workloads only: a NodePool's spec.template.spec is a node template, not a pod's", async () => {
        const pool = {
            apiVersion: "karpenter.sh/v1",
            kind: "NodePool",
            metadata: { name: "general" },
            spec: {
                template: {
                    spec: {
                        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
                        requirements: [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] }],
                        topologySpreadConstraints: [{ ...zone, maxSkew: 0 }, zone],
                    },
                },
            },
        };
        expect((await problems(pool)).filter(([, message]) => /maxSkew|Duplicate/.test(message))).to.deep.equal([]);
    });

    it("reads a Pod's and a CronJob's constraints at their own paths", async () => {
        const pod = {
            apiVersion: "v1",
            kind: "Pod",
            metadata: { name: "p", namespace: "shop" },
            spec: { containers: [{ name: "c", image: "nginx:1.27.5" }], topologySpreadConstraints: [{ ...zone, maxSkew: 0 }] },
        };
        expect((await problems(pod)).map((p) => p[0])).to.deep.equal(["spec.topologySpreadConstraints.0.maxSkew"]);
        const template = {
            spec: {
                restartPolicy: "Never",
                containers: [{ name: "c", image: "nginx:1.27.5" }],
                topologySpreadConstraints: [{ ...zone, maxSkew: 0 }],
            },
        };
        const cron = {
            apiVersion: "batch/v1",
            kind: "CronJob",
            metadata: { name: "c", namespace: "shop" },
            spec: { schedule: "0 * * * *", jobTemplate: { spec: { template } } },
        };
        expect((await problems(cron)).map((p) => p[0])).to.deep.equal([
            "spec.jobTemplate.spec.template.spec.topologySpreadConstraints.0.maxSkew",
        ]);
    });
});
