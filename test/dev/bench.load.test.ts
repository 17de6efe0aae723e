// The `load` scenario of the bench (`npm run bench -- load`): the same code the bench runs on a
// 50 MB manifest and a 2,000-namespace stack, at a size that keeps this test well under a minute,
// with the cores kept busy all the same. It asserts verdicts, never time: figures belong to the
// bench (README.md, Benchmarks).
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { burnCpu, formatLoad, LOAD_DEFAULTS, LoadResult, runLoad, SCENARIOS } from "../../dev/bench";
import { namespacesConfigYaml, onboardNamespaces, onboardedNamespace, PLANTED_POLICY, writeManifestFile } from "../../dev/corpus";
import { parseManifests } from "../../tools/manifests/manifests";
import { runTool } from "../mocks";
import { FIXTURE_STACKS, parseValues } from "../stackFiles";

describe("bench: the load scenario", function () {
    this.timeout(240_000);

    it("is a scenario of the command, at the issue's sizes by default", async () => {
        expect(SCENARIOS).to.include("load");
        expect(LOAD_DEFAULTS).to.deep.equal({ bytes: 50_000_000, violations: 25, namespaces: 2000, burners: 2 });
        const help = await runTool("bench.ts", ["--help"]);
        expect(help.code).to.equal(0);
        expect(help.stdout).to.include("npm run bench -- load");
        const bad = await runTool("bench.ts", ["lode"]);
        expect(bad.code).to.equal(2);
        expect(bad.stderr).to.include("unexpected argument lode");
        const count = await runTool("bench.ts", ["load", "--namespaces", "many"]);
        expect(count.code).to.equal(2);
        expect(count.stderr).to.include('--namespaces takes a whole number, not "many"');
    });

    it("writes one file of the size asked, with the planted workloads spread over it", () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "load-input-"));
        try {
            const m = writeManifestFile(path.join(dir, "m.yaml"), 300_000, 4);
            const text = fs.readFileSync(m.file, "utf8");
            expect(m.bytes).to.equal(Buffer.byteLength(text)).and.to.be.at.least(300_000).and.below(400_000);
            const objects = parseManifests(text, m.file);
            expect(objects).to.have.length(m.objects);
            expect(m.workloads).to.equal(m.namespaces * 10);
            const short = objects
                .filter((o) => o.object.kind === "Deployment")
                .filter((o) => (o.object as any).spec.template.spec.terminationGracePeriodSeconds === 10)
                .map((o) => `${(o.object as any).metadata.namespace}/${(o.object as any).metadata.name}`);
            expect(short).to.deep.equal(m.violating);
            expect(m.violating).to.have.length(4);
            expect(m.violating[0]).to.equal("team-0/app-0");
            expect(m.violating[3]).to.equal(`team-${m.namespaces - 1}/app-${m.workloads - 1}`);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("onboards namespaces the config accepts, into the fixture stack's namespaces map", () => {
        const text = onboardNamespaces(fs.readFileSync(path.join(FIXTURE_STACKS, "Pulumi.dev.yaml"), "utf8"), 3);
        const namespaces = YAML.parse(text).config["eks-platform:namespaces"];
        expect(Object.keys(namespaces)).to.deep.equal(["team-0000", "team-0001", "team-0002", "dev"]);
        expect(namespacesConfigYaml(1)).to.include(onboardedNamespace(0));
        const values = Object.fromEntries(
            Object.entries(YAML.parse(text).config as Record<string, unknown>).map(([k, v]) => [
                k,
                typeof v === "string" ? v : JSON.stringify(v),
            ]),
        );
        const config = parseValues(values, "dev");
        expect(config.namespaces["team-0002"].editors).to.deep.equal(["arn:aws:iam::123456789012:role/team-0002"]);
    });

    it("burnCpu's processes run until stopped, then are gone", async () => {
        const burners = burnCpu(2);
        expect(burners.pids).to.have.length(2);
        const alive = (pid: number) => {
            try {
                process.kill(pid, 0);
                return true;
            } catch {
                return false;
            }
        };
        expect(burners.pids.map(alive)).to.deep.equal([true, true]);
        await burners.stop();
        expect(burners.pids.map(alive)).to.deep.equal([false, false]);
        await burners.stop();
    });

    describe("at a size under a minute, cores busy", () => {
        let result: LoadResult;
        before(async () => {
            result = await runLoad({ bytes: 1_000_000, violations: 7, namespaces: 40, burners: 2 });
        });

        it("passes: exactly the planted verdicts, and a clean plan with every namespace guarded", () => {
            expect(result.problems, formatLoad(result)).to.deep.equal([]);
            expect(result.manifest.run.code).to.equal(1);
            expect(result.manifest.verdicts).to.deep.equal({ [PLANTED_POLICY]: 7 });
            expect(result.manifest.input.bytes).to.be.at.least(1_000_000);
            expect(result.stack.run.code).to.equal(0);
            expect(result.stack.guarded).to.equal(40);
        });

        it("reports time and memory for both (figures, not asserted)", () => {
            const text = formatLoad(result);
            expect(text).to.include("| `policy:check --env prod`, one file |");
            expect(text).to.include("| `plan dev`, fixture stack | 40 namespaces onboarded");
            expect(text).to.include("All verdicts as expected.");
            if (process.platform === "linux") {
                expect(result.manifest.run.peakTreeRss).to.be.above(0);
                expect(result.stack.run.peakProcessRss).to.be.above(0);
            }
        });
    });
});
