import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ConfigError } from "../../../components/config";
import { installMocks, readStackFiles, runInStack, settle, StackFileError } from "../../../tools/render/offline";
import type { Plan } from "../../../tools/render/stackPlan";
import { editedFixture, fixtureProject, stackConfig, stacks } from "../../stackFiles";
import { planOf, ROOT, runTool } from "../../mocks";

type PlanResource = Plan["resources"][number];

const byType = (plan: Plan, type: string): PlanResource[] => plan.resources.filter((r) => r.type === type);

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
            "Unknown option '--formt'\nusage: npm run plan -- <stack> [--format text|json|markdown] [--analyzer] [--diff <git-ref>]\n",
        );
        expect((await runTool("plan.ts", ["dev", "--format", "xml"])).stderr).to.include(
            '--format must be text, json or markdown, not "xml"',
        );
        const help = await runTool("plan.ts", ["--help"]);
        expect([help.code, help.stdout]).to.deep.equal([
            0,
            "usage: npm run plan -- <stack> [--format text|json|markdown] [--analyzer] [--diff <git-ref>]\n",
        ]);
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

        // Markdown for a job summary: the verdict and each blocking finding shown, the report and the resources folded.
        const markdown = await runTool("plan.ts", [stack, "--format", "markdown"], dir);
        expect(markdown.code, markdown.stderr).to.equal(1);
        const shown = markdown.stdout.split("\n<details>")[0];
        expect(shown).to.match(new RegExp(`^### Offline plan of \`${stack}\`: \\*\\*\\d+ mandatory violations?\\*\\*\n`));
        expect(shown).to.match(/^- \*\*mandatory\*\* `subnet-eks-tags` on \S+: /m);
        expect(markdown.stdout).to.include("<details><summary>Policy report</summary>");
        expect(markdown.stdout).to.match(/<details><summary>Every resource \(\d+\)<\/summary>\n\n```text\nPlan for stack /);

        const json = await runTool("plan.ts", [stack, "--format", "json"], dir);
        expect(json.code).to.equal(1);
        const plan = JSON.parse(json.stdout) as Plan;
        expect(plan.violations.some((v) => v.policy === "subnet-eks-tags" && v.level === "mandatory")).to.equal(true);
        // Whoever reads only stderr learns why.
        expect(json.stderr).to.include("subnet-eks-tags [mandatory]");

        // The pack in its own process, over gRPC as `pulumi preview --policy-pack` runs it: the same plan and verdicts.
        const analyzer = await runTool("plan.ts", [stack, "--format", "json", "--analyzer"], dir);
        expect(analyzer.code, analyzer.stderr).to.equal(1);
        expect(JSON.parse(analyzer.stdout)).to.deep.equal(plan);
    });
});

describe("offline plan CLI", function () {
    this.timeout(120_000);

    it("prints a readable plan listing the platform", async () => {
        const result = await runTool("plan.ts", ["dev"], fixtureProject());
        expect(result.code, result.stderr).to.equal(0);
        for (const needle of [
            "aws:ec2/vpc:Vpc",
            "aws:ec2/natGateway:NatGateway",
            "eks:index:Cluster",
            "aws:kms/key:Key",
            "kubernetes:core/v1:ResourceQuota",
            "kubernetes.io/role/internal-elb=1",
        ]) {
            expect(result.stdout).to.include(needle);
        }
        // Each namespace shows its Pod Security Admission levels (dev: baseline enforce, restricted warn).
        const namespaceLine = result.stdout.split("\n").findIndex((l) => /\+ kubernetes:core\/v1:Namespace {2}namespaces-dev\b/.test(l));
        expect(namespaceLine).to.be.greaterThan(-1);
        const settings = result.stdout.split("\n")[namespaceLine + 1];
        expect(settings).to.include("pod-security.kubernetes.io/enforce=baseline");
        expect(settings).to.include("pod-security.kubernetes.io/warn=restricted");
    });

    it("prints exactly one JSON object with stack, resources and violations", async () => {
        const result = await runTool("plan.ts", ["prod", "--format", "json"], fixtureProject());
        expect(result.code, result.stderr).to.equal(0);
        const plan = JSON.parse(result.stdout) as Plan;
        expect(plan.stack).to.equal("prod");
        expect(plan.violations).to.be.an("array");
        expect(plan.resources.length).to.be.greaterThan(40);
        for (const r of plan.resources) {
            expect(r).to.have.keys(r.options ? ["type", "name", "props", "options"] : ["type", "name", "props"]);
        }
    });

    it("exits 2 for an unknown stack", async () => {
        const result = await runTool("plan.ts", ["staging-eu"]);
        expect(result.code).to.equal(2);
        expect(result.stderr).to.match(/unknown stack "staging-eu"/);
        expect(result.stdout).to.equal("");
    });

    it("exits 2 naming every bad key of a broken stack file, printing no resource", async () => {
        const dir = editedFixture("dev", (t) =>
            t.replace("vpcCidr: 10.10.0.0/16", "vpcCidr: 10.10.0.0/33").replace("natGateways: single", "natGateways: sometimes"),
        );
        const result = await runTool("plan.ts", ["dev", "--format", "json"], dir);
        expect(result.code).to.equal(2);
        expect(result.stdout).to.equal("");
        expect(result.stderr).to.include("eks-platform:network.vpcCidr");
        expect(result.stderr).to.include("eks-platform:network.natGateways");
    });

    it("exits 2 naming cluster.endpoint when a private-only endpoint leaves `pulumi up` no route, printing no resource", async () => {
        const dir = editedFixture("prod", (text) => text.replace(/^( +)privateAccessCidrs: .*$/m, "$1privateAccessCidrs: []"));
        const result = await runTool("plan.ts", ["prod", "--format", "json"], dir);
        expect(result.code, result.stderr).to.equal(2);
        expect(result.stdout).to.equal("");
        expect(result.stderr).to.match(/eks-platform:cluster\.endpoint: is private-only/);
    });

    it("shows the deployer's route of every stack in the plan: a 443 rule on the control-plane group from each admitted network", async () => {
        for (const stack of stacks()) {
            const endpoint = stackConfig(stack).cluster.endpoint;
            const plan = await planOf(stack);
            const rules = byType(plan, "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule").filter((r) =>
                r.name.startsWith("cluster-control-plane-from-"),
            );
            const sources = [...endpoint.privateAccessCidrs, ...endpoint.privateAccessSecurityGroupIds];
            const admitted = rules.filter((r) => r.name !== "cluster-control-plane-from-nodes");
            expect(
                admitted.map((r) => r.props.cidrIpv4 ?? r.props.referencedSecurityGroupId),
                stack,
            ).to.have.members(sources);
            for (const rule of admitted) {
                expect(rule.props, `${stack} ${rule.name}`).to.include({ ipProtocol: "tcp", fromPort: 443, toPort: 443 });
            }
            if (!endpoint.publicAccess) {
                expect(admitted.length, `${stack}: a private endpoint needs an admitted network`).to.be.greaterThan(0);
            }
        }
    });

    it("registers no resource at all when the config is bad (the program itself, under the mock engine)", async () => {
        const files = readStackFiles(fixtureProject(), "dev");
        const network = JSON.parse(files.config["eks-platform:network"]) as Record<string, unknown>;
        files.config["eks-platform:network"] = JSON.stringify({ ...network, vpcCidr: "10.10.0.0/33" });
        const program = require.resolve(path.join(ROOT, "index.ts"));
        delete require.cache[program];
        const mocks = installMocks(files, "dev", "preview");
        let failure: unknown;
        try {
            // eslint-disable-next-line @typescript-eslint/no-require-imports
            await runInStack(mocks, () => require(program) as unknown);
        } catch (err) {
            failure = err;
        } finally {
            await settle();
            delete require.cache[program];
        }
        expect(failure).to.be.instanceOf(ConfigError);
        expect((failure as ConfigError).problems.join("\n")).to.include("eks-platform:network.vpcCidr");
        // The stack resource itself is the mock engine's; nothing of the program's got registered.
        expect(mocks.resources.map((r) => r.type)).to.deep.equal(["pulumi:pulumi:Stack"]);
    });
});
