import { expect } from "chai";
import { parseDuration } from "../components/config/karpenter";
import { UNKNOWN } from "../tools/offline";
import type { Plan } from "../tools/plan";
import { validateKubernetesObject } from "../tools/schema";
import { runTool } from "./mocks";

type PlanResource = Plan["resources"][number];

const plans = new Map<string, Promise<Plan>>();

/**
 * The JSON plan of a stack. Exit code 1 (a mandatory violation) still yields a plan; the tests
 * below fail if any violation concerns a Karpenter resource, whatever other components report.
 */
function karpenterPlanOf(stack: string): Promise<Plan> {
    let cached = plans.get(stack);
    if (!cached) {
        cached = runTool("plan.ts", [stack, "--format", "json"]).then((r) => {
            if (r.code !== 0 && r.code !== 1) {
                throw new Error(`plan ${stack} exited ${r.code}: ${r.stderr}`);
            }
            return JSON.parse(r.stdout) as Plan;
        });
        plans.set(stack, cached);
    }
    return cached;
}

const byType = (plan: Plan, type: string): PlanResource[] => plan.resources.filter((r) => r.type === type);
const only = (plan: Plan, type: string, name: string): PlanResource => {
    const found = plan.resources.filter((r) => r.type === type && r.name === name);
    expect(found, `${type} ${name}`).to.have.length(1);
    return found[0];
};

