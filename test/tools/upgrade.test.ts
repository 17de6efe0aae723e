import { expect } from "chai";
import type { GroupReport } from "eks-platform-rehearsal";
import { formatUpgradePlan, planUpgrade } from "../../tools/upgrade";
import { CLUSTER_HOURLY_USD, EKS_RELEASE_CALENDAR, KARPENTER_MINIMUM } from "../../tools/upgradeData";
import { Rendered, upgradeImpact } from "../../tools/upgradeImpact";
import { runTool } from "../mocks";
import { fixtureProject } from "../stackFiles";

const r = (type: string, name: string, props: Record<string, unknown>): Rendered => ({
    type,
    name,
    urn: `urn:pulumi:dev::p::${type}::${name}`,
    props,
});
const cluster = (version: string) => r("eks:index:Cluster", "cluster-eks", { name: "platform-dev", version });
const group = (release: string) => r("aws:eks/nodeGroup:NodeGroup", "general", { releaseVersion: release });
const karpenter = (version: string) =>
    r("kubernetes:helm.sh/v3:Release", "karpenter", { chart: "oci://public.ecr.aws/karpenter/karpenter", version });
const report = (name: string, verdict: GroupReport["verdict"]): GroupReport =>
    ({
        name,
        urn: r("aws:eks/nodeGroup:NodeGroup", name, {}).urn,
        resource: name,
        kind: "managed",
        mechanism: "EKS managed node group update",
        nodes: 3,
        verdict,
        estimatedSeconds: 900,
    }) as unknown as GroupReport;

function plan(resources: Rendered[], to: string, groups: GroupReport[] = [], today = "2026-06-01") {
    const impact = upgradeImpact(resources, to);
    expect(impact, "an impact").to.not.equal(undefined);
    return planUpgrade("dev", resources, impact!, groups, today);
}

