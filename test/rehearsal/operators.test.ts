/**
 * Operator-made pods and budgets, judged as the operator makes them: CloudNativePG v1.30.0
 * (pkg/specs/poddisruptionbudget.go, internal/controller/cluster_create.go
 * reconcilePodDisruptionBudget, internal/controller/replicas.go switchover on drain).
 */
import { expect } from "chai";
import type { Rehearsal } from "eks-platform-rehearsal";
import { changed, TestResource } from "../policies/harness";
import { app, managed, run } from "./scenario";

function cluster(spec: Record<string, unknown>): TestResource {
    return {
        type: "kubernetes:postgresql.cnpg.io/v1:Cluster",
        name: "prod-pg",
        props: {
            apiVersion: "postgresql.cnpg.io/v1",
            kind: "Cluster",
            metadata: { name: "pg", namespace: "prod" },
            spec: { storage: { size: "10Gi" }, resources: { requests: { cpu: "500m", memory: "1Gi" } }, stopDelay: 300, ...spec },
        },
    };
}

const problems = (r: Rehearsal) => r.problems.map((p) => p.message).join("\n");

describe("drain rehearsal: operator-made workloads (CloudNativePG Cluster)", () => {
    it("one instance: the operator's <name>-primary budget (minAvailable 1) blocks the drain for good, naming the Cluster", () => {
        const r = run([managed("apps", 3), cluster({ instances: 1 })]);
        expect(r.verdict).to.equal("blocked");
        expect(problems(r)).to.match(
            /PodDisruptionBudget prod\/pg-primary blocks the eviction of pg-0 \(Cluster prod\/pg \(CloudNativePG\)\) .* for good/,
        );
        // instances defaults to 1 (api/v1/cluster_types.go: +kubebuilder:default:=1).
        expect(problems(run([managed("apps", 3), cluster({})]))).to.match(/PodDisruptionBudget prod\/pg-primary blocks the eviction/);
    });

    it("two or more instances: the operator switches the primary over on drain, so instances leave one at a time and the rollout passes", () => {
        for (const instances of [2, 3]) {
            const r = run([managed("apps", 3), cluster({ instances })]);
            expect(problems(r), `instances ${instances}`).to.equal("");
            expect(r.verdict, `instances ${instances}`).to.equal("ok");
        }
    });

    it("enablePDB: false makes no budget: the single instance is evicted and Service pg-rw is left with no endpoint (requests dropped)", () => {
        const r = run([managed("apps", 3), cluster({ instances: 1, enablePDB: false })]);
        expect(problems(r)).to.not.match(/pg-primary/);
        expect(r.notModelled).to.include("Cluster prod/pg (CloudNativePG): enablePDB is false, so the operator makes no budget");
        expect(problems(r)).to.match(
            /Cluster prod\/pg \(CloudNativePG\) reaches zero ready replicas .*Service prod\/pg-rw has no ready endpoint left/,
        );
    });

    it("a node maintenance window (inProgress, reusePVC default true) removes the single instance's budget; reusePVC false keeps it", () => {
        const open = run([managed("apps", 3), cluster({ instances: 1, nodeMaintenanceWindow: { inProgress: true } })]);
        expect(problems(open)).to.not.match(/pg-primary/);
        const keep = run([managed("apps", 3), cluster({ instances: 1, nodeMaintenanceWindow: { inProgress: true, reusePVC: false } })]);
        expect(problems(keep)).to.match(/PodDisruptionBudget prod\/pg-primary blocks the eviction/);
    });

    it("the instances take spec.stopDelay as their grace period (default 1800 s, GetMaxStopDelay): past EKS's 15 minutes", () => {
        const slow = cluster({ instances: 3 });
        delete (slow.props.spec as Record<string, unknown>).stopDelay;
        expect(problems(run([managed("apps", 3), slow]))).to.match(
            /Cluster prod\/pg \(CloudNativePG\) is the cause: .*takes its 30m grace period/,
        );
    });

    it("required anti-affinity keeps instances on separate nodes: three instances on two nodes cannot all run", () => {
        const r = run([managed("apps", 2), cluster({ instances: 3, affinity: { podAntiAffinityType: "required" } })]);
        expect(problems(r)).to.match(/Cluster prod\/pg \(CloudNativePG\)/);
        expect(problems(run([managed("apps", 2), cluster({ instances: 3 })]))).to.equal("");
    });

    it("the instances request spec.resources: three of 3000m fit on no m6i.large (1930m allocatable), named on the Cluster", () => {
        const r = run([managed("apps", 3), cluster({ instances: 3, resources: { requests: { cpu: "3000m", memory: "1Gi" } } })]);
        expect(problems(r)).to.match(
            /Pod pg-0 of Cluster prod\/pg \(CloudNativePG\) fits on no node of the stack, before any rollout: .*insufficient cpu/,
        );
    });

    it("affinity.nodeSelector and affinity.tolerations place the instances (pods.go CreateAffinitySection, the pod's tolerations)", () => {
        const tainted = changed(managed("db", 3), "taints", [{ key: "dedicated", value: "db", effect: "NO_SCHEDULE" }]);
        const tolerating = cluster({
            instances: 3,
            affinity: { tolerations: [{ key: "dedicated", operator: "Equal", value: "db", effect: "NoSchedule" }] },
        });
        expect(problems(run([tainted, tolerating]))).to.equal("");
        expect(problems(run([tainted, cluster({ instances: 3 })]))).to.match(
            /Pod pg-0 of Cluster prod\/pg \(CloudNativePG\) fits on no node/,
        );
        const selected = cluster({ instances: 3, affinity: { nodeSelector: { "node-role": "db" } } });
        expect(problems(run([managed("apps", 3), selected]))).to.match(/Pod pg-0 of Cluster prod\/pg \(CloudNativePG\) fits on no node/);
    });

    it("required anti-affinity only while enablePodAntiAffinity is not false, on affinity.topologyKey when given", () => {
        const required = { podAntiAffinityType: "required" };
        expect(
            problems(run([managed("apps", 2), cluster({ instances: 3, affinity: { ...required, enablePodAntiAffinity: false } })])),
        ).to.equal("");
        // One zone, three instances required apart by zone: two cannot run.
        const zonal = cluster({ instances: 3, affinity: { ...required, topologyKey: "topology.kubernetes.io/zone" } });
        expect(problems(run([managed("apps", 3, { zones: 1 }), zonal]))).to.match(
            /Pod pg-\d of Cluster prod\/pg \(CloudNativePG\) fits on no node/,
        );
        expect(problems(run([managed("apps", 3, { zones: 1 }), cluster({ instances: 3, affinity: required })]))).to.equal("");
    });

    it("the instances carry spec.inheritedMetadata.labels: a budget of the team's selecting them too leaves each under two budgets (the eviction API refuses such pods)", () => {
        const team = {
            type: "kubernetes:policy/v1:PodDisruptionBudget",
            name: "prod-team-pdb",
            props: {
                apiVersion: "policy/v1",
                kind: "PodDisruptionBudget",
                metadata: { name: "team", namespace: "prod" },
                spec: { maxUnavailable: 1, selector: { matchLabels: { team: "db" } } },
            },
        };
        const r = run([managed("apps", 3), cluster({ instances: 3, inheritedMetadata: { labels: { team: "db" } } }), team]);
        expect(problems(r)).to.match(/prod\/pg-primary and prod\/team|prod\/team and prod\/pg-primary/);
        expect(problems(run([managed("apps", 3), cluster({ instances: 3 }), team]))).to.equal("");
    });
    it("from two instances the operator switches the primary over, one instance at a time: three instances drained together leave one by one (replicas.go)", () => {
        // One node per instance (least allocated), all three drained in one wave (maxUnavailable 3). stopDelay 10:
        // each instance is recreated 10 s after its eviction and Ready 30 s later, and only then may the next go.
        const r = run([managed("apps", 3, { update: { maxUnavailable: 3 } }), cluster({ instances: 3, stopDelay: 10 })]);
        expect(r.groups[0].waits.map((w) => [w.pod, w.pdb, w.seconds])).to.deep.equal([
            ["pg-1", "prod/pg-primary", 40],
            ["pg-2", "prod/pg-primary", 80],
        ]);
    });

    it("the operator's budget selects the Cluster's own pods only (cnpg.io/cluster): a Deployment beside it is evicted freely", () => {
        const r = run([managed("apps", 3), cluster({ instances: 1 }), app("web", { replicas: 1 })]);
        expect(r.groups[0].blocked.map((b) => b.pod)).to.deep.equal(["pg-0"]);
        expect(r.groups[0].waits.filter((w) => w.workload === "Deployment prod/web")).to.deep.equal([]);
    });

    it("each instance keeps its PVC, a zonal EBS volume: its replacement waits for a node in its zone (the volume's node affinity)", () => {
        // Two nodes in two zones, MINIMAL: pg-0 on apps-1 (zone-a) cannot move to apps-2 (zone-b); no budget in a maintenance window.
        const r = run([
            managed("apps", 2, { zones: 2, update: { maxUnavailable: 1, updateStrategy: "MINIMAL" } }),
            cluster({ instances: 1, nodeMaintenanceWindow: { inProgress: true } }),
        ]);
        expect(r.groups[0].unplaced.map((u) => [u.pod, u.reasons])).to.deep.equal([
            ["pg-1", "0/2 nodes are available: 1 cordoned, 1 volume in another zone (zone-a)"],
        ]);
    });
});
