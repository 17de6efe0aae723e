/**
 * tools/changes/diff.ts rule by rule, on small hand-built renders: how inputs are compared, which change
 * is a replacement or a node roll, what each disruption says, and how the report is printed.
 * The stack-level cases are in diff.test.ts.
 */
import { expect } from "chai";
import { changedPaths, diffRenders, formatDiffText, nodeCapacity, summaryLine } from "../../../tools/changes/diff";
import { RecordedResource } from "../../../tools/render/offline";

const urn = (type: string, name: string) => `urn:pulumi:dev::eks-platform::${type}::${name}`;
const resource = (
    type: string,
    name: string,
    props: Record<string, unknown>,
    options: RecordedResource["options"] = {},
): RecordedResource => ({
    type,
    name,
    urn: urn(type, name),
    props,
    options,
});
const changed = (r: RecordedResource, props: Record<string, unknown>): RecordedResource => ({ ...r, props: { ...r.props, ...props } });

const NODE_GROUP = "aws:eks/nodeGroup:NodeGroup";
const ASG = "aws:autoscaling/group:Group";
const group = resource(NODE_GROUP, "general", {
    instanceTypes: ["t3.large"],
    releaseVersion: "1.34.7-20260512",
    scalingConfig: { minSize: 2, desiredSize: 3, maxSize: 6 },
});
const asg = resource(ASG, "batch", { name: "batch-asg", minSize: 1, maxSize: 3, launchTemplate: { id: "lt-1", version: "1" } });
const subnet = resource("aws:ec2/subnet:Subnet", "private-a", { cidrBlock: "10.0.0.0/19", vpcId: "vpc-1" });
const nat = resource("aws:ec2/natGateway:NatGateway", "nat-a", { subnetId: "subnet-1", allocationId: "eip-1" });
const cluster = (version?: string) =>
    resource("eks:index:Cluster", "cluster-eks", { name: "c", ...(version === undefined ? {} : { version }) });

describe("tools/changes/diff.ts changedPaths: what changed, as dot paths", () => {
    it("walks objects key by key in sorted order, arrays of equal length index by index, anything else as a whole", () => {
        expect(changedPaths({ b: 1, a: { x: 1, y: [1, 2] } }, { b: 2, a: { x: 1, y: [1, 3] }, c: null })).to.deep.equal([
            { path: "a.y[1]", before: 2, after: 3 },
            { path: "b", before: 1, after: 2 },
            { path: "c", before: undefined, after: null },
        ]);
        expect(changedPaths({ y: [1, 2] }, { y: [1, 2, 3] })).to.deep.equal([{ path: "y", before: [1, 2], after: [1, 2, 3] }]);
        expect(changedPaths({ y: null }, { y: { a: 1 } })).to.deep.equal([{ path: "y", before: null, after: { a: 1 } }]);
        expect(changedPaths({ y: [1] }, { y: { 0: 1 } })).to.deep.equal([{ path: "y", before: [1], after: { 0: 1 } }]);
        expect(changedPaths(1, 2)).to.deep.equal([{ path: "", before: 1, after: 2 }]);
        expect(changedPaths({ a: { b: 1 } }, { a: { b: 1 } })).to.deep.equal([]);
    });

    it("compares strings holding a JSON object or array as documents, and any other string as text", () => {
        expect(changedPaths({ p: '  ["a"]' }, { p: '["b"]' })).to.deep.equal([{ path: "p(json)[0]", before: "a", after: "b" }]);
        // The same document written differently is no change.
        expect(changedPaths({ p: '{"a": 1}' }, { p: '{ "a":1 }' })).to.deep.equal([]);
        // Not JSON, JSON that is no document, or a document on one side only: compared as values.
        expect(changedPaths({ p: "{not json" }, { p: "{not json either" })).to.deep.equal([
            { path: "p", before: "{not json", after: "{not json either" },
        ]);
        expect(changedPaths({ p: '"a"' }, { p: '"b"' })).to.deep.equal([{ path: "p", before: '"a"', after: '"b"' }]);
        expect(changedPaths({ p: "x{}" }, { p: "x{ }" })).to.deep.equal([{ path: "p", before: "x{}", after: "x{ }" }]);
        expect(changedPaths({ p: "{}" }, { p: "plain" })).to.deep.equal([{ path: "p", before: "{}", after: "plain" }]);
        expect(changedPaths({ p: 1 }, { p: "{}" })).to.deep.equal([{ path: "p", before: 1, after: "{}" }]);
    });
});

