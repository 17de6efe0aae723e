import { expect } from "chai";
import { PROJECT } from "../../../components/config";
import { fixture, parse, problems } from "./fixtures";

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
