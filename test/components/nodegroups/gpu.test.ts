import { expect } from "chai";
import { devicePluginValues, GpuPoolCandidate, gpuNodes, hasGpuNodes } from "../../../components/nodegroups/gpu";
import { nodeGroupsSchema, tolerates } from "../../../components/nodegroups/schema";
import { validateKubernetesObject } from "../../../tools/gate/schema";

const base = { kind: "managed", minSize: 0, desiredSize: 0, maxSize: 2, releaseVersion: "1.34.7-20260512" };
const system = { ...base, instanceTypes: ["m6i.large"], minSize: 2, desiredSize: 2, labels: { "platform/role": "system" } };
const gpuGroup = { ...base, amiType: "AL2023_x86_64_NVIDIA", instanceTypes: ["g4dn.xlarge"] };
const groups = (spec: Record<string, Record<string, unknown>>) => nodeGroupsSchema.parse(spec);

const family = (...values: string[]) => ({ key: "karpenter.k8s.aws/instance-family", operator: "In" as const, values });
const ML_TAINT = { key: "team", value: "ml", effect: "NoExecute" as const };
const GPU_POOL_TAINT = { key: "nvidia.com/gpu", effect: "NoSchedule" as const };
const gpuPool: GpuPoolCandidate = { requirements: [family("g5", "g6")], taints: [GPU_POOL_TAINT, ML_TAINT] };
const cpuPool: GpuPoolCandidate = {
    requirements: [family("m5", "m6i", "c5")],
    taints: [{ key: "workload", value: "batch", effect: "NoSchedule" }],
};

type Values = { nodeSelector?: Record<string, string>; affinity: any; tolerations: any[] };
const termsOf = (values: Values) => values.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
const podWith = (values: Values) => ({
    metadata: { name: "probe", namespace: "kube-system" },
    spec: {
        containers: [{ name: "c", image: "registry.example/c:1" }],
        ...(values.nodeSelector ? { nodeSelector: values.nodeSelector } : {}),
        tolerations: values.tolerations,
        affinity: values.affinity,
    },
});

describe("nodegroups: the NVIDIA device plugin's GPU nodes (pure)", () => {
    it("serves a NodePool that may launch NVIDIA types without any GPU group", () => {
        const nodes = gpuNodes(groups({ system }), { gpu: gpuPool, general: cpuPool });
        expect(nodes).to.deep.equal({ groups: {}, pools: { gpu: [GPU_POOL_TAINT, ML_TAINT] } });
        expect(hasGpuNodes(nodes)).to.equal(true);
    });

    it("serves nothing for pools of CPU families and groups without an NVIDIA AMI", () => {
        const nodes = gpuNodes(groups({ system }), { general: cpuPool });
        expect(nodes).to.deep.equal({ groups: {}, pools: {} });
        expect(hasGpuNodes(nodes)).to.equal(false);
        expect(() => devicePluginValues(nodes)).to.throw(/no GPU node group or NodePool/);
    });

    it("serves enabled GPU groups with their taints, the NVIDIA taint the program adds included", () => {
        const nodes = gpuNodes(groups({ system, gpu: gpuGroup, off: { ...gpuGroup, enabled: false } }));
        expect(nodes).to.deep.equal({ groups: { gpu: [{ key: "nvidia.com/gpu", value: "true", effect: "NoSchedule" }] }, pools: {} });
    });

    it("tolerates every taint of the pools it serves, and of no pool it does not", async () => {
        const values = devicePluginValues(gpuNodes(groups({ system }), { gpu: gpuPool, general: cpuPool })) as Values;
        for (const taint of gpuPool.taints) {
            expect(tolerates(values.tolerations, { ...taint, value: taint.value ?? "" }), taint.key).to.equal(true);
        }
        expect(tolerates(values.tolerations, { key: "workload", value: "batch", effect: "NoSchedule" })).to.equal(false);
        expect(tolerates(values.tolerations, { key: "CriticalAddonsOnly", value: "true", effect: "NoSchedule" })).to.equal(false);
        await validateKubernetesObject("kubernetes:core/v1:Pod", podWith(values));
    });

    it("selects Karpenter's NVIDIA nodes by their GPU maker label, without the group label's nodeSelector", () => {
        const values = devicePluginValues(gpuNodes(groups({ system }), { gpu: gpuPool })) as Values;
        expect(values.nodeSelector).to.equal(undefined);
        expect(termsOf(values)).to.deep.equal([
            { matchExpressions: [{ key: "karpenter.k8s.aws/instance-gpu-manufacturer", operator: "In", values: ["nvidia"] }] },
        ]);
    });

    it("selects group and pool GPU nodes with one ORed term each when both exist, tolerating both's taints once", async () => {
        const values = devicePluginValues(gpuNodes(groups({ system, gpu: gpuGroup }), { gpu: gpuPool })) as Values;
        expect(values.nodeSelector).to.equal(undefined);
        expect(termsOf(values)).to.deep.equal([
            { matchExpressions: [{ key: "accelerator", operator: "In", values: ["nvidia"] }] },
            { matchExpressions: [{ key: "karpenter.k8s.aws/instance-gpu-manufacturer", operator: "In", values: ["nvidia"] }] },
        ]);
        // The group's nvidia.com/gpu=true and the pool's valueless nvidia.com/gpu share one toleration.
        expect(values.tolerations).to.deep.equal([
            { key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" },
            { key: "team", operator: "Exists", effect: "NoExecute" },
        ]);
        await validateKubernetesObject("kubernetes:core/v1:Pod", podWith(values));
    });

    it("keeps the values of a stack with GPU groups only as they were: nodeSelector, one term, the NVIDIA taint", () => {
        const values = devicePluginValues(gpuNodes(groups({ system, gpu: gpuGroup }), { general: cpuPool })) as Values;
        expect(values.nodeSelector).to.deep.equal({ accelerator: "nvidia" });
        expect(termsOf(values)).to.deep.equal([{ matchExpressions: [{ key: "accelerator", operator: "In", values: ["nvidia"] }] }]);
        expect(values.tolerations).to.deep.equal([{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }]);
    });
});
