/**
 * `npm run mutate -- <module> [--full] [--concurrency N]`: mutation testing (StrykerJS) of one of
 * the modules whose verdicts users rely on. Each module names the source files mutated and the
 * tests that judge them; Stryker plants one small bug at a time (a flipped comparison, a dropped
 * condition, a changed constant) and reports each one no test caught.
 *
 * Incremental by default: the results of the last run live in `reports/mutation/<module>.json`, so a
 * re-run tests only the mutants whose code or tests changed. `--full` starts over.
 *
 * Not part of CI (a module takes minutes to an hour on two cores); the scores are in
 * docs/mutation.md. Mutation runs in place (`inPlace`): the workspace packages are symlinked into
 * node_modules, so a sandbox copy would still load the unmutated `kernel/`, `evaluation/` and
 * `rehearsal/`. Stryker restores every file it changed when the run ends or is interrupted with
 * Ctrl-C, from a copy taken at the start: an edit made meanwhile to a mutated file is lost. Run it
 * in a worktree of its own.
 */

import * as fs from "fs";
import * as path from "path";
import { parseCommandLine, runMain } from "../tools/cli/cli";
import { InputError } from "../tools/cli/errors";

/** A module under mutation testing: what is mutated and which tests judge it. */
export interface MutationModule {
    /** What the module decides, for the usage text. */
    readonly about: string;
    /** Source files to mutate (globs, relative to the repository root). */
    readonly mutate: readonly string[];
    /** Test files that judge them (globs); only those covering a mutant run against it. */
    readonly tests: readonly string[];
}

/**
 * The tests of the stack config: the assembly (components/config) and each section, beside the
 * component that owns it (`<component>.schema.test.ts`, `<folder>/schema.test.ts`).
 */
const CONFIG_TESTS = [
    "test/components/config/*.test.ts",
    "test/components/*.schema.test.ts",
    "test/components/addons/schema.test.ts",
    "test/components/karpenter/schema.test.ts",
    "test/components/nodegroups/schema.test.ts",
];

