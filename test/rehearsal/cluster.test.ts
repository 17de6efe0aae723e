/**
 * The simulated cluster (rehearsal/cluster.ts): each rollout's copy of the initial placement.
 */
import { expect } from "chai";
import { gpuApp, managed, run } from "./scenario";

describe("rehearsal/cluster.ts: the simulated cluster", () => {
    describe("extended resources on a rollout's copy of the cluster (kube-scheduler NodeResourcesFit: nvidia.com/gpu cannot be overcommitted)", () => {
        it("a GPU in use stays in use once the rollout starts: the evicted GPU pod waits for the replacement node", () => {
            const r = run([
                managed("gpu", 2, { zones: 1, types: ["g5.xlarge"], update: { maxUnavailable: 1, updateStrategy: "MINIMAL" } }),
                gpuApp("train", 2),
            ]);
            expect(r.groups[0].unplaced.map((u) => [u.pod, u.wave, u.reasons])).to.deep.equal([
                ["train-2", 1, "0/2 nodes are available: 1 cordoned, 1 insufficient nvidia.com/gpu"],
                ["train-3", 2, "0/2 nodes are available: 1 cordoned, 1 insufficient nvidia.com/gpu"],
            ]);
        });
    });
});
