import { expect } from "chai";
import { Network } from "../../../components/network";
import { changedPaths, diffRenders, formatDiffText, summaryLine } from "../../../tools/changes/diff";
import { RecordedResource } from "../../../tools/render/offline";
import { REPLACEMENT_RULES } from "../../../tools/render/replacements";
import { settled, useMocks } from "../../mocks";

const urn = (type: string, name: string) => `urn:pulumi:dev::eks-platform::${type}::${name}`;

function resource(type: string, name: string, props: Record<string, unknown>, options: RecordedResource["options"] = {}): RecordedResource {
    return { type, name, urn: urn(type, name), props, options };
}

const NODE_GROUP = "aws:eks/nodeGroup:NodeGroup";
const NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool";
const group = (props: Record<string, unknown> = {}) =>
    resource(NODE_GROUP, "general", {
        amiType: "AL2023_x86_64_STANDARD",
        instanceTypes: ["t3.large"],
        releaseVersion: "1.34.7-20260512",
        scalingConfig: { minSize: 2, desiredSize: 3, maxSize: 6 },
        launchTemplate: { id: "lt-1", version: "1" },
        ...props,
    });
const pool = resource(NODE_POOL, "pool-general", { metadata: { name: "general" }, spec: { limits: { cpu: "32" } } });

