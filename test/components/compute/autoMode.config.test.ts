/**
 * components/compute/autoMode.ts's config, and the registry's checks beside it (components/compute), rule by rule, on the fixture dev stack switched to EKS Auto Mode:
 * what AWS refuses is refused by key, and the self-installed equivalents beside it.
 */
import { expect } from "chai";
import { PROJECT } from "../../../components/config";
import { autoModeSchema } from "../../../components/compute/autoMode.schema";
import { AUTO_MODE_MAX_NODE_LIFETIME_SECONDS } from "eks-platform-kernel";
import { fixtureValues, parseValues, problemsAfter, stackConfig, stacks } from "../../stackFiles";

const A = `${PROJECT}:autoMode`;

/** A pool of the Karpenter shape on Auto Mode's NodeClass `name`. */
const pool = (overrides: Record<string, unknown> = {}, name = "platform") => ({
    nodeClassRef: { group: "eks.amazonaws.com", kind: "NodeClass", name },
    requirements: [{ key: "eks.amazonaws.com/instance-category", operator: "In", values: ["c", "m"] }],
    limits: { cpu: "16", memory: "64Gi" },
    disruption: { consolidateAfter: "1m" },
    expireAfter: "168h",
    terminationGracePeriod: "30m",
    ...overrides,
});

/** The fixture dev stack on Auto Mode: no Karpenter, no EBS CSI or LB controller of its own, then `edit`. */
function autoProblems(edit: (auto: Record<string, any>, values: Record<string, any>) => void = () => undefined): string[] {
    return problemsAfter((v) => {
        v[`${PROJECT}:karpenter`] = { enabled: false };
        delete v[`${PROJECT}:addons`].ebsCsiDriver;
        delete v[`${PROJECT}:addons`].loadBalancerController;
        v[A] = { enabled: true, builtInPools: ["system"], nodeClasses: { platform: {} }, nodePools: { general: pool() } };
        edit(v[A] as Record<string, any>, v);
    });
}

