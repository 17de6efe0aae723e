import { expect } from "chai";
import { accessLeastPrivilege, accessPolicyName, arnPattern } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import {
    accessEntry,
    accessGrants,
    accessPolicyAssociation,
    ADMIN_ROLE,
    awsCluster,
    eksComponent,
    eksComponentWithAccess,
    TEAM_ROLE,
} from "./fixtures";
import { changed, runStack, TestResource, UNKNOWN, urnOf } from "./harness";

/** `accessGrants()` with the resource at `index` changed. */
function grantsWith(index: number, dotted: string, value: unknown): TestResource[] {
    return accessGrants().map((r, i) => (i === index ? changed(r, dotted, value) : r));
}
const [ADMIN_ENTRY, ADMIN_ASSOCIATION, TEAM_ENTRY, TEAM_ASSOCIATION] = [0, 1, 2, 3];
const CLUSTER_ADMIN = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy";

describe("policy access-least-privilege (stack)", () => {
    it("passes an admin cluster-wide and a team scoped to its namespace, as resources and as component inputs", async () => {
        expectClean(await runStack(accessLeastPrivilege, accessGrants()));
        expectClean(await runStack(accessLeastPrivilege, [eksComponentWithAccess()]));
    });

    it("reports an access entry mapping its principal to system:masters, on the entry's URN", async () => {
        const resources = grantsWith(ADMIN_ENTRY, "kubernetesGroups", ["ops", "system:masters"]);
        const outcome = await runStack(accessLeastPrivilege, resources);
        expectViolations(
            outcome,
            /AccessEntry access-platform-admin \(arn:aws:iam::123456789012:role\/platform-admin\) maps its principal to the Kubernetes group system:masters\. Why: .*bypasses RBAC/,
        );
        expect(outcome.violations[0].urn).to.equal(urnOf(resources[ADMIN_ENTRY]));
    });

    it("accepts other groups, system: ones included", async () => {
        expectClean(await runStack(accessLeastPrivilege, grantsWith(TEAM_ENTRY, "kubernetesGroups", ["checkout", "system:authenticated"])));
    });

    // What each access policy lets a team do in every namespace (EKS User Guide, "Review access policy permissions").
    const REACH: Record<string, string> = {
        AmazonEKSClusterAdminPolicy: "do almost anything",
        AmazonEKSAdminPolicy: "do almost anything",
        AmazonEKSEditPolicy: "change workloads and read Secrets",
        AmazonEKSAdminViewPolicy: "read every Secret \\(other teams' credentials and service account tokens included\\)",
    };
    for (const [policy, reach] of Object.entries(REACH)) {
        it(`reports ${policy} granted cluster-wide to a team tagged as a namespace team, on the association's URN`, async () => {
            const resources = grantsWith(TEAM_ASSOCIATION, "policyArn", `arn:aws:eks::aws:cluster-access-policy/${policy}`).map((r, i) =>
                i === TEAM_ASSOCIATION ? changed(r, "accessScope", { type: "cluster" }) : r,
            );
            const outcome = await runStack(accessLeastPrivilege, resources);
            expectViolations(
                outcome,
                new RegExp(
                    `AccessPolicyAssociation .* \\(${TEAM_ROLE}\\) grants ${policy} cluster-wide to a namespace team \\(its access entry is tagged platform/access-scope: namespace\\)\\. Why: the team can then ${reach} in every namespace.*Fix: .*type: "namespace"`,
                ),
            );
            expect(outcome.violations[0].urn).to.equal(urnOf(resources[TEAM_ASSOCIATION]));
        });
    }

    it("reports AmazonEKSAdminViewPolicy cluster-wide to a team (EKS: it lists and reads every resource, Secrets included), and accepts it on the team's namespace", async () => {
        const adminView = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAdminViewPolicy";
        const resources = grantsWith(TEAM_ASSOCIATION, "policyArn", adminView);
        expectClean(await runStack(accessLeastPrivilege, resources));
        expectViolations(
            await runStack(
                accessLeastPrivilege,
                resources.map((r, i) => (i === TEAM_ASSOCIATION ? changed(r, "accessScope", { type: "cluster" }) : r)),
            ),
            /grants AmazonEKSAdminViewPolicy cluster-wide to a namespace team .*Why: the team can then read every Secret \(other teams' credentials and service account tokens included\) in every namespace/,
        );
    });

    it("reports the team's edit grant once its scope becomes the cluster (one field changed)", async () => {
        expectViolations(
            await runStack(accessLeastPrivilege, grantsWith(TEAM_ASSOCIATION, "accessScope", { type: "cluster" })),
            /grants AmazonEKSEditPolicy cluster-wide to a namespace team/,
        );
    });

    it("accepts a team's view grant cluster-wide, and a namespace-scoped admin grant", async () => {
        const view = grantsWith(TEAM_ASSOCIATION, "policyArn", "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy").map((r, i) =>
            i === TEAM_ASSOCIATION ? changed(r, "accessScope", { type: "cluster" }) : r,
        );
        expectClean(await runStack(accessLeastPrivilege, view));
        expectClean(await runStack(accessLeastPrivilege, grantsWith(TEAM_ASSOCIATION, "policyArn", CLUSTER_ADMIN)));
    });

    it("reports an admin grant to a principal whose entry is retagged as a namespace team", async () => {
        expectViolations(
            await runStack(accessLeastPrivilege, grantsWith(ADMIN_ENTRY, "tags", { "platform/access-scope": "namespace" })),
            /AccessPolicyAssociation .*platform-admin.* grants AmazonEKSClusterAdminPolicy cluster-wide to a namespace team/,
        );
    });

    it("finds namespace teams by namespaceTeamPrincipals patterns (* matches any run, dots are literal)", async () => {
        expectViolations(
            await runStack(accessLeastPrivilege, accessGrants(), { namespaceTeamPrincipals: ["arn:aws:iam::*:role/platform-*"] }),
            /grants AmazonEKSClusterAdminPolicy cluster-wide to a namespace team \(it matches namespaceTeamPrincipals pattern "arn:aws:iam::\*:role\/platform-\*"\)/,
        );
        expectClean(await runStack(accessLeastPrivilege, accessGrants(), { namespaceTeamPrincipals: ["arn:aws:iam::*:role/team-*"] }));
        expectClean(
            await runStack(accessLeastPrivilege, accessGrants(), {
                namespaceTeamPrincipals: ["arn:aws:iam::123456789012:role/platform.admin"],
            }),
        );
        expect(arnPattern("arn:aws:iam::*:role/*").test("arn:aws:iam::123456789012:role/path/team")).to.equal(true);
        expect(arnPattern("arn:aws:iam::1:role/a").test("arn:aws:iam::1:role/ab")).to.equal(false);
    });

    it("rejects a namespaceTeamPrincipals that is not a list of strings", async () => {
        let error: unknown;
        try {
            await runStack(accessLeastPrivilege, accessGrants(), { namespaceTeamPrincipals: "arn:*" });
        } catch (err) {
            error = err;
        }
        expect(String(error)).to.match(/access-least-privilege\.namespaceTeamPrincipals: must be an array/);
    });

    it("reads access policy ARNs in any partition, and nothing else", () => {
        expect(accessPolicyName(CLUSTER_ADMIN)).to.equal("AmazonEKSClusterAdminPolicy");
        expect(accessPolicyName("arn:aws-cn:eks::aws:cluster-access-policy/AmazonEKSEditPolicy")).to.equal("AmazonEKSEditPolicy");
        expect(accessPolicyName("arn:aws:iam::aws:policy/AmazonEKSClusterPolicy")).to.equal(undefined);
        expect(accessPolicyName(42)).to.equal(undefined);
    });

    describe("the @pulumi/eks component's accessEntries input", () => {
        it("reports system:masters in an entry, on the component's URN", async () => {
            const c = changed(eksComponentWithAccess(), "accessEntries.team.kubernetesGroups", ["system:masters"]);
            const outcome = await runStack(accessLeastPrivilege, [c]);
            expectViolations(
                outcome,
                /EKS cluster cluster-eks accessEntries\.team \(.*team-checkout\) maps its principal to the Kubernetes group system:masters/,
            );
            expect(outcome.violations[0].urn).to.equal(urnOf(c));
        });

        it("reports a namespace team's cluster-wide edit policy", async () => {
            expectViolations(
                await runStack(accessLeastPrivilege, [
                    changed(eksComponentWithAccess(), "accessEntries.team.accessPolicies.edit.accessScope", { type: "cluster" }),
                ]),
                /EKS cluster cluster-eks accessEntries\.team\.accessPolicies\.edit \(.*team-checkout\) grants AmazonEKSEditPolicy cluster-wide to a namespace team/,
            );
        });

        it("reports an entry's own namespace tag even when its principal ARN is unknown at preview", async () => {
            const c = changed(eksComponentWithAccess(), "accessEntries.team.accessPolicies.edit.accessScope", { type: "cluster" });
            const outcome = await runStack(accessLeastPrivilege, [changed(c, "accessEntries.team.principalArn", UNKNOWN.string)]);
            expect(outcome.violations.map((v) => v.message)).to.have.length(1);
            expect(outcome.violations[0].message).to.match(
                /accessEntries\.team\.accessPolicies\.edit grants AmazonEKSEditPolicy cluster-wide to a namespace team \(its access entry is tagged/,
            );
            // The admin grant may be to that team (its ARN is unknown): undecided, not passed.
            expect(outcome.cantRun).to.match(
                /accessEntries\.team\.principalArn can't be known during preview.*accessEntries\.admin\.accessPolicies\.admin/,
            );
        });

        it("judges its entries by the configured patterns too", async () => {
            expectViolations(
                await runStack(accessLeastPrivilege, [eksComponentWithAccess()], { namespaceTeamPrincipals: [ADMIN_ROLE] }),
                /accessEntries\.admin\.accessPolicies\.admin .* grants AmazonEKSClusterAdminPolicy cluster-wide to a namespace team \(it matches/,
            );
        });

        it("links a standalone association to a namespace team declared in the component", async () => {
            expectViolations(
                await runStack(accessLeastPrivilege, [
                    eksComponentWithAccess(),
                    accessPolicyAssociation(TEAM_ROLE, "AmazonEKSAdminPolicy", { type: "cluster" }),
                ]),
                /AccessPolicyAssociation .* grants AmazonEKSAdminPolicy cluster-wide to a namespace team/,
            );
        });
    });

    it("is not applicable to a stack without access entries (aws.eks.Cluster has no such input)", async () => {
        expect((await runStack(accessLeastPrivilege, [])).notApplicable).to.match(
            /no EKS access entry or access policy association.*nothing was checked/,
        );
        expect((await runStack(accessLeastPrivilege, [awsCluster(), eksComponent()])).notApplicable).to.match(/nothing was checked/);
    });

    describe("what is read (older rules, issue #30)", () => {
        it("reads group names trimmed and skips values that are not strings: a padded system:masters is still reported", async () => {
            expectViolations(
                await runStack(accessLeastPrivilege, grantsWith(ADMIN_ENTRY, "kubernetesGroups", [5, " system:masters "])),
                /AccessEntry access-platform-admin \(arn:aws:iam::123456789012:role\/platform-admin\) maps its principal to the Kubernetes group system:masters\. /,
            );
        });

        it("reads the scope type in any case and padding, and passes an association without one", async () => {
            expectViolations(
                await runStack(accessLeastPrivilege, grantsWith(TEAM_ASSOCIATION, "accessScope", { type: " Cluster " })),
                /AccessPolicyAssociation access-team-checkout-AmazonEKSEditPolicy \(arn:aws:iam::123456789012:role\/team-checkout\) grants AmazonEKSEditPolicy cluster-wide to a namespace team/,
            );
            expectClean(await runStack(accessLeastPrivilege, grantsWith(TEAM_ASSOCIATION, "accessScope", undefined)));
        });

        it("links no principal through a principalArn that is absent, empty or not a string (EKS requires an IAM ARN)", async () => {
            const noArn = (index: number, r: TestResource) => ({ ...r, name: `${r.name}-${index}` });
            const entries = [undefined, "", 5].map((arn, i) => noArn(i, changed(accessEntry(TEAM_ROLE, "namespace"), "principalArn", arn)));
            const grants = [undefined, "", 5].map((arn, i) =>
                noArn(
                    i,
                    changed(accessPolicyAssociation(TEAM_ROLE, "AmazonEKSClusterAdminPolicy", { type: "cluster" }), "principalArn", arn),
                ),
            );
            // A namespace team is present, so an unknown principal could be one: these are not unknown.
            expectClean(await runStack(accessLeastPrivilege, [...accessGrants(), ...entries, ...grants]));
        });

        it("leaves a cluster-wide admin grant to an unknown principal undecided for each way a namespace team could be it: a pattern, an entry's unknown tag, an entry's unknown ARN", async () => {
            const admin = accessGrants().slice(0, 2);
            const unknownGrant = changed(admin[1], "principalArn", UNKNOWN.string);
            const other = "arn:aws:iam::123456789012:role/other";
            const cases: [string, TestResource[], Record<string, unknown>][] = [
                ["a pattern", [admin[0], unknownGrant], { namespaceTeamPrincipals: ["arn:aws:iam::*:role/team-*"] }],
                ["an unknown tag", [admin[0], unknownGrant, changed(accessEntry(other, "namespace"), "tags", UNKNOWN.object)], {}],
                ["an unknown ARN", [admin[0], unknownGrant, changed(accessEntry(other, "namespace"), "principalArn", UNKNOWN.string)], {}],
            ];
            for (const [how, resources, config] of cases) {
                const outcome = await runStack(accessLeastPrivilege, resources, config);
                expect(outcome.violations, how).to.deep.equal([]);
                expect(outcome.cantRun, how).to.match(
                    /at \.AccessPolicyAssociation access-platform-admin-AmazonEKSClusterAdminPolicy\.principalArn can't be known during preview; undecided until the values are known: AccessPolicyAssociation access-platform-admin-AmazonEKSClusterAdminPolicy$/,
                );
            }
            expectClean(await runStack(accessLeastPrivilege, [admin[0], unknownGrant]));
        });

        it("names the component's accessEntries, or an entry's accessPolicies, when they are unknown", async () => {
            const c = eksComponentWithAccess();
            const entries = await runStack(accessLeastPrivilege, [changed(c, "accessEntries", UNKNOWN.object)]);
            expect(entries.cantRun).to.match(new RegExp(`undecided until the values are known: EKS cluster ${c.name} accessEntries$`));
            const policies = await runStack(accessLeastPrivilege, [changed(c, "accessEntries.team.accessPolicies", UNKNOWN.object)]);
            expect(policies.violations).to.deep.equal([]);
            expect(policies.cantRun).to.match(
                new RegExp(`undecided until the values are known: EKS cluster ${c.name} accessEntries\\.team\\.accessPolicies$`),
            );
        });

        it("reads an access policy ARN whole, trimmed: nothing before arn: or after the policy name", () => {
            expect(accessPolicyName(` ${CLUSTER_ADMIN} `)).to.equal("AmazonEKSClusterAdminPolicy");
            expect(accessPolicyName(`x${CLUSTER_ADMIN}`)).to.equal(undefined);
            expect(accessPolicyName(`${CLUSTER_ADMIN}/v2`)).to.equal(undefined);
        });

        it("matches a pattern's other characters literally, dots and brackets included", () => {
            expect(arnPattern("arn:aws:iam::1:role/platform.admin").test("arn:aws:iam::1:role/platform.admin")).to.equal(true);
            expect(arnPattern("arn:aws:iam::1:role/(team)+").test("arn:aws:iam::1:role/(team)+")).to.equal(true);
            expect(arnPattern("arn:aws:iam::1:role/(team)+").test("arn:aws:iam::1:role/teamteam")).to.equal(false);
        });
    });

    describe("values unknown at preview", () => {
        it("leaves an unknown kubernetesGroups undecided, still judging the grants", async () => {
            const resources = grantsWith(ADMIN_ENTRY, "kubernetesGroups", UNKNOWN.array).map((r, i) =>
                i === TEAM_ASSOCIATION ? changed(r, "accessScope", { type: "cluster" }) : r,
            );
            const outcome = await runStack(accessLeastPrivilege, resources);
            expect(outcome.violations.map((v) => v.message)).to.have.length(1);
            expect(outcome.violations[0].message).to.match(/grants AmazonEKSEditPolicy cluster-wide to a namespace team/);
            expect(outcome.cantRun).to.match(
                /can't run policy 'access-least-privilege'.*kubernetesGroups can't be known during preview.*AccessEntry access-platform-admin kubernetesGroups/,
            );
        });

        it("leaves a cluster-wide admin grant undecided when its principal's scope tag is unknown", async () => {
            const outcome = await runStack(accessLeastPrivilege, grantsWith(ADMIN_ENTRY, "tags", UNKNOWN.object));
            expect(outcome.violations).to.deep.equal([]);
            expect(outcome.cantRun).to.match(
                /AccessEntry access-platform-admin\.tags\.platform\/access-scope can't be known during preview.*AccessPolicyAssociation access-platform-admin/,
            );
        });

        it("leaves a cluster-wide admin grant to an unknown principal undecided while a namespace team could be it", async () => {
            const outcome = await runStack(accessLeastPrivilege, grantsWith(ADMIN_ASSOCIATION, "principalArn", UNKNOWN.string));
            expect(outcome.violations).to.deep.equal([]);
            expect(outcome.cantRun).to.match(/principalArn can't be known during preview.*AccessPolicyAssociation access-platform-admin/);
        });

        it("leaves it undecided while a namespace team's entry has an unknown ARN", async () => {
            const outcome = await runStack(accessLeastPrivilege, grantsWith(TEAM_ENTRY, "principalArn", UNKNOWN.string));
            expect(outcome.violations).to.deep.equal([]);
            expect(outcome.cantRun).to.match(/AccessEntry access-team-checkout\.principalArn can't be known during preview/);
        });

        it("decides when no principal of the stack can be a namespace team (node entries with role ARNs unknown at preview)", async () => {
            const node = { ...changed(accessEntry(ADMIN_ROLE, "cluster"), "principalArn", UNKNOWN.string), name: "karpenter-node" };
            delete node.props.tags;
            const admin = accessGrants().slice(0, 2);
            expectClean(await runStack(accessLeastPrivilege, [node, ...admin]));
            expectClean(await runStack(accessLeastPrivilege, [node, admin[0], changed(admin[1], "principalArn", UNKNOWN.string)]));
        });

        it("needs no principal to pass a namespace-scoped grant", async () => {
            expectClean(await runStack(accessLeastPrivilege, grantsWith(TEAM_ASSOCIATION, "principalArn", UNKNOWN.string)));
        });

        it("leaves an unknown scope undecided", async () => {
            const outcome = await runStack(accessLeastPrivilege, grantsWith(TEAM_ASSOCIATION, "accessScope", UNKNOWN.object));
            expect(outcome.violations).to.deep.equal([]);
            expect(outcome.cantRun).to.match(/accessScope can't be known during preview.*AccessPolicyAssociation access-team-checkout/);
        });
    });
});
