// Lint: typescript-eslint's type-aware recommended rules plus Pulumi's rules that catch an
// Output interpolated into a template literal (it renders as "Calling [toString] on an Output").
import js from "@eslint/js";
import pulumi from "@pulumi/eslint-plugin";
import tseslint from "typescript-eslint";
import { boundaries } from "./eslint.boundaries.mjs";

export default tseslint.config(
    {
        ignores: [
            "node_modules/",
            "**/node_modules/",
            "bin/",
            "test/reporter.js",
            "tools/cli/registerSwc.js",
            "tools/cli/run.js",
            "tools/cli/swcCache.js",
            "dev/testUnit.js",
            "eslint.config.mjs",
            "eslint.boundaries.mjs",
        ],
    },
    js.configs.recommended,
    ...tseslint.configs.recommendedTypeChecked,
    {
        languageOptions: {
            parserOptions: { project: "./tsconfig.json", tsconfigRootDir: import.meta.dirname },
        },
        plugins: { pulumi },
        rules: {
            "pulumi/no-output-in-template-literal": "error",
            "pulumi/no-output-instance-in-template-literal": "error",
            "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
            "@typescript-eslint/no-floating-promises": "error",
        },
    },
    {
        // Tests assert on loosely typed plan JSON and mock records.
        files: ["test/**/*.ts"],
        rules: {
            "@typescript-eslint/no-unsafe-member-access": "off",
            "@typescript-eslint/no-unsafe-assignment": "off",
            "@typescript-eslint/no-unsafe-argument": "off",
            "@typescript-eslint/no-unused-expressions": "off",
            "@typescript-eslint/no-unsafe-return": "off",
            "@typescript-eslint/no-unsafe-call": "off",
            "@typescript-eslint/no-explicit-any": "off",
        },
    },
    ...boundaries,
);
