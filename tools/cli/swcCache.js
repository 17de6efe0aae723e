// The repository's TypeScript compiled by swc into a cache kept between runs, for the launcher
// (tools/cli/run.js). Requiring this file has no effect; `register()` installs the `.ts` loader.
//
// Cache key (one entry per compiled file): sha256 of the cache format, swc's version, the options
// below, tsconfig.json's text, the file's path and its source text. A content hash rather than
// mtime+size: the source must be read to compile it anyway and hashing it costs about 1 ms for the
// whole program, while mtime+size misses edits that keep both (same-second rewrites, checkouts
// that restore timestamps). An edited file gets a new key and is compiled again; every other
// entry still matches. tsconfig.json and the options are in every key: a change to either
// recompiles everything. Old entries are not pruned (a few KiB each; delete the directory).
//
// Each entry is `<key>.js` and `<key>.map`, each written to a temporary file of its own and renamed
// into place (the map first): a reader sees a whole entry or none, and two processes compiling the
// same file write the same bytes under the same name.
//
// Modules keep their .ts file names (`__filename`, `require.main`, the workspaces' package.json
// exports pointing at .ts files all resolve as under ts-node); only the code comes from the cache.
//
// Stack traces: frames in files compiled here are mapped to .ts lines by `prepareStackTrace`, each
// file's map read only when one of its frames is first formatted. Node's own source maps
// (--enable-source-maps) are not used: they look up every frame of every stack, and the SDK
// records a stack for each resource and each promise it tracks (see leaveSdkStacksUnmapped in
// tools/render/offline.ts, which keeps those unmapped under this mapper as under ts-node's).
"use strict";
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");

const ROOT = path.resolve(__dirname, "..", "..");
const FORMAT = "eks-platform-swc-cache 1";

/** What ts-node's swc mode derives from tsconfig.json (ES2022, CommonJS with esModuleInterop). */
const swcOptions = {
    swcrc: false,
    configFile: false,
    module: { type: "commonjs", noInterop: false, strictMode: true, ignoreDynamic: true },
    jsc: {
        parser: { syntax: "typescript", tsx: false, dynamicImport: true },
        target: "es2022",
        keepClassNames: true,
        transform: { useDefineForClassFields: true },
    },
};

function defaultCacheDir() {
    return process.env.EKS_PLATFORM_CACHE_DIR || path.join(ROOT, "node_modules", ".cache", "eks-platform", "swc");
}

function readOr(file, fallback) {
    try {
        return fs.readFileSync(file, "utf8");
    } catch {
        return fallback;
    }
}

/** Writes `text` to `file` through a temporary file in the same directory and a rename. */
function writeAtomic(file, text) {
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(6).toString("hex")}.tmp`;
    try {
        fs.writeFileSync(tmp, text);
        fs.renameSync(tmp, file);
    } catch (err) {
        fs.rmSync(tmp, { force: true });
        throw err;
    }
}

/**
 * A compiler with its cache in `cacheDir`: `compile(filename, source)` returns the JavaScript,
 * from the cache when its entry matches, else from swc (then stored).
 */
function createCompiler({ cacheDir = defaultCacheDir(), tsconfig = path.join(ROOT, "tsconfig.json") } = {}) {
    let swc;
    let made = false;
    const swcVersion = JSON.parse(fs.readFileSync(require.resolve("@swc/core/package.json"), "utf8")).version;
    const base = crypto
        .createHash("sha256")
        .update(`${FORMAT}\0${swcVersion}\0${JSON.stringify(swcOptions)}\0${readOr(tsconfig, "")}\0`)
        .digest("hex");
    const maps = new Map(); // compiled file name -> its map file
    const stats = { hits: 0, compiled: 0 };

    function compile(filename, source) {
        const key = crypto.createHash("sha256").update(`${base}\0${filename}\0${source}`).digest("hex");
        const js = path.join(cacheDir, `${key}.js`);
        const map = path.join(cacheDir, `${key}.map`);
        maps.set(filename, map);
        const cached = readOr(js, undefined);
        if (cached !== undefined) {
            stats.hits++;
            return cached;
        }
        swc = swc || require("@swc/core");
        const out = swc.transformSync(source, { ...swcOptions, filename, sourceMaps: true });
        stats.compiled++;
        try {
            if (!made) {
                fs.mkdirSync(cacheDir, { recursive: true });
                made = true;
            }
            writeAtomic(map, out.map);
            writeAtomic(js, out.code);
        } catch {
            // A cache that cannot be written (read-only tree) only costs the next run a compile.
        }
        return out.code;
    }

    return { compile, maps, stats };
}

function formatError(error) {
    try {
        return Error.prototype.toString.call(error);
    } catch {
        return "<error>";
    }
}

/** A `prepareStackTrace` mapping the frames of files in `maps` (file name -> map file). */
function stackMapper(maps) {
    const { SourceMap } = require("module");
    const parsed = new Map();
    const sourceMapOf = (file) => {
        let sm = parsed.get(file);
        if (sm === undefined) {
            try {
                sm = new SourceMap(JSON.parse(fs.readFileSync(maps.get(file), "utf8")));
            } catch {
                sm = null;
            }
            parsed.set(file, sm);
        }
        return sm;
    };
    const frameText = (frame) => {
        const text = String(frame);
        const file = frame.getFileName();
        if (!file || !maps.has(file)) {
            return text;
        }
        const line = frame.getLineNumber();
        const column = frame.getColumnNumber();
        const sm = sourceMapOf(file);
        const entry = sm && line && column ? sm.findEntry(line - 1, column - 1) : undefined;
        if (!entry || entry.originalLine === undefined) {
            return text;
        }
        const at = `${file}:${line}:${column}`;
        const i = text.lastIndexOf(at);
        return i < 0
            ? text
            : `${text.slice(0, i)}${file}:${entry.originalLine + 1}:${entry.originalColumn + 1}${text.slice(i + at.length)}`;
    };
    return (error, frames) => [formatError(error), ...frames.map((f) => `    at ${frameText(f)}`)].join("\n");
}

/** Installs the `.ts` loader backed by the cache, and the stack mapper; returns the compiler. */
function register(options) {
    const compiler = createCompiler(options);
    require.extensions[".ts"] = function loadTypeScript(module, filename) {
        module._compile(compiler.compile(filename, fs.readFileSync(filename, "utf8")), filename);
    };
    Error.prepareStackTrace = stackMapper(compiler.maps);
    return compiler;
}

module.exports = { swcOptions, createCompiler, stackMapper, register, defaultCacheDir };