describe("offline diff", () => {
    it("finds nothing between identical renders", () => {
        const diff = diffRenders([group(), pool], [group(), pool]);
        expect(diff.changes).to.deep.equal([]);
        expect(summaryLine(diff)).to.equal("0 to create, 0 to update, 0 to replace, 0 to delete; nothing disruptive");
    });

    it("calls a deleted NodePool a drain of every node at once, with the safe sequence", () => {
        const diff = diffRenders([group(), pool], [group()]);
        expect(diff.counts).to.deep.equal({ create: 0, update: 0, replace: 0, delete: 1 });
        expect(diff.disruptions).to.have.length(1);
        expect(diff.disruptions[0].kind).to.equal("drain");
        expect(diff.disruptions[0].message).to.match(
            /NodePool pool-general: deleted: drains every node of the pool .* at once; see docs\/karpenter\.md/,
        );
        expect(summaryLine(diff)).to.match(/^DISRUPTIVE: 1 node drains — 0 to create, 0 to update, 0 to replace, 1 to delete$/);
    });

    it("replaces a node group whose forcing input changed, and says how many nodes drain", () => {
        const diff = diffRenders([group()], [group({ instanceTypes: ["m7i.large"] })]);
        expect(diff.changes[0]).to.deep.include({ kind: "replace", forcedBy: ["instanceTypes[0]"] });
        expect(diff.disruptions[0].message).to.match(
            /replaced \(instanceTypes\[0\]\): .* drains all of its nodes \(2–6, 3 at creation\) at once/,
        );
    });

    it("updates in place where no input forces a replacement, and marks the updates that roll nodes", () => {
        const scaled = diffRenders([group()], [group({ scalingConfig: { minSize: 2, desiredSize: 3, maxSize: 8 } })]);
        expect(scaled.changes[0]).to.deep.include({ kind: "update", properties: [{ path: "scalingConfig.maxSize", before: 6, after: 8 }] });
        expect(scaled.disruptions).to.deep.equal([]);
        const released = diffRenders(
            [group()],
            [group({ releaseVersion: "1.34.8-20260601", launchTemplate: { id: "lt-1", version: "2" } })],
        );
        expect(released.changes[0].kind).to.equal("update");
        expect(released.changes[0].rollsNodesOn).to.deep.equal(["launchTemplate.version", "releaseVersion"]);
        expect(released.disruptions.map((d) => d.kind)).to.deep.equal(["roll"]);
    });

    it("follows aliases: a renamed resource that keeps its alias is no delete and create", () => {
        const before = resource("aws:eks/accessEntry:AccessEntry", "access-team", { principalArn: "arn:aws:iam::111111111111:role/team" });
        const after = {
            ...resource("aws:eks/accessEntry:AccessEntry", "access-111111111111-team", before.props),
            aliases: [before.urn],
        };
        expect(diffRenders([before], [after]).changes).to.deep.equal([]);
        expect(diffRenders([before], [{ ...after, aliases: undefined }]).counts).to.deep.include({ create: 1, delete: 1 });
    });

    it("names refused, retained, drain and network changes in that order", () => {
        const ns = resource("kubernetes:core/v1:Namespace", "ns-team", { metadata: { name: "team" } }, { retainOnDelete: true });
        const key = resource("aws:kms/key:Key", "secrets", { keyUsage: "ENCRYPT_DECRYPT" }, { protect: true });
        const nat = resource("aws:ec2/natGateway:NatGateway", "nat-a", { subnetId: "subnet-1", allocationId: "eip-1" });
        const diff = diffRenders([nat, pool, ns, key], [{ ...nat, props: { ...nat.props, subnetId: "subnet-2" } }]);
        expect(diff.disruptions.map((d) => d.kind)).to.deep.equal(["refused", "retained", "drain", "network"]);
        expect(formatDiffText(diff, "header").split("\n").slice(0, 4)).to.deep.equal([
            "header",
            "DISRUPTIVE: 1 KMS key deletion refused, 1 retained deletions, 1 node drains, 1 network replacements — 0 to create, 0 to update, 1 to replace, 3 to delete",
            "",
            "Disruptive changes, most severe first:",
        ]);
    });

    it("refuses a Kubernetes version two minors up or down; one minor down is EKS's version rollback, with its conditions", () => {
        const cluster = (version: string) => resource("eks:index:Cluster", "cluster-eks", { name: "c", version });
        // One minor up is the routine upgrade: disruptive, never "nothing disruptive", never refused.
        expect(diffRenders([cluster("1.34")], [cluster("1.35")]).disruptions.map((d) => d.kind)).to.deep.equal(["upgrade"]);
        for (const version of ["1.36", "1.32"]) {
            const [d] = diffRenders([cluster("1.34")], [cluster(version)]).disruptions;
            expect(d.kind, version).to.equal("refused");
            expect(d.message).to.match(/one minor at a time, and rolls back only to the previous minor, within 7 days of an upgrade/);
        }
        const [rollback] = diffRenders([cluster("1.34")], [cluster("1.33")]).disruptions;
        expect(rollback.kind).to.equal("upgrade");
        expect(rollback.message).to.match(
            /1\.34 → 1\.33: a version rollback, which EKS accepts only within 7 days .* once every node runs 1\.33 again/,
        );
    });

    it("compares JSON documents held in strings as documents", () => {
        const policy = (resources: string[]) => JSON.stringify({ Statement: [{ Effect: "Allow", Resource: resources }] });
        expect(changedPaths({ policy: policy(["a"]) }, { policy: policy(["b"]) })).to.deep.equal([
            { path: "policy(json).Statement[0].Resource[0]", before: "a", after: "b" },
        ]);
    });

    it("keeps replacement knowledge as data with a source for every type", () => {
        for (const [type, rule] of Object.entries(REPLACEMENT_RULES)) {
            expect(rule.source, type).to.match(/terraform-provider-aws|pulumi-kubernetes/);
        }
        expect(REPLACEMENT_RULES["aws:ec2/subnet:Subnet"].replaceOn).to.include.members(["cidrBlock", "availabilityZone", "vpcId"]);
        expect(REPLACEMENT_RULES[NODE_GROUP].replaceOn).to.include.members(["subnetIds", "amiType", "capacityType", "instanceTypes"]);
    });

    it("in diff mode, a replacement reaches what references the replaced resource (subnet → NAT gateway, route association)", async function () {
        this.timeout(60_000);
        const render = async (privateSubnetPrefixLength: number) => {
            const mocks = await useMocks("diff");
            new Network("net", {
                clusterName: "demo",
                region: "us-east-1",
                vpcCidr: "10.0.0.0/16",
                availabilityZones: ["us-east-1a", "us-east-1b"],
                natGateways: "perAz",
                privateSubnetPrefixLength,
                publicSubnetPrefixLength: 24,
                publicSubnetsBlock: 2,
            });
            await settled();
            return mocks.resources;
        };
        const diff = diffRenders(await render(19), await render(20));
        const replaced = diff.changes.filter((c) => c.kind === "replace").map((c) => `${c.type.split(":").pop()} ${c.name}`);
        // The public block is counted in private-sized blocks, so every subnet moves, and with
        // them, through the new subnet ids, the NAT gateways and route table associations.
        expect(replaced).to.have.members([
            "Subnet net-private-us-east-1a",
            "Subnet net-private-us-east-1b",
            "Subnet net-public-us-east-1a",
            "Subnet net-public-us-east-1b",
            "RouteTableAssociation net-private-us-east-1a",
            "RouteTableAssociation net-private-us-east-1b",
            "RouteTableAssociation net-public-us-east-1a",
            "RouteTableAssociation net-public-us-east-1b",
            "NatGateway net-nat-us-east-1a",
            "NatGateway net-nat-us-east-1b",
        ]);
        expect(diff.changes.find((c) => c.name === "net-nat-us-east-1a")?.forcedBy).to.deep.equal(["subnetId"]);
        expect(diff.disruptions.filter((d) => d.kind === "network")).to.have.length(6);
        // The VPC itself and everything not tied to a subnet stay.
        expect(diff.changes.filter((c) => c.type === "aws:ec2/vpc:Vpc")).to.deep.equal([]);
    });
});

