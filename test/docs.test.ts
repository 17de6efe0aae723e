/**
 * docs/ and README.md as a newcomer reads them: the README's first screen says what this is, the
 * two commands and where the deploy path starts, and every relative link (a file, and a heading
 * in it) leads somewhere.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { ROOT } from "./mocks";

/** README.md and every Markdown file of docs/, relative to the repository root. */
const FILES = [
    "README.md",
    ...fs
        .readdirSync(path.join(ROOT, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
];

/** Text outside fenced code blocks (links and headings there are not Markdown). */
function prose(file: string): string {
    return fs.readFileSync(path.join(ROOT, file), "utf8").replace(/^```[\s\S]*?^```/gm, "");
}

/** A heading's anchor as GitHub makes it: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
export function slug(heading: string): string {
    return heading
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replace(/ /g, "-");
}

/** The anchors of a Markdown file: one per heading (repeats numbered `-1`, `-2`, …) and per `<a id>`. */
function anchors(file: string): Set<string> {
    const text = prose(file);
    const seen = new Map<string, number>();
    const out = new Set<string>();
    for (const m of text.matchAll(/^#{1,6} (.*)$/gm)) {
        const s = slug(m[1]);
        const n = seen.get(s) ?? 0;
        seen.set(s, n + 1);
        out.add(n === 0 ? s : `${s}-${n}`);
    }
    for (const m of text.matchAll(/<a (?:id|name)="([^"]+)"/g)) {
        out.add(m[1]);
    }
    return out;
}

/** Each relative link of `file` that leads nowhere, with why. */
function brokenLinks(file: string): string[] {
    const broken: string[] = [];
    for (const m of prose(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) {
            continue; // https:, mailto:
        }
        const [target, anchor] = link.split("#");
        const resolved = target ? path.normalize(path.join(path.dirname(file), target)) : file;
        if (!fs.existsSync(path.join(ROOT, resolved))) {
            broken.push(`${file}: ${link}: no file ${resolved}`);
        } else if (anchor !== undefined && resolved.endsWith(".md") && !anchors(resolved).has(anchor)) {
            broken.push(`${file}: ${link}: no heading #${anchor} in ${resolved}`);
        }
    }
    return broken;
}

describe("docs/ and README.md: a newcomer finds the way", () => {
    it("every relative link leads to a file, and every #anchor to a heading of it", () => {
        const links = FILES.flatMap((f) => [...prose(f).matchAll(/\]\(([^)\s]+)\)/g)]).length;
        expect(links, "links checked").to.be.greaterThan(50);
        expect(FILES.flatMap(brokenLinks)).to.deep.equal([]);
    });

    it("the check itself finds a missing file, a missing heading, and follows GitHub's anchors", () => {
        expect(slug("The one step: `npm run bootstrap`")).to.equal("the-one-step-npm-run-bootstrap");
        expect(slug("Nodes: managed groups, self-managed groups, Karpenter")).to.equal(
            "nodes-managed-groups-self-managed-groups-karpenter",
        );
        const tmp = path.join("docs", `links-check-${process.pid}.md`);
        fs.writeFileSync(
            path.join(ROOT, tmp),
            "# Title\n\n[a](ci.md#no-such-heading) [b](nowhere.md) [c](#title) [d](https://example.com)\n",
        );
        try {
            expect(brokenLinks(tmp)).to.deep.equal([
                `${tmp}: ci.md#no-such-heading: no heading #no-such-heading in docs/ci.md`,
                `${tmp}: nowhere.md: no file docs/nowhere.md`,
            ]);
        } finally {
            fs.rmSync(path.join(ROOT, tmp));
        }
    });

    it("the README's first screen: what this is, the two commands after cloning, where the deploy path and a table of contents are", () => {
        const first = fs.readFileSync(path.join(ROOT, "README.md"), "utf8").split("\n").slice(0, 30).join("\n");
        expect(first).to.include("npm ci && npm run plan -- dev");
        expect(first).to.match(/^npm test\s/m);
        expect(first).to.include("(docs/bootstrap.md)");
        expect(first).to.include("**Contents**");
        // .ci/run runs the README's test command.
        expect(fs.readFileSync(path.join(ROOT, ".ci", "run"), "utf8")).to.match(/\bnpm test\b/);
    });
});
