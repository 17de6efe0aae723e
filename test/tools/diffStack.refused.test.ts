/**
 * The diff's refusal, end to end: `npm run plan -- prod --diff HEAD` run as a process in a fresh
 * repository whose working tree changes something the engine would refuse to do to the live stack.
 */
import { expect } from "chai";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { PROJECT } from "../../components/config";
import { DiffReport, diffStack, formatDiffReport, RenderError, renderInChild, runDiffCommand } from "../../tools/diffStack";
import { ROOT, runTool } from "../mocks";
import { stackConfig } from "../stackFiles";

function git(cwd: string, ...args: string[]): string {
    return execFileSync("git", ["-c", "user.name=test", "-c", "user.email=test@example.com", ...args], { cwd }).toString();
}

describe("npm run plan -- <stack> --diff <ref>: a change the engine refuses", function () {
    this.timeout(600_000);
    const stack = "prod";
    let repo: string;

    before(function () {
        // The rule needs a protected cluster; prod is the sample stack with `cluster.protect: true`.
        expect(stackConfig(stack).cluster.protect, `${stack} protects its cluster`).to.equal(true);
        repo = fs.mkdtempSync(path.join(os.tmpdir(), "plan-diff-refused-"));
        const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: ROOT })
            .toString()
            .split("\n")
            .filter((f) => f && fs.existsSync(path.join(ROOT, f)));
        for (const f of files) {
            fs.mkdirSync(path.dirname(path.join(repo, f)), { recursive: true });
            fs.copyFileSync(path.join(ROOT, f), path.join(repo, f));
        }
        git(repo, "init", "--quiet", "--initial-branch=main");
        git(repo, "add", "--all");
        git(repo, "commit", "--quiet", "-m", "base");
        fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(repo, "node_modules"), "dir");
        // The working tree moves the cluster's service CIDR: EKS cannot change it on a live cluster.
        const file = path.join(repo, `Pulumi.${stack}.yaml`);
        const doc = YAML.parseDocument(fs.readFileSync(file, "utf8"));
        doc.setIn(["config", `${PROJECT}:cluster`, "serviceCidr"], "172.21.0.0/16");
        fs.writeFileSync(file, doc.toString());
    });

    after(() => fs.rmSync(repo, { recursive: true, force: true }));

    it("exits 2 naming the protected cluster and the input that forces its replacement (pulumi protect: the engine refuses to replace a protected resource; terraform-provider-aws aws_eks_cluster: kubernetes_network_config.service_ipv4_cidr ForceNew)", async () => {
        const result = await runTool("plan.ts", [stack, "--diff", "HEAD"], repo);
        expect(result.code, result.stderr).to.equal(2);
        const lines = result.stdout.split("\n");
        expect(lines[1]).to.match(/^DISRUPTIVE: 1 refused(, |\s—)/);
        const refused = lines.filter((l) => l.includes("! [refused]"));
        expect(refused, result.stdout).to.have.length(1);
        expect(refused[0]).to.match(
            /^ {2}! \[refused\] eks:index:Cluster \S+: protected, but kubernetesServiceIpAddressRange forces a replacement: the engine refuses the update$/,
        );
        expect(result.stdout).to.match(
            /\+- eks:index:Cluster {2}\S+\n {6}kubernetesServiceIpAddressRange: "172\.20\.0\.0\/16" → "172\.21\.0\.0\/16" {2}\(forces replacement\)/,
        );
    });

    /** What `run` writes to stdout, and what it returns. */
    async function captured<T>(run: () => Promise<T>): Promise<{ out: string; result: T }> {
        const write = process.stdout.write.bind(process.stdout);
        let out = "";
        process.stdout.write = ((chunk: string) => {
            out += chunk;
            return true;
        });
        try {
            const result = await run();
            return { out, result };
        } finally {
            process.stdout.write = write;
        }
    }

    it("returns 2 in process too, the JSON report naming the base commit and the refusal first", async () => {
        const { out, result } = await captured(() => runDiffCommand(stack, "HEAD", "json", repo));
        expect(result).to.equal(2);
        const report = JSON.parse(out) as DiffReport;
        expect(report.stack).to.equal(stack);
        expect(report.base).to.deep.equal({ ref: "HEAD", commit: git(repo, "rev-parse", "HEAD").trim() });
        expect(report.summary).to.match(/^DISRUPTIVE: 1 refused/);
        expect(report.disruptions[0]).to.deep.include({ kind: "refused" });
        expect(report.counts.replace).to.be.greaterThan(0);
        const cluster = report.changes.find((c) => c.type === "eks:index:Cluster");
        expect(cluster).to.deep.include({ kind: "replace", forcedBy: ["kubernetesServiceIpAddressRange"] });
        // The text report heads the same diff with the stack, the ref and its short commit.
        expect(formatDiffReport(report).split("\n")[0]).to.equal(
            `Diff of stack "${stack}": HEAD (${report.base.commit.slice(0, 12)}) → working tree`,
        );
    });

    it("names the side that does not render and why, as bad input (exit 2)", async () => {
        const failure = await renderInChild(repo, "nosuch", "the working tree").then(
            () => undefined,
            (err: unknown) => err,
        );
        expect(failure).to.be.instanceOf(RenderError);
        expect((failure as Error).message).to.match(/^stack "nosuch" at the working tree does not render:\n\S/);
        expect((failure as Error).message).to.include("nosuch");
    });

    it("returns 0 for a diff with nothing refused, the text report on stdout", async () => {
        git(repo, "checkout", "--quiet", "--", `Pulumi.${stack}.yaml`);
        const report = await diffStack(repo, stack, "HEAD");
        expect(report.counts).to.deep.equal({ create: 0, update: 0, replace: 0, delete: 0 });
        const { out, result } = await captured(() => runDiffCommand(stack, "HEAD", "text", repo));
        expect(result).to.equal(0);
        expect(out).to.match(
            new RegExp(
                `^Diff of stack "${stack}": HEAD \\([0-9a-f]{12}\\) → working tree\n0 to create, 0 to update, 0 to replace, 0 to delete; nothing disruptive\n\n  no changes\n$`,
            ),
        );
    });
});
