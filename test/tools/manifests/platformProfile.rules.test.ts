/**
 * The platform profile's rules (tools/manifests/platformProfile.ts), each on hand-built resources, in
 * process: what a profile keeps of the platform (its context, each namespace's quotas, each lifecycle
 * hook with its group), the summary beside it, and how strictly a profile is read back. The profile
 * of every stack, rendered by `npm run profile`: platformProfile.test.ts.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { AUTO_MODE_COMPONENTS } from "eks-platform-kernel";
import { describeCapacity } from "eks-platform-rehearsal";
import type { GateResource } from "../../../tools/gate/requests";
import { profileResources } from "../../../tools/manifests/drainInput";
import {
    autoModeSummary,
    namespaceOption,
    type PlatformProfile,
    PROFILE_FORMAT_VERSION,
    profileContext,
    profileNamespaces,
    profileOf,
    readProfile,
} from "../../../tools/manifests/platformProfile";
import { ROOT } from "../../mocks";
import { type TestResource, urnOf } from "../../policies/harness";
import { asg, hook } from "../../rehearsal/scenario";

/** A resource as the plan gives it to the profile, under the component `parent` when given. */
function planned(r: TestResource, parent?: string): GateResource {
    return { type: r.type, name: r.name, urn: urnOf(r), props: r.props, ...(parent !== undefined ? { parent } : {}) };
}

/** The self-managed node group component of `group`, the parent of its Auto Scaling group and lifecycle hook. */
const component = (group: string) => `urn:pulumi:test::eks-platform::platform:nodegroups:SelfManagedNodeGroup::nodegroups-${group}`;

/** Two self-managed groups, each with its hook (heartbeats 300 s and 900 s), the groups' names unknown at preview as the program makes them. */
const TWO_GROUPS: GateResource[] = [
    planned(asg("batch", 2), component("batch")),
    planned({ ...hook(300), name: "nodegroups-batch-terminate" }, component("batch")),
    planned(asg("gpu", 1), component("gpu")),
    planned({ ...hook(900), name: "nodegroups-gpu-terminate" }, component("gpu")),
];

/** A Kubernetes object of `kind` named `name` in `namespace` (none: no namespace written). */
function object(kind: string, name: string, namespace?: string, rest: Record<string, unknown> = {}): TestResource {
    return {
        type: `kubernetes:${kind === "NetworkPolicy" ? "networking.k8s.io/v1" : "core/v1"}:${kind}`,
        name: `${namespace ?? "none"}-${kind}-${name}`,
        props: { apiVersion: "v1", kind, metadata: { name, ...(namespace !== undefined ? { namespace } : {}) }, ...rest },
    };
}

/** A pulumi-eks cluster named `name` of Kubernetes `version` (none: unset), with `props` besides. */
function cluster(version?: string, props: Record<string, unknown> = {}): GateResource {
    return planned({
        type: "eks:index:Cluster",
        name: "cluster-eks",
        props: { name: "platform-qa", ...(version !== undefined ? { version } : {}), ...props },
    });
}

function writeTemp(value: unknown): string {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "profile-")), "p.json");
    fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
    return file;
}

/** The drain window of each group, by name. */
const windows = (groups: readonly { name: string; drainWindowSeconds?: number }[]) => groups.map((g) => [g.name, g.drainWindowSeconds]);

