/**
 * The problems behind a blocked verdict (rehearsal/report.ts `problemsOf`), one rule at a time, on
 * hand-built group reports (./reportScenario.ts): which resource each problem is on, its
 * namespace, and what its what, why and fix say for each cause. Expected times are the chosen
 * seconds in `formatSeconds` units (120 → 2m, 400 → 6m 40s).
 */
import { expect } from "chai";
import { GroupReport, problemsOf } from "eks-platform-rehearsal";
import { EKS_LIMIT, group, split, SPOT, wave } from "./reportScenario";

const prod = (workload: string) => (workload.includes(" prod/") ? "prod" : undefined);
const problems = (g: GroupReport[], namespaceOf = prod) => problemsOf(g, [], namespaceOf);

describe("drain rehearsal problems: before any rollout", () => {
    const big = {
        pod: "big-1",
        workload: "Deployment prod/big",
        workloadUrn: "urn:big",
        reasons: "0/3 nodes are available: 3 insufficient cpu",
    };

    it("a pod that fits nowhere is a capacity problem on its workload, in its namespace, under no group", () => {
        const [p, ...rest] = problemsOf([], [big], prod);
        expect(rest).to.deep.equal([]);
        expect(p).to.deep.include({ urn: "urn:big", capacity: true, namespace: "prod" });
        expect(p).not.to.have.any.keys("group", "groupUrn", "advisory");
        const { what, why, fix } = split(p.message);
        expect(what).to.equal(`Pod big-1 of Deployment prod/big fits on no node of the stack, before any rollout: ${big.reasons}.`);
        expect(why).to.match(/^it stays Pending, so the workload runs short of replicas, and every drain has less room\.$/);
        expect(fix).to.match(/^lower its requests, .*or add capacity \(node group size, NodePool limits\)\.$/);
    });

    it("a workload whose namespace is not known gets no namespace field, not an empty one", () => {
        const [p] = problemsOf([], [{ ...big, workload: "Deployment other/big" }], prod);
        expect(p).not.to.have.property("namespace");
    });
});

