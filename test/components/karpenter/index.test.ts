import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import type { EnabledKarpenterConfig, NodePoolConfig } from "../../../components/config/karpenter";
import { Karpenter } from "../../../components/karpenter";
import { controllerValues } from "../../../components/karpenter/controller";
import { renderEC2NodeClass, renderNodePool } from "../../../components/karpenter/nodePools";
import type { RecordedResource, RecordingMocks } from "../../../tools/offline";
import { validateKubernetesObject } from "../../../tools/schema";
import { named, ofType, settled, useMocks } from "../../mocks";
import { fixtureProject, stackConfig } from "../../stackFiles";

/** The Karpenter section of a fixture stack. */
function karpenterOf(stack: string): EnabledKarpenterConfig {
    const k = stackConfig(stack, fixtureProject()).karpenter;
    if (!k.enabled) {
        throw new Error(`karpenter is disabled in ${stack}`);
    }
    return k;
}

const NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool";
const NODECLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass";
const RELEASE = "kubernetes:helm.sh/v3:Release";

describe("karpenter: Helm values (pure)", () => {
    const values = controllerValues({
        clusterName: "demo",
        region: "eu-west-1",
        interruptionQueue: "demo-karpenter",
        controller: karpenterOf("prod").controller,
    }) as Record<string, any>;

    it("points the controller at this cluster and its interruption queue", () => {
        expect(values.settings).to.deep.equal({ clusterName: "demo", interruptionQueue: "demo-karpenter" });
        expect(values.serviceAccount).to.deep.equal({ create: true, name: "karpenter" });
        expect(values.controller.env).to.deep.include({ name: "AWS_REGION", value: "eu-west-1" });
    });

    it("runs 2 replicas with resources, a PDB allowing one eviction and a bounded grace period", () => {
        expect(values.replicas).to.equal(2);
        expect(values.controller.resources).to.deep.equal({ requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "2", memory: "1Gi" } });
        expect(values.podDisruptionBudget.maxUnavailable).to.equal(1);
        expect(values.terminationGracePeriodSeconds).to.be.within(1, 120);
    });

    it("schedules on platform/role: system nodes, tolerates CriticalAddonsOnly and never lands on a Karpenter node", () => {
        expect(values.nodeSelector).to.deep.include({ "platform/role": "system" });
        expect(values.tolerations).to.deep.include({ key: "CriticalAddonsOnly", operator: "Exists" });
        const terms = values.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
        expect(terms).to.deep.equal([{ matchExpressions: [{ key: "karpenter.sh/nodepool", operator: "DoesNotExist" }] }]);
        expect(values.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey).to.equal(
            "kubernetes.io/hostname",
        );
    });
});

describe("karpenter: rendered objects (pure)", () => {
    const dev = karpenterOf("dev");
    const prod = karpenterOf("prod");

    it("always renders the complete v1 nodeClassRef, even from a name-only reference", () => {
        // What a tutorial copy would carry if it bypassed config validation: the name alone.
        const tutorial = { ...dev.nodePools.general, nodeClassRef: { name: "default" } as NodePoolConfig["nodeClassRef"] };
        const rendered = renderNodePool("general", tutorial);
        expect(rendered.spec.template.spec.nodeClassRef).to.deep.equal({
            group: "karpenter.k8s.aws",
            kind: "EC2NodeClass",
            name: "default",
        });
    });

    it("renders limits, terminationGracePeriod, expireAfter and the disruption settings of the config", () => {
        const batch = renderNodePool("batch-spot", prod.nodePools["batch-spot"]);
        expect(batch.spec.limits).to.deep.equal({ cpu: "128", memory: "512Gi" });
        expect(batch.spec.template.spec).to.deep.include({ terminationGracePeriod: "15m", expireAfter: "168h" });
        expect(batch.spec.template.spec.taints).to.deep.equal([{ key: "workload", value: "batch", effect: "NoSchedule" }]);
        expect(batch.spec.template.metadata?.labels).to.deep.equal({ workload: "batch" });
        expect(batch.spec.disruption.consolidationPolicy).to.equal("WhenEmpty");
        expect(batch.spec.weight).to.equal(50);
        const exists = batch.spec.template.spec.requirements.find((r) => r.operator === "Exists");
        expect(exists).to.deep.equal({ key: "karpenter.k8s.aws/instance-family", operator: "Exists", minValues: 5 });
    });

    it("renders an EC2NodeClass with the node role, discovery selectors, IMDSv2 and an encrypted gp3 root volume", () => {
        const nc = renderEC2NodeClass("default", prod.nodeClasses.default, { clusterName: "demo", nodeRoleName: "demo-karpenter-node" });
        expect(nc.spec.role).to.equal("demo-karpenter-node");
        expect(nc.spec.amiSelectorTerms).to.deep.equal([{ alias: "al2023@v20260512" }]);
        expect(nc.spec.subnetSelectorTerms).to.deep.equal([{ tags: { "karpenter.sh/discovery": "demo" } }]);
        expect(nc.spec.securityGroupSelectorTerms).to.deep.equal([{ tags: { "karpenter.sh/discovery": "demo" } }]);
        expect(nc.spec.metadataOptions).to.deep.equal({ httpEndpoint: "enabled", httpPutResponseHopLimit: 1, httpTokens: "required" });
        expect(nc.spec.blockDeviceMappings).to.deep.equal([
            {
                deviceName: "/dev/xvda",
                rootVolume: true,
                ebs: { volumeSize: "100Gi", volumeType: "gp3", iops: 3000, throughput: 125, encrypted: true, deleteOnTermination: true },
            },
        ]);
        expect(nc.spec.tags).to.deep.equal({ team: "platform" });
    });

    it("passes the official Karpenter v1 schemas for every pool and class of both stacks", async () => {
        let checked = 0;
        for (const k of [dev, prod]) {
            for (const [name, pool] of Object.entries(k.nodePools)) {
                await validateKubernetesObject(NODEPOOL, renderNodePool(name, pool) as unknown as Record<string, unknown>);
                checked++;
            }
            for (const [name, nc] of Object.entries(k.nodeClasses)) {
                await validateKubernetesObject(
                    NODECLASS,
                    renderEC2NodeClass(name, nc, { clusterName: "demo", nodeRoleName: "demo-karpenter-node" }) as unknown as Record<
                        string,
                        unknown
                    >,
                );
                checked++;
            }
        }
        expect(checked).to.equal(5);
    });

    it("the schema judge itself rejects a broken NodePool (so passing means something)", async () => {
        const broken = renderNodePool("general", dev.nodePools.general) as unknown as {
            spec: { template: { spec: Record<string, unknown> } };
        };
        delete broken.spec.template.spec.nodeClassRef;
        let error: unknown;
        try {
            await validateKubernetesObject(NODEPOOL, broken);
        } catch (err) {
            error = err;
        }
        expect(String(error)).to.match(/nodeClassRef/);
    });
});

