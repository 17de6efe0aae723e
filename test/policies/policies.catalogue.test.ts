import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import * as pack from "eks-platform-policies";
import { declarationOf, declareStackPolicy, PolicyDeclaration, policies } from "eks-platform-policies";
import { declarationsOf, policyTables, readEnvironments, readmeTable, withTable } from "../../tools/docs/policyTables";
import { LEVEL_TABLE } from "../../tools/docs/policyConfigs";
import { ROOT } from "../mocks";
import { stacks } from "../stackFiles";
import { Catalogue, catalogueProblems, exportedModules } from "./catalogue";
import { suites } from "./suites";

const CONFIG_DIR = path.join(ROOT, "policies", "config");

/** The pack's catalogue as the repository has it. */
function realCatalogue(): Catalogue {
    return {
        policies,
        exports: pack,
        modules: exportedModules(fs.readFileSync(path.join(ROOT, "policies", "policies.ts"), "utf8")),
        levels: LEVEL_TABLE,
        stacks: stacks(),
        suites: suites.map((s) => s.name),
    };
}

describe("policy pack: every policy has every part (test/policies/catalogue.ts)", () => {
    it("the pack is complete: declarations, registry order, a level per environment tier, suites", () => {
        const catalogue = realCatalogue();
        // A reader that found nothing would pass vacuously.
        expect(catalogue.modules).to.have.length(policies.length).and.to.include("vpcDns");
        expect(catalogue.levels.tiers).to.include.members(["dev", "prod"]);
        expect(Object.keys(catalogue.levels.stacks)).to.include.members(catalogue.stacks).and.to.include("prod");
        expect(catalogueProblems(catalogue)).to.deep.equal([]);
    });

    describe("the checker fails on a policy missing a part", () => {
        // Untyped, as a fork's JavaScript or a cast would pass it: the compiler refuses this declaration.
        const declaration: Record<string, unknown> = {
            name: "NoKebab",
            description: "lower-case and no full stop",
            enforcementLevel: "mandatory",
            config: { limit: { type: "integer" }, other: { default: 1 } },
            docs: { requires: "", checks: "one | two", knobs: { nothing: "a note" } },
            validateStack: () => undefined,
        };
        const careless = declareStackPolicy(declaration as never);
        const real = realCatalogue();
        const withCareless: Catalogue = {
            ...real,
            policies: [...policies, careless],
            modules: [...real.modules, "careless"],
            exports: { ...real.exports, careless },
        };

        it("a bad name, description, docs text or knob, and no level, no suite", () => {
            const problems = catalogueProblems(withCareless);
            expect(problems).to.include.members([
                "NoKebab: name is not kebab-case (e.g. workload-resources)",
                "NoKebab: description is not one sentence starting with a capital and ending with a full stop",
                "NoKebab: docs.requires (README.md): missing",
                'NoKebab: docs.checks (docs/policies.md): holds a "|" or a line break, which a table cell cannot',
                "NoKebab.limit: knob without a default",
                "NoKebab.limit: knob without a description",
                "NoKebab.other: knob without a description",
                "NoKebab.other: knob without a type",
                "NoKebab: docs.knobs.nothing notes a knob the policy does not have",
                "NoKebab: no level for environment dev in policies/config/levels.ts",
                "NoKebab: no level for environment prod in policies/config/levels.ts",
                "NoKebab: no suite in test/policies/suites.ts",
            ]);
            expect(problems.every((p) => p.includes("NoKebab"))).to.equal(true);
        });

        it("a policy const exported but not registered, or not declared", () => {
            const handWritten = { name: "hand-written", description: "Written by hand.", validateStack: () => undefined };
            expect(catalogueProblems({ ...real, exports: { ...real.exports, handWritten } })).to.deep.equal([
                "handWritten: exported as a policy but not in the registry (declare it with declareResourcePolicy or declareStackPolicy)",
            ]);
            const undeclared = catalogueProblems({ ...real, declarations: (p) => (p === pack.vpcDns ? undefined : declarationOf(p)) });
            expect(undeclared).to.deep.equal(["vpc-dns: not declared with declareResourcePolicy or declareStackPolicy"]);
        });

        it("a registry whose order is not policies.ts's lines", () => {
            const swapped = [...real.modules];
            [swapped[0], swapped[1]] = [swapped[1], swapped[0]];
            expect(catalogueProblems({ ...real, modules: swapped })).to.deep.equal([
                "workload-resources: registry entry 1 is not the const its line of policies.ts exports (./workloadTerminationGrace as workloadTerminationGrace)",
                "workload-termination-grace: registry entry 2 is not the const its line of policies.ts exports (./workloadResources as workloadResources)",
            ]);
        });

        it("a row of the table of levels or a suite naming no policy", () => {
            const problems = catalogueProblems({
                ...real,
                levels: { ...real.levels, levels: { ...real.levels.levels, "vpc-dnss": { dev: "advisory", prod: "mandatory" } } },
                suites: [...real.suites, "gone"],
            });
            expect(problems).to.deep.equal([
                "policies/config/levels.ts: vpc-dnss names no policy of the pack",
                "test/policies/suites.ts: suite gone names no policy of the pack",
            ]);
        });
    });
});

describe("policy pack: the docs tables are generated from the declarations (npm run docs)", () => {
    const declarations = declarationsOf(policies);

    for (const { file, current, generated } of policyTables(ROOT, declarations)) {
        it(`${file} holds the table the declarations and environment files generate (run npm run docs)`, () => {
            expect(current).to.equal(generated);
        });
    }

    it("a changed declaration changes the table (so the check above can fail)", () => {
        const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
        const environments = readEnvironments(CONFIG_DIR, declarations);
        const edited: PolicyDeclaration[] = declarations.map((d) =>
            d.name === "vpc-dns" ? { ...d, docs: { ...d.docs, requires: "something else" } } : d,
        );
        const regenerated = withTable(readme, readmeTable(edited, environments), "README.md");
        expect(regenerated).to.not.equal(readme);
        // One level column per environment file: a fork's added stack adds one.
        const levels = environments.map((e) => (e.config["vpc-dns"]?.enforcementLevel === "advisory" ? "A" : "M")).join(" | ");
        expect(regenerated).to.include(`| \`vpc-dns\` | something else | ${levels} | — |`);
        expect(() => withTable("# no table here\n", "", "x.md")).to.throw(/x\.md: no generated policy table/);
    });

    it("shows each environment's level, and knob values only where they differ from the default", () => {
        const environments = readEnvironments(CONFIG_DIR, declarations);
        const table = readmeTable(declarations, [
            ...environments,
            {
                name: "qa",
                config: {
                    ...environments[0].config,
                    "vpc-dns": { enforcementLevel: "advisory", properties: {} },
                    "workload-pdb-required": { enforcementLevel: "mandatory", properties: { minReplicas: 3 } },
                },
            },
        ]);
        expect(table.split("\n")[0]).to.equal(
            `| policy | requires | ${environments.map((e) => e.name).join(" | ")} | qa | knobs (default) |`,
        );
        const levels = environments.map((e) => (e.config["vpc-dns"]?.enforcementLevel === "advisory" ? "A" : "M")).join(" \\| ");
        expect(table).to.match(new RegExp(`\\| \`vpc-dns\` \\| [^|]+ \\| ${levels} \\| A \\| — \\|`));
        expect(table).to.include("`minReplicas` (`2`; qa `3`)");
    });
});