/** The modules, by the name `npm run mutate -- <name>` takes. */
export const MUTATION_MODULES: Readonly<Record<string, MutationModule>> = {
    rehearsal: {
        about: "the drain rehearsal (Karpenter, managed and self-managed node groups, NTH, PDBs)",
        mutate: ["rehearsal/*.ts", "rehearsal/rollouts/*.ts", "kernel/drain.ts"],
        tests: [
            "test/rehearsal/*.test.ts",
            "test/rehearsal/rollouts/*.test.ts",
            "test/policies/drainRehearsal.test.ts",
            "test/tools/manifests/drain.test.ts",
        ],
    },
    diff: {
        about: "the offline diff and its replacement data (create, update, replace, delete)",
        mutate: ["tools/changes/diff.ts", "tools/changes/diffStack.ts", "tools/render/replacements.ts", "kernel/replacement.ts"],
        // Not diffStack.test.ts and diffStack.refused.test.ts: they render in child processes, which
        // per-test coverage does not see, and every static mutant (the replacement table) would run
        // them, a minute each. The command itself is judged in process, and `renderInChild` on a
        // one-resource program (diffStack.command.test.ts, a few seconds).
        // The diffStack tests last: they check out a ref per test (seconds), and a static mutant of
        // the replacement table runs every test until one fails, which is usually in replacements.test.ts.
        tests: [
            "test/tools/render/replacements.test.ts",
            "test/kernel/replacement.test.ts",
            "test/tools/changes/diff.test.ts",
            "test/tools/changes/diff.rules.test.ts",
            "test/tools/changes/diffStack.report.test.ts",
            "test/tools/changes/diffStack.command.test.ts",
            "test/tools/changes/diffStack.roles.test.ts",
        ],
    },
    platformFit: {
        about: "platform fit: whether manifests get the storage and ingress classes, load balancers and metrics a stack provides",
        mutate: ["tools/manifests/platformFit.ts"],
        tests: ["test/tools/manifests/platformFit.test.ts", "test/tools/manifests/platformFit.rules.test.ts"],
    },
    validation: {
        about: "API-server validation before any policy: schemas, names, label keys and values",
        mutate: ["tools/gate/schema.ts", "kernel/names.ts"],
        tests: ["test/kernel/names.test.ts", "test/tools/gate/schema.test.ts"],
    },
    deployPath: {
        about: "the deploy path's config checks: API endpoint access, runners, access entries",
        mutate: ["components/cluster.schema.ts", "components/access.schema.ts", "tools/ci/runners.ts"],
        tests: [...CONFIG_TESTS, "test/tools/ci/runners.test.ts", "test/tools/ci/runners.command.test.ts"],
    },
    iamEscalation: {
        about: "IAM escalation paths: what Pod Identity roles and namespace teams' access entries may grant, and the IAM limits config checks",
        mutate: [
            "kernel/iamPolicy.ts",
            "policies/appRoleLeastPrivilege.ts",
            "policies/accessLeastPrivilege.ts",
            "components/namespaces.schema.ts",
        ],
        tests: [
            "test/kernel/iamPolicy.test.ts",
            "test/policies/appRoleLeastPrivilege.test.ts",
            "test/policies/accessLeastPrivilege.test.ts",
            ...CONFIG_TESTS,
        ],
    },
    upgrade: {
        about: "the upgrade plan and what a Kubernetes minor upgrade does to a stack (drift, skew, add-ons, removed APIs)",
        mutate: ["tools/changes/upgradeImpact.ts", "tools/changes/upgrade.ts"],
        // Not the CLI tests of upgrade.test.ts' second describe: they render in a child process.
        tests: ["test/tools/changes/upgrade.test.ts", "test/tools/changes/upgradeImpact.test.ts", "test/tools/changes/diff.test.ts"],
    },
    requestPath: {
        about: "the request path: what load balancer routes to each pod, and whether its exit fits (preStop, grace, deregistration delay, windows, readiness gates)",
        mutate: ["evaluation/requestPath.ts", "policies/workloadRequestPath.ts", "rehearsal/requestPaths.ts"],
        // Not workloadRequestPath.gate.test.ts: it runs the gate in a child process.
        tests: ["test/evaluation/requestPath.test.ts", "test/policies/workloadRequestPath.test.ts", "test/rehearsal/requestPaths.test.ts"],
    },
    podSecurity: {
        about: "Pod Security Standards (baseline and restricted) as the admission plugin checks them",
        mutate: ["evaluation/podSecurity.ts", "kernel/podSecurityLevels.ts"],
        tests: [
            "test/evaluation/podSecurity.test.ts",
            "test/kernel/podSecurityLevels.test.ts",
            "test/policies/podSecurityStandard.test.ts",
        ],
    },
    preflight: {
        about: "the preflight: what only the account can answer before up, judged on the SDK's answers (issue #26)",
        mutate: ["tools/preflight/preflightChecks.ts", "tools/preflight/preflight.ts"],
        tests: ["test/tools/preflight/preflightChecks.test.ts"],
    },
    drift: {
        about: "the scheduled drift check's verdict and exit code on pulumi preview --refresh --json (issue #26)",
        mutate: ["tools/ci/drift.ts"],
        tests: ["test/tools/ci/drift.test.ts"],
    },
    waivers: {
        about: "waivers: how far one reaches (its object, its policy), what it needs (a policy of the pack, a reason), what is never waivable (the API server's validation) and what an environment forbids (issue #54)",
        mutate: ["tools/manifests/waivers.ts"],
        tests: ["test/tools/manifests/waivers.test.ts"],
    },
    profile: {
        about: "the platform profile: what it keeps of the platform (context, each namespace's quotas, lifecycle hooks with their groups), its summary, how strictly it is read back (issue #54)",
        mutate: ["tools/manifests/platformProfile.ts"],
        // Not platformProfile.test.ts: it renders each stack in a child process, which per-test
        // coverage does not see; `buildProfile` (the render) runs only there.
        tests: ["test/tools/manifests/platformProfile.rules.test.ts"],
    },
    autoMode: {
        about: "EKS Auto Mode: what AWS refuses in its config, and its objects (issue #27)",
        // config/index.ts: the check that some pool runs a pod that tolerates no taint (issue 53).
        mutate: [
            "components/compute/autoMode.schema.ts",
            "components/compute/autoMode.ts",
            "components/compute/schema.ts",
            "components/compute/index.ts",
            "components/config/index.ts",
        ],
        tests: [
            "test/components/compute/autoMode.config.test.ts",
            "test/components/compute/autoMode.test.ts",
            "test/components/compute/index.test.ts",
        ],
    },
    gateRuntime: {
        about: "the gate's speed layers that must not change a verdict: reading threads, the in-process pack's shared copies, properties without the SDK's proxy, config validators kept between runs, the SDK's stacks offline (issue #28)",
        mutate: [
            "tools/manifests/manifestReader.ts",
            "tools/gate/inProcessPack.ts",
            "policies/runtime/packRuntime.ts",
            "kernel/config.ts",
            "kernel/stackTrace.ts",
            "tools/render/offline.ts",
        ],
        tests: [
            "test/tools/manifests/manifestReader.test.ts",
            "test/tools/gate/inProcessPack.sharing.test.ts",
            "test/policies/runtime/packRuntime.test.ts",
            "test/kernel/config.test.ts",
            "test/kernel/stackTrace.test.ts",
            "test/tools/gate/policyConfig.test.ts",
            "test/tools/render/offline.test.ts",
        ],
    },
    deployer: {
        about: "the deploy role's policy and the stacks' permissions boundary, derived from each stack's plan (issues #25, #46)",
        mutate: [
            "tools/roles/deployRole.ts",
            "tools/roles/deployerActions.ts",
            "tools/roles/deployerPolicy.ts",
            "kernel/deployScope.ts",
            "tools/roles/boundaryAllowList.ts",
        ],
        tests: [
            "test/tools/roles/deployerPolicy.test.ts",
            "test/tools/roles/deployerActions.test.ts",
            "test/tools/roles/deployerPolicy.simulation.test.ts",
        ],
    },
    authorization: {
        about: "policies checked against AWS's authorization data, and a first up's AccessDenied events judged (issue #46)",
        mutate: ["tools/roles/authorizationData.ts", "tools/roles/deniedEvents.ts"],
        tests: ["test/tools/roles/authorizationData.test.ts", "test/tools/roles/deniedEvents.test.ts"],
    },
};