describe("platform profile: what it keeps of the platform (profileContext)", () => {
    it("keeps each lifecycle hook paired with its Auto Scaling group: two groups whose names are unknown at preview each keep their own heartbeat as drain window", () => {
        const context = profileContext(TWO_GROUPS);
        expect(
            context
                .filter((r) => r.type === "aws:autoscaling/lifecycleHook:LifecycleHook")
                .map((r) => [r.name, r.parent, r.props.heartbeatTimeout, r.props.lifecycleTransition]),
            "rule: a profile keeps every lifecycle hook with its parent, heartbeat and transition",
        ).to.deep.equal([
            ["nodegroups-batch-terminate", component("batch"), 300, "autoscaling:EC2_INSTANCE_TERMINATING"],
            ["nodegroups-gpu-terminate", component("gpu"), 900, "autoscaling:EC2_INSTANCE_TERMINATING"],
        ]);
        // What drain --platform reads of the profile: each group with its own hook, as on the stack.
        const onStack = windows(describeCapacity(profileResources(TWO_GROUPS)).groups);
        expect(onStack.map(([, seconds]) => seconds).sort()).to.deep.equal([300, 900]);
        expect(
            windows(describeCapacity(profileResources(context)).groups),
            "rule: drain --platform pairs each hook with its group as the stack does",
        ).to.deep.equal(onStack);
    });

    it("keeps every Kubernetes object but Secrets (by kind or by type), the AWS resources the pack and the rehearsal read, and no other", () => {
        const kept = [
            "eks:index:Cluster",
            "aws:eks/nodeGroup:NodeGroup",
            "aws:autoscaling/group:Group",
            "aws:autoscaling/lifecycleHook:LifecycleHook",
            "aws:ec2/launchTemplate:LaunchTemplate",
            "aws:ec2/subnet:Subnet",
            "aws:eks/addon:Addon",
            "kubernetes:core/v1:ConfigMap",
            "kubernetes:helm.sh/v3:Release",
        ];
        const dropped = ["aws:iam/role:Role", "aws:sqs/queue:Queue", "pulumi:providers:aws", "platform:nodegroups:NodeGroups"];
        const resources = [...kept, ...dropped].map((type, i) => planned({ type, name: `r${i}`, props: { kind: type.split(":").pop() } }));
        const secrets = [
            planned({ type: "kubernetes:core/v1:Secret", name: "typed", props: {} }),
            planned({ type: "kubernetes:example.com/v1:Wrapper", name: "kinded", props: { apiVersion: "v1", kind: "Secret" } }),
        ];
        expect(
            profileContext([...resources, ...secrets]).map((r) => r.type),
            "rule: a profile's context is the platform the pack and the rehearsal read, never a Secret",
        ).to.deep.equal(kept);
    });

    it("keeps a resource's inputs as the plan has them, a reference to another resource reduced to its name, in records and lists", () => {
        const ref = (name: string) => ({ __pulumiResource: true, __name: name });
        const [r] = profileContext([
            planned({
                type: "aws:eks/addon:Addon",
                name: "coredns",
                props: {
                    addonName: "coredns",
                    cluster: ref("cluster-eks"),
                    deps: [ref("a"), { inner: ref("b") }, 3],
                    flag: { __pulumiResource: false },
                },
            }),
        ]);
        expect(r, "rule: no Pulumi resource object leaks into a profile, and no parent is made up").to.deep.equal({
            type: "aws:eks/addon:Addon",
            name: "coredns",
            urn: "urn:pulumi:test::eks-platform::aws:eks/addon:Addon::coredns",
            props: {
                addonName: "coredns",
                cluster: "resource cluster-eks",
                deps: ["resource a", { inner: "resource b" }, 3],
                flag: { __pulumiResource: false },
            },
        });
    });
});