describe("tools/changes/diff.ts diffRenders: what the engine does to each resource", () => {
    it("leaves components and providers out (platform: and pulumi: types hold no cloud object)", () => {
        const component = resource("platform:cluster:Cluster", "c", { a: 1 });
        const provider = resource("pulumi:providers:aws", "default", { region: "us-east-1" });
        const diff = diffRenders([component, provider], [changed(component, { a: 2 }), changed(provider, { region: "eu-west-1" })]);
        expect(diff.changes).to.deep.equal([]);
        expect(diffRenders([component, provider], []).changes).to.deep.equal([]);
        expect(diffRenders([], [component, provider]).changes).to.deep.equal([]);
    });

    it("counts a replacement only under a listed input: the path itself, a field, an element or a JSON document under it, never a longer name (pulumi-aws: ForceNew on the attribute)", () => {
        const vpc = resource("aws:ec2/vpc:Vpc", "vpc", { cidrBlock: "10.0.0.0/16", cidrBlockNote: "a" });
        expect(diffRenders([vpc], [changed(vpc, { cidrBlockNote: "b" })]).changes[0]).to.deep.include({ kind: "update" });
        expect(diffRenders([vpc], [changed(vpc, { cidrBlock: "10.1.0.0/16" })]).changes[0]).to.deep.include({
            kind: "replace",
            forcedBy: ["cidrBlock"],
        });
        const ng = (props: Record<string, unknown>) => diffRenders([group], [changed(group, props)]).changes[0].forcedBy;
        expect(ng({ instanceTypes: ["m7i.large"] })).to.deep.equal(["instanceTypes[0]"]);
        expect(ng({ remoteAccess: { ec2SshKey: "k" } })).to.deep.equal(["remoteAccess"]);
        const sg = resource("aws:ec2/securityGroup:SecurityGroup", "sg", { description: '{"a":1}', name: "x" });
        expect(diffRenders([sg], [changed(sg, { description: '{"a":2}' })]).changes[0].forcedBy).to.deep.equal(["description(json).a"]);
        const lt = resource("aws:ec2/launchTemplate:LaunchTemplate", "lt", { name: "lt", tags: { a: "1" } });
        expect(diffRenders([lt], [changed(lt, { tags: { a: "2" } })]).changes[0]).to.deep.equal({
            kind: "update",
            urn: lt.urn,
            type: lt.type,
            name: "lt",
            properties: [{ path: "tags.a", before: "1", after: "2" }],
        });
    });

    it("updates a type it has no rule for, whatever changed", () => {
        const bucket = resource("aws:s3/bucket:Bucket", "b", { bucket: "one" });
        const [change] = diffRenders([bucket], [changed(bucket, { bucket: "two" })]).changes;
        expect(change.kind).to.equal("update");
        expect(change).to.not.have.property("forcedBy");
    });

    it("rolls a managed group's nodes on a new release version, and an ASG's on a new launch template version (EKS UpdateNodegroupVersion; ASG instance refresh)", () => {
        const released = diffRenders([group], [changed(group, { releaseVersion: "1.34.8-20260601" })]);
        expect(released.changes[0]).to.deep.include({ kind: "update", rollsNodesOn: ["releaseVersion"] });
        expect(released.disruptions).to.deep.equal([
            {
                kind: "roll",
                urn: group.urn,
                message: `${NODE_GROUP} general: releaseVersion changed: every node is replaced one batch at a time, each drained first`,
            },
        ]);
        const refreshed = diffRenders([asg], [changed(asg, { launchTemplate: { id: "lt-1", version: "2" } })]);
        expect(refreshed.changes[0].rollsNodesOn).to.deep.equal(["launchTemplate.version"]);
        // A scaling change rolls nothing.
        const scaled = diffRenders([asg], [changed(asg, { maxSize: 4 })]);
        expect(scaled.changes[0]).to.not.have.property("rollsNodesOn");
        expect(scaled.disruptions).to.deep.equal([]);
        // A type without roll inputs rolls nothing either.
        expect(diffRenders([subnet], [changed(subnet, { tags: { a: "b" } })]).changes[0]).to.not.have.property("rollsNodesOn");
    });

    it("calls a replacement a replacement, not a roll, when both kinds of input change", () => {
        const diff = diffRenders([group], [changed(group, { instanceTypes: ["m7i.large"], releaseVersion: "1.34.8-20260601" })]);
        expect(diff.changes[0].kind).to.equal("replace");
        expect(diff.changes[0]).to.not.have.property("rollsNodesOn");
        expect(diff.disruptions.map((d) => d.kind)).to.deep.equal(["drain"]);
    });

    it("refuses to replace a protected resource, naming the forcing inputs (pulumi protect: the engine refuses a replacement)", () => {
        const key = resource("aws:kms/key:Key", "secrets", { keyUsage: "ENCRYPT_DECRYPT", multiRegion: false }, { protect: true });
        const diff = diffRenders([key], [changed(key, { keyUsage: "SIGN_VERIFY", multiRegion: true })]);
        expect(diff.disruptions).to.deep.equal([
            {
                kind: "refused",
                urn: key.urn,
                message:
                    "aws:kms/key:Key secrets: protected, but keyUsage, multiRegion forces a replacement (the KMS key would be replaced): the engine refuses the update",
                label: "KMS key replacement refused",
            },
        ]);
        // Unprotected, the same replacement is no refusal: it goes through, and destroys the old key.
        expect(
            diffRenders([{ ...key, options: {} }], [changed(key, { keyUsage: "SIGN_VERIFY" })]).disruptions.map((d) => d.kind),
        ).to.deep.equal(["destroyed"]);
    });

    it("says what a replaced subnet, NAT gateway or node group takes with it", () => {
        const messages = (before: RecordedResource, props: Record<string, unknown>) =>
            diffRenders([before], [changed(before, props)]).disruptions.map((d) => `${d.kind}: ${d.message}`);
        expect(messages(subnet, { cidrBlock: "10.0.32.0/19" })).to.deep.equal([
            "network: aws:ec2/subnet:Subnet private-a: replaced (cidrBlock): everything in it (nodes, load balancer ENIs) must move first, or the deletion fails",
        ]);
        expect(messages(nat, { subnetId: "subnet-2" })).to.deep.equal([
            "network: aws:ec2/natGateway:NatGateway nat-a: replaced (subnetId): outbound traffic of its AZ stops until the new gateway is up",
        ]);
        expect(messages(asg, { name: "batch-asg-2" })).to.deep.equal([
            "drain: aws:autoscaling/group:Group batch: replaced (name): a new one is created, then the old one drains all of its nodes (1–3) at once; see docs/nodegroups.md#removing-or-renaming-a-group",
        ]);
        expect(nodeCapacity("aws:ec2/subnet:Subnet")).to.equal(undefined);
    });

    it("refuses a control-plane version that skips a minor or goes down, and ignores one it cannot read (EKS: one minor up at a time, one minor back within the rollback window)", () => {
        const refusals = (from?: string, to?: string) => diffRenders([cluster(from)], [cluster(to)]).disruptions;
        expect(refusals("1.34", "1.34")).to.deep.equal([]);
        expect(refusals("1.34", "1.35").map((d) => d.kind)).to.deep.equal(["upgrade"]);
        expect(refusals("1.34", "1.36")).to.deep.equal([
            {
                kind: "refused",
                urn: cluster().urn,
                message:
                    "eks:index:Cluster cluster-eks: version 1.34 → 1.36: EKS upgrades the control plane one minor at a time, and rolls back only to the previous minor, within 7 days of an upgrade",
            },
        ]);
        expect(refusals("1.34", "1.33").map((d) => d.kind)).to.deep.equal(["upgrade"]);
        expect(refusals("1.34", "1.32").map((d) => d.kind)).to.deep.equal(["refused"]);
        expect(refusals("1.34", undefined)).to.deep.equal([]);
        expect(refusals(undefined, "1.36")).to.deep.equal([]);
        // Another type with a version input is no control plane.
        const other = resource("aws:eks/addon:Addon", "a", { version: "1.34" });
        expect(diffRenders([other], [changed(other, { version: "1.36" })]).disruptions).to.deep.equal([]);
    });

    it("names each deletion's consequence: refused when protected (even if retained), retained, drained, network", () => {
        const messages = (...before: RecordedResource[]) => diffRenders(before, []).disruptions.map((d) => `${d.kind}: ${d.message}`);
        const both = resource("aws:kms/key:Key", "k", {}, { protect: true, retainOnDelete: true });
        expect(messages(both)).to.deep.equal([
            "refused: aws:kms/key:Key k: protected, and deleted here: the engine refuses the update until someone unprotects it",
        ]);
        const ns = resource("kubernetes:core/v1:Namespace", "ns", {}, { retainOnDelete: true });
        expect(messages(ns)).to.deep.equal([
            "retained: kubernetes:core/v1:Namespace ns: retained on delete: it stays in the cloud or cluster, no longer managed by Pulumi",
        ]);
        expect(messages(group)).to.deep.equal([
            "drain: aws:eks/nodeGroup:NodeGroup general: deleted: drains all of its nodes (2–6, 3 at creation) at once; see docs/nodegroups.md#removing-or-renaming-a-group",
        ]);
        expect(messages(nat)).to.deep.equal([
            "network: aws:ec2/natGateway:NatGateway nat-a: deleted: the private subnets routed through it lose outbound access",
        ]);
        expect(messages(subnet)).to.deep.equal([
            "network: aws:ec2/subnet:Subnet private-a: deleted: the deletion fails while nodes or load balancers still use it",
        ]);
        expect(messages(resource("aws:iam/role:Role", "r", {}))).to.deep.equal([]);
    });

    it("matches an alias once: a second resource naming the same old URN is a create", () => {
        const old = resource("aws:iam/role:Role", "old", { path: "/" });
        const a = { ...resource("aws:iam/role:Role", "a", { path: "/" }), aliases: [old.urn] };
        const b = { ...resource("aws:iam/role:Role", "b", { path: "/" }), aliases: [old.urn] };
        const diff = diffRenders([old], [a, b]);
        expect(diff.changes.map((c) => `${c.kind} ${c.name}`)).to.deep.equal(["create b"]);
        expect(diff.counts).to.deep.equal({ create: 1, update: 0, replace: 0, delete: 0 });
    });

    it("orders the disruptions refused, retained, drain, network, roll, whatever the order of the resources", () => {
        const key = resource("aws:kms/key:Key", "k", {}, { protect: true });
        const ns = resource("kubernetes:core/v1:Namespace", "ns", {}, { retainOnDelete: true });
        const diff = diffRenders([group, subnet, asg, ns, key], [changed(group, { releaseVersion: "x" }), asg]);
        expect(diff.disruptions.map((d) => d.kind)).to.deep.equal(["refused", "retained", "network", "roll"]);
    });
    it("joins several forcing or rolling inputs with commas, and reads a one-element list of JSON strings element by element", () => {
        const messages = (before: RecordedResource, props: Record<string, unknown>) =>
            diffRenders([before], [changed(before, props)]).disruptions.map((d) => d.message);
        expect(messages(subnet, { cidrBlock: "10.0.32.0/19", vpcId: "vpc-2" })[0]).to.include(
            "replaced (cidrBlock, vpcId): everything in it",
        );
        expect(messages(nat, { subnetId: "subnet-2", allocationId: "eip-2" })[0]).to.include("replaced (allocationId, subnetId): outbound");
        expect(messages(group, { instanceTypes: ["m7i.large"], subnetIds: ["s-1"] })[0]).to.include(
            "replaced (instanceTypes[0], subnetIds): a new one",
        );
        expect(messages(group, { releaseVersion: "x", version: "1.35" })[0]).to.include("releaseVersion, version changed:");
        expect(changedPaths({ p: ["[1]"] }, { p: ["[2]"] })).to.deep.equal([{ path: "p[0](json)[0]", before: 1, after: 2 }]);
    });

    it("refuses a control-plane version change only when the version moves wrongly, not when another input changes", () => {
        const renamed = { ...cluster("1.34"), props: { name: "d", version: "1.34" } };
        // A rename replaces the cluster (destroyed), but the version did not move: nothing refused.
        expect(diffRenders([cluster("1.34")], [renamed]).disruptions.map((d) => d.kind)).to.deep.equal(["destroyed"]);
    });
});

