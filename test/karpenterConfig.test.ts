import { expect } from "chai";
import { ConfigError, parseRawConfig, PROJECT, StackConfig } from "../components/config";
import { isRestrictedTagKey, karpenterCrossSectionProblems, karpenterSchema, parseDuration } from "../components/config/karpenter";
import { readStackFiles } from "../tools/offline";
import { ROOT } from "./mocks";

const K = `${PROJECT}:karpenter`;

/** The decoded project config of a real stack file. */
function stackValues(stack: string): Record<string, any> {
    const raw = readStackFiles(ROOT, stack).config;
    const values: Record<string, any> = {};
    for (const [k, v] of Object.entries(raw)) {
        values[k] = k.startsWith(`${PROJECT}:`) && /^[[{]/.test(v) ? JSON.parse(v) : v;
    }
    return values;
}

function parse(values: Record<string, any>, stack = "dev"): StackConfig {
    const encoded = Object.fromEntries(
        Object.entries(values)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
    );
    return parseRawConfig(encoded, stack);
}

/** Problems of a real stack file after `edit`; [] when it parses. */
function problemsAfter(edit: (values: Record<string, any>) => void, stack = "dev"): string[] {
    const values = stackValues(stack);
    edit(values);
    try {
        parse(values, stack);
    } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        return (err as ConfigError).problems;
    }
    return [];
}

describe("karpenter config: the stack files", () => {
    it("enables Karpenter in both stacks with a pinned v1 chart and a pinned AL2023 AMI release", () => {
        for (const stack of ["dev", "prod"]) {
            const k = parse(stackValues(stack), stack).karpenter;
            if (!k.enabled) {
                throw new Error(`${stack}: karpenter disabled`);
            }
            expect(k.chartVersion, stack).to.equal("1.14.1");
            expect(k.allowLatestAmi, stack).to.equal(false);
            expect(
                Object.values(k.nodeClasses).map((c) => c.amiAlias),
                stack,
            ).to.deep.equal(["al2023@v20260512"]);
            expect(k.controller.replicas, stack).to.equal(2);
            expect(k.controller.nodeSelector, stack).to.deep.equal({ "platform/role": "system" });
        }
    });

    it("dev has one general pool mixing spot and on-demand; prod an on-demand pool and a tainted spot pool", () => {
        const dev = parse(stackValues("dev")).karpenter;
        const prod = parse(stackValues("prod"), "prod").karpenter;
        if (!dev.enabled || !prod.enabled) {
            throw new Error("karpenter disabled");
        }
        const capacity = (pool: { requirements: { key: string; values: string[] }[] }) =>
            pool.requirements.find((r) => r.key === "karpenter.sh/capacity-type")?.values;
        expect(Object.keys(dev.nodePools)).to.deep.equal(["general"]);
        expect(capacity(dev.nodePools.general)).to.have.members(["spot", "on-demand"]);
        expect(Object.keys(prod.nodePools)).to.have.members(["general", "batch-spot"]);
        expect(capacity(prod.nodePools.general)).to.deep.equal(["on-demand"]);
        expect(capacity(prod.nodePools["batch-spot"])).to.deep.equal(["spot"]);
        expect(prod.nodePools["batch-spot"].taints).to.deep.equal([{ key: "workload", value: "batch", effect: "NoSchedule" }]);
    });

    it("prod pools allow no voluntary disruption of workloads on weekday business hours, and at most 10% otherwise", () => {
        const prod = parse(stackValues("prod"), "prod").karpenter;
        if (!prod.enabled) {
            throw new Error("karpenter disabled");
        }
        for (const [name, pool] of Object.entries(prod.nodePools)) {
            expect(pool.disruption.budgets, name).to.deep.include({ nodes: "10%" });
            const window = pool.disruption.budgets.find((b) => b.schedule !== undefined);
            expect(window, name).to.deep.include({ nodes: "0", schedule: "0 8 * * 1-5", duration: "10h" });
        }
    });
});

describe("karpenter config: validation", () => {
    /** Sets the arch requirement of the dev `general` pool and pins the given instance types. */
    const pin = (v: Record<string, any>, arch: string, key: string, values: string[]) => {
        const reqs = v[K].nodePools.general.requirements as { key: string; operator: string; values: string[] }[];
        const kept = reqs.filter((r) => r.key !== "kubernetes.io/arch" && r.key !== key);
        v[K].nodePools.general.requirements = [
            ...kept,
            { key: "kubernetes.io/arch", operator: "In", values: [arch] },
            { key, operator: "In", values },
        ];
    };
    const cases: [string, (v: Record<string, any>) => void, RegExp][] = [
        [
            "a pinned instance type that does not exist",
            (v) => pin(v, "amd64", "node.kubernetes.io/instance-type", ["m5.large", "m5.huge"]),
            /^eks-platform:karpenter\.nodePools\.general\.requirements\[\d+\]\.values\[1\]: "m5\.huge" is not an EC2 instance type/,
        ],
        [
            "an instance family that does not exist",
            (v) => pin(v, "amd64", "karpenter.k8s.aws/instance-family", ["m99"]),
            /values\[0\]: "m99" is not an EC2 instance family/,
        ],
        [
            "an arm64 type in an amd64-only pool",
            (v) => pin(v, "amd64", "node.kubernetes.io/instance-type", ["m7g.large"]),
            /^eks-platform:karpenter\.nodePools\.general\.requirements\[\d+\]\.values\[0\]: m7g\.large is arm64 but the pool requires kubernetes\.io\/arch in \[amd64\]/,
        ],
        [
            "an x86 family in an arm64-only pool",
            (v) => pin(v, "arm64", "karpenter.k8s.aws/instance-family", ["m7g", "c7i"]),
            /values\[1\]: c7i is amd64 but the pool requires kubernetes\.io\/arch in \[arm64\]/,
        ],
        [
            "a missing cpu limit",
            (v) => delete v[K].nodePools.general.limits.cpu,
            /^eks-platform:karpenter\.nodePools\.general\.limits\.cpu: is required: without it a runaway deployment makes Karpenter launch CPUs without bound$/,
        ],
        [
            "missing limits",
            (v) => delete v[K].nodePools.general.limits,
            /^eks-platform:karpenter\.nodePools\.general\.limits: is required$/,
        ],
        [
            "an unknown operator",
            (v) => (v[K].nodePools.general.requirements[0].operator = "Contains"),
            /^eks-platform:karpenter\.nodePools\.general\.requirements\[0\]\.operator: unknown operator: use one of In, NotIn, Exists, DoesNotExist, Gt, Lt$/,
        ],
        [
            "a reference to an undefined EC2NodeClass",
            (v) => (v[K].nodePools.general.nodeClassRef = { name: "gpu" }),
            /^eks-platform:karpenter\.nodePools\.general\.nodeClassRef\.name: "gpu" is not defined under karpenter\.nodeClasses \(defined: default\)$/,
        ],
        [
            "a nodeClassRef with a Karpenter v1beta1-era group",
            (v) => (v[K].nodePools.general.nodeClassRef = { group: "karpenter.sh", kind: "EC2NodeClass", name: "default" }),
            /^eks-platform:karpenter\.nodePools\.general\.nodeClassRef\.group: must be karpenter\.k8s\.aws$/,
        ],
        [
            "@latest AMI without allowLatestAmi",
            (v) => (v[K].nodeClasses.default.amiAlias = "al2023@latest"),
            /^eks-platform:karpenter\.nodeClasses\.default\.amiAlias: is @latest: /,
        ],
        [
            "an AMI alias that is not AL2023",
            (v) => (v[K].nodeClasses.default.amiAlias = "al2@v20240807"),
            /^eks-platform:karpenter\.nodeClasses\.default\.amiAlias: must be an AL2023 alias/,
        ],
        [
            "a missing terminationGracePeriod",
            (v) => delete v[K].nodePools.general.terminationGracePeriod,
            /^eks-platform:karpenter\.nodePools\.general\.terminationGracePeriod: is required$/,
        ],
        [
            "a terminationGracePeriod shorter than a pod's grace period",
            (v) => (v[K].nodePools.general.terminationGracePeriod = "90s"),
            /^eks-platform:karpenter\.nodePools\.general\.terminationGracePeriod: 90s is shorter than the 120s pod grace period/,
        ],
        [
            "a malformed duration",
            (v) => (v[K].nodePools.general.expireAfter = "30d"),
            /^eks-platform:karpenter\.nodePools\.general\.expireAfter: must be a duration/,
        ],
        [
            "only scheduled budgets",
            (v) => (v[K].nodePools.general.disruption.budgets = [{ nodes: "0", schedule: "0 8 * * 1-5", duration: "10h" }]),
            /^eks-platform:karpenter\.nodePools\.general\.disruption\.budgets: has only scheduled budgets/,
        ],
        [
            "a schedule without a duration",
            (v) => v[K].nodePools.general.disruption.budgets.push({ nodes: "0", schedule: "0 8 * * 1-5" }),
            /^eks-platform:karpenter\.nodePools\.general\.disruption\.budgets\[1\]\.duration: schedule and duration must be set together$/,
        ],
        [
            "a cron schedule with a time zone",
            (v) =>
                v[K].nodePools.general.disruption.budgets.push({
                    nodes: "0",
                    schedule: "CRON_TZ=Europe/Paris 0 8 * * 1-5",
                    duration: "10h",
                }),
            /^eks-platform:karpenter\.nodePools\.general\.disruption\.budgets\[1\]\.schedule: time zones are not supported/,
        ],
        [
            "a budget above 100%",
            (v) => (v[K].nodePools.general.disruption.budgets[0].nodes = "150%"),
            /^eks-platform:karpenter\.nodePools\.general\.disruption\.budgets\[0\]\.nodes: /,
        ],
        [
            "In without values",
            (v) => (v[K].nodePools.general.requirements[0].values = []),
            /^eks-platform:karpenter\.nodePools\.general\.requirements\[0\]\.values: must list at least one value/,
        ],
        [
            "Gt with a non-integer",
            (v) =>
                v[K].nodePools.general.requirements.push({
                    key: "karpenter.k8s.aws/instance-generation",
                    operator: "Gt",
                    values: ["five"],
                }),
            /^eks-platform:karpenter\.nodePools\.general\.requirements\[4\]\.values: must hold exactly one integer/,
        ],
        [
            "an unknown capacity type",
            (v) => (v[K].nodePools.general.requirements[0].values = ["spot", "preemptible"]),
            /^eks-platform:karpenter\.nodePools\.general\.requirements\[0\]\.values\[1\]: "preemptible" is not a value of karpenter\.sh\/capacity-type/,
        ],
        [
            "a requirement on the hostname",
            (v) => v[K].nodePools.general.requirements.push({ key: "kubernetes.io/hostname", operator: "Exists" }),
            /^eks-platform:karpenter\.nodePools\.general\.requirements\[4\]\.key: kubernetes\.io\/hostname is set by Karpenter/,
        ],
        [
            "a pre-v1 chart",
            (v) => (v[K].chartVersion = "0.37.0"),
            /^eks-platform:karpenter\.chartVersion: must be a pinned Karpenter v1 chart version/,
        ],
        ["an unpinned chart", (v) => (v[K].chartVersion = "latest"), /^eks-platform:karpenter\.chartVersion: must be a pinned/],
        [
            "a v1beta1 field",
            (v) => (v[K].nodePools.general.ttlSecondsAfterEmpty = 30),
            /^eks-platform:karpenter\.nodePools\.general\.ttlSecondsAfterEmpty: unknown key/,
        ],
        ["settings without enabled", (v) => delete v[K].enabled, /^eks-platform:karpenter\.enabled: /],
        ["no NodePool", (v) => (v[K].nodePools = {}), /^eks-platform:karpenter\.nodePools: is empty/],
        [
            "controller requests above limits",
            (v) => (v[K].controller.resources.requests.memory = "2Gi"),
            /^eks-platform:karpenter\.controller\.resources\.requests\.memory: 2Gi exceeds the limit 1Gi$/,
        ],
        [
            "an empty controller nodeSelector",
            (v) => (v[K].controller.nodeSelector = {}),
            /^eks-platform:karpenter\.controller\.nodeSelector: is empty/,
        ],
    ];
    for (const [label, edit, expected] of cases) {
        it(`rejects ${label}, naming the key`, () => {
            const problems = problemsAfter(edit);
            expect(
                problems.some((p) => expected.test(p)),
                problems.join("\n") || "(no problem reported)",
            ).to.equal(true);
        });
    }

    for (const key of [
        "kubernetes.io/cluster/platform-dev",
        "karpenter.sh/nodepool",
        "kubernetes.io/clusterfoo",
        "karpenter.k8s.aws/ec2nodeclass",
        "eks:eks-cluster-name",
        "aws:cloudformation:stack-name",
    ]) {
        it(`rejects the restricted EC2NodeClass tag ${key}`, () => {
            const problems = problemsAfter((v) => (v[K].nodeClasses.default.tags = { team: "platform", [key]: "x" }));
            expect(problems).to.have.length(1);
            expect(problems[0]).to.equal(
                `eks-platform:karpenter.nodeClasses.default.tags["${key}"]: is a restricted tag (karpenter.sh/nodepool, karpenter.sh/nodeclaim, karpenter.k8s.aws/ec2nodeclass, eks:eks-cluster-name, kubernetes.io/cluster*, aws:*): Karpenter or EC2 sets these itself, and the EC2NodeClass is rejected`,
            );
        });
    }

    it("accepts real types and families on the pool's architecture", () => {
        expect(problemsAfter((v) => pin(v, "arm64", "karpenter.k8s.aws/instance-family", ["m7g", "c7g", "r8g"]))).to.deep.equal([]);
        expect(problemsAfter((v) => pin(v, "amd64", "node.kubernetes.io/instance-type", ["m7i.large", "c7i-flex.xlarge"]))).to.deep.equal(
            [],
        );
    });

    it("accepts @latest only where allowLatestAmi is true", () => {
        const values = stackValues("dev");
        values[K].nodeClasses.default.amiAlias = "al2023@latest";
        values[K].allowLatestAmi = true;
        const k = parse(values).karpenter;
        expect(k.enabled && k.nodeClasses.default.amiAlias).to.equal("al2023@latest");
    });

    it("fills in group and kind of a tutorial-style nodeClassRef { name } so it can never render without them", () => {
        const values = stackValues("dev");
        values[K].nodePools.general.nodeClassRef = { name: "default" };
        const k = parse(values).karpenter;
        expect(k.enabled && k.nodePools.general.nodeClassRef).to.deep.equal({
            group: "karpenter.k8s.aws",
            kind: "EC2NodeClass",
            name: "default",
        });
    });

    it("lists every Karpenter problem in one error", () => {
        const problems = problemsAfter((v) => {
            delete v[K].nodePools.general.limits.memory;
            v[K].nodeClasses.default.tags = { "karpenter.sh/nodepool": "general" };
            v[K].nodePools.general.requirements[1].operator = "Matches";
        });
        expect(problems).to.have.length(3);
    });

    it("defaults to disabled, which installs nothing and accepts no other key", () => {
        expect(karpenterSchema.parse({ enabled: false })).to.deep.equal({ enabled: false });
        expect(problemsAfter((v) => (v[K] = { enabled: false, chartVersion: "1.14.1" }))).to.deep.equal([
            "eks-platform:karpenter.chartVersion: unknown key (check its spelling against Pulumi.yaml)",
        ]);
    });
});

describe("karpenter config: checks across sections", () => {
    it("rejects a controller nodeSelector that no enabled managed node group carries", () => {
        const problems = problemsAfter((v) => (v[`${PROJECT}:nodeGroups`].general.labels = { "platform/role": "apps" }));
        expect(problems).to.deep.equal([
            "eks-platform:karpenter.controller.nodeSelector: platform/role=system matches no enabled managed node group (have: general, gpu): the controller could never schedule; label the system group with it",
        ]);
    });

    it("does not count a self-managed or disabled group as a home for the controller", () => {
        const base = { clusterName: "demo", karpenter: parse(stackValues("dev")).karpenter };
        const selfManaged = { sys: { kind: "selfManaged", enabled: true, labels: { "platform/role": "system" } } };
        const disabled = { sys: { kind: "managed", enabled: false, labels: { "platform/role": "system" } } };
        const managed = { sys: { kind: "managed", enabled: true, minSize: 2, labels: { "platform/role": "system", extra: "x" } } };
        expect(karpenterCrossSectionProblems({ ...base, nodeGroups: selfManaged }).map((i) => i.path.join("."))).to.deep.equal([
            "karpenter.controller.nodeSelector",
        ]);
        expect(karpenterCrossSectionProblems({ ...base, nodeGroups: disabled }).map((i) => i.path.join("."))).to.deep.equal([
            "karpenter.controller.nodeSelector",
        ]);
        expect(karpenterCrossSectionProblems({ ...base, nodeGroups: managed })).to.deep.equal([]);
    });

    it("rejects Karpenter without any node group to run its controller on", () => {
        const karpenter = parse(stackValues("dev")).karpenter;
        expect(karpenterCrossSectionProblems({ clusterName: "demo", karpenter, nodeGroups: {} })).to.deep.equal([
            {
                path: ["karpenter", "controller", "nodeSelector"],
                message:
                    "platform/role=system matches no enabled managed node group (have: none): the controller could never schedule; label the system group with it",
            },
        ]);
    });

    it("does not count a group whose taints the controller does not tolerate, and accepts CriticalAddonsOnly and PreferNoSchedule", () => {
        const base = { clusterName: "demo", karpenter: parse(stackValues("dev")).karpenter };
        const system = { kind: "managed", enabled: true, minSize: 3, labels: { "platform/role": "system" } };
        const dedicated = { sys: { ...system, taints: [{ key: "dedicated", value: "infra", effect: "NoSchedule" }] } };
        const problems = karpenterCrossSectionProblems({ ...base, nodeGroups: dedicated });
        expect(problems.map((i) => i.path.join("."))).to.deep.equal(["karpenter.controller.nodeSelector"]);
        expect(problems[0].message).to.include("sys: dedicated=infra:NoSchedule");
        const tolerated = {
            sys: {
                ...system,
                taints: [
                    { key: "CriticalAddonsOnly", value: "true", effect: "NoExecute" },
                    { key: "dedicated", value: "infra", effect: "PreferNoSchedule" },
                ],
            },
        };
        expect(karpenterCrossSectionProblems({ ...base, nodeGroups: tolerated })).to.deep.equal([]);
    });

    it("rejects more controller replicas than the controller's groups keep nodes (one replica per node)", () => {
        const base = { clusterName: "demo", karpenter: parse(stackValues("dev")).karpenter };
        const labels = { "platform/role": "system" };
        const one = { a: { kind: "managed", enabled: true, minSize: 1, labels } };
        const problems = karpenterCrossSectionProblems({ ...base, nodeGroups: one });
        expect(problems.map((i) => i.path.join("."))).to.deep.equal(["karpenter.controller.replicas"]);
        expect(problems[0].message).to.match(/^2 replicas run one per node, but the groups they may use \(a\) keep only 1 node at minimum/);
        const two = { ...one, b: { kind: "managed", enabled: true, minSize: 1, labels } };
        expect(karpenterCrossSectionProblems({ ...base, nodeGroups: two })).to.deep.equal([]);
    });

    it("rejects a cluster name too long for the static Karpenter node role", () => {
        const problems = problemsAfter((v) => (v[`${PROJECT}:clusterName`] = `platform-${"x".repeat(45)}`));
        expect(
            problems.some((p) =>
                /^eks-platform:clusterName: is too long for Karpenter: the node role platform-x+-karpenter-node exceeds IAM's 64 characters/.test(
                    p,
                ),
            ),
            problems.join("\n"),
        ).to.equal(true);
    });

    it("checks nothing when Karpenter is disabled", () => {
        expect(
            karpenterCrossSectionProblems({
                clusterName: "x".repeat(90),
                karpenter: { enabled: false },
                nodeGroups: { a: { kind: "managed", labels: {} } },
            }),
        ).to.deep.equal([]);
    });
});

