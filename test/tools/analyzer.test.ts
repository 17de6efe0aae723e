import { expect } from "chai";
import * as path from "path";
import { PolicyPackProcess } from "../../tools/analyzer";
import { GateInputError } from "../../tools/errors";
import { ROOT } from "../mocks";

describe("gate: a pack that cannot start", function () {
    this.timeout(60_000);
    it("is bad input naming the directory", async () => {
        const err = await PolicyPackProcess.start(path.join(ROOT, "test"), { stack: "dev", project: "x" }).then(
            (p) => {
                p.close();
                return undefined;
            },
            (e: Error) => e,
        );
        expect(err).to.be.instanceOf(GateInputError);
        expect(err?.message).to.include("not a policy pack (no PulumiPolicy.yaml)");
    });
});
