import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { readStackFiles, StackFileError } from "../../tools/offline";
import { formatPlanText, SETTINGS_SHOWN } from "../../tools/planText";
import type { Plan } from "../../tools/stackPlan";
import { stacks } from "../stackFiles";
import { ROOT, runTool } from "../mocks";

const STACKS = stacks();

/** A project directory sharing this repository's code, with its own stack and policy config files. */
function project(files: Record<string, string>, policyConfig?: Record<string, string>): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plan-cli-"));
    for (const f of ["Pulumi.yaml", "index.ts", "tsconfig.json"]) {
        fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
    }
    for (const d of ["components", "tools", "node_modules"]) {
        fs.symlinkSync(path.join(ROOT, d), path.join(dir, d));
    }
    if (policyConfig) {
        // The real pack, with config files of the test's own.
        fs.mkdirSync(path.join(dir, "policies", "config"), { recursive: true });
        for (const entry of fs.readdirSync(path.join(ROOT, "policies")).filter((e) => e !== "config")) {
            fs.symlinkSync(path.join(ROOT, "policies", entry), path.join(dir, "policies", entry));
        }
        for (const [name, text] of Object.entries(policyConfig)) {
            fs.writeFileSync(path.join(dir, "policies", "config", name), text);
        }
    } else {
        fs.symlinkSync(path.join(ROOT, "policies"), path.join(dir, "policies"));
    }
    for (const [name, text] of Object.entries(files)) {
        fs.writeFileSync(path.join(dir, name), text);
    }
    return dir;
}

/** A stack file whose config is an alias bomb: 9 levels of 9 aliases. */
const BOMB = [
    "config:",
    "  aws:region: us-east-1",
    "  eks-platform:laughs:",
    "    a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
    ..."bcdefghi".split("").map((c, i) => `    ${c}: &${c} [${Array(9).fill(`*${"abcdefghi"[i]}`).join(", ")}]`),
].join("\n");

describe("offline plan: stack files the YAML reader must refuse", () => {
    let dir: string;
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("names file and line of an alias bomb, and of a document too deep to parse", () => {
        const deep = `config:\n  aws:region: us-east-1\n  eks-platform:deep: ${"[".repeat(5000)}1${"]".repeat(5000)}\n`;
        dir = project({ "Pulumi.bomb.yaml": BOMB, "Pulumi.deep.yaml": deep });
        expect(() => readStackFiles(dir, "bomb")).to.throw(StackFileError, /Pulumi\.bomb\.yaml:5: aliases from here expand to more than/);
        expect(() => readStackFiles(dir, "deep")).to.throw(StackFileError, /Pulumi\.deep\.yaml:3: nested too deeply to read/);
    });
});

describe("offline plan CLI: exit codes", function () {
    this.timeout(180_000);
    let dir: string | undefined;
    afterEach(() => {
        if (dir) {
            fs.rmSync(dir, { recursive: true, force: true });
        }
        dir = undefined;
    });

    it("exits 2 with the usage line for an unknown option, a bad format or two stacks", async () => {
        for (const args of [["dev", "--formt", "json"], ["dev", "--format", "xml"], ["dev", "prod"], [], ["dev", "--diff"]]) {
            const r = await runTool("plan.ts", args);
            expect(r.code, args.join(" ")).to.equal(2);
            expect(r.stdout, args.join(" ")).to.equal("");
        }
        const unknown = await runTool("plan.ts", ["dev", "--formt", "json"]);
        expect(unknown.stderr).to.equal(
            "Unknown option '--formt'\nusage: npm run plan -- <stack> [--format text|json] [--diff <git-ref>]\n",
        );
        expect((await runTool("plan.ts", ["dev", "--format", "xml"])).stderr).to.include('--format must be text or json, not "xml"');
        const help = await runTool("plan.ts", ["--help"]);
        expect([help.code, help.stdout]).to.deep.equal([0, "usage: npm run plan -- <stack> [--format text|json] [--diff <git-ref>]\n"]);
    });

    it("exits 2 naming the stack file of an alias bomb, with no stack trace", async () => {
        dir = project({ "Pulumi.bomb.yaml": BOMB });
        const r = await runTool("plan.ts", ["bomb"], dir);
        expect(r.code).to.equal(2);
        expect(r.stdout).to.equal("");
        expect(r.stderr).to.match(/Pulumi\.bomb\.yaml:5: aliases from here expand to more than \d+ nodes/);
        expect(r.stderr).to.not.match(/^\s+at /m);
    });

    it("exits 1 on a mandatory violation (a stricter policy config than the stack meets)", async () => {
        const [stack] = STACKS;
        const config = JSON.parse(fs.readFileSync(path.join(ROOT, "policies", "config", `${stack}.json`), "utf8")) as Record<
            string,
            unknown
        >;
        // Every subnet is tagged for the stack's own cluster, never for this one.
        config["subnet-eks-tags"] = { enforcementLevel: "mandatory", clusterName: "a-cluster-no-stack-has" };
        dir = project(
            { [`Pulumi.${stack}.yaml`]: fs.readFileSync(path.join(ROOT, `Pulumi.${stack}.yaml`), "utf8") },
            { [`${stack}.json`]: JSON.stringify(config) },
        );
        const text = await runTool("plan.ts", [stack], dir);
        expect(text.code, text.stderr).to.equal(1);
        const summary = /^(\d+) mandatory, \d+ advisory, \d+ policies evaluated/m.exec(text.stdout);
        expect(Number(summary?.[1]), text.stdout.split("\nPolicies")[1]).to.be.greaterThan(0);
        expect(text.stdout).to.match(/^subnet-eks-tags \[mandatory\]: \d+ violations? on \d+ resources?$/m);

        const json = await runTool("plan.ts", [stack, "--format", "json"], dir);
        expect(json.code).to.equal(1);
        const plan = JSON.parse(json.stdout) as Plan;
        expect(plan.violations.some((v) => v.policy === "subnet-eks-tags" && v.level === "mandatory")).to.equal(true);
        // Whoever reads only stderr learns why.
        expect(json.stderr).to.include("subnet-eks-tags [mandatory]");
    });
});

describe("offline plan text", () => {
    const object = (name: string, spec: unknown): Plan["resources"][number] => ({
        type: "kubernetes:networking.k8s.io/v1:NetworkPolicy",
        name,
        props: { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name, namespace: "team" }, spec },
    });

    it("marks where it cuts a long spec, and how much is left out", () => {
        const long = {
            podSelector: {},
            ingress: Array.from({ length: 40 }, (_, i) => ({ from: [{ podSelector: { matchLabels: { app: `a${i}` } } }] })),
        };
        const lines = formatPlanText({
            stack: "x",
            violations: [],
            resources: [object("long", long), object("short", { podSelector: {} })],
        }).split("\n");
        const full = `team/long spec=${JSON.stringify(long)}`;
        const shown = lines[lines.findIndex((l) => l.includes("NetworkPolicy  long")) + 1].trim();
        expect(shown).to.equal(`${full.slice(0, SETTINGS_SHOWN)}… (${full.length - SETTINGS_SHOWN} more characters: see --format json)`);
        const short = lines[lines.findIndex((l) => l.includes("NetworkPolicy  short")) + 1].trim();
        expect(short).to.equal('team/short spec={"podSelector":{}}');
    });
});
