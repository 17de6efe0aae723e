import { expect } from "chai";
import { appRoleLeastPrivilege, pinsPassedToService, statementFindings, trustNamespaces, trustsPodIdentity } from "eks-platform-policies";
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
    return withStatementFields({ [field]: value });
}

/** `appRole()` whose inline policy's first statement (Sid `Read`) has these fields set (`undefined` removes one). */
function withStatementFields(fields: Record<string, unknown>): TestResource[] {
    const doc = JSON.parse(appRole()[INLINE].props.policy as string);
    Object.assign(doc.Statement[0], fields);
    return with_(INLINE, "policy", JSON.stringify(doc));
}

const ACCOUNT = "123456789012";
const PASSED_TO_EC2 = { StringEquals: { "iam:PassedToService": "ec2.amazonaws.com" } };
/** The statement label every violation of the first inline statement carries. */
const AT_READ = `\\(RolePolicy ${ROLE}-inline, statement Read\\)`;
const quoted = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

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

    it("reports iam:PassRole on every role, and accepts it on one role passed to one service", async () => {
        const pass = withStatement("Action", "iam:PassRole");
        const doc = JSON.parse(pass[INLINE].props.policy as string);
        doc.Statement[0].Resource = "*";
        expectViolations(
            await runStack(appRoleLeastPrivilege, with_(INLINE, "policy", JSON.stringify(doc))),
            /allows "iam:PassRole" on Resource "\*".*Why: .*hand any role/,
        );
        expectClean(
            await runStack(
                appRoleLeastPrivilege,
                withStatementFields({
                    Action: ["iam:PassRole", "iam:GetRole"],
                    Resource: `arn:aws:iam::${ACCOUNT}:role/reports-worker`,
                    Condition: PASSED_TO_EC2,
                }),
            ),
        );
    });

    describe("IAM escalation paths (issue #25, M3)", () => {
        // IAM matches a role ARN pattern against every role of the account: `role/*` is all of them.
        for (const resource of [
            "*",
            "arn:aws:iam::*:role/*",
            `arn:aws:iam::${ACCOUNT}:role/*`,
            `arn:aws:iam::${ACCOUNT}:role*`,
            "arn:*:iam::*:*",
        ]) {
            it(`refuses iam:PassRole on ${resource}, which IAM matches against every role of the account, naming the statement`, async () => {
                const outcome = await runStack(
                    appRoleLeastPrivilege,
                    withStatementFields({ Action: "iam:PassRole", Resource: resource, Condition: PASSED_TO_EC2 }),
                );
                expectViolations(
                    outcome,
                    new RegExp(
                        `^IAM role ${ROLE} \\(assumed by pods through EKS Pod Identity\\) allows "iam:PassRole" on Resource "${quoted(resource)}" ${AT_READ}\\. Why: .*any role of the account.*Fix: name the roles it passes.*iam:PassedToService`,
                    ),
                );
                expect(outcome.violations[0].urn).to.equal(urnOf(appRole()[ROLE_RESOURCE]));
            });
        }

        it("accepts iam:PassRole on a name prefix or a path, which IAM matches against those roles only", async () => {
            for (const resource of [`arn:aws:iam::${ACCOUNT}:role/reports-*`, `arn:aws:iam::${ACCOUNT}:role/service-role/*`]) {
                expectClean(
                    await runStack(
                        appRoleLeastPrivilege,
                        withStatementFields({ Action: "iam:PassRole", Resource: resource, Condition: PASSED_TO_EC2 }),
                    ),
                );
            }
        });

        const worker = `arn:aws:iam::${ACCOUNT}:role/reports-worker`;
        for (const [how, condition] of [
            ["no condition", undefined],
            ["a condition on another key", { StringEquals: { "aws:RequestedRegion": "us-east-1" } }],
            ['StringLike "*" (every service)', { StringLike: { "iam:PassedToService": "*" } }],
            ["StringNotEquals (every service but one)", { StringNotEquals: { "iam:PassedToService": "lambda.amazonaws.com" } }],
            [
                "StringEqualsIfExists (true when the key is absent)",
                { StringEqualsIfExists: { "iam:PassedToService": "ec2.amazonaws.com" } },
            ],
        ] as const) {
            it(`refuses iam:PassRole with ${how}: IAM lets the role go to any service that takes one`, async () => {
                expectViolations(
                    await runStack(
                        appRoleLeastPrivilege,
                        withStatementFields({ Action: "iam:PassRole", Resource: worker, Condition: condition }),
                    ),
                    new RegExp(
                        `allows "iam:PassRole" on Resource "${quoted(worker)}" without an iam:PassedToService condition ${AT_READ}\\. Why: .*any service that takes a role.*Fix: .*"iam:PassedToService": "<service>\\.amazonaws\\.com"`,
                    ),
                );
            });
        }

        it("accepts iam:PassedToService pinned by StringEquals, StringLike on a named service, or a key in another case (IAM keys are case-insensitive)", async () => {
            for (const condition of [
                PASSED_TO_EC2,
                { StringLike: { "iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"] } },
                { StringEquals: { "IAM:PassedToService": "ec2.amazonaws.com" } },
            ]) {
                expectClean(
                    await runStack(
                        appRoleLeastPrivilege,
                        withStatementFields({ Action: "iam:PassRole", Resource: worker, Condition: condition }),
                    ),
                );
            }
        });

        for (const action of [
            "iam:CreateRole",
            "iam:PutRolePolicy",
            "iam:AttachRolePolicy",
            "iam:CreatePolicyVersion",
            "iam:UpdateAssumeRolePolicy",
            "iam:PutUserPolicy",
            "iam:AttachUserPolicy",
            "iam:SetDefaultPolicyVersion",
            "IAM:createaccesskey",
        ]) {
            it(`refuses ${action} on Resource "*": whoever writes IAM policy or trust on every entity can attach AdministratorAccess to itself`, async () => {
                expectViolations(
                    await runStack(appRoleLeastPrivilege, withStatementFields({ Action: ["s3:GetObject", action], Resource: "*" })),
                    new RegExp(
                        `allows "${action}" on Resource "\\*", which writes IAM permissions or trust ${AT_READ}\\. Why: .*attach AdministratorAccess.*Fix: leave IAM changes to the deploy pipeline`,
                    ),
                );
            });
        }

        it("refuses a policy write on every role of the account, and accepts one on roles of a prefix the application owns", async () => {
            expectViolations(
                await runStack(
                    appRoleLeastPrivilege,
                    withStatementFields({ Action: "iam:PutRolePolicy", Resource: `arn:aws:iam::${ACCOUNT}:role/*` }),
                ),
                /allows "iam:PutRolePolicy" on Resource "arn:aws:iam::123456789012:role\/\*", which writes IAM permissions or trust/,
            );
            expectClean(
                await runStack(
                    appRoleLeastPrivilege,
                    withStatementFields({ Action: "iam:PutRolePolicy", Resource: `arn:aws:iam::${ACCOUNT}:role/reports-jobs-*` }),
                ),
            );
        });

        for (const [action, resource] of [
            ["sts:AssumeRole", "*"],
            ["sts:Assume*", "arn:aws:iam::*:role/*"],
        ]) {
            it(`refuses ${action} on ${resource}: STS lets the role become every role whose trust admits the account`, async () => {
                expectViolations(
                    await runStack(appRoleLeastPrivilege, withStatementFields({ Action: action, Resource: resource })),
                    new RegExp(
                        `allows "${quoted(action)}" on Resource "${quoted(resource)}" ${AT_READ}\\. Why: .*every role whose trust admits this account.*Fix: name the roles it assumes`,
                    ),
                );
            });
        }

        it("accepts sts:AssumeRole on one named role, and other STS actions on *", async () => {
            expectClean(
                await runStack(
                    appRoleLeastPrivilege,
                    withStatementFields({ Action: "sts:AssumeRole", Resource: `arn:aws:iam::${ACCOUNT}:role/reports-reader` }),
                ),
            );
            expectClean(await runStack(appRoleLeastPrivilege, withStatementFields({ Action: "sts:GetCallerIdentity", Resource: "*" })));
        });

        for (const [action, resource] of [
            ["s3:*", "*"],
            ["S3:*", "arn:aws:s3:::*"],
            ["sqs:*", "arn:aws:sqs:*:*:*"],
            ["ec2:*", "*"],
            ["sts:*", "*"],
        ]) {
            it(`refuses the service wildcard ${action} on ${resource}: every action of the service on every resource`, async () => {
                expectViolations(
                    await runStack(appRoleLeastPrivilege, withStatementFields({ Action: action, Resource: resource })),
                    new RegExp(
                        `allows "${quoted(action)}" on Resource "${quoted(resource)}": every ${action.split(":")[0].toLowerCase()} action on every resource ${AT_READ}\\. Why: .*all of that service's data`,
                    ),
                );
            });
        }

        it("accepts a service wildcard on one bucket", async () => {
            expectClean(
                await runStack(
                    appRoleLeastPrivilege,
                    withStatementFields({ Action: "s3:*", Resource: ["arn:aws:s3:::reports", "arn:aws:s3:::reports/*"] }),
                ),
            );
        });

        it("refuses NotResource in an Allow statement, and accepts it in a Deny", async () => {
            expectViolations(
                await runStack(appRoleLeastPrivilege, withStatementFields({ Resource: undefined, NotResource: "arn:aws:s3:::other/*" })),
                new RegExp(
                    `allows its actions on NotResource "arn:aws:s3:::other/\\*", i\\.e\\. every other resource ${AT_READ}\\. Why: .*resources created later.*Fix: list the resources it needs under Resource`,
                ),
            );
            expect(statementFindings({ Effect: "Deny", Action: "s3:*", NotResource: "arn:aws:s3:::reports/*" })).to.deep.equal([]);
        });

        it("names the statement by index when it has no Sid", async () => {
            expectViolations(
                await runStack(
                    appRoleLeastPrivilege,
                    withStatementFields({ Sid: undefined, Action: "iam:AttachRolePolicy", Resource: "*" }),
                ),
                new RegExp(
                    `allows "iam:AttachRolePolicy" on Resource "\\*", which writes IAM permissions or trust \\(RolePolicy ${ROLE}-inline, statement 0\\)`,
                ),
            );
        });

        it("refuses every escalation of the review's policy at once, one violation per statement and action", async () => {
            const doc = {
                Version: "2012-10-17",
                Statement: [
                    { Sid: "Pass", Effect: "Allow", Action: "iam:PassRole", Resource: "arn:aws:iam::*:role/*" },
                    {
                        Sid: "Write",
                        Effect: "Allow",
                        Action: ["iam:PutRolePolicy", "iam:AttachRolePolicy", "iam:CreatePolicyVersion", "iam:UpdateAssumeRolePolicy"],
                        Resource: "*",
                    },
                    { Sid: "Assume", Effect: "Allow", Action: "sts:AssumeRole", Resource: "*" },
                    { Sid: "Data", Effect: "Allow", Action: "s3:*", Resource: "*" },
                ],
            };
            const outcome = await runStack(appRoleLeastPrivilege, [
                ...with_(INLINE, "policy", JSON.stringify(doc)),
                { ...attachment(ROLE, "PowerUserAccess"), name: `${ROLE}-power` },
            ]);
            expectViolations(
                outcome,
                /attaches the AWS managed policy PowerUserAccess \(RolePolicyAttachment platform-prod-analytics-reports-power\)/,
                /allows "iam:PassRole" on Resource "arn:aws:iam::\*:role\/\*" \(RolePolicy .*, statement Pass\)/,
                /allows "iam:PutRolePolicy" on Resource "\*", which writes .*statement Write\)/,
                /allows "iam:AttachRolePolicy" on Resource "\*", which writes .*statement Write\)/,
                /allows "iam:CreatePolicyVersion" on Resource "\*", which writes .*statement Write\)/,
                /allows "iam:UpdateAssumeRolePolicy" on Resource "\*", which writes .*statement Write\)/,
                /allows "sts:AssumeRole" on Resource "\*" \(RolePolicy .*, statement Assume\)/,
                /allows "s3:\*" on Resource "\*": every s3 action on every resource \(RolePolicy .*, statement Data\)/,
            );
        });

        it("judges a role whose trust admits kube-system and an application namespace: it cannot escape as a platform role", async () => {
            const trust = JSON.parse(podIdentityTrust("kube-system", "controller"));
            trust.Statement[0].Condition.StringEquals["aws:RequestTag/kubernetes-namespace"] = ["kube-system", "analytics"];
            const shared = with_(ROLE_RESOURCE, "assumeRolePolicy", JSON.stringify(trust));
            const doc = { Statement: [{ Sid: "Pass", Effect: "Allow", Action: "iam:PassRole", Resource: "*" }] };
            expectViolations(
                await runStack(
                    appRoleLeastPrivilege,
                    shared.map((r, i) => (i === INLINE ? changed(r, "policy", JSON.stringify(doc)) : r)),
                ),
                /^IAM role platform-prod-analytics-reports .* allows "iam:PassRole" on Resource "\*" \(RolePolicy .*, statement Pass\)/,
            );
        });
    });

    it("reports NotAction in an Allow statement", async () => {
        expectViolations(
            await runStack(appRoleLeastPrivilege, withStatement("NotAction", ["iam:*"])),
            /allows NotAction \["iam:\*"\], i\.e\. every other action/,
        );
    });

    for (const policy of ["AdministratorAccess", "IAMFullAccess", "PowerUserAccess", "AdministratorAccess-Amplify"]) {
        it(`reports the AWS managed policy ${policy} (every service, or IAM writes on *) attached to an application role`, async () => {
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

    describe("what is read, and where (older rules, issue #30)", () => {
        it("judges a RolePolicyAttachmentsExclusive's policyArns on the role it names by roleName (aws_iam_role_policy_attachments_exclusive)", async () => {
            const exclusive = (policyArns: unknown): TestResource => ({
                type: "aws:iam/rolePolicyAttachmentsExclusive:RolePolicyAttachmentsExclusive",
                name: "only",
                props: { roleName: ROLE, policyArns },
            });
            expectViolations(
                await runStack(appRoleLeastPrivilege, [
                    ...appRole(),
                    exclusive(["arn:aws:iam::aws:policy/ReadOnlyAccess", "arn:aws:iam::aws:policy/PowerUserAccess"]),
                ]),
                new RegExp(
                    `^IAM role ${ROLE} .* attaches the AWS managed policy PowerUserAccess \\(RolePolicyAttachmentsExclusive only policyArns\\[1\\]\\)`,
                ),
            );
            expectClean(await runStack(appRoleLeastPrivilege, [...appRole(), exclusive(["arn:aws:iam::aws:policy/ReadOnlyAccess"])]));
            const unknown = await runStack(appRoleLeastPrivilege, [...appRole(), exclusive(UNKNOWN.array)]);
            expect(unknown.violations).to.deep.equal([]);
            expect(unknown.cantRun).to.match(
                new RegExp(`at \\.RolePolicyAttachmentsExclusive only policyArns\\b.*: Pod Identity role ${ROLE}$`),
            );
        });

        it("reads a policy document given as an object, as the SDK allows (aws.iam.PolicyDocument), not only as JSON text", async () => {
            const doc = { Version: "2012-10-17", Statement: [{ Sid: "All", Effect: "Allow", Action: "*", Resource: "*" }] };
            expectViolations(
                await runStack(appRoleLeastPrivilege, with_(INLINE, "policy", doc)),
                new RegExp(`allows action "\\*" \\(RolePolicy ${ROLE}-inline, statement All\\)`),
            );
            // A single statement object, not a list, is a statement too (IAM accepts either).
            expectViolations(
                await runStack(appRoleLeastPrivilege, with_(INLINE, "policy", JSON.stringify({ Statement: doc.Statement[0] }))),
                new RegExp(`allows action "\\*" \\(RolePolicy ${ROLE}-inline, statement All\\)`),
            );
        });

        it("is not misled by a role whose trust is not JSON: no Pod Identity trust, so not judged (IAM refuses such a trust anyway)", async () => {
            const outcome = await runStack(appRoleLeastPrivilege, [
                role("broken", "not json"),
                attachment("broken", "AdministratorAccess"),
            ]);
            expect(outcome.violations).to.deep.equal([]);
            expect(outcome.notApplicable).to.match(/no IAM role trusted by pods\.eks\.amazonaws\.com/);
        });

        it("is undecided on an auto-named Pod Identity role: its attachments name it by role.name, unknown until apply", async () => {
            const [r, ...rest] = appRole();
            const outcome = await runStack(appRoleLeastPrivilege, [
                { ...r, props: { assumeRolePolicy: r.props.assumeRolePolicy } },
                ...rest,
            ]);
            expect(outcome.violations).to.deep.equal([]);
            expect(outcome.cantRun).to.match(new RegExp(`${r.name} \\(maybe a Pod Identity role\\)`));
            expect(outcome.cantRun).to.match(new RegExp(`${r.name}\\.name`));
        });

        it("is undecided when the namespaces a Pod Identity trust admits are unknown, naming the role", async () => {
            const trust = JSON.parse(podIdentityTrust()) as { Statement: { Condition: { StringEquals: Record<string, unknown> } }[] };
            trust.Statement[0].Condition.StringEquals["aws:RequestTag/kubernetes-namespace"] = UNKNOWN.string;
            const outcome = await runStack(appRoleLeastPrivilege, with_(ROLE_RESOURCE, "assumeRolePolicy", trust));
            expect(outcome.violations).to.deep.equal([]);
            const name = appRole()[ROLE_RESOURCE].name;
            expect(outcome.cantRun).to.match(
                new RegExp(`at \\.Role ${name}\\.assumeRolePolicy\\.Statement\\b.*: Role ${name} \\(maybe a Pod Identity role\\)$`),
            );
        });

        it("is undecided when the role's trust is unknown, naming the role's trust property", async () => {
            const outcome = await runStack(appRoleLeastPrivilege, with_(ROLE_RESOURCE, "assumeRolePolicy", UNKNOWN.string));
            const name = appRole()[ROLE_RESOURCE].name;
            expect(outcome.cantRun).to.match(
                new RegExp(`at \\.Role ${name}\\.assumeRolePolicy can't be known.*: Role ${name} \\(maybe a Pod Identity role\\)$`),
            );
        });

        it("is undecided when the role's own inlinePolicies or managedPolicyArns list is unknown", async () => {
            for (const key of ["inlinePolicies", "managedPolicyArns"]) {
                const outcome = await runStack(appRoleLeastPrivilege, with_(ROLE_RESOURCE, key, UNKNOWN.array));
                expect(outcome.violations, key).to.deep.equal([]);
                expect(outcome.cantRun, key).to.match(
                    new RegExp(`at \\.Role ${appRole()[ROLE_RESOURCE].name} ${key}\\.${key} can't be known.*: Pod Identity role ${ROLE}$`),
                );
            }
        });

        it("is undecided when a statement's action is unknown, naming the document", async () => {
            const doc = { Statement: [{ Sid: "Read", Effect: "Allow", Action: UNKNOWN.string, Resource: "*" }] };
            const outcome = await runStack(appRoleLeastPrivilege, with_(INLINE, "policy", doc));
            expect(outcome.violations).to.deep.equal([]);
            expect(outcome.cantRun).to.match(
                new RegExp(
                    `at \\.RolePolicy ${ROLE}-inline\\.policy\\.Statement\\.0\\.Action can't be known.*: Pod Identity role ${ROLE}$`,
                ),
            );
        });

        it("counts a grant whose role is unknown unless its content is known and narrow: unknown content, a document that is not JSON, a forbidden ARN", async () => {
            const stray = (props: Record<string, unknown>): TestResource => ({
                type: "aws:iam/rolePolicy:RolePolicy",
                name: "stray",
                props: { role: UNKNOWN.string, ...props },
            });
            const strayAttachment = (policyArn: unknown): TestResource => ({
                type: "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
                name: "stray-attachment",
                props: { role: UNKNOWN.string, policyArn },
            });
            for (const [what, extra] of [
                ["unknown content", stray({ policy: UNKNOWN.string })],
                ["not JSON", stray({ policy: "{" })],
                ["a forbidden ARN", strayAttachment("arn:aws:iam::aws:policy/AdministratorAccess")],
                ["an unknown ARN", strayAttachment(UNKNOWN.string)],
            ] as const) {
                const outcome = await runStack(appRoleLeastPrivilege, [...appRole(), extra]);
                expect(outcome.violations, what).to.deep.equal([]);
                expect(outcome.cantRun, what).to.match(
                    new RegExp(`at \\.${extra.type.split(":")[2]} ${extra.name}\\.role can't be known.*: Pod Identity role ${ROLE}$`),
                );
            }
            expectClean(await runStack(appRoleLeastPrivilege, [...appRole(), strayAttachment("arn:aws:iam::aws:policy/ReadOnlyAccess")]));
            // A document without a policy grants nothing.
            expectClean(await runStack(appRoleLeastPrivilege, [...appRole(), stray({})]));
        });
    });

    it("is not applicable to a stack without Pod Identity roles", async () => {
        const outcome = await runStack(appRoleLeastPrivilege, nodeRoleWithPolicies());
        expect(outcome.notApplicable).to.match(/no IAM role trusted by pods\.eks\.amazonaws\.com/);
        expect(outcome.violations).to.deep.equal([]);
    });
});

describe("app-role-least-privilege helpers (pure)", () => {
    it("matches actions as IAM does: a PassRole, policy write or AssumeRole of another service is none, a wildcard service prefix is one", () => {
        for (const action of ["ec2:PassRole", "s3:PutRolePolicy", "iam:AssumeRole", "lambda:CreateRole"]) {
            expect(statementFindings({ Effect: "Allow", Action: action, Resource: "*" }), action).to.deep.equal([]);
        }
        expect(statementFindings({ Effect: "Allow", Action: "*:PassRole", Resource: "*" })[0].what).to.equal(
            'allows "*:PassRole" on Resource "*"',
        );
        expect(statementFindings({ Effect: "Allow", Action: "s?s:AssumeRole", Resource: "*" })[0].what).to.equal(
            'allows "s?s:AssumeRole" on Resource "*"',
        );
        expect(statementFindings({ Effect: "Allow", Action: "*:PutRolePolicy", Resource: "*" })[0].what).to.match(
            /which writes IAM permissions/,
        );
    });

    it("names the resources as written, trimmed, and skips values that are not strings", () => {
        expect(
            statementFindings({ Effect: "Allow", Action: ["sts:AssumeRole", 5], Resource: [5, " * "] }).map((f) => f.what),
        ).to.deep.equal(['allows "sts:AssumeRole" on Resource "*"']);
        const two = ["arn:aws:iam::123456789012:role/a", "arn:aws:iam::123456789012:role/b"];
        expect(statementFindings({ Effect: "Allow", Action: "iam:PassRole", Resource: two })[0].what).to.equal(
            `allows "iam:PassRole" on Resource ${JSON.stringify(two)} without an iam:PassedToService condition`,
        );
    });

    it("reads iam:PassedToService only from operators that pin it", () => {
        const pins = (condition: unknown) => pinsPassedToService({ Condition: condition });
        expect(pins({ StringEqualsIgnoreCase: { "iam:PassedToService": "ec2.amazonaws.com" } })).to.equal(true);
        expect(pins({ StringEquals: { "aws:RequestedRegion": "us-east-1", "iam:PassedToService": "ec2.amazonaws.com" } })).to.equal(true);
        for (const wildcards of ["**", " * ", "?"]) {
            expect(pins({ StringLike: { "iam:PassedToService": wildcards } }), wildcards).to.equal(false);
        }
        expect(pins({ StringEquals: { "iam:PassedToService": [5] } })).to.equal(false);
        expect(pinsPassedToService({ Condition: { "ForAnyValue:StringEquals": { "iam:PassedToService": "ec2.amazonaws.com" } } })).to.equal(
            true,
        );
        expect(pinsPassedToService({ Condition: { StringEquals: { "iam:PassedToService": [] } } })).to.equal(false);
        expect(pinsPassedToService({ Condition: { StringEquals: { "iam:PassedToService": ["ec2.amazonaws.com", "*"] } } })).to.equal(false);
        expect(pinsPassedToService({ Condition: { StringEquals: "iam:PassedToService" } })).to.equal(false);
        expect(pinsPassedToService({})).to.equal(false);
    });

    it("finds nothing in Deny statements or narrow actions", () => {
        expect(statementFindings({ Effect: "Deny", Action: "*", Resource: "*" })).to.deep.equal([]);
        expect(statementFindings({ Effect: "Allow", Action: ["s3:*"], Resource: "arn:aws:s3:::b/*" })).to.deep.equal([]);
        expect(statementFindings({ Effect: "Allow", Action: "iam:GetRole", Resource: "*" })).to.deep.equal([]);
    });

    it("reads a Pod Identity trust only from Allow statements whose Service principals include pods.eks.amazonaws.com, by StringEquals or StringLike, string values only", () => {
        const pi = (extra: object) => ({
            Effect: "Allow",
            Principal: { Service: ["ec2.amazonaws.com", "pods.eks.amazonaws.com"] },
            Action: "sts:AssumeRole",
            ...extra,
        });
        const pinned = (op: string, ns: unknown) => pi({ Condition: { [op]: { "aws:RequestTag/kubernetes-namespace": ns } } });
        const ec2 = { Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" };
        const deny = { Effect: "Deny", Principal: { Service: "pods.eks.amazonaws.com" }, Action: "sts:AssumeRole" };
        expect(trustsPodIdentity({ Statement: [pi({})] })).to.equal(true);
        expect(trustsPodIdentity({ Statement: [ec2, deny] })).to.equal(false);
        // Any one statement admitting Pod Identity makes it a Pod Identity role, whatever the others admit.
        expect(trustsPodIdentity({ Statement: [ec2, pi({})] })).to.equal(true);
        expect(trustsPodIdentity({ Statement: { ...ec2, Effect: "Deny" } })).to.equal(false);
        expect(trustsPodIdentity("not json")).to.equal(false);
        expect(trustNamespaces({ Statement: [pinned("StringLike", "shop-*")] })).to.deep.equal(["shop-*"]);
        expect(trustNamespaces({ Statement: [pinned("StringEquals", [5, "shop"])] })).to.deep.equal(["shop"]);
        // Statements that are not a Pod Identity Allow admit no namespace, pinned or not.
        expect(trustNamespaces({ Statement: [ec2, deny, pinned("StringEquals", "shop")] })).to.deep.equal(["shop"]);
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
