/**
 * The preflight's checks against answers AWS gives (aws-sdk-client-mock): a healthy account, then
 * each failure, with the config key and the fix it names. The answers are written here in the
 * shape of the SDK's outputs (not recorded from an account: this repository has none); the stack
 * is the frozen prod fixture.
 */
import {
    DescribeInstanceTypeOfferingsCommand,
    DescribeTransitGatewaysCommand,
    DescribeTransitGatewayVpcAttachmentsCommand,
    EC2Client,
    SearchTransitGatewayRoutesCommand,
    type SearchTransitGatewayRoutesCommandInput,
    type TransitGatewayRoute,
} from "@aws-sdk/client-ec2";
import { DescribeAddonConfigurationCommand, DescribeAddonVersionsCommand, EKSClient } from "@aws-sdk/client-eks";
import { GetRoleCommand, IAMClient } from "@aws-sdk/client-iam";
import { GetServiceQuotaCommand, ServiceQuotasClient } from "@aws-sdk/client-service-quotas";
import { GetParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { mockClient } from "aws-sdk-client-mock";
import { expect } from "chai";
import { actionCovers } from "eks-platform-kernel";
import * as fs from "fs";
import * as path from "path";
import type { PolicyDocument } from "../../../components/iam";
import type { StackConfig } from "../../../components/config";
import { deployerContext, type PlannedResource } from "../../../tools/roles/deployRole";
import { formatPreflight, preflightCommand } from "../../../tools/preflight/preflight";
import {
    ADDON_CONFIG_KEYS,
    awsClients,
    checkInstanceOfferings,
    checkTransitGateway,
    type Finding,
    neededServiceLinkedRoles,
    PREFLIGHT_ACTIONS,
    type PreflightInput,
    QUOTAS,
    quotaDemand,
    runPreflight,
    vcpuQuota,
} from "../../../tools/preflight/preflightChecks";
import { ROOT } from "../../mocks";
import { editedFixture, fixtureProject, stackConfig } from "../../stackFiles";

const sts = mockClient(STSClient);
const eks = mockClient(EKSClient);
const ssm = mockClient(SSMClient);
const ec2 = mockClient(EC2Client);
const quotas = mockClient(ServiceQuotasClient);
const iam = mockClient(IAMClient);

const awsError = (name: string, message = name) => Object.assign(new Error(message), { name });

/** The add-ons the plan pins, as the program registers them. */
const ADDONS: PlannedResource[] = [
    {
        type: "aws:eks/addon:Addon",
        name: "cluster-vpc-cni",
        props: {
            addonName: "vpc-cni",
            addonVersion: "v1.20.4-eksbuild.1",
            clusterName: "platform-prod",
            configurationValues: '{"enableNetworkPolicy":"true"}',
        },
    },
    {
        type: "aws:eks/addon:Addon",
        name: "cluster-kube-proxy",
        props: { addonName: "kube-proxy", addonVersion: "v1.34.0-eksbuild.2", clusterName: "platform-prod" },
    },
];
const PLAN: PlannedResource[] = [
    {
        type: "eks:index:Cluster",
        name: "cluster-eks",
        props: { name: "platform-prod", clusterTags: { "platform/cluster": "platform-prod" } },
    },
    ...ADDONS,
    { type: "aws:eks/nodeGroup:NodeGroup", name: "ng", props: { clusterName: "platform-prod" } },
    { type: "aws:autoscaling/group:Group", name: "asg", props: { namePrefix: "platform-prod-batch-" } },
    { type: "aws:ec2transitgateway/vpcAttachment:VpcAttachment", name: "tgw", props: {} },
];

/**
 * vpc-cni's configuration schema, cut down, in the shape EKS returns it (DescribeAddonConfiguration's
 * `configurationSchema`: JSON Schema draft-06, the root a `$ref` into `definitions`, closed objects,
 * EKS's own formats), as the answer for v1.18.6-eksbuild.1 quoted in aws/amazon-vpc-cni-k8s#3059
 * shows it; coredns's is draft-06 too (spack/spack-infrastructure#1351).
 */
const DRAFT_06_SCHEMA = {
    $ref: "#/definitions/VpcCni",
    $schema: "http://json-schema.org/draft-06/schema#",
    definitions: {
        Env: {
            additionalProperties: false,
            properties: { WARM_IP_TARGET: { format: "integer", type: "string" } },
            type: "object",
        },
        VpcCni: {
            additionalProperties: false,
            properties: { enableNetworkPolicy: { format: "boolean", type: "string" }, env: { $ref: "#/definitions/Env" } },
            type: "object",
        },
    },
};

/**
 * A Transit Gateway route table that answers SearchTransitGatewayRoutes as the EC2 API reference
 * describes its route-search filters (SearchTransitGatewayRoutes, Request Parameters, Filter.N):
 * `route-search.exact-match` the route of the block itself, `route-search.supernet-of-match` the
 * routes whose block holds it ("encompass": 10.0.1.0/29 for 10.0.1.0/30), `route-search.subnet-of-match`
 * the routes inside it. Whether supernet-of-match returns the block itself the reference does not
 * say: `supernetHoldsItself` plays both. The mock answers anything it is told; this answers only
 * what a table of `routes` would, and refuses a filter it does not know.
 */
function routeTable(routes: TransitGatewayRoute[], { supernetHoldsItself = true } = {}) {
    const range = (cidr: string) => {
        const [address, prefix] = cidr.split("/");
        const start = address.split(".").reduce((acc, octet) => acc * 256 + Number(octet), 0);
        return [start, start + 2 ** (32 - Number(prefix))];
    };
    const holds = (outer: string, inner: string) => range(outer)[0] <= range(inner)[0] && range(inner)[1] <= range(outer)[1];
    const matches: Record<string, (route: string, cidr: string) => boolean> = {
        "route-search.exact-match": (route, cidr) => route === cidr,
        "route-search.supernet-of-match": (route, cidr) => holds(route, cidr) && (supernetHoldsItself || route !== cidr),
        "route-search.subnet-of-match": (route, cidr) => holds(cidr, route),
    };
    ec2.on(SearchTransitGatewayRoutesCommand).callsFake((input: SearchTransitGatewayRoutesCommandInput) => {
        const filters = (input.Filters ?? []).map((f) => {
            const match = matches[f.Name ?? ""];
            if (!match) {
                throw awsError("InvalidParameterValue", `the fake route table models no filter ${f.Name ?? "(none)"}`);
            }
            return (route: TransitGatewayRoute) => (f.Values ?? []).some((v) => match(route.DestinationCidrBlock ?? "", v));
        });
        return { Routes: routes.filter((r) => filters.every((f) => f(r))), AdditionalRoutesAvailable: false };
    });
}

/** A healthy account for the prod fixture: the deployer calls, every build, release and type is there, quotas are ample, the gateway routes. */
function healthyAccount(config: StackConfig) {
    for (const m of [sts, eks, ssm, ec2, quotas, iam]) {
        m.reset();
    }
    sts.on(GetCallerIdentityCommand).resolves({
        Account: "123456789012",
        Arn: "arn:aws:sts::123456789012:assumed-role/platform-deployer-prod/ci-run-7",
    });
    eks.on(DescribeAddonVersionsCommand).callsFake((input: { addonName: string }) => ({
        addons: [
            {
                addonName: input.addonName,
                addonVersions: ADDONS.filter((a) => a.props.addonName === input.addonName).map((a) => ({
                    addonVersion: String(a.props.addonVersion),
                    compatibilities: [{ clusterVersion: "1.34" }, { clusterVersion: "1.33" }],
                })),
            },
        ],
    }));
    eks.on(DescribeAddonConfigurationCommand).resolves({
        configurationSchema: JSON.stringify({
            $schema: "http://json-schema.org/draft-07/schema#",
            type: "object",
            additionalProperties: false,
            properties: { enableNetworkPolicy: { type: "string", enum: ["true", "false"] }, env: { type: "object" } },
        }),
    });
    ssm.on(GetParameterCommand).resolves({ Parameter: { Value: "ami-0123456789abcdef0" } });
    const offerings = config.network.availabilityZones.flatMap((z) =>
        [...new Set(Object.values(config.nodeGroups).flatMap((g) => g.instanceTypes))].map((t) => ({
            InstanceType: t as never,
            Location: z,
            LocationType: "availability-zone" as const,
        })),
    );
    ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({ InstanceTypeOfferings: offerings });
    quotas.on(GetServiceQuotaCommand).resolves({ Quota: { Value: 5000 } });
    iam.on(GetRoleCommand).resolves({ Role: { RoleName: "x", Arn: "arn", Path: "/", RoleId: "AROA", CreateDate: new Date() } });
    ec2.on(DescribeTransitGatewaysCommand).resolves({
        TransitGateways: [
            {
                TransitGatewayId: "tgw-0123456789abcdef0",
                State: "available",
                OwnerId: "123456789012",
                Options: { AssociationDefaultRouteTableId: "tgw-rtb-1" },
            },
        ],
    });
    ec2.on(DescribeTransitGatewayVpcAttachmentsCommand).resolves({ TransitGatewayVpcAttachments: [] });
    // The deployer's network (cluster.endpoint.privateAccessCidrs) and, once attached, the VPC.
    routeTable([
        { DestinationCidrBlock: "10.99.0.0/16", State: "active", Type: "propagated" },
        { DestinationCidrBlock: "10.20.0.0/16", State: "active", Type: "propagated" },
    ]);
}

describe("preflight checks (answers in the SDK's shape, the frozen prod stack)", () => {
    let input: PreflightInput;
    let config: StackConfig;
    const run = () => runPreflight(input, awsClients("us-east-1"));
    const of = (findings: Finding[], check: string) => findings.filter((f) => f.check === check);
    const failures = (findings: Finding[]) => findings.filter((f) => f.verdict === "fail");

    before(() => {
        config = stackConfig("prod", fixtureProject());
        input = { config, plan: PLAN, deploy: deployerContext(fixtureProject(), "prod") };
    });
    beforeEach(() => healthyAccount(config));
    after(() => {
        for (const m of [sts, eks, ssm, ec2, quotas, iam]) {
            m.restore();
        }
    });

    it("passes a healthy account: every check reports, none fails, and what only the first `up` makes is undecided", async () => {
        const findings = await run();
        expect(failures(findings)).to.deep.equal([]);
        expect(new Set(findings.map((f) => f.check))).to.deep.equal(
            new Set([
                "identity",
                "addon-builds",
                "addon-configuration",
                "ami-releases",
                "instance-offerings",
                "quotas",
                "service-linked-roles",
                "transit-gateway",
            ]),
        );
        expect(of(findings, "identity")[0].message).to.include("is the deploy role (access.deployer)");
        expect(findings.filter((f) => f.verdict === "undecided").map((f) => f.key)).to.deep.equal(["network.vpcCidr"]);
    });

    it("fails credentials of another account, and a caller that is no role of the stack, naming access", async () => {
        sts.on(GetCallerIdentityCommand).resolves({
            Account: "999999999999",
            Arn: "arn:aws:sts::999999999999:assumed-role/platform-deployer-prod/x",
        });
        expect(of(await run(), "identity")).to.deep.equal([
            {
                check: "identity",
                verdict: "fail",
                key: "access.deployer",
                message: "the credentials are of account 999999999999, the stack's deploy role of account 123456789012",
                fix: "run with the stack's account's credentials, or correct the account in access.deployer",
            },
        ]);
        sts.on(GetCallerIdentityCommand).resolves({ Account: "123456789012", Arn: "arn:aws:sts::123456789012:assumed-role/someone/x" });
        const [f] = of(await run(), "identity");
        expect(f).to.deep.include({ verdict: "fail", key: "access" });
        expect(f.message).to.include("arn:aws:sts::123456789012:assumed-role/someone/x is neither access.deployer");
    });

    it("passes the preview role and an admin, by name whatever the role's path", async () => {
        sts.on(GetCallerIdentityCommand).resolves({
            Account: "123456789012",
            Arn: "arn:aws:sts::123456789012:assumed-role/platform-admin/alice",
        });
        expect(of(await run(), "identity")[0]).to.deep.include({
            verdict: "pass",
            message: "arn:aws:sts::123456789012:assumed-role/platform-admin/alice is an admin (access.admins)",
        });
        sts.on(GetCallerIdentityCommand).resolves({
            Account: "123456789012",
            Arn: "arn:aws:sts::123456789012:assumed-role/platform-preview/pr-12",
        });
        expect(of(await run(), "identity")[0].message).to.include("is the preview role (access.preview)");
    });

    it("passes the drift check's role where the stack names one, and names it among the roles otherwise", async () => {
        const drift = "arn:aws:iam::123456789012:role/platform-drift-prod";
        sts.on(GetCallerIdentityCommand).resolves({
            Account: "123456789012",
            Arn: "arn:aws:sts::123456789012:assumed-role/platform-drift-prod/daily",
        });
        const [unnamed] = of(await run(), "identity");
        expect(unnamed.verdict, "no access.drift in the fixture").to.equal("fail");
        expect(unnamed.message).to.include("nor access.preview, nor access.drift:");
        const withDrift = { ...input, config: { ...config, access: { ...config.access, drift } } };
        expect(of(await runPreflight(withDrift, awsClients("us-east-1")), "identity")[0]).to.deep.include({
            verdict: "pass",
            message: "arn:aws:sts::123456789012:assumed-role/platform-drift-prod/daily is the drift role (access.drift)",
        });
    });

    it("fails an add-on build EKS does not offer for the cluster's minor, naming its key and builds that exist", async () => {
        eks.on(DescribeAddonVersionsCommand, { addonName: "kube-proxy" }).resolves({
            addons: [
                {
                    addonName: "kube-proxy",
                    addonVersions: [
                        { addonVersion: "v1.34.1-eksbuild.1", compatibilities: [{ clusterVersion: "1.34" }] },
                        { addonVersion: "v1.34.0-eksbuild.2", compatibilities: [{ clusterVersion: "1.33" }] },
                    ],
                },
            ],
        });
        const [f] = failures(await run());
        expect(f).to.deep.equal({
            check: "addon-builds",
            verdict: "fail",
            key: "cluster.addons.kubeProxy",
            message: "kube-proxy v1.34.0-eksbuild.2 is not a build EKS offers for Kubernetes 1.34: CreateAddon fails",
            fix: "set cluster.addons.kubeProxy to one of v1.34.1-eksbuild.1",
        });
        // It asked for the cluster's minor.
        expect(eks.commandCalls(DescribeAddonVersionsCommand, { addonName: "kube-proxy" })[0].args[0].input).to.deep.include({
            kubernetesVersion: "1.34",
        });
    });

    it("reads every page of DescribeAddonVersions", async () => {
        eks.on(DescribeAddonVersionsCommand, { addonName: "vpc-cni" })
            .resolvesOnce({
                addons: [
                    {
                        addonName: "vpc-cni",
                        addonVersions: [{ addonVersion: "v1.19.0-eksbuild.1", compatibilities: [{ clusterVersion: "1.34" }] }],
                    },
                ],
                nextToken: "p2",
            })
            .resolvesOnce({
                addons: [
                    {
                        addonName: "vpc-cni",
                        addonVersions: [{ addonVersion: "v1.20.4-eksbuild.1", compatibilities: [{ clusterVersion: "1.34" }] }],
                    },
                ],
            });
        expect(failures(await run())).to.deep.equal([]);
        expect(eks.commandCalls(DescribeAddonVersionsCommand, { addonName: "vpc-cni" })).to.have.length(2);
    });

    it("fails configuration values the add-on's schema refuses, naming the offending key (an unknown key fails CreateAddon)", async () => {
        eks.on(DescribeAddonConfigurationCommand).resolves({
            configurationSchema: JSON.stringify({ type: "object", additionalProperties: false, properties: { env: { type: "object" } } }),
        });
        const [f] = failures(await run());
        expect(f.check).to.equal("addon-configuration");
        expect(f.key).to.equal("cluster.addons.vpcCni");
        expect(f.message).to.equal(
            "vpc-cni's configuration values do not fit the schema of v1.20.4-eksbuild.1: / must NOT have additional properties (enableNetworkPolicy): CreateAddon fails",
        );
        // Only add-ons with values are checked.
        expect(eks.commandCalls(DescribeAddonConfigurationCommand).map((c) => c.args[0].input.addonName)).to.deep.equal(["vpc-cni"]);
    });

    it("leaves undecided an add-on EKS returns no schema for", async () => {
        eks.on(DescribeAddonConfigurationCommand).rejects(awsError("ResourceNotFoundException"));
        expect(of(await run(), "addon-configuration")).to.deep.equal([
            {
                check: "addon-configuration",
                verdict: "undecided",
                key: "cluster.addons.vpcCni",
                message: "EKS returns no configuration schema for vpc-cni v1.20.4-eksbuild.1",
            },
        ]);
    });

    it("fails an AMI release not published in the region: the node group's and the EC2NodeClass alias's, by parameter", async () => {
        ssm.on(GetParameterCommand).rejects(awsError("ParameterNotFound"));
        const f = failures(await run()).filter((x) => x.check === "ami-releases");
        expect(f.map((x) => x.key)).to.deep.equal([
            "nodeGroups.system.releaseVersion",
            "nodeGroups.batch.releaseVersion",
            "karpenter.nodeClasses.default.amiAlias",
        ]);
        expect(f[0].message).to.equal(
            "node group system's release 1.34.7-20260512 is not published in us-east-1 (/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.34-v20260512/image_id does not exist): its nodes cannot launch",
        );
        expect(f[2].message).to.include("EC2NodeClass default's al2023@v20260512 for amd64");
    });

    it("fails a node group none of whose types is offered in a zone of the stack, and notes types offered only in some", async () => {
        const zones = config.network.availabilityZones;
        ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({
            InstanceTypeOfferings: [
                ...zones.map((z) => ({ InstanceType: "m6i.large" as never, Location: z })),
                { InstanceType: "m7i.large", Location: zones[0] },
                ...zones.slice(0, 2).map((z) => ({ InstanceType: "m6i.xlarge" as never, Location: z })),
            ],
        });
        const f = of(await run(), "instance-offerings");
        expect(f[0]).to.deep.include({
            verdict: "pass",
            message: "node group system has a type offered in every zone (not everywhere: m7i.large)",
        });
        expect(f[1]).to.deep.equal({
            check: "instance-offerings",
            verdict: "fail",
            key: "nodeGroups.batch.instanceTypes",
            message: `node group batch: none of m6i.xlarge, m7i.xlarge is offered in ${zones[2]}: its nodes cannot launch there`,
            fix: `add to nodeGroups.batch.instanceTypes a type offered in ${zones[2]}, or leave the zone out of network.availabilityZones`,
        });
    });

    it("counts the stack at its largest against each quota: groups at maxSize of their largest type, NodePools at limits.cpu per capacity type they allow", () => {
        const { demand, unsized } = quotaDemand(config);
        // system: 6 × m7i.large/m6i.large (2 vCPU); batch: 10 × m6i.xlarge (4); general pool 256 on-demand; batch-spot pool's limit on Spot.
        const spotPool = config.karpenter.enabled ? Number(config.karpenter.nodePools["batch-spot"].limits?.cpu) : NaN;
        expect(demand.get("onDemandStandard")).to.equal(6 * 2 + 10 * 4 + 256);
        expect(demand.get("spotStandard")).to.equal(spotPool);
        expect(demand.get("elasticIps")).to.equal(3);
        expect(demand.get("vpcs")).to.equal(1);
        expect(demand.get("interfaceEndpoints")).to.equal(config.network.interfaceEndpoints.services.length);
        expect(unsized).to.deep.equal([]);
    });

    it("fails a quota the stack outgrows, with the quota code and the increase to ask for", async () => {
        quotas
            .on(GetServiceQuotaCommand, { ServiceCode: "ec2", QuotaCode: QUOTAS.onDemandStandard.code })
            .resolves({ Quota: { Value: 64 } });
        quotas.on(GetServiceQuotaCommand, { ServiceCode: "ec2", QuotaCode: QUOTAS.elasticIps.code }).resolves({ Quota: { Value: 5 } });
        const f = failures(await run());
        expect(f).to.have.length(1);
        expect(f[0]).to.deep.equal({
            check: "quotas",
            verdict: "fail",
            key: "nodeGroups.*.maxSize, karpenter.nodePools.*.limits.cpu",
            message:
                "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances (vCPUs) (L-1216C47A) is 64; the stack needs 308 at its largest: scaling stops there (a drain's replacement nodes included)",
            fix: "request an increase of L-1216C47A to at least 308 (Service Quotas console, or aws service-quotas request-service-quota-increase --service-code ec2 --quota-code L-1216C47A --desired-value 308), or lower nodeGroups.*.maxSize, karpenter.nodePools.*.limits.cpu",
        });
        const eip = of(await run(), "quotas").find((x) => x.message.includes("L-0263D0A3"));
        expect(eip?.verdict).to.equal("pass");
        expect(eip?.message).to.include("is 5; the stack needs 3 at its largest (what else the account runs is not counted)");
    });

    it("knows each instance family's vCPU quota, and none for families without one here", () => {
        expect(vcpuQuota("m7i.large", "on-demand")).to.equal("onDemandStandard");
        expect(vcpuQuota("t3.micro", "spot")).to.equal("spotStandard");
        expect(vcpuQuota("g5.xlarge", "on-demand")).to.equal("onDemandG");
        expect(vcpuQuota("vt1.3xlarge", "spot")).to.equal("spotG");
        expect(vcpuQuota("p5.48xlarge", "on-demand")).to.equal("onDemandP");
        expect(vcpuQuota("inf2.xlarge", "on-demand")).to.equal(undefined);
        expect(vcpuQuota("i4i.large", "on-demand")).to.equal("onDemandStandard");
        expect(vcpuQuota("trn1.2xlarge", "spot")).to.equal(undefined);
        expect(vcpuQuota("x2idn.16xlarge", "on-demand")).to.equal(undefined);
    });

    it("leaves undecided a quota Service Quotas does not return", async () => {
        quotas.on(GetServiceQuotaCommand, { QuotaCode: QUOTAS.interfaceEndpoints.code }).rejects(awsError("NoSuchResourceException"));
        const f = of(await run(), "quotas").find((x) => x.message.includes("L-29B6F2EB"));
        expect(f?.verdict).to.equal("undecided");
    });

    it("needs the service-linked roles of the plan's types, and Spot's when a NodePool allows Spot", () => {
        expect(neededServiceLinkedRoles(input)).to.deep.equal([
            "autoscaling.amazonaws.com",
            "eks-nodegroup.amazonaws.com",
            "eks.amazonaws.com",
            "spot.amazonaws.com",
            "transitgateway.amazonaws.com",
        ]);
    });

    it("passes a missing service-linked role the deploy role may create; fails Spot's, which it may not, with the command", async () => {
        iam.on(GetRoleCommand).rejects(awsError("NoSuchEntityException"));
        const f = of(await run(), "service-linked-roles");
        expect(f.filter((x) => x.verdict === "pass").map((x) => x.message)).to.include(
            "AWSServiceRoleForVPCTransitGateway does not exist yet; the deploy role may create it (transitgateway.amazonaws.com) on first use",
        );
        expect(f.filter((x) => x.verdict === "fail")).to.deep.equal([
            {
                check: "service-linked-roles",
                verdict: "fail",
                key: "karpenter.createSpotServiceLinkedRole",
                message: "AWSServiceRoleForEC2Spot does not exist and the deploy role may not create it: the first Spot launch fails",
                fix: "aws iam create-service-linked-role --aws-service-name spot.amazonaws.com, or set karpenter.createSpotServiceLinkedRole: true",
            },
        ]);
    });

    it("fails a Transit Gateway that is not there, naming network.transitGatewayId", async () => {
        ec2.on(DescribeTransitGatewaysCommand).rejects(awsError("InvalidTransitGatewayID.NotFound"));
        expect(of(await run(), "transit-gateway")).to.deep.equal([
            {
                check: "transit-gateway",
                verdict: "fail",
                key: "network.transitGatewayId",
                message: "Transit Gateway tgw-0123456789abcdef0 does not exist in us-east-1 or is not shared with this account",
                fix: "set network.transitGatewayId to the gateway of the tooling network, shared with this account (AWS RAM)",
            },
        ]);
    });

    it("fails a shared gateway that will not accept the attachment by itself: the first `up` would find the endpoint unreachable", async () => {
        ec2.on(DescribeTransitGatewaysCommand).resolves({
            TransitGateways: [
                {
                    TransitGatewayId: "tgw-0123456789abcdef0",
                    State: "available",
                    OwnerId: "555555555555",
                    Options: { AutoAcceptSharedAttachments: "disable", AssociationDefaultRouteTableId: "tgw-rtb-1" },
                },
            ],
        });
        const [f] = failures(await run());
        expect(f.key).to.equal("network.transitGatewayId");
        expect(f.message).to.include("belongs to account 555555555555 and does not accept shared attachments automatically");
        expect(f.fix).to.include("aws ec2 accept-transit-gateway-vpc-attachment");
    });

    it("fails an attachment waiting for acceptance, and a route table without the deployer's networks or, once attached, the VPC", async () => {
        ec2.on(DescribeTransitGatewayVpcAttachmentsCommand).resolves({
            TransitGatewayVpcAttachments: [{ TransitGatewayAttachmentId: "tgw-attach-1", State: "pendingAcceptance" }],
        });
        ec2.on(SearchTransitGatewayRoutesCommand).resolves({ Routes: [] });
        const f = failures(await run());
        expect(f.map((x) => [x.key, x.message])).to.deep.equal([
            [
                "network.transitGatewayId",
                "the stack's attachment tgw-attach-1 is pendingAcceptance: the private endpoint is unreachable until it is available",
            ],
            [
                "cluster.endpoint.privateAccessCidrs",
                "route table tgw-rtb-1 of tgw-0123456789abcdef0 has no active route to 10.99.0.0/16: the deployer's requests never reach the cluster's endpoint",
            ],
        ]);
        ec2.on(DescribeTransitGatewayVpcAttachmentsCommand).resolves({
            TransitGatewayVpcAttachments: [{ TransitGatewayAttachmentId: "tgw-attach-1", State: "available" }],
        });
        routeTable([{ DestinationCidrBlock: "10.99.0.0/16", State: "active", Type: "propagated" }]);
        const back = failures(await run());
        expect(back.map((x) => x.key)).to.deep.equal(["network.vpcCidr"]);
        expect(back[0].message).to.include(
            `no active route to ${config.network.vpcCidr}: answers from the cluster's endpoint never return to the deployer`,
        );
    });

    it("reports a check whose call is refused as undecided with AWS's error: never a pass, never a failure by itself", async () => {
        quotas
            .on(GetServiceQuotaCommand)
            .rejects(awsError("AccessDeniedException", "not authorized to perform: servicequotas:GetServiceQuota"));
        const f = of(await run(), "quotas");
        expect(f).to.deep.equal([
            {
                check: "quotas",
                verdict: "undecided",
                message: "could not check: AccessDeniedException: not authorized to perform: servicequotas:GetServiceQuota",
            },
        ]);
    });

    describe("npm run preflight (in process)", () => {
        const env = () => ({ root: fixtureProject(), render: () => Promise.resolve(PLAN), clients: awsClients });

        it("exits 0 on a healthy account, 1 on a failure, with the findings as text or JSON", async () => {
            expect((await preflightCommand(["prod"], env())).code).to.equal(0);
            ssm.on(GetParameterCommand).rejects(awsError("ParameterNotFound"));
            const out = await preflightCommand(["prod"], env());
            expect(out.code).to.equal(1);
            expect(out.stdout).to.match(/^Preflight of stack "prod": 3 failed, 1 undecided, \d+ passed\n/);
            expect(out.stdout).to.include("  FAIL ami-releases [nodeGroups.system.releaseVersion]: node group system's release");
            expect(out.stdout).to.include("         Fix: set nodeGroups.system.releaseVersion to a release of the EKS AMI changelog");
            const json = JSON.parse((await preflightCommand(["prod", "--format", "json"], env())).stdout) as {
                stack: string;
                findings: Finding[];
            };
            expect(json.stack).to.equal("prod");
            expect(json.findings.filter((x) => x.verdict === "fail")).to.have.length(3);
        });

        it("refuses a missing stack and an unknown format", async () => {
            await preflightCommand([], env()).then(
                () => expect.fail("should refuse"),
                (err: Error) => expect(err.message).to.include("usage: npm run preflight -- <stack>"),
            );
            await preflightCommand(["prod", "--format", "yaml"], env()).then(
                () => expect.fail("should refuse"),
                (err: Error) => expect(err.message).to.equal('--format must be text or json, not "yaml"'),
            );
        });

        it("marks each verdict, and the fix of failures only", () => {
            const text = formatPreflight("qa", [
                { check: "a", verdict: "pass", message: "fine", fix: "never shown" },
                { check: "b", verdict: "undecided", key: "k", message: "unknown" },
                { check: "c", verdict: "fail", key: "x.y", message: "broken", fix: "mend it" },
            ]);
            expect(text).to.equal(
                'Preflight of stack "qa": 1 failed, 1 undecided, 1 passed\n  ok   a: fine\n  ??   b [k]: unknown\n  FAIL c [x.y]: broken\n         Fix: mend it\n',
            );
        });
    });
});

describe("docs/roles.md: the preview role may run the preflight", () => {
    it("grants each read of the preflight in the preview policy (preview.json), and nothing that writes", () => {
        const text = fs.readFileSync(path.join(ROOT, "docs", "roles.md"), "utf8");
        const block = [...text.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => m[1]).find((b) => b.includes('"Sid": "Preflight"'));
        expect(block, "the preview policy's block").to.not.equal(undefined);
        const doc = JSON.parse(block as string) as PolicyDocument;
        for (const action of PREFLIGHT_ACTIONS) {
            expect(
                doc.Statement.some(
                    (st) => st.Effect === "Allow" && [st.Action].flat().some((a) => a !== undefined && actionCovers(a, action)),
                ),
                action,
            ).to.equal(true);
        }
        const actions = doc.Statement.flatMap((st) => [st.Action].flat());
        expect(
            actions.filter(
                (a) =>
                    a !== undefined &&
                    !/^(s3:(Get|List)|kms:Decrypt|ssm:GetParameter|ec2:(Describe|Search)|eks:Describe|servicequotas:Get|sts:Get|iam:GetRole)/.test(
                        a,
                    ),
            ),
        ).to.deep.equal([]);
    });
});

describe("preflight rules on edited stacks (hand-built configs from the frozen prod fixture)", () => {
    const base = () => structuredClone(stackConfig("prod", fixtureProject()));
    const group = (c: StackConfig, name: string) => c.nodeGroups[name];

    describe("quotaDemand", () => {
        it("counts a Spot group on Spot's quota, skips a disabled one, and sizes each group by its largest type whatever the order", () => {
            const c = base();
            Object.assign(group(c, "system"), { capacityType: "SPOT", instanceTypes: ["m6i.xlarge", "m6i.large"], maxSize: 5 });
            group(c, "batch").enabled = false;
            if (c.karpenter.enabled) {
                c.karpenter.nodePools = {};
            }
            const { demand, unsized } = quotaDemand(c);
            expect(demand.get("spotStandard")).to.equal(5 * 4);
            expect(demand.get("onDemandStandard") ?? 0).to.equal(0);
            expect(unsized).to.deep.equal([]);
        });

        it("leaves unsized a group with a type the data does not know, or types of two quota classes, naming it", () => {
            const c = base();
            group(c, "system").instanceTypes = ["zz9.large"];
            group(c, "batch").instanceTypes = ["m6i.xlarge", "g5.xlarge"];
            const { demand, unsized } = quotaDemand(c);
            expect(unsized.slice(0, 2)).to.deep.equal(["node group system", "node group batch"]);
            expect(demand.get("onDemandG")).to.equal(undefined);
        });

        it("counts a GPU group on the G quota of its capacity type", () => {
            const c = base();
            Object.assign(group(c, "batch"), { instanceTypes: ["g5.xlarge", "g5.2xlarge"], maxSize: 3 });
            const { demand } = quotaDemand(c);
            expect(demand.get("onDemandG")).to.equal(3 * 8);
        });

        it("counts a NodePool on-demand when it names no capacity type, on both when it allows both, and leaves unsized one without a cpu limit or outside the standard families", () => {
            const c = base();
            if (!c.karpenter.enabled) {
                expect.fail("the fixture enables Karpenter");
            }
            const general = c.karpenter.nodePools.general;
            const spot = c.karpenter.nodePools["batch-spot"];
            general.requirements = general.requirements.filter((r) => r.key !== "karpenter.sh/capacity-type");
            spot.requirements = spot.requirements.map((r) =>
                r.key === "karpenter.sh/capacity-type" ? { ...r, values: ["spot", "on-demand"] } : r,
            );
            const spotCpu = Number(spot.limits?.cpu);
            const nodeGroups = 6 * 2 + 10 * 4;
            expect(quotaDemand(c).demand.get("onDemandStandard")).to.equal(nodeGroups + Number(general.limits?.cpu) + spotCpu);
            expect(quotaDemand(c).demand.get("spotStandard")).to.equal(spotCpu);
            general.limits = {} as never;
            spot.requirements = spot.requirements.map((r) =>
                r.key === "karpenter.k8s.aws/instance-category" ? { ...r, values: ["g"] } : r,
            );
            expect(quotaDemand(c).unsized).to.deep.equal(["NodePool general", "NodePool batch-spot"]);
        });

        it("needs one Elastic IP per NAT gateway: per zone, single, or none; interface endpoints only when on; nothing of Karpenter when off", () => {
            const c = base();
            c.network.natGateways = "single";
            expect(quotaDemand(c).demand.get("elasticIps")).to.equal(1);
            c.network.natGateways = "none" as never;
            expect(quotaDemand(c).demand.get("elasticIps")).to.equal(0);
            c.network.interfaceEndpoints.enabled = false;
            expect(quotaDemand(c).demand.has("interfaceEndpoints")).to.equal(false);
            const off = { ...c, karpenter: { enabled: false } } as StackConfig;
            expect(quotaDemand(off).demand.get("onDemandStandard")).to.equal(6 * 2 + 10 * 4);
        });
    });

    describe("the checks on an edited stack", () => {
        let deploy: ReturnType<typeof deployerContext>;
        before(() => (deploy = deployerContext(fixtureProject(), "prod")));
        beforeEach(() => healthyAccount(base()));
        const runWith = (config: StackConfig, plan = PLAN) => runPreflight({ config, plan, deploy }, awsClients("us-east-1"));

        it("skips a quota the stack does not use (no NAT gateway: no Elastic IP asked)", async () => {
            const c = base();
            c.network.natGateways = "none" as never;
            await runWith(c);
            expect(quotas.commandCalls(GetServiceQuotaCommand, { QuotaCode: QUOTAS.elasticIps.code })).to.have.length(0);
            expect(quotas.commandCalls(GetServiceQuotaCommand, { QuotaCode: QUOTAS.vpcs.code })[0].args[0].input.ServiceCode).to.equal(
                "vpc",
            );
        });

        it("checks no Transit Gateway for a stack without one, and leaves the routes undecided when the gateway has no default route table", async () => {
            const c = base();
            c.network.transitGatewayId = undefined;
            expect(await checkTransitGateway({ config: c, plan: PLAN, deploy }, awsClients("us-east-1"))).to.deep.equal([]);
            expect(ec2.commandCalls(DescribeTransitGatewaysCommand)).to.have.length(0);
            ec2.on(DescribeTransitGatewaysCommand).resolves({
                TransitGateways: [{ TransitGatewayId: "tgw-0123456789abcdef0", State: "pending", OwnerId: "123456789012", Options: {} }],
            });
            const f = (await runWith(base())).filter((x) => x.check === "transit-gateway");
            expect(f.map((x) => [x.verdict, x.message])).to.deep.equal([
                ["fail", "Transit Gateway tgw-0123456789abcdef0 is pending, not available"],
                ["pass", "Transit Gateway tgw-0123456789abcdef0 will accept the stack's attachment"],
                [
                    "undecided",
                    "Transit Gateway tgw-0123456789abcdef0 has no default association route table: which table routes the attachment is the gateway owner's",
                ],
            ]);
        });

        it("passes a shared gateway that accepts attachments by itself, and looks the attachment up by the gateway and the stack's Name tag", async () => {
            ec2.on(DescribeTransitGatewaysCommand).resolves({
                TransitGateways: [
                    {
                        TransitGatewayId: "tgw-0123456789abcdef0",
                        State: "available",
                        OwnerId: "555555555555",
                        Options: { AutoAcceptSharedAttachments: "enable", AssociationDefaultRouteTableId: "tgw-rtb-1" },
                    },
                ],
            });
            const f = (await runWith(base())).filter((x) => x.check === "transit-gateway");
            expect(f.filter((x) => x.verdict === "fail")).to.deep.equal([]);
            expect(ec2.commandCalls(DescribeTransitGatewayVpcAttachmentsCommand)[0].args[0].input.Filters).to.deep.equal([
                { Name: "transit-gateway-id", Values: ["tgw-0123456789abcdef0"] },
                { Name: "tag:Name", Values: ["platform-prod-tgw"] },
            ]);
            // A deleted attachment is no attachment: the check waits for the new one.
            ec2.on(DescribeTransitGatewayVpcAttachmentsCommand).resolves({
                TransitGatewayVpcAttachments: [{ TransitGatewayAttachmentId: "old", State: "deleted" }],
            });
            expect((await runWith(base())).some((x) => x.key === "network.vpcCidr" && x.verdict === "undecided")).to.equal(true);
        });

        it("needs only EKS's service-linked role for a stack of a cluster alone, and Spot's for a Spot node group", () => {
            const c = base();
            if (c.karpenter.enabled) {
                c.karpenter.nodePools = {};
            }
            const cluster: PlannedResource[] = [
                { type: "eks:index:Cluster", name: "cluster-eks", props: { clusterTags: { "platform/cluster": "platform-prod" } } },
            ];
            expect(neededServiceLinkedRoles({ config: c, plan: cluster, deploy })).to.deep.equal(["eks.amazonaws.com"]);
            group(c, "batch").capacityType = "SPOT";
            expect(neededServiceLinkedRoles({ config: c, plan: cluster, deploy })).to.deep.equal([
                "eks.amazonaws.com",
                "spot.amazonaws.com",
            ]);
            group(c, "batch").enabled = false;
            expect(neededServiceLinkedRoles({ config: c, plan: cluster, deploy })).to.deep.equal(["eks.amazonaws.com"]);
        });

        it("reports a role that cannot be read (not NoSuchEntity) as undecided, never as missing", async () => {
            iam.on(GetRoleCommand).rejects(awsError("AccessDenied", "not authorized to perform iam:GetRole"));
            expect((await runWith(base())).filter((x) => x.check === "service-linked-roles")).to.deep.equal([
                {
                    check: "service-linked-roles",
                    verdict: "undecided",
                    message: "could not check: AccessDenied: not authorized to perform iam:GetRole",
                },
            ]);
        });

        it("passes configuration values that fit, and leaves undecided a build EKS calls invalid for the request", async () => {
            const fit = (await runWith(base())).filter((x) => x.check === "addon-configuration");
            expect(fit).to.deep.equal([
                {
                    check: "addon-configuration",
                    verdict: "pass",
                    key: "cluster.addons.vpcCni",
                    message: "vpc-cni's configuration values fit the schema of v1.20.4-eksbuild.1",
                },
            ]);
            eks.on(DescribeAddonConfigurationCommand).rejects(awsError("InvalidParameterException"));
            expect((await runWith(base())).find((x) => x.check === "addon-configuration")).to.deep.include({
                verdict: "undecided",
                message: "EKS returns no configuration schema for vpc-cni v1.20.4-eksbuild.1",
            });
            eks.on(DescribeAddonConfigurationCommand).rejects(awsError("ThrottlingException", "slow down"));
            expect((await runWith(base())).find((x) => x.check === "addon-configuration")?.message).to.equal(
                "could not check: ThrottlingException: slow down",
            );
        });

        it("asks SSM for the AL2 parameter of a self-managed AL2 group, the arm64 alias parameter of an arm64 pool, and skips what pins no release", async () => {
            const c = base();
            Object.assign(group(c, "batch"), { amiFamily: "AL2", architecture: "arm64" });
            group(c, "system").releaseVersion = undefined;
            if (c.karpenter.enabled) {
                c.karpenter.nodePools["batch-spot"].requirements = c.karpenter.nodePools["batch-spot"].requirements.map((r) =>
                    r.key === "kubernetes.io/arch" ? { ...r, values: ["arm64"] } : r,
                );
            }
            await runWith(c);
            expect(ssm.commandCalls(GetParameterCommand).map((x) => x.args[0].input.Name)).to.deep.equal([
                "/aws/service/eks/optimized-ami/1.34/amazon-linux-2-arm64/amazon-eks-arm64-node-1.34-v20260512/image_id",
                "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.34-v20260512/image_id",
                "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/arm64/standard/amazon-eks-node-al2023-arm64-standard-1.34-v20260512/image_id",
            ]);
        });

        it("leaves undecided a managed group whose AMI type has no known parameter layout", async () => {
            const c = base();
            Object.assign(group(c, "system"), { amiType: "BOTTLEROCKET_x86_64" });
            const f = (await runWith(c)).find((x) => x.key === "nodeGroups.system.releaseVersion");
            expect(f).to.deep.equal({
                check: "ami-releases",
                verdict: "undecided",
                key: "nodeGroups.system.releaseVersion",
                message: "node group system's release 1.34.7-20260512: no public parameter layout is known for its AMI type",
            });
        });

        it("reads every page of the offerings, only for enabled groups' types, in the stack's zones", async () => {
            const c = base();
            group(c, "batch").enabled = false;
            ec2.on(DescribeInstanceTypeOfferingsCommand)
                .resolvesOnce({
                    InstanceTypeOfferings: c.network.availabilityZones.map((z) => ({ InstanceType: "m6i.large" as never, Location: z })),
                    NextToken: "n",
                })
                .resolvesOnce({ InstanceTypeOfferings: [] });
            const f = (await runWith(c)).filter((x) => x.check === "instance-offerings");
            expect(f.map((x) => x.verdict)).to.deep.equal(["pass"]);
            const calls = ec2.commandCalls(DescribeInstanceTypeOfferingsCommand);
            expect(calls).to.have.length(2);
            expect(calls[0].args[0].input).to.deep.include({ LocationType: "availability-zone" });
            expect(calls[0].args[0].input.Filters).to.deep.equal([
                { Name: "instance-type", Values: ["m6i.large", "m7i.large"] },
                { Name: "location", Values: c.network.availabilityZones },
            ]);
            expect(calls[1].args[0].input.NextToken).to.equal("n");
        });

        it("names each check in its undecided finding when every call fails", async () => {
            const refuse = awsError("UnrecognizedClientException", "no credentials");
            sts.reset();
            sts.onAnyCommand().rejects(refuse);
            eks.reset();
            eks.onAnyCommand().rejects(refuse);
            ssm.reset();
            ssm.onAnyCommand().rejects(refuse);
            ec2.reset();
            ec2.onAnyCommand().rejects(refuse);
            quotas.reset();
            quotas.onAnyCommand().rejects(refuse);
            iam.reset();
            iam.onAnyCommand().rejects(refuse);
            const f = await runWith(base());
            expect(f.map((x) => [x.check, x.verdict])).to.deep.equal(
                [
                    "identity",
                    "addon-builds",
                    "addon-configuration",
                    "ami-releases",
                    "instance-offerings",
                    "quotas",
                    "service-linked-roles",
                    "transit-gateway",
                ].map((c) => [c, "undecided"]),
            );
        });

        it("says which build is pinned when it passes, offers at most five builds in the fix, and says when EKS offers none", async () => {
            const pass = (await runWith(base())).find((x) => x.check === "addon-builds" && x.key === "cluster.addons.vpcCni");
            expect(pass).to.deep.equal({
                check: "addon-builds",
                verdict: "pass",
                key: "cluster.addons.vpcCni",
                message: "vpc-cni v1.20.4-eksbuild.1 is a build for Kubernetes 1.34",
            });
            const builds = [
                "v1.34.6-eksbuild.1",
                "v1.34.5-eksbuild.1",
                "v1.34.4-eksbuild.1",
                "v1.34.3-eksbuild.1",
                "v1.34.2-eksbuild.1",
                "v1.34.1-eksbuild.1",
            ];
            eks.on(DescribeAddonVersionsCommand, { addonName: "kube-proxy" }).resolves({
                addons: [
                    {
                        addonName: "kube-proxy",
                        addonVersions: builds.map((b) => ({ addonVersion: b, compatibilities: [{ clusterVersion: "1.34" }] })),
                    },
                ],
            });
            expect((await runWith(base())).find((x) => x.verdict === "fail")?.fix).to.equal(
                `set cluster.addons.kubeProxy to one of ${builds.slice(0, 5).join(", ")}`,
            );
            eks.on(DescribeAddonVersionsCommand, { addonName: "kube-proxy" }).resolves({ addons: [] });
            expect((await runWith(base())).find((x) => x.verdict === "fail")?.fix).to.equal(
                "EKS offers no build of kube-proxy for 1.34: check the add-on's name and the cluster's version",
            );
        });

        it("checks the alias of an EC2NodeClass for both architectures when its pools name none, and skips a class pinned otherwise", async () => {
            const c = base();
            if (!c.karpenter.enabled) {
                expect.fail("the fixture enables Karpenter");
            }
            for (const pool of Object.values(c.karpenter.nodePools)) {
                pool.requirements = pool.requirements.filter((r) => r.key !== "kubernetes.io/arch");
            }
            await runWith(c);
            const names = ssm.commandCalls(GetParameterCommand).map((x) => String(x.args[0].input.Name));
            expect(names.filter((n) => n.includes("/amazon-linux-2023/") && n.includes("-standard-1.34-v20260512"))).to.have.length(4);
            expect(names.some((n) => n.includes("arm64/standard"))).to.equal(true);
            ssm.resetHistory();
            c.karpenter.nodeClasses.default.amiAlias = "al2023@latest";
            await runWith(c);
            expect(
                ssm
                    .commandCalls(GetParameterCommand)
                    .map((x) => String(x.args[0].input.Name))
                    .filter((n) => n.includes("arm64")),
            ).to.deep.equal([]);
        });

        it("fails a route search that returns no routes at all", async () => {
            ec2.on(SearchTransitGatewayRoutesCommand).resolves({});
            expect((await runWith(base())).find((x) => x.key === "cluster.endpoint.privateAccessCidrs")?.verdict).to.equal("fail");
        });

        it("knows no caller without a preview role in the stack", async () => {
            const c = base();
            c.access.preview = undefined;
            sts.on(GetCallerIdentityCommand).resolves({
                Account: "123456789012",
                Arn: "arn:aws:sts::123456789012:assumed-role/platform-preview/pr-1",
            });
            expect((await runWith(c)).find((x) => x.check === "identity")?.verdict).to.equal("fail");
        });
    });
});

describe("preflight: SDK answers without their optional fields, boundaries, and each failure's key and fix", () => {
    const base = () => structuredClone(stackConfig("prod", fixtureProject()));
    let deploy: ReturnType<typeof deployerContext>;
    before(() => (deploy = deployerContext(fixtureProject(), "prod")));
    beforeEach(() => healthyAccount(base()));
    const runWith = (config: StackConfig = base(), plan = PLAN) => runPreflight({ config, plan, deploy }, awsClients("us-east-1"));
    const checked = async (check: string, config?: StackConfig, plan?: PlannedResource[]) =>
        (await runWith(config, plan)).filter((f) => f.check === check);
    const karpenterOf = (c: StackConfig) => {
        if (!c.karpenter.enabled) {
            return expect.fail("the fixture enables Karpenter");
        }
        return c.karpenter;
    };

    it("makes clients for the stack's region", async () => {
        const aws = awsClients("eu-west-3");
        for (const client of [aws.sts, aws.eks, aws.ssm, aws.ec2, aws.quotas, aws.iam]) {
            expect(await client.config.region()).to.equal("eu-west-3");
        }
    });

    describe("identity", () => {
        it("names an unknown account as ? when STS returns none", async () => {
            sts.on(GetCallerIdentityCommand).resolves({ Arn: "arn:aws:sts::123456789012:assumed-role/platform-deployer-prod/x" });
            const [f] = await checked("identity");
            expect(f).to.deep.include({ verdict: "fail", key: "access.deployer" });
            expect(f.message).to.match(/^the credentials are of account \?, the stack's deploy role of account 123456789012$/);
        });

        it("fails a caller of no role of the stack with the fix (run as the deploy role, or add it to access.admins), and one STS gives no ARN", async () => {
            sts.on(GetCallerIdentityCommand).resolves({ Account: "123456789012", Arn: "arn:aws:sts::123456789012:assumed-role/someone/x" });
            const [f] = await checked("identity");
            expect(f.message).to.match(
                /nor in access\.admins, nor access\.preview, nor access\.drift: `pulumi up` would refuse it \(components\/access\.ts\)$/,
            );
            expect(f.fix).to.equal("run as the deploy role, or add this role to access.admins");
            sts.on(GetCallerIdentityCommand).resolves({ Account: "123456789012" });
            const [none] = await checked("identity");
            expect(none).to.deep.include({ verdict: "fail", key: "access" });
            // No ARN is no role: an empty name, not "undefined".
            expect(none.message).to.match(/^ is neither access\.deployer/);
        });
    });

    describe("addon-builds", () => {
        it("reads answers without addons, versions, compatibilities or a version name as offering nothing, without crashing", async () => {
            eks.on(DescribeAddonVersionsCommand, { addonName: "kube-proxy" })
                .resolvesOnce({ nextToken: "p2" })
                .resolvesOnce({
                    addons: [
                        { addonName: "kube-proxy" },
                        {
                            addonName: "kube-proxy",
                            addonVersions: [{ addonVersion: "v1.34.0-eksbuild.2" }, { compatibilities: [{ clusterVersion: "1.34" }] }],
                        },
                    ],
                });
            const f = (await checked("addon-builds")).find((x) => x.key === "cluster.addons.kubeProxy");
            expect(f?.verdict).to.equal("fail");
            expect(f?.fix).to.equal("EKS offers no build of kube-proxy for 1.34: check the add-on's name and the cluster's version");
        });

        it("fails an add-on the program installs under no known key, offering its builds", async () => {
            const plan: PlannedResource[] = [
                { type: "aws:eks/addon:Addon", name: "adot", props: { addonName: "adot", addonVersion: "v0.1.0-eksbuild.1" } },
            ];
            eks.on(DescribeAddonVersionsCommand, { addonName: "adot" }).resolves({
                addons: [{ addonVersions: [{ addonVersion: "v0.2.0-eksbuild.1", compatibilities: [{ clusterVersion: "1.34" }] }] }],
            });
            const [f] = await checked("addon-builds", base(), plan);
            expect(f).to.deep.equal({
                check: "addon-builds",
                verdict: "fail",
                key: undefined,
                message: "adot v0.1.0-eksbuild.1 is not a build EKS offers for Kubernetes 1.34: CreateAddon fails",
                fix: "set its version to one of v0.2.0-eksbuild.1",
            });
        });
    });

    describe("addon-configuration", () => {
        it("leaves undecided an answer without a schema, and checks no values that are not a string (unknown until up)", async () => {
            eks.on(DescribeAddonConfigurationCommand).resolves({ addonName: "vpc-cni" });
            expect(await checked("addon-configuration")).to.deep.equal([
                {
                    check: "addon-configuration",
                    verdict: "undecided",
                    key: "cluster.addons.vpcCni",
                    message: "EKS returns no configuration schema for vpc-cni v1.20.4-eksbuild.1",
                },
            ]);
            eks.resetHistory();
            const unknown = PLAN.map((r) =>
                r.props.addonName === "vpc-cni" ? { ...r, props: { ...r.props, configurationValues: {} } } : r,
            );
            expect(await checked("addon-configuration", base(), unknown)).to.deep.equal([]);
            expect(eks.commandCalls(DescribeAddonConfigurationCommand)).to.have.length(0);
        });

        it("names each value the schema refuses by its path, the extra key only for additional properties, and says what to change", async () => {
            const plan = PLAN.map((r) =>
                r.props.addonName === "vpc-cni"
                    ? { ...r, props: { ...r.props, configurationValues: '{"enableNetworkPolicy":"yes","extra":1}' } }
                    : r,
            );
            const [f] = await checked("addon-configuration", base(), plan);
            expect(f).to.deep.include({ verdict: "fail", key: "cluster.addons.vpcCni" });
            const problems =
                /^vpc-cni's configuration values do not fit the schema of v1\.20\.4-eksbuild\.1: (.*): CreateAddon fails$/.exec(f.message);
            expect(problems?.[1].split("; ").sort()).to.deep.equal([
                "/ must NOT have additional properties (extra)",
                "/enableNetworkPolicy must be equal to one of the allowed values",
            ]);
            expect(f.fix).to.match(
                /^change the values the program derives for vpc-cni \(its add-on's settings in the stack file\), or pin a build whose schema has them$/,
            );
        });

        it("decides against EKS's draft-06, 2019-09 and 2020-12 schemas as against draft-07 ones: values that fit pass, a misspelt key fails by name", async () => {
            const misspelt = PLAN.map((r) =>
                r.props.addonName === "vpc-cni"
                    ? { ...r, props: { ...r.props, configurationValues: '{"enableNetworkPolicy":"true","env":{"WARM_IP_TARGT":"2"}}' } }
                    : r,
            );
            // The EBS and EFS CSI drivers' schemas name 2019-09 (aws/containers-roadmap#2415); 2020-12 is the draft after it.
            for (const draft of [
                "http://json-schema.org/draft-06/schema#",
                "http://json-schema.org/draft-07/schema#",
                "https://json-schema.org/draft/2019-09/schema",
                "https://json-schema.org/draft/2020-12/schema",
            ]) {
                eks.on(DescribeAddonConfigurationCommand).resolves({
                    configurationSchema: JSON.stringify({ ...DRAFT_06_SCHEMA, $schema: draft }),
                });
                expect(await checked("addon-configuration"), draft).to.deep.equal([
                    {
                        check: "addon-configuration",
                        verdict: "pass",
                        key: "cluster.addons.vpcCni",
                        message: "vpc-cni's configuration values fit the schema of v1.20.4-eksbuild.1",
                    },
                ]);
                const [f] = await checked("addon-configuration", base(), misspelt);
                expect([f.verdict, f.key, f.message], draft).to.deep.equal([
                    "fail",
                    "cluster.addons.vpcCni",
                    "vpc-cni's configuration values do not fit the schema of v1.20.4-eksbuild.1: /env must NOT have additional properties (WARM_IP_TARGT): CreateAddon fails",
                ]);
            }
        });
    });

    describe("ami-releases", () => {
        it("passes a published release naming its parameter, skips a disabled group, and fails an unpublished one with the changelog and the region", async () => {
            const c = base();
            c.nodeGroups.batch.enabled = false;
            const f = await checked("ami-releases", c);
            expect(f.map((x) => x.key)).to.deep.equal(["nodeGroups.system.releaseVersion", "karpenter.nodeClasses.default.amiAlias"]);
            expect(f[0]).to.deep.equal({
                check: "ami-releases",
                verdict: "pass",
                key: "nodeGroups.system.releaseVersion",
                message:
                    "node group system's release 1.34.7-20260512 is published (/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.34-v20260512/image_id)",
            });
            ssm.on(GetParameterCommand).rejects(awsError("ParameterNotFound"));
            const [fail] = await checked("ami-releases", c);
            expect(fail.fix).to.equal(
                "set nodeGroups.system.releaseVersion to a release of the EKS AMI changelog (github.com/awslabs/amazon-eks-ami/releases) published in us-east-1",
            );
        });

        it("reports a parameter SSM refuses to read as undecided, never as unpublished", async () => {
            ssm.on(GetParameterCommand).rejects(awsError("AccessDeniedException", "not authorized to perform: ssm:GetParameter"));
            expect(await checked("ami-releases")).to.deep.equal([
                {
                    check: "ami-releases",
                    verdict: "undecided",
                    message: "could not check: AccessDeniedException: not authorized to perform: ssm:GetParameter",
                },
            ]);
        });

        it("checks only pinned aliases (al2023@v and eight digits), by the architectures of the class's own pools; an arch a pool excludes is no choice of one", async () => {
            const c = base();
            const k = karpenterOf(c);
            const aliasCalls = async () => {
                ssm.resetHistory();
                await runWith(c);
                return ssm
                    .commandCalls(GetParameterCommand)
                    .map((x) => String(x.args[0].input.Name))
                    .filter((n) => n.includes("-1.34-v20260601/"));
            };
            for (const alias of ["xal2023@v20260601", "al2023@v202606010", "al2023@v2026060", "al2023@vabcdefgh"]) {
                k.nodeClasses.default.amiAlias = alias;
                expect(await aliasCalls(), alias).to.deep.equal([]);
            }
            k.nodeClasses.default.amiAlias = "al2023@v20260601";
            expect(await aliasCalls()).to.deep.equal([
                "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.34-v20260601/image_id",
            ]);
            // A pool of another class does not add its architecture to this one's; NotIn names no architecture to check.
            k.nodeClasses.other = { ...k.nodeClasses.default, amiAlias: "al2023@latest" };
            k.nodePools["batch-spot"].nodeClassRef = { ...k.nodePools["batch-spot"].nodeClassRef, name: "other" };
            k.nodePools["batch-spot"].requirements = k.nodePools["batch-spot"].requirements.map((r) =>
                r.key === "kubernetes.io/arch" ? { ...r, values: ["arm64"] } : r,
            );
            expect((await aliasCalls()).some((n) => n.includes("/arm64/"))).to.equal(false);
            k.nodePools.general.requirements = k.nodePools.general.requirements.map((r) =>
                r.key === "kubernetes.io/arch" ? { ...r, operator: "NotIn" as const, values: ["arm64"] } : r,
            );
            expect((await aliasCalls()).map((n) => n.split("/")[7])).to.deep.equal(["x86_64", "arm64"]);
            expect(
                (await checked("ami-releases", c))
                    .filter((x) => x.key === "karpenter.nodeClasses.default.amiAlias")
                    .map((x) => x.message.split(" is ")[0]),
            ).to.deep.equal(["EC2NodeClass default's al2023@v20260601 for amd64", "EC2NodeClass default's al2023@v20260601 for arm64"]);
        });
    });

    describe("instance-offerings", () => {
        it("asks nothing when no group is enabled, says a type offered everywhere plainly, and reads an answer without offerings as none offered", async () => {
            const c = base();
            c.nodeGroups.batch.enabled = false;
            c.nodeGroups.system.enabled = false;
            expect(await checkInstanceOfferings({ config: c, plan: PLAN, deploy }, awsClients("us-east-1"))).to.deep.equal([]);
            expect(ec2.commandCalls(DescribeInstanceTypeOfferingsCommand)).to.have.length(0);
            const all = await checked("instance-offerings");
            expect(all.map((x) => x.message)).to.deep.equal([
                "node group system has a type offered in every zone",
                "node group batch has a type offered in every zone",
            ]);
            ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({});
            const none = await checked("instance-offerings");
            expect(none.map((x) => [x.verdict, x.key])).to.deep.equal([
                ["fail", "nodeGroups.system.instanceTypes"],
                ["fail", "nodeGroups.batch.instanceTypes"],
            ]);
            expect(none[0].message).to.equal(
                "node group system: none of m6i.large, m7i.large is offered in us-east-1a, us-east-1b, us-east-1c: its nodes cannot launch there",
            );
            expect(none[0].fix).to.equal(
                "add to nodeGroups.system.instanceTypes a type offered in us-east-1a, us-east-1b, us-east-1c, or leave the zone out of network.availabilityZones",
            );
            ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({
                InstanceTypeOfferings: [
                    { InstanceType: "m6i.large", Location: "us-east-1a" },
                    { InstanceType: "m6i.large", Location: "us-east-1b" },
                    { InstanceType: "m7i.large", Location: "us-east-1c" },
                ],
            });
            expect((await checked("instance-offerings")).find((x) => x.key === "nodeGroups.system.instanceTypes")?.message).to.equal(
                "node group system has a type offered in every zone (not everywhere: m6i.large, m7i.large)",
            );
        });
    });

    describe("quotas", () => {
        const onDemand = (value?: number) =>
            quotas.on(GetServiceQuotaCommand, { QuotaCode: "L-1216C47A" }).resolves(value === undefined ? {} : { Quota: { Value: value } });

        it("passes a quota exactly at the stack's demand and fails one a vCPU short", async () => {
            // 6 × 2 (system) + 10 × 4 (batch) + 256 (the general pool) on-demand vCPUs.
            onDemand(308);
            expect((await checked("quotas")).find((x) => x.message.includes("L-1216C47A"))?.verdict).to.equal("pass");
            onDemand(307);
            const f = (await checked("quotas")).find((x) => x.message.includes("L-1216C47A"));
            expect(f?.verdict).to.equal("fail");
            expect(f?.message).to.match(/ is 307; the stack needs 308 at its largest/);
        });

        it("leaves undecided a quota whose answer has no value, naming the demand", async () => {
            onDemand();
            const f = (await checked("quotas")).find((x) => x.message.includes("L-1216C47A"));
            expect(f).to.deep.equal({
                check: "quotas",
                verdict: "undecided",
                key: "nodeGroups.*.maxSize, karpenter.nodePools.*.limits.cpu",
                message:
                    "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances (vCPUs) (L-1216C47A): Service Quotas returns no value; the stack needs 308",
            });
        });

        it("names each quota, its service and the config key its demand comes from", async () => {
            const c = base();
            Object.assign(c.nodeGroups.system, { instanceTypes: ["g5.xlarge"], capacityType: "SPOT", maxSize: 2 });
            Object.assign(c.nodeGroups.batch, { instanceTypes: ["g5.2xlarge"], maxSize: 3 });
            quotas.on(GetServiceQuotaCommand).resolves({ Quota: { Value: 0 } });
            const f = await checked("quotas", c);
            expect(f.every((x) => x.verdict === "fail")).to.equal(true);
            expect(f.map((x) => [x.key, /^(.*) is 0; the stack needs (\d+) /.exec(x.message)?.slice(1)])).to.deep.equal([
                ["nodeGroups.*.maxSize", ["All G and VT Spot Instance Requests (vCPUs) (L-3819A6DF)", "8"]],
                ["nodeGroups.*.maxSize", ["Running On-Demand G and VT instances (vCPUs) (L-DB2E81BA)", "24"]],
                [
                    "nodeGroups.*.maxSize, karpenter.nodePools.*.limits.cpu",
                    ["Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances (vCPUs) (L-1216C47A)", "256"],
                ],
                [
                    "nodeGroups.*.maxSize, karpenter.nodePools.*.limits.cpu",
                    ["All Standard (A, C, D, H, I, M, R, T, Z) Spot Instance Requests (vCPUs) (L-34B43A08)", "128"],
                ],
                ["network.natGateways", ["EC2-VPC Elastic IPs (L-0263D0A3)", "3"]],
                ["network", ["VPCs per Region (L-F678F1CE)", "1"]],
                ["network.interfaceEndpoints.services", ["Interface VPC endpoints per VPC (L-29B6F2EB)", "7"]],
            ]);
            expect(f.find((x) => x.key === "network")?.fix).to.equal(
                "request an increase of L-F678F1CE to at least 1 (Service Quotas console, or aws service-quotas request-service-quota-increase --service-code vpc --quota-code L-F678F1CE --desired-value 1), or lower network",
            );
            expect(quotas.commandCalls(GetServiceQuotaCommand).map((x) => x.args[0].input.ServiceCode)).to.deep.equal([
                "ec2",
                "ec2",
                "ec2",
                "ec2",
                "ec2",
                "vpc",
                "vpc",
            ]);
        });

        it("says what it did not count: a group the data cannot size, without a key", async () => {
            const c = base();
            c.nodeGroups.system.instanceTypes = ["zz9.large"];
            expect((await checked("quotas", c)).filter((x) => x.verdict === "undecided")).to.deep.equal([
                {
                    check: "quotas",
                    verdict: "undecided",
                    message:
                        "node group system: its instance types' vCPUs or quota class are not known to the data (kernel/instanceTypes.ts), not counted",
                },
            ]);
        });
    });

    describe("quotaDemand and vcpuQuota", () => {
        it("knows the families whose vCPUs count against no quota listed here, whatever letter they start with, and G and P on Spot", () => {
            for (const t of ["dl1.24xlarge", "hpc7a.96xlarge", "mac2.metal", "u-6tb1.112xlarge", "f1.2xlarge", "inf1.xlarge"]) {
                expect(vcpuQuota(t, "on-demand"), t).to.equal(undefined);
            }
            expect(vcpuQuota("g5.xlarge", "spot")).to.equal("spotG");
            expect(vcpuQuota("vt1.3xlarge", "on-demand")).to.equal("onDemandG");
            expect(vcpuQuota("p5.48xlarge", "spot")).to.equal("spotP");
            expect(vcpuQuota("d3.xlarge", "on-demand")).to.equal("onDemandStandard");
            expect(vcpuQuota("h1.2xlarge", "spot")).to.equal("spotStandard");
        });

        it("leaves unsized a group with any type the data does not size, even beside a known one: the unknown one may be the largest", () => {
            const c = base();
            c.nodeGroups.system.instanceTypes = ["m6i.large", "m99i.48xlarge"];
            c.nodeGroups.batch.instanceTypes = ["m99i.48xlarge", "m6i.xlarge"];
            const { demand, unsized } = quotaDemand(c);
            expect(unsized).to.deep.equal(["node group system", "node group batch"]);
            // The pools only.
            expect(demand.get("onDemandStandard")).to.equal(256);
            // Sized, but of a class whose quota is not listed here (Trainium).
            c.nodeGroups.system.instanceTypes = ["trn1.2xlarge"];
            expect(quotaDemand(c).unsized).to.deep.equal(["node group system", "node group batch"]);
        });

        it("leaves unsized a NodePool whose cpu limit is no plain number (millicores), or one that excludes categories rather than naming them; NotIn Spot is on-demand", () => {
            const c = base();
            const k = karpenterOf(c);
            k.nodePools.general.limits = { cpu: "256000m", memory: "1024Gi" };
            k.nodePools["batch-spot"].requirements = k.nodePools["batch-spot"].requirements.map((r) =>
                r.key === "karpenter.k8s.aws/instance-category" ? { ...r, operator: "NotIn" as const, values: ["m"] } : r,
            );
            expect(quotaDemand(c).unsized).to.deep.equal(["NodePool general", "NodePool batch-spot"]);
            const d = base();
            const pools = karpenterOf(d).nodePools;
            pools["batch-spot"].requirements = pools["batch-spot"].requirements.map((r) =>
                r.key === "karpenter.sh/capacity-type" ? { ...r, operator: "NotIn" as const, values: ["spot"] } : r,
            );
            expect(quotaDemand(d).demand.get("spotStandard")).to.equal(undefined);
            expect(quotaDemand(d).demand.get("onDemandStandard")).to.equal(6 * 2 + 10 * 4 + 256 + 128);
        });
    });

    describe("service-linked-roles", () => {
        it("asks IAM for each needed role by its name and passes those that exist", async () => {
            expect((await checked("service-linked-roles")).map((x) => [x.verdict, x.message])).to.deep.equal([
                ["pass", "AWSServiceRoleForAutoScaling exists"],
                ["pass", "AWSServiceRoleForAmazonEKSNodegroup exists"],
                ["pass", "AWSServiceRoleForAmazonEKS exists"],
                ["pass", "AWSServiceRoleForEC2Spot exists"],
                ["pass", "AWSServiceRoleForVPCTransitGateway exists"],
            ]);
            expect(iam.commandCalls(GetRoleCommand).map((x) => x.args[0].input.RoleName)).to.deep.equal([
                "AWSServiceRoleForAutoScaling",
                "AWSServiceRoleForAmazonEKSNodegroup",
                "AWSServiceRoleForAmazonEKS",
                "AWSServiceRoleForEC2Spot",
                "AWSServiceRoleForVPCTransitGateway",
            ]);
        });

        it("fails a missing role of another service than Spot's that the deploy role may not create, with no key and the create command", async () => {
            iam.on(GetRoleCommand).rejects(awsError("NoSuchEntityException"));
            // A plan without the cluster, of a stack without Karpenter: its deploy role creates no service-linked role.
            const noKarpenter = { ...base(), karpenter: { enabled: false } } as StackConfig;
            expect(await checked("service-linked-roles", noKarpenter, [])).to.deep.equal([
                {
                    check: "service-linked-roles",
                    verdict: "fail",
                    key: undefined,
                    message: "AWSServiceRoleForAmazonEKS does not exist and the deploy role may not create it: the first create fails",
                    fix: "aws iam create-service-linked-role --aws-service-name eks.amazonaws.com",
                },
            ]);
        });

        it("passes a missing Spot role the program creates (karpenter.createSpotServiceLinkedRole)", async () => {
            iam.on(GetRoleCommand).rejects(awsError("NoSuchEntityException"));
            const plan: PlannedResource[] = [
                ...PLAN,
                { type: "aws:iam/serviceLinkedRole:ServiceLinkedRole", name: "spot", props: { awsServiceName: "spot.amazonaws.com" } },
            ];
            const f = await checked("service-linked-roles", base(), plan);
            expect(f.filter((x) => x.verdict !== "pass")).to.deep.equal([]);
            expect(f.map((x) => x.message)).to.include(
                "AWSServiceRoleForEC2Spot does not exist yet; the deploy role may create it (spot.amazonaws.com) on first use",
            );
        });

        it("needs Spot's role only for a pool of an enabled Karpenter that allows Spot by its capacity-type key", () => {
            const cluster: PlannedResource[] = [
                { type: "eks:index:Cluster", name: "cluster-eks", props: { clusterTags: { "platform/cluster": "platform-prod" } } },
            ];
            const spotOf = (c: StackConfig) =>
                neededServiceLinkedRoles({ config: c, plan: cluster, deploy }).includes("spot.amazonaws.com");
            expect(spotOf(base())).to.equal(true);
            const off = base();
            karpenterOf(off).enabled = false as never;
            expect(spotOf(off)).to.equal(false);
            const notIn = base();
            const pool = karpenterOf(notIn).nodePools["batch-spot"];
            pool.requirements = pool.requirements.map((r) =>
                r.key === "karpenter.sh/capacity-type" ? { ...r, operator: "NotIn" as const } : r,
            );
            expect(spotOf(notIn)).to.equal(false);
            const otherKey = base();
            const p = karpenterOf(otherKey).nodePools["batch-spot"];
            p.requirements = p.requirements.map((r) => (r.key === "karpenter.sh/capacity-type" ? { ...r, key: "workload/capacity" } : r));
            expect(spotOf(otherKey)).to.equal(false);
        });
    });

    describe("transit-gateway", () => {
        const gateway = (g: Record<string, unknown>) =>
            ec2.on(DescribeTransitGatewaysCommand).resolves({ TransitGateways: [{ TransitGatewayId: "tgw-0123456789abcdef0", ...g }] });

        it("fails a gateway the answer lists none of, and reports any other error than an invalid ID as undecided", async () => {
            ec2.on(DescribeTransitGatewaysCommand).resolves({});
            const [f] = await checked("transit-gateway");
            expect(f).to.deep.include({ verdict: "fail", key: "network.transitGatewayId" });
            expect(f.message).to.match(/^Transit Gateway tgw-0123456789abcdef0 does not exist in us-east-1/);
            ec2.on(DescribeTransitGatewaysCommand).rejects(
                awsError("UnauthorizedOperation", "not authorized to perform: ec2:DescribeTransitGateways"),
            );
            expect(await checked("transit-gateway")).to.deep.equal([
                {
                    check: "transit-gateway",
                    verdict: "undecided",
                    message: "could not check: UnauthorizedOperation: not authorized to perform: ec2:DescribeTransitGateways",
                },
            ]);
        });

        it("fails a gateway in no state; one of no known owner is this account's; routes each of the deployer's networks through the default table", async () => {
            gateway({ Options: { AssociationDefaultRouteTableId: "tgw-rtb-1" } });
            const f = await checked("transit-gateway");
            expect(f.map((x) => [x.verdict, x.key, x.message])).to.deep.equal([
                ["fail", "network.transitGatewayId", "Transit Gateway tgw-0123456789abcdef0 is in no state, not available"],
                ["pass", "network.transitGatewayId", "Transit Gateway tgw-0123456789abcdef0 will accept the stack's attachment"],
                ["pass", "cluster.endpoint.privateAccessCidrs", "route table tgw-rtb-1 of tgw-0123456789abcdef0 routes 10.99.0.0/16"],
                [
                    "undecided",
                    "network.vpcCidr",
                    "the route back to 10.20.0.0/16 exists only once the first `up` attaches the VPC: run preflight again after it",
                ],
            ]);
            // The routes that hold the network: its own block's and its supernets' (subnet-of-match would
            // be the routes inside it, each carrying only part of it).
            expect(ec2.commandCalls(SearchTransitGatewayRoutesCommand).map((x) => x.args[0].input)).to.deep.equal([
                { TransitGatewayRouteTableId: "tgw-rtb-1", Filters: [{ Name: "route-search.exact-match", Values: ["10.99.0.0/16"] }] },
                {
                    TransitGatewayRouteTableId: "tgw-rtb-1",
                    Filters: [{ Name: "route-search.supernet-of-match", Values: ["10.99.0.0/16"] }],
                },
            ]);
        });

        it("fails a foreign gateway without options, and leaves its routes undecided", async () => {
            gateway({ State: "available", OwnerId: "555555555555" });
            ec2.on(DescribeTransitGatewayVpcAttachmentsCommand).resolves({});
            const f = await checked("transit-gateway");
            expect(f.map((x) => x.verdict)).to.deep.equal(["fail", "undecided"]);
            expect(f[0].message).to.match(
                /^Transit Gateway tgw-0123456789abcdef0 belongs to account 555555555555 and does not accept shared attachments automatically: .*every Kubernetes resource of the first `up` fails as unreachable$/,
            );
            expect(f[0].fix).to.equal(
                "have account 555555555555 accept the attachment as soon as the first `up` creates it (aws ec2 accept-transit-gateway-vpc-attachment), or enable AutoAcceptSharedAttachments",
            );
        });

        it("names who accepts a pending attachment, no fix for an attachment in another state, and fails a route that is not active", async () => {
            ec2.on(DescribeTransitGatewayVpcAttachmentsCommand).resolves({
                TransitGatewayVpcAttachments: [{ TransitGatewayAttachmentId: "tgw-attach-1", State: "pendingAcceptance" }],
            });
            const [pending] = await checked("transit-gateway");
            expect(pending.fix).to.equal("have account 123456789012 accept it (aws ec2 accept-transit-gateway-vpc-attachment)");
            ec2.on(DescribeTransitGatewayVpcAttachmentsCommand).resolves({
                TransitGatewayVpcAttachments: [{ TransitGatewayAttachmentId: "tgw-attach-1", State: "modifying" }],
            });
            ec2.on(SearchTransitGatewayRoutesCommand).resolves({ Routes: [{ DestinationCidrBlock: "10.99.0.0/16", State: "blackhole" }] });
            const f = await checked("transit-gateway");
            expect(f[0]).to.deep.equal({
                check: "transit-gateway",
                verdict: "fail",
                key: "network.transitGatewayId",
                message: "the stack's attachment tgw-attach-1 is modifying: the private endpoint is unreachable until it is available",
                fix: undefined,
            });
            expect(f[1]).to.deep.include({ verdict: "fail", key: "cluster.endpoint.privateAccessCidrs" });
            expect(f[1].fix).to.equal(
                "replace the blackhole 10.99.0.0/16 in tgw-rtb-1 with a route (or propagation) to the attachment of 10.99.0.0/16, or add one for 10.99.0.0/16 more specific than it, in the gateway's account",
            );
            ec2.on(SearchTransitGatewayRoutesCommand).resolves({ Routes: [{ DestinationCidrBlock: "10.99.0.0/16", State: "pending" }] });
            expect((await checked("transit-gateway"))[1].fix).to.equal(
                "add a route (or propagation) for 10.99.0.0/16 to tgw-rtb-1 in the gateway's account",
            );
            // Not available: the VPC's route back is neither searched nor left undecided.
            expect(f).to.have.length(2);
        });

        it("passes the route back to the VPC once the attachment is available, and then leaves nothing undecided", async () => {
            ec2.on(DescribeTransitGatewayVpcAttachmentsCommand).resolves({
                TransitGatewayVpcAttachments: [{ TransitGatewayAttachmentId: "tgw-attach-1", State: "available" }],
            });
            const f = await checked("transit-gateway");
            expect(f.map((x) => [x.verdict, x.key])).to.deep.equal([
                ["pass", "cluster.endpoint.privateAccessCidrs"],
                ["pass", "network.vpcCidr"],
            ]);
            expect(f[1].message).to.equal("route table tgw-rtb-1 of tgw-0123456789abcdef0 routes 10.20.0.0/16");
        });

        describe("which route carries a network (a fake route table that answers each route-search filter as EC2 does)", () => {
            const attached = () =>
                ec2.on(DescribeTransitGatewayVpcAttachmentsCommand).resolves({
                    TransitGatewayVpcAttachments: [{ TransitGatewayAttachmentId: "tgw-attach-1", State: "available" }],
                });
            const routes = async () =>
                (await checked("transit-gateway")).map((x) => [x.verdict, x.key, x.message] as [string, string | undefined, string]);
            const DEPLOYER = "cluster.endpoint.privateAccessCidrs";

            it("passes the deployer's network and the VPC under a summary route that holds both (10.0.0.0/8), naming it", async () => {
                attached();
                routeTable([{ DestinationCidrBlock: "10.0.0.0/8", State: "active", Type: "static" }]);
                expect(await routes()).to.deep.equal([
                    ["pass", DEPLOYER, "route table tgw-rtb-1 of tgw-0123456789abcdef0 routes 10.99.0.0/16 by its route 10.0.0.0/8"],
                    [
                        "pass",
                        "network.vpcCidr",
                        "route table tgw-rtb-1 of tgw-0123456789abcdef0 routes 10.20.0.0/16 by its route 10.0.0.0/8",
                    ],
                ]);
            });

            it("fails a network routes inside it carry only part of (10.99.0.0/17 and 10.99.128.0/18 of 10.99.0.0/16)", async () => {
                routeTable([
                    { DestinationCidrBlock: "10.99.0.0/17", State: "active", Type: "propagated" },
                    { DestinationCidrBlock: "10.99.128.0/18", State: "active", Type: "static" },
                ]);
                const [, f] = await checked("transit-gateway");
                expect(f).to.deep.equal({
                    check: "transit-gateway",
                    verdict: "fail",
                    key: DEPLOYER,
                    message:
                        "route table tgw-rtb-1 of tgw-0123456789abcdef0 has no active route to 10.99.0.0/16: the deployer's requests never reach the cluster's endpoint",
                    fix: "add a route (or propagation) for 10.99.0.0/16 to tgw-rtb-1 in the gateway's account",
                });
            });

            it("passes a route of the network's own block whether or not supernet-of-match returns the block itself", async () => {
                routeTable([{ DestinationCidrBlock: "10.99.0.0/16", State: "active", Type: "propagated" }], { supernetHoldsItself: false });
                expect((await routes())[1]).to.deep.equal([
                    "pass",
                    DEPLOYER,
                    "route table tgw-rtb-1 of tgw-0123456789abcdef0 routes 10.99.0.0/16",
                ]);
            });

            it("lets the most specific route that holds the network decide: a blackhole under a summary drops it, an active route under a blackhole summary carries it", async () => {
                attached();
                routeTable([
                    { DestinationCidrBlock: "10.0.0.0/8", State: "active", Type: "static" },
                    { DestinationCidrBlock: "10.99.0.0/16", State: "blackhole", Type: "static" },
                    { DestinationCidrBlock: "10.20.0.0/15", State: "blackhole", Type: "static" },
                    { DestinationCidrBlock: "10.20.0.0/16", State: "active", Type: "propagated" },
                ]);
                expect(await routes()).to.deep.equal([
                    [
                        "fail",
                        DEPLOYER,
                        "route table tgw-rtb-1 of tgw-0123456789abcdef0 drops 10.99.0.0/16: the most specific route that holds it, 10.99.0.0/16, is a blackhole: the deployer's requests never reach the cluster's endpoint",
                    ],
                    ["pass", "network.vpcCidr", "route table tgw-rtb-1 of tgw-0123456789abcdef0 routes 10.20.0.0/16"],
                ]);
            });

            it("prefers a static route to a propagated one of the same block, and counts no route that is not active or a blackhole yet or any more", async () => {
                routeTable([
                    { DestinationCidrBlock: "10.99.0.0/16", State: "active", Type: "propagated" },
                    { DestinationCidrBlock: "10.99.0.0/16", State: "blackhole", Type: "static" },
                ]);
                expect((await routes())[1].slice(0, 2)).to.deep.equal(["fail", DEPLOYER]);
                routeTable([
                    { DestinationCidrBlock: "10.99.0.0/16", State: "blackhole", Type: "propagated" },
                    { DestinationCidrBlock: "10.99.0.0/16", State: "active", Type: "static" },
                ]);
                expect((await routes())[1].slice(0, 2)).to.deep.equal(["pass", DEPLOYER]);
                for (const State of ["pending", "deleting", "deleted"] as const) {
                    routeTable([
                        { DestinationCidrBlock: "10.0.0.0/8", State: "active", Type: "static" },
                        { DestinationCidrBlock: "10.99.0.0/16", State, Type: "static" },
                    ]);
                    expect((await routes())[1], State).to.deep.equal([
                        "pass",
                        DEPLOYER,
                        "route table tgw-rtb-1 of tgw-0123456789abcdef0 routes 10.99.0.0/16 by its route 10.0.0.0/8",
                    ]);
                }
            });

            it("counts only an IPv4 route that holds the whole network, whatever the search answers (one inside it, a neighbour, IPv6, none)", async () => {
                ec2.on(SearchTransitGatewayRoutesCommand).resolves({
                    Routes: [
                        { DestinationCidrBlock: "10.99.0.0/17", State: "active", Type: "static" },
                        { DestinationCidrBlock: "10.98.0.0/16", State: "active", Type: "static" },
                        { DestinationCidrBlock: "::/0", State: "active", Type: "static" },
                        { State: "active", PrefixListId: "pl-1", Type: "static" },
                    ],
                });
                expect((await routes())[1].slice(0, 2)).to.deep.equal(["fail", DEPLOYER]);
                ec2.on(SearchTransitGatewayRoutesCommand).resolves({ Routes: [{ DestinationCidrBlock: "0.0.0.0/0", State: "active" }] });
                expect((await routes())[1]).to.deep.equal([
                    "pass",
                    DEPLOYER,
                    "route table tgw-rtb-1 of tgw-0123456789abcdef0 routes 10.99.0.0/16 by its route 0.0.0.0/0",
                ]);
            });
        });
    });

    it("reports a failure that is not an Error (a string, null) as undecided, named error", async () => {
        // What a middleware or a proxy may reject with: not the SDK's Error.
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        sts.on(GetCallerIdentityCommand).callsFake(() => Promise.reject("connection reset"));
        expect((await runWith()).find((x) => x.check === "identity")).to.deep.equal({
            check: "identity",
            verdict: "undecided",
            message: "could not check: error: connection reset",
        });
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        sts.on(GetCallerIdentityCommand).callsFake(() => Promise.reject(null));
        expect((await runWith()).find((x) => x.check === "identity")?.message).to.equal("could not check: error: null");
    });

    it("names each read the checks send among the actions the preview and deploy roles need, sorted", () => {
        expect(PREFLIGHT_ACTIONS).to.include.members([
            "sts:GetCallerIdentity",
            "eks:DescribeAddonVersions",
            "eks:DescribeAddonConfiguration",
            "ssm:GetParameter",
            "ec2:DescribeInstanceTypeOfferings",
            "servicequotas:GetServiceQuota",
            "iam:GetRole",
            "ec2:DescribeTransitGateways",
            "ec2:DescribeTransitGatewayVpcAttachments",
            "ec2:SearchTransitGatewayRoutes",
        ]);
        expect([...PREFLIGHT_ACTIONS].sort()).to.deep.equal(PREFLIGHT_ACTIONS);
    });

    it("names the config key of each add-on the program installs when its build is not offered", async () => {
        const plan: PlannedResource[] = Object.keys(ADDON_CONFIG_KEYS).map((addonName) => ({
            type: "aws:eks/addon:Addon",
            name: addonName,
            props: { addonName, addonVersion: "v0.0.0-eksbuild.1" },
        }));
        const f = await checked("addon-builds", base(), plan);
        expect(f.map((x) => [x.verdict, x.message.split(" ")[0], x.key])).to.deep.equal([
            ["fail", "vpc-cni", "cluster.addons.vpcCni"],
            ["fail", "kube-proxy", "cluster.addons.kubeProxy"],
            ["fail", "eks-pod-identity-agent", "cluster.addons.podIdentityAgent"],
            ["fail", "coredns", "cluster.addons.coreDns"],
            ["fail", "metrics-server", "addons.metricsServer.version"],
            ["fail", "aws-ebs-csi-driver", "addons.ebsCsiDriver.version"],
        ]);
    });

    it("validates against a schema with keywords and formats of EKS's own (not JSON Schema's): they are not errors", async () => {
        eks.on(DescribeAddonConfigurationCommand).resolves({
            configurationSchema: JSON.stringify({
                type: "object",
                properties: { enableNetworkPolicy: { type: "string", format: "boolean-string", markdownDescription: "on or off" } },
            }),
        });
        expect((await checked("addon-configuration")).map((x) => x.verdict)).to.deep.equal(["pass"]);
    });

    it("checks no EC2NodeClass alias when Karpenter is off", async () => {
        const off = { ...base(), karpenter: { enabled: false } } as StackConfig;
        expect((await checked("ami-releases", off)).map((x) => x.key)).to.deep.equal([
            "nodeGroups.system.releaseVersion",
            "nodeGroups.batch.releaseVersion",
        ]);
    });

    it("names each architecture of an alias in its finding, in order, whatever order the pool lists them", async () => {
        const c = base();
        const k = karpenterOf(c);
        for (const pool of Object.values(k.nodePools)) {
            pool.requirements = pool.requirements.map((r) => (r.key === "kubernetes.io/arch" ? { ...r, values: ["arm64", "amd64"] } : r));
        }
        const f = (await checked("ami-releases", c)).filter((x) => x.key === "karpenter.nodeClasses.default.amiAlias");
        expect(
            f.map((x) =>
                /^EC2NodeClass default's al2023@v20260512 for (\w+) is published \(.*\/(x86_64|arm64)\/standard\//
                    .exec(x.message)
                    ?.slice(1),
            ),
        ).to.deep.equal([
            ["amd64", "x86_64"],
            ["arm64", "arm64"],
        ]);
    });

    it("asks for the offerings of the enabled groups' types once each, sorted", async () => {
        const c = base();
        c.nodeGroups.system.instanceTypes = ["m7i.large", "m6i.xlarge"];
        await runWith(c);
        expect(ec2.commandCalls(DescribeInstanceTypeOfferingsCommand)[0].args[0].input.Filters?.[0]).to.deep.equal({
            Name: "instance-type",
            Values: ["m6i.xlarge", "m7i.large", "m7i.xlarge"],
        });
    });

    it("knows no class for a family no prefix matches, without crashing", () => {
        expect(vcpuQuota("bogus.large", "on-demand")).to.equal(undefined);
    });

    it("reads a NodePool's capacity types and categories whatever order its requirements are in; one without categories, or with a P category, is unsized", () => {
        const c = base();
        const k = karpenterOf(c);
        const spot = k.nodePools["batch-spot"];
        spot.requirements = [...spot.requirements].reverse();
        expect(quotaDemand(c).demand.get("spotStandard")).to.equal(128);
        k.nodePools.general.requirements = k.nodePools.general.requirements.filter((r) => r.key !== "karpenter.k8s.aws/instance-category");
        spot.requirements = spot.requirements.map((r) =>
            r.key === "karpenter.k8s.aws/instance-category" ? { ...r, values: ["m", "p"] } : r,
        );
        expect(quotaDemand(c).unsized).to.deep.equal(["NodePool general", "NodePool batch-spot"]);
    });

    it("needs no Spot role for pools that allow only on-demand", () => {
        const c = base();
        delete karpenterOf(c).nodePools["batch-spot"];
        const cluster: PlannedResource[] = [
            { type: "eks:index:Cluster", name: "cluster-eks", props: { clusterTags: { "platform/cluster": "platform-prod" } } },
        ];
        expect(neededServiceLinkedRoles({ config: c, plan: cluster, deploy })).to.deep.equal(["eks.amazonaws.com"]);
    });

    it("asks EC2 for the stack's gateway by its ID", async () => {
        await runWith();
        expect(ec2.commandCalls(DescribeTransitGatewaysCommand).map((x) => x.args[0].input)).to.deep.equal([
            { TransitGatewayIds: ["tgw-0123456789abcdef0"] },
        ]);
    });

    it("npm run preflight reads the stack from the root it is given and asks for clients of the stack's region", async () => {
        const root = editedFixture("prod", (text) => text.replaceAll("us-east-1", "eu-west-1"));
        const regions: string[] = [];
        const clients = (region: string) => {
            regions.push(region);
            return awsClients(region);
        };
        await preflightCommand(["prod"], { root, render: () => Promise.resolve(PLAN), clients });
        expect(regions).to.deep.equal(["eu-west-1"]);
    });
});
