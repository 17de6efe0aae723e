import { expect } from "chai";
import { parseDuration, UNKNOWN } from "eks-platform-kernel";
import type { EnabledKarpenterConfig } from "../components/karpenter/schema";
import type { Plan } from "../tools/render/plan";
import { validateKubernetesObject } from "../tools/gate/schema";
import { planOf, runTool } from "./mocks";
import { editedFixture, fixtureProject, stackConfig, stacks } from "./stackFiles";

type PlanResource = Plan["resources"][number];

const byType = (plan: Plan, type: string): PlanResource[] => plan.resources.filter((r) => r.type === type);
const only = (plan: Plan, type: string, name: string): PlanResource => {
    const found = plan.resources.filter((r) => r.type === type && r.name === name);
    expect(found, `${type} ${name}`).to.have.length(1);
    return found[0];
};
const nameOf = (r: PlanResource) => (r.props.metadata as { name: string }).name;
const specOf = (r: PlanResource) => r.props.spec as Record<string, any>;
const RELEASE = "kubernetes:helm.sh/v3:Release";

/**
 * The managed node groups of a plan a pod with these Helm values can be scheduled on, read from
 * the rendered groups: every nodeSelector label carried, every NoSchedule/NoExecute taint tolerated.
 */
function groupsFor(plan: Plan, values: { nodeSelector: Record<string, string>; tolerations: { key?: string; operator?: string }[] }) {
    const selector = Object.entries(values.nodeSelector).filter(([k]) => k !== "kubernetes.io/os");
    return byType(plan, "aws:eks/nodeGroup:NodeGroup").filter((g) => {
        const labels = (g.props.labels ?? {}) as Record<string, string>;
        const taints = (g.props.taints ?? []) as { key: string; effect: string }[];
        return (
            selector.every(([k, v]) => labels[k] === v) &&
            taints
                .filter((t) => t.effect !== "PREFER_NO_SCHEDULE")
                .every((t) => values.tolerations.some((x) => x.operator === "Exists" && (x.key === undefined || x.key === t.key)))
        );
    });
}

