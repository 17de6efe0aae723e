#!/usr/bin/env node
// npm run test:unit [-- <path>… [mocha options]]: the whole suite, or only the tests of the paths
// given. A path is a test file, a folder (every *.test.ts under it), or a source file (its tests:
// test/<path>.test.ts and test/<path>.<aspect>.test.ts). The suite's own settings (.mocharc.json:
// ts-node, the timeout, the reporter) apply either way; any other argument goes to mocha as is.
//
// Plain `mocha <path>` runs the whole suite besides, because .mocharc.json lists every spec: this
// is the inner loop's way in.
"use strict";
const { spawnSync } = require("child_process");
const fs = require("fs");
const path = require("path");

const ROOT = path.resolve(__dirname, "..");
const MOCHA = require.resolve("mocha/bin/mocha.js", { paths: [ROOT] });

/** The spec globs of one path argument, or undefined when it names no path of the repository. */
function specsOf(arg) {
    const full = path.resolve(arg);
    if (!fs.existsSync(full)) {
        return undefined;
    }
    const rel = path.relative(ROOT, full).split(path.sep).join("/");
    if (fs.statSync(full).isDirectory()) {
        return [`${rel}/**/*.test.ts`];
    }
    if (rel.endsWith(".test.ts")) {
        return [rel];
    }
    // A source file: its tests, by the layout test/test.layout.test.ts enforces.
    const stem = `test/${rel.replace(/\.(ts|js|mjs)$/, "")}`;
    const found = [`${stem}.test.ts`, ...sameFolder(stem)].filter((f) => fs.existsSync(path.join(ROOT, f)));
    if (found.length === 0) {
        console.error(`no test of ${rel}: expected ${stem}.test.ts or ${stem}.<aspect>.test.ts`);
        process.exit(2);
    }
    return found;
}

/** test/<path>.<aspect>.test.ts files of a stem. */
function sameFolder(stem) {
    const dir = path.join(ROOT, path.dirname(stem));
    const base = path.basename(stem);
    return fs.existsSync(dir)
        ? fs
              .readdirSync(dir)
              .filter((f) => f.startsWith(`${base}.`) && f.endsWith(".test.ts"))
              .map((f) => `${path.dirname(stem)}/${f}`)
        : [];
}

function main(argv) {
    const specs = [];
    const rest = [];
    for (const arg of argv) {
        const found = arg.startsWith("-") ? undefined : specsOf(arg);
        if (found) {
            specs.push(...found);
        } else {
            rest.push(arg);
        }
    }
    if (specs.length === 0) {
        // The whole suite, as .mocharc.json lists it.
        return spawnSync(process.execPath, [MOCHA, ...rest], { cwd: ROOT, stdio: "inherit" }).status ?? 1;
    }
    const config = JSON.parse(fs.readFileSync(path.join(ROOT, ".mocharc.json"), "utf8"));
    const settings = [
        "--no-config",
        ...[].concat(config.require ?? []).flatMap((r) => ["--require", r]),
        ...[].concat(config.extension ?? []).flatMap((e) => ["--extension", e]),
        ...(config.timeout !== undefined ? ["--timeout", String(config.timeout)] : []),
        ...(config.reporter !== undefined ? ["--reporter", config.reporter] : []),
    ];
    return spawnSync(process.execPath, [MOCHA, ...settings, ...specs, ...rest], { cwd: ROOT, stdio: "inherit" }).status ?? 1;
}

process.exit(main(process.argv.slice(2)));
