import { expect } from "chai";
import { clusterScopedPolicy, loadBalancerControllerValues } from "../../../components/addons/loadBalancerController";
import { LOAD_BALANCER_CONTROLLER_RELEASES } from "../../../components/addons/loadBalancerControllerReleases";
import type { PolicyDocument } from "../../../components/iam";
import { systemPlacement } from "../../../components/nodegroups/schema";
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

describe("clusterScopedPolicy: the controller's upstream policy confined to one cluster of the account", () => {
    const upstream = LOAD_BALANCER_CONTROLLER_RELEASES["1.13.3"].policy;
    const scoped = clusterScopedPolicy(upstream, "platform-dev");
    const conditionsOf = (doc: PolicyDocument, action: string) =>
        doc.Statement.filter((s) => [s.Action ?? []].flat().includes(action)).map((s) => s.Condition ?? {});

    it("asks for this cluster's name wherever upstream asks only that the controller's tag exist (it tags with its --cluster-name: pkg/deploy/tracking/provider.go)", () => {
        let tagged = 0;
        upstream.Statement.forEach((s, i) => {
            const nulls = (s.Condition?.Null ?? {}) as Record<string, string>;
            for (const key of ["aws:ResourceTag/elbv2.k8s.aws/cluster", "aws:RequestTag/elbv2.k8s.aws/cluster"]) {
                if (nulls[key] === "false") {
                    tagged++;
                    expect(scoped.Statement[i].Condition?.StringEquals?.[key], `statement ${i} ${key}`).to.equal("platform-dev");
                    // Upstream's own conditions stay.
                    expect(scoped.Statement[i].Condition?.Null).to.deep.equal(s.Condition?.Null);
                }
            }
        });
        expect(tagged, "upstream's tag-only conditions").to.be.at.least(6);
        // A CreateAction condition upstream sets is kept beside the new one.
        const create = conditionsOf(scoped, "elasticloadbalancing:AddTags").find(
            (c) => c.StringEquals?.["elasticloadbalancing:CreateAction"],
        );
        expect(create?.StringEquals).to.deep.include({ "aws:RequestTag/elbv2.k8s.aws/cluster": "platform-dev" });
    });

    it("opens only this cluster's security groups to its load balancers, no longer any of the account's (resolveEndpointSGForENI picks the kubernetes.io/cluster/<name> group)", () => {
        const open = scoped.Statement.filter(
            (s) => [s.Action].flat().includes("ec2:AuthorizeSecurityGroupIngress") && s.Condition?.Null === undefined,
        );
        expect(open).to.have.length(1);
        expect(open[0].Condition).to.deep.equal({
            StringEquals: { "aws:ResourceTag/kubernetes.io/cluster/platform-dev": ["owned", "shared"] },
        });
        for (const s of scoped.Statement) {
            const actions = [s.Action].flat();
            if (actions.some((a) => a === "ec2:AuthorizeSecurityGroupIngress" || a === "ec2:DeleteSecurityGroup")) {
                expect(s.Condition, JSON.stringify(actions)).to.not.equal(undefined);
            }
        }
    });

    it("changes nothing else: the same statements, actions and resources, and unconditioned statements that are not the ingress one stay as upstream wrote them", () => {
        expect(scoped.Statement).to.have.length(upstream.Statement.length);
        upstream.Statement.forEach((s, i) => {
            expect(scoped.Statement[i].Action).to.deep.equal(s.Action);
            expect(scoped.Statement[i].Resource).to.deep.equal(s.Resource);
            const actions = [s.Action].flat();
            const isIngress =
                s.Condition === undefined &&
                actions.every((a) => a === "ec2:AuthorizeSecurityGroupIngress" || a === "ec2:RevokeSecurityGroupIngress");
            const tagOnly = Object.values((s.Condition?.Null ?? {}) as Record<string, string>).includes("false");
            if (!isIngress && !tagOnly) {
                expect(scoped.Statement[i], `statement ${i}`).to.deep.equal(s);
            }
        });
        // Pure: upstream's data is untouched.
        expect(JSON.stringify(upstream)).to.not.include("platform-dev");
    });

    it("touches a statement with ingress actions only when it is unconditioned, on *, and holds nothing else", () => {
        const doc: PolicyDocument = {
            Version: "2012-10-17",
            Statement: [
                { Effect: "Allow", Action: ["ec2:AuthorizeSecurityGroupIngress", "ec2:CreateSecurityGroup"], Resource: "*" },
                { Effect: "Allow", Action: "ec2:RevokeSecurityGroupIngress", Resource: "arn:aws:ec2:*:*:security-group/sg-1" },
                { Effect: "Allow", Action: "ec2:RevokeSecurityGroupIngress", Resource: "*" },
                { Effect: "Allow", Action: [], Resource: "*" },
            ],
        };
        const out = clusterScopedPolicy(doc, "c");
        expect(out.Statement[0]).to.deep.equal(doc.Statement[0]);
        expect(out.Statement[1]).to.deep.equal(doc.Statement[1]);
        expect(out.Statement[2].Condition).to.deep.equal({
            StringEquals: { "aws:ResourceTag/kubernetes.io/cluster/c": ["owned", "shared"] },
        });
        expect(out.Statement[3]).to.deep.equal(doc.Statement[3]);
    });
});
