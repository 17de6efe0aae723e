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
const swc = require("@swc/core");

const options = {
    swcrc: false,
    configFile: false,
    sourceMaps: "inline",
    module: { type: "commonjs", noInterop: false, strictMode: true, ignoreDynamic: true },
    jsc: {
        parser: { syntax: "typescript", tsx: false, dynamicImport: true },
        target: "es2022",
        keepClassNames: true,
        transform: { useDefineForClassFields: true },
    },
};

process.setSourceMapsEnabled(true);
require.extensions[".ts"] = function compileTypeScript(module, filename) {
    const { code } = swc.transformSync(fs.readFileSync(filename, "utf8"), { ...options, filename });
    module._compile(code, filename);
};
