/**
 * The pack as the Pulumi CLI runs it: `policies/index.ts` started as a process (it serves the
 * analyzer over gRPC and prints its port), configured with `policies/config/prod.json` the way
 * the CLI reconciles it, then asked to analyze resources and a stack. Confirms what the in-process
 * harness assumes: levels from the config file, violations, not-applicable reasons, and the
 * advisory downgrade of values unknown at preview.
 */
import * as grpc from "@grpc/grpc-js";
import { expect } from "chai";
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { AnalyzerClient } from "@pulumi/pulumi/proto/analyzer_grpc_pb";
import * as pb from "@pulumi/pulumi/proto/analyzer_pb";
import { configDefaults } from "eks-platform-kernel";
import { declarationOf, policies, workloadTerminationGrace } from "eks-platform-policies";
import { ROOT } from "../mocks";
import { deployment, pdb, vpc } from "./fixtures";
import { changed, TestResource, UNKNOWN, urnOf } from "./harness";

function call<Req, Res>(fn: (req: Req, cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown, req: Req): Promise<Res> {
    return new Promise((resolve, reject) => fn(req, (err, res) => (err ? reject(err) : resolve(res))));
}

function options(): pb.AnalyzerResourceOptions {
    return new pb.AnalyzerResourceOptions().setProtect(false);
}

function analyzeRequest(r: TestResource): pb.AnalyzeRequest {
    return new pb.AnalyzeRequest()
        .setType(r.type)
        .setName(r.name)
        .setUrn(urnOf(r))
        .setProperties(Struct.fromJavaScript(r.props as never))
        .setOptions(options());
}

const LEVEL: Record<string, pb.EnforcementLevel> = {
    advisory: pb.EnforcementLevel.ADVISORY,
    mandatory: pb.EnforcementLevel.MANDATORY,
    disabled: pb.EnforcementLevel.DISABLED,
};

describe("policy pack served by its analyzer (gRPC), configured with prod.json", function () {
    this.timeout(120_000);
    let child: ChildProcess;
    let client: AnalyzerClient;

    before(async () => {
        child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", "index.ts"], {
            cwd: path.join(ROOT, "policies"),
            env: { ...process.env, TS_NODE_PROJECT: path.join(ROOT, "policies", "tsconfig.json") },
            stdio: ["ignore", "pipe", "pipe"],
        });
        const port = await new Promise<number>((resolve, reject) => {
            let out = "";
            let err = "";
            child.stdout!.on("data", (d: Buffer) => {
                out += d.toString();
                const m = /^(\d+)\s*$/m.exec(out);
                if (m) resolve(Number(m[1]));
            });
            child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
            child.on("exit", (code) => reject(new Error(`policy pack exited ${code}: ${err}`)));
        });
        client = new AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
        // What the CLI sends after reconciling prod.json with the schema defaults.
        const file = JSON.parse(fs.readFileSync(path.join(ROOT, "policies", "config", "prod.json"), "utf8")) as Record<string, unknown>;
        const request = new pb.ConfigureAnalyzerRequest();
        for (const p of policies) {
            const entry = file[p.name];
            const { enforcementLevel, ...props } =
                typeof entry === "string" ? { enforcementLevel: entry } : (entry as Record<string, unknown>);
            const config = new pb.PolicyConfig()
                .setEnforcementlevel(LEVEL[(enforcementLevel as string | undefined) ?? (file.all as string)])
                .setProperties(Struct.fromJavaScript({ ...(p.configSchema ? configDefaults(p.configSchema) : {}), ...props } as never));
            request.getPolicyconfigMap().set(p.name, config);
        }
        await call(client.configure.bind(client), request);
    });

    after(() => {
        client?.close();
        if (child?.pid) child.kill();
    });

    it("describes every policy with its config schema", async () => {
        const info = await call<Empty, pb.AnalyzerInfo>(client.getAnalyzerInfo.bind(client), new Empty());
        expect(info.getName()).to.equal("eks-platform");
        const listed = info.getPoliciesList();
        expect(listed.map((p) => p.getName())).to.deep.equal(policies.map((p) => p.name));
        const grace = listed.find((p) => p.getName() === "workload-termination-grace")!;
        // The knob as declared (a nullable integer with no fixed default maximum), through protobuf and back.
        const declared = declarationOf(workloadTerminationGrace)!.knobs.max;
        expect(declared.default).to.equal(null);
        expect(grace.getConfigschema()?.getProperties()?.toJavaScript()).to.deep.include({ max: { ...declared } });
    });

    it("reports a resource violation at the configured level, and nothing for a compliant resource", async () => {
        const bad = await call<pb.AnalyzeRequest, pb.AnalyzeResponse>(
            client.analyze.bind(client),
            analyzeRequest(changed(deployment(), "spec.template.spec.containers.0.resources.limits.memory", undefined)),
        );
        const diagnostics = bad
            .getDiagnosticsList()
            .map((d) => ({ policy: d.getPolicyname(), level: d.getEnforcementlevel(), message: d.getMessage() }));
        expect(diagnostics).to.have.length(1);
        expect(diagnostics[0].policy).to.equal("workload-resources");
        expect(diagnostics[0].level).to.equal(pb.EnforcementLevel.MANDATORY);
        expect(diagnostics[0].message).to.match(/sets no resources\.limits\.memory/);
        const good = await call<pb.AnalyzeRequest, pb.AnalyzeResponse>(client.analyze.bind(client), analyzeRequest(deployment()));
        expect(good.getDiagnosticsList()).to.have.length(0);
    });

    it("downgrades a verdict on an unknown value to advisory 'can't run', keeping the known verdicts", async () => {
        const d = changed(
            changed(deployment(), "spec.template.spec.containers.0.resources", UNKNOWN.object),
            "spec.template.spec.initContainers.0.resources.limits.cpu",
            undefined,
        );
        const res = await call<pb.AnalyzeRequest, pb.AnalyzeResponse>(client.analyze.bind(client), analyzeRequest(d));
        const diagnostics = res.getDiagnosticsList().map((x) => ({ level: x.getEnforcementlevel(), message: x.getMessage() }));
        expect(diagnostics).to.have.length(2);
        expect(diagnostics[0]).to.deep.include({ level: pb.EnforcementLevel.MANDATORY });
        expect(diagnostics[0].message).to.match(/init container "migrate" sets no resources\.limits\.cpu/);
        expect(diagnostics[1].level).to.equal(pb.EnforcementLevel.ADVISORY);
        expect(diagnostics[1].message).to.match(/can't run policy 'workload-resources'.*during preview.*container "app"/);
    });

    it("reports stack violations on the resource's URN, and not-applicable reasons for empty checks", async () => {
        const resources = [deployment(), pdb("api", "prod", { maxUnavailable: 0, selector: { matchLabels: { app: "api" } } }), vpc()].map(
            (r) =>
                new pb.AnalyzerResource()
                    .setType(r.type)
                    .setName(r.name)
                    .setUrn(urnOf(r))
                    .setProperties(Struct.fromJavaScript(r.props as never))
                    .setOptions(options()),
        );
        const res = await call<pb.AnalyzeStackRequest, pb.AnalyzeResponse>(
            client.analyzeStack.bind(client),
            new pb.AnalyzeStackRequest().setResourcesList(resources),
        );
        const diagnostics = res.getDiagnosticsList().map((x) => ({ policy: x.getPolicyname(), urn: x.getUrn(), message: x.getMessage() }));
        expect(diagnostics.map((x) => x.policy)).to.deep.equal(["pdb-allows-disruption"]);
        expect(diagnostics[0].urn).to.equal(urnOf(pdb()));
        const notApplicable = Object.fromEntries(res.getNotApplicableList().map((n) => [n.getPolicyName(), n.getReason()]));
        expect(notApplicable["namespace-quota-required"]).to.match(/nothing was checked/);
        expect(notApplicable["node-role-policies"]).to.match(/no node IAM role/);
    });
});
