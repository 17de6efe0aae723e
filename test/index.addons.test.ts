import { expect } from "chai";
import { AUTO_MODE_COMPONENTS } from "eks-platform-kernel";
import { EBS_CSI, LOAD_BALANCER_CONTROLLER } from "../components/addons";
import { parseRawConfig, StackConfig } from "../components/config";
import { readStackFiles } from "../tools/render/offline";
import type { Plan } from "../tools/render/plan";
import { planOf, ROOT } from "./mocks";
import { stackConfig, stacks } from "./stackFiles";

type PlanResource = Plan["resources"][number];

const STACKS = stacks();

const ofType = (plan: Plan, type: string) => plan.resources.filter((r) => r.type === type);
const json = (value: unknown) => JSON.parse(String(value)) as Record<string, any>;

/** The role a (static) role ARN names, and who its trust admits. */
function trusted(plan: Plan, roleArn: unknown): { namespace: string; serviceAccount: string; cluster: string } {
    const name = String(roleArn).split("/").pop();
    const roles = ofType(plan, "aws:iam/role:Role").filter((r) => r.props.name === name);
    expect(roles, `role ${name}`).to.have.length(1);
    const [statement] = json(roles[0].props.assumeRolePolicy).Statement;
    expect(statement.Principal).to.deep.equal({ Service: "pods.eks.amazonaws.com" });
    return {
        namespace: statement.Condition.StringEquals["aws:RequestTag/kubernetes-namespace"],
        serviceAccount: statement.Condition.StringEquals["aws:RequestTag/kubernetes-service-account"],
        cluster: statement.Condition.StringEquals["aws:RequestTag/eks-cluster-name"],
    };
}

