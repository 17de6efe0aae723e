/**
 * What only the account can answer before a stack's `up`, checked with read-only AWS calls (AWS SDK
 * v3): who is calling, the add-on builds and their configuration schemas, the AMI releases, the
 * instance types' offerings in the stack's zones, the Service Quotas the node groups and NodePools
 * need, the service-linked roles, and the Transit Gateway the private endpoint is reached through.
 * Each finding names the config key and the fix. `npm run preflight` (tools/preflight/preflight.ts) runs them.
 *
 * A check that cannot decide (an instance type the data does not size, a quota AWS does not
 * return, an attachment that does not exist before the first `up`) says so and never fails a run
 * by itself.
 */
import {
    DescribeInstanceTypeOfferingsCommand,
    DescribeTransitGatewaysCommand,
    DescribeTransitGatewayVpcAttachmentsCommand,
    EC2Client,
    SearchTransitGatewayRoutesCommand,
    type TransitGatewayRoute,
} from "@aws-sdk/client-ec2";
import { DescribeAddonConfigurationCommand, DescribeAddonVersionsCommand, EKSClient } from "@aws-sdk/client-eks";
import { GetRoleCommand, IAMClient } from "@aws-sdk/client-iam";
import { GetServiceQuotaCommand, ServiceQuotasClient } from "@aws-sdk/client-service-quotas";
import { GetParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import Ajv, { type ValidateFunction } from "ajv";
import Ajv2019 from "ajv/dist/2019";
import Ajv2020 from "ajv/dist/2020";
import draft06MetaSchema from "ajv/lib/refs/json-schema-draft-06.json";
import { blockSize, type Cidr, instanceTypeInfo, parseCidr } from "eks-platform-kernel";
import { callerIsRole } from "../../components/access";
import { REGISTERED_ADDONS } from "../../components/addons/registry";
import type { StackConfig } from "../../components/config";
import { amiSsmParameter } from "../../components/nodegroups/common.schema";
import { kindOf } from "../../components/nodegroups/kinds";
import { PREFLIGHT_READS } from "../roles/deployerActions";
import { type DeployerContext, deployerPolicy, type PlannedResource } from "../roles/deployRole";

/** The clients of one region. */
export interface AwsClients {
    sts: STSClient;
    eks: EKSClient;
    ssm: SSMClient;
    ec2: EC2Client;
    quotas: ServiceQuotasClient;
    iam: IAMClient;
}

/** Clients for `region`, with the SDK's default credential chain. */
export function awsClients(region: string): AwsClients {
    return {
        sts: new STSClient({ region }),
        eks: new EKSClient({ region }),
        ssm: new SSMClient({ region }),
        ec2: new EC2Client({ region }),
        quotas: new ServiceQuotasClient({ region }),
        iam: new IAMClient({ region }),
    };
}

export type Verdict = "pass" | "fail" | "undecided";

export interface Finding {
    /** The check (`addon-builds`, `quotas`, …). */
    check: string;
    verdict: Verdict;
    /** The config key the finding is about, when there is one. */
    key?: string;
    message: string;
    /** What to change, for a failure. */
    fix?: string;
}

/** What the checks read: the stack's validated config, its plan, and the deploy role's context. */
export interface PreflightInput {
    config: StackConfig;
    plan: readonly PlannedResource[];
    deploy: DeployerContext;
}

/** The read-only actions the checks call: `PREFLIGHT_READS` (tools/roles/deployerActions.ts), public SSM parameters and service-linked roles. */
export const PREFLIGHT_ACTIONS: readonly string[] = [...PREFLIGHT_READS, "iam:GetRole", "ssm:GetParameter"].sort();

/**
 * The config key that pins each EKS add-on the program installs: the cluster's own (components/cluster.ts
 * and CoreDNS, `cluster.addons`) and each registered add-on's (components/addons/registry.ts).
 */
export const ADDON_CONFIG_KEYS: Readonly<Record<string, string>> = {
    "vpc-cni": "cluster.addons.vpcCni",
    "kube-proxy": "cluster.addons.kubeProxy",
    "eks-pod-identity-agent": "cluster.addons.podIdentityAgent",
    coredns: "cluster.addons.coreDns",
    ...Object.fromEntries(REGISTERED_ADDONS.flatMap((a) => Object.entries(a.preflightConfigKeys))),
};

const errorName = (err: unknown) => (err as { name?: string } | null)?.name ?? "";
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The caller is the stack's deployer, an admin, or its preview role (read-only, in pull requests). */
export async function checkIdentity(input: PreflightInput, aws: AwsClients): Promise<Finding[]> {
    const caller = await aws.sts.send(new GetCallerIdentityCommand({}));
    const arn = caller.Arn ?? "";
    const { access } = input.config;
    if (caller.Account !== input.deploy.account) {
        return [
            {
                check: "identity",
                verdict: "fail",
                key: "access.deployer",
                message: `the credentials are of account ${caller.Account ?? "?"}, the stack's deploy role of account ${input.deploy.account}`,
                fix: "run with the stack's account's credentials, or correct the account in access.deployer",
            },
        ];
    }
    const roles: [string, string][] = [
        ["the deploy role (access.deployer)", access.deployer],
        ...access.admins.map((a): [string, string] => ["an admin (access.admins)", a]),
        ...(access.preview ? [["the preview role (access.preview)", access.preview] as [string, string]] : []),
        ...(access.drift ? [["the drift role (access.drift)", access.drift] as [string, string]] : []),
    ];
    const match = roles.find(([, role]) => callerIsRole(arn, role));
    return match
        ? [{ check: "identity", verdict: "pass", message: `${arn} is ${match[0]}` }]
        : [
              {
                  check: "identity",
                  verdict: "fail",
                  key: "access",
                  message: `${arn} is neither access.deployer, nor in access.admins, nor access.preview, nor access.drift: \`pulumi up\` would refuse it (components/access.ts)`,
                  fix: "run as the deploy role, or add this role to access.admins",
              },
          ];
}

/** Every build EKS offers of `addonName` for the Kubernetes `minor` (DescribeAddonVersions, all pages). */
async function addonBuilds(aws: AwsClients, addonName: string, minor: string): Promise<string[]> {
    const builds: string[] = [];
    let nextToken: string | undefined;
    do {
        const page = await aws.eks.send(new DescribeAddonVersionsCommand({ addonName, kubernetesVersion: minor, nextToken }));
        for (const addon of page.addons ?? []) {
            for (const v of addon.addonVersions ?? []) {
                const compatible = (v.compatibilities ?? []).some((c) => c.clusterVersion === minor);
                if (v.addonVersion && compatible) {
                    builds.push(v.addonVersion);
                }
            }
        }
        nextToken = page.nextToken;
    } while (nextToken);
    return builds;
}

/** The add-ons of the plan: name, pinned build, configuration values. */
function plannedAddons(plan: readonly PlannedResource[]): { name: string; version: string; values?: string }[] {
    return plan
        .filter((r) => r.type === "aws:eks/addon:Addon")
        .map((r) => ({
            name: String(r.props.addonName),
            version: String(r.props.addonVersion),
            values: typeof r.props.configurationValues === "string" ? r.props.configurationValues : undefined,
        }));
}

/** Each pinned add-on build exists for the cluster's minor. */
export async function checkAddonBuilds(input: PreflightInput, aws: AwsClients): Promise<Finding[]> {
    const minor = input.config.cluster.version;
    const findings: Finding[] = [];
    for (const addon of plannedAddons(input.plan)) {
        const key = ADDON_CONFIG_KEYS[addon.name];
        const builds = await addonBuilds(aws, addon.name, minor);
        if (builds.includes(addon.version)) {
            findings.push({
                check: "addon-builds",
                verdict: "pass",
                key,
                message: `${addon.name} ${addon.version} is a build for Kubernetes ${minor}`,
            });
        } else {
            findings.push({
                check: "addon-builds",
                verdict: "fail",
                key,
                message: `${addon.name} ${addon.version} is not a build EKS offers for Kubernetes ${minor}: CreateAddon fails`,
                fix:
                    builds.length > 0
                        ? `set ${key ?? "its version"} to one of ${builds.slice(0, 5).join(", ")}`
                        : `EKS offers no build of ${addon.name} for ${minor}: check the add-on's name and the cluster's version`,
            });
        }
    }
    return findings;
}

/** Each add-on's `configurationValues` validates against the schema EKS publishes for that build (DescribeAddonConfiguration). */
export async function checkAddonConfiguration(input: PreflightInput, aws: AwsClients): Promise<Finding[]> {
    const findings: Finding[] = [];
    for (const addon of plannedAddons(input.plan).filter((a) => a.values !== undefined)) {
        const key = ADDON_CONFIG_KEYS[addon.name];
        let schemaText: string | undefined;
        try {
            schemaText = (await aws.eks.send(new DescribeAddonConfigurationCommand({ addonName: addon.name, addonVersion: addon.version })))
                .configurationSchema;
        } catch (err) {
            if (errorName(err) !== "ResourceNotFoundException" && errorName(err) !== "InvalidParameterException") {
                throw err;
            }
        }
        if (schemaText === undefined) {
            findings.push({
                check: "addon-configuration",
                verdict: "undecided",
                key,
                message: `EKS returns no configuration schema for ${addon.name} ${addon.version}`,
            });
            continue;
        }
        const validate = addonSchemaValidator(JSON.parse(schemaText) as Record<string, unknown>);
        if (validate(JSON.parse(addon.values as string))) {
            findings.push({
                check: "addon-configuration",
                verdict: "pass",
                key,
                message: `${addon.name}'s configuration values fit the schema of ${addon.version}`,
            });
        } else {
            const problems = (validate.errors ?? []).map(
                (e) =>
                    `${e.instancePath || "/"} ${e.message ?? ""}${e.params && "additionalProperty" in e.params ? ` (${String(e.params.additionalProperty)})` : ""}`,
            );
            findings.push({
                check: "addon-configuration",
                verdict: "fail",
                key,
                message: `${addon.name}'s configuration values do not fit the schema of ${addon.version}: ${problems.join("; ")}: CreateAddon fails`,
                fix: `change the values the program derives for ${addon.name} (its add-on's settings in the stack file), or pin a build whose schema has them`,
            });
        }
    }
    return findings;
}

/**
 * A validator of an add-on's configuration schema, by the draft its `$schema` names. EKS's
 * schemas name theirs: vpc-cni's and coredns's draft-06 (the DescribeAddonConfiguration answers
 * quoted in aws/amazon-vpc-cni-k8s#3059 and spack/spack-infrastructure#1351), the EBS and EFS CSI
 * drivers' 2019-09 (aws/containers-roadmap#2415). Ajv's default class loads only draft-07's
 * meta-schema (node_modules/ajv/lib/ajv.ts, _addDefaultMetaSchema) and refuses any other draft
 * ("no schema with key or ref"): draft-06's, which Ajv ships, is added to it, and 2019-09 and
 * 2020-12 have classes of their own (`ajv/dist/2019`, `ajv/dist/2020`). Unknown formats and
 * keywords are EKS's own, not errors. Throws on a draft none of them knows.
 */
export function addonSchemaValidator(schema: Record<string, unknown>): ValidateFunction {
    const options = { allErrors: true, strict: false, validateFormats: false };
    const draft = typeof schema.$schema === "string" ? schema.$schema : "";
    if (draft.includes("/draft/2019-09/")) {
        return new Ajv2019(options).compile(schema);
    }
    if (draft.includes("/draft/2020-12/")) {
        return new Ajv2020(options).compile(schema);
    }
    const ajv = new Ajv(options);
    ajv.addMetaSchema(draft06MetaSchema);
    return ajv.compile(schema);
}

/** Whether an SSM parameter exists. */
async function parameterExists(aws: AwsClients, name: string): Promise<boolean> {
    try {
        await aws.ssm.send(new GetParameterCommand({ Name: name }));
        return true;
    } catch (err) {
        if (errorName(err) === "ParameterNotFound") {
            return false;
        }
        throw err;
    }
}

/** The pinned AMI releases exist: every node group's, and every EC2NodeClass alias for each architecture its NodePools allow. */
export async function checkAmiReleases(input: PreflightInput, aws: AwsClients): Promise<Finding[]> {
    const wanted: { key: string; what: string; parameter?: string }[] = [];
    for (const [name, g] of Object.entries(input.config.nodeGroups)) {
        if (!g.enabled || !g.releaseVersion) {
            continue;
        }
        const key = `nodeGroups.${name}.releaseVersion`;
        const parameter = kindOf(g).releaseParameter({ ...g, releaseVersion: g.releaseVersion });
        wanted.push({ key, what: `node group ${name}'s release ${g.releaseVersion}`, parameter });
    }
    const karpenter = input.config.karpenter;
    if (karpenter?.enabled) {
        for (const [className, nodeClass] of Object.entries(karpenter.nodeClasses)) {
            const alias = /^al2023@v(\d{8})$/.exec(nodeClass.amiAlias ?? "");
            if (!alias) {
                continue;
            }
            const archs = new Set<string>();
            for (const pool of Object.values(karpenter.nodePools).filter((p) => p.nodeClassRef.name === className)) {
                const arch = pool.requirements.find((r) => r.key === "kubernetes.io/arch" && r.operator === "In");
                (arch?.values ?? ["amd64", "arm64"]).forEach((a) => archs.add(a));
            }
            for (const arch of [...archs].sort()) {
                const amiArch = arch === "arm64" ? "arm64" : "x86_64";
                wanted.push({
                    key: `karpenter.nodeClasses.${className}.amiAlias`,
                    what: `EC2NodeClass ${className}'s ${nodeClass.amiAlias} for ${arch}`,
                    parameter: amiSsmParameter("AL2023", amiArch, `${input.config.cluster.version}.0-${alias[1]}`),
                });
            }
        }
    }
    const findings: Finding[] = [];
    for (const w of wanted) {
        if (w.parameter === undefined) {
            findings.push({
                check: "ami-releases",
                verdict: "undecided",
                key: w.key,
                message: `${w.what}: no public parameter layout is known for its AMI type`,
            });
        } else if (await parameterExists(aws, w.parameter)) {
            findings.push({ check: "ami-releases", verdict: "pass", key: w.key, message: `${w.what} is published (${w.parameter})` });
        } else {
            findings.push({
                check: "ami-releases",
                verdict: "fail",
                key: w.key,
                message: `${w.what} is not published in ${input.config.region} (${w.parameter} does not exist): its nodes cannot launch`,
                fix: `set ${w.key} to a release of the EKS AMI changelog (github.com/awslabs/amazon-eks-ami/releases) published in ${input.config.region}`,
            });
        }
    }
    return findings;
}

/** Each node group has an instance type offered in every zone of the stack (DescribeInstanceTypeOfferings). */
export async function checkInstanceOfferings(input: PreflightInput, aws: AwsClients): Promise<Finding[]> {
    const zones = input.config.network.availabilityZones;
    const groups = Object.entries(input.config.nodeGroups).filter(([, g]) => g.enabled);
    const types = [...new Set(groups.flatMap(([, g]) => g.instanceTypes))].sort();
    if (types.length === 0) {
        return [];
    }
    const offered = new Set<string>();
    let nextToken: string | undefined;
    do {
        const page = await aws.ec2.send(
            new DescribeInstanceTypeOfferingsCommand({
                LocationType: "availability-zone",
                Filters: [
                    { Name: "instance-type", Values: types },
                    { Name: "location", Values: [...zones] },
                ],
                NextToken: nextToken,
            }),
        );
        for (const o of page.InstanceTypeOfferings ?? []) {
            offered.add(`${o.InstanceType}@${o.Location}`);
        }
        nextToken = page.NextToken;
    } while (nextToken);
    const findings: Finding[] = [];
    for (const [name, g] of groups) {
        const key = `nodeGroups.${name}.instanceTypes`;
        const bare = zones.filter((z) => !g.instanceTypes.some((t) => offered.has(`${t}@${z}`)));
        const partial = g.instanceTypes.filter((t) => zones.some((z) => !offered.has(`${t}@${z}`)));
        if (bare.length > 0) {
            findings.push({
                check: "instance-offerings",
                verdict: "fail",
                key,
                message: `node group ${name}: none of ${g.instanceTypes.join(", ")} is offered in ${bare.join(", ")}: its nodes cannot launch there`,
                fix: `add to ${key} a type offered in ${bare.join(", ")}, or leave the zone out of network.availabilityZones`,
            });
        } else {
            findings.push({
                check: "instance-offerings",
                verdict: "pass",
                key,
                message: `node group ${name} has a type offered in every zone${partial.length > 0 ? ` (not everywhere: ${partial.join(", ")})` : ""}`,
            });
        }
    }
    return findings;
}

/**
 * The EC2 and VPC quotas a stack's capacity counts against (Service Quotas codes, "Amazon EC2
 * service quotas" and "Amazon VPC quotas"): on-demand and Spot vCPUs per instance-family class.
 */
export const QUOTAS = {
    onDemandStandard: {
        service: "ec2",
        code: "L-1216C47A",
        name: "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances (vCPUs)",
    },
    spotStandard: { service: "ec2", code: "L-34B43A08", name: "All Standard (A, C, D, H, I, M, R, T, Z) Spot Instance Requests (vCPUs)" },
    onDemandG: { service: "ec2", code: "L-DB2E81BA", name: "Running On-Demand G and VT instances (vCPUs)" },
    spotG: { service: "ec2", code: "L-3819A6DF", name: "All G and VT Spot Instance Requests (vCPUs)" },
    onDemandP: { service: "ec2", code: "L-417A185B", name: "Running On-Demand P instances (vCPUs)" },
    spotP: { service: "ec2", code: "L-7212CCBC", name: "All P Spot Instance Requests (vCPUs)" },
    elasticIps: { service: "ec2", code: "L-0263D0A3", name: "EC2-VPC Elastic IPs" },
    vpcs: { service: "vpc", code: "L-F678F1CE", name: "VPCs per Region" },
    interfaceEndpoints: { service: "vpc", code: "L-29B6F2EB", name: "Interface VPC endpoints per VPC" },
} as const;

type QuotaKey = keyof typeof QUOTAS;

/**
 * The classes of instance families with a vCPU quota of their own (Amazon EC2 User Guide,
 * "On-Demand Instance quotas"), longest prefix first: `inf2` is Inferentia, not the I family.
 */
const FAMILY_CLASSES: readonly [string, "standard" | "g" | "p" | undefined][] = [
    ["vt", "g"],
    ["inf", undefined],
    ["trn", undefined],
    ["dl", undefined],
    ["hpc", undefined],
    ["mac", undefined],
    ["u-", undefined],
    ["f", undefined],
    ["x", undefined],
    ["g", "g"],
    ["p", "p"],
    ...[..."acdhimrtz"].map((c): [string, "standard"] => [c, "standard"]),
];

/** The vCPU quota an instance type counts against, `undefined` for classes whose quota is not listed here. */
export function vcpuQuota(instanceType: string, capacity: "on-demand" | "spot"): QuotaKey | undefined {
    const family = instanceType.split(".")[0] ?? "";
    const cls = FAMILY_CLASSES.find(([prefix]) => family.startsWith(prefix))?.[1];
    const spot = capacity === "spot";
    switch (cls) {
        case "standard":
            return spot ? "spotStandard" : "onDemandStandard";
        case "g":
            return spot ? "spotG" : "onDemandG";
        case "p":
            return spot ? "spotP" : "onDemandP";
        default:
            return undefined;
    }
}

/** A quota's value, `undefined` when Service Quotas does not return it. */
async function quotaValue(aws: AwsClients, q: (typeof QUOTAS)[QuotaKey]): Promise<number | undefined> {
    try {
        const out = await aws.quotas.send(new GetServiceQuotaCommand({ ServiceCode: q.service, QuotaCode: q.code }));
        return out.Quota?.Value;
    } catch (err) {
        if (errorName(err) === "NoSuchResourceException") {
            return undefined;
        }
        throw err;
    }
}

/**
 * The stack's demand on each quota at its largest: node groups at `maxSize` of their largest type,
 * NodePools at their `limits.cpu` (counted on each capacity type they allow), one Elastic IP per
 * NAT gateway, one VPC, the interface endpoints. What the account already uses is not counted:
 * the finding says so.
 */
export function quotaDemand(config: StackConfig): { demand: Map<QuotaKey, number>; unsized: string[] } {
    const demand = new Map<QuotaKey, number>();
    const unsized: string[] = [];
    const add = (k: QuotaKey, n: number) => demand.set(k, (demand.get(k) ?? 0) + n);
    for (const [name, g] of Object.entries(config.nodeGroups)) {
        if (!g.enabled) {
            continue;
        }
        const capacity = g.capacityType === "SPOT" ? "spot" : "on-demand";
        // Every type sized and of one quota class: a type the data does not size may be the largest.
        const sized = g.instanceTypes.map((t) => ({ vcpu: instanceTypeInfo(t)?.vcpu, quota: vcpuQuota(t, capacity) }));
        const quota = sized[0]?.quota;
        if (quota === undefined || sized.some((s) => s.vcpu === undefined || s.quota !== quota)) {
            unsized.push(`node group ${name}`);
            continue;
        }
        add(quota, g.maxSize * Math.max(...sized.map((s) => s.vcpu ?? 0)));
    }
    const karpenter = config.karpenter;
    if (karpenter?.enabled) {
        for (const [name, pool] of Object.entries(karpenter.nodePools)) {
            const cpu = Number(pool.limits?.cpu);
            const capacity = pool.requirements.find((r) => r.key === "karpenter.sh/capacity-type" && r.operator === "In")?.values ?? [
                "on-demand",
            ];
            const categories = pool.requirements.find(
                (r) => r.key === "karpenter.k8s.aws/instance-category" && r.operator === "In",
            )?.values;
            const standard = categories !== undefined && categories.every((c) => c.length === 1 && "acdhimrtz".includes(c));
            if (!Number.isFinite(cpu) || !standard) {
                unsized.push(`NodePool ${name}`);
                continue;
            }
            for (const c of capacity) {
                add(c === "spot" ? "spotStandard" : "onDemandStandard", cpu);
            }
        }
    }
    const zones = config.network.availabilityZones.length;
    add("elasticIps", config.network.natGateways === "perAz" ? zones : config.network.natGateways === "single" ? 1 : 0);
    add("vpcs", 1);
    if (config.network.interfaceEndpoints.enabled) {
        add("interfaceEndpoints", config.network.interfaceEndpoints.services.length);
    }
    return { demand, unsized };
}

/** Where each quota's demand comes from, for its finding. */
const QUOTA_KEYS: Readonly<Record<QuotaKey, string>> = {
    onDemandStandard: "nodeGroups.*.maxSize, karpenter.nodePools.*.limits.cpu",
    spotStandard: "nodeGroups.*.maxSize, karpenter.nodePools.*.limits.cpu",
    onDemandG: "nodeGroups.*.maxSize",
    spotG: "nodeGroups.*.maxSize",
    onDemandP: "nodeGroups.*.maxSize",
    spotP: "nodeGroups.*.maxSize",
    elasticIps: "network.natGateways",
    vpcs: "network",
    interfaceEndpoints: "network.interfaceEndpoints.services",
};

/** The account's quotas hold the stack at its largest. */
export async function checkQuotas(input: PreflightInput, aws: AwsClients): Promise<Finding[]> {
    const { demand, unsized } = quotaDemand(input.config);
    const findings: Finding[] = [];
    for (const [k, need] of demand) {
        if (need === 0) {
            continue;
        }
        const q = QUOTAS[k];
        const value = await quotaValue(aws, q);
        const key = QUOTA_KEYS[k];
        if (value === undefined) {
            findings.push({
                check: "quotas",
                verdict: "undecided",
                key,
                message: `${q.name} (${q.code}): Service Quotas returns no value; the stack needs ${need}`,
            });
        } else if (need > value) {
            findings.push({
                check: "quotas",
                verdict: "fail",
                key,
                message: `${q.name} (${q.code}) is ${value}; the stack needs ${need} at its largest: scaling stops there (a drain's replacement nodes included)`,
                fix: `request an increase of ${q.code} to at least ${need} (Service Quotas console, or aws service-quotas request-service-quota-increase --service-code ${q.service} --quota-code ${q.code} --desired-value ${need}), or lower ${key}`,
            });
        } else {
            findings.push({
                check: "quotas",
                verdict: "pass",
                key,
                message: `${q.name} (${q.code}) is ${value}; the stack needs ${need} at its largest (what else the account runs is not counted)`,
            });
        }
    }
    for (const what of unsized) {
        findings.push({
            check: "quotas",
            verdict: "undecided",
            message: `${what}: its instance types' vCPUs or quota class are not known to the data (kernel/instanceTypes.ts), not counted`,
        });
    }
    return findings;
}

/** The service-linked role each service uses, by the service's principal (IAM User Guide, "AWS services that work with IAM"). */
export const SERVICE_LINKED_ROLES: Readonly<Record<string, string>> = {
    "eks.amazonaws.com": "AWSServiceRoleForAmazonEKS",
    "eks-nodegroup.amazonaws.com": "AWSServiceRoleForAmazonEKSNodegroup",
    "autoscaling.amazonaws.com": "AWSServiceRoleForAutoScaling",
    "spot.amazonaws.com": "AWSServiceRoleForEC2Spot",
    "transitgateway.amazonaws.com": "AWSServiceRoleForVPCTransitGateway",
};

/** The services whose service-linked role the stack needs: its types', and Spot's when any capacity is Spot. */
export function neededServiceLinkedRoles(input: PreflightInput): string[] {
    const needed = new Set<string>(["eks.amazonaws.com"]);
    const types = new Set(input.plan.map((r) => r.type));
    if (types.has("aws:eks/nodeGroup:NodeGroup")) {
        needed.add("eks-nodegroup.amazonaws.com");
    }
    if (types.has("aws:autoscaling/group:Group")) {
        needed.add("autoscaling.amazonaws.com");
    }
    if (types.has("aws:ec2transitgateway/vpcAttachment:VpcAttachment")) {
        needed.add("transitgateway.amazonaws.com");
    }
    const spotGroup = Object.values(input.config.nodeGroups).some((g) => g.enabled && g.capacityType === "SPOT");
    const spotPool =
        input.config.karpenter?.enabled === true &&
        Object.values(input.config.karpenter.nodePools).some((p) =>
            p.requirements.some((r) => r.key === "karpenter.sh/capacity-type" && r.operator === "In" && r.values.includes("spot")),
        );
    if (spotGroup || spotPool) {
        needed.add("spot.amazonaws.com");
    }
    return [...needed].sort();
}

/** Each service-linked role the stack needs exists, or the deploy role may create it on first use. */
export async function checkServiceLinkedRoles(input: PreflightInput, aws: AwsClients): Promise<Finding[]> {
    const policy = deployerPolicy(input.plan, input.deploy);
    const creatable = new Set(
        policy.Statement.filter((s) => s.Sid === "ServiceLinkedRoles").flatMap((s) =>
            [s.Condition?.StringEquals?.["iam:AWSServiceName"] ?? []].flat(),
        ),
    );
    const findings: Finding[] = [];
    for (const service of neededServiceLinkedRoles(input)) {
        const role = SERVICE_LINKED_ROLES[service];
        let exists = true;
        try {
            await aws.iam.send(new GetRoleCommand({ RoleName: role }));
        } catch (err) {
            if (errorName(err) !== "NoSuchEntityException") {
                throw err;
            }
            exists = false;
        }
        if (exists) {
            findings.push({ check: "service-linked-roles", verdict: "pass", message: `${role} exists` });
        } else if (creatable.has(service)) {
            findings.push({
                check: "service-linked-roles",
                verdict: "pass",
                message: `${role} does not exist yet; the deploy role may create it (${service}) on first use`,
            });
        } else {
            findings.push({
                check: "service-linked-roles",
                verdict: "fail",
                key: service === "spot.amazonaws.com" ? "karpenter.createSpotServiceLinkedRole" : undefined,
                message: `${role} does not exist and the deploy role may not create it: the first ${service === "spot.amazonaws.com" ? "Spot launch" : "create"} fails`,
                fix: `aws iam create-service-linked-role --aws-service-name ${service}${service === "spot.amazonaws.com" ? ", or set karpenter.createSpotServiceLinkedRole: true" : ""}`,
            });
        }
    }
    return findings;
}

/** Whether `outer` holds every address of `inner`. */
function holds(outer: Cidr, inner: Cidr): boolean {
    return outer.prefix <= inner.prefix && inner.base - (inner.base % blockSize(outer.prefix)) === outer.base;
}

/**
 * The route of `table` that carries all of `cidr`, if any: of the routes whose block holds `cidr`,
 * the most specific, and of two of the same block the static one, as the gateway forwards (AWS
 * Transit Gateway Guide, "How transit gateways work", route evaluation order: the most specific
 * route first, then static before propagated). Only active and blackhole routes forward or drop
 * (EC2 API reference, TransitGatewayRoute, State): a pending, deleting or deleted one is skipped.
 * Routes inside `cidr` carry only part of it and are not looked for.
 */
async function routeOf(aws: AwsClients, table: string, cidr: string): Promise<TransitGatewayRoute | undefined> {
    const block = parseCidr(cidr);
    // The EC2 API reference (SearchTransitGatewayRoutes, Request Parameters, Filter.N):
    // `route-search.supernet-of-match` returns "the routes with a CIDR that encompass the CIDR
    // filter" (10.0.1.0/29 for 10.0.1.0/30), the routes that hold it; `route-search.subnet-of-match`
    // returns those inside it. Whether supernet-of-match returns the block's own route the
    // reference does not say, so `route-search.exact-match` asks for that one; two filters of
    // different names in one request would have to match both (EC2 API reference, Filter).
    const found: TransitGatewayRoute[] = [];
    for (const Name of ["route-search.exact-match", "route-search.supernet-of-match"]) {
        const answer = await aws.ec2.send(
            new SearchTransitGatewayRoutesCommand({ TransitGatewayRouteTableId: table, Filters: [{ Name, Values: [cidr] }] }),
        );
        found.push(...(answer.Routes ?? []));
    }
    const holding = found.flatMap((route) => {
        const destination = parseCidr(route.DestinationCidrBlock ?? "");
        const forwarding = route.State === "active" || route.State === "blackhole";
        return destination && block && forwarding && holds(destination, block) ? [{ route, prefix: destination.prefix }] : [];
    });
    const rank = (r: { route: TransitGatewayRoute; prefix: number }) => r.prefix * 2 + (r.route.Type === "static" ? 1 : 0);
    return holding.sort((a, b) => rank(b) - rank(a))[0]?.route;
}

/**
 * The Transit Gateway the deployer's networks reach the private endpoint through: it exists and is
 * available, an attachment from this account is accepted (or will be: auto-accept, or the same
 * owner), and its route table routes the deployer's networks (`cluster.endpoint.privateAccessCidrs`)
 * and, once attached, the stack's VPC: both ways, or every Kubernetes resource of the first `up`
 * fails as unreachable.
 */
export async function checkTransitGateway(input: PreflightInput, aws: AwsClients): Promise<Finding[]> {
    const id = input.config.network.transitGatewayId;
    if (!id) {
        return [];
    }
    const key = "network.transitGatewayId";
    let gateway;
    try {
        gateway = (await aws.ec2.send(new DescribeTransitGatewaysCommand({ TransitGatewayIds: [id] }))).TransitGateways?.[0];
    } catch (err) {
        if (!/InvalidTransitGatewayID/.test(errorName(err))) {
            throw err;
        }
    }
    if (gateway === undefined) {
        return [
            {
                check: "transit-gateway",
                verdict: "fail",
                key,
                message: `Transit Gateway ${id} does not exist in ${input.config.region} or is not shared with this account`,
                fix: `set ${key} to the gateway of the tooling network, shared with this account (AWS RAM)`,
            },
        ];
    }
    const findings: Finding[] = [];
    if (gateway.State !== "available") {
        findings.push({
            check: "transit-gateway",
            verdict: "fail",
            key,
            message: `Transit Gateway ${id} is ${gateway.State ?? "in no state"}, not available`,
        });
    }
    const foreign = gateway.OwnerId !== undefined && gateway.OwnerId !== input.deploy.account;
    const attachments =
        (
            await aws.ec2.send(
                new DescribeTransitGatewayVpcAttachmentsCommand({
                    Filters: [
                        { Name: "transit-gateway-id", Values: [id] },
                        { Name: "tag:Name", Values: [`${input.config.clusterName}-tgw`] },
                    ],
                }),
            )
        ).TransitGatewayVpcAttachments ?? [];
    const attachment = attachments.find((a) => a.State !== "deleted");
    if (attachment === undefined) {
        if (foreign && gateway.Options?.AutoAcceptSharedAttachments !== "enable") {
            findings.push({
                check: "transit-gateway",
                verdict: "fail",
                key,
                message: `Transit Gateway ${id} belongs to account ${gateway.OwnerId} and does not accept shared attachments automatically: the stack's attachment will wait for acceptance, and every Kubernetes resource of the first \`up\` fails as unreachable`,
                fix: `have account ${gateway.OwnerId} accept the attachment as soon as the first \`up\` creates it (aws ec2 accept-transit-gateway-vpc-attachment), or enable AutoAcceptSharedAttachments`,
            });
        } else {
            findings.push({
                check: "transit-gateway",
                verdict: "pass",
                key,
                message: `Transit Gateway ${id} will accept the stack's attachment`,
            });
        }
    } else if (attachment.State !== "available") {
        findings.push({
            check: "transit-gateway",
            verdict: "fail",
            key,
            message: `the stack's attachment ${attachment.TransitGatewayAttachmentId} is ${attachment.State}: the private endpoint is unreachable until it is available`,
            fix:
                attachment.State === "pendingAcceptance"
                    ? `have account ${gateway.OwnerId} accept it (aws ec2 accept-transit-gateway-vpc-attachment)`
                    : undefined,
        });
    }
    const table = gateway.Options?.AssociationDefaultRouteTableId;
    if (table === undefined) {
        findings.push({
            check: "transit-gateway",
            verdict: "undecided",
            key,
            message: `Transit Gateway ${id} has no default association route table: which table routes the attachment is the gateway owner's`,
        });
        return findings;
    }
    const destinations: [string, string][] = [
        ...input.config.cluster.endpoint.privateAccessCidrs.map((c): [string, string] => [c, "cluster.endpoint.privateAccessCidrs"]),
        ...(attachment?.State === "available" ? [[input.config.network.vpcCidr, "network.vpcCidr"] as [string, string]] : []),
    ];
    for (const [cidr, from] of destinations) {
        const route = await routeOf(aws, table, cidr);
        const through = route?.DestinationCidrBlock;
        const unreachable =
            from === "network.vpcCidr"
                ? "answers from the cluster's endpoint never return to the deployer"
                : "the deployer's requests never reach the cluster's endpoint";
        if (route?.State === "active") {
            findings.push({
                check: "transit-gateway",
                verdict: "pass",
                key: from,
                message: `route table ${table} of ${id} routes ${cidr}${through === cidr ? "" : ` by its route ${through}`}`,
            });
        } else if (route) {
            findings.push({
                check: "transit-gateway",
                verdict: "fail",
                key: from,
                message: `route table ${table} of ${id} drops ${cidr}: the most specific route that holds it, ${through}, is a blackhole: ${unreachable}`,
                fix: `replace the blackhole ${through} in ${table} with a route (or propagation) to the attachment of ${cidr}, or add one for ${cidr} more specific than it, in the gateway's account`,
            });
        } else {
            findings.push({
                check: "transit-gateway",
                verdict: "fail",
                key: from,
                message: `route table ${table} of ${id} has no active route to ${cidr}: ${unreachable}`,
                fix: `add a route (or propagation) for ${cidr} to ${table} in the gateway's account`,
            });
        }
    }
    if (attachment === undefined) {
        findings.push({
            check: "transit-gateway",
            verdict: "undecided",
            key: "network.vpcCidr",
            message: `the route back to ${input.config.network.vpcCidr} exists only once the first \`up\` attaches the VPC: run preflight again after it`,
        });
    }
    return findings;
}

/** Every check, in the order the report lists them. */
export const PREFLIGHT_CHECKS: readonly { name: string; run: (input: PreflightInput, aws: AwsClients) => Promise<Finding[]> }[] = [
    { name: "identity", run: checkIdentity },
    { name: "addon-builds", run: checkAddonBuilds },
    { name: "addon-configuration", run: checkAddonConfiguration },
    { name: "ami-releases", run: checkAmiReleases },
    { name: "instance-offerings", run: checkInstanceOfferings },
    { name: "quotas", run: checkQuotas },
    { name: "service-linked-roles", run: checkServiceLinkedRoles },
    { name: "transit-gateway", run: checkTransitGateway },
];

/**
 * Runs every check. A check whose AWS call is refused or fails is reported as undecided with the
 * error (the role lacks the action, the service is unreachable): it never passes, and never fails
 * the run by itself.
 */
export async function runPreflight(input: PreflightInput, aws: AwsClients): Promise<Finding[]> {
    const findings: Finding[] = [];
    for (const check of PREFLIGHT_CHECKS) {
        try {
            findings.push(...(await check.run(input, aws)));
        } catch (err) {
            findings.push({
                check: check.name,
                verdict: "undecided",
                message: `could not check: ${errorName(err) || "error"}: ${errorText(err)}`,
            });
        }
    }
    return findings;
}