describe("tools/changes/diff.ts diffRenders: EKS Auto Mode switched in place, and objects moved under the same name", () => {
    const standard = resource("eks:index:Cluster", "cluster-eks", { name: "c", version: "1.34" });
    const auto = changed(standard, {
        autoMode: { enabled: true, createNodeRole: false, computeConfig: { enabled: true, nodePools: ["system"] } },
    });
    const lbc = resource("kubernetes:helm.sh/v3:Release", "lbc", { chart: "aws-load-balancer-controller", version: "1.13.3" });
    const ebs = resource("aws:eks/addon:Addon", "ebs", { addonName: "aws-ebs-csi-driver", addonVersion: "v1.63.1-eksbuild.1" });
    const SC = "kubernetes:storage.k8s.io/v1:StorageClass";
    const oldClass = resource(SC, "addons-ebs-csi-gp3", { metadata: { name: "gp3" }, provisioner: "ebs.csi.aws.com" });
    const newClass = resource(SC, "addons-auto-mode-gp3", { metadata: { name: "gp3" }, provisioner: "ebs.csi.eks.amazonaws.com" });

    it("says what turning Auto Mode on moves and what it leaves behind (EKS User Guide, migrate-auto.adoc: no migration of load balancers or volumes)", () => {
        const diff = diffRenders([standard, lbc, ebs], [auto]);
        const sw = diff.disruptions.filter((d) => d.kind === "switch");
        expect(sw).to.have.length(1);
        expect(sw[0].message).to.match(/^eks:index:Cluster cluster-eks: EKS Auto Mode turned on in place: the control plane stays/);
        expect(sw[0].message).to.include("the load balancers it created are not migrated").and.include("so their claims no longer attach");
        // Only what this diff removes is named.
        const bare = diffRenders([standard], [auto]).disruptions.find((d) => d.kind === "switch");
        expect(bare?.message).to.not.include("Load Balancer Controller").and.not.include("EBS CSI");
        expect(diffRenders([auto], [standard]).disruptions.find((d) => d.kind === "switch")?.message).to.include(
            "EKS Auto Mode turned off in place",
        );
        // No switch: nothing said.
        expect(diffRenders([auto], [changed(auto, { version: "1.34" })]).disruptions).to.deep.equal([]);
        expect(summaryLine(diffRenders([standard, lbc], [auto]))).to.include("1 compute switch");
        // Exactly that message, clauses joined by "; ".
        expect(sw[0].message).to.equal(
            "eks:index:Cluster cluster-eks: EKS Auto Mode turned on in place: the control plane stays (an UpdateClusterConfig), and workloads move to Auto Mode nodes only as the node groups and NodePools this diff deletes drain; the AWS Load Balancer Controller is removed: the load balancers it created are not migrated; each Ingress and Service of type LoadBalancer gets a new load balancer (a new DNS name) from Auto Mode's controller, and the old ones are left in the account; the EBS CSI driver (ebs.csi.aws.com) is removed: volumes it provisioned are not migrated to Auto Mode's driver (ebs.csi.eks.amazonaws.com), so their claims no longer attach; for stateful or load-balanced workloads AWS recommends a new cluster beside this one and a DNS cut-over (docs/automode.md)",
        );
        // Another chart, another add-on, the same names on another type, or one still there: not named.
        const otherChart = resource("kubernetes:helm.sh/v3:Release", "nginx", { chart: "ingress-nginx" });
        const otherAddon = resource("aws:eks/addon:Addon", "cni", { addonName: "vpc-cni" });
        const notARelease = resource("kubernetes:core/v1:ConfigMap", "x", {
            chart: "aws-load-balancer-controller",
            addonName: "aws-ebs-csi-driver",
        });
        for (const [was, now] of [
            [[standard, otherChart, otherAddon, notARelease], [auto]],
            [
                [standard, lbc, ebs],
                [auto, lbc, ebs],
            ],
        ] as const) {
            const message = diffRenders([...was], [...now]).disruptions.find((d) => d.kind === "switch")?.message ?? "";
            expect(message).to.not.include("Load Balancer Controller").and.not.include("EBS CSI");
            expect(message).to.include("; for stateful or load-balanced workloads AWS recommends a new cluster beside this one");
        }
    });

    it("refuses a Kubernetes object deleted under one resource and created under another with the same kind, namespace and name, naming what cannot change in place", () => {
        const diff = diffRenders([oldClass], [newClass]);
        const refused = diff.disruptions.filter((d) => d.kind === "refused");
        expect(refused).to.have.length(1);
        expect(refused[0].urn).to.equal(newClass.urn);
        expect(refused[0].message).to.include(`creates storage.k8s.io/v1:StorageClass gp3, which ${SC} addons-ebs-csi-gp3 still is`);
        expect(refused[0].message).to.include(
            "the create fails on the existing object (and provisioner cannot change in place), or, if it took",
        );
        const twoFields = diffRenders(
            [oldClass],
            [changed(newClass, { reclaimPolicy: "Retain", volumeBindingMode: "Immediate" })],
        ).disruptions;
        expect(twoFields[0].message).to.match(/\(and [a-zA-Z.]+, [a-zA-Z.]+(, [a-zA-Z.]+)* cannot change in place\)/);
        // Another name, another namespace, or an alias to the old URN: no clash.
        expect(diffRenders([oldClass], [changed(newClass, { metadata: { name: "gp3-auto" } })]).disruptions).to.deep.equal([]);
        const CM = "kubernetes:core/v1:ConfigMap";
        const a = resource(CM, "a", { metadata: { name: "x", namespace: "one" } });
        const b = resource(CM, "b", { metadata: { name: "x", namespace: "two" } });
        expect(diffRenders([a], [b]).disruptions).to.deep.equal([]);
        const moved = { ...resource(CM, "b", { metadata: { name: "x", namespace: "one" } }), aliases: [a.urn] };
        expect(diffRenders([a], [moved]).disruptions).to.deep.equal([]);
        // Same identity without an immutable difference is refused too, without the parenthesis.
        const same = resource(CM, "c", { metadata: { name: "x", namespace: "one" } });
        const plain = diffRenders([a], [same]).disruptions;
        expect(plain.map((d) => d.kind)).to.deep.equal(["refused"]);
        expect(plain[0].message).to.include("the create fails on the existing object, or, if it took the object over");
    });
});

