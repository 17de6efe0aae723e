import { expect } from "chai";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { collectFiles, ManifestError, ManifestObject } from "../../../tools/manifests/manifests";
import { BYTES_PER_THREAD, MAX_THREADS, PARALLEL_BYTES, readEachFile, readingThreads } from "../../../tools/manifests/manifestReader";
import { ROOT } from "../../mocks";
import { pathsOf } from "../../paths";

async function drain(files: readonly string[], parallel: boolean): Promise<{ read: ManifestObject[][]; error?: string }> {
    const read: ManifestObject[][] = [];
    const reading = readEachFile(files, parallel);
    try {
        for await (const objects of reading) {
            read.push(objects);
        }
        return { read };
    } catch (err) {
        expect(err, String(err)).to.be.instanceOf(ManifestError);
        return { read, error: (err as Error).message };
    } finally {
        reading.close();
    }
}

/** What a reader gave: each object with its file and line, and the line of every path into it (plus one not written). */
function located(read: ManifestObject[][]): unknown {
    return read.map((objects) =>
        objects.map((o) => ({
            file: o.file,
            line: o.line,
            object: o.object,
            lines: [...pathsOf(o.object), ["metadata", "not-written"]].map((p) => o.lineOf?.(p)),
        })),
    );
}

function tempDir(files: Record<string, string>): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "manifest-reader-"));
    for (const [name, text] of Object.entries(files)) {
        fs.writeFileSync(path.join(dir, name), text);
    }
    return dir;
}