for (const stack of STACKS) {
    describe(`whole stack ${stack}: add-ons`, function () {
        this.timeout(180_000);
        let plan: Plan;
        let config: StackConfig;
        before(async () => {
            plan = await planOf(stack);
            config = parseRawConfig(readStackFiles(ROOT, stack).config, stack);
        });

        const auto = stackConfig(stack).autoMode.enabled;
        // EKS Auto Mode runs the EBS CSI driver and the load balancer controller itself.
        if (auto) {
            it("installs neither the EBS CSI add-on nor the load balancer controller: EKS Auto Mode runs both, and the alb IngressClass names its controller", () => {
                expect(ofType(plan, "aws:eks/addon:Addon").map((a) => a.props.addonName)).to.not.include(EBS_CSI.addonName);
                expect(ofType(plan, "kubernetes:helm.sh/v3:Release").map((r) => r.props.chart)).to.not.include(
                    LOAD_BALANCER_CONTROLLER.chart,
                );
                const classes = ofType(plan, "kubernetes:networking.k8s.io/v1:IngressClass");
                expect(classes.map((c) => (c.props.spec as { controller: string }).controller)).to.deep.equal([
                    AUTO_MODE_COMPONENTS.ingressController,
                ]);
                expect((classes[0].props.spec as { parameters: unknown }).parameters).to.deep.equal({
                    apiGroup: "eks.amazonaws.com",
                    kind: "IngressClassParams",
                    name: (classes[0].props.metadata as { name: string }).name,
                });
            });
        }
        if (!auto)
            it("installs the EBS CSI add-on at its pinned version, with a Pod Identity association whose role only its controller can assume", () => {
                const addons = ofType(plan, "aws:eks/addon:Addon").filter((a) => a.props.addonName === EBS_CSI.addonName);
                expect(addons).to.have.length(1);
                expect(addons[0].props.addonVersion).to.equal(config.addons.ebsCsiDriver?.version);
                const associations = addons[0].props.podIdentityAssociations as { roleArn: string; serviceAccount: string }[];
                expect(associations).to.have.length(1);
                const trust = trusted(plan, associations[0].roleArn);
                expect(trust).to.deep.include({ namespace: EBS_CSI.namespace, serviceAccount: associations[0].serviceAccount });
                expect(trust.cluster).to.equal(config.clusterName);
            });

        it("has exactly one default StorageClass: encrypted gp3 on the EBS CSI driver (EKS Auto Mode's on Auto Mode), bound where the pod lands, expandable", () => {
            const defaults = ofType(plan, "kubernetes:storage.k8s.io/v1:StorageClass").filter(
                (c) =>
                    (c.props.metadata as { annotations?: Record<string, string> }).annotations?.[
                        "storageclass.kubernetes.io/is-default-class"
                    ] === "true",
            );
            expect(defaults).to.have.length(1);
            const sc = defaults[0].props;
            expect(sc).to.deep.include({
                provisioner: auto ? AUTO_MODE_COMPONENTS.provisioner : EBS_CSI.provisioner,
                volumeBindingMode: "WaitForFirstConsumer",
                allowVolumeExpansion: true,
                reclaimPolicy: (config.autoMode.enabled ? config.autoMode.storageClass : config.addons.ebsCsiDriver?.storageClass)
                    ?.reclaimPolicy,
            });
            expect(sc.parameters).to.deep.include({ type: "gp3", encrypted: "true" });
            // The stack's own key, or another by ARN: only the account's EBS key names none.
            const kmsKey = (config.autoMode.enabled ? config.autoMode.storageClass : config.addons.ebsCsiDriver?.storageClass)?.kmsKey;
            expect(kmsKey, "every stack says which key").to.be.a("string");
            expect("kmsKeyId" in (sc.parameters as object)).to.equal(kmsKey !== "aws-managed");
        });

        if (!auto)
            it("installs the load balancer controller chart pinned, with its role and association for its service account", () => {
                const releases = ofType(plan, "kubernetes:helm.sh/v3:Release").filter(
                    (r) => r.props.chart === LOAD_BALANCER_CONTROLLER.chart,
                );
                expect(releases).to.have.length(1);
                const release = releases[0].props;
                expect(release.version).to.equal(config.addons.loadBalancerController?.chartVersion);
                const values = release.values as Record<string, any>;
                expect(values).to.deep.include({
                    clusterName: config.clusterName,
                    region: config.region,
                    replicaCount: config.addons.loadBalancerController?.replicas,
                });
                expect(values.podDisruptionBudget).to.deep.equal({ maxUnavailable: 1 });
                const associations = ofType(plan, "aws:eks/podIdentityAssociation:PodIdentityAssociation").filter(
                    (a) => a.props.namespace === release.namespace && a.props.serviceAccount === values.serviceAccount.name,
                );
                expect(associations).to.have.length(1);
                expect(associations[0].props.clusterName).to.equal(config.clusterName);
                expect(trusted(plan, associations[0].props.roleArn)).to.deep.include({
                    namespace: release.namespace,
                    serviceAccount: values.serviceAccount.name,
                });
            });

        it("tags public and private subnets the way the load balancer controller discovers them", () => {
            const tags = ofType(plan, "aws:ec2/subnet:Subnet").map((s) => s.props.tags as Record<string, string>);
            for (const key of Object.values(LOAD_BALANCER_CONTROLLER.subnetRoleTags)) {
                expect(
                    tags.filter((t) => t[key] === "1"),
                    key,
                ).to.have.length(config.network.availabilityZones.length);
            }
        });

        it("runs metrics-server at its pinned version with at least 2 replicas and a PDB allowing one eviction", () => {
            const addons = ofType(plan, "aws:eks/addon:Addon").filter((a) => a.props.addonName === "metrics-server");
            expect(addons).to.have.length(1);
            expect(addons[0].props.addonVersion).to.equal(config.addons.metricsServer.version);
            const values = json(addons[0].props.configurationValues);
            expect(values.replicas).to.be.at.least(2);
            expect(values.podDisruptionBudget).to.deep.equal({ enabled: true, maxUnavailable: 1 });
        });

        it("creates the interface endpoints the config enables, in every private subnet, with private DNS", () => {
            const endpoints = ofType(plan, "aws:ec2/vpcEndpoint:VpcEndpoint").filter((e) => e.props.vpcEndpointType === "Interface");
            const expected = config.network.interfaceEndpoints.enabled ? config.network.interfaceEndpoints.services : [];
            expect(endpoints.map((e) => e.props.serviceName)).to.have.members(expected.map((s) => `com.amazonaws.${config.region}.${s}`));
            for (const e of endpoints) {
                expect(e.props.privateDnsEnabled, e.name).to.equal(true);
                expect(e.props.subnetIds, e.name).to.have.length(config.network.availabilityZones.length);
            }
        });

        it("gives every configured service account a role and an association scoped to its namespace and name", () => {
            const associations = ofType(plan, "aws:eks/podIdentityAssociation:PodIdentityAssociation");
            for (const [namespace, ns] of Object.entries(config.namespaces)) {
                for (const serviceAccount of Object.keys(ns.serviceAccounts)) {
                    const found = associations.filter(
                        (a: PlanResource) => a.props.namespace === namespace && a.props.serviceAccount === serviceAccount,
                    );
                    expect(found, `${namespace}/${serviceAccount}`).to.have.length(1);
                    const trust = trusted(plan, found[0].props.roleArn);
                    expect(trust).to.deep.include({ namespace, serviceAccount });
                    expect(trust.cluster).to.equal(config.clusterName);
                }
            }
        });
    });
}