describe("offline diff: the riskiest edits headed truthfully", () => {
    const cluster = (props: Record<string, unknown>, options: RecordedResource["options"] = {}) =>
        resource("eks:index:Cluster", "cluster-eks", { name: "platform-dev", version: "1.34", ...props }, options);

    it("heads a cluster rename as `cluster replaced`, before the drains it causes (terraform-provider-aws aws_eks_cluster: name ForceNew)", () => {
        const diff = diffRenders(
            [cluster({}), group({ clusterName: "platform-dev" })],
            [cluster({ name: "platform-next" }), group({ clusterName: "platform-next" })],
        );
        expect(diff.disruptions.map((d) => d.kind)).to.deep.equal(["destroyed", "drain"]);
        expect(diff.disruptions[0].message).to.match(
            /^eks:index:Cluster cluster-eks: cluster replaced \(name\): a new control plane .* the old one is deleted with every node, workload/,
        );
        expect(summaryLine(diff)).to.match(/^DISRUPTIVE: 1 cluster replaced, 1 node drains — /);
        // Protected, the engine refuses it instead: refused, not destroyed.
        const guarded = diffRenders([cluster({}, { protect: true })], [cluster({ name: "platform-next" }, { protect: true })]);
        expect(guarded.disruptions.map((d) => d.kind)).to.deep.equal(["refused"]);
    });

    it("calls a deleted namespace destroyed with everything in it, a retained one retained (pulumi retainOnDelete)", () => {
        const ns = (options: RecordedResource["options"]) =>
            resource("kubernetes:core/v1:Namespace", "ns-team", { metadata: { name: "team" } }, options);
        const deleted = diffRenders([ns({})], []);
        expect(deleted.disruptions.map((d) => [d.kind, d.label])).to.deep.equal([["destroyed", "namespace deleted"]]);
        expect(deleted.disruptions[0].message).to.include("deletes everything in it");
        expect(summaryLine(deleted)).to.match(/^DISRUPTIVE: 1 namespace deleted — /);
        expect(diffRenders([ns({ retainOnDelete: true })], []).disruptions.map((d) => d.kind)).to.deep.equal(["retained"]);
    });

    it("classifies a one-minor version bump as an upgrade, and lists the pools that drift because their AMI alias follows the version (karpenter-provider-aws v1.14.1 amifamily resolvePath)", () => {
        const nodeClass = (terms: unknown[]) =>
            resource("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "class-default", {
                metadata: { name: "default" },
                spec: { amiSelectorTerms: terms },
            });
        const followed = resource(NODE_POOL, "pool-general", {
            metadata: { name: "general" },
            spec: { template: { spec: { nodeClassRef: { name: "default" } } }, disruption: { budgets: [{ nodes: "10%" }] } },
        });
        const proxy = (version: string) =>
            resource("aws:eks/addon:Addon", "kube-proxy", { addonName: "kube-proxy", addonVersion: version });
        const before = [cluster({}), nodeClass([{ alias: "al2023@v20260512" }]), followed, group(), proxy("v1.34.0-eksbuild.2")];
        const after = [
            cluster({ version: "1.35" }),
            nodeClass([{ alias: "al2023@v20260512" }]),
            followed,
            group(),
            proxy("v1.34.0-eksbuild.2"),
        ];
        const diff = diffRenders(before, after);
        expect(diff.disruptions.map((d) => d.kind)).to.deep.equal(["upgrade", "roll"]);
        const [upgrade, drift] = diff.disruptions.map((d) => d.message);
        expect(upgrade).to.include("Kubernetes 1.34 → 1.35, in place").and.include("roll it back to 1.34 within 7 days");
        // kube-proxy builds are per minor: a 1.34 build left behind is named.
        expect(upgrade).to.include("kube-proxy v1.34.0-eksbuild.2 is a 1.34 build: pin the 1.35 build");
        // The managed group pinned to a 1.34 release stays on 1.34, named with its minor.
        expect(upgrade).to.include("node groups left behind: general (1.34)");
        expect(drift).to.match(
            /NodePool pool-general: every node drifts once the control plane runs 1\.35: EC2NodeClass default selects the AMI alias al2023@v20260512/,
        );
        expect(drift).to.include("disruption budgets (10%)");
        expect(summaryLine(diff)).to.match(/^DISRUPTIVE: 1 Kubernetes upgrade, 1 node rolls — /);
        // An AMI chosen by id does not follow the version: the upgrade alone, no drift.
        const pinned = diffRenders(
            [cluster({}), nodeClass([{ id: "ami-0123456789abcdef0" }]), followed],
            [cluster({ version: "1.35" }), nodeClass([{ id: "ami-0123456789abcdef0" }]), followed],
        );
        expect(pinned.disruptions.map((d) => d.kind)).to.deep.equal(["upgrade"]);
    });
});