for (const [stack, expected] of [
    ["dev", { cluster: "platform-dev", pools: ["general"], spotPools: ["general"] }],
    ["prod", { cluster: "platform-prod", pools: ["general", "batch-spot"], spotPools: ["batch-spot"] }],
] as const) {
    describe(`whole stack: karpenter in ${stack}`, function () {
        this.timeout(120_000);
        let plan: Plan;
        before(async () => {
            plan = await karpenterPlanOf(stack);
        });

        it("lists the interruption queue, its five rules with targets, both roles, Pod Identity and the access entry", () => {
            const queue = only(plan, "aws:sqs/queue:Queue", "karpenter-aws-interruption");
            expect(queue.props).to.include({
                name: `${expected.cluster}-karpenter`,
                sqsManagedSseEnabled: true,
                messageRetentionSeconds: 300,
            });
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
            expect(only(plan, "aws:iam/role:Role", "karpenter-aws-node").props.name).to.equal(`${expected.cluster}-karpenter-node`);
            only(plan, "aws:iam/role:Role", "karpenter-aws-controller");
            expect(only(plan, "aws:eks/podIdentityAssociation:PodIdentityAssociation", "karpenter-aws-controller").props).to.include({
                clusterName: expected.cluster,
                namespace: "kube-system",
                serviceAccount: "karpenter",
            });
            expect(only(plan, "aws:eks/accessEntry:AccessEntry", "karpenter-aws-node").props).to.include({
                clusterName: expected.cluster,
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
                expect(policy, name).to.include(`${expected.cluster}-karpenter`);
            }
        });

        it("installs the CRD and controller charts at the pinned version, the controller after the system node group", () => {
            const crds = only(plan, "kubernetes:helm.sh/v3:Release", "karpenter-controller-crds");
            const release = only(plan, "kubernetes:helm.sh/v3:Release", "karpenter-controller-release");
            expect(crds.props).to.include({ chart: "oci://public.ecr.aws/karpenter/karpenter-crd", version: "1.14.1" });
            expect(release.props).to.include({ chart: "oci://public.ecr.aws/karpenter/karpenter", version: "1.14.1", skipCrds: true });
            const values = release.props.values as {
                settings: Record<string, string>;
                replicas: number;
                nodeSelector: Record<string, string>;
            };
            expect(values.settings).to.deep.equal({ clusterName: expected.cluster, interruptionQueue: `${expected.cluster}-karpenter` });
            expect(values.replicas).to.equal(2);
            expect(values.nodeSelector["platform/role"]).to.equal("system");
            const systemGroups = byType(plan, "aws:eks/nodeGroup:NodeGroup").filter(
                (g) => (g.props.labels as Record<string, string> | undefined)?.["platform/role"] === "system",
            );
            expect(systemGroups, "a managed group labelled platform/role: system").to.have.length.greaterThan(0);
            expect(release.options?.dependsOn).to.include.members(["karpenter-controller-crds", ...systemGroups.map((g) => g.name)]);
        });

        it("creates the configured NodePools and EC2NodeClasses after the releases, passing the official v1 schemas", async () => {
            const pools = byType(plan, "kubernetes:karpenter.sh/v1:NodePool");
            const classes = byType(plan, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass");
            expect(pools.map((p) => (p.props.metadata as { name: string }).name)).to.have.members([...expected.pools]);
            expect(classes).to.have.length(1);
            for (const cr of [...pools, ...classes]) {
                expect(cr.options?.dependsOn, cr.name).to.include.members(["karpenter-controller-crds", "karpenter-controller-release"]);
                await validateKubernetesObject(cr.type, cr.props);
            }
        });

        it("pins the AMI release, requires IMDSv2, encrypts the root volume and sets no restricted tag", () => {
            const [nc] = byType(plan, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass");
            const spec = nc.props.spec as Record<string, any>;
            expect(spec.amiSelectorTerms).to.deep.equal([{ alias: "al2023@v20260512" }]);
            expect(spec.role).to.equal(`${expected.cluster}-karpenter-node`);
            expect(spec.metadataOptions.httpTokens).to.equal("required");
            expect(spec.blockDeviceMappings[0].ebs).to.include({ encrypted: true, volumeType: "gp3" });
            expect(spec.subnetSelectorTerms).to.deep.equal([{ tags: { "karpenter.sh/discovery": expected.cluster } }]);
            for (const key of Object.keys(spec.tags ?? {})) {
                expect(key).to.not.match(/^(kubernetes\.io\/cluster\/|karpenter\.sh\/|karpenter\.k8s\.aws\/|eks:eks-cluster-name$)/);
            }
        });

        it("gives every NodePool a complete nodeClassRef, cpu and memory limits, and a drain window a 120 s pod fits in", () => {
            const pools = byType(plan, "kubernetes:karpenter.sh/v1:NodePool");
            expect(pools.length).to.be.greaterThan(0);
            for (const p of pools) {
                const spec = p.props.spec as Record<string, any>;
                expect(spec.template.spec.nodeClassRef, p.name).to.deep.equal({
                    group: "karpenter.k8s.aws",
                    kind: "EC2NodeClass",
                    name: "default",
                });
                expect(Object.keys(spec.limits), p.name).to.have.members(["cpu", "memory"]);
                expect(parseDuration(spec.template.spec.terminationGracePeriod), p.name).to.be.at.least(120);
                for (const b of spec.disruption.budgets as { nodes: string; schedule?: string }[]) {
                    if (b.schedule === undefined) {
                        expect(b.nodes, p.name).to.equal("10%");
                    }
                }
            }
        });

        it(`lets ${expected.spotPools.join(", ")} launch Spot, so the interruption queue has work to do`, () => {
            const spot = byType(plan, "kubernetes:karpenter.sh/v1:NodePool").filter((p) =>
                ((p.props.spec as Record<string, any>).template.spec.requirements as { key: string; values?: string[] }[]).some(
                    (r) => r.key === "karpenter.sh/capacity-type" && (r.values ?? []).includes("spot"),
                ),
            );
            expect(spot.map((p) => (p.props.metadata as { name: string }).name)).to.have.members([...expected.spotPools]);
        });

        it("has no policy violation on any Karpenter resource", () => {
            const ours = plan.violations.filter(
                (v) => v.resource.name.startsWith("karpenter") || /karpenter-(aws|controller|pools)/.test(v.message),
            );
            expect(ours, JSON.stringify(ours, null, 1)).to.deep.equal([]);
        });
    });
}

describe("whole stack: karpenter disruption windows in prod", function () {
    this.timeout(120_000);
    it("blocks voluntary disruption of workloads on weekdays 08:00-18:00 UTC in every prod pool, never in dev", async () => {
        const windows = async (stack: string) =>
            byType(await karpenterPlanOf(stack), "kubernetes:karpenter.sh/v1:NodePool").map((p) =>
                ((p.props.spec as Record<string, any>).disruption.budgets as Record<string, unknown>[]).filter(
                    (b) => b.schedule !== undefined,
                ),
            );
        const prod = await windows("prod");
        expect(prod).to.have.length(2);
        for (const budgets of prod) {
            expect(budgets).to.deep.equal([
                { nodes: "0", schedule: "0 8 * * 1-5", duration: "10h", reasons: ["Underutilized", "Drifted"] },
            ]);
        }
        expect((await windows("dev")).flat()).to.deep.equal([]);
    });
});
