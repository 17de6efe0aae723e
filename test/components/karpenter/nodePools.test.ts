import { expect } from "chai";
import type { NodePoolConfig } from "../../../components/karpenter/schema";
import { renderEC2NodeClass, renderNodePool } from "../../../components/karpenter/nodePools";
import { validateKubernetesObject } from "../../../tools/gate/schema";
import { karpenterOf, NODECLASS, NODEPOOL } from "./fixtures";

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

    it("renders extended-resource limits next to cpu and memory, passing the official v1 schema", async () => {
        const gpu: NodePoolConfig = {
            ...dev.nodePools.general,
            requirements: [{ key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["g5", "g6"] }],
            taints: [{ key: "nvidia.com/gpu", effect: "NoSchedule" }],
            limits: { cpu: "64", memory: "256Gi", "nvidia.com/gpu": "8" },
        };
        const rendered = renderNodePool("gpu", gpu);
        expect(rendered.spec.limits).to.deep.equal({ cpu: "64", memory: "256Gi", "nvidia.com/gpu": "8" });
        await validateKubernetesObject(NODEPOOL, rendered as unknown as Record<string, unknown>);
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