describe("tools/upgrade.ts: the upgrade plan", () => {
    it("blocks on the stack's objects on an API the target no longer serves (Kubernetes deprecated API migration guide: flowcontrol v1beta3 removed in 1.32)", () => {
        const flow = r("kubernetes:flowcontrol.apiserver.k8s.io/v1beta3:FlowSchema", "fs", {
            apiVersion: "flowcontrol.apiserver.k8s.io/v1beta3",
            kind: "FlowSchema",
            metadata: { name: "batch" },
        });
        const p = plan([cluster("1.31"), flow], "1.32");
        expect(p.blockers).to.deep.equal([
            "FlowSchema batch uses flowcontrol.apiserver.k8s.io/v1beta3, which 1.32 no longer serves: move it to flowcontrol.apiserver.k8s.io/v1 first",
        ]);
        // Served at the current minor's previous step: no blocker.
        expect(plan([cluster("1.30"), flow], "1.31").blockers).to.deep.equal([]);
    });

    it("blocks a node group the upgrade would push past the kubelet skew of three minors (Kubernetes version skew policy), and not one at the limit", () => {
        expect(plan([cluster("1.34"), group("1.31.7-20250101")], "1.35").blockers[0]).to.match(
            /node group general runs 1\.31: .* more than 3 minors behind/,
        );
        expect(plan([cluster("1.34"), group("1.32.7-20250101")], "1.35").blockers).to.deep.equal([]);
    });

    it("blocks a Karpenter release older than the target's minimum (Karpenter compatibility matrix), and says so when the matrix stops before the target", () => {
        expect(KARPENTER_MINIMUM["1.35"]).to.equal("1.9");
        expect(plan([cluster("1.34"), karpenter("1.8.3")], "1.35").blockers).to.deep.equal([
            "Karpenter 1.8.3 does not support Kubernetes 1.35 (it needs 1.9 or later: Karpenter's compatibility matrix); upgrade the chart first",
        ]);
        expect(plan([cluster("1.34"), karpenter("1.9.0")], "1.35").blockers).to.deep.equal([]);
        expect(plan([cluster("1.34"), karpenter("1.10.0")], "1.35").blockers, "1.10 is newer than 1.9, not older").to.deep.equal([]);
        expect(plan([cluster("1.36"), karpenter("1.14.1")], "1.37").confirm.join("\n")).to.include(
            "the compatibility matrix this tool holds stops before 1.37",
        );
    });

    it("blocks on a wave the drain rehearsal finds blocked, and gives each wave the rehearsal's verdict", () => {
        const resources = [cluster("1.34"), group("1.34.7-20260512")];
        const ok = plan(resources, "1.35", [report("general", "ok")]);
        expect(ok.blockers).to.deep.equal([]);
        expect(ok.steps.find((s) => s.title.startsWith("Wave: managed node group general"))?.verdict).to.equal("ok");
        const blocked = plan(resources, "1.35", [report("general", "blocked")]);
        expect(blocked.blockers).to.deep.equal([
            "managed node group general (1.34): the drain rehearsal finds its rollout blocked (npm run drain -- dev)",
        ]);
    });

    it("orders the plan: preflight, the drift hold, the control plane with the kube-proxy build of the target, add-ons, then the waves", () => {
        const nodeClass = r("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "class", {
            metadata: { name: "default" },
            spec: { amiSelectorTerms: [{ alias: "al2023@v20260512" }] },
        });
        const pool = r("kubernetes:karpenter.sh/v1:NodePool", "pool", {
            metadata: { name: "general" },
            spec: { template: { spec: { nodeClassRef: { name: "default" } } } },
        });
        const proxy = r("aws:eks/addon:Addon", "kube-proxy", { addonName: "kube-proxy", addonVersion: "v1.34.0-eksbuild.2" });
        const p = plan([cluster("1.34"), nodeClass, pool, group("1.34.7-20260512"), proxy], "1.35");
        expect(p.steps.map((s) => s.title.split(" (")[0])).to.deep.equal([
            "Preflight",
            "Hold Karpenter's drift",
            "Control plane 1.34 → 1.35",
            "Add-ons",
            "Wave: managed node group general",
            "Wave: NodePool general",
        ]);
        expect(p.steps[2].details).to.include(
            "kube-proxy: v1.34.0-eksbuild.2 is a 1.34 build; pin the 1.35 build in the same change (EKS offers each kube-proxy build for one minor)",
        );
        expect(p.steps[1].details[0]).to.include('{ nodes: "0", reasons: [Drifted] }');
        expect(formatUpgradePlan(p).split("\n")[1]).to.equal("no blocker found offline; confirm what only AWS can tell below");
    });

    it("states the support calendar: days left in standard support, and extended support's price once past it (EKS release calendar, EKS pricing)", () => {
        const before = plan([cluster("1.34")], "1.35", [], "2026-12-01");
        expect(before.steps[0].details.join("\n")).to.include("1.34 is in standard support until 2026-12-02 (1 day from 2026-12-01)");
        const after = plan([cluster("1.34")], "1.35", [], "2026-12-02");
        expect(after.steps[0].details.join("\n")).to.include(
            `1.34 left standard support on 2026-12-02: the cluster is billed extended support ($0.60/h instead of $0.10/h)`,
        );
        expect(CLUSTER_HOURLY_USD).to.deep.equal({ standard: 0.1, extended: 0.6 });
        expect(plan([cluster("1.40")], "1.41").confirm.join("\n")).to.include("1.41 is not in the release calendar this tool holds");
        // Under the STANDARD upgrade policy EKS moves the control plane itself at the end of standard support.
        const standard = { ...cluster("1.34"), props: { ...cluster("1.34").props, upgradePolicy: { supportType: "STANDARD" } } };
        expect(plan([standard], "1.35", [], "2026-12-01").steps[0].details.join("\n")).to.include(
            "upgrade policy STANDARD: from 2026-12-02 EKS upgrades the control plane to 1.35 itself",
        );
    });

    it("keeps the release calendar as EKS's lifecycle has it: 14 months of standard support from the EKS release (within a day), then 12 of extended", () => {
        const plusMonths = (date: string, months: number) => {
            const d = new Date(`${date}T00:00:00Z`);
            d.setUTCMonth(d.getUTCMonth() + months);
            return d.getTime();
        };
        for (const v of EKS_RELEASE_CALENDAR) {
            expect(Math.abs(Date.parse(v.endOfStandardSupport) - plusMonths(v.eksRelease, 14)), v.minor).to.be.at.most(86_400_000);
            expect(Date.parse(v.endOfExtendedSupport), v.minor).to.equal(plusMonths(v.endOfStandardSupport, 12));
            expect(v.source, v.minor).to.match(/read 2026-/);
        }
    });
});

describe("npm run upgrade -- <stack>", function () {
    this.timeout(240_000);

    it("prints the ordered plan of the fixture prod stack's next minor, every managed group a rehearsed wave (exit 0: no blocker)", async () => {
        const res = await runTool("upgrade.ts", ["prod"], fixtureProject());
        expect(res.code, res.stderr).to.equal(0);
        const lines = res.stdout.split("\n");
        expect(lines[0]).to.equal('Upgrade plan of stack "prod": Kubernetes 1.34 → 1.35');
        expect(lines.filter((l) => /^\d+\. /.test(l)).map((l) => l.replace(/ [([].*$/, ""))).to.include.members([
            "1. Preflight",
            "4. Add-ons",
        ]);
        expect(res.stdout).to.match(/Wave: managed node group .* \[ok\]/);
        expect(res.stdout).to.include("To confirm with AWS (not decided offline):");
    });

    it("refuses a target that is not the next minor (exit 2): EKS upgrades one minor at a time", async () => {
        const res = await runTool("upgrade.ts", ["prod", "--to", "1.36"], fixtureProject());
        expect(res.code).to.equal(2);
        expect(res.stderr).to.include("--to 1.36: EKS upgrades a control plane one minor at a time; the next step from 1.34 is 1.35");
    });
});
