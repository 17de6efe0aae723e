/**
 * Policy config validators kept between runs, for the tools' own process (the kernel only
 * compiles: kernel/config.ts). The gate validates every policy's config (policyConfig.ts), and the
 * pack's policies, run in this process (inProcessPack.ts), validate theirs again; compiling them
 * loads Ajv's compiler and compiles the draft-07 meta-schema first. Read back from Ajv's standalone
 * code, none of that loads: about 150 ms of CPU a run on 2 cores, 5–6 % of `policy:check` on an
 * application repository and of the prod plan (docs/benchmarks.md).
 */
import { createHash, randomBytes } from "crypto";
import * as fs from "fs";
import * as path from "path";
import type { default as Ajv, ValidateFunction } from "ajv";
import { AJV_OPTIONS, setValidatorSource } from "eks-platform-kernel";

let ajv: Ajv | undefined;

/** Where compiled validators are kept: beside Ajv's own package, in the `node_modules/.cache` the launcher's swc cache uses (tools/cli/swcCache.js). */
export function validatorCacheDir(): string {
    return path.join(path.dirname(require.resolve("ajv/package.json")), "..", ".cache", "eks-platform", "ajv");
}

/**
 * The validator of a schema (`text`, sorted JSON): Ajv's standalone code for it from `dir`, or
 * compiled now and written there for the next run. The entry's name is the SHA-256 of Ajv's
 * version, the options and the schema, so a changed schema or Ajv upgrade is compiled afresh;
 * written through a temporary file and a rename, so a reader sees a whole entry or none. An
 * entry that cannot be read, or does not load as a validator, is compiled again; a cache that
 * cannot be written is skipped. Either way the validator is Ajv's, for the same schema.
 */
export function cachedValidator(text: string, dir: string = validatorCacheDir()): ValidateFunction {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const version = (require("ajv/package.json") as { version: string }).version;
    const key = createHash("sha256")
        .update(JSON.stringify(["eks-platform-ajv-cache 1", version, AJV_OPTIONS, text]))
        .digest("hex");
    const file = path.join(dir, `${key}.js`);
    try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const stored = require(file) as unknown;
        if (typeof stored === "function") {
            return stored as ValidateFunction;
        }
    } catch {
        // Absent or unreadable: compiled below.
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    ajv ??= new (require("ajv") as typeof import("ajv")).default({ ...AJV_OPTIONS, code: { source: true } });
    const validate = ajv.compile(JSON.parse(text) as object);
    try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const standalone = (require("ajv/dist/standalone") as typeof import("ajv/dist/standalone")).default;
        fs.mkdirSync(dir, { recursive: true });
        const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
        try {
            fs.writeFileSync(tmp, standalone(ajv, validate));
            fs.renameSync(tmp, file);
        } finally {
            fs.rmSync(tmp, { force: true });
        }
    } catch {
        // A read-only install: every run compiles.
    }
    return validate;
}

/** Makes this process's policy config validators come from the cache (`cachedValidator`). */
export function keepValidatorsBetweenRuns(): void {
    setValidatorSource(cachedValidator);
}