describe("tools/changes/diff.ts: the report", () => {
    const key = resource("aws:kms/key:Key", "k", { keyUsage: "ENCRYPT_DECRYPT" }, { protect: true });
    const long = "x".repeat(200);
    const before = [group, asg, subnet, key, resource("aws:iam/role:Role", "gone", {})];
    const after = [
        changed(group, { releaseVersion: "1.34.8-20260601", scalingConfig: { minSize: 2, desiredSize: 3, maxSize: 8 } }),
        changed(asg, { name: "batch-asg-2" }),
        changed(subnet, { tags: { note: long } }),
        key,
        resource("aws:iam/role:Role", "new", { path: "/" }),
    ];
    const diff = diffRenders(before, after);

    it("counts each kind and names each kind of disruption", () => {
        expect(summaryLine(diff)).to.equal("DISRUPTIVE: 1 node drains, 1 node rolls — 1 to create, 2 to update, 1 to replace, 1 to delete");
        const all = diffRenders([subnet, resource("kubernetes:core/v1:Namespace", "ns", {}, { retainOnDelete: true })], []);
        expect(summaryLine(all)).to.equal(
            "DISRUPTIVE: 1 retained deletions, 1 network replacements — 0 to create, 0 to update, 0 to replace, 2 to delete",
        );
    });

    it("prints replacements, deletions, updates and creates in that order, each input with its note, a value longer than 120 characters cut to 117 and an ellipsis", () => {
        expect(formatDiffText(diff, "H").split("\n")).to.deep.equal([
            "H",
            summaryLine(diff),
            "",
            "Disruptive changes, most severe first:",
            `  ! [drain] ${ASG} batch: replaced (name): a new one is created, then the old one drains all of its nodes (1–3) at once; see docs/nodegroups.md#removing-or-renaming-a-group`,
            `  ! [roll] ${NODE_GROUP} general: releaseVersion changed: every node is replaced one batch at a time, each drained first`,
            "",
            `  +- ${ASG}  batch`,
            '      name: "batch-asg" → "batch-asg-2"  (forces replacement)',
            "  - aws:iam/role:Role  gone",
            `  ~ ${NODE_GROUP}  general`,
            '      releaseVersion: "1.34.7-20260512" → "1.34.8-20260601"  (rolls nodes)',
            "      scalingConfig.maxSize: 6 → 8",
            "  ~ aws:ec2/subnet:Subnet  private-a",
            `      tags: (unset) → {"note":"${"x".repeat(108)}...`,
            "  + aws:iam/role:Role  new",
            '      path: "/"',
        ]);
    });

    it("prints a value of exactly 120 characters whole", () => {
        const exact = "y".repeat(118);
        const d = diffRenders([subnet], [changed(subnet, { tags: exact })]);
        expect(formatDiffText(d, "H")).to.include(`tags: (unset) → "${exact}"`);
    });

    it("says so when nothing changed, with no disruption section", () => {
        expect(formatDiffText(diffRenders([group], [group]), "H")).to.equal(
            "H\n0 to create, 0 to update, 0 to replace, 0 to delete; nothing disruptive\n\n  no changes",
        );
    });
});