describe("karpenter: component in the cluster", () => {
    let mocks: RecordingMocks;
    const one = (type: string, name: string): RecordedResource => named(mocks.resources, type, name);
    before(async () => {
        mocks = await useMocks("up");
        const cluster = new pulumi.ComponentResource("test:index:Cluster", "cp");
        const systemGroup = new pulumi.ComponentResource("test:index:NodeGroup", "system-group");
        const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
        new Karpenter("kp", {
            clusterName: "demo",
            region: "us-east-1",
            cluster,
            provider,
            config: karpenterOf("prod"),
            systemNodes: [systemGroup],
        });
        await settled();
    });

    it("installs the CRDs and the controller from the public OCI registry at the pinned version, in kube-system", () => {
        const crds = one(RELEASE, "kp-controller-crds");
        expect(crds.props).to.include({
            chart: "oci://public.ecr.aws/karpenter/karpenter-crd",
            version: "1.14.1",
            namespace: "kube-system",
            name: "karpenter-crd",
        });
        const release = one(RELEASE, "kp-controller-release");
        expect(release.props).to.include({
            chart: "oci://public.ecr.aws/karpenter/karpenter",
            version: "1.14.1",
            namespace: "kube-system",
            name: "karpenter",
            skipCrds: true,
        });
        const values = release.props.values as Record<string, any>;
        expect(values.settings).to.deep.equal({ clusterName: "demo", interruptionQueue: "demo-karpenter" });
        expect(values.replicas).to.equal(2);
    });

    it("starts the controller only after its CRDs, its permissions, its Pod Identity association and the system nodes", () => {
        const dependsOn = one(RELEASE, "kp-controller-release").options.dependsOn ?? [];
        expect(dependsOn).to.include.members(["kp-controller-crds", "system-group"]);
        // The role policy and the Pod Identity association share the logical name kp-aws-controller.
        one("aws:iam/rolePolicy:RolePolicy", "kp-aws-controller");
        one("aws:eks/podIdentityAssociation:PodIdentityAssociation", "kp-aws-controller");
        expect(dependsOn.filter((d) => d === "kp-aws-controller")).to.have.length(2);
    });

    it("creates every NodePool and EC2NodeClass as a Karpenter v1 custom resource after both releases", () => {
        const pools = ofType(mocks.resources, NODEPOOL);
        const classes = ofType(mocks.resources, NODECLASS);
        expect(pools.map((p) => p.name)).to.have.members(["kp-pools-pool-general", "kp-pools-pool-batch-spot"]);
        expect(classes.map((c) => c.name)).to.deep.equal(["kp-pools-class-default"]);
        for (const cr of [...pools, ...classes]) {
            expect(cr.options.dependsOn, cr.name).to.include.members(["kp-controller-crds", "kp-controller-release"]);
        }
        for (const pool of pools) {
            expect(pool.options.dependsOn, pool.name).to.include("kp-pools-class-default");
        }
        expect(classes[0].options.dependsOn).to.include.members(["kp-aws-node", "kp-aws-node-worker"]);
    });

    it("registers objects that pass the official schemas, with the static node role name", async () => {
        const objects = [...ofType(mocks.resources, NODEPOOL), ...ofType(mocks.resources, NODECLASS)];
        expect(objects).to.have.length(3);
        for (const o of objects) {
            await validateKubernetesObject(o.type, o.props);
        }
        const nc = one(NODECLASS, "kp-pools-class-default");
        expect((nc.props.spec as { role: string }).role).to.equal("demo-karpenter-node");
    });
});
