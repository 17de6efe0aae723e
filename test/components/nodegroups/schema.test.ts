import { expect } from "chai";
import { parseRawConfig, PROJECT } from "../../../components/config";
import { nodeGroupClusterProblems, NodeGroupsConfig, nodeGroupsSchema } from "../../../components/nodegroups/schema";
import { readStackFiles } from "../../../tools/render/offline";
import { fixtureProject, problemsAfter, stackConfig, stacks } from "../../stackFiles";

const KEY = `${PROJECT}:nodeGroups`;

/** A fixture stack's config with `nodeGroups` replaced; returns the error lines (none when valid). */
function problemsWith(nodeGroups: unknown, stack = "dev"): string[] {
    return problemsAfter((values) => (values[KEY] = nodeGroups), stack);
}

const managed = {
    kind: "managed",
    instanceTypes: ["t3.large"],
    minSize: 1,
    desiredSize: 2,
    maxSize: 3,
    releaseVersion: "1.34.7-20260512",
};
const selfManaged = {
    kind: "selfManaged",
    instanceTypes: ["m6i.xlarge"],
    minSize: 0,
    desiredSize: 1,
    maxSize: 4,
    releaseVersion: "1.34.7-20260512",
};

describe("node group config", () => {
    it("parses both fixture stacks: dev general + GPU, prod system + self-managed batch", () => {
        const dev = parseRawConfig(readStackFiles(fixtureProject(), "dev").config, "dev").nodeGroups;
        expect(Object.keys(dev)).to.have.members(["general", "gpu"]);
        expect(dev.general).to.deep.include({ kind: "managed", instanceTypes: ["t3.large"], minSize: 2, desiredSize: 3, maxSize: 6 });
        expect(dev.general.labels).to.deep.equal({ "platform/role": "system" });
        expect(dev.general.taints).to.deep.equal([]);
        expect(dev.gpu).to.deep.include({
            kind: "managed",
            enabled: true,
            amiType: "AL2023_x86_64_NVIDIA",
            instanceTypes: ["g4dn.xlarge"],
            minSize: 0,
            maxSize: 2,
        });

        const prod = parseRawConfig(readStackFiles(fixtureProject(), "prod").config, "prod").nodeGroups;
        expect(prod.system).to.deep.include({ kind: "managed", capacityType: "ON_DEMAND", maxUnavailablePercentage: 33 });
        expect(prod.system.taints).to.deep.equal([{ key: "CriticalAddonsOnly", value: "true", effect: "NoSchedule" }]);
        expect(prod.batch).to.deep.include({ kind: "selfManaged", amiFamily: "AL2023", maxPods: 58 });
        expect(prod.batch.labels).to.deep.equal({ workload: "batch" });
    });

    it("applies the documented defaults", () => {
        const parsed = nodeGroupsSchema.parse({ a: managed, b: selfManaged });
        expect(parsed.a).to.deep.include({
            enabled: true,
            capacityType: "ON_DEMAND",
            amiType: "AL2023_x86_64_STANDARD",
            maxUnavailablePercentage: 33,
            diskSizeGiB: 50,
            metadataHopLimit: 1,
            ssm: true,
        });
        expect(parsed.b).to.deep.include({ amiFamily: "AL2023", architecture: "x86_64", minHealthyPercentage: 90 });
        expect(parsed.b.kind === "selfManaged" && parsed.b.kubeletFlags).to.deep.equal([]);
    });

    it("accepts a switched-off group and an AL2 group on an older release", () => {
        expect(
            problemsWith({
                general: { ...managed, minSize: 2, labels: { "platform/role": "system" } },
                gpu: { ...managed, enabled: false },
            }),
        ).to.deep.equal([]);
        expect(
            nodeGroupsSchema.safeParse({ old: { ...managed, amiType: "AL2_x86_64", releaseVersion: "1.32.3-20250519" } }).success,
        ).to.equal(true);
    });

    const cases: [string, Record<string, unknown>, RegExp][] = [
        [
            "an unknown kind",
            { a: { ...managed, kind: "fargate" } },
            /^eks-platform:nodeGroups\.a\.kind: must be one of "managed", "selfManaged", not string "fargate"$/,
        ],
        ["a missing kind", { a: { ...managed, kind: undefined } }, /^eks-platform:nodeGroups\.a\.kind: is required$/],
        [
            "min above desired",
            { a: { ...managed, minSize: 3, desiredSize: 2 } },
            /^eks-platform:nodeGroups\.a\.minSize: 3 exceeds desiredSize 2$/,
        ],
        ["desired above max", { a: { ...managed, desiredSize: 5 } }, /^eks-platform:nodeGroups\.a\.desiredSize: 5 exceeds maxSize 3$/],
        ["a negative size", { a: { ...managed, minSize: -1 } }, /^eks-platform:nodeGroups\.a\.minSize: /],
        [
            "a bad instance type",
            { a: { ...managed, instanceTypes: ["t3large"] } },
            /^eks-platform:nodeGroups\.a\.instanceTypes\[0\]: must be an EC2 instance type/,
        ],
        ["no instance type", { a: { ...managed, instanceTypes: [] } }, /^eks-platform:nodeGroups\.a\.instanceTypes: needs at least one/],
        [
            "an unpinned release",
            { a: { ...managed, releaseVersion: "latest" } },
            /^eks-platform:nodeGroups\.a\.releaseVersion: must be a pinned EKS AMI release version/,
        ],
        [
            "a bad label key",
            { a: { ...managed, labels: { "a/b/c": "x" } } },
            /^eks-platform:nodeGroups\.a\.labels\["a\/b\/c"\]: is not a valid Kubernetes label key/,
        ],
        [
            "a bad taint effect",
            { a: { ...managed, taints: [{ key: "k", value: "v", effect: "NoScheduleX" }] } },
            /^eks-platform:nodeGroups\.a\.taints\[0\]\.effect: must be one of "NoSchedule", "PreferNoSchedule", "NoExecute", not string "NoScheduleX"$/,
        ],
        [
            "a bad taint key",
            { a: { ...managed, taints: [{ key: "bad key", effect: "NoSchedule" }] } },
            /^eks-platform:nodeGroups\.a\.taints\[0\]\.key: is not a valid taint key/,
        ],
        [
            "a repeated taint",
            {
                a: {
                    ...managed,
                    taints: [
                        { key: "k", effect: "NoSchedule" },
                        { key: "k", value: "x", effect: "NoSchedule" },
                    ],
                },
            },
            /^eks-platform:nodeGroups\.a\.taints\[1\]: repeats the taint k:NoSchedule/,
        ],
        [
            "AL2 on Kubernetes 1.34 (managed)",
            { a: { ...managed, amiType: "AL2_x86_64" } },
            /^eks-platform:nodeGroups\.a\.amiType: EKS publishes no Amazon Linux 2 AMIs for Kubernetes 1\.34/,
        ],
        [
            "AL2 on Kubernetes 1.34 (self-managed)",
            { b: { ...selfManaged, amiFamily: "AL2" } },
            /^eks-platform:nodeGroups\.b\.amiFamily: EKS publishes no Amazon Linux 2 AMIs/,
        ],
        [
            "a GPU AMI on a CPU instance",
            { g: { ...managed, amiType: "AL2023_x86_64_NVIDIA", instanceTypes: ["g4dn.xlarge", "m6i.large"] } },
            /^eks-platform:nodeGroups\.g\.instanceTypes\[1\]: m6i\.large has no NVIDIA GPU/,
        ],
        [
            "a malformed AMI id",
            { b: { ...selfManaged, releaseVersion: undefined, amiId: "ami-xyz" } },
            /^eks-platform:nodeGroups\.b\.amiId: must be an AMI id/,
        ],
        [
            "both AMI id and release",
            { b: { ...selfManaged, amiId: "ami-0123456789abcdef0" } },
            /^eks-platform:nodeGroups\.b\.amiId: set exactly one of amiId/,
        ],
        [
            "neither AMI id nor release",
            { b: { ...selfManaged, releaseVersion: undefined } },
            /^eks-platform:nodeGroups\.b\.amiId: set exactly one of amiId/,
        ],
        [
            "a kubelet flag with a space",
            { b: { ...selfManaged, kubeletFlags: ["--max-pods 10"] } },
            /^eks-platform:nodeGroups\.b\.kubeletFlags\[0\]: must be one kubelet flag/,
        ],
        [
            "a Spot group with one instance type",
            { b: { ...selfManaged, capacityType: "SPOT" } },
            /^eks-platform:nodeGroups\.b\.instanceTypes: a Spot group needs at least 2/,
        ],
        [
            "a managed-only key on a self-managed group",
            { b: { ...selfManaged, maxUnavailablePercentage: 10 } },
            /^eks-platform:nodeGroups\.b\.maxUnavailablePercentage: unknown key/,
        ],
        [
            "a percentage above 100",
            { a: { ...managed, maxUnavailablePercentage: 150 } },
            /^eks-platform:nodeGroups\.a\.maxUnavailablePercentage: /,
        ],
        ["a group name that is not a DNS label", { Big_Group: managed }, /^eks-platform:nodeGroups\.Big_Group: must be a DNS-1123 label/],
        [
            "a metadata hop limit above 2 (no pod is further than two hops from IMDS)",
            { a: { ...managed, metadataHopLimit: 64 } },
            /^eks-platform:nodeGroups\.a\.metadataHopLimit: /,
        ],
    ];
    for (const [label, groups, expected] of cases) {
        it(`rejects ${label}, naming the key`, () => {
            const problems = problemsWith(groups);
            expect(
                problems.some((p) => expected.test(p)),
                problems.join("\n") || "(no problems)",
            ).to.equal(true);
        });
    }

    describe("against the cluster", () => {
        const groups = (g: Record<string, unknown>): NodeGroupsConfig => nodeGroupsSchema.parse(g);

        it("finds nothing wrong with the groups of every stack file", () => {
            for (const stack of stacks()) {
                const config = stackConfig(stack);
                expect(
                    nodeGroupClusterProblems(config.nodeGroups, { name: config.clusterName, version: config.cluster.version }),
                ).to.deep.equal([]);
            }
        });

        it("rejects a custom AL2 AMI on a 1.33+ cluster, where only the cluster version tells", () => {
            const problems = nodeGroupClusterProblems(
                groups({ legacy: { ...selfManaged, releaseVersion: undefined, amiId: "ami-0123456789abcdef0", amiFamily: "AL2" } }),
                {
                    name: "c",
                    version: "1.34",
                },
            );
            expect(problems).to.deep.equal([
                [["legacy", "amiFamily"], "Amazon Linux 2 nodes are not supported on Kubernetes 1.34; use AL2023"],
            ]);
        });

        it("rejects kubelets newer than the control plane or more than three minors older", () => {
            const newer = nodeGroupClusterProblems(groups({ a: { ...managed, releaseVersion: "1.35.1-20260601" } }), {
                name: "c",
                version: "1.34",
            });
            expect(newer.map(([p]) => p.join("."))).to.deep.equal(["a.releaseVersion"]);
            const older = nodeGroupClusterProblems(
                groups({ a: { ...managed, releaseVersion: "1.30.9-20250101" }, b: { ...managed, releaseVersion: "1.34.1-20260101" } }),
                {
                    name: "c",
                    version: "1.34",
                },
            );
            expect(older.map(([p]) => p.join("."))).to.deep.equal(["a.releaseVersion"]);
            // Three minors older is within the skew, next to a group on the cluster's minor.
            expect(
                nodeGroupClusterProblems(
                    groups({ a: { ...managed, releaseVersion: "1.31.9-20250101" }, b: { ...managed, releaseVersion: "1.34.1-20260101" } }),
                    { name: "c", version: "1.34" },
                ),
            ).to.deep.equal([]);
        });

        it("refuses a control plane more than one minor above its newest node group (upgrades go one minor at a time)", () => {
            const jump = nodeGroupClusterProblems(
                groups({ a: { ...managed, releaseVersion: "1.34.7-20260512" }, b: { ...managed, releaseVersion: "1.33.1-20260101" } }),
                { name: "c", version: "1.36" },
            );
            expect(jump).to.deep.equal([
                [
                    ["a", "releaseVersion"],
                    "the newest node group runs 1.34 but cluster.version is 1.36: EKS upgrades the control plane one minor at a time; go to 1.35, move the node groups to it, then continue (docs/changes.md#kubernetes-upgrades)",
                ],
            ]);
            const step = nodeGroupClusterProblems(groups({ a: { ...managed, releaseVersion: "1.34.7-20260512" } }), {
                name: "c",
                version: "1.35",
            });
            expect(step).to.deep.equal([]);
            const disabled = groups({ a: { ...managed, enabled: false, releaseVersion: "1.30.1-20250101" } });
            expect(
                nodeGroupClusterProblems(disabled, { name: "c", version: "1.36" }).filter(([, m]) => /one minor at a time/.test(m)),
            ).to.deep.equal([]);
        });

        it("rejects a node role name longer than IAM allows", () => {
            const problems = nodeGroupClusterProblems(groups({ "a-rather-long-node-group-name": managed }), {
                name: "a-cluster-name-of-thirty-chars",
                version: "1.34",
            });
            expect(problems).to.have.length(1);
            expect(problems[0][1]).to.match(/exceeds IAM's 64 characters/);
        });

        it("rejects a cluster name too long for the Node Termination Handler's EventBridge rules, only with self-managed groups", () => {
            const name = "c".repeat(51);
            const problems = nodeGroupClusterProblems(groups({ b: selfManaged }), { name, version: "1.34" });
            expect(problems.map(([p]) => p.join("."))).to.include("b");
            expect(problems.find(([p]) => p.join(".") === "b")?.[1]).to.match(
                /EventBridge's 64 characters; shorten the cluster name to at most 50/,
            );
            expect(nodeGroupClusterProblems(groups({ a: managed }), { name, version: "1.34" })).to.deep.equal([]);
            expect(nodeGroupClusterProblems(groups({ b: selfManaged }), { name: "c".repeat(50), version: "1.34" })).to.deep.equal([]);
        });
    });
});
