import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import { Access, accessGrants, accessPolicyArn, roleOfCaller } from "../components/access";
import { RecordingMocks } from "../tools/offline";
import { named, ofType, promiseOf, settled, useMocks } from "./mocks";

const admin = "arn:aws:iam::123456789012:role/platform-admin";
const deployer = "arn:aws:iam::123456789012:role/platform-deployer";
const preview = "arn:aws:iam::123456789012:role/platform-preview";
const payments = "arn:aws:iam::123456789012:role/team-payments";
const support = "arn:aws:iam::123456789012:role/support";

const namespaces = {
    payments: { editors: [payments], viewers: [support] },
    search: { editors: [], viewers: [support, payments] },
};

/** What Access needs from the control plane, without building one. */
function controlPlane(): { kubeconfig: pulumi.Output<string>; addons: [] } {
    return { kubeconfig: pulumi.output("{}"), addons: [] };
}

describe("Access component", () => {
    it("turns config into one grant per principal and policy: deployer and admins cluster-wide, teams scoped", () => {
        expect(accessGrants({ deployer, admins: [admin] }, namespaces)).to.deep.equal([
            { principalArn: deployer, policy: "AmazonEKSClusterAdminPolicy" },
            { principalArn: admin, policy: "AmazonEKSClusterAdminPolicy" },
            { principalArn: payments, policy: "AmazonEKSEditPolicy", namespaces: ["payments"] },
            { principalArn: support, policy: "AmazonEKSViewPolicy", namespaces: ["payments", "search"] },
            { principalArn: payments, policy: "AmazonEKSViewPolicy", namespaces: ["search"] },
        ]);
    });

    it("resolves assumed-role sessions to their role and builds policy ARNs in the principal's partition", () => {
        expect(roleOfCaller("arn:aws:sts::123456789012:assumed-role/platform-deployer/ci-run-42")).to.equal(deployer);
        expect(roleOfCaller("arn:aws:iam::123456789012:user/alice")).to.equal("arn:aws:iam::123456789012:user/alice");
        expect(accessPolicyArn("AmazonEKSViewPolicy", "arn:aws-us-gov:iam::123456789012:role/x")).to.equal(
            "arn:aws-us-gov:eks::aws:cluster-access-policy/AmazonEKSViewPolicy",
        );
    });

    describe("under mocks", () => {
        let mocks: RecordingMocks;
        let access: Access;
        const route = () => new pulumi.ComponentResource("test:index:Route", "tgw-route");
        before(async () => {
            mocks = await useMocks("up");
            access = new Access("access", {
                clusterName: "demo",
                access: { deployer, admins: [admin], preview },
                namespaces,
                cluster: controlPlane(),
                apiRoute: [route()],
            });
            await settled();
        });

        it("creates exactly one STANDARD access entry per principal, the deployer's and the preview role's included", () => {
            const entries = ofType(mocks.resources, "aws:eks/accessEntry:AccessEntry");
            const principals = entries.map((e) => e.props.principalArn as string);
            expect(principals).to.have.members([deployer, admin, payments, support, preview]);
            expect(new Set(principals).size, "one entry per principal").to.equal(principals.length);
            expect(access.principals).to.have.members(principals);
            for (const e of entries) {
                expect(e.props).to.include({ clusterName: "demo", type: "STANDARD" });
            }
            expect(named(mocks.resources, "aws:eks/accessEntry:AccessEntry", "access-platform-admin").props.tags).to.deep.equal({
                "platform/access-scope": "cluster",
            });
            expect(named(mocks.resources, "aws:eks/accessEntry:AccessEntry", "access-support").props.tags).to.deep.equal({
                "platform/access-scope": "namespace",
            });
        });

        it("gives the deployer and admins cluster-wide admin and teams edit/view scoped to their namespaces only", () => {
            const assoc = ofType(mocks.resources, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation");
            const find = (principal: string, policy: string) =>
                assoc.find((a) => a.props.principalArn === principal && String(a.props.policyArn).endsWith(policy));
            expect(find(deployer, "AmazonEKSClusterAdminPolicy")?.props.accessScope).to.deep.equal({ type: "cluster" });
            expect(find(admin, "AmazonEKSClusterAdminPolicy")?.props.accessScope).to.deep.equal({ type: "cluster" });
            expect(find(payments, "AmazonEKSEditPolicy")?.props.accessScope).to.deep.equal({ type: "namespace", namespaces: ["payments"] });
            expect(find(support, "AmazonEKSViewPolicy")?.props.accessScope).to.deep.equal({
                type: "namespace",
                namespaces: ["payments", "search"],
            });
            for (const a of assoc.filter((x) => x.props.principalArn !== admin && x.props.principalArn !== deployer)) {
                expect((a.props.accessScope as { type: string }).type, a.name).to.equal("namespace");
            }
            expect(assoc).to.have.length(5);
        });

        it("grants the preview role no access policy and no Kubernetes group: authentication and discovery only", () => {
            const entry = named(mocks.resources, "aws:eks/accessEntry:AccessEntry", "access-platform-preview");
            expect(entry.props).to.not.have.property("kubernetesGroups");
            expect(entry.props.tags).to.deep.equal({ "platform/access-scope": "preview" });
            const assoc = ofType(mocks.resources, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation");
            expect(assoc.filter((a) => a.props.principalArn === preview)).to.deep.equal([]);
        });

        it("opens the Kubernetes provider only after the cluster-admin entries and the deployer's network route exist", () => {
            const provider = named(mocks.resources, "pulumi:providers:kubernetes", "access-k8s");
            expect(provider.props).to.include({ enableServerSideApply: "true" });
            const after = provider.options.dependsOn ?? [];
            expect(after).to.include.members([
                "access-platform-deployer",
                "access-platform-deployer-clusteradmin",
                "access-platform-admin",
                "access-platform-admin-clusteradmin",
                "tgw-route",
            ]);
            // Namespace-scoped entries cannot give the runner its rights: nothing waits for them.
            expect(after).to.not.include("access-support");
        });

        it("reports the role running the deployment", async () => {
            expect(await promiseOf(access.runner)).to.equal(deployer);
        });
    });

    it("refuses an `up` run by a role that would not reach the cluster afterwards", async () => {
        await useMocks("up");
        const access = new Access("locked", {
            clusterName: "demo",
            access: { deployer: admin, admins: [] },
            namespaces: {},
            cluster: controlPlane(),
        });
        // The SDK's own promise of the output: it must reject with the reason, not resolve.
        const runner = (access.runner as unknown as { promise(): Promise<string> }).promise();
        const error = await runner.then(
            (v) => new Error(`resolved to ${v}`),
            (err: Error) => err,
        );
        expect(error.message).to.match(/platform-deployer runs this update but is neither access\.deployer nor in access\.admins/);
    });

    it("lets an admin run the first `up`: the admin's own entry is the only one for that principal", async () => {
        // The mock caller is platform-deployer; here it is listed as an admin, not as the deployer.
        const mocks = await useMocks("up");
        const access = new Access("byadmin", {
            clusterName: "demo",
            access: { deployer: admin, admins: [deployer] },
            namespaces: {},
            cluster: controlPlane(),
        });
        expect(await promiseOf(access.runner)).to.equal(deployer);
        await settled();
        const entries = ofType(mocks.resources, "aws:eks/accessEntry:AccessEntry").filter((e) => e.name.startsWith("byadmin-"));
        expect(entries.filter((e) => e.props.principalArn === deployer)).to.have.length(1);
        expect(named(mocks.resources, "pulumi:providers:kubernetes", "byadmin-k8s").options.dependsOn).to.include(
            "byadmin-platform-deployer-clusteradmin",
        );
    });
});