describe("drain rehearsal problems: a blocked eviction", () => {
    // Waves of 2m and 15m: wave 2 spans 2m–17m of the rollout.
    const blocked = (kind: GroupReport["kind"], over: Partial<GroupReport["blocked"][number]> = {}) =>
        group({
            kind,
            name: "g",
            verdict: "blocked",
            waves: [wave(120, { phase: "scale-up" }), wave(900)],
            blocked: [
                {
                    pod: "web-0",
                    node: "g-1",
                    workload: "Deployment prod/web",
                    workloadUrn: "urn:web",
                    pdb: "prod/web",
                    pdbUrn: "urn:pdb",
                    wave: 2,
                    why: "minAvailable: 3 of 3",
                    ...over,
                },
            ],
        });

    it("names the budget, the pod, its node and group, and the wave on the rollout's clock; it is on the budget", () => {
        const [p] = problems([blocked("managed")]);
        expect(p).to.deep.include({ group: "g", groupUrn: "urn:group:apps", urn: "urn:pdb", namespace: "prod" });
        expect(p).not.to.have.property("capacity");
        expect(split(p.message).what).to.equal(
            "PodDisruptionBudget prod/web blocks the eviction of web-0 (Deployment prod/web) from node g-1 of managed node group g, for good, in wave 2 (2m–17m into the rollout): minAvailable: 3 of 3.",
        );
        expect(split(p.message).fix).to.match(/^let the budget allow one disruption \(maxUnavailable: 1, or minAvailable below/);
    });

    it("is on the workload when the budget has no URN, and names a wave past the last by its number alone", () => {
        const [p] = problems([blocked("managed", { pdbUrn: undefined, wave: 3 })]);
        expect(p.urn).to.equal("urn:web");
        expect(split(p.message).what).to.match(/, for good, in wave 3: minAvailable/);
    });

    it("says what each rollout does about it: EKS fails the update, the heartbeat runs out, Karpenter waits for its terminationGracePeriod", () => {
        const why = (kind: GroupReport["kind"]) => split(problems([blocked(kind)])[0].message);
        expect(why("managed").why).to.match(/^EKS gives up after 15 minutes with PodEvictionFailure and the node group update fails\.$/);
        expect(why("selfManaged").what).to.include(" of self-managed node group g,");
        expect(why("selfManaged").why).to.match(
            /^the lifecycle hook's heartbeat runs out and the instance is terminated with the pod still on it\.$/,
        );
        expect(why("nodePool").what).to.include(" of NodePool g,");
        expect(why("nodePool").why).to.match(
            /^Karpenter cannot finish the node's drain until its terminationGracePeriod \(if any\) deletes the pod/,
        );
    });
});

describe("drain rehearsal problems: an evicted pod with nowhere to run", () => {
    const unplaced = (placedAfterSeconds?: number) =>
        group({
            unplaced: [
                {
                    pod: "big-0",
                    workload: "Deployment prod/big",
                    workloadUrn: "urn:big",
                    wave: 1,
                    reasons: "1 insufficient cpu",
                    ...(placedAfterSeconds === undefined ? {} : { placedAfterSeconds }),
                },
            ],
        });

    it("says how long it waits for a node launched later, or that nothing makes room; a capacity problem on its workload", () => {
        const [later] = problems([unplaced(240)]);
        expect(later).to.deep.include({ urn: "urn:big", capacity: true, group: "apps", namespace: "prod" });
        const { what, why, fix } = split(later.message);
        expect(what).to.equal(
            "Evicted pod big-0 of Deployment prod/big has nowhere to run during the rollout of managed node group apps (wave 1): 1 insufficient cpu; it waits 4m for a node launched later.",
        );
        expect(why).to.match(/^the workload runs short of replicas while it is Pending, and a budget that counts it blocks/);
        expect(fix).to.match(/^leave spare room for a wave .*let a NodePool the pod can use provision for it\.$/);
        expect(split(problems([unplaced()])[0].message).what).to.match(/: 1 insufficient cpu; no later step makes room\.$/);
        // Placed at once after a later step: still a wait, of 0s.
        expect(split(problems([unplaced(0)])[0].message).what).to.match(/; it waits 0s for a node launched later\.$/);
    });
});

describe("drain rehearsal problems: a workload at zero ready replicas", () => {
    const zero = (services: string[]) =>
        problems([
            group({
                zeroReady: [
                    { workload: "Deployment prod/solo", workloadUrn: "urn:solo", wave: 2, cause: "its only replica is evicted", services },
                ],
            }),
        ]);

    it("behind Services, drops requests: one Service has no endpoint, two have none", () => {
        const [one] = zero(["Service prod/solo"]);
        expect(one).not.to.have.property("advisory");
        expect(one).to.deep.include({ urn: "urn:solo", namespace: "prod" });
        const { what, why, fix } = split(one.message);
        expect(what).to.equal(
            "Deployment prod/solo reaches zero ready replicas during the rollout of managed node group apps (wave 2): its only replica is evicted; Service prod/solo has no ready endpoint left.",
        );
        expect(why).to.equal("until a replacement is Ready nothing serves it: a node leaving the cluster would drop requests.");
        expect(fix).to.match(/^run at least two replicas spread across nodes .*maxUnavailable: 1\.$/);
        expect(split(zero(["Service prod/a", "Service prod/b"])[0].message).what).to.match(
            /: its only replica is evicted; Service prod\/a, Service prod\/b have no ready endpoint left\.$/,
        );
    });

    it("behind no Service, is an advisory: its work pauses, no request is dropped", () => {
        const [p] = zero([]);
        expect(p).to.deep.include({ advisory: true, urn: "urn:solo", group: "apps" });
        const { what, why, fix } = split(p.message);
        expect(what).to.match(/\(wave 2\): its only replica is evicted\.$/);
        expect(why).to.match(/^no Service sends it requests, so none is dropped, but its work .* pauses until a replacement is Ready\.$/);
        expect(fix).to.match(/annotate it platform\/singleton: "<reason>" to accept it\.$/);
    });
});

describe("drain rehearsal problems: a pod cut short", () => {
    const heartbeat = { seconds: 120, source: "heartbeat of lifecycle hook h" };
    const pool = { seconds: 600, source: "terminationGracePeriod of NodePool general" };
    const killed = (kind: GroupReport["kind"], windows: GroupReport["windows"], over: Partial<GroupReport["killed"][number]> = {}) => {
        const [p] = problems([
            group({
                kind,
                name: "g",
                windows,
                killed: [
                    {
                        pod: "w-0",
                        workload: "Deployment prod/w",
                        workloadUrn: "urn:w",
                        wave: 1,
                        graceSeconds: 60,
                        how: "terminated at the window",
                        ...over,
                    },
                ],
            }),
        ]);
        return { p, ...split(p.message) };
    };

    it("says what is cut short and that its work is lost, on the workload", () => {
        const { p, what, why } = killed("selfManaged", [heartbeat]);
        expect(p).to.deep.include({ urn: "urn:w", namespace: "prod", group: "g" });
        expect(what).to.equal(
            "Pod w-0 of Deployment prod/w is cut short during the rollout of self-managed node group g (wave 1): terminated at the window.",
        );
        expect(why).to.equal("its in-flight work is lost: a node leaving the cluster would drop requests.");
    });

    it("a self-managed group without a termination hook: the fix is a hook and the Node Termination Handler", () => {
        expect(killed("selfManaged", []).fix).to.match(
            /^add an EC2_INSTANCE_TERMINATING lifecycle hook to the group .*Node Termination Handler/,
        );
        // The Spot notice is no drain window: still no hook.
        expect(killed("selfManaged", [SPOT]).fix).to.match(/^add an EC2_INSTANCE_TERMINATING lifecycle hook/);
    });

    it("a grace period longer than the window: shorten it, or lengthen the window the group has", () => {
        expect(killed("selfManaged", [SPOT, heartbeat], { graceSeconds: 300 }).fix).to.equal(
            "shorten the grace period of Deployment prod/w (terminationGracePeriodSeconds 5m, its preStop hook included) to well within the 2m heartbeat of lifecycle hook h, or raise the lifecycle hook's heartbeatTimeout.",
        );
        expect(killed("nodePool", [pool], { graceSeconds: 660 }).fix).to.match(
            /^shorten the grace period of Deployment prod\/w \(terminationGracePeriodSeconds 11m, .*\) to well within the 10m terminationGracePeriod of NodePool general, or raise the NodePool's terminationGracePeriod\.$/,
        );
    });

    it("a grace period that fits the window, late because a budget held it: the fix is the budget", () => {
        // 2m grace in a 2m heartbeat: fits only if evicted at once, so the budget made it late.
        expect(killed("selfManaged", [heartbeat], { graceSeconds: 120, pdb: "prod/w" }).fix).to.equal(
            "let PodDisruptionBudget prod/w allow more disruptions at once, so the pods of Deployment prod/w are evicted early enough for their 2m grace period, or raise the lifecycle hook's heartbeatTimeout.",
        );
    });

    it("neither: make the drain fit the window, named when there is one", () => {
        expect(killed("nodePool", [pool]).fix).to.equal(
            "make the drain fit the 10m terminationGracePeriod of NodePool general: budgets that let evictions proceed, a grace period for Deployment prod/w shorter than 1m, or raise the NodePool's terminationGracePeriod.",
        );
        expect(killed("nodePool", [SPOT], { graceSeconds: 300 }).fix).to.match(
            /^make the drain fit the window: .* shorter than 5m, or raise the NodePool's/,
        );
    });
});

describe("drain rehearsal problems: a pod Karpenter deletes", () => {
    const pool = { seconds: 600, source: "terminationGracePeriod of NodePool general" };
    const deleted = (windows: GroupReport["windows"], over: Partial<GroupReport["deleted"][number]> = {}) => {
        const [p] = problems([
            group({
                kind: "nodePool",
                name: "general",
                windows,
                deleted: [
                    {
                        pod: "web-0",
                        workload: "Deployment prod/web",
                        workloadUrn: "urn:web",
                        node: "general-1",
                        wave: 1,
                        graceSeconds: 60,
                        pdb: "prod/web",
                        pdbUrn: "urn:pdb",
                        at: 540,
                        ...over,
                    },
                ],
            }),
        ]);
        return { p, ...split(p.message) };
    };

    it("past its budget: names the budget, when and why the grace period still fits; on the budget", () => {
        const { p, what, why, fix } = deleted([SPOT, pool]);
        expect(p).to.deep.include({ urn: "urn:pdb", namespace: "prod" });
        expect(what).to.equal(
            "PodDisruptionBudget prod/web still holds pod web-0 of Deployment prod/web on node general-1 of NodePool general 9m into the drain (wave 1): Karpenter deletes it past the budget, in time for its 1m grace period to end by the 10m terminationGracePeriod of NodePool general.",
        );
        expect(why).to.match(/^the pod shuts down cleanly, but the budget is overridden: /);
        expect(fix).to.match(/^let the budget allow one disruption .* so the drain ends within the terminationGracePeriod, and give/);
    });

    it("without a budget's name or a window: says a budget and the terminationGracePeriod; on the workload", () => {
        const { p, what } = deleted([], { pdb: undefined, pdbUrn: undefined });
        expect(p.urn).to.equal("urn:web");
        expect(what).to.match(/^A budget still holds pod web-0 .* grace period to end by the terminationGracePeriod\.$/);
    });

    it("held by karpenter.sh/do-not-disrupt: names the annotation, not a budget", () => {
        const { what, why, fix } = deleted([pool], { doNotDisrupt: true, pdb: undefined, pdbUrn: undefined, at: 300, graceSeconds: 30 });
        expect(what).to.equal(
            "Pod web-0 of Deployment prod/web is annotated karpenter.sh/do-not-disrupt, so Karpenter never evicts it from node general-1 of NodePool general: it holds the node 5m into the drain (wave 1), then Karpenter deletes it so that its 30s grace period ends by the 10m terminationGracePeriod of NodePool general.",
        );
        expect(why).to.match(/^the annotation does not protect the pod from drift: it only delays the deletion/);
        expect(fix).to.match(/^let drift happen when the work allows .*a pool whose drift you start by hand\.$/);
        expect(deleted([], { doNotDisrupt: true }).what).to.match(/grace period ends by the terminationGracePeriod\.$/);
    });
});

describe("drain rehearsal problems: drains past the Spot interruption notice", () => {
    // Waves of 10m each: wave n spans (n − 1)·10m–n·10m of the rollout.
    const slowest = (workload: string, over: Partial<NonNullable<GroupReport["waves"][number]["slowest"]>> = {}) => ({
        pod: `${workload.split("/")[1]}-0`,
        workload,
        workloadUrn: `urn:${workload}`,
        node: "spot-1",
        left: "evicted" as const,
        at: 0,
        graceSeconds: 30,
        ...over,
    });
    const spotGroup = (windows: GroupReport["windows"]) =>
        group({
            kind: "nodePool",
            name: "spot",
            windows,
            waves: [
                wave(600, { drainSeconds: 300, slowest: slowest("Deployment prod/a", { graceSeconds: 300 }) }),
                wave(600, { drainSeconds: 400, slowest: slowest("Deployment prod/a", { graceSeconds: 300, at: 100 }) }),
                wave(600, { drainSeconds: 120, slowest: slowest("Deployment prod/b") }),
                wave(600, { drainSeconds: 200, slowest: slowest("Deployment prod/b", { pdb: "prod/b", at: 170 }) }),
                wave(600, { drainSeconds: 200 }),
                wave(600, { drainSeconds: 150, slowest: slowest("Deployment other/c", { workloadUrn: undefined, at: 120 }) }),
                wave(600, { drainSeconds: 200, slowest: slowest("Deployment prod/d", { at: 170, graceSeconds: 120 }) }),
                // e drains exactly as long as the notice, never past it.
                wave(600, { drainSeconds: 120, slowest: slowest("Deployment prod/e") }),
                wave(600, { drainSeconds: 200, slowest: slowest("Deployment prod/d", { at: 100, graceSeconds: 100 }) }),
            ],
        });

    it("none without a Spot notice among the windows, however long the drains", () => {
        expect(problems([spotGroup([{ seconds: 60, source: "terminationGracePeriod of NodePool spot" }])])).to.deep.equal([]);
    });

    it("one per workload, at its longest drain past the notice (the first of equal ones), in the order the workloads first ran over", () => {
        const ps = problems([spotGroup([{ seconds: 900, source: "terminationGracePeriod of NodePool spot" }, SPOT])]);
        // a: waves 1 and 2, the longer 2; b: 3 is at the notice, not past it, so 4; a drain with no pod named: 5; c: 6; d: 7 and 8 tie, 7; e: none.
        expect(ps.map((p) => split(p.message).what.match(/ in wave (\d+) /)?.[1])).to.deep.equal(["2", "4", "5", "6", "7"]);
        const [a, b, none, c] = ps;
        expect(split(a.message).what).to.equal(
            "Deployment prod/a keeps node spot-1 of NodePool spot draining for 6m 40s in wave 2 (10m–20m into the rollout), longer than the 2m Spot interruption notice: its pod a-0 is evicted at 1m 40s, then takes its 5m grace period.",
        );
        expect(a).to.deep.include({ urn: "urn:Deployment prod/a", namespace: "prod", group: "spot" });
        expect(split(a.message).why).to.equal(
            "on an interruption EC2 reclaims the instance before its pods have left: a node leaving the cluster would drop requests.",
        );
        expect(split(b.message).what).to.match(
            /draining for 3m 20s in wave 4 \(30m–40m into the rollout\), .*: its pod b-0 is held by PodDisruptionBudget prod\/b until it is evicted at 2m 50s, then takes its 30s grace period\.$/,
        );
        expect(split(none.message).what).to.equal(
            "A node of NodePool spot takes 3m 20s to drain in wave 5 (40m–50m into the rollout), longer than the 2m Spot interruption notice.",
        );
        expect(none.urn).to.equal("urn:group:apps");
        expect(none).not.to.have.property("namespace");
        expect(split(none.message).fix).to.match(
            /^shorten grace periods and budget waits on Spot capacity, or run such workloads on on-demand/,
        );
        // A workload without a URN: the problem is on the group; its namespace is not prod.
        expect(c.urn).to.equal("urn:group:apps");
        expect(c).not.to.have.property("namespace");
    });

    it("the fix is the grace period when it alone is past the notice, else the budget that held the pod, else the pod's departure", () => {
        const fixes = problems([spotGroup([SPOT])]).map((p) => split(p.message).fix);
        const offSpot = ", or keep it off Spot capacity (node affinity karpenter.sh/capacity-type NotIn spot, or an on-demand group).";
        expect(fixes[0]).to.equal(
            `shorten the grace period of Deployment prod/a (terminationGracePeriodSeconds 5m, its preStop hook included) to fit the 2m notice${offSpot}`,
        );
        expect(fixes[1]).to.equal(
            `let PodDisruptionBudget prod/b allow more disruptions at once so the pods of Deployment prod/b leave within the 2m notice${offSpot}`,
        );
        expect(fixes[3]).to.equal(`make the pods of Deployment other/c leave within the 2m notice${offSpot}`);
        // d's 2m grace period (wave 7) is as long as the notice, not past it: not the grace-period fix.
        expect(fixes[4]).to.equal(`make the pods of Deployment prod/d leave within the 2m notice${offSpot}`);
    });
});

describe("drain rehearsal problems: a stalled rollout", () => {
    const evicted = (drainSeconds: number, over: Partial<GroupReport> = {}) =>
        group({
            verdict: "blocked",
            stalled: "the drain of apps-1 does not end within 15m",
            estimatedSeconds: 120 + drainSeconds,
            windows: [EKS_LIMIT],
            waves: [
                wave(120, { phase: "scale-up" }),
                wave(drainSeconds, {
                    drained: ["apps-1"],
                    drainSeconds,
                    slowest: {
                        pod: "slow-0",
                        workload: "Deployment prod/slow",
                        workloadUrn: "urn:slow",
                        node: "apps-1",
                        left: "evicted",
                        at: 0,
                        graceSeconds: 1020,
                    },
                }),
            ],
            ...over,
        });

    it("a managed group whose pod was evicted but shuts down past EKS's 15 minutes: the cause is its grace period; on the workload, first", () => {
        const ps = problems([evicted(1020)]);
        const [p] = ps;
        expect(p).to.deep.include({ urn: "urn:slow", group: "apps", groupUrn: "urn:group:apps" });
        // A stall is about the group, not one workload's namespace.
        expect(p).not.to.have.property("namespace");
        const { what, why, fix } = split(p.message);
        expect(what).to.equal(
            "The rollout of managed node group apps stalls 19m after it starts: the drain of apps-1 does not end within 15m. Deployment prod/slow is the cause: on node apps-1, its pod slow-0 is evicted at 0s, then takes its 17m grace period, so it terminates 17m into the drain, past EKS's 15m limit.",
        );
        expect(why).to.equal("the update fails part-way, leaving old and new nodes side by side until someone intervenes.");
        expect(fix).to.match(
            /^shorten the grace period of Deployment prod\/slow \(terminationGracePeriodSeconds 17m, its preStop hook included\) so its pods are gone within 15m of their eviction, or run it on a self-managed group or NodePool .*; then retry the update\.$/,
        );
        const anonymous = evicted(1020);
        delete anonymous.waves[1].slowest!.workloadUrn;
        expect(problems([anonymous])[0].urn).to.equal("urn:group:apps");
    });

    it("not the grace period when the drain is within 15 minutes, the pod was held, or the group is not managed", () => {
        const notCause = (g: GroupReport) => expect(problems([g])[0].message).not.to.match(/is the cause/);
        notCause(evicted(900));
        notCause(evicted(1020, { kind: "selfManaged" }));
        const held = evicted(1020);
        held.waves[1].slowest = { ...held.waves[1].slowest!, left: "held" };
        notCause(held);
    });

    it("held by budgets: names each once, singular or plural, with the workloads; on the first budget, else the group", () => {
        const b = (pdb: string, workload: string, pdbUrn?: string) => ({
            pod: "p",
            node: "apps-1",
            workload,
            pdb,
            wave: 2,
            why: "never",
            ...(pdbUrn ? { pdbUrn } : {}),
        });
        const stalled = (blocked: GroupReport["blocked"], over: Partial<GroupReport> = {}) =>
            group({ verdict: "blocked", stalled: "apps-1 never drains", estimatedSeconds: 1020, blocked, ...over });
        const one = problems([stalled([b("prod/web", "Deployment prod/web", "urn:pdb"), b("prod/web", "Deployment prod/web", "urn:pdb")])]);
        expect(one).to.have.length(3);
        expect(one[0].urn).to.equal("urn:pdb");
        expect(split(one[0].message).what).to.equal(
            "The rollout of managed node group apps stalls 17m after it starts: apps-1 never drains; PodDisruptionBudget prod/web holds Deployment prod/web.",
        );
        expect(split(one[0].message).fix).to.equal(
            "let PodDisruptionBudget prod/web allow a disruption and make sure evicted pods fit elsewhere; then retry the update.",
        );
        const two = problems([
            stalled([b("prod/a", "Deployment prod/a"), b("prod/b", "Deployment prod/b", "urn:b"), b("prod/a", "Deployment prod/a")], {
                kind: "nodePool",
            }),
        ]);
        expect(two[0].urn).to.equal("urn:group:apps");
        expect(split(two[0].message).what).to.match(
            /: apps-1 never drains; PodDisruptionBudgets prod\/a and prod\/b hold Deployment prod\/a and Deployment prod\/b\.$/,
        );
        expect(split(two[0].message).fix).to.equal(
            "let PodDisruptionBudgets prod/a and prod/b allow a disruption and make sure evicted pods fit elsewhere, or set the NodePool's terminationGracePeriod so Karpenter deletes held pods in the end; then retry the update.",
        );
    });

    it("before its first wave, held by nothing named: the fix for the kind of group; on the group", () => {
        const stalled = (kind: GroupReport["kind"]) =>
            problems([group({ kind, verdict: "blocked", stalled: "its budgets allow 0 nodes", estimatedSeconds: 0 })])[0];
        const pool = stalled("nodePool");
        expect(pool.urn).to.equal("urn:group:apps");
        expect(split(pool.message).what).to.equal("The rollout of NodePool apps stalls before its first wave: its budgets allow 0 nodes.");
        expect(split(pool.message).fix).to.match(
            /^set the NodePool's terminationGracePeriod, let its budgets allow drift, or raise its limits/,
        );
        expect(split(stalled("managed").message).fix).to.match(
            /^let every PodDisruptionBudget allow a disruption and make sure evicted pods fit elsewhere, then retry/,
        );
        expect(split(stalled("selfManaged").message).what).to.match(
            /^The rollout of self-managed node group apps stalls before its first wave: /,
        );
    });

    it("a group that does not stall has no stall problem", () => {
        const g = evicted(1020);
        delete g.stalled;
        expect(problems([g]).map((p) => p.message)).to.deep.equal([]);
    });
});

describe("drain rehearsal problems: order", () => {
    it("pods that fit nowhere first, then each group in order: its stall, blocked evictions, pods with nowhere to run, zero ready, cut short, deleted, Spot", () => {
        const full = group({
            name: "b",
            urn: "urn:b",
            kind: "nodePool",
            stalled: "never",
            estimatedSeconds: 60,
            windows: [SPOT],
            waves: [wave(300, { drainSeconds: 300 })],
            blocked: [{ pod: "p", node: "n", workload: "W", pdb: "x", wave: 1, why: "never" }],
            unplaced: [{ pod: "p", workload: "W", wave: 1, reasons: "r" }],
            zeroReady: [{ workload: "W", wave: 1, cause: "c", services: [] }],
            killed: [{ pod: "p", workload: "W", wave: 1, graceSeconds: 1, how: "h" }],
            deleted: [{ pod: "p", workload: "W", node: "n", wave: 1, graceSeconds: 1, at: 1 }],
        });
        const first = group({ name: "a", urn: "urn:a", zeroReady: [{ workload: "W", wave: 1, cause: "c", services: ["S"] }] });
        const ps = problemsOf([first, full], [{ pod: "p", workload: "W", reasons: "r" }], () => undefined);
        // Only the pod cut short is marked so: it is true of any one node leaving (index.ts keeps it a problem under a forced expiry).
        expect(ps.filter((p) => p.cutShort).map((p) => p.message.split(":")[0])).to.deep.equal([
            "Pod p of W is cut short during the rollout of NodePool b (wave 1)",
        ]);
        expect(ps.map((p) => [p.groupUrn, p.message.split(" ").slice(0, 2).join(" ")])).to.deep.equal([
            [undefined, "Pod p"],
            ["urn:a", "W reaches"],
            ["urn:b", "The rollout"],
            ["urn:b", "PodDisruptionBudget x"],
            ["urn:b", "Evicted pod"],
            ["urn:b", "W reaches"],
            ["urn:b", "Pod p"],
            ["urn:b", "A budget"],
            ["urn:b", "A node"],
        ]);
    });
});
