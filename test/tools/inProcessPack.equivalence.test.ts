import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { generateCorpus } from "../../tools/corpus";
import { checkManifests } from "../../tools/manifestCheck";

const ROOT = path.join(__dirname, "..", "..");
const PACK = path.join(ROOT, "policies");

/** What a run reports, or the error it ends with: the two paths must agree on both. */
async function outcome(paths: string[], env: string, analyzer: boolean): Promise<unknown> {
    try {
        const r = await checkManifests({ paths, env, packDir: PACK, analyzer });
        return { report: r.report, violations: r.violations, unvalidated: r.unvalidated };
    } catch (err) {
        return { error: (err as Error).message };
    }
}

// Every directory of manifests the repository holds, each alone.
function manifestDirs(): string[] {
    const fixtures = path.join(ROOT, "test", "fixtures");
    const dirs = fs
        .readdirSync(fixtures)
        .map((d) => path.join(fixtures, d))
        .filter((d) => fs.statSync(d).isDirectory() && fs.readdirSync(d).some((f) => /\.ya?ml$/.test(f)));
    return [path.join(ROOT, "examples"), ...dirs];
}

describe("in-process pack (tools/inProcessPack.ts): the analyzer's verdicts, without its process", function () {
    this.timeout(600_000);

    for (const env of ["dev", "prod"]) {
        it(`gives the same report as the pack's own process on every manifest fixture and examples/ (${env} config)`, async () => {
            const dirs = manifestDirs();
            assert.ok(dirs.length >= 3, `found ${dirs.length} manifest directories`);
            for (const dir of dirs) {
                const local = await outcome([dir], env, false);
                const remote = await outcome([dir], env, true);
                assert.deepStrictEqual(local, remote, `${path.relative(ROOT, dir)} (${env})`);
            }
        });
    }

    it("gives the same report on a generated 1,000-workload corpus, violations included", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "inproc-eq-"));
        try {
            generateCorpus(dir, 1000);
            // A workload with no PDB, no requests and a single replica: verdicts to compare.
            fs.writeFileSync(
                path.join(dir, "planted.yaml"),
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: bare, namespace: team-0}\nspec:\n  selector: {matchLabels: {app: bare}}\n  template:\n    metadata: {labels: {app: bare}}\n    spec: {containers: [{name: c, image: nginx}]}\n",
            );
            const local = (await outcome([dir], "prod", false)) as { violations: unknown[] };
            const remote = await outcome([dir], "prod", true);
            assert.ok(local.violations.length > 0, "the planted workload is reported");
            assert.deepStrictEqual(local, remote);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
