import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { Access, accessGrants, accessPolicyArn, principalKey, roleOfCaller } from "../components/access";
import { RecordingMocks } from "../tools/offline";
import { named, ofType, promiseOf, runTool, settled, useMocks } from "./mocks";

const admin = "arn:aws:iam::123456789012:role/platform-admin";
const deployer = "arn:aws:iam::123456789012:role/platform-deployer";
const payments = "arn:aws:iam::123456789012:role/team-payments";
const support = "arn:aws:iam::123456789012:role/support";

const namespaces = {
    payments: { editors: [payments], viewers: [support] },
    search: { editors: [], viewers: [support, payments] },
};

describe("Access component", () => {
    it("turns config into one grant per principal and policy, scoped to the namespaces that list it", () => {
        expect(accessGrants({ deployer, admins: [admin] }, namespaces)).to.deep.equal([
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
        before(async () => {
            mocks = await useMocks("up");
            access = new Access("access", { clusterName: "demo", access: { deployer, admins: [admin] }, namespaces });
            await settled();
        });

        it("creates one STANDARD access entry per principal, never one for the deployer", () => {
            const entries = ofType(mocks.resources, "aws:eks/accessEntry:AccessEntry");
            expect(entries.map((e) => e.props.principalArn)).to.have.members([admin, payments, support]);
            for (const e of entries) {
                expect(e.props).to.include({ clusterName: "demo", type: "STANDARD" });
                expect(e.props).to.not.have.property("kubernetesGroups");
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

        it("gives admins cluster-wide admin and teams edit/view scoped to their namespaces only", () => {
            const assoc = ofType(mocks.resources, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation");
            const find = (principal: string, policy: string) =>
                assoc.find((a) => a.props.principalArn === principal && String(a.props.policyArn).endsWith(policy));
            expect(find(admin, "AmazonEKSClusterAdminPolicy")?.props.accessScope).to.deep.equal({ type: "cluster" });
            expect(find(payments, "AmazonEKSEditPolicy")?.props.accessScope).to.deep.equal({ type: "namespace", namespaces: ["payments"] });
            expect(find(support, "AmazonEKSViewPolicy")?.props.accessScope).to.deep.equal({
                type: "namespace",
                namespaces: ["payments", "search"],
            });
            for (const a of assoc.filter((x) => x.props.principalArn !== admin)) {
                expect((a.props.accessScope as { type: string }).type, a.name).to.equal("namespace");
            }
            expect(assoc).to.have.length(4);
        });

        it("replaces entries and associations delete-first: AWS keys them by principal (and policy)", () => {
            const keyed = [
                ...ofType(mocks.resources, "aws:eks/accessEntry:AccessEntry"),
                ...ofType(mocks.resources, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation"),
            ];
            expect(keyed).to.have.length(7);
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
        const access = new Access("locked", { clusterName: "demo", access: { deployer: admin, admins: [] }, namespaces: {} });
        // The SDK's own promise of the output: it must reject with the reason, not resolve.
        const runner = (access.runner as unknown as { promise(): Promise<string> }).promise();
        const error = await runner.then(
            (v) => new Error(`resolved to ${v}`),
            (err: Error) => err,
        );
        expect(error.message).to.match(/platform-deployer runs this update but is neither access\.deployer nor in access\.admins/);
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
            });
            await settled();
            expect(mocks.duplicates).to.deep.equal([]);
            const entries = ofType(mocks.resources, "aws:eks/accessEntry:AccessEntry");
            expect(entries.map((e) => e.props.principalArn)).to.have.members([teamA, teamB, teamPath]);
            expect(new Set(entries.map((e) => e.urn)).size).to.equal(3);
            // The old name-only key was shared by all three, so none of them claims it as an alias.
            expect(entries.flatMap((e) => e.aliases ?? [])).to.deep.equal([]);
        });

        it("keeps a principal's existing resources through an alias of its old name", async () => {
            const mocks = await useMocks("preview");
            new Access("access", { clusterName: "demo", access: { deployer, admins: [admin] }, namespaces: {} });
            await settled();
            const entry = named(mocks.resources, "aws:eks/accessEntry:AccessEntry", "access-123456789012-platform-admin");
            expect(entry.aliases).to.deep.equal([entry.urn.replace(/::access-123456789012-platform-admin$/, "::access-platform-admin")]);
        });

        it("the offline plan refuses a duplicate URN like the engine: exit 2 naming both registrations", async function () {
            this.timeout(120000);
            const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dup-urn-"));
            fs.symlinkSync(path.resolve(__dirname, "..", "node_modules"), path.join(dir, "node_modules"), "dir");
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
});
