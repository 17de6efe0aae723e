import { expect } from "chai";
import { PROJECT } from "../../../components/config";
import { karpenterCrossSectionProblems, karpenterSchema } from "../../../components/karpenter/schema";
import { nodeGroupsSchema } from "../../../components/nodegroups/schema";
import { fixtureValues, parseValues, problemsAfter, stackConfig, stacks } from "../../stackFiles";

const K = `${PROJECT}:karpenter`;

/** Node groups as the config module hands them over, from the fields a test cares about. */
function groups(spec: Record<string, Record<string, unknown>>) {
    const base = {
        kind: "managed",
        instanceTypes: ["m6i.large"],
        minSize: 2,
        desiredSize: 3,
        maxSize: 4,
        releaseVersion: "1.34.7-20260512",
    };
    return nodeGroupsSchema.parse(
        Object.fromEntries(
            Object.entries(spec).map(([name, g]) => [
                name,
                g.kind === "selfManaged" ? { ...base, amiFamily: "AL2023", ...g } : { ...base, ...g },
            ]),
        ),
    );
}

describe("karpenter config: every stack file", () => {
    for (const stack of stacks()) {
        it(`${stack}: pins the chart and AMI releases of an enabled Karpenter, unless allowLatestAmi says otherwise`, () => {
            const k = stackConfig(stack).karpenter;
            if (!k.enabled) {
                return;
            }
            expect(k.chartVersion, stack).to.match(/^[1-9]\d*\.\d+\.\d+$/);
            for (const [name, nodeClass] of Object.entries(k.nodeClasses)) {
                expect(k.allowLatestAmi || !nodeClass.amiAlias.endsWith("@latest"), `${stack} ${name}`).to.equal(true);
            }
        });
    }
});

