/**
 * Manifest files read on threads of their own: the YAML parse is most of what the manifest gate
 * does with a large input (10,000 workloads: 4.6 s of the parse against 2.6 s of Analyze and 3 s of
 * AnalyzeStack, docs/benchmarks.md), and nothing in it depends on another file. Each thread reads, decodes
 * and parses whole files (`readObjects`, manifests.ts) and sends back plain objects with their
 * lines; this thread takes them in the order of the files, as the one-thread path reads them, so
 * what follows (names of unnamed objects, the first bad file's error, the verdicts) is the same.
 * A line asked for later (`lineOf`, for a verdict that names a field) parses that file again here.
 *
 * Threads pay off only past their start (about 50 ms each, loading `yaml` and swc's output), so
 * small inputs, and standard input, are read on this thread.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { isMainThread, parentPort, Worker, workerData } from "worker_threads";
import { locatedObjects, ManifestError, ManifestObject, ReadObject, readManifests, readObjects, STDIN_ARG } from "./manifests";

/** Marks the threads this module starts, so that loading it elsewhere serves nothing. */
const ROLE = "eks-platform-manifest-reader";

/**
 * Below this many bytes of files the input is read on this thread, and past it one more thread
 * reads per `BYTES_PER_THREAD`, up to the cores and `MAX_THREADS`. Measured on 2 cores with the
 * generated corpus (docs/benchmarks.md, medians of 3): 100 workloads (160 kB) gate in the same time either
 * way, 300 (480 kB) 50 ms faster on one reading thread, 1,000 (1.6 MB) 0.16 s faster on one and
 * no faster on two (this thread, which runs the pack, then has no core of its own), 10,000 (16 MB)
 * 2.1 s faster on one and 2.3 s on two.
 */
export const PARALLEL_BYTES = 256 * 1024;
export const BYTES_PER_THREAD = 8 * 1024 * 1024;

/** Reading threads at most: past them this thread, which runs the pack, is the bottleneck. */
export const MAX_THREADS = 4;

type Answer =
    | { id: number; read: ReadObject[] }
    | { id: number; refused: { file: string; line: number | undefined; reason: string } }
    | { id: number; crashed: string };

/**
 * How many threads read `files`: by their size (`PARALLEL_BYTES`, `BYTES_PER_THREAD`), none on one
 * core, for one file or for standard input alone; `parallel: true` gives two whatever the input
 * (a file each at least), `false` none.
 */
export function readingThreads(files: readonly string[], parallel: boolean | undefined, cores = os.availableParallelism()): number {
    const onDisk = files.filter((f) => f !== STDIN_ARG);
    if (parallel === false || onDisk.length < 2) {
        return 0;
    }
    if (parallel === true) {
        return 2;
    }
    let bytes = 0;
    for (const f of onDisk) {
        try {
            bytes += fs.statSync(f).size;
        } catch {
            // Unreadable: the reading thread names why, in its turn.
        }
    }
    if (cores < 2 || bytes < PARALLEL_BYTES) {
        return 0;
    }
    return Math.min(cores, MAX_THREADS, onDisk.length, Math.ceil(bytes / BYTES_PER_THREAD));
}

function startThread(): Worker {
    const swcCache = path.join(__dirname, "..", "cli", "swcCache.js");
    return new Worker(`require(${JSON.stringify(swcCache)}).register(); require(${JSON.stringify(__filename)});`, {
        eval: true,
        workerData: { role: ROLE },
    });
}

/** Files being read: each file's objects in turn, and `close` to stop the threads whatever happened. */
export interface FileReading extends AsyncIterable<ManifestObject[]> {
    close(): void;
}

/**
 * Starts reading `files` (their threads start now, so the caller's own start overlaps them): one
 * list of objects per file in the order of `files`, standard input read once, on this thread.
 * `parallel`: `true` reads on threads whatever the input's size, `false` never, unset decides by
 * size (`readingThreads`). A file that cannot be read or parsed throws its `ManifestError` when its
 * turn comes, after the files before it. The caller closes it (`finally`), iterated or not.
 * `readStdin` stands in for standard input (tests), as for `readManifests`.
 */
