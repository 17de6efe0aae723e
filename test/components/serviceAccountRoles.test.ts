import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import { ServiceAccountRoles } from "../../components/serviceAccountRoles";
import { RecordingMocks } from "../../tools/render/offline";
import { ACCOUNT, json, named, ofType, settled, useMocks } from "../mocks";

describe("ServiceAccountRoles component", () => {
    let mocks: RecordingMocks;
    const statements = [{ Effect: "Allow" as const, Action: ["sqs:ReceiveMessage"], Resource: "arn:aws:sqs:us-east-1:111122223333:jobs" }];
    before(async () => {
        mocks = await useMocks("preview");
        new ServiceAccountRoles("sa", {
            clusterName: "acme",
            region: "us-east-1",
            namespaces: {
                analytics: {
                    serviceAccounts: { reports: { policyArns: ["arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess"], statements: [] } },
                },
                shop: { serviceAccounts: { worker: { policyArns: [], statements } } },
                empty: { serviceAccounts: {} },
            },
            cluster: new pulumi.ComponentResource("test:index:Cluster", "cp"),
        });
        await settled();
    });

    it("gives serviceAccounts.reports a role only analytics/reports of this cluster can assume, and the association that hands it over", () => {
        const role = named(mocks.resources, "aws:iam/role:Role", "sa-analytics-reports-role");
        expect(role.props.name).to.equal("acme-analytics-reports");
        const trust = json(role.props.assumeRolePolicy).Statement[0];
        expect(trust.Principal).to.deep.equal({ Service: "pods.eks.amazonaws.com" });
        expect(trust.Condition).to.deep.equal({
            StringEquals: {
                "aws:RequestTag/eks-cluster-arn": "arn:aws:eks:us-east-1:123456789012:cluster/acme",
                "aws:RequestTag/eks-cluster-name": "acme",
                "aws:RequestTag/kubernetes-namespace": "analytics",
                "aws:RequestTag/kubernetes-service-account": "reports",
            },
        });
        const association = named(
            mocks.resources,
            "aws:eks/podIdentityAssociation:PodIdentityAssociation",
            "sa-analytics-reports-association",
        );
        expect(association.props).to.deep.equal({
            clusterName: "acme",
            namespace: "analytics",
            serviceAccount: "reports",
            roleArn: `arn:aws:iam::${ACCOUNT}:role/acme-analytics-reports`,
        });
        expect(association.options.dependsOn).to.include.members(["cp", "sa-analytics-reports-role"]);
        const attachment = named(
            mocks.resources,
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
            "sa-analytics-reports-aws-AmazonS3ReadOnlyAccess",
        );
        expect(attachment.props).to.deep.equal({
            role: "acme-analytics-reports",
            policyArn: "arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess",
        });
        expect(mocks.resources.filter((r) => r.name === "sa-analytics-reports-inline")).to.deep.equal([]);
    });

    it("puts statements in one inline policy of the role", () => {
        const inline = named(mocks.resources, "aws:iam/rolePolicy:RolePolicy", "sa-shop-worker-inline");
        expect(inline.props.role).to.equal("acme-shop-worker");
        expect(json(inline.props.policy)).to.deep.equal({ Version: "2012-10-17", Statement: statements });
    });

    it("creates nothing for a namespace without service accounts", () => {
        expect(ofType(mocks.resources, "aws:iam/role:Role")).to.have.length(2);
        expect(mocks.resources.filter((r) => r.name.startsWith("sa-empty"))).to.deep.equal([]);
    });
});
