import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { Access, accessGrants, accessPolicyArn, callerIsRole, principalKey, roleOfCaller } from "../../components/access";
import { RecordingMocks } from "../../tools/render/offline";
import { named, ofType, promiseOf, ROOT, runTool, settled, useMocks } from "../mocks";

const admin = "arn:aws:iam::123456789012:role/platform-admin";
const deployer = "arn:aws:iam::123456789012:role/platform-deployer";
const preview = "arn:aws:iam::123456789012:role/platform-preview";
const drift = "arn:aws:iam::123456789012:role/platform-drift";
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

    it("gives the drift check's role one read-only grant, cluster-wide: AmazonEKSAdminViewPolicy, never an admin or edit policy", () => {
        const grants = accessGrants({ deployer, admins: [admin], drift }, {});
        expect(grants.filter((g) => g.principalArn === drift)).to.deep.equal([{ principalArn: drift, policy: "AmazonEKSAdminViewPolicy" }]);
        expect(grants.filter((g) => g.policy === "AmazonEKSClusterAdminPolicy").map((g) => g.principalArn)).to.deep.equal([
            deployer,
            admin,
        ]);
    });

    it("resolves assumed-role sessions to their role and builds policy ARNs in the principal's partition", () => {
        expect(roleOfCaller("arn:aws:sts::123456789012:assumed-role/platform-deployer/ci-run-42")).to.equal(deployer);
        expect(roleOfCaller("arn:aws:iam::123456789012:user/alice")).to.equal("arn:aws:iam::123456789012:user/alice");
        expect(accessPolicyArn("AmazonEKSViewPolicy", "arn:aws-us-gov:iam::123456789012:role/x")).to.equal(
            "arn:aws-us-gov:eks::aws:cluster-access-policy/AmazonEKSViewPolicy",
        );
    });

    it("knows a caller for the role it assumed by partition, account and name, the role's path aside (an assumed-role ARN never carries it: IAM identifiers)", () => {
        const sso = "arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_PlatformAdmin_0123456789abcdef";
        const session = "arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_PlatformAdmin_0123456789abcdef/alice@example.com";
        expect(callerIsRole(session, sso)).to.equal(true);
        expect(callerIsRole("arn:aws:sts::123456789012:assumed-role/platform-deployer/ci-run-42", deployer)).to.equal(true);
        // Another account, another partition, another name, or a user: not that role.
        expect(callerIsRole(session.replace("123456789012", "210987654321"), sso)).to.equal(false);
        expect(callerIsRole(session.replace("arn:aws:", "arn:aws-us-gov:"), sso)).to.equal(false);
        expect(callerIsRole("arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_PlatformAdmin/alice", sso)).to.equal(false);
        expect(callerIsRole("arn:aws:iam::123456789012:user/platform-deployer", deployer)).to.equal(false);
        expect(callerIsRole(session, "AWSReservedSSO_PlatformAdmin_0123456789abcdef")).to.equal(false);
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
            expect(
                named(mocks.resources, "aws:eks/accessEntry:AccessEntry", "access-123456789012-platform-admin").props.tags,
            ).to.deep.equal({
                "platform/access-scope": "cluster",
            });
            expect(named(mocks.resources, "aws:eks/accessEntry:AccessEntry", "access-123456789012-support").props.tags).to.deep.equal({
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
            const entry = named(mocks.resources, "aws:eks/accessEntry:AccessEntry", "access-123456789012-platform-preview");
            expect(entry.props).to.not.have.property("kubernetesGroups");
            expect(entry.props.tags).to.deep.equal({ "platform/access-scope": "preview" });
            const assoc = ofType(mocks.resources, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation");
            expect(assoc.filter((a) => a.props.principalArn === preview)).to.deep.equal([]);
        });

        it("plans the drift role's entry tagged drift, its read-only association cluster-wide, and no provider waits for it", async () => {
            const driftMocks = await useMocks("up");
            new Access("drifted", {
                clusterName: "demo",
                access: { deployer, admins: [], drift },
                namespaces: {},
                cluster: controlPlane(),
            });
            await settled();
            const entry = named(driftMocks.resources, "aws:eks/accessEntry:AccessEntry", "drifted-123456789012-platform-drift");
            expect(entry.props.tags).to.deep.equal({ "platform/access-scope": "drift" });
            const assoc = ofType(driftMocks.resources, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation").filter(
                (a) => a.props.principalArn === drift,
            );
            expect(assoc.map((a) => [a.name, a.props.policyArn, a.props.accessScope])).to.deep.equal([
                [
                    "drifted-123456789012-platform-drift-adminview",
                    "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAdminViewPolicy",
                    { type: "cluster" },
                ],
            ]);
            // The runner's provider waits for cluster-admin rights only.
            const provider = named(driftMocks.resources, "pulumi:providers:kubernetes", "drifted-k8s");
            expect(provider.options.dependsOn ?? []).to.not.include("drifted-123456789012-platform-drift");
            expect(provider.options.dependsOn ?? []).to.include("drifted-123456789012-platform-deployer-clusteradmin");
            expect(entry.aliases, "never existed under an old key").to.equal(undefined);
        });

        it("opens the Kubernetes provider only after the cluster-admin entries and the deployer's network route exist", () => {
            const provider = named(mocks.resources, "pulumi:providers:kubernetes", "access-k8s");
            expect(provider.props).to.include({ enableServerSideApply: "true" });
            const after = provider.options.dependsOn ?? [];
            expect(after).to.include.members([
                "access-123456789012-platform-deployer",
                "access-123456789012-platform-deployer-clusteradmin",
                "access-123456789012-platform-admin",
                "access-123456789012-platform-admin-clusteradmin",
                "tgw-route",
            ]);
            // Namespace-scoped entries cannot give the runner its rights: nothing waits for them.
            expect(after).to.not.include("access-123456789012-support");
        });

        it("replaces entries and associations delete-first: AWS keys them by principal (and policy)", () => {
            const keyed = [
                ...ofType(mocks.resources, "aws:eks/accessEntry:AccessEntry"),
                ...ofType(mocks.resources, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation"),
            ];
            expect(keyed).to.have.length(10);
            for (const r of keyed) {
                expect(r.options.deleteBeforeReplace, r.name).to.equal(true);
            }
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

    it("lets an `up` run by an admin listed with its role's path: the mock's caller, platform-deployer, under /ci/", async () => {
        await useMocks("up");
        const withPath = deployer.replace(":role/", ":role/ci/");
        const access = new Access("pathed", {
            clusterName: "demo",
            access: { deployer: admin, admins: [withPath] },
            namespaces: {},
            cluster: controlPlane(),
        });
        expect(await promiseOf(access.runner)).to.equal(deployer);
    });

    describe("keys distinct principals apart", () => {
        const teamA = "arn:aws:iam::111111111111:role/team";
        const teamB = "arn:aws:iam::222222222222:role/team";
        const teamPath = "arn:aws:iam::111111111111:role/eng/team";

        it("derives the key from account, path and name", () => {
            expect(principalKey(teamA)).to.equal("111111111111-team");
            expect(principalKey(teamPath)).to.equal("111111111111-eng/team");
            expect(new Set([teamA, teamB, teamPath, "arn:aws:iam::111111111111:role/eng-team"].map(principalKey)).size).to.equal(4);
        });

        it("plans two roles named team in different accounts and paths without a clash", async () => {
            const mocks = await useMocks("preview");
            new Access("access", {
                clusterName: "demo",
                access: { deployer, admins: [teamA, teamB] },
                namespaces: { payments: { editors: [teamPath], viewers: [] } },
                cluster: controlPlane(),
            });
            await settled();
            expect(mocks.duplicates).to.deep.equal([]);
            const entries = ofType(mocks.resources, "aws:eks/accessEntry:AccessEntry");
            expect(entries.map((e) => e.props.principalArn)).to.have.members([deployer, teamA, teamB, teamPath]);
            expect(new Set(entries.map((e) => e.urn)).size).to.equal(4);
            // The old name-only key was shared by all three, so none of them claims it as an alias.
            expect(entries.flatMap((e) => e.aliases ?? [])).to.deep.equal([]);
        });

        it("keeps a principal's existing resources through an alias of its old name", async () => {
            const mocks = await useMocks("preview");
            new Access("access", { clusterName: "demo", access: { deployer, admins: [admin] }, namespaces: {}, cluster: controlPlane() });
            await settled();
            const entry = named(mocks.resources, "aws:eks/accessEntry:AccessEntry", "access-123456789012-platform-admin");
            expect(entry.aliases).to.deep.equal([entry.urn.replace(/::access-123456789012-platform-admin$/, "::access-platform-admin")]);
        });

        it("keeps the Kubernetes provider's state from its old place under the Cluster component", async () => {
            // Moved without an alias, the provider would change under every Kubernetes resource.
            const mocks = await useMocks("preview");
            const formerParent = new pulumi.ComponentResource("platform:cluster:Cluster", "cluster");
            new Access("access", {
                clusterName: "demo",
                access: { deployer, admins: [] },
                namespaces: {},
                cluster: controlPlane(),
                formerProvider: { name: "cluster-k8s", parent: formerParent },
            });
            await settled();
            const provider = named(mocks.resources, "pulumi:providers:kubernetes", "access-k8s");
            expect(provider.urn).to.match(/::platform:access:Access\$pulumi:providers:kubernetes::access-k8s$/);
            expect(provider.aliases).to.deep.equal([
                provider.urn.replace(
                    /::platform:access:Access\$pulumi:providers:kubernetes::access-k8s$/,
                    "::platform:cluster:Cluster$pulumi:providers:kubernetes::cluster-k8s",
                ),
            ]);
        });

        it("gives the deployer's and the preview role's entries no old name, nor lets them take one from an admin", async () => {
            // The deployer had EKS's creator entry (outside state) and the preview role none: no
            // resource of theirs exists under an old key, so sharing a role name costs the admin nothing.
            const deployerElsewhere = "arn:aws:iam::222222222222:role/platform-admin";
            const mocks = await useMocks("preview");
            new Access("access", {
                clusterName: "demo",
                access: { deployer: deployerElsewhere, admins: [admin], preview },
                namespaces: {},
                cluster: controlPlane(),
            });
            await settled();
            const aliasesOf = (type: string, name: string) => named(mocks.resources, type, name).aliases ?? [];
            expect(aliasesOf("aws:eks/accessEntry:AccessEntry", "access-123456789012-platform-admin")).to.have.length(1);
            expect(
                aliasesOf("aws:eks/accessPolicyAssociation:AccessPolicyAssociation", "access-123456789012-platform-admin-clusteradmin"),
            ).to.have.length(1);
            expect(aliasesOf("aws:eks/accessEntry:AccessEntry", "access-222222222222-platform-admin")).to.deep.equal([]);
            expect(
                aliasesOf("aws:eks/accessPolicyAssociation:AccessPolicyAssociation", "access-222222222222-platform-admin-clusteradmin"),
            ).to.deep.equal([]);
            expect(aliasesOf("aws:eks/accessEntry:AccessEntry", "access-123456789012-platform-preview")).to.deep.equal([]);
        });

        it("the offline plan refuses a duplicate URN like the engine: exit 2 naming both registrations", async function () {
            this.timeout(120000);
            const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dup-urn-"));
            fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
            fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: dup\nruntime: nodejs\n");
            fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config:\n  aws:region: us-east-1\n");
            // What the role-name-only key used to do: one logical name for two principals.
            fs.writeFileSync(
                path.join(dir, "index.ts"),
                [
                    'import * as aws from "@pulumi/aws";',
                    `for (const principalArn of ["${teamA}", "${teamB}"]) {`,
                    '    new aws.eks.AccessEntry("access-team", { clusterName: "demo", principalArn, type: "STANDARD" });',
                    "}",
                ].join("\n"),
            );
            try {
                const result = await runTool("plan.ts", ["dev"], dir);
                expect(result.code, result.stderr).to.equal(2);
                expect(result.stderr).to.include(
                    "duplicate resource URN urn:pulumi:dev::dup::aws:eks/accessEntry:AccessEntry::access-team",
                );
                expect(result.stderr).to.include(`principalArn=${teamA}`).and.include(`principalArn=${teamB}`);
                expect(result.stderr).to.match(/index\.ts:3/);
                expect(result.stdout).to.equal("");
            } finally {
                fs.rmSync(dir, { recursive: true, force: true });
            }
        });
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
            "byadmin-123456789012-platform-deployer-clusteradmin",
        );
    });
});
