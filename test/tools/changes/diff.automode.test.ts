/**
 * `plan --diff` of a stack moved to EKS Auto Mode in place (the fixture dev stack: its node
 * groups, Karpenter and self-installed add-ons replaced by `autoMode`): what is refused, destroyed,
 * switched and drained comes first, in that order. Each side renders in a process of its own.
 */
import { expect } from "chai";
import * as YAML from "yaml";
import { diffRenders, DISRUPTION_ORDER } from "../../../tools/changes/diff";
import { renderInChild } from "../../../tools/changes/diffStack";
import { editedFixture, fixtureProject } from "../../stackFiles";

/** The fixture dev stack with Auto Mode on and what Auto Mode runs itself taken out. */
function onAutoMode(text: string): string {
    const doc = YAML.parseDocument(text);
    const config = doc.get("config") as YAML.YAMLMap;
    config.delete("eks-platform:nodeGroups");
    config.delete("eks-platform:karpenter");
    const addons = config.get("eks-platform:addons") as YAML.YAMLMap;
    addons.delete("ebsCsiDriver");
    addons.delete("loadBalancerController");
    config.set(
        "eks-platform:autoMode",
        doc.createNode({
            enabled: true,
            builtInPools: ["system"],
            nodeClasses: { platform: {} },
            nodePools: {
                general: {
                    nodeClassRef: { name: "platform" },
                    requirements: [{ key: "eks.amazonaws.com/instance-category", operator: "In", values: ["c", "m"] }],
                    limits: { cpu: "32", memory: "128Gi" },
                    disruption: { consolidateAfter: "1m" },
                    expireAfter: "168h",
                    terminationGracePeriod: "30m",
                },
            },
        }),
    );
    return doc.toString();
}

describe("plan --diff: a stack moved to EKS Auto Mode in place", function () {
    this.timeout(600_000);

    it("heads with what is refused, destroyed, switched and drained, and names the classes recreated under their names", async () => {
        const before = await renderInChild(fixtureProject(), "dev", "the fixture");
        const after = await renderInChild(editedFixture("dev", onAutoMode), "dev", "the fixture on Auto Mode");
        const diff = diffRenders(before, after);
        const kinds = diff.disruptions.map((d) => d.kind);
        // Most severe first.
        expect(kinds).to.deep.equal([...kinds].sort((a, b) => DISRUPTION_ORDER.indexOf(a) - DISRUPTION_ORDER.indexOf(b)));
        expect([...new Set(kinds)]).to.include.members(["refused", "switch", "drain"]);
        const refused = diff.disruptions.filter((d) => d.kind === "refused").map((d) => d.message);
        expect(
            refused.some((m) => /creates storage\.k8s\.io\/v1:StorageClass gp3, which .* still is/.test(m)),
            "gp3",
        ).to.equal(true);
        expect(
            refused.some((m) => /creates networking\.k8s\.io\/v1:IngressClass alb, which .* still is/.test(m)),
            "alb",
        ).to.equal(true);
        const [sw] = diff.disruptions.filter((d) => d.kind === "switch");
        expect(sw.message).to.include("EKS Auto Mode turned on in place").and.include("the load balancers it created are not migrated");
        // Every node group and NodePool of the fixture drains.
        const drained = diff.disruptions.filter((d) => d.kind === "drain").map((d) => d.message.split(":")[0]);
        const capacity = before.filter(
            (r) =>
                r.type === "aws:eks/nodeGroup:NodeGroup" ||
                r.type === "aws:autoscaling/group:Group" ||
                r.type === "kubernetes:karpenter.sh/v1:NodePool",
        );
        expect(drained).to.have.length(capacity.length);
        // The cluster itself is updated in place, never replaced.
        expect(diff.changes.find((c) => c.type === "eks:index:Cluster")?.kind).to.equal("update");
    });
});