describe("tools/changes/diff.ts: a diff a reviewer can trust", () => {
    const role = (name: string, props: Record<string, unknown>) => resource("aws:iam/role:Role", name, props);

    it("shows the render's made-up values as pulumi preview shows outputs: [existing] when the base had them, [unknown] when only an apply computes them", () => {
        const subnetId = (gen: string) => `net-private-a.mock-${gen}`;
        const nat = (gen: string) => resource("aws:ec2/natGateway:NatGateway", "nat-a", { subnetId: subnetId(gen), allocationId: "eip-1" });
        const diff = diffRenders([nat("0123456789")], [nat("abcdef0123")]);
        expect(diff.changes[0].properties).to.deep.equal([{ path: "subnetId", before: "[existing]", after: "[unknown]" }]);
        const text = formatDiffText(diff, "H");
        expect(text).to.include('subnetId: "[existing]" → "[unknown]"  (forces replacement)');
        expect(text).not.to.match(/mock/);
        // A create referencing a resource the base already had: known to the engine, not made up anew.
        const arn = "arn:aws:mock:us-east-1:123456789012:role/nodes.mock-0123456789";
        const created = diffRenders(
            [role("nodes", {}), resource("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "other", { role: arn })],
            [
                role("nodes", {}),
                resource("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "attach", {
                    role: arn,
                    policyArn: "arn:aws:mock:us-east-1:123456789012:policy/p.mock-fedcba9876",
                }),
            ],
        );
        const attach = created.changes.find((c) => c.kind === "create");
        expect(attach?.properties).to.deep.equal([
            { path: "policyArn", before: undefined, after: "[unknown]" },
            { path: "role", before: undefined, after: "[existing]" },
        ]);
        // The cluster's example endpoint and issuer are made up too.
        const oidc = "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/EXAMPLE0123456789";
        expect(formatDiffText(diffRenders([], [role("irsa", { name: oidc })]), "H")).not.to.include("EXAMPLE");
    });

    it("shows a created role's policy documents whole, and at most a dozen other inputs in text", () => {
        const trust = {
            Version: "2012-10-17",
            Statement: [{ Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" }],
        };
        const many = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`k${String(i).padStart(2, "0")}`, i]));
        const diff = diffRenders([], [role("nodes", { assumeRolePolicy: JSON.stringify(trust), tags: many })]);
        const text = formatDiffText(diff, "H").split("\n");
        expect(text).to.include("      assumeRolePolicy:");
        expect(text).to.include('                "Service": "ec2.amazonaws.com"');
        expect(text.filter((l) => /^ {6}tags\.k\d\d: /.test(l))).to.have.length(12);
        expect(text).to.include("      … 3 more inputs (--format json lists them all)");
        expect(diff.changes[0].properties.find((p) => p.path === "assumeRolePolicy(json)")?.after).to.deep.equal(trust);
    });
});

describe("tools/changes/diff.ts: changes the API server refuses in place", () => {
    it("refuses a StorageClass reclaimPolicy change: immutable to the API server, not a forceNew field of pulumi-kubernetes (diff.go), so pulumi up would fail", () => {
        const sc = resource("kubernetes:storage.k8s.io/v1:StorageClass", "gp3", {
            metadata: { name: "gp3" },
            provisioner: "ebs.csi.aws.com",
            reclaimPolicy: "Delete",
        });
        const diff = diffRenders([sc], [changed(sc, { reclaimPolicy: "Retain" })]);
        expect(diff.changes[0].kind).to.equal("update");
        expect(diff.disruptions.map((d) => [d.kind, d.message])).to.deep.equal([
            [
                "refused",
                "kubernetes:storage.k8s.io/v1:StorageClass gp3: reclaimPolicy changed: the API server refuses to update it in place, and the provider does not replace the object for it, so pulumi up fails; give the object a new name (a replacement) instead",
            ],
        ]);
        // Another field of the class updates as usual.
        expect(diffRenders([sc], [changed(sc, { allowVolumeExpansion: true })]).disruptions).to.deep.equal([]);
    });
});

describe("tools/changes/diff.ts: a create with no inputs", () => {
    it("lists no inputs rather than an empty root path", () => {
        const diff = diffRenders([], [resource("aws:ec2/internetGateway:InternetGateway", "igw", {})]);
        expect(diff.changes[0].properties).to.deep.equal([]);
        expect(formatDiffText(diff, "H").split("\n").slice(-1)).to.deep.equal(["  + aws:ec2/internetGateway:InternetGateway  igw"]);
    });
});

