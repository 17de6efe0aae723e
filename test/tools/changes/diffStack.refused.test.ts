/**
 * The diff's refusal, end to end: `npm run plan -- prod --diff HEAD` run as a process in a fresh
 * repository whose working tree changes something the engine would refuse to do to the live stack.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { PROJECT } from "../../../components/config";
import { RenderError, renderInChild } from "../../../tools/changes/diffStack";
import { ROOT, runTool } from "../../mocks";
import { git, stackConfig, stacks, workingTreeCopy } from "../../stackFiles";

describe("npm run plan -- <stack> --diff <ref>: a change the engine refuses", function () {
    this.timeout(600_000);
    const stack = "prod";
    let repo: string;

    before(function () {
        // The rule needs a protected cluster; prod is the sample stack with `cluster.protect: true`.
        expect(stackConfig(stack).cluster.protect, `${stack} protects its cluster`).to.equal(true);
        repo = workingTreeCopy("plan-diff-refused-");
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
        expect(lines[1]).to.match(/^DISRUPTIVE: 1 cluster replacement refused(, |\s—)/);
        const refused = lines.filter((l) => l.includes("! [refused]"));
        expect(refused, result.stdout).to.have.length(1);
        expect(refused[0]).to.match(
            /^ {2}! \[refused\] eks:index:Cluster \S+: protected, but kubernetesServiceIpAddressRange forces a replacement \(the cluster would be replaced\): the engine refuses the update$/,
        );
        expect(result.stdout).to.match(
            /\+- eks:index:Cluster {2}\S+\n {6}kubernetesServiceIpAddressRange: "172\.20\.0\.0\/16" → "172\.21\.0\.0\/16" {2}\(forces replacement\)/,
        );
    });

    it("names the stack, the side and the renderer's own error when a side does not render (exit 2: bad input)", async function () {
        this.timeout(60_000);
        // No such stack file: the child renderer fails, and says why on stderr.
        const failure = await renderInChild(repo, "nosuch", "the working tree").then(
            () => undefined,
            (err: unknown) => err,
        );
        expect(failure).to.be.instanceOf(RenderError);
        const message = (failure as Error).message;
        expect(message).to.match(/^stack "nosuch" at the working tree does not render:\n\S/);
        expect(message).to.equal(
            `stack "nosuch" at the working tree does not render:\n${path.join(repo, "Pulumi.nosuch.yaml")}: unknown stack "nosuch" (stacks here: ${stacks(repo).join(", ")})`,
        );
    });
});
