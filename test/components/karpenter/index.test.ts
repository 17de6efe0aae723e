import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import { Karpenter } from "../../../components/karpenter";
import type { RecordedResource, RecordingMocks } from "../../../tools/render/offline";
import { validateKubernetesObject } from "../../../tools/gate/schema";
import { named, ofType, settled, useMocks } from "../../mocks";
import { karpenterOf, NODECLASS, NODEPOOL } from "./fixtures";

const RELEASE = "kubernetes:helm.sh/v3:Release";

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