export function readEachFile(files: readonly string[], parallel?: boolean, readStdin?: () => Buffer | string): FileReading {
    const threads = readingThreads(files, parallel);
    if (threads === 0) {
        return {
            // Read here, there is nothing to wait for; the iterator is async as the threads' is.
            // eslint-disable-next-line @typescript-eslint/require-await
            async *[Symbol.asyncIterator]() {
                for (const f of files) {
                    yield readManifests([f], readStdin);
                }
            },
            close() {},
        };
    }
    const answers = new Map<number, Answer>();
    let waiting: { id: number; resolve: (a: Answer) => void; reject: (e: Error) => void } | undefined;
    let failed: Error | undefined;
    const onDisk = files.map((f, id) => ({ f, id })).filter(({ f }) => f !== STDIN_ARG);
    let next = 0;
    const pool = Array.from({ length: threads }, startThread);
    const inHand = new Map(pool.map((w) => [w, 0]));
    const stop = (w: Worker) => {
        w.removeAllListeners("exit");
        void w.terminate();
    };
    const send = (w: Worker) => {
        if (next < onDisk.length) {
            const { f, id } = onDisk[next++];
            w.postMessage({ id, file: f });
            inHand.set(w, (inHand.get(w) ?? 0) + 1);
        } else if (inHand.get(w) === 0) {
            // Nothing left for it: its heap goes now, not when the last file has been judged.
            stop(w);
        }
    };
    const fail = (err: Error) => {
        failed ??= err;
        waiting?.reject(failed);
        waiting = undefined;
    };
    for (const w of pool) {
        w.on("message", (a: Answer) => {
            inHand.set(w, (inHand.get(w) ?? 1) - 1);
            answers.set(a.id, a);
            if (waiting?.id === a.id) {
                waiting.resolve(a);
                waiting = undefined;
            }
            send(w);
        });
        w.on("error", (err) => fail(err));
        w.on("exit", (code) => {
            if (code !== 0) {
                fail(new Error(`a manifest-reading thread exited with code ${code}`));
            }
        });
        // Two files in hand each, so no thread waits for this one between files.
        send(w);
        send(w);
    }
    const answer = (id: number): Promise<Answer> => {
        const known = answers.get(id);
        if (known) {
            return Promise.resolve(known);
        }
        if (failed) {
            return Promise.reject(failed);
        }
        return new Promise((resolve, reject) => {
            waiting = { id, resolve, reject };
        });
    };
    const close = () => pool.forEach(stop);
    return {
        async *[Symbol.asyncIterator]() {
            try {
                for (let id = 0; id < files.length; id++) {
                    const f = files[id];
                    if (f === STDIN_ARG) {
                        yield readManifests([f], readStdin);
                        continue;
                    }
                    const a = await answer(id);
                    answers.delete(id);
                    if ("refused" in a) {
                        throw new ManifestError(a.refused.file, a.refused.line, a.refused.reason);
                    }
                    if ("crashed" in a) {
                        throw new Error(`reading ${f}: ${a.crashed}`);
                    }
                    yield locatedObjects(a.read, f);
                }
            } finally {
                close();
            }
        },
        close,
    };
}

/** A reading thread: answers each file it is sent with its objects, or why it cannot be read. */
function serve(port: NonNullable<typeof parentPort>): void {
    port.on("message", ({ id, file }: { id: number; file: string }) => {
        let a: Answer;
        try {
            a = { id, read: readObjects(file) };
        } catch (err) {
            a =
                err instanceof ManifestError
                    ? { id, refused: { file: err.file, line: err.line, reason: err.reason } }
                    : { id, crashed: (err as Error).stack ?? String(err) };
        }
        port.postMessage(a);
    });
}

if (!isMainThread && parentPort && (workerData as { role?: unknown } | null)?.role === ROLE) {
    serve(parentPort);
}
