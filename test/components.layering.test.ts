// components/ (the program, with index.ts) is layered with the stack config as its bottom edge
// (issue 50): each component owns its config section in a schema module, `schema.ts` in its folder
// or `<name>.schema.ts` beside a one-file component (or for one part of a folder's section, a
// node-group kind, a compute mode). A schema module imports only zod, the kernel and other schema
// modules; components/config assembles the sections and imports of components/ only schema
// modules; and no import, type-only ones included, closes a cycle.
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { findCycle, type ModuleImports, readImports, tsFiles } from "./importGraph";
import { ROOT } from "./mocks";

/** The stack config: it assembles the sections. */
const CONFIG = "components/config/";

/** The packages a schema module may import besides other schema modules. */
const SCHEMA_PACKAGES: readonly string[] = ["zod", "eks-platform-kernel"];

/** True for a schema module: `schema.ts` or `<name>.schema.ts`, under components/. */
function isSchemaModule(file: string): boolean {
    return file.startsWith("components/") && /(^|\/|\.)schema\.ts$/.test(file);
}

/** Each import that breaks the layering, as `<file> imports <target>: <rule>`. */
function layeringProblems(imports: ReadonlyMap<string, ModuleImports>): string[] {
    const problems: string[] = [];
    for (const [file, { local, packages }] of imports) {
        if (file.startsWith(CONFIG)) {
            for (const target of local.filter((t) => !t.startsWith(CONFIG) && !isSchemaModule(t))) {
                problems.push(
                    `${file} imports ${target}: components/config assembles the sections and imports of components/ only their schema modules (schema.ts, <name>.schema.ts)`,
                );
            }
        }
        if (isSchemaModule(file)) {
            for (const target of [...packages.filter((p) => !SCHEMA_PACKAGES.includes(p)), ...local.filter((t) => !isSchemaModule(t))]) {
                problems.push(
                    `${file} imports ${target}: a schema module imports only ${SCHEMA_PACKAGES.join(", ")} and other schema modules (the stack config loads it, before any resource and without a component's code)`,
                );
            }
        }
    }
    return problems;
}

/** The modules of `imports`, each with the modules of the set it imports. */
function graphOf(imports: ReadonlyMap<string, ModuleImports>): Map<string, string[]> {
    return new Map([...imports].map(([file, { local }]) => [file, local.filter((t) => imports.has(t))]));
}

describe("components/: the stack config is the bottom edge, no import cycle (issue 50)", () => {
    const files = ["index.ts", ...tsFiles(ROOT, "components")];
    const imports = readImports(files, (file) => fs.readFileSync(path.join(ROOT, file), "utf8"));
    const graph = graphOf(imports);

    it("reads the real imports, type-only ones and re-exports included (a graph with no edge would pass vacuously)", () => {
        expect(files.filter(isSchemaModule).length).to.be.greaterThan(10);
        expect(graph.get("index.ts")).to.include("components/config/index.ts");
        expect(graph.get("components/config/index.ts")).to.include.members([
            "components/nodegroups/schema.ts",
            "components/config/issues.ts",
        ]);
        // `import type { NodeGroupKind } from "./kind"`, nothing else of it.
        expect(graph.get("components/nodegroups/managed.ts")).to.include("components/nodegroups/kind.ts");
        expect(imports.get("components/nodegroups/managed.ts")?.packages).to.include("@pulumi/aws");
        expect(imports.get("components/karpenter/schema.ts")?.packages).to.include.members(["zod", "eks-platform-kernel"]);
    });

    it("has no import cycle", () => {
        const cycle = findCycle(graph);
        expect(cycle, cycle?.join(" → ")).to.equal(undefined);
    });

    it("keeps components/config above the schema modules only, and the schema modules free of components' code and of Pulumi", () => {
        expect(layeringProblems(imports)).to.deep.equal([]);
    });

    it("the checks can fail: a cycle through a type-only import or a re-export, config importing a component, a schema module importing one or Pulumi", () => {
        const sources: Record<string, string> = {
            "components/config/index.ts": [
                'import { nodeGroupsSchema } from "../nodegroups/schema";',
                'import { NodeGroups } from "../nodegroups";',
                'import { describeIssue } from "./issues";',
            ].join("\n"),
            "components/config/issues.ts": 'import type { z } from "zod";',
            "components/nodegroups/index.ts": 'import * as pulumi from "@pulumi/pulumi";\nimport { kindOf } from "./kinds";',
            "components/nodegroups/kinds.ts": 'import { managedKind } from "./managed";',
            "components/nodegroups/managed.ts":
                'import type { NodeGroupKind } from "./kinds";\nimport { managedSchema } from "./managed.schema";',
            "components/nodegroups/managed.schema.ts": 'import { z } from "zod";\nimport { commonFields } from "./common.schema";',
            "components/nodegroups/common.schema.ts": 'export { parseCidr } from "eks-platform-kernel";',
            "components/nodegroups/schema.ts": [
                'import { managedSchema } from "./managed.schema";',
                'import * as aws from "@pulumi/aws";',
                'import { createHash } from "crypto";',
                'export type { NodeGroupKind } from "./kinds";',
            ].join("\n"),
        };
        const synthetic = readImports(Object.keys(sources), (file) => sources[file]);
        expect(synthetic.get("components/config/index.ts")?.local).to.deep.equal([
            "components/nodegroups/schema.ts",
            "components/nodegroups/index.ts",
            "components/config/issues.ts",
        ]);
        expect(findCycle(graphOf(synthetic))).to.deep.equal([
            "components/nodegroups/kinds.ts",
            "components/nodegroups/managed.ts",
            "components/nodegroups/kinds.ts",
        ]);
        expect(layeringProblems(synthetic).map((p) => p.slice(0, p.indexOf(":")))).to.deep.equal([
            "components/config/index.ts imports components/nodegroups/index.ts",
            "components/nodegroups/schema.ts imports @pulumi/aws",
            "components/nodegroups/schema.ts imports crypto",
            "components/nodegroups/schema.ts imports components/nodegroups/kinds.ts",
        ]);
        // Without the type-only import, no cycle; and a clean config and schema module pass.
        const acyclic: Record<string, string> = {
            ...sources,
            "components/nodegroups/managed.ts": 'import { managedSchema } from "./managed.schema";',
        };
        expect(findCycle(graphOf(readImports(Object.keys(acyclic), (file) => acyclic[file])))).to.equal(undefined);
        const clean: Record<string, string> = {
            "components/config/index.ts": 'import { nodeGroupsSchema } from "../nodegroups/schema";',
            "components/nodegroups/schema.ts":
                'import { z } from "zod";\nimport type { Taint } from "eks-platform-kernel";\nexport * from "./managed.schema";',
            "components/nodegroups/managed.schema.ts": 'import { z } from "zod";',
        };
        expect(layeringProblems(readImports(Object.keys(clean), (file) => clean[file]))).to.deep.equal([]);
    });
});