describe("platform profile: each namespace and what is in it (profileNamespaces)", () => {
    it("keeps each namespace's quotas, limit ranges and network policies: those in it only, an object naming no namespace in default", () => {
        const hard = (pods: string) => ({ spec: { hard: { "requests.cpu": "4", pods } } });
        const context = profileContext(
            [
                object("Namespace", "shop", undefined, { metadata: { name: "shop", labels: { team: "shop", replicas: 3 } } }),
                object("Namespace", "team"),
                object("Namespace", "default"),
                object("ResourceQuota", "compute", "shop", hard("10")),
                object("ResourceQuota", "compute", "team", hard("20")),
                object("ResourceQuota", "unplaced", undefined, hard("5")),
                object("LimitRange", "defaults", "shop", {
                    spec: {
                        limits: [
                            { type: "Pod", max: { cpu: "8" } },
                            { type: "Container", default: { cpu: "500m" }, defaultRequest: { cpu: "100m" } },
                        ],
                    },
                }),
                object("LimitRange", "pods-only", "team", { spec: { limits: [{ type: "Pod", max: { cpu: "8" } }] } }),
                object("NetworkPolicy", "default-deny", "shop"),
                object("NetworkPolicy", "allow-dns", "team"),
            ].map((r) => planned(r)),
        );
        expect(profileNamespaces(context), "rule: a namespace's profile holds what is in it, nothing of another's").to.deep.equal([
            {
                name: "shop",
                labels: { team: "shop" },
                quotas: [{ name: "compute", hard: { "requests.cpu": "4", pods: "10" } }],
                limitRanges: [
                    { name: "defaults", container: { type: "Container", default: { cpu: "500m" }, defaultRequest: { cpu: "100m" } } },
                ],
                networkPolicies: ["default-deny"],
            },
            {
                name: "team",
                labels: {},
                quotas: [{ name: "compute", hard: { "requests.cpu": "4", pods: "20" } }],
                limitRanges: [{ name: "pods-only", container: {} }],
                networkPolicies: ["allow-dns"],
            },
            {
                name: "default",
                labels: {},
                quotas: [{ name: "unplaced", hard: { "requests.cpu": "4", pods: "5" } }],
                limitRanges: [],
                networkPolicies: [],
            },
        ]);
    });

    it("keeps every quantity of a quota, one written as a number as its decimal text, and names what has no metadata.name by its resource", () => {
        const context = profileContext(
            [
                object("Namespace", "shop"),
                {
                    type: "kubernetes:core/v1:ResourceQuota",
                    name: "shop-quota",
                    props: {
                        kind: "ResourceQuota",
                        metadata: { namespace: "shop" },
                        spec: { hard: { pods: 10, "limits.cpu": "8", bad: true } },
                    },
                },
                {
                    type: "kubernetes:core/v1:LimitRange",
                    name: "shop-limits",
                    props: { kind: "LimitRange", metadata: { namespace: "shop" } },
                },
                {
                    type: "kubernetes:networking.k8s.io/v1:NetworkPolicy",
                    name: "shop-deny",
                    props: { kind: "NetworkPolicy", metadata: { namespace: "shop" } },
                },
                { type: "kubernetes:core/v1:Namespace", name: "unnamed-ns", props: { kind: "Namespace" } },
            ].map((r) => planned(r)),
        );
        expect(
            profileNamespaces(context),
            "rule: a profile keeps every quantity of a quota (pods: 10 is a quota of 10 pods)",
        ).to.deep.equal([
            {
                name: "shop",
                labels: {},
                quotas: [{ name: "shop-quota", hard: { pods: "10", "limits.cpu": "8" } }],
                limitRanges: [{ name: "shop-limits", container: {} }],
                networkPolicies: ["shop-deny"],
            },
            { name: "unnamed-ns", labels: {}, quotas: [], limitRanges: [], networkPolicies: [] },
        ]);
    });
});

