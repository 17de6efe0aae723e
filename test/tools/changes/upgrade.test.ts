import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { GroupReport } from "eks-platform-rehearsal";
import { InputError } from "../../../tools/cli/errors";
import {
    formatUpgradePlan,
    markerEdits,
    minorMarkers,
    planUpgrade,
    renovateMarkerPatterns,
    upgradeCommand,
    UpgradePlan,
} from "../../../tools/changes/upgrade";
import { CLUSTER_HOURLY_USD, EKS_RELEASE_CALENDAR, KARPENTER_MINIMUM } from "../../../tools/changes/upgradeData";
import { Rendered, upgradeImpact } from "../../../tools/changes/upgradeImpact";
import { ROOT, runTool } from "../../mocks";
import { fixtureProject } from "../../stackFiles";

const r = (type: string, name: string, props: Record<string, unknown>): Rendered => ({
    type,
    name,
    urn: `urn:pulumi:dev::p::${type}::${name}`,
    props,
});
const cluster = (version: string) => r("eks:index:Cluster", "cluster-eks", { name: "platform-dev", version });
const group = (release: string) => r("aws:eks/nodeGroup:NodeGroup", "general", { releaseVersion: release });
/** An EC2NodeClass `default` that selects its AMI by an alias (which follows the Kubernetes minor). */
const aliasClass = () =>
    r("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "class", {
        metadata: { name: "default" },
        spec: { amiSelectorTerms: [{ alias: "al2023@v20260512" }] },
    });
/** A NodePool on that class, with the disruption budgets given (none: no `disruption`). */
const poolOn = (name: string, budgets?: unknown[]) =>
    r("kubernetes:karpenter.sh/v1:NodePool", "pool", {
        metadata: { name },
        spec: { template: { spec: { nodeClassRef: { name: "default" } } }, ...(budgets ? { disruption: { budgets } } : {}) },
    });
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

