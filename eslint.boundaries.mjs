// The layering of the repository, enforced (test/eslint.boundaries.test.ts proves each rule fires):
//
//   kernel/      the facts everyone shares            imports nothing of ours
//   evaluation/  the pack's evaluation library        the kernel, by package name
//   rehearsal/   the drain simulator                  the kernel and the evaluation library, by package name
//   policies/    the pack and its runtime             the kernel, the evaluation library and the rehearsal, by package name
//   components/  the program (and index.ts)          the kernel, by package name
//   tools/, test/                                     anything, packages by name
//
// Packages are reached only through their exports maps: `eks-platform-kernel` (and
// `/data/*.json`), `eks-platform-evaluation`, `eks-platform-rehearsal`, `eks-platform-policies` (and
// `/runtime`). tsc refuses any other subpath too; this says why, and also catches a relative path
// into another package.

/** A deep import of a package: any subpath its exports map does not list. */
const DEEP = {
    regex: "^eks-platform-(kernel/(?!data/[\\w.-]+\\.json$)|evaluation/|rehearsal/|policies/(?!runtime$))",
    message:
        "reach a package through its exports map: eks-platform-kernel, eks-platform-evaluation, eks-platform-rehearsal, eks-platform-policies, eks-platform-policies/runtime",
};

/** A relative path out of the file's own package into one of `dirs`. */
function relativeInto(dirs, why) {
    return { regex: `^(\\.\\./)+(${dirs.join("|")})(/|$)`, message: why };
}

const rule = (...patterns) => ({ "no-restricted-imports": ["error", { patterns: [DEEP, ...patterns] }] });

const BY_NAME =
    "import another package by package name (eks-platform-kernel, eks-platform-evaluation, eks-platform-rehearsal, eks-platform-policies), never by relative path";

/**
 * test/ mirrors the source tree, so it has folders named like the packages (test/kernel/,
 * test/evaluation/, test/policies/, test/rehearsal/): from a test file, a relative path reaches a package only by
 * climbing to the repository root, one `../` per folder the file is in.
 */
const TEST_DEPTHS = [0, 1, 2, 3, 4].map((depth) => ({
    files: [["test", ...Array(depth).fill("*"), "*.ts"].join("/")],
    rules: rule({ regex: `^(\\.\\./){${depth + 1}}(kernel|evaluation|rehearsal|policies)(/|$)`, message: BY_NAME }),
}));

/**
 * rehearsal/ depends on the kernel and the evaluation library alone, by package name. Its modules sit at its top level and in
 * one level of folders (rehearsal/rollouts/: a module per rollout method): a relative path may
 * climb to rehearsal/ and no further; deeper files may not climb at all.
 */
const ONLY_KERNEL = {
    regex: "^eks-platform-(policies|rehearsal)",
    message: "the rehearsal depends only on the kernel and the evaluation library (eks-platform-kernel, eks-platform-evaluation)",
};
const OUT_OF_REHEARSAL = "the rehearsal depends only on the kernel and the evaluation library, by package name";
const REHEARSAL_DEPTHS = [
    { files: ["rehearsal/**/*.ts"], rules: rule(ONLY_KERNEL, { regex: "^\\.\\./", message: OUT_OF_REHEARSAL }) },
    { files: ["rehearsal/*/*.ts"], rules: rule(ONLY_KERNEL, { regex: "^(\\.\\./){2}", message: OUT_OF_REHEARSAL }) },
];

export const boundaries = [
    { files: ["**/*.ts"], rules: rule(relativeInto(["kernel", "evaluation", "rehearsal", "policies"], BY_NAME)) },
    ...TEST_DEPTHS,
    {
        files: ["kernel/**/*.ts"],
        rules: rule(
            { regex: "^eks-platform-", message: "the kernel depends on nothing of this repository: it is what everything else shares" },
            { regex: "^\\.\\./", message: "the kernel depends on nothing outside kernel/" },
        ),
    },
    {
        files: ["evaluation/**/*.ts"],
        rules: rule(
            {
                regex: "^eks-platform-(evaluation|rehearsal|policies)",
                message: "the evaluation library depends only on the kernel (eks-platform-kernel)",
            },
            { regex: "^\\.\\./", message: "the evaluation library depends only on the kernel, by package name" },
        ),
    },
    ...REHEARSAL_DEPTHS,
    {
        files: ["policies/**/*.ts"],
        rules: rule(
            relativeInto(
                ["components", "tools", "test", "kernel", "evaluation", "rehearsal"],
                "the pack judges any program: it never imports components/ or tools/, and reaches the kernel, the evaluation library and the rehearsal by package name",
            ),
        ),
    },
    {
        files: ["components/**/*.ts", "index.ts"],
        rules: rule(
            {
                regex: "^eks-platform-(policies|evaluation|rehearsal)",
                message: "the program reaches shared rules only through the kernel (eks-platform-kernel)",
            },
            relativeInto(
                ["policies", "kernel", "evaluation", "rehearsal", "tools", "test"],
                "the program reaches shared rules only through the kernel, by package name",
            ),
        ),
    },
];