describe("platform profile: the summary beside the context (profileOf)", () => {
    it("names the cluster, its Kubernetes version and the APIs that version no longer serves", () => {
        const at = (version: string) => profileOf("qa", "eks-platform", [cluster(version)], ROOT).cluster;
        const v125 = at("1.25");
        expect(v125.name).to.equal("platform-qa");
        expect(v125.kubernetesVersion).to.equal("1.25");
        expect(v125.removedApis, "rule: 1.25 no longer serves policy/v1beta1 or batch/v1beta1").to.include.members([
            "policy/v1beta1 PodDisruptionBudget",
            "batch/v1beta1 CronJob",
        ]);
        expect(v125.removedApis, "rule: 1.25 still serves what 1.32 removed").to.not.include(
            "flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema",
        );
        expect(at("1.32").removedApis).to.include.members([
            "flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema",
            "policy/v1beta1 PodDisruptionBudget",
        ]);
    });

    it("says null where it cannot see a cluster or its version, and then lists no removed API", () => {
        expect(profileOf("qa", "eks-platform", [], ROOT).cluster, "rule: no cluster, nothing made up").to.deep.include({
            name: null,
            kubernetesVersion: null,
            removedApis: [],
        });
        expect(profileOf("qa", "eks-platform", [cluster()], ROOT).cluster).to.deep.include({
            name: "platform-qa",
            kubernetesVersion: null,
            removedApis: [],
        });
    });

    it("publishes the node groups as drain --platform reads them from its context: each group with its own hook's drain window", () => {
        const profile = profileOf("qa", "eks-platform", TWO_GROUPS, ROOT);
        expect(windows(profile.nodeGroups), "rule: the published capacity is what the context holds").to.deep.equal(
            windows(describeCapacity(profileResources(profile.context)).groups),
        );
        expect(profile.nodeGroups.map((g) => g.drainWindowSeconds).sort()).to.deep.equal([300, 900]);
    });

    it("records where it was rendered: the stack, project, format version, the pack, the stack's policy config (null without one) and the commit (null outside git)", () => {
        const root = fs.mkdtempSync(path.join(os.tmpdir(), "profile-root-"));
        fs.mkdirSync(path.join(root, "policies", "config"), { recursive: true });
        fs.writeFileSync(path.join(root, "policies", "package.json"), JSON.stringify({ name: "acme-policies", version: "2.3.4" }));
        fs.writeFileSync(path.join(root, "policies", "config", "qa.json"), JSON.stringify({ "workload-service-replicas": "advisory" }));
        const qa = profileOf("qa", "acme", [], root);
        expect(qa, "rule: a profile says where it comes from").to.deep.include({
            formatVersion: PROFILE_FORMAT_VERSION,
            stack: "qa",
            project: "acme",
            commit: null,
            pack: { name: "acme-policies", version: "2.3.4" },
            policyConfig: { "workload-service-replicas": "advisory" },
        });
        expect(profileOf("staging", "acme", [], root).policyConfig, "rule: a stack without policy config has none").to.equal(null);
        expect(profileOf("qa", "acme", [], ROOT).commit).to.match(/^[0-9a-f]{40}$/);
    });

    it("serves the classes the platform creates, by name, and says what runs (controller, metrics API, Auto Mode)", () => {
        const gp3 = planned({
            type: "kubernetes:storage.k8s.io/v1:StorageClass",
            name: "gp3",
            props: { apiVersion: "storage.k8s.io/v1", kind: "StorageClass", metadata: { name: "gp3" }, provisioner: "ebs.csi.aws.com" },
        });
        const alb = planned({
            type: "kubernetes:networking.k8s.io/v1:IngressClass",
            name: "alb",
            props: {
                apiVersion: "networking.k8s.io/v1",
                kind: "IngressClass",
                metadata: { name: "alb" },
                spec: { controller: "ingress.k8s.aws/alb" },
            },
        });
        const profile = profileOf("qa", "eks-platform", [cluster("1.34"), gp3, alb], ROOT);
        expect(
            profile.storageClasses.map((c) => [c.name, c.provisioner]),
            "rule: each StorageClass by its name",
        ).to.deep.equal([["gp3", "ebs.csi.aws.com"]]);
        expect(
            profile.ingressClasses.map((c) => [c.name, c.controller]),
            "rule: each IngressClass by its name",
        ).to.deep.equal([["alb", "ingress.k8s.aws/alb"]]);
        expect(profile.loadBalancerClasses?.every((c) => typeof c.name === "string" && typeof c.isDefault === "boolean")).to.equal(true);
        expect(profile, "no controller, no metrics API, no Auto Mode on a bare cluster").to.deep.include({
            loadBalancerController: false,
            metricsApi: false,
            autoMode: null,
        });
        expect(profile.namespaces).to.deep.equal([]);
        expect(profile.context.map((r) => r.name)).to.deep.equal(["cluster-eks", "gp3", "alb"]);
    });
});

describe("platform profile: EKS Auto Mode's summary (autoModeSummary)", () => {
    it("is null on a standard cluster and without a cluster", () => {
        expect(autoModeSummary(undefined), "rule: no cluster, no Auto Mode").to.equal(null);
        expect(autoModeSummary(profileContext([cluster("1.34")])[0]), "rule: a standard cluster runs no Auto Mode").to.equal(null);
        expect(
            autoModeSummary(profileContext([cluster("1.34", { autoMode: { enabled: true, computeConfig: { enabled: false } } })])[0]),
        ).to.equal(null);
    });

    it("names the built-in pools as EKS runs them: the cluster's list, both when the list is unset (pulumi-eks's default)", () => {
        const on = (computeConfig?: Record<string, unknown>) =>
            autoModeSummary(
                profileContext([cluster("1.34", { autoMode: { enabled: true, ...(computeConfig ? { computeConfig } : {}) } })])[0],
            );
        expect(on({ nodePools: ["system"] })?.builtInNodePools, "rule: the pools the cluster names").to.deep.equal(["system"]);
        expect(on()?.builtInNodePools, "rule: no list, both built-in pools").to.deep.equal(["general-purpose", "system"]);
        expect(on({ nodePools: [] })?.builtInNodePools, "rule: an empty list, no built-in pool").to.deep.equal([]);
        expect(on({ nodePools: ["system"] }), "what Auto Mode serves").to.deep.include({
            provisioner: AUTO_MODE_COMPONENTS.provisioner,
            ingressController: AUTO_MODE_COMPONENTS.ingressController,
            loadBalancerClass: AUTO_MODE_COMPONENTS.loadBalancerClass,
        });
    });
});

