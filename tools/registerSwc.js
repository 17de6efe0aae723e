// Preload of the offline gate's policy-pack process: ts-node transpiling with swc, as the program
// does. The pack's tsconfig turns swc off because the Pulumi CLI's policy runner type-checks
// (`typeCheck: true`), which ts-node does not allow with swc; `npm test` type-checks the pack.
require("ts-node").register({ transpileOnly: true, swc: true, project: process.env.TS_NODE_PROJECT || undefined });