describe("autoMode config", () => {
    it("is off by default, and a valid Auto Mode stack parses with Auto Mode's defaults", () => {
        expect(parseValues(fixtureValues("dev"), "dev").autoMode).to.deep.equal({ enabled: false });
        expect(autoProblems()).to.deep.equal([]);
        const parsed = autoModeSchema.parse({ enabled: true, nodeClasses: { platform: {} }, nodePools: { general: pool() } });
        expect(parsed.enabled && parsed.builtInPools).to.deep.equal(["system"]);
        expect(parsed.enabled && parsed.nodeClasses.platform).to.deep.equal({
            ephemeralStorage: { size: "80Gi", iops: 3000, throughput: 125 },
            networkPolicy: "DefaultAllow",
            tags: {},
        });
        expect(parsed.enabled && parsed.nodePools.general.nodeClassRef).to.deep.equal({
            group: "eks.amazonaws.com",
            kind: "NodeClass",
            name: "platform",
        });
    });

    it("takes only the two built-in pools, each once, by their exact names (terraform-aws-eks#3496: a misspelt pool runs nothing)", () => {
        expect(autoProblems((a) => (a.builtInPools = ["general-purpose", "sytem", "general-purpose"]))).to.deep.equal([
            `${A}.builtInPools[1]: must be one of general-purpose, system (exactly)`,
        ]);
        expect(autoProblems((a) => (a.builtInPools = ["system", "system"]))).to.deep.equal([`${A}.builtInPools[1]: is listed twice`]);
    });

    it("refuses a stack that launches nothing, a NodeClass named default, a pool named like a built-in one, a reference to no class", () => {
        expect(
            autoProblems((a) => {
                a.builtInPools = [];
                a.nodePools = {};
            }),
        ).to.deep.equal([
            `${A}.nodePools: is empty and builtInPools is []: Auto Mode would launch no node; enable a built-in pool or define a pool`,
        ]);
        expect(autoProblems((a) => (a.nodeClasses = { default: {} }))).to.include(
            `${A}.nodeClasses.default: is the NodeClass EKS creates for its built-in pools: name yours otherwise`,
        );
        expect(autoProblems((a) => (a.nodePools = { system: pool() }))).to.deep.equal([
            `${A}.nodePools.system: is the name of a built-in pool, which EKS owns: list it in builtInPools or name yours otherwise`,
        ]);
        expect(autoProblems((a) => (a.nodePools = { general: pool({}, "missing") }))).to.deep.equal([
            `${A}.nodePools.general.nodeClassRef.name: "missing" is not defined under autoMode.nodeClasses (defined: platform, default)`,
        ]);
        // EKS's default NodeClass exists only while a built-in pool runs.
        expect(
            autoProblems((a) => {
                a.builtInPools = [];
                a.nodePools = { general: pool({}, "default") };
            }),
        ).to.deep.equal([
            `${A}.nodePools.general.nodeClassRef.name: "default" is not defined under autoMode.nodeClasses (defined: platform; EKS creates default only while builtInPools lists a pool)`,
        ]);
        expect(autoProblems((a) => (a.nodePools = { general: pool({}, "default") }))).to.deep.equal([]);
    });

    it("refuses another NodeClass API, Karpenter's AWS labels, Windows, and a lifetime past the 21 days Auto Mode enforces", () => {
        expect(
            autoProblems(
                (a) => (a.nodePools.general.nodeClassRef = { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "platform" }),
            ),
        ).to.deep.equal([
            `${A}.nodePools.general.nodeClassRef.group: must be eks.amazonaws.com`,
            `${A}.nodePools.general.nodeClassRef.kind: must be NodeClass`,
        ]);
        expect(
            autoProblems(
                (a) =>
                    (a.nodePools.general.requirements = [
                        { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m6i"] },
                        { key: "kubernetes.io/os", operator: "In", values: ["linux"] },
                    ]),
            ),
        ).to.deep.equal([
            `${A}.nodePools.general.requirements[0].key: karpenter.k8s.aws/instance-family is a label of self-managed Karpenter: EKS Auto Mode labels its nodes eks.amazonaws.com/instance-* (e.g. eks.amazonaws.com/instance-family)`,
            `${A}.nodePools.general.requirements[1].key: kubernetes.io/os is not supported by EKS Auto Mode, which runs Linux nodes only`,
        ]);
        // 504h in all: expireAfter plus the grace period.
        expect(AUTO_MODE_MAX_NODE_LIFETIME_SECONDS).to.equal(504 * 3600);
        expect(
            autoProblems((a) => Object.assign(a.nodePools.general, { expireAfter: "480h", terminationGracePeriod: "24h" })),
        ).to.deep.equal([]);
        expect(
            autoProblems((a) => Object.assign(a.nodePools.general, { expireAfter: "481h", terminationGracePeriod: "24h" })),
        ).to.deep.equal([
            `${A}.nodePools.general.expireAfter: 481h plus terminationGracePeriod 24h exceeds the 21 days (504h) EKS Auto Mode lets a node live: its nodes would be replaced on AWS's schedule, not the pool's; use at most 480h`,
        ]);
        expect(autoProblems((a) => (a.nodePools.general.expireAfter = "Never"))[0]).to.match(
            /expireAfter: Never plus terminationGracePeriod 30m exceeds the 21 days/,
        );
    });

    it("refuses the tags Auto Mode sets on what it launches, by key", () => {
        expect(
            autoProblems(
                (a) =>
                    (a.nodeClasses.platform = {
                        tags: { "eks.amazonaws.com/nodeclass": "x", "kubernetes.io/cluster/a": "owned", team: "a" },
                    }),
            ),
        ).to.deep.equal([
            `${A}.nodeClasses.platform.tags["eks.amazonaws.com/nodeclass"]: is a tag EKS Auto Mode sets itself (karpenter.sh/nodepool, karpenter.sh/nodeclaim, karpenter.sh/managed-by, karpenter.sh/provisioner-name, eks.amazonaws.com/nodeclass, kubernetes.io/cluster/*, aws:*): the NodeClass is rejected`,
            `${A}.nodeClasses.platform.tags["kubernetes.io/cluster/a"]: is a tag EKS Auto Mode sets itself (karpenter.sh/nodepool, karpenter.sh/nodeclaim, karpenter.sh/managed-by, karpenter.sh/provisioner-name, eks.amazonaws.com/nodeclass, kubernetes.io/cluster/*, aws:*): the NodeClass is rejected`,
        ]);
    });

    it("bounds the NodeClass's root volume to Auto Mode's range (size 1Gi to 59000Gi, gp3 IOPS 3000 to 16000, throughput 125 to 1000), each defaulted alone", () => {
        const storage = (ephemeralStorage: Record<string, unknown>) => autoProblems((a) => (a.nodeClasses.platform = { ephemeralStorage }));
        const at = `${A}.nodeClasses.platform.ephemeralStorage`;
        for (const ok of [
            { size: "1Gi", iops: 3000, throughput: 125 },
            { size: "59000Gi", iops: 16000, throughput: 1000 },
        ]) {
            expect(storage(ok), JSON.stringify(ok)).to.deep.equal([]);
        }
        expect(storage({ size: "0Gi", iops: 2999, throughput: 124 })).to.deep.equal([
            `${at}.size: must be between 1Gi and 59000Gi (Auto Mode's range)`,
            `${at}.iops: must be ≥ 3000, not number 2999`,
            `${at}.throughput: must be ≥ 125, not number 124`,
        ]);
        expect(storage({ size: "59001Gi", iops: 16001, throughput: 1001 })).to.deep.equal([
            `${at}.size: must be between 1Gi and 59000Gi (Auto Mode's range)`,
            `${at}.iops: must be ≤ 16000, not number 16001`,
            `${at}.throughput: must be ≤ 1000, not number 1001`,
        ]);
        expect(storage({ size: "80G", iops: 3000.5, throughput: 125.5 })).to.deep.equal([
            `${at}.size: must be a size in Gi, e.g. 80Gi`,
            `${at}.iops: expected whole number, received number 3000.5`,
            `${at}.throughput: expected whole number, received number 125.5`,
        ]);
        const classOf = (ephemeralStorage: Record<string, unknown>) => {
            const parsed = autoModeSchema.parse({
                enabled: true,
                nodeClasses: { platform: { ephemeralStorage } },
                nodePools: { general: pool() },
            });
            return parsed.enabled ? parsed.nodeClasses.platform.ephemeralStorage : undefined;
        };
        expect(classOf({})).to.deep.equal({ size: "80Gi", iops: 3000, throughput: 125 });
        expect(classOf({ size: "200Gi" })).to.deep.equal({ size: "200Gi", iops: 3000, throughput: 125 });
        expect(classOf({ iops: 6000, throughput: 250 })).to.deep.equal({ size: "80Gi", iops: 6000, throughput: 250 });
    });

    it("takes DefaultAllow or DefaultDeny as a NodeClass's network policy, nothing else", () => {
        expect(autoProblems((a) => (a.nodeClasses.platform = { networkPolicy: "DefaultDeny" }))).to.deep.equal([]);
        expect(autoProblems((a) => (a.nodeClasses.platform = { networkPolicy: "DefaultAllow" }))).to.deep.equal([]);
        expect(autoProblems((a) => (a.nodeClasses.platform = { networkPolicy: "Deny" }))).to.deep.equal([
            `${A}.nodeClasses.platform.networkPolicy: must be one of "DefaultAllow", "DefaultDeny", not string "Deny"`,
        ]);
        const parsed = autoModeSchema.parse({
            enabled: true,
            nodeClasses: { platform: { networkPolicy: "DefaultDeny" } },
            nodePools: { general: pool() },
        });
        expect(parsed.enabled && parsed.nodeClasses.platform.networkPolicy).to.equal("DefaultDeny");
    });

    it("refuses each tag key Auto Mode sets (karpenter.sh/*, eks.amazonaws.com/nodeclass, kubernetes.io/cluster/*, aws:*), and takes others", () => {
        const reserved = [
            "karpenter.sh/nodepool",
            "karpenter.sh/nodeclaim",
            "karpenter.sh/managed-by",
            "karpenter.sh/provisioner-name",
            "eks.amazonaws.com/nodeclass",
            "kubernetes.io/cluster/demo",
            "aws:cloudformation:stack-name",
        ];
        const why =
            "is a tag EKS Auto Mode sets itself (karpenter.sh/nodepool, karpenter.sh/nodeclaim, karpenter.sh/managed-by, karpenter.sh/provisioner-name, eks.amazonaws.com/nodeclass, kubernetes.io/cluster/*, aws:*): the NodeClass is rejected";
        for (const key of reserved) {
            expect(
                autoProblems((a) => (a.nodeClasses.platform = { tags: { [key]: "x" } })),
                key,
            ).to.deep.equal([`${A}.nodeClasses.platform.tags["${key}"]: ${why}`]);
        }
        for (const key of ["karpenter.sh/discovery", "eks.amazonaws.com/team", "kubernetes.io/cluster", "team"]) {
            expect(
                autoProblems((a) => (a.nodeClasses.platform = { tags: { [key]: "x" } })),
                key,
            ).to.deep.equal([]);
        }
    });

    it("names each pool listed twice, runs custom pools alone or built-in pools alone, and refuses a NodeClass named default by its path", () => {
        expect(autoProblems((a) => (a.builtInPools = ["general-purpose", "system", "general-purpose"]))).to.deep.equal([
            `${A}.builtInPools[2]: is listed twice`,
        ]);
        expect(autoProblems((a) => (a.builtInPools = ["general-purpose", "system"]))).to.deep.equal([]);
        expect(autoProblems((a) => (a.builtInPools = []))).to.deep.equal([]);
        expect(autoProblems((a) => (a.nodePools = {}))).to.deep.equal([]);
        expect(
            autoProblems((a) => {
                a.nodeClasses = { platform: {}, default: {} };
            }),
        ).to.deep.equal([`${A}.nodeClasses.default: is the NodeClass EKS creates for its built-in pools: name yours otherwise`]);
        expect(autoProblems((a) => (a.nodePools = { "general-purpose": pool() }))).to.deep.equal([
            `${A}.nodePools["general-purpose"]: is the name of a built-in pool, which EKS owns: list it in builtInPools or name yours otherwise`,
        ]);
        expect(
            autoProblems((a) => {
                a.builtInPools = [];
                a.nodeClasses = {};
                a.nodePools = { general: pool({}, "missing") };
            }),
        ).to.deep.equal([`${A}.nodePools.general.nodeClassRef.name: "missing" is not defined under autoMode.nodeClasses (defined: none)`]);
    });

    it("refuses Windows by either label, and names of classes and pools that are no DNS-1123 label", () => {
        expect(
            autoProblems((a) => (a.nodePools.general.requirements = [{ key: "node.kubernetes.io/windows-build", operator: "Exists" }])),
        ).to.deep.equal([
            `${A}.nodePools.general.requirements[0].key: node.kubernetes.io/windows-build is not supported by EKS Auto Mode, which runs Linux nodes only`,
        ]);
        for (const [bad, at] of [
            ["-platform", '["-platform"]'],
            ["platform-", '["platform-"]'],
            ["Platform", ".Platform"],
        ]) {
            expect(
                autoProblems((a) => (a.nodeClasses = { [bad]: {} })),
                bad,
            ).to.include(`${A}.nodeClasses${at}: must be a DNS-1123 label`);
        }
        expect(autoProblems((a) => (a.nodePools = { "pool-": pool() }))).to.include(`${A}.nodePools["pool-"]: must be a DNS-1123 label`);
        expect(
            autoProblems((a) => {
                a.nodeClasses = { p: {} };
                a.nodePools = { g: pool({}, "p") };
            }),
        ).to.deep.equal([]);
        for (const size of ["x80Gi", "80Gix"]) {
            expect(
                autoProblems((a) => (a.nodeClasses.platform = { ephemeralStorage: { size } })),
                size,
            ).to.include(`${A}.nodeClasses.platform.ephemeralStorage.size: must be a size in Gi, e.g. 80Gi`);
        }
    });

    it("refuses self-installed Karpenter, the EBS CSI driver and the LB controller beside Auto Mode, and a Kubernetes before 1.29", () => {
        const problems = autoProblems((_a, v) => {
            v[`${PROJECT}:karpenter`] = fixtureValues("dev")[`${PROJECT}:karpenter`];
            v[`${PROJECT}:addons`] = fixtureValues("dev")[`${PROJECT}:addons`];
        });
        expect(problems).to.have.members([
            `${PROJECT}:karpenter.enabled: is true beside autoMode: EKS Auto Mode runs Karpenter itself; set karpenter.enabled: false and move the pools to autoMode.nodePools, each on a class of autoMode.nodeClasses (Auto Mode's NodeClass, not an EC2NodeClass) with its karpenter.k8s.aws/* requirements as eks.amazonaws.com/*; with volumes or load balancers to keep, move blue/green instead (docs/automode.md#moving-a-stack-to-auto-mode)`,
            `${PROJECT}:addons.ebsCsiDriver: is set beside autoMode: EKS Auto Mode runs its own EBS CSI driver (ebs.csi.eks.amazonaws.com); remove it`,
            `${PROJECT}:addons.loadBalancerController: is set beside autoMode: EKS Auto Mode runs its own load balancing (eks.amazonaws.com/alb, eks.amazonaws.com/nlb); remove it`,
        ]);
        expect(autoProblems((_a, v) => (v[`${PROJECT}:cluster`].version = "1.28"))).to.include(
            `${PROJECT}:cluster.version: 1.28 is before 1.29, the first version EKS Auto Mode runs`,
        );
        expect(autoProblems((_a, v) => (v[`${PROJECT}:cluster`].version = "1.29"))).to.not.include(
            `${PROJECT}:cluster.version: 1.29 is before 1.29, the first version EKS Auto Mode runs`,
        );
    });

    it("requires the EBS CSI driver and the LB controller on a standard stack, naming each", () => {
        expect(
            problemsAfter((v) => {
                delete v[`${PROJECT}:addons`].ebsCsiDriver;
                delete v[`${PROJECT}:addons`].loadBalancerController;
            }),
        ).to.deep.equal([
            `${PROJECT}:addons.ebsCsiDriver: is required: a standard cluster installs it (only EKS Auto Mode runs its own)`,
            `${PROJECT}:addons.loadBalancerController: is required: a standard cluster installs it (only EKS Auto Mode runs its own)`,
        ]);
    });

    it("asks a standard stack for nothing it has, and names only the one it lacks", () => {
        expect(problemsAfter(() => undefined)).to.deep.equal([]);
        expect(problemsAfter((v) => delete v[`${PROJECT}:addons`].loadBalancerController)).to.deep.equal([
            `${PROJECT}:addons.loadBalancerController: is required: a standard cluster installs it (only EKS Auto Mode runs its own)`,
        ]);
        expect(problemsAfter((v) => delete v[`${PROJECT}:addons`].ebsCsiDriver)).to.deep.equal([
            `${PROJECT}:addons.ebsCsiDriver: is required: a standard cluster installs it (only EKS Auto Mode runs its own)`,
        ]);
    });

    describe("a switch that leaves no pool a workload can run on is refused, naming the pool to add", () => {
        const noWorkloadPool =
            /^eks-platform:autoMode\.nodePools: leaves no pool a workload can run on.*add general-purpose to autoMode\.builtInPools, or a pool without a NoSchedule or NoExecute taint under autoMode\.nodePools/;
        /** The fixture dev stack on Auto Mode with only the tainted `system` pool and its node groups as `groups` leaves them. */
        const systemOnly = (groups: (g: Record<string, any>) => void, auto: Record<string, unknown> = {}) =>
            autoProblems((a, v) => {
                a.nodePools = {};
                Object.assign(a, auto);
                groups(v[`${PROJECT}:nodeGroups`]);
            });
        const dropGroups = (g: Record<string, any>) => Object.keys(g).forEach((k) => delete g[k]);

        it("`enabled: true` alone, no node group: only the built-in system pool (tainted CriticalAddonsOnly)", () => {
            const problems = systemOnly(dropGroups);
            expect(
                problems.filter((p) => noWorkloadPool.test(p)),
                problems.join("\n"),
            ).to.have.length(1);
        });
        it("the only node groups left are tainted NoSchedule or NoExecute (a GPU group is, by its NVIDIA taint)", () => {
            for (const effect of ["NoSchedule", "NoExecute"]) {
                const problems = systemOnly((g) => (g.general.taints = [{ key: "dedicated", value: "x", effect }]));
                expect(
                    problems.filter((p) => noWorkloadPool.test(p)),
                    `${effect}: ${problems.join("\n")}`,
                ).to.have.length(1);
                expect(problems.join("\n")).to.contain("nodeGroups.general, nodeGroups.gpu are tainted");
            }
        });
        it("names the tainted groups left, in the singular or plural, and none when there are none; a disabled group is neither home nor named", () => {
            const only = (problems: string[]) => problems.find((p) => noWorkloadPool.test(p)) ?? problems.join("\n");
            const general = (g: Record<string, any>) => {
                g.general.taints = [{ key: "dedicated", value: "x", effect: "NoSchedule" }];
                delete g.gpu;
            };
            expect(only(systemOnly(general))).to.include(
                "leaves no pool a workload can run on (nodeGroups.general is tainted): with EKS Auto Mode",
            );
            expect(only(systemOnly(dropGroups))).to.include("leaves no pool a workload can run on: with EKS Auto Mode");
            const disabled = (g: Record<string, any>) => {
                general(g);
                g.spare = { ...g.general, taints: [], enabled: false };
            };
            expect(only(systemOnly(disabled))).to.include("(nodeGroups.general is tainted)");
        });

        it("a custom pool tainted NoSchedule or NoExecute is no home either", () => {
            for (const effect of ["NoSchedule", "NoExecute"]) {
                const tainted = pool({ taints: [{ key: "dedicated", value: "x", effect }] });
                expect(
                    systemOnly(dropGroups, { nodePools: { general: tainted } }).filter((p) => noWorkloadPool.test(p)),
                    effect,
                ).to.have.length(1);
            }
        });
        it("any one home is enough: general-purpose, an untainted pool, a PreferNoSchedule pool, or an untainted node group", () => {
            expect(systemOnly(dropGroups, { builtInPools: ["system", "general-purpose"] })).to.deep.equal([]);
            expect(systemOnly(dropGroups, { nodePools: { general: pool() } })).to.deep.equal([]);
            const preferred = pool({ taints: [{ key: "dedicated", value: "x", effect: "PreferNoSchedule" }] });
            expect(systemOnly(dropGroups, { nodePools: { general: preferred } })).to.deep.equal([]);
            expect(systemOnly(() => undefined)).to.deep.equal([]);
        });
        it("a standard stack whose groups and Karpenter pools are all tainted is refused on nodeGroups", () => {
            const taintGeneral = (v: Record<string, any>) =>
                (v[`${PROJECT}:nodeGroups`].general.taints = [{ key: "CriticalAddonsOnly", value: "true", effect: "NoSchedule" }]);
            expect(problemsAfter(taintGeneral), "an untainted Karpenter pool is a home").to.deep.equal([]);
            const taintPools = (v: Record<string, any>) => {
                taintGeneral(v);
                for (const p of Object.values<Record<string, any>>(v[`${PROJECT}:karpenter`].nodePools)) {
                    p.taints = [{ key: "dedicated", value: "x", effect: "NoExecute" }];
                }
            };
            expect(problemsAfter(taintPools).some((p) => p.startsWith(`${PROJECT}:nodeGroups: leaves no node`))).to.equal(true);
            const problems = problemsAfter((v) => {
                v[`${PROJECT}:karpenter`] = { enabled: false };
                v[`${PROJECT}:nodeGroups`].general.taints = [{ key: "CriticalAddonsOnly", value: "true", effect: "NoSchedule" }];
            });
            expect(problems).to.deep.equal([
                `${PROJECT}:nodeGroups: leaves no node a workload can run on (nodeGroups.general, nodeGroups.gpu are tainted): every enabled group and Karpenter pool is tainted NoSchedule or NoExecute, so every pod that tolerates no taint stays Pending; add an untainted group or pool`,
            ]);
        });
    });

    describe("every stack file", () => {
        for (const stack of stacks()) {
            it(`${stack}: on Auto Mode, runs no self-installed equivalent and keeps its pools within Auto Mode's lifetime`, () => {
                const c = stackConfig(stack);
                if (!c.autoMode.enabled) {
                    expect(c.addons.ebsCsiDriver, stack).to.not.equal(undefined);
                    return;
                }
                expect([c.karpenter.enabled, c.addons.ebsCsiDriver, c.addons.loadBalancerController]).to.deep.equal([
                    false,
                    undefined,
                    undefined,
                ]);
                expect(Object.keys(c.autoMode.nodePools).length + c.autoMode.builtInPools.length).to.be.greaterThan(0);
            });
        }
    });
});
