import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { headCommit, originWebUrl } from "../../../tools/cli/refTree";
import { policyDocsUrl } from "../../../tools/docs/policyTables";
import { git } from "../../stackFiles";

describe("refTree: where the repository lives", () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), "origin-"));
    before(() => {
        git(repo, "init", "-q");
        fs.writeFileSync(path.join(repo, "a.txt"), "a\n");
        git(repo, "add", "a.txt");
        git(repo, "commit", "-q", "-m", "a");
    });

    it("reads the web address off the origin remote as actions/checkout and git clone write it, without credentials", () => {
        for (const [remote, web] of [
            ["https://github.com/acme/platform.git", "https://github.com/acme/platform"],
            ["https://github.com/acme/platform", "https://github.com/acme/platform"],
            ["https://x-access-token:ghs_secret@github.com/acme/platform.git", "https://github.com/acme/platform"],
            ["git@github.com:acme/platform.git", "https://github.com/acme/platform"],
            ["https://gitlab.example.com/group/sub/platform.git", "https://gitlab.example.com/group/sub/platform"],
        ]) {
            git(repo, "remote", "add", "origin", remote);
            expect(originWebUrl(repo), remote).to.equal(web);
            git(repo, "remote", "remove", "origin");
        }
    });

    it("has no web address for a local clone's remote, or without a remote", () => {
        git(repo, "remote", "add", "origin", "/work/main");
        expect(originWebUrl(repo)).to.equal(null);
        git(repo, "remote", "remove", "origin");
        expect(originWebUrl(repo)).to.equal(null);
        expect(policyDocsUrl(repo)).to.equal(null);
    });

    it("links docs/policies.md at the checked-out commit, or where --docs-url says", () => {
        git(repo, "remote", "add", "origin", "git@github.com:acme/platform.git");
        const commit = headCommit(repo);
        expect(commit).to.match(/^[0-9a-f]{40}$/);
        expect(policyDocsUrl(repo)).to.equal(`https://github.com/acme/platform/blob/${commit}/docs/policies.md`);
        expect(policyDocsUrl(repo, "https://mirror.example/docs/policies.md")).to.equal("https://mirror.example/docs/policies.md");
        expect(headCommit(os.tmpdir())).to.equal(null);
    });
});