describe("tools/changes/upgrade.ts: the upgrade plan", () => {
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
        const nodeClass = aliasClass();
        const pool = poolOn("general");
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

describe("tools/changes/upgrade.ts: the plan as printed", () => {
    it("prints blockers first, then the numbered steps with each wave's verdict, then what to confirm and what is not modelled (hand-written expectation)", () => {
        const eks = { ...cluster("1.34"), props: { ...cluster("1.34").props, upgradePolicy: { supportType: "EXTENDED" } } };
        const nodeClass = aliasClass();
        const pool = poolOn("general", [{ nodes: "10%" }]);
        const ng = r("aws:eks/nodeGroup:NodeGroup", "ng", { nodeGroupName: "general", releaseVersion: "1.33.5-20250101" });
        const proxy = r("aws:eks/addon:Addon", "kube-proxy", { addonName: "kube-proxy", addonVersion: "v1.34.0-eksbuild.2" });
        const cni = r("aws:eks/addon:Addon", "vpc-cni", { addonName: "vpc-cni", addonVersion: "v1.20.4-eksbuild.1" });
        // The cluster last: its upgrade policy is read from the cluster itself, wherever it is.
        const resources = [nodeClass, pool, ng, proxy, cni, karpenter("1.14.1"), eks];
        // The pool's report first: a node group and a NodePool may share a name, and each wave takes the report of its own URN.
        const reports = [
            {
                ...report("general", "blocked"),
                urn: pool.urn,
                kind: "nodePool",
                nodes: 2,
                estimatedSeconds: 61,
                stalled: "a budget allows no eviction",
            },
            { ...report("general", "ok"), urn: ng.urn, mechanism: "EKS managed node group update (test)" },
        ] as GroupReport[];
        const p = planUpgrade("dev", resources, upgradeImpact(resources, "1.35")!, reports, "2026-11-01");
        expect(formatUpgradePlan(p).split("\n")).to.deep.equal([
            'Upgrade plan of stack "dev": Kubernetes 1.34 → 1.35',
            "BLOCKED: 1 blocker(s)",
            "",
            "Blockers:",
            "  ! NodePool general: the drain rehearsal finds its rollout blocked (npm run drain -- dev)",
            "",
            "1. Preflight",
            "     - 1 blocker(s) below must be cleared first",
            "     - 1.34 is in standard support until 2026-12-02 (31 days from 2026-11-01); from then extended support costs $0.60/h per cluster instead of $0.10/h",
            "     - 1.35 is in standard support until 2027-03-27 (source: endoflife.date/amazon-eks, read 2026-12-01 (not yet in the stored AWS page))",
            "     - rollback: EKS can return the control plane to 1.34 within 7 days of the upgrade, while the nodes still run 1.34; keep them there through the bake",
            "     - node group general still runs 1.33: the last upgrade's waves are not finished (its releaseVersion to a 1.34 release)",
            "2. Hold Karpenter's drift (one pull request)",
            '     - NodePool general: its EC2NodeClass default selects the alias al2023@v20260512, which resolves per Kubernetes minor: without a hold every node drifts as soon as the control plane runs 1.35; add the disruption budget { nodes: "0", reasons: [Drifted] }',
            "3. Control plane 1.34 → 1.35 (one pull request: npm run plan -- dev --diff origin/main shows it as a Kubernetes upgrade)",
            '     - cluster.version: "1.35"',
            "     - kube-proxy: v1.34.0-eksbuild.2 is a 1.34 build; pin the 1.35 build in the same change (EKS offers each kube-proxy build for one minor)",
            "     - then bake: the rollback window is 7 days",
            "4. Add-ons",
            "     - vpc-cni v1.20.4-eksbuild.1: confirm or bump to a 1.35 build",
            "5. Wave: managed node group general (1.33) [ok]",
            "     - releaseVersion: a 1.35 release; how it rolls: EKS managed node group update (test)",
            "     - drain rehearsal: OK, 3 node(s), about 15 min",
            "6. Wave: NodePool general [blocked]",
            "     - remove the drift hold: Karpenter replaces every node under the pool's budgets (10%)",
            "     - drain rehearsal: blocked, 2 node(s), about 2 min; stalls: a budget allows no eviction",
            "",
            "To confirm with AWS (not decided offline):",
            "  ? APIs removed in 1.35: the removal table is read through 1.34; check the Kubernetes deprecated API migration guide for 1.35 (and the cluster's upgrade insights: aws eks list-insights --cluster-name platform-dev)",
            "  ? vpc-cni v1.20.4-eksbuild.1 on 1.35: aws eks describe-addon-versions --addon-name vpc-cni --kubernetes-version 1.35",
            "",
            "Not modelled:",
            "  - the rehearsal replays each rollout with today's settings and workloads; what the new minor changes in the workloads' behaviour is not modelled",
            "  - self-managed groups follow their launch template's AMI: set it to an AMI of the target minor in the wave",
        ]);
    });

    it("names a wave the rehearsal has no report for, and defaults the rollout's words; no drift step, no confirm block and no removed-API note when there is nothing to say", () => {
        const resources = [cluster("1.33"), group("1.33.5-20250101")];
        const p = planUpgrade("dev", resources, upgradeImpact(resources, "1.34")!, [], "2026-01-01");
        const text = formatUpgradePlan(p);
        expect(p.steps.map((s) => s.title.split(" (")[0])).to.deep.equal([
            "Preflight",
            "Control plane 1.33 → 1.34",
            "Add-ons",
            "Wave: managed node group general",
        ]);
        expect(p.steps[3].details).to.deep.equal([
            "releaseVersion: a 1.34 release; how it rolls: EKS managed node group update, one batch at a time",
            "not rehearsed: the rehearsal found no such group",
        ]);
        expect(p.steps[3].verdict).to.equal(undefined);
        expect(p.steps[0].details[0]).to.equal("no blocker found offline");
        expect(text.split("\n")[1]).to.equal("no blocker found offline; confirm what only AWS can tell below");
        expect(text).to.not.include("To confirm with AWS");
        expect(text).to.not.include("Blockers:");
        expect(text).to.not.include("still runs");
        expect(p.steps[2].details).to.deep.equal([]);
    });

    it("compares Karpenter versions part by part (1.10 is newer than 1.9; 1.9 is 1.9.0), and finds the chart by its name only", () => {
        const blocked = (version: string, chart = "oci://public.ecr.aws/karpenter/karpenter") =>
            plan([cluster("1.34"), r("kubernetes:helm.sh/v3:Release", "k", { chart, version })], "1.35").blockers.length;
        expect([blocked("1.9"), blocked("1.9.0"), blocked("1.8.99"), blocked("1.10.0"), blocked("2.0.0"), blocked("0.37.0")]).to.deep.equal(
            [0, 0, 1, 0, 0, 1],
        );
        expect(blocked("1.8.0", "karpenter")).to.equal(1);
        expect(blocked("1.8.0", "oci://public.ecr.aws/karpenter/karpenter-crd")).to.equal(0);
        expect(blocked("1.8.0", "my-karpenter")).to.equal(0);
        expect(
            plan([cluster("1.34"), r("aws:eks/addon:Addon", "k", { chart: "karpenter", version: "1.0.0" })], "1.35").blockers,
        ).to.deep.equal([]);
    });

    it("lists APIs to confirm only for a target past the removal table's last release (read through 1.34)", () => {
        expect(plan([cluster("1.33")], "1.34").confirm.join("\n")).to.not.include("APIs removed");
        expect(plan([cluster("1.34")], "1.35").confirm.join("\n")).to.include(
            "APIs removed in 1.35: the removal table is read through 1.34",
        );
    });

    it("past the end of standard support, says extended support is billed until the upgrade, and when EKS upgrades it itself", () => {
        const text = plan([cluster("1.33")], "1.34", [], "2026-08-01").steps[0].details.join("\n");
        expect(text).to.include(
            "1.33 left standard support on 2026-07-29: the cluster is billed extended support ($0.60/h instead of $0.10/h) until it runs 1.34, and is upgraded by EKS after 2027-07-29",
        );
        const standard = { ...cluster("1.33"), props: { ...cluster("1.33").props, upgradePolicy: { supportType: "STANDARD" } } };
        expect(plan([standard], "1.34", [], "2026-08-01").steps[0].details.join("\n")).to.include(
            "upgrade policy STANDARD: EKS may upgrade the control plane to 1.34 itself",
        );
        expect(plan([cluster("1.34")], "1.35", [], "2026-12-01").steps[0].details.join("\n")).to.include("(1 day from 2026-12-01)");
        expect(plan([cluster("1.34")], "1.35", [], "2026-11-30").steps[0].details.join("\n")).to.include("(2 days from 2026-11-30)");
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

describe("tools/changes/upgrade.ts: the Renovate markers a minor bump moves", () => {
    const text = [
        "config:",
        "  eks-platform:cluster:",
        '    version: "1.34"',
        "    addons:",
        '      # renovate: datasource=aws-eks-addon depName=vpc-cni packageName={"addonName":"vpc-cni","kubernetesVersion":"1.34"}',
        "      vpcCni: v1.20.4-eksbuild.1",
        '      #renovate: datasource=aws-eks-addon depName=kube-proxy packageName={"addonName":"kube-proxy","kubernetesVersion":"1.35"}',
        "      kubeProxy: v1.35.0-eksbuild.1",
        "      # renovate: datasource=helm depName=aws-load-balancer-controller registryUrl=https://aws.github.io/eks-charts",
        "      chartVersion: 1.13.3",
        '      # renovate: datasource=aws-eks-addon depName=coredns packageName={"addonName":"coredns", "kubernetesVersion": "1.34"}',
        "      coreDns: v1.12.3-eksbuild.1",
        '  # a comment that mentions "kubernetesVersion":"1.34" but is no marker',
    ].join("\n");

    it("finds each marker Renovate reads (renovate.json's own pattern) that names a minor, with its line and add-on", () => {
        expect(renovateMarkerPatterns().length, "renovate.json's stack-file pattern").to.be.greaterThan(0);
        // Not the Helm chart (no minor), not coredns's (a space ends Renovate's packageName there), not the prose.
        expect(minorMarkers(text)).to.deep.equal([
            { line: 5, addon: "vpc-cni", minor: "1.34" },
            { line: 7, addon: "kube-proxy", minor: "1.35" },
        ]);
        expect(minorMarkers(text, []), "no renovate.json, no markers").to.deep.equal([]);
    });

    it("takes from renovate.json only the patterns that read a packageName; none without the file", () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "renovate-"));
        try {
            const file = path.join(dir, "renovate.json");
            fs.writeFileSync(
                file,
                JSON.stringify({ customManagers: [{ matchStrings: ["a(?<packageName>x)", "amiAlias: (?<currentValue>y)"] }, {}] }),
            );
            expect(renovateMarkerPatterns(file)).to.deep.equal(["a(?<packageName>x)"]);
            fs.writeFileSync(file, "{}");
            expect(renovateMarkerPatterns(file)).to.deep.equal([]);
            expect(renovateMarkerPatterns(path.join(dir, "none.json"))).to.deep.equal([]);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("a marker is an aws-eks-addon whose packageName is JSON naming a minor as a string; anything else is none, and nothing throws", () => {
        const marker = (datasource: string, packageName: string) =>
            `# renovate: datasource=${datasource} depName=vpc-cni packageName=${packageName}\nvpcCni: v1.20.4-eksbuild.1`;
        expect(minorMarkers(marker("aws-eks-addon", '{"kubernetesVersion":"1.34"}'))).to.have.length(1);
        for (const [datasource, packageName] of [
            ["helm", '{"kubernetesVersion":"1.34"}'],
            ["aws-eks-addon", "vpc-cni"],
            ["aws-eks-addon", "null"],
            ["aws-eks-addon", '{"kubernetesVersion":134}'],
        ]) {
            expect(minorMarkers(marker(datasource, packageName)), `${datasource} ${packageName}`).to.deep.equal([]);
        }
    });

    it("names the markers still on another minor, by file and line, and none already on the target", () => {
        expect(markerEdits("Pulumi.dev.yaml", minorMarkers(text), "1.35")).to.deep.equal([
            'Pulumi.dev.yaml:5: the # renovate: marker of vpc-cni: "kubernetesVersion":"1.34" → "1.35" (Renovate then offers 1.35 builds)',
        ]);
        expect(markerEdits("Pulumi.dev.yaml", minorMarkers(text), "1.34")).to.have.length(1);
    });

    it("reads the stack file of the working directory by default: every marker of the repository's prod not on the target, by line", async () => {
        const { stdout } = await upgradeCommand(["prod"], { render: () => Promise.resolve([cluster("1.34")]), today: "2026-11-01" });
        const expected = fs
            .readFileSync(path.join(ROOT, "Pulumi.prod.yaml"), "utf8")
            .split("\n")
            .flatMap((l, i) =>
                /# renovate:.*"kubernetesVersion":"(?!1\.35")/.test(l) ? [`     - Pulumi.prod.yaml:${i + 1}: the # renovate: marker`] : [],
            );
        expect(expected.length, "the repository's prod pins its add-ons with markers").to.be.greaterThan(3);
        const named = stdout.split("\n").filter((l) => l.includes(": the # renovate: marker"));
        expect(named.map((l) => l.replace(/ of .*$/, ""))).to.deep.equal(expected);
    });

    it("puts them in the control plane's step of the command's plan", async () => {
        const { stdout } = await upgradeCommand(["dev"], {
            render: () => Promise.resolve([cluster("1.34")]),
            today: "2026-11-01",
            stackFile: () => text,
        });
        const step = stdout.split("\n").findIndex((l) => /^\d+\. Control plane 1\.34 → 1\.35/.test(l));
        expect(step).to.be.greaterThan(-1);
        expect(stdout.split("\n").slice(step + 1, step + 3)).to.deep.equal([
            '     - cluster.version: "1.35"',
            '     - Pulumi.dev.yaml:5: the # renovate: marker of vpc-cni: "kubernetesVersion":"1.34" → "1.35" (Renovate then offers 1.35 builds)',
        ]);
    });
});

describe("tools/changes/upgrade.ts: the plan's edge cases", () => {
    it("finds a wave's rehearsal by the group's name or resource when the URN differs; a pool with no budget is paced by Karpenter's 10%, and one without a report is said to be unrehearsed", () => {
        const nodeClass = aliasClass();
        const pool = poolOn("batch");
        const resources = [cluster("1.34"), group("1.34.7-20260512"), nodeClass, pool];
        const byName = { ...report("general", "ok"), urn: "urn:other", resource: "other" };
        const byResource = { ...report("x", "blocked"), urn: "urn:other", resource: "general" };
        expect(plan(resources, "1.35", [byName]).steps.find((s) => s.title.startsWith("Wave: managed"))?.verdict).to.equal("ok");
        expect(plan(resources, "1.35", [byResource]).steps.find((s) => s.title.startsWith("Wave: managed"))?.verdict).to.equal("blocked");
        const wave = plan(resources, "1.35").steps.find((s) => s.title === "Wave: NodePool batch");
        expect(wave?.details).to.deep.equal([
            "remove the drift hold: Karpenter replaces every node under the pool's budgets (10%)",
            "not rehearsed: the rehearsal found no such pool",
        ]);
    });

    it("names the minor a group must reach first when the upgrade would exceed the kubelet skew", () => {
        expect(plan([cluster("1.34"), group("1.31.7-20250101")], "1.35").blockers).to.deep.equal([
            "node group general runs 1.31: with the control plane at 1.35 its kubelet would be more than 3 minors behind (Kubernetes version skew policy); move it to 1.32 or later first",
        ]);
    });

    it("compares a Karpenter version with fewer parts than the minimum as zeros (1.0 is older than 1.0.5, Kubernetes 1.31's minimum)", () => {
        const karp = (version: string) => plan([cluster("1.30"), karpenter(version)], "1.31").blockers.length;
        expect([karp("1.0"), karp("1.0.5"), karp("1.0.4"), karp("1.1")]).to.deep.equal([1, 0, 1, 0]);
    });

    it("under the STANDARD policy, on the end of standard support itself EKS may already upgrade it", () => {
        const standard = { ...cluster("1.34"), props: { ...cluster("1.34").props, upgradePolicy: { supportType: "STANDARD" } } };
        const on = (today: string) => plan([standard], "1.35", [], today).steps[0].details.join("\n");
        expect(on("2026-12-02")).to.include("upgrade policy STANDARD: EKS may upgrade the control plane to 1.35 itself");
        expect(on("2026-12-01")).to.include("upgrade policy STANDARD: from 2026-12-02 EKS upgrades the control plane to 1.35 itself");
        // Read from the cluster, wherever it is among the resources.
        const behindOthers = plan([group("1.34.7-20260512"), standard], "1.35", [], "2026-12-01").steps[0].details.join("\n");
        expect(behindOthers).to.include("upgrade policy STANDARD");
    });
});

describe("npm run upgrade, in process (upgradeCommand: the command line, the render and the exit code)", () => {
    const USAGE = "usage: npm run upgrade -- <stack> [--to <minor>] [--format text|json] [manifest paths…]";
    /** A managed group the drain rehearsal can roll: three nodes, one at a time. */
    const general = r("aws:eks/nodeGroup:NodeGroup", "general", {
        nodeGroupName: "general",
        releaseVersion: "1.34.7-20260512",
        instanceTypes: ["m7i.large"],
        scalingConfig: { minSize: 2, desiredSize: 3, maxSize: 6 },
        updateConfig: { maxUnavailable: 1 },
    });
    /** A render of `stacks`' resources by stack name, recording the stacks asked for. */
    const renderer = (stacks: Record<string, Rendered[]>) => {
        const asked: string[] = [];
        const render = (stack: string) => {
            asked.push(stack);
            return Promise.resolve(stacks[stack] ?? []);
        };
        return { asked, render };
    };
    const refusal = async (argv: string[], stacks: Record<string, Rendered[]> = { dev: [cluster("1.34")] }) => {
        const err = await upgradeCommand(argv, { render: renderer(stacks).render, today: "2026-11-01" }).then(
            () => undefined,
            (e: unknown) => e,
        );
        expect(err, "an error").to.be.instanceOf(Error);
        return err as Error;
    };
    let dir: string;
    const manifest = (name: string, text: string) => {
        const file = path.join(dir, name);
        fs.writeFileSync(file, text);
        return file;
    };
    before(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "upgrade-command-"));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("plans the named stack's next minor and prints it as text, each managed group a wave with the drain rehearsal's verdict (exit 0: no blocker)", async () => {
        const { asked, render } = renderer({ dev: [cluster("1.34"), general] });
        const { code, stdout } = await upgradeCommand(["dev"], { render, today: "2026-11-01" });
        expect(asked).to.deep.equal(["dev"]);
        expect(code).to.equal(0);
        const lines = stdout.split("\n");
        expect(lines.slice(0, 2)).to.deep.equal([
            'Upgrade plan of stack "dev": Kubernetes 1.34 → 1.35',
            "no blocker found offline; confirm what only AWS can tell below",
        ]);
        // The rehearsal itself ran on the render: three nodes rolled one at a time, verdict OK.
        expect(lines).to.include("4. Wave: managed node group general (1.34) [ok]");
        expect(lines).to.include("     - drain rehearsal: OK, 3 node(s), about 12 min");
        // The calendar is read on the day given.
        expect(stdout).to.include("1.34 is in standard support until 2026-12-02 (31 days from 2026-11-01)");
        expect(stdout.endsWith("in the wave\n") && !stdout.endsWith("\n\n"), "one newline after the plan").to.equal(true);
    });

    it("--to the next minor is the default's target; --format json prints the same plan as one JSON document", async () => {
        const { render } = renderer({ dev: [cluster("1.34"), general] });
        const text = await upgradeCommand(["dev", "--to", "1.35"], { render, today: "2026-11-01" });
        expect(text.stdout).to.equal((await upgradeCommand(["dev"], { render, today: "2026-11-01" })).stdout);
        const json = await upgradeCommand(["dev", "--format", "json"], { render, today: "2026-11-01" });
        expect(json.code).to.equal(0);
        expect(json.stdout.endsWith("}\n")).to.equal(true);
        const plan = JSON.parse(json.stdout) as UpgradePlan;
        expect([plan.stack, plan.from, plan.to, plan.blockers]).to.deep.equal(["dev", "1.34", "1.35", []]);
        expect(plan.steps.find((s) => s.title.startsWith("Wave: managed node group general"))?.verdict).to.equal("ok");
        expect((await refusal(["dev", "--format", "yaml"])).message).to.equal('--format must be text or json, not "yaml"');
    });

    it("plans the manifests given with the stack: one on an API the target no longer serves is a blocker (exit 1; Kubernetes deprecated API migration guide: flowcontrol v1beta3 removed in 1.32)", async () => {
        const flow = manifest(
            "flow.yaml",
            [
                "apiVersion: flowcontrol.apiserver.k8s.io/v1beta3",
                "kind: FlowSchema",
                "metadata:",
                "  name: batch",
                "spec:",
                "  priorityLevelConfiguration:",
                "    name: workload-low",
                "  matchingPrecedence: 1000",
                "",
            ].join("\n"),
        );
        const { render } = renderer({ dev: [cluster("1.31")] });
        const { code, stdout } = await upgradeCommand(["dev", flow], { render, today: "2026-11-01" });
        expect(code).to.equal(1);
        expect(stdout.split("\n").slice(0, 5)).to.deep.equal([
            'Upgrade plan of stack "dev": Kubernetes 1.31 → 1.32',
            "BLOCKED: 1 blocker(s)",
            "",
            "Blockers:",
            "  ! FlowSchema batch uses flowcontrol.apiserver.k8s.io/v1beta3, which 1.32 no longer serves: move it to flowcontrol.apiserver.k8s.io/v1 first",
        ]);
    });

    it("refuses manifests the API server would refuse, each with its file and line, before any plan (bad input: exit 2)", async () => {
        const deployment = (name: string, replicas: number) =>
            [
                "apiVersion: apps/v1",
                "kind: Deployment",
                "metadata:",
                `  name: ${name}`,
                "  namespace: team",
                "spec:",
                `  replicas: ${replicas}`,
                "  selector: { matchLabels: { app: web } }",
                "  template:",
                "    metadata: { labels: { app: web } }",
                "    spec: { containers: [{ name: web, image: nginx:1.27 }] }",
                "",
            ].join("\n");
        const a = manifest("a.yaml", deployment("web", -5));
        const b = manifest("b.yaml", deployment("api", -1));
        const ok = manifest("ok.yaml", deployment("fine", 2));
        const err = await refusal(["dev", a, ok, b]);
        expect(err).to.be.instanceOf(InputError);
        const lines = err.message.split("\n");
        expect(lines).to.have.length(2);
        expect(lines[0]).to.match(
            /a\.yaml:7: Deployment team\/web would be refused by the API server: spec\.replicas: Invalid value: -5: must be greater than or equal to 0/,
        );
        expect(lines[1]).to.match(
            /b\.yaml:7: Deployment team\/api would be refused by the API server: spec\.replicas: Invalid value: -1: /,
        );
    });

    it("refuses a stack without an EKS cluster, and a target other than the next minor (EKS UpdateClusterVersion: one minor at a time), hinting at 1.N for one it cannot read", async () => {
        expect((await refusal(["empty"])).message).to.equal('stack "empty" has no EKS cluster to upgrade');
        expect((await refusal(["dev", "--to", "1.36"])).message).to.equal(
            "--to 1.36: EKS upgrades a control plane one minor at a time; the next step from 1.34 is 1.35",
        );
        expect((await refusal(["dev", "--to", "1.34"])).message).to.equal(
            "--to 1.34: EKS upgrades a control plane one minor at a time; the next step from 1.34 is 1.35",
        );
        expect((await refusal(["dev", "--to", "35"])).message).to.equal(
            "--to 35: EKS upgrades a control plane one minor at a time; the next step from 1.34 is 1.35 (write the target as 1.N)",
        );
    });

    it("answers a missing stack and --help with the usage, and an unknown option with its name and the usage", async () => {
        const missing = await refusal([]);
        expect(missing).to.be.instanceOf(InputError);
        expect(missing.message).to.equal(USAGE);
        const help = await refusal(["--help"]);
        expect(help).to.not.be.instanceOf(InputError);
        expect(help.message).to.equal(USAGE);
        expect((await refusal(["dev", "--bogus"])).message)
            .to.match(/^Unknown option '--bogus'\n/)
            .and.include(USAGE);
    });

    it("reads the support calendar on the day it runs when no day is given", async () => {
        // The calendar's newest minor: in standard support for a while yet, or past it (then the note says so).
        const newest = [...EKS_RELEASE_CALENDAR].sort((a, b) => a.endOfStandardSupport.localeCompare(b.endOfStandardSupport)).pop()!;
        const { render } = renderer({ dev: [cluster(newest.minor)] });
        const days = [new Date().toISOString().slice(0, 10)];
        const { stdout } = await upgradeCommand(["dev"], { render });
        days.push(new Date().toISOString().slice(0, 10));
        const notes = days.map((today) => {
            if (today >= newest.endOfStandardSupport) {
                return `${newest.minor} left standard support on ${newest.endOfStandardSupport}:`;
            }
            const n = Math.round((Date.parse(newest.endOfStandardSupport) - Date.parse(today)) / 86_400_000);
            return `${newest.minor} is in standard support until ${newest.endOfStandardSupport} (${n} day${n === 1 ? "" : "s"} from ${today})`;
        });
        expect(
            notes.some((note) => stdout.includes(note)),
            stdout,
        ).to.equal(true);
    });
});

describe("tools/changes/upgrade.ts: waves the reports and budgets name", () => {
    it("titles an unpinned managed group's wave without a minor (its nodes' minor is unknown offline)", () => {
        const unpinned = r("aws:eks/nodeGroup:NodeGroup", "general", { nodeGroupName: "general" });
        const titles = plan([cluster("1.34"), unpinned], "1.35").steps.map((s) => s.title);
        expect(titles).to.include("Wave: managed node group general");
        expect(titles.filter((t) => t.includes("(1."))).to.deep.equal([]);
    });

    it("gives a NodePool's wave the report of its own URN even when a node group of the same name is reported first", () => {
        const pool = poolOn("general", [{ nodes: "20%" }, { nodes: "1", reasons: ["Drifted"] }]);
        const ng = r("aws:eks/nodeGroup:NodeGroup", "ng", { nodeGroupName: "general", releaseVersion: "1.34.7-20260512" });
        const reports = [
            { ...report("general", "ok"), urn: ng.urn },
            { ...report("general", "blocked"), urn: pool.urn, kind: "nodePool" },
        ] as GroupReport[];
        const p = plan([cluster("1.34"), aliasClass(), pool, ng], "1.35", reports);
        const wave = p.steps.find((s) => s.title === "Wave: NodePool general");
        expect(wave?.verdict).to.equal("blocked");
        // Each of the pool's budgets, as written, paces its drift.
        expect(wave?.details[0]).to.equal("remove the drift hold: Karpenter replaces every node under the pool's budgets (20%, 1)");
        expect(p.steps.find((s) => s.title.startsWith("Wave: managed node group general"))?.verdict).to.equal("ok");
    });
});
