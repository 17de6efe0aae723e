import { expect } from "chai";
import { policySize, ROLE_INLINE_POLICY_LIMIT } from "eks-platform-kernel";
import { PROJECT } from "../../components/config";
import { inlinePolicySize } from "../../components/namespaces.schema";
import { inlinePolicyOf } from "../../components/serviceAccountRoles";
import { fixture, parse, problems } from "./config/fixtures";

describe("stack config: service accounts", () => {
    const withAccounts = (serviceAccounts: unknown) => fixture((v) => (v.namespaces.analytics.serviceAccounts = serviceAccounts));

    it("accepts serviceAccounts.reports with policy ARNs, and statements with defaults", () => {
        const config = parse(
            withAccounts({
                reports: { policyArns: ["arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess"] },
                "exporter.v2": { statements: [{ Action: "sqs:SendMessage", Resource: "arn:aws:sqs:us-east-1:111122223333:out" }] },
            }),
        );
        expect(config.namespaces.analytics.serviceAccounts.reports).to.deep.equal({
            policyArns: ["arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess"],
            statements: [],
        });
        expect(config.namespaces.analytics.serviceAccounts["exporter.v2"].statements[0].Effect).to.equal("Allow");
    });

    it("refuses *:* statements, naming the statement", () => {
        for (const Action of ["*", ["s3:GetObject", "*:*"]]) {
            expect(
                problems(
                    withAccounts({
                        reports: {
                            statements: [
                                { Sid: "Ok", Action: "s3:GetObject", Resource: "*" },
                                { Action, Resource: "*" },
                            ],
                        },
                    }),
                ),
            ).to.deep.equal([
                `${PROJECT}:namespaces.analytics.serviceAccounts.reports.statements[1]: allows every action on every resource (*:*), which is administrator access: list the actions and resources the application needs`,
            ]);
        }
    });

    describe("what IAM would refuse at `pulumi up` (issue #25)", () => {
        const at = `${PROJECT}:namespaces.analytics.serviceAccounts.reports`;
        /** n statements of one long S3 object ARN each. */
        const statementsOf = (n: number) =>
            Array.from({ length: n }, (_, i) => ({
                Sid: `S${i}`,
                Action: "s3:GetObject",
                Resource: `arn:aws:s3:::reports-${"x".repeat(180)}/${i}/*`,
            }));

        it("refuses an inline policy over IAM's 10,240 characters for a role's inline policies (IAM quotas), white space not counted", () => {
            const big = statementsOf(60);
            const found = problems(withAccounts({ reports: { statements: big } }));
            expect(found).to.have.length(1);
            expect(found[0]).to.match(
                new RegExp(
                    `^${at.replace(/\./g, "\\.")}\\.statements: make an inline policy of \\d+ characters \\(white space not counted\\), over IAM's 10240 .*LimitExceeded .*move statements into a managed policy \\(policyArns\\)`,
                ),
            );
        });

        it("accepts an inline policy of exactly the limit, and measures the document the role gets", () => {
            // Grow one statement's resource until the rendered document is exactly at the limit.
            const statements = statementsOf(1);
            const base = inlinePolicySize(
                parse(withAccounts({ reports: { statements } })).namespaces.analytics.serviceAccounts.reports.statements,
            );
            statements[0].Resource = `${statements[0].Resource}${"y".repeat(ROLE_INLINE_POLICY_LIMIT - base)}`;
            const config = parse(withAccounts({ reports: { statements } }));
            const sa = config.namespaces.analytics.serviceAccounts.reports;
            expect(inlinePolicySize(sa.statements)).to.equal(ROLE_INLINE_POLICY_LIMIT);
            expect(policySize(inlinePolicyOf(sa))).to.equal(inlinePolicySize(sa.statements));
            statements[0].Resource = `${statements[0].Resource}y`;
            expect(problems(withAccounts({ reports: { statements } }))[0]).to.match(/make an inline policy of 10241 characters/);
            expect(inlinePolicySize([])).to.equal(0);
        });

        it("refuses a condition operator IAM does not know (IAM condition operators), naming the statement and the operator", () => {
            const statements = [
                {
                    Action: "s3:GetObject",
                    Resource: "arn:aws:s3:::reports/*",
                    Condition: { StringEqual: { "aws:RequestedRegion": "us-east-1" } },
                },
                {
                    Action: "s3:PutObject",
                    Resource: "arn:aws:s3:::reports/*",
                    Condition: { "ForAnyValue:StringLike": { "aws:TagKeys": "team-*" }, NullIfExists: { "aws:ResourceTag/team": "false" } },
                },
            ];
            expect(problems(withAccounts({ reports: { statements } }))).to.deep.equal([
                `${at}.statements[0].Condition.StringEqual: is not an IAM condition operator: use one of StringEquals, StringNotEquals, StringEqualsIgnoreCase, StringNotEqualsIgnoreCase, StringLike, StringNotLike, NumericEquals, NumericNotEquals, NumericLessThan, NumericLessThanEquals, NumericGreaterThan, NumericGreaterThanEquals, DateEquals, DateNotEquals, DateLessThan, DateLessThanEquals, DateGreaterThan, DateGreaterThanEquals, Bool, BinaryEquals, IpAddress, NotIpAddress, ArnEquals, ArnLike, ArnNotEquals, ArnNotLike, Null, optionally with the IfExists suffix or a ForAnyValue:/ForAllValues: qualifier; IAM refuses the policy (MalformedPolicyDocument) at \`pulumi up\`, after a green preview`,
                `${at}.statements[1].Condition.NullIfExists: Null takes no IfExists suffix (it is itself the check that a key exists); IAM refuses the policy (MalformedPolicyDocument) at \`pulumi up\`, after a green preview`,
            ]);
        });

        it("accepts the operators IAM documents, qualified or not", () => {
            const Condition = {
                StringEquals: { "aws:RequestedRegion": "us-east-1" },
                ArnLikeIfExists: { "aws:SourceArn": "arn:aws:sqs:*:111122223333:*" },
                "ForAllValues:StringEquals": { "aws:TagKeys": ["team"] },
                Bool: { "aws:SecureTransport": true },
                IpAddress: { "aws:SourceIp": "10.0.0.0/8" },
                DateGreaterThan: { "aws:CurrentTime": "2026-01-01T00:00:00Z" },
                NumericLessThan: { "s3:max-keys": 100 },
                Null: { "aws:ResourceTag/team": "false" },
            };
            expect(
                problems(
                    withAccounts({ reports: { statements: [{ Action: "s3:GetObject", Resource: "arn:aws:s3:::reports/*", Condition }] } }),
                ),
            ).to.deep.equal([]);
        });

        it("refuses a role for the namespace's default service account (every pod naming no serviceAccountName runs as it) unless opted in", () => {
            const grant = { statements: [{ Action: "s3:GetObject", Resource: "arn:aws:s3:::reports/*" }] };
            expect(problems(withAccounts({ default: grant }))).to.deep.equal([
                `${PROJECT}:namespaces.analytics.serviceAccounts.default: is the namespace's default service account, which every pod that names no serviceAccountName runs as: the role would reach every such pod; give the application a service account of its own, or set allowDefaultServiceAccount: true to mean it`,
            ]);
            expect(problems(withAccounts({ default: { ...grant, allowDefaultServiceAccount: true } }))).to.deep.equal([]);
            expect(problems(withAccounts({ default: { ...grant, allowDefaultServiceAccount: false } }))).to.have.length(1);
            expect(problems(withAccounts({ reports: { ...grant, allowDefaultServiceAccount: true } }))).to.deep.equal([
                `${at}.allowDefaultServiceAccount: is only read on serviceAccounts.default; remove it`,
            ]);
            expect(problems(withAccounts({ reports: { ...grant, allowDefaultServiceAccount: false } }))).to.deep.equal([]);
        });
    });

    it("refuses a service account in a namespace this stack does not create", () => {
        const found = problems(
            fixture(
                (v) =>
                    (v.namespaces.billing = {
                        serviceAccounts: { reports: { policyArns: ["arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess"] } },
                    }),
            ),
        );
        expect(found).to.include(
            `${PROJECT}:namespaces.billing.serviceAccounts: are declared in namespace "billing", which this stack does not create (it has no quota and containerDefaults): declare the namespace, or move the service accounts to one that exists`,
        );
    });

    it("refuses a service account that grants nothing, bad or repeated ARNs, bad names and unknown statement keys", () => {
        const found = problems(
            withAccounts({
                idle: {},
                reports: {
                    policyArns: [
                        "arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess",
                        "AmazonS3ReadOnlyAccess",
                        "arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess",
                    ],
                },
                Reports: { policyArns: ["arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess"] },
                writer: { statements: [{ Action: "s3:PutObject", Resources: "*" }] },
            }),
        );
        expect(found).to.include.members([
            `${PROJECT}:namespaces.analytics.serviceAccounts.idle: grants nothing: list policyArns and/or statements`,
            `${PROJECT}:namespaces.analytics.serviceAccounts.reports.policyArns[1]: must be a managed policy ARN such as arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess`,
            `${PROJECT}:namespaces.analytics.serviceAccounts.writer.statements[0].Resources: unknown key (check its spelling against Pulumi.yaml)`,
        ]);
        expect(found.join("\n")).to.match(/serviceAccounts\.reports\.policyArns\[2\]: is listed twice/);
        expect(found).to.include.members([
            `${PROJECT}:namespaces.analytics.serviceAccounts.Reports: must be a DNS-1123 subdomain: lower-case letters, digits, '-' and '.', e.g. reports`,
            `${PROJECT}:namespaces.analytics.serviceAccounts.writer.statements[0].Resource: is required`,
        ]);
    });

    it("refuses an Action that is neither a string nor a list, saying what it must be", () => {
        for (const Action of [5, true, { s3: "GetObject" }]) {
            expect(problems(withAccounts({ reports: { statements: [{ Action, Resource: "*" }] } })), JSON.stringify(Action)).to.deep.equal([
                `${PROJECT}:namespaces.analytics.serviceAccounts.reports.statements[0].Action: must be a string or a non-empty list of strings`,
            ]);
        }
    });

    it("refuses service accounts in a namespace that lacks either its quota or its containerDefaults (the stack creates neither)", () => {
        for (const drop of ["quota", "containerDefaults"] as const) {
            const found = problems(
                fixture((v) => {
                    const rest = { ...(v.namespaces.analytics as Record<string, unknown>) };
                    delete rest[drop];
                    v.namespaces.billing = {
                        ...rest,
                        serviceAccounts: { reports: { policyArns: ["arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess"] } },
                    };
                }),
            );
            expect(found.join("\n"), drop).to.match(
                /namespaces\.billing\.serviceAccounts: are declared in namespace "billing", which this stack does not create/,
            );
        }
    });

    it("refuses two service accounts whose role names would be the same", () => {
        const found = problems(
            fixture((v) => {
                v.namespaces["analytics-jobs"] = {
                    ...v.namespaces.analytics,
                    serviceAccounts: { export: { policyArns: ["arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess"] } },
                };
                v.namespaces.analytics.serviceAccounts = {
                    "jobs-export": { policyArns: ["arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess"] },
                };
            }),
        );
        expect(found).to.deep.equal([
            `${PROJECT}:namespaces["analytics-jobs"].serviceAccounts.export: gets the same role name (<cluster>-analytics-jobs-export) as namespaces.analytics.serviceAccounts.jobs-export: rename one of them`,
        ]);
    });
});