describe("karpenter config: the fixture stacks", () => {
    it("enables Karpenter in both with a pinned v1 chart and a pinned AL2023 AMI release", () => {
        for (const stack of ["dev", "prod"]) {
            const k = parseValues(fixtureValues(stack), stack).karpenter;
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
        const dev = parseValues(fixtureValues("dev"), "dev").karpenter;
        const prod = parseValues(fixtureValues("prod"), "prod").karpenter;
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
        const prod = parseValues(fixtureValues("prod"), "prod").karpenter;
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
            "a limit on a resource name with a space",
            (v) => (v[K].nodePools.general.limits["nvidia gpu"] = "8"),
            /^eks-platform:karpenter\.nodePools\.general\.limits\["nvidia gpu"\]: is not a resource a pool limit takes: "nvidia gpu" has no domain \(an extended resource is named <domain>\/<name>\); limit cpu, memory or an extended resource such as nvidia\.com\/gpu$/,
        ],
        [
            "a limit on a resource in the kubernetes.io domain",
            (v) => (v[K].nodePools.general.limits["kubernetes.io/gpu"] = "8"),
            /^eks-platform:karpenter\.nodePools\.general\.limits\["kubernetes\.io\/gpu"\]: is not a resource a pool limit takes: .* kubernetes\.io domain/,
        ],
        [
            "a limit on an upper-case domain",
            (v) => (v[K].nodePools.general.limits["NVIDIA.com/gpu"] = "8"),
            /limits\["NVIDIA\.com\/gpu"\]: is not a resource a pool limit takes: "NVIDIA\.com\/gpu" is not a qualified name/,
        ],
        [
            "a fractional GPU limit",
            (v) => (v[K].nodePools.general.limits["nvidia.com/gpu"] = "0.5"),
            /^eks-platform:karpenter\.nodePools\.general\.limits\["nvidia\.com\/gpu"\]: 0\.5 is not a whole number: Kubernetes counts extended resources in whole units/,
        ],
        [
            "an extended limit that is no quantity",
            (v) => (v[K].nodePools.general.limits["nvidia.com/gpu"] = "eight"),
            /^eks-platform:karpenter\.nodePools\.general\.limits\["nvidia\.com\/gpu"\]: must be a Kubernetes quantity/,
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
            "controller requests above limits by less than a float tells apart",
            (v) => {
                v[K].controller.resources.requests.cpu = "1.00000000000000001";
                v[K].controller.resources.limits.cpu = "1";
            },
            /^eks-platform:karpenter\.controller\.resources\.requests\.cpu: 1\.00000000000000001 exceeds the limit 1$/,
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
                `eks-platform:karpenter.nodeClasses.default.tags["${key}"]: is a restricted tag (eks:eks-cluster-name, karpenter.sh/nodepool, karpenter.sh/nodeclaim, karpenter.k8s.aws/ec2nodeclass, kubernetes.io/cluster*, aws:*): Karpenter or EC2 sets these itself, and the EC2NodeClass is rejected`,
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
        const values = fixtureValues("dev");
        values[K].nodeClasses.default.amiAlias = "al2023@latest";
        values[K].allowLatestAmi = true;
        const k = parseValues(values, "dev").karpenter;
        expect(k.enabled && k.nodeClasses.default.amiAlias).to.equal("al2023@latest");
    });

    it("fills in group and kind of a tutorial-style nodeClassRef { name } so it can never render without them", () => {
        const values = fixtureValues("dev");
        values[K].nodePools.general.nodeClassRef = { name: "default" };
        const k = parseValues(values, "dev").karpenter;
        expect(k.enabled && k.nodePools.general.nodeClassRef).to.deep.equal({
            group: "karpenter.k8s.aws",
            kind: "EC2NodeClass",
            name: "default",
        });
    });

    it("accepts extended-resource limits next to cpu and memory, in whole units, keeping them in config order", () => {
        const values = fixtureValues("dev");
        values[K].nodePools.general.limits = {
            cpu: "32",
            memory: "128Gi",
            "nvidia.com/gpu": "8",
            "vpc.amazonaws.com/efa": 4,
            "aws.amazon.com/neuron": "2",
        };
        const k = parseValues(values, "dev").karpenter;
        expect(k.enabled && k.nodePools.general.limits).to.deep.equal({
            cpu: "32",
            memory: "128Gi",
            "nvidia.com/gpu": "8",
            "vpc.amazonaws.com/efa": "4",
            "aws.amazon.com/neuron": "2",
        });
    });

    it("reports a bad limit name together with a missing cpu limit", () => {
        const problems = problemsAfter((v) => {
            delete v[K].nodePools.general.limits.cpu;
            v[K].nodePools.general.limits["nvidia gpu"] = "8";
        });
        expect(
            problems.filter((p) => p.includes(".limits")),
            problems.join("\n"),
        ).to.have.length(2);
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
    const karpenter = () => parseValues(fixtureValues("dev"), "dev").karpenter;
    const system = { "platform/role": "system" };

    it("rejects a controller nodeSelector that no enabled node group carries", () => {
        const problems = problemsAfter((v) => (v[`${PROJECT}:nodeGroups`].general.labels = { "platform/role": "apps" }));
        expect(problems).to.deep.equal([
            "eks-platform:karpenter.controller.nodeSelector: platform/role=system matches no enabled node group (have: general, gpu): the controller could never schedule; label the system group with it",
        ]);
    });

    it("counts any enabled group carrying the selector, managed or self-managed, and never a disabled one", () => {
        const base = { clusterName: "demo", karpenter: karpenter() };
        const disabled = groups({ sys: { enabled: false, labels: system } });
        expect(karpenterCrossSectionProblems({ ...base, nodeGroups: disabled }).map((i) => i.path.join("."))).to.deep.equal([
            "karpenter.controller.nodeSelector",
        ]);
        const selfManaged = groups({ sys: { kind: "selfManaged", releaseVersion: "1.34.7-20260512", labels: system } });
        expect(karpenterCrossSectionProblems({ ...base, nodeGroups: selfManaged })).to.deep.equal([]);
        const managed = groups({ sys: { labels: { ...system, extra: "x" } } });
        expect(karpenterCrossSectionProblems({ ...base, nodeGroups: managed })).to.deep.equal([]);
    });

    it("rejects Karpenter without any node group to run its controller on", () => {
        expect(karpenterCrossSectionProblems({ clusterName: "demo", karpenter: karpenter(), nodeGroups: {} })).to.deep.equal([
            {
                path: ["karpenter", "controller", "nodeSelector"],
                message:
                    "platform/role=system matches no enabled node group (have: none): the controller could never schedule; label the system group with it",
            },
        ]);
    });

    it("does not count a group whose taints the controller does not tolerate (GPU taints included); accepts CriticalAddonsOnly and PreferNoSchedule", () => {
        const base = { clusterName: "demo", karpenter: karpenter() };
        const dedicated = groups({
            sys: { minSize: 3, labels: system, taints: [{ key: "dedicated", value: "infra", effect: "NoSchedule" }] },
        });
        const problems = karpenterCrossSectionProblems({ ...base, nodeGroups: dedicated });
        expect(problems.map((i) => i.path.join("."))).to.deep.equal(["karpenter.controller.nodeSelector"]);
        expect(problems[0].message).to.include("sys: dedicated=infra:NoSchedule");
        expect(problems[0].message).to.include("it tolerates CriticalAddonsOnly");
        // The program taints every NVIDIA group itself: a GPU group is no home even with the label.
        const gpu = groups({ sys: { minSize: 3, labels: system, amiType: "AL2023_x86_64_NVIDIA", instanceTypes: ["g4dn.xlarge"] } });
        expect(karpenterCrossSectionProblems({ ...base, nodeGroups: gpu })[0].message).to.include("sys: nvidia.com/gpu=true:NoSchedule");
        const tolerated = groups({
            sys: {
                minSize: 3,
                labels: system,
                taints: [
                    { key: "CriticalAddonsOnly", value: "true", effect: "NoExecute" },
                    { key: "dedicated", value: "infra", effect: "PreferNoSchedule" },
                ],
            },
        });
        expect(karpenterCrossSectionProblems({ ...base, nodeGroups: tolerated })).to.deep.equal([]);
    });

    it("rejects more controller replicas than the controller's groups keep nodes (one replica per node)", () => {
        const base = { clusterName: "demo", karpenter: karpenter() };
        const one = groups({ a: { minSize: 1, desiredSize: 1, labels: system } });
        const problems = karpenterCrossSectionProblems({ ...base, nodeGroups: one });
        expect(problems.map((i) => i.path.join("."))).to.deep.equal(["karpenter.controller.replicas"]);
        expect(problems[0].message).to.match(/^2 replicas run one per node, but the groups they may use \(a\) keep only 1 node at minimum/);
        const two = groups({ a: { minSize: 1, desiredSize: 1, labels: system }, b: { minSize: 1, desiredSize: 1, labels: system } });
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
        expect(karpenterCrossSectionProblems({ clusterName: "x".repeat(90), karpenter: { enabled: false }, nodeGroups: {} })).to.deep.equal(
            [],
        );
    });
});

describe("karpenter config: the drain window's edge", () => {
    it("accepts a terminationGracePeriod of exactly the 120 s pod maximum and refuses one second less", () => {
        for (const ok of ["2m", "120s", "1m60s"]) {
            expect(
                problemsAfter((v) => (v[K].nodePools.general.terminationGracePeriod = ok)),
                ok,
            ).to.deep.equal([]);
        }
        expect(problemsAfter((v) => (v[K].nodePools.general.terminationGracePeriod = "119s"))).to.deep.equal([
            "eks-platform:karpenter.nodePools.general.terminationGracePeriod: 119s is shorter than the 120s pod grace period the platform allows: such pods would be killed mid-shutdown; use at least 2m",
        ]);
    });
});

describe("karpenter config: renamed Karpenter v1 values", () => {
    it("names the allowed values and the v1 name of a v1beta1 consolidation policy", () => {
        const problems = problemsAfter((v) => (v[K].nodePools.general.disruption.consolidationPolicy = "WhenUnderutilized"));
        expect(problems).to.deep.equal([
            'eks-platform:karpenter.nodePools.general.disruption.consolidationPolicy: must be one of "WhenEmpty", "WhenEmptyOrUnderutilized", not string "WhenUnderutilized" (WhenUnderutilized was renamed WhenEmptyOrUnderutilized in Karpenter v1)',
        ]);
    });
});
