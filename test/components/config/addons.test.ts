import { expect } from "chai";
import { ConfigError, parseStackConfig, PROJECT, StackConfig } from "../../../components/config";
import { INTERFACE_ENDPOINT_SERVICES } from "../../../components/config/network";
import { readStackFiles } from "../../../tools/offline";
import { stacks } from "../../stackFiles";
import { ROOT } from "../../mocks";

/** A stack's config values (keys without the project prefix), decoded. */
function valuesOf(stack: string): Record<string, any> {
    const values: Record<string, any> = {};
    for (const [key, raw] of Object.entries(readStackFiles(ROOT, stack).config)) {
        if (key.startsWith(`${PROJECT}:`)) {
            values[key.slice(PROJECT.length + 1)] = /^[[{]/.test(raw) ? JSON.parse(raw) : raw;
        }
    }
    return values;
}

/** A fixture stack: dev's values with one team namespace of our own, edited by `edit`. */
function fixture(edit: (v: Record<string, any>) => void = () => undefined): Record<string, any> {
    const v = valuesOf("dev");
    v.namespaces = {
        analytics: {
            quota: { requestsCpu: "2", requestsMemory: "4Gi", limitsCpu: "4", limitsMemory: "8Gi", pods: 10 },
            containerDefaults: { request: { cpu: "100m", memory: "128Mi" }, limit: { cpu: "500m", memory: "512Mi" } },
        },
    };
    edit(v);
    return v;
}

function parse(values: Record<string, any>): StackConfig {
    return parseStackConfig(values, { stack: "fixture", region: "us-east-1" });
}

function problems(values: Record<string, any>): string[] {
    try {
        parse(values);
    } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        return (err as ConfigError).problems;
    }
    return [];
}

const STACKS = stacks();

describe("stack config: add-ons", () => {
    it("fills every default of the add-on sections", () => {
        const addons = parse(
            fixture((v) => {
                v.addons = {
                    ebsCsiDriver: { version: "v1.60.0-eksbuild.1" },
                    loadBalancerController: { chartVersion: "1.13.3" },
                    metricsServer: { version: "v0.8.0-eksbuild.2" },
                };
            }),
        ).addons;
        expect(addons.ebsCsiDriver.storageClass).to.deep.equal({ kmsKey: "platform", reclaimPolicy: "Delete" });
        expect(addons.ebsCsiDriver.controller.replicas).to.equal(2);
        expect(addons.loadBalancerController.replicas).to.equal(2);
        expect(addons.metricsServer.replicas).to.equal(2);
        expect(addons.metricsServer.resources.requests).to.deep.equal({ cpu: "100m", memory: "200Mi" });
    });

    it("requires the section, naming it", () => {
        expect(problems(fixture((v) => delete v.addons))).to.deep.equal([`${PROJECT}:addons: is required`]);
    });

    it("names every bad add-on key in one error", () => {
        const found = problems(
            fixture((v) => {
                v.addons.ebsCsiDriver.version = "latest";
                v.addons.ebsCsiDriver.storageClass = { kmsKey: "mine", reclaimPolicy: "Recycle" };
                v.addons.loadBalancerController = { chartVersion: "9.9.9", replicas: 1 };
                v.addons.metricsServer.resources = { requests: { cpu: "2", memory: "200Mi" }, limits: { cpu: "1", memory: "400Mi" } };
                v.addons.metricsServer.version2 = "v1";
            }),
        );
        expect(found).to.have.length(7);
        expect(found[0]).to.match(/^eks-platform:addons\.ebsCsiDriver\.version: must be a pinned add-on version/);
        expect(found.join("\n")).to.include(
            "eks-platform:addons.ebsCsiDriver.storageClass.kmsKey: must be platform, aws-managed or a KMS key ARN",
        );
        expect(found.join("\n")).to.include("eks-platform:addons.ebsCsiDriver.storageClass.reclaimPolicy:");
        expect(found.join("\n")).to.match(
            /eks-platform:addons\.loadBalancerController\.chartVersion: must be a chart version whose IAM policy the platform keeps: 1\.13\.3/,
        );
        expect(found.join("\n")).to.include("eks-platform:addons.loadBalancerController.replicas: must be at least 2");
        expect(found.join("\n")).to.include("eks-platform:addons.metricsServer.resources.requests.cpu: 2 exceeds the limit 1");
        expect(found.join("\n")).to.include("eks-platform:addons.metricsServer.version2: unknown key");
    });

    it("accepts a customer-managed KMS key by ARN and Retain", () => {
        const config = parse(
            fixture(
                (v) =>
                    (v.addons.ebsCsiDriver.storageClass = {
                        kmsKey: "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab",
                        reclaimPolicy: "Retain",
                    }),
            ),
        );
        expect(config.addons.ebsCsiDriver.storageClass.kmsKey).to.equal("arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab");
    });
});

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

describe("stack config: interface endpoints", () => {
    it("are on by default for a private API endpoint and off for a public one, for the seven services", () => {
        // Private-only, reached by the deployer from its own network (a private endpoint needs a route).
        const privateStack = parse(fixture((v) => (v.cluster.endpoint = { publicAccess: false, privateAccessCidrs: ["10.99.0.0/16"] })));
        expect(privateStack.network.interfaceEndpoints).to.deep.equal({ enabled: true, services: [...INTERFACE_ENDPOINT_SERVICES] });
        expect(INTERFACE_ENDPOINT_SERVICES).to.have.members(["ecr.api", "ecr.dkr", "sts", "ec2", "sqs", "eks-auth", "logs"]);
        const publicStack = parse(fixture((v) => (v.cluster.endpoint = { publicAccess: true, publicAccessCidrs: ["203.0.113.0/24"] })));
        expect(publicStack.network.interfaceEndpoints.enabled).to.equal(false);
    });

    it("follow an explicit choice either way", () => {
        const on = parse(fixture((v) => (v.network.interfaceEndpoints = { enabled: true, services: ["sts"] })));
        expect(on.network.interfaceEndpoints).to.deep.equal({ enabled: true, services: ["sts"] });
        const off = parse(
            fixture((v) => {
                v.cluster.endpoint = { publicAccess: false, privateAccessCidrs: ["10.99.0.0/16"] };
                v.network.interfaceEndpoints = { enabled: false };
            }),
        );
        expect(off.network.interfaceEndpoints.enabled).to.equal(false);
    });

    it("refuse repeated services and S3 (the gateway endpoint serves it)", () => {
        expect(problems(fixture((v) => (v.network.interfaceEndpoints = { services: ["sts", "s3", "sts", "Bad Name"] })))).to.deep.equal([
            `${PROJECT}:network.interfaceEndpoints.services[3]: must be a service name such as ecr.api or sts`,
        ]);
        expect(problems(fixture((v) => (v.network.interfaceEndpoints = { services: ["sts", "s3", "sts"] })))).to.deep.equal([
            `${PROJECT}:network.interfaceEndpoints.services[1]: is already reached through the VPC's S3 gateway endpoint (free); remove it`,
            `${PROJECT}:network.interfaceEndpoints.services[2]: "sts" is listed twice`,
        ]);
    });

    for (const stack of STACKS) {
        it(`stack ${stack}: endpoints follow the API endpoint unless the stack file says otherwise`, () => {
            const values = valuesOf(stack);
            const config = parse(values);
            const explicit = values.network.interfaceEndpoints?.enabled;
            expect(config.network.interfaceEndpoints.enabled).to.equal(explicit ?? !config.cluster.endpoint.publicAccess);
        });
    }
});
