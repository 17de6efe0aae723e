import { expect } from "chai";
import { appRoleLeastPrivilege, statementFindings, trustNamespaces } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { appRole, attachment, nodeRoleWithPolicies, podIdentityTrust, role } from "./fixtures";
import { changed, runStack, TestResource, UNKNOWN, urnOf } from "./harness";

const ROLE = "platform-prod-analytics-reports";
const [ROLE_RESOURCE, INLINE, ATTACHMENT] = [0, 1, 2];

/** `appRole()` with the resource at `index` changed. */
function with_(index: number, dotted: string, value: unknown): TestResource[] {
    return appRole().map((r, i) => (i === index ? changed(r, dotted, value) : r));
}

/** `appRole()` whose inline policy's first statement has `field` set to `value`. */
function withStatement(field: string, value: unknown): TestResource[] {
    const doc = JSON.parse(appRole()[INLINE].props.policy as string);
    doc.Statement[0][field] = value;
    return with_(INLINE, "policy", JSON.stringify(doc));
}

describe("policy app-role-least-privilege (stack)", () => {
    it("passes an application role with scoped statements, a Deny *, and a narrow managed policy; ignores node roles", async () => {
        expectClean(await runStack(appRoleLeastPrivilege, appRole()));
        expectClean(
            await runStack(appRoleLeastPrivilege, [
                ...appRole(),
                ...nodeRoleWithPolicies(),
                attachment("platform-prod-system-node", "AdministratorAccess"),
            ]),
        );
    });

    for (const action of ["*", "*:*", ["s3:GetObject", " * "]]) {
        it(`reports Action ${JSON.stringify(action)} as wildcard admin, on the role's URN`, async () => {
            const outcome = await runStack(appRoleLeastPrivilege, withStatement("Action", action));
            expectViolations(
                outcome,
                new RegExp(
                    `^IAM role ${ROLE} \\(assumed by pods through EKS Pod Identity\\) allows action "\\*(:\\*)?" \\(RolePolicy ${ROLE}-inline, statement Read\\)\\. Why: .*compromised AWS account`,
                ),
            );
            expect(outcome.violations[0].urn).to.equal(urnOf(appRole()[ROLE_RESOURCE]));
        });
    }

    for (const action of ["iam:*", "IAM:Pass*", "iam:?etRole", "iam:Create*"]) {
        it(`reports IAM actions by wildcard (${action}), whatever their case`, async () => {
            expectViolations(
                await runStack(appRoleLeastPrivilege, withStatement("Action", action)),
                /allows IAM actions by wildcard .*Why: .*privilege escalation/,
            );
        });
    }

    it("reports iam:PassRole on every role, and accepts it on one role or without a wildcard", async () => {
        const pass = withStatement("Action", "iam:PassRole");
        const doc = JSON.parse(pass[INLINE].props.policy as string);
        doc.Statement[0].Resource = "*";
        expectViolations(
            await runStack(appRoleLeastPrivilege, with_(INLINE, "policy", JSON.stringify(doc))),
            /allows "iam:PassRole" on Resource "\*".*Why: .*hand any role/,
        );
        expectClean(await runStack(appRoleLeastPrivilege, withStatement("Action", ["iam:PassRole", "iam:GetRole"])));
    });

    it("reports NotAction in an Allow statement", async () => {
        expectViolations(
            await runStack(appRoleLeastPrivilege, withStatement("NotAction", ["iam:*"])),
            /allows NotAction \["iam:\*"\], i\.e\. every other action/,
        );
    });

    for (const policy of ["AdministratorAccess", "IAMFullAccess"]) {
        it(`reports the AWS managed policy ${policy} attached to an application role`, async () => {
            expectViolations(
                await runStack(appRoleLeastPrivilege, with_(ATTACHMENT, "policyArn", `arn:aws:iam::aws:policy/${policy}`)),
                new RegExp(`attaches the AWS managed policy ${policy} \\(RolePolicyAttachment ${ROLE}-sqs\\)\\. Why: .*Fix: detach it`),
            );
        });
    }

    it("reads forbiddenManagedPolicies from config", async () => {
        expectViolations(
            await runStack(appRoleLeastPrivilege, appRole(), { forbiddenManagedPolicies: ["AmazonSQSReadOnlyAccess"] }),
            /attaches the AWS managed policy AmazonSQSReadOnlyAccess/,
        );
    });

    it("judges the role's own inlinePolicies and managedPolicyArns (component inputs) too", async () => {
        const inline = changed(appRole()[ROLE_RESOURCE], "inlinePolicies", [
            { name: "all", policy: JSON.stringify({ Statement: { Effect: "Allow", Action: "*", Resource: "*" } }) },
        ]);
        expectViolations(
            await runStack(appRoleLeastPrivilege, [inline]),
            /allows action "\*" \(Role platform-prod-analytics-reports-role inlinePolicies\[0\], statement 0\)/,
        );
        const managed = changed(appRole()[ROLE_RESOURCE], "managedPolicyArns", ["arn:aws:iam::aws:policy/AdministratorAccess"]);
        expectViolations(await runStack(appRoleLeastPrivilege, [managed]), /attaches the AWS managed policy AdministratorAccess/);
    });

    it("reports a policy document IAM would refuse (not JSON)", async () => {
        expectViolations(
            await runStack(appRoleLeastPrivilege, with_(INLINE, "policy", "{ Statement: ")),
            /has a policy document that is not JSON/,
        );
    });

    it("leaves roles that admit only exempt namespaces (kube-system) to the platform, unless the config exempts none", async () => {
        const controller = [
            role("platform-prod-controller", podIdentityTrust("kube-system", "controller")),
            { ...attachment("platform-prod-controller", "AdministratorAccess"), name: "ctl" },
        ];
        expectClean(await runStack(appRoleLeastPrivilege, [...appRole(), ...controller]));
        expectViolations(
            await runStack(appRoleLeastPrivilege, [...appRole(), ...controller], { exemptNamespaces: [] }),
            /IAM role platform-prod-controller .* attaches the AWS managed policy AdministratorAccess/,
        );
    });

    it("still judges a role whose trust admits kube-system and an application namespace: only roles of exempt namespaces alone are the platform's", async () => {
        // Two ways a trust admits two namespaces: one condition listing both, or one statement each.
        const listed = JSON.parse(podIdentityTrust("kube-system", "controller"));
        listed.Statement[0].Condition.StringEquals["aws:RequestTag/kubernetes-namespace"] = ["kube-system", "analytics"];
        const perStatement = JSON.parse(podIdentityTrust("kube-system", "controller"));
        perStatement.Statement.push(JSON.parse(podIdentityTrust("analytics", "reports")).Statement[0]);
        for (const [how, trust] of [
            ["one condition", listed],
            ["two statements", perStatement],
        ] as const) {
            const shared = [role("platform-prod-shared", JSON.stringify(trust)), attachment("platform-prod-shared", "AdministratorAccess")];
            expectViolations(
                await runStack(appRoleLeastPrivilege, shared),
                /^IAM role platform-prod-shared \(assumed by pods through EKS Pod Identity\) attaches the AWS managed policy AdministratorAccess \(RolePolicyAttachment platform-prod-shared-AdministratorAccess\)\. Why: /,
            );
            expect(trustNamespaces(JSON.stringify(trust)), how).to.deep.equal(["kube-system", "analytics"]);
        }
    });

    it("judges a Pod Identity role whose trust names no namespace, whatever it is for", async () => {
        const open = JSON.stringify({
            Statement: [{ Effect: "Allow", Principal: { Service: "pods.eks.amazonaws.com" }, Action: "sts:AssumeRole" }],
        });
        expectViolations(
            await runStack(appRoleLeastPrivilege, [role("any", open), attachment("any", "IAMFullAccess")]),
            /IAM role any .* attaches the AWS managed policy IAMFullAccess/,
        );
    });

    describe("values unknown at preview", () => {
        it("is undecided when a policy document of the role is unknown", async () => {
            const outcome = await runStack(appRoleLeastPrivilege, with_(INLINE, "policy", UNKNOWN.string));
            expect(outcome.violations).to.deep.equal([]);
            expect(outcome.cantRun).to.match(/undecided until the values are known: Pod Identity role platform-prod-analytics-reports/);
        });

        it("is undecided when a broad document's role is unknown (it may be an application's), decided when that document is narrow", async () => {
            const stray = (statement: object): TestResource => ({
                type: "aws:iam/rolePolicy:RolePolicy",
                name: "stray",
                props: { role: UNKNOWN.string, policy: JSON.stringify({ Statement: [statement] }) },
            });
            const broad = await runStack(appRoleLeastPrivilege, [...appRole(), stray({ Effect: "Allow", Action: "*", Resource: "*" })]);
            expect(broad.cantRun).to.match(/undecided/);
            expectClean(
                await runStack(appRoleLeastPrivilege, [
                    ...appRole(),
                    stray({ Effect: "Allow", Action: "logs:PutLogEvents", Resource: "*" }),
                ]),
            );
        });

        it("is undecided when a role's trust, or an attached policy ARN, is unknown", async () => {
            expect((await runStack(appRoleLeastPrivilege, with_(ROLE_RESOURCE, "assumeRolePolicy", UNKNOWN.string))).cantRun).to.match(
                /maybe a Pod Identity role/,
            );
            expect((await runStack(appRoleLeastPrivilege, with_(ATTACHMENT, "policyArn", UNKNOWN.string))).cantRun).to.match(
                /Pod Identity role platform-prod-analytics-reports/,
            );
        });
    });

    it("is not applicable to a stack without Pod Identity roles", async () => {
        const outcome = await runStack(appRoleLeastPrivilege, nodeRoleWithPolicies());
        expect(outcome.notApplicable).to.match(/no IAM role trusted by pods\.eks\.amazonaws\.com/);
        expect(outcome.violations).to.deep.equal([]);
    });
});

describe("app-role-least-privilege helpers (pure)", () => {
    it("finds nothing in Deny statements or narrow actions", () => {
        expect(statementFindings({ Effect: "Deny", Action: "*", Resource: "*" })).to.deep.equal([]);
        expect(statementFindings({ Effect: "Allow", Action: ["s3:*"], Resource: "arn:aws:s3:::b/*" })).to.deep.equal([]);
        expect(statementFindings({ Effect: "Allow", Action: "iam:GetRole", Resource: "*" })).to.deep.equal([]);
    });

    it("reads the namespaces a trust admits, or undefined when it admits any", () => {
        expect(trustNamespaces(podIdentityTrust("shop", "api"))).to.deep.equal(["shop"]);
        expect(
            trustNamespaces(
                JSON.stringify({
                    Statement: [{ Effect: "Allow", Principal: { Service: "pods.eks.amazonaws.com" }, Action: "sts:AssumeRole" }],
                }),
            ),
        ).to.equal(undefined);
        expect(trustNamespaces("not json")).to.equal(undefined);
    });
});
