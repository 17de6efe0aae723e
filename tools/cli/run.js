// Runs a TypeScript tool without ts-node: `node tools/cli/run.js tools/render/plan.ts <args>`. Each module's
// code comes from swc's output cached in node_modules/.cache/eks-platform/swc (tools/cli/swcCache.js),
// compiled again only for files whose source changed; stacks still name .ts lines. ts-node loads
// the TypeScript compiler just to read tsconfig.json: about 0.15 s of each tool's start measured
// on 2 cores (docs/benchmarks.md).
//
// The entry runs as the main module (`require.main === module`), with the same process.argv as
// `node -r ts-node/register/transpile-only <entry> <args>`. The Pulumi CLI runs index.ts with its
// own ts-node and never comes here.
"use strict";
const path = require("path");
const Module = require("module");
require("./swcCache").register();

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
    process.stderr.write("usage: node tools/cli/run.js <file.ts> [args...]\n");
    process.exit(2);
}
const file = path.resolve(entry);
process.argv = [process.argv[0], file, ...args];
// What Node's own runMain does for a CommonJS entry: load it as the main module.
Module._load(file, null, true);
