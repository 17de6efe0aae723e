import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import type { Plan } from "../tools/plan";
import { installMocks, readStackFiles, runInStack, settle, UNKNOWN } from "../tools/offline";
import { ConfigError } from "../components/config";
import { NOT_API_OBJECTS, validateKubernetesObject } from "./k8sSchema";
import { planOf, projectWithStackFile, ROOT, runTool } from "./mocks";

type PlanResource = Plan["resources"][number];

const byType = (plan: Plan, type: string): PlanResource[] => plan.resources.filter((r) => r.type === type);
const tagsOf = (r: PlanResource) => (r.props.tags ?? {}) as Record<string, string>;

for (const [stack, expected] of [
    ["dev", { azs: 2, nats: 1, cluster: "platform-dev", namespaces: ["dev"], protect: false, psaEnforce: "baseline" }],
    ["prod", { azs: 3, nats: 3, cluster: "platform-prod", namespaces: ["staging", "prod"], protect: true, psaEnforce: "restricted" }],
] as const) {
    describe(`whole stack: ${stack}`, function () {
        this.timeout(120_000);
        let plan: Plan;
        before(async () => {
            plan = await planOf(stack);
        });

        it("lays out a DNS-enabled VPC with a public and a private subnet per AZ", () => {
            const [vpc] = byType(plan, "aws:ec2/vpc:Vpc");
            expect(vpc.props).to.include({ enableDnsHostnames: true, enableDnsSupport: true });
            const subnets = byType(plan, "aws:ec2/subnet:Subnet");
            expect(subnets).to.have.length(expected.azs * 2);
            expect(new Set(subnets.map((s) => s.props.availabilityZone)).size).to.equal(expected.azs);
        });

        it("tags every subnet with the static cluster name, known at preview", () => {
            const subnets = byType(plan, "aws:ec2/subnet:Subnet");
            for (const s of subnets) {
                const tags = tagsOf(s);
                expect(tags[`kubernetes.io/cluster/${expected.cluster}`], s.name).to.be.oneOf(["owned", "shared"]);
                const isPublic = tags["kubernetes.io/role/elb"] === "1";
                const isPrivate = tags["kubernetes.io/role/internal-elb"] === "1" && tags["karpenter.sh/discovery"] === expected.cluster;
                expect(isPublic !== isPrivate, s.name).to.equal(true);
                expect(JSON.stringify(tags)).to.not.include(UNKNOWN);
            }
        });

        it(`has ${expected.nats} NAT gateway(s)`, () => {
            expect(byType(plan, "aws:ec2/natGateway:NatGateway")).to.have.length(expected.nats);
        });

        it("creates the EKS control plane with encryption, logging and the configured endpoint", () => {
            const [cluster] = byType(plan, "eks:index:Cluster");
            expect(cluster.props).to.include({ name: expected.cluster, authenticationMode: "API", endpointPrivateAccess: true });
            expect(cluster.props.encryptionConfigKeyArn).to.be.a("string");
            expect(cluster.props.enabledClusterLogTypes).to.include("audit");
            expect(Boolean(cluster.options?.protect)).to.equal(expected.protect);
            expect(byType(plan, "aws:kms/key:Key").find((k) => k.name === "cluster-secrets")?.props.enableKeyRotation).to.equal(true);
        });

        it("creates each configured namespace with a quota and a LimitRange, never deleted with its config", () => {
            const namespaces = byType(plan, "kubernetes:core/v1:Namespace");
            expect(namespaces.map((n) => (n.props.metadata as { name: string }).name)).to.have.members([...expected.namespaces]);
            for (const ns of namespaces) {
                expect(ns.options?.retainOnDelete, ns.name).to.equal(true);
                const name = (ns.props.metadata as { name: string }).name;
                const quota = byType(plan, "kubernetes:core/v1:ResourceQuota").find(
                    (q) => (q.props.metadata as { namespace: string }).namespace === name,
                );
                expect(quota, `quota for ${name}`).to.not.equal(undefined);
                expect(Object.keys((quota!.props.spec as { hard: object }).hard)).to.have.members([
                    "requests.cpu",
                    "requests.memory",
                    "limits.cpu",
                    "limits.memory",
                    "pods",
                ]);
                const limits = byType(plan, "kubernetes:core/v1:LimitRange").find(
                    (q) => (q.props.metadata as { namespace: string }).namespace === name,
                );
                expect(limits, `limit range for ${name}`).to.not.equal(undefined);
            }
        });

        it("labels every namespace with Pod Security levels and isolates it with a default-deny NetworkPolicy", () => {
            const policies = byType(plan, "kubernetes:networking.k8s.io/v1:NetworkPolicy");
            for (const ns of byType(plan, "kubernetes:core/v1:Namespace")) {
                const meta = ns.props.metadata as { name: string; labels: Record<string, string> };
                expect(meta.labels["pod-security.kubernetes.io/enforce"], meta.name).to.equal(expected.psaEnforce);
                const deny = policies.find(
                    (p) =>
                        (p.props.metadata as { namespace: string; name: string }).namespace === meta.name &&
                        (p.props.metadata as { name: string }).name === "default-deny",
                );
                expect(deny?.props.spec, `default-deny in ${meta.name}`).to.deep.include({ podSelector: {} });
            }
        });

        it("turns on NetworkPolicy enforcement in the VPC CNI", () => {
            const cni = byType(plan, "aws:eks/addon:Addon").find((a) => a.props.addonName === "vpc-cni");
            expect(JSON.parse(String(cni?.props.configurationValues))).to.deep.include({ enableNetworkPolicy: "true" });
        });

        it("grants admins cluster-wide and namespace teams only their namespaces", () => {
            const assoc = byType(plan, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation");
            expect(assoc.length).to.be.greaterThan(1);
            for (const a of assoc) {
                const scope = a.props.accessScope as { type: string; namespaces?: string[] };
                if (String(a.props.policyArn).endsWith("/AmazonEKSClusterAdminPolicy")) {
                    expect(scope.type).to.equal("cluster");
                } else {
                    expect(scope.type, a.name).to.equal("namespace");
                    expect(scope.namespaces).to.satisfy((n: string[]) =>
                        n.every((x) => (expected.namespaces as readonly string[]).includes(x)),
                    );
                }
            }
        });

        it("emits only Kubernetes objects that pass the official schemas", async () => {
            const objects = plan.resources.filter((r) => r.type.startsWith("kubernetes:") && !NOT_API_OBJECTS.has(r.type));
            expect(objects.length).to.be.greaterThan(0);
            for (const o of objects) {
                await validateKubernetesObject(o.type, o.props);
            }
        });
    });
}

describe("whole stack: quotas per environment", function () {
    this.timeout(120_000);
    it("gives prod namespaces larger quotas than dev", async () => {
        const hard = async (stack: string, ns: string) => {
            const plan = await planOf(stack);
            const quota = plan.resources.find(
                (r) => r.type === "kubernetes:core/v1:ResourceQuota" && (r.props.metadata as { namespace: string }).namespace === ns,
            );
            return (quota!.props.spec as { hard: Record<string, string> }).hard;
        };
        expect(await hard("dev", "dev")).to.deep.include({
            "requests.cpu": "4",
            "requests.memory": "8Gi",
            "limits.cpu": "8",
            "limits.memory": "16Gi",
            pods: "10",
        });
        expect(Number((await hard("prod", "prod"))["requests.cpu"])).to.be.greaterThan(4);
    });
});

describe("offline plan CLI", function () {
    this.timeout(120_000);

    it("prints a readable plan listing the platform", async () => {
        const result = await runTool("plan.ts", ["dev"]);
        expect(result.code, result.stderr).to.equal(0);
        for (const needle of [
            "aws:ec2/vpc:Vpc",
            "aws:ec2/natGateway:NatGateway",
            "eks:index:Cluster",
            "aws:kms/key:Key",
            "kubernetes:core/v1:ResourceQuota",
            "kubernetes.io/role/internal-elb=1",
        ]) {
            expect(result.stdout).to.include(needle);
        }
        // Each namespace shows its Pod Security Admission levels (dev: baseline enforce, restricted warn).
        const namespaceLine = result.stdout.split("\n").findIndex((l) => /\+ kubernetes:core\/v1:Namespace {2}namespaces-dev\b/.test(l));
        expect(namespaceLine).to.be.greaterThan(-1);
        const settings = result.stdout.split("\n")[namespaceLine + 1];
        expect(settings).to.include("pod-security.kubernetes.io/enforce=baseline");
        expect(settings).to.include("pod-security.kubernetes.io/warn=restricted");
    });

    it("prints exactly one JSON object with stack, resources and violations", async () => {
        const result = await runTool("plan.ts", ["prod", "--format", "json"]);
        expect(result.code, result.stderr).to.equal(0);
        const plan = JSON.parse(result.stdout) as Plan;
        expect(plan.stack).to.equal("prod");
        expect(plan.violations).to.be.an("array");
        expect(plan.resources.length).to.be.greaterThan(40);
        for (const r of plan.resources) {
            expect(r).to.have.keys(r.options ? ["type", "name", "props", "options"] : ["type", "name", "props"]);
        }
    });

    it("exits 2 for an unknown stack", async () => {
        const result = await runTool("plan.ts", ["staging-eu"]);
        expect(result.code).to.equal(2);
        expect(result.stderr).to.match(/unknown stack "staging-eu"/);
        expect(result.stdout).to.equal("");
    });

    it("exits 2 naming every bad key of a broken stack file, printing no resource", async () => {
        const dir = projectWithStackFile("dev", (text) =>
            text.replace("vpcCidr: 10.10.0.0/16", "vpcCidr: 10.10.0.0/33").replace("natGateways: single", "natGateways: sometimes"),
        );
        const result = await runTool("plan.ts", ["dev", "--format", "json"], dir);
        expect(result.code).to.equal(2);
        expect(result.stdout).to.equal("");
        expect(result.stderr).to.include("eks-platform:network.vpcCidr");
        expect(result.stderr).to.include("eks-platform:network.natGateways");
    });

    it("exits 2 naming cluster.endpoint when a private-only endpoint leaves `pulumi up` no route, printing no resource", async () => {
        const dir = projectWithStackFile("prod", (text) => text.replace(/^( +)privateAccessCidrs: .*$/m, "$1privateAccessCidrs: []"));
        const result = await runTool("plan.ts", ["prod", "--format", "json"], dir);
        expect(result.code, result.stderr).to.equal(2);
        expect(result.stdout).to.equal("");
        expect(result.stderr).to.match(/eks-platform:cluster\.endpoint: is private-only/);
    });

    it("shows the deployer's route of every stack in the plan: a 443 rule on the control-plane group from each admitted network", async () => {
        const stacks = fs.readdirSync(ROOT).flatMap((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1] ?? []);
        for (const stack of stacks) {
            const endpoint = JSON.parse(readStackFiles(ROOT, stack).config["eks-platform:cluster"]).endpoint as Record<string, unknown>;
            const plan = await planOf(stack);
            const rules = byType(plan, "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule").filter((r) =>
                r.name.startsWith("cluster-control-plane-from-"),
            );
            const sources = [
                ...((endpoint.privateAccessCidrs as string[] | undefined) ?? []),
                ...((endpoint.privateAccessSecurityGroupIds as string[] | undefined) ?? []),
            ];
            const admitted = rules.filter((r) => r.name !== "cluster-control-plane-from-nodes");
            expect(
                admitted.map((r) => r.props.cidrIpv4 ?? r.props.referencedSecurityGroupId),
                stack,
            ).to.have.members(sources);
            for (const rule of admitted) {
                expect(rule.props, `${stack} ${rule.name}`).to.include({ ipProtocol: "tcp", fromPort: 443, toPort: 443 });
            }
            if (endpoint.publicAccess !== true) {
                expect(admitted.length, `${stack}: a private endpoint needs an admitted network`).to.be.greaterThan(0);
            }
        }
    });

    it("registers no resource at all when the config is bad (the program itself, under the mock engine)", async () => {
        const files = readStackFiles(ROOT, "dev");
        const network = JSON.parse(files.config["eks-platform:network"]) as Record<string, unknown>;
        files.config["eks-platform:network"] = JSON.stringify({ ...network, vpcCidr: "10.10.0.0/33" });
        const program = require.resolve(path.join(ROOT, "index.ts"));
        delete require.cache[program];
        const mocks = installMocks(files, "dev", "preview");
        let failure: unknown;
        try {
            // eslint-disable-next-line @typescript-eslint/no-require-imports
            await runInStack(mocks, () => require(program) as unknown);
        } catch (err) {
            failure = err;
        } finally {
            await settle();
            delete require.cache[program];
        }
        expect(failure).to.be.instanceOf(ConfigError);
        expect((failure as ConfigError).problems.join("\n")).to.include("eks-platform:network.vpcCidr");
        // The stack resource itself is the mock engine's; nothing of the program's got registered.
        expect(mocks.resources.map((r) => r.type)).to.deep.equal(["pulumi:pulumi:Stack"]);
    });
});
