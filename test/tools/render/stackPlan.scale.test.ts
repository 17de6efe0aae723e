// planToGateResources resolves parents and dependencies by name from an index kept as it reads
// the plan: a 2,000-namespace stack has 16 000 resources, and the scan of every earlier resource
// per name it replaced was quadratic (seconds at that size, minutes at ten times it). The index
// must resolve exactly as the scan did, which the reference below still does.
import { expect } from "chai";
import * as fc from "fast-check";
import { urnOf } from "../../../tools/gate/requests";
import { Plan, planToGateResources } from "../../../tools/render/stackPlan";

/** The resolution as it was: every earlier resource of that name, its component first, else the first. */
function reference(plan: Plan, project: string): { urn: string; parent?: string; dependencies?: string[] }[] {
    const isComponent = (type: string) => !type.split(":")[1]?.includes("/") && !type.startsWith("pulumi:providers:");
    const qualified: string[] = [];
    const urns: string[] = [];
    const resolve = (name: string, before: number): number => {
        const candidates: number[] = [];
        for (let j = 0; j < before; j++) {
            if (plan.resources[j].name === name) {
                candidates.push(j);
            }
        }
        return candidates.find((j) => isComponent(plan.resources[j].type)) ?? candidates[0] ?? -1;
    };
    return plan.resources.map((r, i) => {
        const parent = r.options?.parent ? resolve(r.options.parent, i) : -1;
        qualified[i] = parent >= 0 ? `${qualified[parent]}$${r.type}` : r.type;
        urns[i] = urnOf(plan.stack, project, qualified[i], r.name);
        const dependencies = (r.options?.dependsOn ?? []).map((d) => resolve(d, i)).filter((j) => j >= 0);
        return {
            urn: urns[i],
            ...(parent >= 0 ? { parent: urns[parent] } : {}),
            ...(dependencies.length > 0 ? { dependencies: dependencies.map((j) => urns[j]) } : {}),
        };
    });
}

const TYPES = [
    "platform:namespaces:Namespaces",
    "kubernetes:core/v1:Namespace",
    "pulumi:providers:kubernetes",
    "aws:iam/role:Role",
    "eks:index:Cluster",
];
const NAMES = ["a", "b", "c", "d"];

describe("offline plan: the gate's resources at scale", () => {
    it("resolve parents and dependencies as the scan of every earlier resource did, for any plan", () => {
        const resource = fc.record({
            type: fc.constantFrom(...TYPES),
            name: fc.constantFrom(...NAMES),
            parent: fc.option(fc.constantFrom(...NAMES, "missing"), { nil: undefined }),
            dependsOn: fc.array(fc.constantFrom(...NAMES, "missing"), { maxLength: 3 }),
        });
        fc.assert(
            fc.property(fc.array(resource, { maxLength: 30 }), (rs) => {
                const plan: Plan = {
                    stack: "dev",
                    violations: [],
                    resources: rs.map((r) => ({
                        type: r.type,
                        name: r.name,
                        props: {},
                        options: { ...(r.parent ? { parent: r.parent } : {}), ...(r.dependsOn.length ? { dependsOn: r.dependsOn } : {}) },
                    })),
                };
                const got = planToGateResources(plan, "p").map((g) => ({
                    urn: g.urn,
                    ...(g.parent ? { parent: g.parent } : {}),
                    ...(g.dependencies ? { dependencies: g.dependencies } : {}),
                }));
                expect(got).to.deep.equal(reference(plan, "p"));
            }),
            { numRuns: 500 },
        );
    });

    it("resolve a 2,000-namespace stack's 16 000 resources to the namespace each guard depends on", () => {
        const resources: Plan["resources"] = [{ type: "platform:namespaces:Namespaces", name: "namespaces", props: {} }];
        for (let i = 0; i < 2000; i++) {
            const ns = `namespaces-team-${i}`;
            resources.push({ type: "kubernetes:core/v1:Namespace", name: ns, props: {}, options: { parent: "namespaces" } });
            for (const guard of ["quota", "defaults", "default-deny", "allow-same-namespace", "allow-from-ingress", "x", "y"]) {
                resources.push({
                    type: "kubernetes:core/v1:ResourceQuota",
                    name: `${ns}-${guard}`,
                    props: {},
                    options: { parent: "namespaces", dependsOn: [ns] },
                });
            }
        }
        const rs = planToGateResources({ stack: "dev", violations: [], resources }, "p");
        expect(rs).to.have.length(16_001);
        expect(rs[16_000].dependencies).to.deep.equal([rs[16_000 - 7].urn]);
        expect(rs[16_000].parent).to.equal(rs[0].urn);
    });
});
