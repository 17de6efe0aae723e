import { expect } from "chai";
import { loadBalancerControllerValues } from "../../../components/addons/loadBalancerController";
import { LOAD_BALANCER_CONTROLLER_RELEASES } from "../../../components/addons/loadBalancerControllerReleases";
import { systemPlacement } from "../../../components/nodegroups/scheduling";
import { statementFindings } from "eks-platform-policies";
import { ADDONS } from "./fixtures";

describe("AWS Load Balancer Controller (pure)", () => {
    it("keeps, for every release, upstream's policy at that release's tag: a valid document with nothing too broad", () => {
        for (const [chart, release] of Object.entries(LOAD_BALANCER_CONTROLLER_RELEASES)) {
            expect(release.policySource, chart).to.equal(
                `https://raw.githubusercontent.com/kubernetes-sigs/aws-load-balancer-controller/${release.appVersion}/docs/install/iam_policy.json`,
            );
            expect(release.policy.Version, chart).to.equal("2012-10-17");
            expect(release.policy.Statement.length, chart).to.be.greaterThan(10);
            for (const s of release.policy.Statement) {
                expect(statementFindings(s), JSON.stringify(s)).to.deep.equal([]);
                expect(s.Effect).to.equal("Allow");
            }
            // The statements upstream scopes to resources the controller tagged for a cluster.
            expect(JSON.stringify(release.policy)).to.include('"aws:ResourceTag/elbv2.k8s.aws/cluster":"false"');
            // An inline role policy holds at most 10,240 characters without whitespace.
            expect(JSON.stringify(release.policy).length).to.be.lessThan(10_240);
        }
    });

    it("pins the controller, gives it region and VPC (no IMDS hop from a pod), two replicas with a PDB, on system nodes", () => {
        const values = loadBalancerControllerValues({
            clusterName: "acme",
            region: "eu-west-1",
            vpcId: "vpc-1",
            config: ADDONS.loadBalancerController,
            placement: systemPlacement(true),
        });
        expect(values).to.deep.include({
            clusterName: "acme",
            region: "eu-west-1",
            vpcId: "vpc-1",
            replicaCount: 2,
            podDisruptionBudget: { maxUnavailable: 1 },
            image: { tag: LOAD_BALANCER_CONTROLLER_RELEASES[ADDONS.loadBalancerController.chartVersion].appVersion },
            nodeSelector: { "platform/role": "system" },
            tolerations: [{ key: "CriticalAddonsOnly", operator: "Exists" }],
        });
        expect(values.resources).to.deep.equal(ADDONS.loadBalancerController.resources);
    });

    it("fails open on the pod webhook (pods evicted by a drain are still recreated) and closed on the Service webhook", () => {
        const values = loadBalancerControllerValues({
            clusterName: "acme",
            region: "eu-west-1",
            vpcId: "vpc-1",
            config: ADDONS.loadBalancerController,
            placement: systemPlacement(false),
        });
        expect(values).to.deep.include({
            podMutatorWebhookConfig: { failurePolicy: "Ignore" },
            serviceMutatorWebhookConfig: { failurePolicy: "Fail" },
        });
        expect(values.nodeSelector).to.deep.equal({});
    });
});