describe("platform profile: reading one back (readProfile)", () => {
    const good = (): PlatformProfile =>
        JSON.parse(JSON.stringify(profileOf("qa", "eks-platform", [cluster("1.34"), ...TWO_GROUPS], ROOT))) as PlatformProfile;

    it("reads back what it wrote, with no warning from the same pack version", () => {
        const profile = good();
        expect(readProfile(writeTemp(profile), ROOT), "rule: a profile reads back as written").to.deep.equal({ profile, warnings: [] });
    });

    it("reads a profile rendered before loadBalancerClasses, autoMode and the context's parents joined it", () => {
        const older: Record<string, unknown> = { ...good() };
        delete older.loadBalancerClasses;
        delete older.autoMode;
        older.context = (older.context as Record<string, unknown>[]).map(({ parent: _parent, ...r }) => r);
        const { profile } = readProfile(writeTemp(older), ROOT);
        expect(profile, "rule: an older profile of format 1 is still read").to.not.have.any.keys("loadBalancerClasses", "autoMode");
        expect(profile.context.some((r) => r.parent !== undefined)).to.equal(false);
    });

    it("refuses another format version, naming the one it reads, and a file that is no JSON", () => {
        expect(() => readProfile(writeTemp({ ...good(), formatVersion: 2 }), ROOT), "rule: another format is refused").to.throw(
            /formatVersion 2 is not 1, the format this tool reads: render the profile again/,
        );
        expect(() => readProfile(writeTemp({ ...good(), formatVersion: undefined }), ROOT)).to.throw(/formatVersion undefined is not 1/);
        expect(() => readProfile(writeTemp("{not json"), ROOT), "rule: no JSON, no profile").to.throw(/p\.json: not a platform profile: /);
    });

    it("names every bad key of an invalid profile, and refuses what is no object", () => {
        const bad = { ...good(), stack: 3, nodeGroups: [{ name: "x" }] };
        expect(() => readProfile(writeTemp(bad), ROOT), "rule: every bad key is named").to.throw(
            /not a valid platform profile:\n {2}stack: [^\n]*\n {2}nodeGroups\.0\.kind: /,
        );
        expect(() => readProfile(writeTemp([1]), ROOT)).to.throw(/formatVersion undefined is not 1/);
    });

    it("warns when another pack version or another pack rendered it, naming both", () => {
        const profile = good();
        const other = readProfile(writeTemp({ ...profile, pack: { ...profile.pack, version: "0.0.1" } }), ROOT);
        expect(other.warnings, "rule: another pack version's profile is judged by this pack, said so").to.have.length(1);
        expect(other.warnings[0]).to.match(
            /p\.json was rendered with eks-platform-policies 0\.0\.1, this is eks-platform-policies \d[^:]*: its platform context is judged by this pack's rules$/,
        );
        expect(readProfile(writeTemp({ ...profile, pack: { ...profile.pack, name: "acme-policies" } }), ROOT).warnings[0]).to.match(
            /rendered with acme-policies /,
        );
    });
});

describe("platform profile: --namespace (namespaceOption)", () => {
    it("takes a --namespace that is a namespace name, and refuses one that is not", () => {
        expect(namespaceOption("shop")).to.equal("shop");
        expect(namespaceOption(undefined)).to.equal(undefined);
        expect(() => namespaceOption("Shop_1"), "rule: --namespace is a namespace name").to.throw(
            /--namespace "Shop_1" is not a namespace name/,
        );
    });
});
