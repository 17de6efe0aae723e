import * as k8s from "@pulumi/kubernetes";
import { expect } from "chai";
import { containerLimitRange, Namespaces, quotaHard } from "../components/namespaces";
import { RecordingMocks } from "../tools/offline";
import { named, ofType, settled, useMocks } from "./mocks";

const team = {
    labels: { team: "payments" },
    quota: { requestsCpu: "4", requestsMemory: "8Gi", limitsCpu: "8", limitsMemory: "16Gi", pods: 10 },
    containerDefaults: { request: { cpu: "100m", memory: "128Mi" }, limit: { cpu: "500m", memory: "512Mi" } },
};

describe("Namespaces component", () => {
    let mocks: RecordingMocks;
    before(async () => {
        mocks = await useMocks("up");
        const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
        new Namespaces("ns", { namespaces: { payments: team, search: { ...team, labels: {} } }, provider });
        await settled();
    });

    it("maps quota config onto ResourceQuota keys", () => {
        expect(quotaHard(team.quota)).to.deep.equal({
            "requests.cpu": "4",
            "requests.memory": "8Gi",
            "limits.cpu": "8",
            "limits.memory": "16Gi",
            pods: "10",
        });
        expect(containerLimitRange(team.containerDefaults)).to.deep.equal({
            type: "Container",
            defaultRequest: { cpu: "100m", memory: "128Mi" },
            default: { cpu: "500m", memory: "512Mi" },
        });
    });

    it("creates each namespace with its static name and labels, retained when removed from config", () => {
        const namespaces = ofType(mocks.resources, "kubernetes:core/v1:Namespace");
        expect(namespaces.map((n) => (n.props.metadata as { name: string }).name)).to.have.members(["payments", "search"]);
        const payments = named(mocks.resources, "kubernetes:core/v1:Namespace", "ns-payments");
        expect((payments.props.metadata as { labels: Record<string, string> }).labels).to.include({ team: "payments" });
        for (const n of namespaces) {
            expect(n.options.retainOnDelete, n.name).to.equal(true);
        }
    });

    it("gives every namespace a quota and a LimitRange inside it, after it exists", () => {
        for (const ns of ["payments", "search"]) {
            const quota = named(mocks.resources, "kubernetes:core/v1:ResourceQuota", `ns-${ns}-quota`);
            expect(quota.props.metadata).to.include({ namespace: ns });
            expect((quota.props.spec as { hard: Record<string, string> }).hard).to.deep.equal(quotaHard(team.quota));
            expect(quota.options.dependsOn).to.deep.equal([`ns-${ns}`]);
            const limits = named(mocks.resources, "kubernetes:core/v1:LimitRange", `ns-${ns}-defaults`);
            expect(limits.props.metadata).to.include({ namespace: ns });
            expect(limits.options.dependsOn).to.deep.equal([`ns-${ns}`]);
        }
    });
});