const ROOT = path.resolve(__dirname, "..");

/** What one run does beyond its module. */
export interface MutateOptions {
    /** Forget the last run's results and test every mutant. */
    readonly full: boolean;
    /** Type-check each mutant first (the TypeScript checker). */
    readonly check: boolean;
    /** Test runner processes (each also loads the module's tests). */
    readonly concurrency: number;
    /** One file of the module (with an optional `:<from>-<to>` line range) instead of all. */
    readonly only?: string;
}

/** Whether a path matches a table glob (exact paths and `<dir>/<prefix>*<suffix>` only). */
export function matchesGlob(file: string, glob: string): boolean {
    if (!glob.includes("*")) {
        return file === glob;
    }
    const [prefix, suffix] = glob.split("*");
    return file.startsWith(prefix) && file.endsWith(suffix) && !file.slice(prefix.length, file.length - suffix.length).includes("/");
}

const USAGE = [
    "usage: npm run mutate -- <module> [--only FILE[:FROM-TO]] [--check] [--full] [--concurrency N]",
    "",
    "  --only FILE    mutate one file of the module (a line range narrows it further)",
    "  --check        type-check each mutant first (the TypeScript checker; about 20x slower)",
    "  --full         forget the last run's results (reports/mutation/<module>.json)",
    "",
    "modules:",
    ...Object.entries(MUTATION_MODULES).map(([name, m]) => `  ${name.padEnd(12)} ${m.about}`),
].join("\n");