describe("karpenter config: pure helpers", () => {
    it("parses Karpenter durations into seconds", () => {
        expect(parseDuration("90s")).to.equal(90);
        expect(parseDuration("15m")).to.equal(900);
        expect(parseDuration("1h30m")).to.equal(5400);
        expect(parseDuration("720h")).to.equal(2_592_000);
        expect(parseDuration("Never")).to.equal(Infinity);
        expect(parseDuration("30d")).to.equal(undefined);
        expect(parseDuration("")).to.equal(undefined);
        expect(parseDuration("1.5h")).to.equal(undefined);
    });

    it("knows which tag keys Karpenter and AWS reserve", () => {
        for (const key of [
            "kubernetes.io/cluster/a",
            "karpenter.sh/nodeclaim",
            "karpenter.k8s.aws/ec2nodeclass",
            "eks:eks-cluster-name",
            "AWS:foo",
        ]) {
            expect(isRestrictedTagKey(key), key).to.equal(true);
        }
        for (const key of [
            "team",
            "kubernetes.io/role/elb",
            "karpenter.sh/discovery",
            "karpenter.k8s.aws/cluster",
            "eks:nodegroup-name-ish",
            "Name",
        ]) {
            expect(isRestrictedTagKey(key), key).to.equal(false);
        }
    });
});
