import { expect } from "chai";
import * as path from "path";
import { gatePlan, Plan } from "../../../tools/render/stackPlan";
import { planOf, runTool } from "../../mocks";
import { editedFixture, fixtureProject, stacks } from "../../stackFiles";
const SUMMARY = /^(\d+) mandatory, (\d+) advisory, (\d+) policies evaluated over (\d+) resources/m;

type PlanResource = Plan["resources"][number];
const meta = (r: PlanResource) => (r.props.metadata ?? {}) as { name?: string; namespace?: string };

for (const stack of stacks()) {
    describe(`policy gate on stack ${stack} (the real pack, policies/config/${stack}.json)`, function () {
        this.timeout(180_000);

        it("passes its own pack with zero violations, and the pack evaluated it", async () => {
            const text = await runTool("plan.ts", [stack]);
            expect(text.code, `${text.stdout.split("\nPolicies")[1] ?? ""}\n${text.stderr}`).to.equal(0);
            const summary = SUMMARY.exec(text.stdout);
            expect(summary, "summary line").to.not.equal(null);
            expect(Number(summary![1]), "mandatory").to.equal(0);
            expect(Number(summary![3]), "policies evaluated").to.be.greaterThan(0);
            const plan = await planOf(stack);
            expect(Number(summary![4])).to.equal(plan.resources.length);
            expect(plan.violations).to.deep.equal([]);
        });
    });
}

describe("policy gate: a fork renames its cluster", function () {
    this.timeout(180_000);

    it("passes with the new name in the stack file alone: the subnet tags and subnet-eks-tags both follow it", async () => {
        const dir = editedFixture("dev", (t) =>
            t.replace("  eks-platform:clusterName: platform-dev\n", "  eks-platform:clusterName: acme-dev\n"),
        );
        const result = await runTool("plan.ts", ["dev", "--format", "json"], dir);
        expect(result.code, result.stderr).to.equal(0);
        const plan = JSON.parse(result.stdout) as Plan;
        const subnets = plan.resources.filter((r) => r.type === "aws:ec2/subnet:Subnet");
        expect(subnets.length).to.be.greaterThan(0);
        for (const s of subnets) {
            expect((s.props.tags as Record<string, string>)["kubernetes.io/cluster/acme-dev"], s.name).to.be.oneOf(["owned", "shared"]);
        }
        expect(plan.violations).to.deep.equal([]);
    });
});

// The fixture prod stack, whose policy config makes both policies mandatory.
describe("policy gate: a deliberately broken config fails on the fixture prod stack", function () {
    this.timeout(180_000);

    it("a namespace without quota and a NodePool without limits are mandatory violations", async () => {
        // The rendered plan, whatever the gate said about it; the change below is the only difference.
        const project = fixtureProject();
        const PACK = path.join(project, "policies");
        const rendered = await runTool("plan.ts", ["prod", "--format", "json"], project);
        const plan = JSON.parse(rendered.stdout) as Plan;
        const namespace = plan.resources.find((r) => r.type === "kubernetes:core/v1:Namespace");
        const nodePool = plan.resources.find((r) => r.type === "kubernetes:karpenter.sh/v1:NodePool");
        expect(namespace, "the prod plan has a namespace").to.not.equal(undefined);
        const before = (await gatePlan(structuredClone(plan), "eks-platform", PACK)).report;

        const broken: Plan = structuredClone(plan);
        // A namespace like the configured one, but nothing creates a ResourceQuota in it.
        broken.resources.push({
            ...structuredClone(namespace!),
            name: "namespaces-rogue",
            props: { ...namespace!.props, metadata: { ...meta(namespace!), name: "rogue" } },
        });
        // The configured NodePool (or a minimal valid one) with its limits removed.
        const pool = structuredClone(
            nodePool ?? {
                type: "kubernetes:karpenter.sh/v1:NodePool",
                name: "karpenter-pools-default",
                props: {
                    apiVersion: "karpenter.sh/v1",
                    kind: "NodePool",
                    metadata: { name: "default" },
                    spec: {
                        template: {
                            spec: {
                                nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
                                requirements: [],
                                terminationGracePeriod: "1h",
                                expireAfter: "720h",
                            },
                        },
                        limits: { cpu: "100", memory: "400Gi" },
                        disruption: { consolidationPolicy: "WhenEmptyOrUnderutilized", consolidateAfter: "5m" },
                    },
                },
            },
        );
        pool.name = `${pool.name}-unbounded`;
        const spec = pool.props.spec as Record<string, unknown>;
        delete spec.limits;
        (pool.props.metadata as { name: string }).name = "unbounded";
        broken.resources.push(pool);

        const { report } = await gatePlan(broken, "eks-platform", PACK);
        const mandatory = broken.violations.filter((v) => v.level === "mandatory");
        expect(report.resources).to.equal(plan.resources.length + 2);
        expect(
            mandatory.some((v) => v.resource.name === "namespaces-rogue" || /\brogue\b/.test(v.message)),
            JSON.stringify(broken.violations, null, 1),
        ).to.equal(true);
        expect(
            mandatory.some((v) => v.resource.name === pool.name && v.resource.kind === "NodePool"),
            JSON.stringify(broken.violations, null, 1),
        ).to.equal(true);
        // Neither verdict was there before the change.
        expect(before.diagnostics.filter((d) => /rogue|unbounded/.test(`${d.urn ?? ""} ${d.message}`))).to.deep.equal([]);
    });
});
