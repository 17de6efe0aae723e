import { expect } from "chai";
import { UNKNOWN } from "eks-platform-kernel";
import type { StackConfig } from "../components/config";
import type { Plan } from "../tools/render/plan";
import { NOT_API_OBJECTS, parseTypeToken, UNPUBLISHED_SCHEMAS, validateKubernetesObject } from "../tools/gate/schema";
import { planOf } from "./mocks";
import { fixtureProject, stackConfig, stacks } from "./stackFiles";

type PlanResource = Plan["resources"][number];

const byType = (plan: Plan, type: string): PlanResource[] => plan.resources.filter((r) => r.type === type);
const tagsOf = (r: PlanResource) => (r.props.tags ?? {}) as Record<string, string>;
const metaOf = (r: PlanResource) => r.props.metadata as { name: string; namespace?: string; labels?: Record<string, string> };
const inNamespace = (plan: Plan, type: string, ns: string) => byType(plan, type).filter((r) => metaOf(r).namespace === ns);

// Invariants: every stack file of the repository renders what its own config asks for.
for (const stack of stacks()) {
    describe(`whole stack: ${stack} (Pulumi.${stack}.yaml)`, function () {
        this.timeout(120_000);
        let plan: Plan;
        let config: StackConfig;
        before(async () => {
            config = stackConfig(stack);
            plan = await planOf(stack);
        });

        it("lays out a DNS-enabled VPC with a public and a private subnet per configured AZ", () => {
            const [vpc] = byType(plan, "aws:ec2/vpc:Vpc");
            expect(vpc.props).to.include({ cidrBlock: config.network.vpcCidr, enableDnsHostnames: true, enableDnsSupport: true });
            const subnets = byType(plan, "aws:ec2/subnet:Subnet");
            expect(subnets).to.have.length(config.network.availabilityZones.length * 2);
            expect([...new Set(subnets.map((s) => s.props.availabilityZone))]).to.have.members(config.network.availabilityZones);
        });

        it("tags every subnet with the configured cluster name, known at preview", () => {
            for (const s of byType(plan, "aws:ec2/subnet:Subnet")) {
                const tags = tagsOf(s);
                expect(tags[`kubernetes.io/cluster/${config.clusterName}`], s.name).to.be.oneOf(["owned", "shared"]);
                const isPublic = tags["kubernetes.io/role/elb"] === "1";
                const isPrivate = tags["kubernetes.io/role/internal-elb"] === "1" && tags["karpenter.sh/discovery"] === config.clusterName;
                expect(isPublic !== isPrivate, s.name).to.equal(true);
                expect(JSON.stringify(tags)).to.not.include(UNKNOWN);
            }
        });

        it("has one NAT gateway, or one per AZ, as configured", () => {
            const expected = config.network.natGateways === "single" ? 1 : config.network.availabilityZones.length;
            expect(byType(plan, "aws:ec2/natGateway:NatGateway")).to.have.length(expected);
        });

        it("creates the EKS control plane with encryption, the configured logs, endpoint and protection", () => {
            const [cluster] = byType(plan, "eks:index:Cluster");
            expect(cluster.props).to.include({
                name: config.clusterName,
                authenticationMode: "API",
                endpointPrivateAccess: true,
                endpointPublicAccess: config.cluster.endpoint.publicAccess,
            });
            expect(cluster.props.encryptionConfigKeyArn).to.be.a("string");
            expect(cluster.props.enabledClusterLogTypes).to.have.members(config.cluster.logTypes);
            expect(Boolean(cluster.options?.protect)).to.equal(config.cluster.protect);
            expect(byType(plan, "aws:kms/key:Key").find((k) => k.name === "cluster-secrets")?.props.enableKeyRotation).to.equal(true);
        });

        it("creates each configured namespace with its quota and a LimitRange, never deleted with its config", () => {
            const namespaces = byType(plan, "kubernetes:core/v1:Namespace");
            expect(namespaces.map((n) => metaOf(n).name)).to.have.members(Object.keys(config.namespaces));
            for (const ns of namespaces) {
                const name = metaOf(ns).name;
                const quota = config.namespaces[name].quota;
                expect(ns.options?.retainOnDelete, ns.name).to.equal(true);
                const [rendered, ...more] = inNamespace(plan, "kubernetes:core/v1:ResourceQuota", name);
                expect(more, `one quota in ${name}`).to.deep.equal([]);
                expect((rendered.props.spec as { hard: Record<string, string> }).hard, name).to.deep.equal({
                    "requests.cpu": quota.requestsCpu,
                    "requests.memory": quota.requestsMemory,
                    "limits.cpu": quota.limitsCpu,
                    "limits.memory": quota.limitsMemory,
                    pods: String(quota.pods),
                });
                expect(inNamespace(plan, "kubernetes:core/v1:LimitRange", name), `limit range in ${name}`).to.have.length(1);
            }
        });

        it("labels every namespace with its Pod Security levels and isolates it with a default-deny NetworkPolicy", () => {
            const policies = byType(plan, "kubernetes:networking.k8s.io/v1:NetworkPolicy");
            for (const ns of byType(plan, "kubernetes:core/v1:Namespace")) {
                const meta = metaOf(ns);
                const psa = config.namespaces[meta.name].podSecurity;
                expect(meta.labels?.["pod-security.kubernetes.io/enforce"], meta.name).to.equal(psa.enforce);
                expect(meta.labels?.["pod-security.kubernetes.io/warn"], meta.name).to.equal(psa.warn);
                const deny = policies.find((p) => metaOf(p).namespace === meta.name && metaOf(p).name === "default-deny");
                expect(deny?.props.spec, `default-deny in ${meta.name}`).to.deep.include({ podSelector: {} });
            }
        });

        it("gives every namespace the load balancer controller's readiness gates unless its config opts out", () => {
            for (const ns of byType(plan, "kubernetes:core/v1:Namespace")) {
                const meta = metaOf(ns);
                const gated = meta.labels?.["elbv2.k8s.aws/pod-readiness-gate-inject"] === "enabled";
                expect(gated, meta.name).to.equal(config.namespaces[meta.name].readinessGates);
            }
        });

        it("turns on NetworkPolicy enforcement: in the VPC CNI add-on, or on EKS Auto Mode without it, by the controller's ConfigMap", () => {
            const cni = byType(plan, "aws:eks/addon:Addon").find((a) => a.props.addonName === "vpc-cni");
            const configMaps = byType(plan, "kubernetes:core/v1:ConfigMap").filter(
                (c) => (c.props.metadata as { name?: string; namespace?: string }).name === "amazon-vpc-cni",
            );
            if (cni !== undefined) {
                expect(JSON.parse(String(cni.props.configurationValues))).to.deep.include({ enableNetworkPolicy: "true" });
                expect(configMaps, "the add-on owns the ConfigMap").to.deep.equal([]);
            } else {
                expect(config.autoMode.enabled, "no VPC CNI add-on outside Auto Mode").to.equal(true);
                expect(configMaps.map((c) => [(c.props.metadata as { namespace: string }).namespace, c.props.data])).to.deep.equal([
                    ["kube-system", { "enable-network-policy-controller": "true" }],
                ]);
            }
        });

        it("grants the deployer and admins cluster-wide, namespace teams only their namespaces, the drift role reads cluster-wide, and the preview role nothing", () => {
            const assoc = byType(plan, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation");
            const teams = Object.values(config.namespaces).flatMap((ns) => [...ns.editors, ...ns.viewers]);
            const clusterAdmins = [config.access.deployer, ...config.access.admins];
            expect(assoc.length).to.be.at.least(clusterAdmins.length + new Set(teams).size);
            for (const a of assoc) {
                const scope = a.props.accessScope as { type: string; namespaces?: string[] };
                if (String(a.props.policyArn).endsWith("/AmazonEKSClusterAdminPolicy")) {
                    expect(scope.type).to.equal("cluster");
                    expect(clusterAdmins, a.name).to.include(a.props.principalArn);
                } else if (String(a.props.policyArn).endsWith("/AmazonEKSAdminViewPolicy")) {
                    // Read-only everywhere, Secrets included: the drift check's role, and no one else.
                    expect(scope.type, a.name).to.equal("cluster");
                    expect(a.props.principalArn, a.name).to.equal(config.access.drift);
                } else {
                    expect(scope.type, a.name).to.equal("namespace");
                    for (const ns of scope.namespaces ?? []) {
                        const granted = config.namespaces[ns];
                        expect(granted, `${a.name}: ${ns} is a configured namespace`).to.not.equal(undefined);
                        expect([...granted.editors, ...granted.viewers], a.name).to.include(a.props.principalArn);
                    }
                }
            }
        });

        it("keeps every access entry in state, the deployer's included (no hidden creator entry)", () => {
            const entries = byType(plan, "aws:eks/accessEntry:AccessEntry").map((e) => e.props.principalArn);
            expect(entries).to.include(config.access.deployer);
            expect(entries).to.include.members(config.access.admins);
            if (config.access.preview) {
                expect(entries).to.include(config.access.preview);
                const granted = byType(plan, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation").map((a) => a.props.principalArn);
                expect(granted, "the preview role holds no access policy").to.not.include(config.access.preview);
            }
        });

        it("emits only Kubernetes objects that pass the official schemas, or of a group whose owner publishes none (said so, by group)", async () => {
            const objects = plan.resources.filter((r) => r.type.startsWith("kubernetes:") && !NOT_API_OBJECTS.has(r.type));
            expect(objects.length).to.be.greaterThan(0);
            for (const o of objects) {
                const group = parseTypeToken(o.type)?.group ?? "";
                if (group in UNPUBLISHED_SCHEMAS) {
                    // Only EKS Auto Mode's objects, and only on an Auto Mode stack.
                    expect([group, config.autoMode.enabled], o.name).to.deep.equal(["eks.amazonaws.com", true]);
                    continue;
                }
                await validateKubernetesObject(o.type, o.props);
            }
        });
    });
}

// Exact expectations: the frozen fixture stacks (test/fixtures/stacks).
describe("whole stack: the fixture dev stack's quota, rendered", function () {
    this.timeout(120_000);
    it("renders the dev namespace's quota as Kubernetes quantities", async () => {
        const plan = await planOf("dev", fixtureProject());
        const [quota] = inNamespace(plan, "kubernetes:core/v1:ResourceQuota", "dev");
        expect((quota.props.spec as { hard: Record<string, string> }).hard).to.deep.equal({
            "requests.cpu": "4",
            "requests.memory": "8Gi",
            "limits.cpu": "8",
            "limits.memory": "16Gi",
            pods: "10",
        });
    });
});
