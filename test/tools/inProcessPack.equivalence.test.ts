import { strict as assert } from "assert";
import * as path from "path";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import type * as analyzerpb from "@pulumi/pulumi/proto/analyzer_pb";
import { PolicyPackProcess } from "../../tools/analyzer";
import { call, inProcessHandlers } from "../../tools/inProcessPack";
import { buildAnalyzeRequest, GateResource } from "../../tools/requests";

const PACK = path.join(__dirname, "..", "..", "policies");

function verdicts(res: analyzerpb.AnalyzeResponse): unknown {
    return {
        diagnostics: res.getDiagnosticsList().map((d) => [d.getPolicyname(), d.getEnforcementlevel(), d.getUrn(), d.getMessage()]),
        notApplicable: res.getNotApplicableList().map((n) => [n.getPolicyName(), n.getReason()]),
    };
}

describe("in-process pack handlers (tools/inProcessPack.ts)", () => {
    it("answer Analyze as the pack's own process does, unconfigured", async () => {
        const r: GateResource = {
            urn: "urn:pulumi:prod::manifests::kubernetes:apps/v1:Deployment::x",
            type: "kubernetes:apps/v1:Deployment",
            name: "x",
            props: {
                apiVersion: "apps/v1",
                kind: "Deployment",
                metadata: { name: "x", namespace: "a" },
                spec: { replicas: 1, template: { spec: { containers: [{ name: "c", image: "i" }] } } },
            },
        };
        const pack = await PolicyPackProcess.start(PACK, { stack: "prod", project: "manifests" });
        try {
            const h = inProcessHandlers(PACK);
            const info = await call<analyzerpb.AnalyzerInfo>(h.getAnalyzerInfo, new Empty());
            assert.equal(`${info.getName()}@${info.getVersion()}`, `${(await pack.info()).name}@${(await pack.info()).version}`);
            const req = buildAnalyzeRequest(r);
            (req as unknown as { getProperties(): unknown }).getProperties = () => ({ toJavaScript: () => r.props });
            const local = await call<analyzerpb.AnalyzeResponse>(h.analyze, req);
            const remote = await pack.analyze(buildAnalyzeRequest(r));
            assert.ok(local.getDiagnosticsList().length > 0);
            assert.deepEqual(verdicts(local), verdicts(remote));
        } finally {
            pack.close();
        }
    });
});
