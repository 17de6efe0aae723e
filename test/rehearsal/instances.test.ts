/**
 * Nodes from instance types (rehearsal/instances.ts).
 */
import { expect } from "chai";
import { app, managed, run } from "./scenario";

describe("rehearsal/instances.ts: nodes from instance types", () => {
    describe("instance data (rehearsal/instances.ts nodeSize: a type the data does not know has no size)", () => {
        it("a group of a name that is no EC2 instance type is unsized: capacity unknown, never a crash", () => {
            const r = run([managed("apps", 1, { zones: 1, types: ["x9.bogus"] }), app("web", { replicas: 1 })]);
            expect(r.verdict).to.not.equal("ok");
            expect(r.groups[0].nodes).to.equal(1);
        });
    });
});