describe("tools/changes/diff.ts: what a destroyed stateful or shared resource takes with it", () => {
    const destroyedBy = (before: RecordedResource, after: RecordedResource[]) =>
        diffRenders([before], after).disruptions.map((d) => ({ kind: d.kind, label: d.label, message: d.message }));

    it("a replaced eks.Cluster gets a new endpoint, CA and OIDC issuer, which kubeconfigs, IRSA trust and the pipeline's access must follow (terraform-provider-aws aws_eks_cluster: name ForceNew; EKS: the issuer is per cluster)", () => {
        const [d] = destroyedBy(cluster("1.34"), [changed(cluster("1.34"), { name: "d" })]);
        expect(d.kind).to.equal("destroyed");
        expect(d.label).to.equal("cluster replaced");
        expect(d.message).to.match(/^eks:index:Cluster cluster-eks: cluster replaced \(name\): a new control plane is created /);
        // What changes for its users, and what goes with the old one.
        expect(d.message).to.include("(new endpoint, certificate authority and OIDC issuer)");
        expect(d.message).to.include("the old one is deleted with every node, workload, volume attachment and access entry it has");
        expect(d.message).to.include(
            "kubeconfigs, IRSA trust policies and the pipeline's access must follow (docs/changes.md#renaming-the-cluster)",
        );
    });

    it("a deleted cluster creates no new control plane: it is deleted with its nodes and workloads (EKS DeleteCluster; Pulumi deletes the node groups that depend on it first)", () => {
        expect(destroyedBy(cluster("1.34"), [])).to.deep.equal([
            {
                kind: "destroyed",
                label: "cluster deleted",
                message:
                    "eks:index:Cluster cluster-eks: cluster deleted: the control plane is deleted with every node, workload, volume attachment and access entry it has",
            },
        ]);
        const raw = resource("aws:eks/cluster:Cluster", "raw", { name: "raw", roleArn: "arn:aws:iam::123456789012:role/c" });
        expect(destroyedBy(raw, []).map((d) => d.message)).to.deep.equal([
            "aws:eks/cluster:Cluster raw: cluster deleted: the control plane is deleted with every node and workload it runs",
        ]);
    });

    it("a namespace deleted takes every object in it, other teams' included (Kubernetes namespace lifecycle: deleting a namespace deletes its contents)", () => {
        const ns = resource("kubernetes:core/v1:Namespace", "ns-team", { metadata: { name: "team" } });
        const [d] = destroyedBy(ns, []);
        expect([d.kind, d.label]).to.deep.equal(["destroyed", "namespace deleted"]);
        expect(d.message).to.equal(
            "kubernetes:core/v1:Namespace ns-team: namespace deleted: deleting a namespace deletes everything in it (workloads, volume claims, secrets), other teams' included",
        );
        // A new name replaces it (pulumi-kubernetes: metadata.name is immutable): the old one goes the same way.
        expect(destroyedBy(ns, [changed(ns, { metadata: { name: "team-2" } })]).map((d) => [d.kind, d.label])).to.deep.equal([
            ["destroyed", "namespace replaced"],
        ]);
    });

    it("a KMS key deleted leaves what it encrypted undecryptable once its waiting period ends (AWS KMS ScheduleKeyDeletion)", () => {
        const key = resource("aws:kms/key:Key", "secrets", { keyUsage: "ENCRYPT_DECRYPT" });
        expect(destroyedBy(key, [])).to.deep.equal([
            {
                kind: "destroyed",
                label: "KMS key deleted",
                message:
                    "aws:kms/key:Key secrets: KMS key deleted: what the old key encrypted (cluster secrets, EBS volumes) can no longer be decrypted once its scheduled deletion runs",
            },
        ]);
    });

    it("a VPC replaced takes every subnet, node, load balancer and endpoint in it (terraform-provider-aws aws_vpc: cidr_block ForceNew)", () => {
        const vpc = resource("aws:ec2/vpc:Vpc", "vpc", { cidrBlock: "10.0.0.0/16" });
        expect(destroyedBy(vpc, [changed(vpc, { cidrBlock: "10.1.0.0/16" })])).to.deep.equal([
            {
                kind: "destroyed",
                label: "VPC replaced",
                message: "aws:ec2/vpc:Vpc vpc: VPC replaced (cidrBlock): every subnet, node, load balancer and endpoint in it goes with it",
            },
        ]);
    });

    it("a log group deleted deletes its logs, the control plane's audit logs and flow logs among them (CloudWatch Logs DeleteLogGroup)", () => {
        const logs = resource("aws:cloudwatch/logGroup:LogGroup", "audit", { name: "/aws/eks/c/cluster" });
        expect(destroyedBy(logs, [])).to.deep.equal([
            {
                kind: "destroyed",
                label: "log group deleted",
                message:
                    "aws:cloudwatch/logGroup:LogGroup audit: log group deleted: its logs (control-plane audit logs, flow logs) are deleted with it",
            },
        ]);
    });

    it("a resource retained on delete is left behind when replaced, not destroyed (Pulumi retainOnDelete: Delete is not called on a deletion or a replacement)", () => {
        // The program's namespaces are retainOnDelete (components/namespaces.ts): a rename leaves the old one and its workloads.
        const ns = resource("kubernetes:core/v1:Namespace", "ns-team", { metadata: { name: "team" } }, { retainOnDelete: true });
        const diff = diffRenders([ns], [changed(ns, { metadata: { name: "team-2" } })]);
        expect(diff.changes[0].kind).to.equal("replace");
        expect(diff.disruptions).to.deep.equal([
            {
                kind: "retained",
                urn: ns.urn,
                label: "retained replacements",
                message:
                    "kubernetes:core/v1:Namespace ns-team: replaced (metadata.name), retained on delete: the new one is created and the old one stays in the cloud or cluster, with what it holds, no longer managed by Pulumi",
            },
        ]);
        expect(summaryLine(diff)).to.match(/^DISRUPTIVE: 1 retained replacements — /);
        // Protected as well, the engine refuses the replacement: refused only.
        const both = { ...ns, options: { retainOnDelete: true, protect: true } };
        expect(diffRenders([both], [changed(both, { metadata: { name: "team-2" } })]).disruptions.map((d) => d.kind)).to.deep.equal([
            "refused",
        ]);
        // The team quotas are retained too (components/namespaces.ts): each forcing input is named.
        const quota = resource(
            "kubernetes:core/v1:ResourceQuota",
            "quota-team",
            { metadata: { name: "team", namespace: "team" } },
            { retainOnDelete: true },
        );
        expect(
            diffRenders([quota], [changed(quota, { metadata: { name: "team-2", namespace: "team-2" } })]).disruptions[0].message,
        ).to.match(/^kubernetes:core\/v1:ResourceQuota quota-team: replaced \(metadata\.name, metadata\.namespace\), retained on delete: /);
        // Deleted, it is retained, not destroyed.
        expect(diffRenders([ns], []).disruptions.map((d) => [d.kind, d.label])).to.deep.equal([["retained", undefined]]);
    });
});

