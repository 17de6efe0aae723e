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
import Ajv2020 from "ajv/dist/2020";
import { AUTO_MODE_ANNOTATIONS, AUTO_MODE_COMPONENTS, AUTO_MODE_READINESS_GATE, LOAD_BALANCER_CONTROLLER_API } from "eks-platform-kernel";
import { describeCapacity } from "eks-platform-rehearsal";
import type { GateResource } from "../../../tools/gate/requests";
import { profileResources } from "../../../tools/manifests/drainInput";
import {
    autoModeSummary,
    namespaceOption,
    type PlatformProfile,
    PROFILE_FORMAT_VERSION,
    profileContext,
    profileJsonSchema,
    profileNamespaces,
    profileOf,
    readProfile,
} from "../../../tools/manifests/platformProfile";
import { ROOT } from "../../mocks";
import { changed, type TestResource, urnOf } from "../../policies/harness";
import { asg, hook, managed, nodePool } from "../../rehearsal/scenario";

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

/** A StorageClass `gp3` of the EBS CSI driver, the default, and an IngressClass `alb` of the AWS Load Balancer Controller. */
const GP3 = planned({
    type: "kubernetes:storage.k8s.io/v1:StorageClass",
    name: "gp3",
    props: {
        apiVersion: "storage.k8s.io/v1",
        kind: "StorageClass",
        metadata: { name: "gp3", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
        provisioner: "ebs.csi.aws.com",
    },
});
const ALB = planned({
    type: "kubernetes:networking.k8s.io/v1:IngressClass",
    name: "alb",
    props: {
        apiVersion: "networking.k8s.io/v1",
        kind: "IngressClass",
        metadata: { name: "alb" },
        spec: { controller: "ingress.k8s.aws/alb" },
    },
});

/**
 * A platform with every part a profile holds: add-ons (EBS CSI, metrics-server, the AWS Load
 * Balancer Controller's chart), classes, an EKS Auto Mode cluster (not first), a tainted Spot managed
 * group, two self-managed groups with hooks, NodePools on-demand and of either capacity type, a
 * namespace with a quota, a LimitRange and a NetworkPolicy.
 */
function fullPlatform(): GateResource[] {
    const system = managed("system", 2);
    system.props = { ...system.props, capacityType: "SPOT", taints: [{ key: "CriticalAddonsOnly", value: "true", effect: "NO_SCHEDULE" }] };
    const mixed = changed(nodePool("mixed"), "spec.template.spec.requirements", [
        { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot", "on-demand"] },
        { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.large"] },
    ]);
    return [
        planned({ type: "aws:eks/addon:Addon", name: "ebs-csi", props: { addonName: "aws-ebs-csi-driver", clusterName: "platform-qa" } }),
        planned({ type: "aws:eks/addon:Addon", name: "metrics", props: { addonName: "metrics-server", clusterName: "platform-qa" } }),
        cluster("1.34", { autoMode: { enabled: true, computeConfig: { nodePools: ["general-purpose"] } } }),
        planned({
            type: "kubernetes:helm.sh/v3:Release",
            name: "lbc",
            props: { chart: "aws-load-balancer-controller", namespace: "kube-system" },
        }),
        GP3,
        ALB,
        planned(system),
        ...TWO_GROUPS,
        planned(nodePool("workers")),
        planned(mixed),
        ...[
            object("Namespace", "shop", undefined, { metadata: { name: "shop", labels: { team: "shop" } } }),
            object("ResourceQuota", "compute", "shop", { spec: { hard: { "requests.cpu": "4", pods: "10" } } }),
            object("LimitRange", "defaults", "shop", { spec: { limits: [{ type: "Container", default: { cpu: "500m" } }] } }),
            object("NetworkPolicy", "default-deny", "shop"),
        ].map((r) => planned(r)),
    ];
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

    it("serves the classes the platform creates, by name, and says what runs: the controller, the metrics API, Auto Mode and its default NLB class", () => {
        const profile = profileOf("qa", "eks-platform", fullPlatform(), ROOT);
        expect(profile.cluster.name, "rule: the cluster is the eks:index:Cluster, wherever the plan has it").to.equal("platform-qa");
        expect(profile.storageClasses, "rule: each StorageClass by its name, served by its driver").to.deep.equal([
            { name: "gp3", provisioner: "ebs.csi.aws.com", isDefault: true, served: true },
        ]);
        expect(profile.ingressClasses, "rule: each IngressClass by its name, served by its controller").to.deep.equal([
            { name: "alb", controller: "ingress.k8s.aws/alb", isDefault: false, served: true },
        ]);
        expect(profile.loadBalancerClasses, "rule: Auto Mode's NLB class is the default beside the controller's").to.deep.equal([
            { name: AUTO_MODE_COMPONENTS.loadBalancerClass, isDefault: true },
            { name: LOAD_BALANCER_CONTROLLER_API.loadBalancerClass, isDefault: false },
        ]);
        expect(profile, "rule: what runs is said").to.deep.include({ loadBalancerController: true, metricsApi: true });
        expect(profile.autoMode?.builtInNodePools).to.deep.equal(["general-purpose"]);
        // And on a bare cluster, nothing runs.
        const bare = profileOf("qa", "eks-platform", [GP3, cluster("1.34")], ROOT);
        expect(bare, "rule: nothing is served that the plan does not run").to.deep.include({
            loadBalancerController: false,
            metricsApi: false,
            autoMode: null,
            loadBalancerClasses: [],
        });
        expect(bare.storageClasses[0].served).to.equal(false);
        expect(bare.cluster.name).to.equal("platform-qa");
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

    it("lists the annotations AWS documents Auto Mode honouring or refusing, each as the kernel has it, and what AWS leaves undecided", () => {
        const summary = autoModeSummary(profileContext([cluster("1.34", { autoMode: { enabled: true } })])[0]);
        expect(summary?.annotations, "rule: every documented annotation, with its verdict and source").to.deep.equal(
            JSON.parse(JSON.stringify(AUTO_MODE_ANNOTATIONS)),
        );
        expect(summary?.annotations.map((a) => a.verdict)).to.include.members(["honoured", "refused"]);
        const undecided = summary?.undecided ?? [];
        expect(undecided, "rule: three things AWS leaves undecided").to.have.length(3);
        expect(undecided[0], "other Ingress annotations").to.match(
            new RegExp(`^any other ${LOAD_BALANCER_CONTROLLER_API.ingressAnnotationPrefix}\\* annotation on an Ingress`),
        );
        expect(undecided[1], "other Service annotations").to.match(
            new RegExp(`^any other ${LOAD_BALANCER_CONTROLLER_API.serviceAnnotationPrefix}\\* annotation on a Service`),
        );
        expect(undecided[2], "readiness gates, by either label")
            .to.include(AUTO_MODE_READINESS_GATE.controllerLabel)
            .and.include(AUTO_MODE_READINESS_GATE.reportedLabel);
    });
});

describe("platform profile: reading one back (readProfile)", () => {
    const good = (): PlatformProfile =>
        JSON.parse(JSON.stringify(profileOf("qa", "eks-platform", fullPlatform(), ROOT))) as PlatformProfile;

    it("reads back what it wrote, every field of every part, with no warning from the same pack version", () => {
        const profile = good();
        // The platform holds every kind of part, so a field the schema forgot would be dropped here.
        expect(new Set(profile.nodeGroups.map((g) => g.kind))).to.deep.equal(new Set(["managed", "selfManaged", "nodePool"]));
        expect(new Set(profile.nodeGroups.map((g) => g.capacityType))).to.deep.equal(new Set(["spot", "on-demand", "spot or on-demand"]));
        expect(profile.nodeGroups.map((g) => g.zones)).to.deep.include("every zone of the cluster");
        expect(profile.nodeGroups.flatMap((g) => g.taints)).to.not.deep.equal([]);
        expect(profile.namespaces.flatMap((n) => [...n.quotas, ...n.limitRanges])).to.have.length(2);
        expect(profile.autoMode?.annotations.length).to.be.greaterThan(0);
        expect(readProfile(writeTemp(profile), ROOT), "rule: a profile reads back as written, every field kept").to.deep.equal({
            profile,
            warnings: [],
        });
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

describe("platform profile: its published JSON Schema (profileJsonSchema)", () => {
    it("is the reader's schema as JSON Schema, titled and described: it accepts what readProfile reads and refuses what it refuses", () => {
        const schema = profileJsonSchema();
        expect(schema, "rule: the published schema says what it describes").to.deep.include({
            title: "EKS platform profile",
            description: "What an application repository needs to know about the platform stack it deploys to (npm run profile).",
        });
        const validate = new Ajv2020({ strict: false }).compile(schema);
        const profile = JSON.parse(JSON.stringify(profileOf("qa", "eks-platform", fullPlatform(), ROOT))) as PlatformProfile;
        expect(validate(profile), JSON.stringify(validate.errors)).to.equal(true);
        expect(
            validate({ ...profile, nodeGroups: [{ name: "x" }] }),
            "rule: the published schema refuses what the reader refuses",
        ).to.equal(false);
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