/** The command line, read strictly: one known module, known flags only. */
export function parseMutateArgs(argv: readonly string[]): MutateOptions & { module: string } {
    const { values, positionals } = parseCommandLine(
        argv,
        { full: { type: "boolean" }, check: { type: "boolean" }, concurrency: { type: "string" }, only: { type: "string" } },
        USAGE,
    );
    const concurrency = Number(values.concurrency ?? "1");
    if (!Number.isInteger(concurrency) || concurrency < 1) {
        throw new InputError(`--concurrency takes a whole number of at least 1, not "${values.concurrency}"\n${USAGE}`);
    }
    if (positionals.length !== 1) {
        throw new InputError(`name one module\n${USAGE}`);
    }
    if (!Object.hasOwn(MUTATION_MODULES, positionals[0])) {
        throw new InputError(`unknown module "${positionals[0]}"\n${USAGE}`);
    }
    const m = MUTATION_MODULES[positionals[0]];
    // A file of the module, optionally with a line range (`rehearsal/rollout.ts:120-180`).
    const only = values.only;
    if (only !== undefined && !m.mutate.some((glob) => matchesGlob(only.replace(/:[\d:-]+$/, ""), glob))) {
        throw new InputError(`--only ${only} is not a file of module ${positionals[0]} (${m.mutate.join(", ")})`);
    }
    return { module: positionals[0], full: values.full === true, check: values.check === true, concurrency, only };
}

/**
 * Writes `reports/mutation/tsconfig.<module>.json`: the repository's compiler options, with the
 * module's files as the only roots. Returns its path.
 */
function checkerConfig(name: string): string {
    const file = `reports/mutation/tsconfig.${name}.json`;
    const config = { extends: "../../tsconfig.json", include: MUTATION_MODULES[name].mutate.map((glob) => `../../${glob}`) };
    fs.mkdirSync(path.join(ROOT, path.dirname(file)), { recursive: true });
    fs.writeFileSync(path.join(ROOT, file), `${JSON.stringify(config, null, 4)}\n`);
    return file;
}

/** Stryker's options for one module (the JSON a `stryker.config.json` would hold). */
export function strykerOptions(name: string, opts: MutateOptions): Record<string, unknown> {
    const m = MUTATION_MODULES[name];
    return {
        packageManager: "npm",
        testRunner: "mocha",
        mochaOptions: {
            // .mocharc.json for require, extension and timeout; the module's tests instead of all.
            config: ".mocharc.json",
            spec: [...m.tests],
        },
        mutate: opts.only ? [opts.only] : [...m.mutate],
        // The TypeScript checker drops mutants that would not compile (CompileError) before any test
        // runs; it costs about 20× (platformFit: 25 min instead of 75 s), so it runs on --check.
        checkers: opts.check ? ["typescript"] : [],
        // The checker type-checks each mutant against a program of the module's files and what they
        // import, not the whole repository (tests and Pulumi's SDK types): minutes instead of hours.
        tsconfigFile: checkerConfig(name),
        typescriptChecker: { prioritizePerformanceOverAccuracy: true },
        coverageAnalysis: "perTest",
        inPlace: true,
        // Tests run transpile-only, so no file needs `// @ts-nocheck`; in place, the default would
        // write it atop every file of the repository for the length of the run.
        disableTypeChecks: false,
        incremental: !opts.full,
        incrementalFile: `reports/mutation/${name}.json`,
        concurrency: opts.concurrency,
        timeoutMS: 60000,
        reporters: ["clear-text", "progress", "html"],
        htmlReporter: { fileName: `reports/mutation/${name}.html` },
        thresholds: { high: 90, low: 80, break: null },
        tempDirName: ".stryker-tmp",
        cleanTempDir: "always",
    };
}

async function main(argv: readonly string[]): Promise<number> {
    const { module, ...opts } = parseMutateArgs(argv);
    process.chdir(ROOT);
    // Stryker is ESM-only: a real dynamic import, kept as such by the node16 module setting.
    const { Stryker } = await import("@stryker-mutator/core");
    const results = await new Stryker(strykerOptions(module, opts)).runMutationTest();
    const killed = results.filter((r) => r.status === "Killed" || r.status === "Timeout").length;
    const valid = results.filter((r) => r.status !== "CompileError" && r.status !== "RuntimeError" && r.status !== "Ignored").length;
    const score = valid === 0 ? 100 : (100 * killed) / valid;
    process.stdout.write(`\n${module}: mutation score ${score.toFixed(1)} % (${killed} of ${valid} mutants killed)\n`);
    return 0;
}

if (require.main === module) {
    runMain(() => main(process.argv.slice(2)));
}