describe("tools/changes/diff.ts: a one-minor upgrade and what it leaves to do", () => {
    const eks = (version: string) => resource("eks:index:Cluster", "cluster-eks", { name: "c", version });
    const addon = (name: string, version?: string) =>
        resource("aws:eks/addon:Addon", name, { addonName: name, ...(version ? { addonVersion: version } : {}) });
    const managed = (name: string, props: Record<string, unknown>) => resource(NODE_GROUP, name, { nodeGroupName: name, ...props });
    const upgradeOf = (from: string, to: string, rest: RecordedResource[]) =>
        diffRenders([eks(from), ...rest], [eks(to), ...rest]).disruptions.map((d) => `${d.kind}: ${d.message}`);

    it("with nothing left behind, says only how the upgrade runs and the rollback window (EKS version rollback: 7 days, nodes still on the old minor)", () => {
        expect(upgradeOf("1.34", "1.35", [managed("current", { version: "1.35" }), managed("unpinned", {})])).to.deep.equal([
            "upgrade: eks:index:Cluster cluster-eks: Kubernetes 1.34 → 1.35, in place: the control plane upgrades first; EKS can roll it back to 1.34 within 7 days while the nodes still run 1.34",
        ]);
    });

    it("names the add-ons whose build only AWS can confirm for the target, with the command that lists them, and the groups left on the old minor with the kubelet skew they may keep (EKS describe-addon-versions; Kubernetes version skew policy: kubelet up to 3 minors older)", () => {
        const [upgrade] = upgradeOf("1.34", "1.35", [
            addon("vpc-cni", "v1.20.4-eksbuild.1"),
            addon("coredns"),
            // A kube-proxy build of the old minor is behind, named as such, not one more to confirm.
            addon("kube-proxy", "v1.34.0-eksbuild.2"),
            managed("old", { releaseVersion: "1.34.7-20260512" }),
            managed("older", { version: "1.33" }),
            managed("current", { version: "1.35" }),
        ]);
        expect(upgrade).to.equal(
            "upgrade: eks:index:Cluster cluster-eks: Kubernetes 1.34 → 1.35, in place: the control plane upgrades first; EKS can roll it back to 1.34 within 7 days while the nodes still run 1.34" +
                "; kube-proxy v1.34.0-eksbuild.2 is a 1.34 build: pin the 1.35 build in the same change" +
                "; add-ons to confirm for 1.35 (aws eks describe-addon-versions --kubernetes-version 1.35): vpc-cni v1.20.4-eksbuild.1, coredns (unpinned)" +
                "; node groups left behind: old (1.34), older (1.33) (kubelet may lag 3 minors; move them after the bake, docs/changes.md#kubernetes-upgrades)",
        );
    });

    it("names each of the stack's objects on an API the target no longer serves, with the API to move to (Kubernetes deprecated API migration guide: flowcontrol.apiserver.k8s.io/v1beta3 removed in 1.32)", () => {
        const flow = (name: string) =>
            resource("kubernetes:flowcontrol.apiserver.k8s.io/v1beta3:FlowSchema", `fs-${name}`, {
                apiVersion: "flowcontrol.apiserver.k8s.io/v1beta3",
                kind: "FlowSchema",
                metadata: { name },
            });
        const [upgrade] = upgradeOf("1.31", "1.32", [flow("batch"), flow("web")]);
        expect(upgrade).to.equal(
            "upgrade: eks:index:Cluster cluster-eks: Kubernetes 1.31 → 1.32, in place: the control plane upgrades first; EKS can roll it back to 1.31 within 7 days while the nodes still run 1.31" +
                "; objects on APIs 1.32 no longer serves: FlowSchema batch (flowcontrol.apiserver.k8s.io/v1beta3, use flowcontrol.apiserver.k8s.io/v1), FlowSchema web (flowcontrol.apiserver.k8s.io/v1beta3, use flowcontrol.apiserver.k8s.io/v1)",
        );
    });

    it("rolls each pool whose class follows the minor through an alias, paced by its budgets or Karpenter's default 10%, and says how to hold it through the bake (karpenter-provider-aws amifamily resolvePath; Karpenter disruption budgets, reasons: [Drifted])", () => {
        const nodeClass = resource("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "class-default", {
            metadata: { name: "default" },
            spec: { amiSelectorTerms: [{ alias: "al2023@v20260512" }] },
        });
        const pool = (name: string, budgets?: unknown[]) =>
            resource("kubernetes:karpenter.sh/v1:NodePool", `pool-${name}`, {
                metadata: { name },
                spec: { template: { spec: { nodeClassRef: { name: "default" } } }, ...(budgets ? { disruption: { budgets } } : {}) },
            });
        const rolls = upgradeOf("1.34", "1.35", [
            nodeClass,
            pool("plain"),
            pool("paced", [{ nodes: "20%" }, { nodes: "0", schedule: "@daily" }]),
        ]).slice(1);
        expect(rolls).to.deep.equal([
            "roll: kubernetes:karpenter.sh/v1:NodePool pool-plain: every node drifts once the control plane runs 1.35: EC2NodeClass default selects the AMI alias al2023@v20260512, which Karpenter resolves per Kubernetes minor; nodes are replaced under the pool's disruption budgets (10%, Karpenter's default), each drained first, after which a rollback to 1.34 needs them back on 1.34 too; to keep them on 1.34 through the bake, give the pool a budget { nodes: \"0\", reasons: [Drifted] } before the upgrade",
            'roll: kubernetes:karpenter.sh/v1:NodePool pool-paced: every node drifts once the control plane runs 1.35: EC2NodeClass default selects the AMI alias al2023@v20260512, which Karpenter resolves per Kubernetes minor; nodes are replaced under the pool\'s disruption budgets (20%, 0), each drained first, after which a rollback to 1.34 needs them back on 1.34 too; to keep them on 1.34 through the bake, give the pool a budget { nodes: "0", reasons: [Drifted] } before the upgrade',
        ]);
    });
});