const doc = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`;

describe("manifest reader (tools/manifests/manifestReader.ts): files read on threads come back as if read here", function () {
    this.timeout(120_000);

    it("gives every file's objects in order, with the same lines for every path, as reading here does", async () => {
        const files = collectFiles([path.join(ROOT, "examples"), path.join(ROOT, "test", "fixtures", "manifests", "realworld")]);
        expect(files.length).to.be.greaterThan(4);
        const [threads, here] = [await drain(files, true), await drain(files, false)];
        expect(threads.error).to.equal(undefined);
        expect(threads.read.length).to.equal(files.length);
        expect(threads.read.flat().length).to.be.greaterThan(files.length);
        expect(located(threads.read)).to.deep.equal(located(here.read));
    });

    it("reads a List's items and skips documents that are no object, as reading here does", async () => {
        const dir = tempDir({
            "a.yaml": `${doc("a")}---\nplain: text\n---\napiVersion: v1\nkind: List\nitems:\n  - ${doc("b").trimEnd().split("\n").join("\n    ")}\n  - ${doc("c").trimEnd().split("\n").join("\n    ")}\n`,
            "b.yaml": `# nothing\n---\n${doc("d")}`,
        });
        try {
            const files = collectFiles([dir]);
            const [threads, here] = [await drain(files, true), await drain(files, false)];
            expect(threads.read.map((objects) => objects.map((o) => (o.object.metadata as { name: string }).name))).to.deep.equal([
                ["a", "b", "c"],
                ["d"],
            ]);
            expect(located(threads.read)).to.deep.equal(located(here.read));
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    for (const [what, bad] of [
        ["invalid YAML", "a: [unclosed\n"],
        ["text that is not UTF-8", Buffer.from([0x61, 0x3a, 0x20, 0xff, 0x0a]).toString("latin1")],
    ] as const) {
        it(`stops at the first file with ${what}, after the files before it, with the error reading here gives`, async () => {
            const dir = tempDir({ "1.yaml": doc("one"), "3.yaml": doc("three"), "4.yaml": doc("four") });
            fs.writeFileSync(path.join(dir, "2.yaml"), Buffer.from(bad, "latin1"));
            try {
                const files = collectFiles([dir]);
                const [threads, here] = [await drain(files, true), await drain(files, false)];
                expect(here.error).to.match(/2\.yaml:\d+: /);
                expect(threads.error).to.equal(here.error);
                expect(located(threads.read)).to.deep.equal(located(here.read));
                expect(threads.read.length).to.equal(1);
            } finally {
                fs.rmSync(dir, { recursive: true, force: true });
            }
        });
    }

    it("names a file gone before its turn as reading here does", async () => {
        const dir = tempDir({ "1.yaml": doc("one"), "2.yaml": doc("two") });
        try {
            const files = collectFiles([dir]);
            fs.rmSync(files[1]);
            const [threads, here] = [await drain(files, true), await drain(files, false)];
            expect(here.error).to.match(/2\.yaml: no such file or directory$/);
            expect(threads.error).to.equal(here.error);
            expect(threads.read.length).to.equal(1);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    for (const parallel of [true, false]) {
        it(`reads standard input once, in its place among the files (${parallel ? "threads" : "this thread"})`, async () => {
            const dir = tempDir({ "1.yaml": doc("one"), "2.yaml": doc("two") });
            const reading = readEachFile(
                [path.join(dir, "1.yaml"), "-", path.join(dir, "2.yaml")],
                parallel,
                () => `# stdin\n${doc("piped")}`,
            );
            try {
                const names: string[][] = [];
                for await (const objects of reading) {
                    names.push(objects.map((o) => `${o.file}:${o.line}:${(o.object.metadata as { name: string }).name}`));
                }
                expect(names).to.deep.equal([
                    [`${path.join(dir, "1.yaml")}:1:one`],
                    ["<stdin>:2:piped"],
                    [`${path.join(dir, "2.yaml")}:1:two`],
                ]);
            } finally {
                reading.close();
                fs.rmSync(dir, { recursive: true, force: true });
            }
        });
    }

    it("stops its threads when closed unread and when an error ends the reading, so the process can end", () => {
        // More files than the threads take in hand at once (two each), the second one bad.
        const dir = tempDir({
            ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`${String(i).padStart(2, "0")}.yaml`, doc(`n${i}`)])),
            "01.yaml": "a: [unclosed\n",
        });
        try {
            const files = JSON.stringify(collectFiles([dir]));
            const script = `require(${JSON.stringify(path.join(ROOT, "tools", "cli", "swcCache.js"))}).register();
                const { readEachFile } = require(${JSON.stringify(path.join(ROOT, "tools", "manifests", "manifestReader.ts"))});
                (async () => {
                    readEachFile(${files}, true).close();
                    let error = "none";
                    try {
                        for await (const objects of readEachFile(${files}, true)) {}
                    } catch (err) {
                        error = err.constructor.name;
                    }
                    console.log(error);
                })();`;
            // Threads left running keep the process alive: the timeout fails the test.
            const out = execFileSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 20_000 });
            expect(out.trim()).to.equal("ManifestError");
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    describe("readingThreads", () => {
        let dir: string;
        const sized = (name: string, bytes: number) => {
            const f = path.join(dir, name);
            fs.writeFileSync(f, "");
            fs.truncateSync(f, bytes);
            return f;
        };
        beforeEach(() => {
            dir = fs.mkdtempSync(path.join(os.tmpdir(), "reading-threads-"));
        });
        afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

        it("reads here what is too small to pay for a thread, and on one core", () => {
            const small = [sized("a.yaml", PARALLEL_BYTES / 2 - 1), sized("b.yaml", PARALLEL_BYTES / 2)];
            expect(readingThreads(small, undefined, 2)).to.equal(0);
            const enough = [sized("c.yaml", PARALLEL_BYTES / 2), sized("d.yaml", PARALLEL_BYTES / 2)];
            expect(readingThreads(enough, undefined, 2)).to.equal(1);
            expect(readingThreads(enough, undefined, 1)).to.equal(0);
        });

        it("adds a thread per BYTES_PER_THREAD, up to the cores, the files and MAX_THREADS", () => {
            const files = Array.from({ length: 8 }, (_, i) => sized(`${i}.yaml`, BYTES_PER_THREAD));
            expect(readingThreads(files.slice(0, 2), undefined, 16)).to.equal(2);
            expect(readingThreads([...files.slice(0, 2), sized("x.yaml", 1)], undefined, 16)).to.equal(3);
            expect(readingThreads(files, undefined, 3)).to.equal(3);
            expect(readingThreads(files, undefined, 64)).to.equal(MAX_THREADS);
            expect(readingThreads([files[0], sized("y.yaml", BYTES_PER_THREAD * 3)], undefined, 16)).to.equal(2);
        });

        it("reads one file, standard input or parallel: false here, and parallel: true on two threads", () => {
            const big = [sized("a.yaml", BYTES_PER_THREAD), sized("b.yaml", BYTES_PER_THREAD)];
            expect(readingThreads([big[0]], undefined, 16)).to.equal(0);
            expect(readingThreads([big[0], "-"], undefined, 16)).to.equal(0);
            expect(readingThreads(big, false, 16)).to.equal(0);
            expect(readingThreads([sized("c.yaml", 1), sized("d.yaml", 1)], true, 1)).to.equal(2);
            expect(readingThreads([path.join(dir, "missing.yaml"), big[0]], undefined, 16)).to.equal(1);
        });
    });
});
