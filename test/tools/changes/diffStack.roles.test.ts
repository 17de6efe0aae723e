/**
 * `plan --diff` and the stack's roles: the deploy role, its boundary and the read-only roles live
 * outside the stack and are scoped by its names, so a change that moves those names (a rename) must
 * say, before `pulumi up`, which policies to regenerate and apply. Pure rules first, then the
 * command on a stand-in renderer, then real renders of the fixture in child processes.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import {
    diffCommand,
    type Render,
    type RenderedSide,
    renderSideInChild,
    rolesChange,
    rolesLine,
    type StackRoles,
} from "../../../tools/changes/diffStack";
import { ROOT } from "../../mocks";
import { editedFixture, fixtureProject, git } from "../../stackFiles";

const doc = (sid: string) => ({ Version: "2012-10-17", Statement: [{ Sid: sid, Effect: "Allow", Action: "s3:GetObject", Resource: "*" }] });
const roles = (deploySid: string, boundarySid = "B"): StackRoles => ({
    deploy: doc(deploySid),
    boundary: doc(boundarySid),
    drift: doc("D"),
    preview: doc("P"),
});

describe("plan --diff: the stack's role policies (tools/changes/diffStack.ts)", () => {
    describe("rolesChange: which policies differ between the sides", () => {
        it("names exactly the kinds whose documents differ, none when all are equal", () => {
            expect(rolesChange(roles("A"), roles("A"), false)).to.deep.equal({ changed: [] });
            expect(rolesChange(roles("A"), roles("A2"), false)).to.deep.equal({ changed: ["deploy"] });
            expect(rolesChange(roles("A"), roles("A2", "B2"), false)).to.deep.equal({ changed: ["deploy", "boundary"] });
        });
        it("a stack the change adds needs every policy, before its first up", () => {
            expect(rolesChange(undefined, roles("A"), true)).to.deep.equal({ changed: ["deploy", "boundary", "drift", "preview"] });
        });
        it("a side that cannot generate them makes the comparison unknown, naming the side and its reason", () => {
            expect(rolesChange({ error: "no generator" }, roles("A"), false)).to.deep.equal({
                unknown: "the base cannot generate them: no generator",
            });
            expect(rolesChange(roles("A"), { error: "bad config" }, false)).to.deep.equal({
                unknown: "the working tree cannot generate them: bad config",
            });
        });
        it("says nothing when a renderer generates no policies (a side without roles is not a change)", () => {
            expect(rolesChange(undefined, roles("A"), false)).to.equal(undefined);
            expect(rolesChange(roles("A"), undefined, false)).to.equal(undefined);
        });
    });

    describe("rolesLine: what to do before `pulumi up`", () => {
        it("names each changed policy with the command that prints it, and where applying them is described", () => {
            expect(rolesLine("dev", { changed: ["deploy"] }, false)).to.equal(
                "Before `pulumi up`: the deploy role's policy changes: regenerate and apply it first (npm run deployer-policy -- dev; docs/roles.md), or the deploy role is refused what the new plan needs.",
            );
            expect(rolesLine("prod", { changed: ["deploy", "boundary", "drift"] }, false)).to.equal(
                "Before `pulumi up`: the deploy role's policy, the permissions boundary and the drift role's policy change: regenerate and apply them first (npm run deployer-policy -- prod; npm run deployer-policy -- prod --boundary; npm run deployer-policy -- prod --drift; docs/roles.md), or the deploy role is refused what the new plan needs.",
            );
        });
        it("tells a new stack to create its roles first", () => {
            expect(rolesLine("qa", { changed: ["deploy", "boundary", "drift", "preview"] }, true)).to.match(
                /^Before the first `pulumi up`: the stack is new, so its roles do not exist yet: create them with .*npm run deployer-policy -- qa --preview; docs\/roles\.md\)\.$/,
            );
        });
        it("prints nothing when no policy changes, and the commands to compare when the change is unknown", () => {
            expect(rolesLine("dev", { changed: [] }, false)).to.equal(undefined);
            expect(rolesLine("dev", undefined, false)).to.equal(undefined);
            expect(rolesLine("dev", { unknown: "the base cannot generate them: x" }, false)).to.match(
                /^Roles: whether this changes the stack's role policies is unknown \(the base cannot generate them: x\); compare npm run deployer-policy -- dev/,
            );
        });
    });

    describe("the command prints the line in every format", () => {
        let repo: string;
        before(() => {
            repo = fs.mkdtempSync(path.join(os.tmpdir(), "diff-stack-roles-"));
            git(repo, "init", "--quiet", "--initial-branch=main");
            fs.writeFileSync(path.join(repo, "sid"), "A\n");
            fs.writeFileSync(path.join(repo, "Pulumi.dev.yaml"), "config: {}\n");
            git(repo, "add", "sid", "Pulumi.dev.yaml");
            git(repo, "commit", "--quiet", "-m", "base");
            fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(repo, "node_modules"), "dir");
            fs.writeFileSync(path.join(repo, "sid"), "A2\n");
        });
        after(() => fs.rmSync(repo, { recursive: true, force: true }));
        /** Each side's deploy policy follows its `sid` file. */
        const render: Render = (root) =>
            Promise.resolve<RenderedSide>({ resources: [], roles: roles(fs.readFileSync(path.join(root, "sid"), "utf8").trim()) });
        const run = (format: string) => diffCommand(["dev", "--diff", "HEAD", "--format", format], { root: repo, render });

        it("text: under the header; markdown: in bold above the details; json: as `roles`", async () => {
            const line = rolesLine("dev", { changed: ["deploy"] }, false)!;
            expect((await run("text")).stdout.split("\n")[1]).to.equal(line);
            expect((await run("markdown")).stdout).to.contain(`**${line}**`);
            expect(JSON.parse((await run("json")).stdout).roles).to.deep.equal({ changed: ["deploy"] });
        });
    });

    describe("real renders of the fixture (each side in a child process)", function () {
        this.timeout(600_000);
        let base: RenderedSide;
        before(async () => {
            base = await renderSideInChild(fixtureProject(), "dev", "the fixture");
        });

        it("each side carries the four policies its generator writes", () => {
            expect(Object.keys(base.roles ?? {}).sort()).to.deep.equal(["boundary", "deploy", "drift", "preview"]);
        });

        it("a cluster rename changes the deploy role's policy and the boundary (both scoped by the name)", async () => {
            const renamed = await renderSideInChild(
                editedFixture("dev", (t) => t.replace("clusterName: platform-dev\n", "clusterName: platform-dev2\n")),
                "dev",
                "renamed",
            );
            const change = rolesChange(base.roles, renamed.roles, false);
            expect(change).to.have.property("changed").that.includes.members(["deploy", "boundary"]);
        });

        it("an instance type change leaves every policy as it is", async () => {
            const resized = await renderSideInChild(
                editedFixture("dev", (t) => t.replace("instanceTypes: [t3.large]", "instanceTypes: [t3.xlarge]")),
                "dev",
                "resized",
            );
            expect(rolesChange(base.roles, resized.roles, false)).to.deep.equal({ changed: [] });
        });
    });
});