// Invariants: every stack file with Karpenter enabled renders it as configured.
for (const stack of stacks()) {
    const config = stackConfig(stack);
    const cluster = config.clusterName;
    if (!config.karpenter.enabled) {
        describe(`whole stack: karpenter disabled in ${stack}`, function () {
            this.timeout(120_000);
            it("renders no Karpenter resource", async () => {
                const plan = await planOf(stack);
                expect(plan.resources.filter((r) => r.name.startsWith("karpenter"))).to.deep.equal([]);
            });
        });
        continue;
    }
    const k: EnabledKarpenterConfig = config.karpenter;
    describe(`whole stack: karpenter in ${stack}`, function () {
        this.timeout(120_000);
        let plan: Plan;
        before(async () => {
            plan = await planOf(stack);
        });

        it("lists the interruption queue, its five rules with targets, both roles, Pod Identity and the access entry", () => {
            const queue = only(plan, "aws:sqs/queue:Queue", "karpenter-aws-interruption");
            expect(queue.props).to.include({ name: `${cluster}-karpenter`, sqsManagedSseEnabled: true, messageRetentionSeconds: 300 });
            const rules = byType(plan, "aws:cloudwatch/eventRule:EventRule").filter((r) => r.name.startsWith("karpenter-"));
            expect(
                rules.map((r) => (JSON.parse(r.props.eventPattern as string) as { "detail-type": string[] })["detail-type"][0]),
            ).to.have.members([
                "AWS Health Event",
                "EC2 Spot Instance Interruption Warning",
                "EC2 Instance Rebalance Recommendation",
                "EC2 Instance State-change Notification",
                "EC2 Capacity Reservation Instance Interruption Warning",
            ]);
            expect(byType(plan, "aws:cloudwatch/eventTarget:EventTarget").filter((t) => t.name.startsWith("karpenter-"))).to.have.length(5);
            expect(only(plan, "aws:iam/role:Role", "karpenter-aws-node").props.name).to.equal(`${cluster}-karpenter-node`);
            only(plan, "aws:iam/role:Role", "karpenter-aws-controller");
            expect(only(plan, "aws:eks/podIdentityAssociation:PodIdentityAssociation", "karpenter-aws-controller").props).to.include({
                clusterName: cluster,
                namespace: "kube-system",
                serviceAccount: "karpenter",
            });
            expect(only(plan, "aws:eks/accessEntry:AccessEntry", "karpenter-aws-node").props).to.include({
                clusterName: cluster,
                type: "EC2_LINUX",
            });
        });

        it("knows every IAM and queue policy document at preview, so policies can judge them", () => {
            for (const [type, name] of [
                ["aws:iam/rolePolicy:RolePolicy", "karpenter-aws-controller"],
                ["aws:sqs/queuePolicy:QueuePolicy", "karpenter-aws-interruption"],
            ]) {
                const policy = only(plan, type, name).props.policy as string;
                expect(policy, name).to.be.a("string").and.not.include(UNKNOWN);
                expect(policy, name).to.include(`${cluster}-karpenter`);
            }
        });

        it("installs both charts at the configured version, the controller after exactly the node groups it can run on", () => {
            const crds = only(plan, RELEASE, "karpenter-controller-crds");
            const release = only(plan, RELEASE, "karpenter-controller-release");
            expect(crds.props).to.include({ chart: "oci://public.ecr.aws/karpenter/karpenter-crd", version: k.chartVersion });
            expect(release.props).to.include({
                chart: "oci://public.ecr.aws/karpenter/karpenter",
                version: k.chartVersion,
                skipCrds: true,
            });
            const values = release.props.values as any;
            expect(values.settings).to.deep.equal({ clusterName: cluster, interruptionQueue: `${cluster}-karpenter` });
            expect(values.replicas).to.equal(k.controller.replicas);
            expect(values.nodeSelector).to.deep.include(k.controller.nodeSelector);
            const homes = groupsFor(plan, values).map((g) => g.name);
            expect(homes, "a managed group the controller can run on").to.not.be.empty;
            const dependsOn = release.options?.dependsOn ?? [];
            expect(dependsOn).to.include.members(["karpenter-controller-crds", ...homes]);
            const waitedFor = byType(plan, "aws:eks/nodeGroup:NodeGroup").filter((g) => dependsOn.includes(g.name));
            expect(waitedFor.map((g) => g.name)).to.have.members(homes);
        });

        it("creates the configured NodePools and EC2NodeClasses after the releases, passing the official v1 schemas", async () => {
            const pools = byType(plan, "kubernetes:karpenter.sh/v1:NodePool");
            const classes = byType(plan, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass");
            expect(pools.map(nameOf)).to.have.members(Object.keys(k.nodePools));
            expect(classes.map(nameOf)).to.have.members(Object.keys(k.nodeClasses));
            for (const cr of [...pools, ...classes]) {
                expect(cr.options?.dependsOn, cr.name).to.include.members(["karpenter-controller-crds", "karpenter-controller-release"]);
                await validateKubernetesObject(cr.type, cr.props);
            }
        });

        it("pins each class's AMI release, requires IMDSv2, encrypts the root volume and sets no restricted tag", () => {
            for (const nc of byType(plan, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass")) {
                const spec = specOf(nc);
                expect(spec.amiSelectorTerms).to.deep.equal([{ alias: k.nodeClasses[nameOf(nc)].amiAlias }]);
                expect(spec.role).to.equal(`${cluster}-karpenter-node`);
                expect(spec.metadataOptions.httpTokens).to.equal("required");
                expect(spec.blockDeviceMappings[0].ebs).to.include({ encrypted: true, volumeType: "gp3" });
                expect(spec.subnetSelectorTerms).to.deep.equal([{ tags: { "karpenter.sh/discovery": cluster } }]);
                for (const key of Object.keys(spec.tags ?? {})) {
                    expect(key).to.not.match(
                        /^(kubernetes\.io\/cluster|karpenter\.sh\/node(pool|claim)$|karpenter\.k8s\.aws\/ec2nodeclass$|eks:eks-cluster-name$|aws:)/i,
                    );
                }
            }
        });

        it("gives every NodePool a complete nodeClassRef, its limits (cpu, memory, any extended resource), its budgets and a drain window a 120 s pod fits in", () => {
            for (const p of byType(plan, "kubernetes:karpenter.sh/v1:NodePool")) {
                const spec = specOf(p);
                const pool = k.nodePools[nameOf(p)];
                expect(spec.template.spec.nodeClassRef, p.name).to.deep.equal({
                    group: "karpenter.k8s.aws",
                    kind: "EC2NodeClass",
                    name: pool.nodeClassRef.name,
                });
                // cpu and memory always, and every extended resource the pool limits.
                expect(spec.limits, p.name).to.deep.equal(pool.limits);
                expect(spec.limits, p.name).to.include.keys("cpu", "memory");
                expect(parseDuration(spec.template.spec.terminationGracePeriod), p.name).to.be.at.least(120);
                expect(spec.disruption.budgets, p.name).to.deep.equal(pool.disruption.budgets);
                expect(
                    spec.disruption.budgets.some((b: { schedule?: string }) => b.schedule === undefined),
                    p.name,
                ).to.equal(true);
            }
        });

        it("lets the pools that allow Spot launch it, so the interruption queue has work to do", () => {
            const allowsSpot = (requirements: { key: string; operator: string; values?: string[] }[]) =>
                requirements.some(
                    (r) => r.key === "karpenter.sh/capacity-type" && r.operator === "In" && (r.values ?? []).includes("spot"),
                );
            const rendered = byType(plan, "kubernetes:karpenter.sh/v1:NodePool").filter((p) =>
                allowsSpot(specOf(p).template.spec.requirements),
            );
            const configured = Object.entries(k.nodePools).filter(([, p]) => allowsSpot(p.requirements));
            expect(rendered.map(nameOf)).to.have.members(configured.map(([name]) => name));
        });

        it("has no policy violation on any Karpenter resource", () => {
            const ours = plan.violations.filter(
                (v) => v.resource.name.startsWith("karpenter") || /karpenter-(aws|controller|pools)/.test(v.message),
            );
            expect(ours, JSON.stringify(ours, null, 1)).to.deep.equal([]);
        });
    });
}

// Exact expectations: the fixture stacks (test/fixtures/stacks).
describe("fixture stacks: karpenter disruption windows and controller placement", function () {
    this.timeout(180_000);
    const windows = async (stack: string) =>
        byType(await planOf(stack, fixtureProject()), "kubernetes:karpenter.sh/v1:NodePool").map((p) =>
            (specOf(p).disruption.budgets as Record<string, unknown>[]).filter((b) => b.schedule !== undefined),
        );

    it("blocks voluntary disruption on weekdays 08:00-18:00 UTC in every prod pool, never in dev", async () => {
        const prod = await windows("prod");
        expect(prod).to.have.length(2);
        for (const budgets of prod) {
            expect(budgets).to.deep.equal([
                { nodes: "0", schedule: "0 8 * * 1-5", duration: "10h", reasons: ["Underutilized", "Drifted"] },
            ]);
        }
        expect((await windows("dev")).flat()).to.deep.equal([]);
    });

    it("makes the controller release wait for the groups its configured nodeSelector selects, not a fixed label", async () => {
        const before = await planOf("dev", fixtureProject());
        expect(only(before, RELEASE, "karpenter-controller-release").options?.dependsOn).to.include("nodegroups-general-group");

        const dir = editedFixture("dev", (t) =>
            t
                .replace("      nodeSelector:\n        platform/role: system", "      nodeSelector:\n        platform/role: karpenter")
                .replace(
                    "  eks-platform:nodeGroups:\n",
                    [
                        "  eks-platform:nodeGroups:",
                        "    karpenter-home:",
                        "      kind: managed",
                        "      instanceTypes: [t3.large]",
                        "      minSize: 2",
                        "      desiredSize: 2",
                        "      maxSize: 3",
                        "      releaseVersion: 1.34.7-20260512",
                        "      labels:",
                        "        platform/role: karpenter",
                        "",
                    ].join("\n"),
                ),
        );
        const result = await runTool("plan.ts", ["dev", "--format", "json"], dir);
        expect(result.code, result.stderr).to.equal(0);
        const after = JSON.parse(result.stdout) as Plan;
        const release = only(after, RELEASE, "karpenter-controller-release");
        expect((release.props.values as any).nodeSelector).to.deep.equal({ "kubernetes.io/os": "linux", "platform/role": "karpenter" });
        expect(release.options?.dependsOn).to.include("nodegroups-karpenter-home-group");
        expect(release.options?.dependsOn).to.not.include("nodegroups-general-group");
    });
});
