// Preload of the offline gate's policy-pack process: its TypeScript compiled by swc (@swc/core)
// as each file loads, the way ts-node's swc mode would, without ts-node. ts-node first loads the
// TypeScript compiler just to read tsconfig.json, about 1.4 s of a 2 s pack boot on 2 cores; the
// options below are the ones ts-node derives from this repository's tsconfig.json (ES2022,
// CommonJS with esModuleInterop, "use strict", class names kept). Stack traces still name .ts
// lines: swc writes an inline source map that Node applies (process.setSourceMapsEnabled).
//
// The Pulumi CLI's own policy runner does not use this file: it registers ts-node with type
// checking (see policies/tsconfig.json), and `npm test` type-checks the pack.
"use strict";
const fs = require("fs");
const path = require("path");
const Module = require("module");
const swc = require("@swc/core");

// The options shared with the launcher's cache (tools/cli/swcCache.js), source maps inline here.
const options = { ...require("./swcCache").swcOptions, sourceMaps: "inline" };

process.setSourceMapsEnabled(true);
require.extensions[".ts"] = function compileTypeScript(module, filename) {
    const { code } = swc.transformSync(fs.readFileSync(filename, "utf8"), { ...options, filename });
    module._compile(code, filename);
};

// `@pulumi/policy` loads all of `@pulumi/pulumi`, whose index loads the Automation API (and with
// it npm's arborist and pacote) and the closure serializer (the TypeScript compiler): 0.9 s of the
// pack's boot for modules no policy calls. Each is loaded on first use instead. @pulumi/pulumi
// 3.270's index.js only re-exports `automation` (reading any of its members loads it), and
// runtime/index.js copies `serializeFunction(Async)` and `computeCodePaths` at load, so those
// modules stand in with functions that load the real module when called.
function deferModule(file, { membersAreFunctions }) {
    let real;
    const stub = new Module(file);
    const load = () => {
        if (real === undefined) {
            delete require.cache[file];
            real = require(file);
            require.cache[file] = stub;
        }
        return real;
    };
    stub.filename = file;
    stub.loaded = true;
    stub.exports = new Proxy(
        {},
        {
            get: (_target, name) => {
                if (name === "__esModule") {
                    return true;
                }
                if (!membersAreFunctions || real !== undefined) {
                    return load()[name];
                }
                return typeof name === "symbol" ? undefined : (...args) => load()[name](...args);
            },
        },
    );
    require.cache[file] = stub;
}
const sdk = path.dirname(require.resolve("@pulumi/pulumi", { paths: [process.cwd()] }));
deferModule(path.join(sdk, "automation", "index.js"), { membersAreFunctions: false });
deferModule(path.join(sdk, "runtime", "closure", "serializeClosure.js"), { membersAreFunctions: true });
deferModule(path.join(sdk, "runtime", "closure", "codePaths.js"), { membersAreFunctions: true });