describe("tools/changes/diff.ts: the smaller rules a reviewer still reads", () => {
    it("refuses only the fields the API server will not update, however many other fields change with them, and says 'them' for several (ValidateStorageClassUpdate: reclaimPolicy and volumeBindingMode are immutable)", () => {
        const sc = resource("kubernetes:storage.k8s.io/v1:StorageClass", "gp3", {
            metadata: { name: "gp3" },
            provisioner: "ebs.csi.aws.com",
            reclaimPolicy: "Delete",
            volumeBindingMode: "WaitForFirstConsumer",
            allowVolumeExpansion: false,
        });
        const refused = (props: Record<string, unknown>) =>
            diffRenders([sc], [changed(sc, props)]).disruptions.map((d) => `${d.kind}: ${d.message}`);
        expect(refused({ reclaimPolicy: "Retain", allowVolumeExpansion: true })).to.deep.equal([
            "refused: kubernetes:storage.k8s.io/v1:StorageClass gp3: reclaimPolicy changed: the API server refuses to update it in place, and the provider does not replace the object for it, so pulumi up fails; give the object a new name (a replacement) instead",
        ]);
        expect(refused({ reclaimPolicy: "Retain", volumeBindingMode: "Immediate" })).to.deep.equal([
            "refused: kubernetes:storage.k8s.io/v1:StorageClass gp3: reclaimPolicy, volumeBindingMode changed: the API server refuses to update them in place, and the provider does not replace the object for it, so pulumi up fails; give the object a new name (a replacement) instead",
        ]);
        // A refusal with no label is counted as such in the summary.
        expect(summaryLine(diffRenders([sc], [changed(sc, { reclaimPolicy: "Retain" })]))).to.equal(
            "DISRUPTIVE: 1 refused — 0 to create, 1 to update, 0 to replace, 0 to delete",
        );
    });

    it("refuses a protected resource's replacement without calling it stateful when it holds nothing of its own (pulumi protect)", () => {
        const guarded = { ...group, options: { protect: true } };
        const [refusal] = diffRenders([guarded], [changed(guarded, { instanceTypes: ["m7i.large"] })]).disruptions;
        expect(refusal).to.deep.equal({
            kind: "refused",
            urn: group.urn,
            message: `${NODE_GROUP} general: protected, but instanceTypes[0] forces a replacement: the engine refuses the update`,
        });
    });

    it("names every input that forces a stateful resource's replacement (terraform-provider-aws aws_eks_cluster: name and the VPC both ForceNew)", () => {
        const before = resource("eks:index:Cluster", "cluster-eks", { name: "c", vpcId: "vpc-1", version: "1.34" });
        const [d] = diffRenders([before], [changed(before, { name: "d", vpcId: "vpc-2" })]).disruptions;
        expect(d.message).to.match(/^eks:index:Cluster cluster-eks: cluster replaced \(name, vpcId\): a new control plane/);
    });

    it("shows a made-up value inside a created document or object as pulumi preview does ([unknown]: only an apply computes it)", () => {
        const policy = {
            Version: "2012-10-17",
            Statement: [{ Effect: "Allow", Action: "s3:GetObject", Resource: ["arn:aws:mock:s3:::logs.mock-0123456789/*"] }],
        };
        const created = diffRenders(
            [],
            [resource("aws:iam/policy:Policy", "read", { policy: JSON.stringify(policy), tags: { bucket: "logs.mock-0123456789" } })],
        );
        expect(created.changes[0].properties).to.deep.equal([
            {
                path: "policy(json)",
                before: undefined,
                after: { ...policy, Statement: [{ ...policy.Statement[0], Resource: ["[unknown]"] }] },
            },
            { path: "tags.bucket", before: undefined, after: "[unknown]" },
        ]);
        // An object that replaces a null as a whole is masked inside too.
        const role = resource("aws:iam/role:Role", "r", { inlinePolicy: null });
        const updated = diffRenders([role], [changed(role, { inlinePolicy: { name: "p.mock-0123456789" } })]);
        expect(updated.changes[0].properties).to.deep.equal([{ path: "inlinePolicy", before: null, after: { name: "[unknown]" } }]);
    });

    it("lists an input set to an empty map as {}, not as nothing", () => {
        const [change] = diffRenders([], [resource("aws:ec2/vpc:Vpc", "vpc", { cidrBlock: "10.0.0.0/16", tags: {} })]).changes;
        expect(change.properties).to.deep.equal([
            { path: "cidrBlock", before: undefined, after: "10.0.0.0/16" },
            { path: "tags", before: undefined, after: {} },
        ]);
        expect(formatDiffText(diffRenders([], [resource("aws:ec2/vpc:Vpc", "vpc", { tags: {} })]), "H")).to.include("      tags: {}");
    });

    it("prints a create's inputs whole up to a dozen, with no 'more inputs' line at exactly twelve", () => {
        const twelve = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${String(i).padStart(2, "0")}`, i]));
        const text = formatDiffText(diffRenders([], [resource("aws:iam/role:Role", "r", twelve)]), "H").split("\n");
        expect(text.filter((l) => /^ {6}k\d\d: \d+$/.test(l))).to.have.length(12);
        expect(text.join("\n")).to.not.include("more inputs");
    });
});
